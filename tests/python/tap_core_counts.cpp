// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// tap_core_counts VALUES.txt [SCALE]: what Mantissa's telemetry core records
// for the FP32 values of VALUES.txt (one bit pattern per line, hex, e.g.
// 0x00000001), observed as weight gradients with loss scale SCALE (default 1),
// printed as one JSON object:
//   {"frame": <the telemetry frame as the run log stores it>,
//    "cast_counts": {"1": {"fp16": {...}, ...}, "unscaled": {...}}}
// cast_counts: castCounts() of the values as they are, and of the values
// times 1/SCALE in FP32 (the unscaled view), as exact integers.
#include <mantissa/telemetry/cast_fractions.h>
#include <mantissa/telemetry/collector.h>
#include <mantissa/telemetry/frame.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

nlohmann::json countsJson(const std::vector<float>& values, float scale) {
  using namespace mantissa::telemetry;
  const auto counts = castCounts(values, scale);
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t k = 0; k < kCastTargetCount; ++k) {
    const CastCounts& c = counts[k];
    out[std::string(castTargetName(kCastTargets[k]))] = {
        {"total", c.total},         {"zeros", c.zeros},     {"nan", c.nan},
        {"to_zero", c.toZero},      {"to_subnormal", c.toSubnormal},
        {"overflow", c.overflow}};
  }
  return out;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: tap_core_counts VALUES.txt [SCALE]\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "tap_core_counts: cannot open " << argv[1] << "\n";
    return 1;
  }
  std::vector<float> values;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty())
      continue;
    char* end = nullptr;
    const unsigned long bits = std::strtoul(line.c_str(), &end, 16);
    if (end == line.c_str() || bits > 0xffffffffUL) {
      std::cerr << "tap_core_counts: bad bit pattern '" << line << "'\n";
      return 1;
    }
    const auto b = static_cast<std::uint32_t>(bits);
    float f;
    std::memcpy(&f, &b, sizeof f);
    values.push_back(f);
  }
  const float scale = argc == 3 ? std::strtof(argv[2], nullptr) : 1.0f;
  mantissa::telemetry::TelemetryCollector collector(1);
  collector.observe(0, mantissa::telemetry::TensorClass::WeightGrads, values, scale);
  const auto frame = collector.finish(0);
  nlohmann::json out = {{"frame", mantissa::telemetry::toJson(*frame)},
                        {"cast_counts",
                         {{"1", countsJson(values, 1.0f)},
                          {"unscaled", countsJson(values, 1.0f / scale)}}}};
  std::cout << out.dump() << "\n";
  return 0;
}
