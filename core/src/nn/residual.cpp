// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "kernels/step_parallel.h"

#include <mantissa/nn/precision.h>
#include <mantissa/nn/residual.h>

#include <cstddef>

namespace mantissa::nn {

void residualForward(std::span<float> out, std::span<const float> a, std::span<const float> b,
                     DType stream) {
  // Split between the OpenMP threads when large (kernels/step_parallel.h).
  kernels::forStepPieces(out.size(), out.size(), 64, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      out[i] = a[i] + b[i];
  });
  roundSpan(stream, out);
}

void residualBackward(std::span<float> da, std::span<float> db, std::span<const float> dout) {
  for (std::size_t i = 0; i < dout.size(); ++i) {
    da[i] += dout[i];
    db[i] += dout[i];
  }
}

} // namespace mantissa::nn
