// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/bench/conversion_bench.h>
#include <mantissa/numeric/convert.h>
#include <mantissa/numeric/cpu_features.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <numeric>

namespace mantissa::bench {
namespace {

using namespace numeric;

struct Operation {
  std::string operation;
  std::string path;
  double bytesPerPass;
  bool portable; // run with setForcePortableConversions(true)
  std::function<void()> run;
  std::vector<double> seconds;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double coefficientOfVariation(const std::vector<double>& v) {
  const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  double sq = 0;
  for (double x : v)
    sq += (x - mean) * (x - mean);
  return mean > 0 ? std::sqrt(sq / static_cast<double>(v.size())) / mean : 0.0;
}

std::string pathName(bool portable, bool bf16) {
  if (portable)
    return "portable";
  const CpuFeatures& cpu = cpuFeatures();
  if (bf16)
    return bf16ConvertPath() == ConvertPath::Hardware ? "AVX512_BF16"
                                                      : (cpu.avx2 ? "portable rule, AVX2" : "portable");
  return f16ConvertPath() == ConvertPath::Hardware ? "F16C" : "portable";
}

} // namespace

std::vector<ConversionResult> measureConversionThroughput(const ConversionBenchOptions& options) {
  const std::size_t n = std::max<std::size_t>(options.elements, 1024);
  // Source values: deterministic, spread over a training-like range.
  std::vector<float> src(n), dst32(n), copy(n);
  std::vector<std::uint16_t> dst16(n), bf(n), h(n);
  std::uint32_t state = 12345;
  for (auto& x : src) {
    state = state * 1664525u + 1013904223u;
    x = static_cast<float>(static_cast<std::int32_t>(state)) * 0x1p-31f;
  }
  convertF32ToBf16(src, bf);
  convertF32ToF16(src, h);

  const double f4 = static_cast<double>(n) * 4, f2 = static_cast<double>(n) * 2;
  std::vector<Operation> ops;
  ops.push_back({"memcpy fp32", "memcpy", 2 * f4, false,
                 [&] { std::memcpy(copy.data(), src.data(), n * sizeof(float)); }, {}});
  for (bool portable : {false, true}) {
    if (portable && !options.portableToo)
      break;
    ops.push_back({"fp32->bf16", pathName(portable, true), f4 + f2, portable,
                   [&] { convertF32ToBf16(src, dst16); }, {}});
    ops.push_back({"bf16->fp32", pathName(portable, true), f2 + f4, portable,
                   [&] { convertBf16ToF32(bf, dst32); }, {}});
    ops.push_back({"fp32->fp16", pathName(portable, false), f4 + f2, portable,
                   [&] { convertF32ToF16(src, dst16); }, {}});
    ops.push_back({"fp16->fp32", pathName(portable, false), f2 + f4, portable,
                   [&] { convertF16ToF32(h, dst32); }, {}});
  }

  using Clock = std::chrono::steady_clock;
  for (int round = 0; round < options.warmup + options.repetitions; ++round) {
    for (auto& op : ops) {
      setForcePortableConversions(op.portable);
      const auto t0 = Clock::now();
      op.run();
      const auto t1 = Clock::now();
      if (round >= options.warmup)
        op.seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
    }
  }
  setForcePortableConversions(false);

  std::vector<ConversionResult> results;
  for (const auto& op : ops) {
    std::vector<double> gbps;
    for (double s : op.seconds)
      gbps.push_back(op.bytesPerPass / s / 1e9);
    results.push_back({op.operation, op.path, op.bytesPerPass, median(gbps),
                       coefficientOfVariation(gbps), 0.0});
  }
  for (auto& r : results)
    r.ratioToMemcpy = r.gbps / results.front().gbps;
  return results;
}

} // namespace mantissa::bench
