// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// bench::gptScalingFromJson: the GPT scaling result (bench_gpt --sizes
// --json) that the Speed page opens. A bad document must be
// std::invalid_argument with a message; an accepted one must survive
// toJson -> fromJson -> toJson unchanged.

#include <mantissa/bench/gpt_scaling.h>

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
    const auto scaling = mantissa::bench::gptScalingFromJson(json);
    const nlohmann::json once = mantissa::bench::gptScalingToJson(scaling);
    if (mantissa::bench::gptScalingToJson(mantissa::bench::gptScalingFromJson(once)) != once)
      std::abort(); // the round trip lost something
  } catch (const std::invalid_argument& e) {
    if (std::string_view(e.what()).empty())
      std::abort();
  }
  return 0;
}
