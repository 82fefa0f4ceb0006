// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/nn/precision.h>
#include <mantissa/nn/residual.h>

#include <cstddef>

namespace mantissa::nn {

void residualForward(std::span<float> out, std::span<const float> a, std::span<const float> b,
                     DType stream) {
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = a[i] + b[i];
  roundSpan(stream, out);
}

void residualBackward(std::span<float> da, std::span<float> db, std::span<const float> dout) {
  for (std::size_t i = 0; i < dout.size(); ++i) {
    da[i] += dout[i];
    db[i] += dout[i];
  }
}

} // namespace mantissa::nn
