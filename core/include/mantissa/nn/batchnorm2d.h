// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Batch normalization over NCHW activations, per channel, FP32 storage.
//
//   B batch, C channels, HW = H*W pixels per plane, N = B*HW values per channel
//   in / out [B, C*HW]   in[b, c*HW + p]
//   gamma, beta [C]      scale and shift
//   mean, rstd [C]       the batch statistics, kept for backward
//   runningMean, runningVar [C]  the statistics evaluation uses
//   eps = kNormEps (1e-5), momentum = kBatchNormMomentum (0.1), as PyTorch
//
// Training forward (batch statistics):
//   mean[c] = sum_{b,p} x / N
//   var[c]  = sum_{b,p} (x - mean)^2 / N          (biased: used to normalize)
//   rstd[c] = 1 / sqrt(var + eps)
//   out     = (x - mean) * rstd * gamma[c] + beta[c]
//   runningMean = (1 - momentum) * runningMean + momentum * mean
//   runningVar  = (1 - momentum) * runningVar  + momentum * var * N / (N - 1)
//                                                  (UNbiased, as torch.nn.BatchNorm2d)
// N < 2 throws std::invalid_argument (no unbiased variance; PyTorch refuses too).
//
// Evaluation forward (running statistics, nothing updated):
//   out = (x - runningMean) / sqrt(runningVar + eps) * gamma + beta
//
// Backward of the training forward, OVERWRITING din, dgamma and dbeta
// (unlike layerNormBackward, which accumulates into a residual stream):
//   xhat = (x - mean) * rstd
//   dbeta[c]  = sum_{b,p} dout            dgamma[c] = sum_{b,p} dout * xhat
//   din       = gamma * rstd * (dout - dbeta / N - xhat * dgamma / N)
// The evaluation forward has no backward here (it is not trained through).
//
// `stats` is the precision of the statistics, as for layerNormForward:
// F32 computes them in FP32; BF16/F16 round the running sum after every
// addition, the mean, the variance, rstd and the updated running mean and
// variance to that format, as a 16-bit reduction would. Every sum over a
// channel runs plane by plane: each (b, c) plane summed over p = 0..HW-1,
// then the B plane sums added in order b = 0..B-1 (rounded likewise).
// The backward pass computes in FP32.
//
// Every span must have exactly the size its shape gives, else
// std::invalid_argument.

#include <mantissa/nn/norm.h>
#include <mantissa/tensor/dtype.h>

#include <span>

namespace mantissa::nn {

inline constexpr float kBatchNormMomentum = 0.1f;

void batchNorm2dTrainForward(std::span<float> out, std::span<float> mean, std::span<float> rstd,
                             std::span<float> runningMean, std::span<float> runningVar,
                             std::span<const float> in, std::span<const float> gamma,
                             std::span<const float> beta, int B, int C, int HW,
                             DType stats = DType::F32, float momentum = kBatchNormMomentum);

void batchNorm2dEvalForward(std::span<float> out, std::span<const float> in,
                            std::span<const float> gamma, std::span<const float> beta,
                            std::span<const float> runningMean,
                            std::span<const float> runningVar, int B, int C, int HW);

void batchNorm2dBackward(std::span<float> din, std::span<float> dgamma, std::span<float> dbeta,
                         std::span<const float> dout, std::span<const float> in,
                         std::span<const float> gamma, std::span<const float> mean,
                         std::span<const float> rstd, int B, int C, int HW);

} // namespace mantissa::nn
