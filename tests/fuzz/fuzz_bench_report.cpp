// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// bench::fromJson: the benchmark report the Speed page remembers and reads
// back from the user's data directory (including its "fp16_gemm" part: the
// FP16 GEMM's error table and speed). A bad document must be
// std::invalid_argument with a message; an accepted one must survive
// toJson -> fromJson -> toJson unchanged.

#include <mantissa/bench/bench_report.h>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded())
    return 0;
  try {
    const auto report = mantissa::bench::fromJson(json);
    const nlohmann::json once = mantissa::bench::toJson(report);
    if (mantissa::bench::toJson(mantissa::bench::fromJson(once)) != once)
      std::abort(); // the round trip lost something
  } catch (const std::invalid_argument& e) {
    if (std::string_view(e.what()).empty())
      std::abort();
  }
  return 0;
}
