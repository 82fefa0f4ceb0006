// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Elementwise kernels beside the matmul of a linear layer, FP32 only.
// Plain loops over contiguous rows that the compiler vectorises; the
// row-major order keeps the summation order fixed, so results are
// bit-reproducible run to run.
//
// Legend: M rows (batch), N columns (features).

#include <mantissa/tensor/tensor.h>

namespace mantissa::kernels {

// dst[M,N] += bias[1,N] broadcast over rows (bias also accepted as [N,1]).
// Throws std::invalid_argument if a tensor is not F32 or the shapes differ.
void addBias(Tensor& dst, const Tensor& bias);

// dBias[1,N] (+)= sum over rows of dY[M,N] (column sums, FP32, rows in
// order 0..M-1). With accumulate the sums are added to dBias's contents
// (gradient accumulation); otherwise they overwrite it.
void biasGradient(const Tensor& dY, Tensor& dBias, bool accumulate = false);

} // namespace mantissa::kernels
