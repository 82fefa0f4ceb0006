// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The GPT model spec parser on hostile text: model::parseGptSpec. Either
// std::invalid_argument naming the spec, or a spec inside its bounds with embd
// divisible by heads whose toString() parses back to the same values.

#include <mantissa/model/gpt.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mantissa::model;
  const std::string_view spec(reinterpret_cast<const char*>(data), size);
  try {
    const GptSpec s = parseGptSpec(spec);
    if (s.layers < 1 || s.layers > kGptMaxLayers || s.heads < 1 || s.heads > kGptMaxHeads ||
        s.embd < 1 || s.embd > kGptMaxEmbd || s.ctx < 1 || s.ctx > kGptMaxCtx ||
        s.embd % s.heads != 0)
      std::abort();
    const GptSpec back = parseGptSpec(s.toString());
    if (back.layers != s.layers || back.heads != s.heads || back.embd != s.embd || back.ctx != s.ctx)
      std::abort();
  } catch (const std::invalid_argument& e) {
    if (std::string_view(e.what()).substr(0, 12) != "model spec '")
      std::abort();
  }
  return 0;
}
