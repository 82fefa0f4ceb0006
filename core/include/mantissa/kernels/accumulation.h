// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Matrix products with the accumulator emulated in 16 bits, to show why
// hardware accumulates in FP32. Plain loops (no oneDNN): slow, for the
// precision-policy experiments on small models.
//
//   dst[M,N] = op(src)[M,K] x op(weights)[K,N], FP32 values in and out
//   (stored shapes as in kernels::Matmul; inputs already rounded by the caller)
//
// Each product a*b is exact in FP32 for 16-bit inputs' values and is added
// with one rounding, as a fused multiply-add into a 16-bit accumulator:
//  - promoteEvery == 0: sum = round16(sum + a*b) after every addition;
//  - promoteEvery == N_C > 0: a 16-bit partial sum as above over N_C
//    products, then added into an FP32 total and restarted at zero.
// accumulator F32 gives the plain FP32 sum in the same k order.

#include <mantissa/kernels/matmul.h>

#include <span>

namespace mantissa::kernels {

void matmulEmulatedAccumulation(const MatmulShape& shape, std::span<const float> src,
                                std::span<const float> weights, std::span<float> dst,
                                DType accumulator, int promoteEvery);

} // namespace mantissa::kernels
