// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/nn/embedding.h>

#include <cstddef>

namespace mantissa::nn {

void embeddingForward(std::span<float> out, std::span<const std::int32_t> tokens,
                      std::span<const float> wte, std::span<const float> wpe, int T, int C) {
  const std::size_t c = static_cast<std::size_t>(C);
  for (std::size_t n = 0; n < tokens.size(); ++n) {
    const float* te = wte.data() + static_cast<std::size_t>(tokens[n]) * c;
    const float* pe = wpe.data() + (n % static_cast<std::size_t>(T)) * c;
    float* o = out.data() + n * c;
    for (std::size_t i = 0; i < c; ++i)
      o[i] = te[i] + pe[i];
  }
}

void embeddingBackward(std::span<float> dwte, std::span<float> dwpe, std::span<const float> dout,
                       std::span<const std::int32_t> tokens, int T, int C) {
  const std::size_t c = static_cast<std::size_t>(C);
  for (std::size_t n = 0; n < tokens.size(); ++n) {
    float* dte = dwte.data() + static_cast<std::size_t>(tokens[n]) * c;
    float* dpe = dwpe.data() + (n % static_cast<std::size_t>(T)) * c;
    const float* d = dout.data() + n * c;
    for (std::size_t i = 0; i < c; ++i) {
      dte[i] += d[i];
      dpe[i] += d[i];
    }
  }
}

} // namespace mantissa::nn
