// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// LayerNorm and RMSNorm over the last dimension, FP32 storage.
//
//   N rows (B*T), C channels, eps = 1e-5
//   LayerNorm:  mean[n] = sum_c x / C          rstd[n] = 1 / sqrt(sum_c (x - mean)^2 / C + eps)
//               out[n,c] = (x[n,c] - mean[n]) * rstd[n] * w[c] + b[c]
//   RMSNorm:    rrms[n] = 1 / sqrt(sum_c x^2 / C + eps)
//               out[n,c] = x[n,c] * rrms[n] * w[c]
//
//   in [N, C], out [N, C], w [C], b [C], mean [N], rstd / rrms [N] (kept for backward)
//
// Backward ACCUMULATES into din (the residual stream's gradient), dw and db:
//   din[n,c] += rstd * (g - mean_c(g) - xhat * mean_c(g * xhat)),  g = dout * w
//   dw[c] += sum_n dout * xhat,  db[c] += sum_n dout
// (RMSNorm: din += rrms * (g - xhat * mean_c(g * xhat)), xhat = x * rrms.)
//
// `stats` is the precision of the statistics: F32 computes them in FP32;
// BF16/F16 round the running sum after every addition, the mean, the
// variance and the reciprocal square root to that format, as a 16-bit
// reduction would.

#include <mantissa/tensor/dtype.h>

#include <span>

namespace mantissa::nn {

inline constexpr float kNormEps = 1e-5f;

void layerNormForward(std::span<float> out, std::span<float> mean, std::span<float> rstd,
                      std::span<const float> in, std::span<const float> w,
                      std::span<const float> b, int N, int C, DType stats = DType::F32);
void layerNormBackward(std::span<float> din, std::span<float> dw, std::span<float> db,
                       std::span<const float> dout, std::span<const float> in,
                       std::span<const float> w, std::span<const float> mean,
                       std::span<const float> rstd, int N, int C);

void rmsNormForward(std::span<float> out, std::span<float> rrms, std::span<const float> in,
                    std::span<const float> w, int N, int C, DType stats = DType::F32);
void rmsNormBackward(std::span<float> din, std::span<float> dw, std::span<const float> dout,
                     std::span<const float> in, std::span<const float> w,
                     std::span<const float> rrms, int N, int C);

} // namespace mantissa::nn
