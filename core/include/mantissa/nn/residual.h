// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Residual add, FP32 storage.
//
//   a, b, out [n]:  out = a + b, rounded to `stream` (the residual stream's
//                   precision; F32 leaves it exact)
//   dout [n]:       da += dout, db += dout (both inputs get the gradient whole)

#include <mantissa/tensor/dtype.h>

#include <span>

namespace mantissa::nn {

void residualForward(std::span<float> out, std::span<const float> a, std::span<const float> b,
                     DType stream = DType::F32);
void residualBackward(std::span<float> da, std::span<float> db, std::span<const float> dout);

} // namespace mantissa::nn
