// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The step kernels' exp and tanh over arrays, on the path kernels::stepIsa()
// names (the same bits on each). The GPT's FP32 softmax and GELU use the
// same element functions. Accuracy (checked against double precision by the
// tests): exp within 2 ulp for normal results, subnormal results within one
// unit of the smallest subnormal, 0 below e^-103.98, inf above e^88.73; tanh
// within 3 ulp; NaN in, NaN out.

#include <span>

namespace mantissa::kernels {

// y[i] = e^x[i]; x and y of one size (may be the same array).
void expSpan(std::span<const float> x, std::span<float> y);

// y[i] = tanh(x[i]); x and y of one size (may be the same array).
void tanhSpan(std::span<const float> x, std::span<float> y);

} // namespace mantissa::kernels
