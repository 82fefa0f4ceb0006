// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/nn/batchnorm2d.h>
#include <mantissa/nn/precision.h>

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace mantissa::nn {
namespace {

void checkSizes(const char* who, int B, int C, int HW,
                std::initializer_list<std::pair<const char*, std::size_t>> activations,
                std::initializer_list<std::pair<const char*, std::size_t>> channels) {
  if (B <= 0 || C <= 0 || HW <= 0)
    throw std::invalid_argument(std::string(who) + ": sizes B=" + std::to_string(B) +
                                " C=" + std::to_string(C) + " HW=" + std::to_string(HW) +
                                " must be positive");
  const std::size_t n = std::size_t(B) * std::size_t(C) * std::size_t(HW);
  for (const auto& [name, size] : activations)
    if (size != n)
      throw std::invalid_argument(std::string(who) + ": " + name + " has " +
                                  std::to_string(size) + " values, expected B*C*HW = " +
                                  std::to_string(n));
  for (const auto& [name, size] : channels)
    if (size != std::size_t(C))
      throw std::invalid_argument(std::string(who) + ": " + name + " has " +
                                  std::to_string(size) + " values, expected C = " +
                                  std::to_string(C));
}

// sum over the channel's B planes of f(x), plane by plane, in `stats`
// precision (FP32, or rounded after every addition).
template <class F>
float channelSum(const float* in, int B, std::size_t planeStride, std::size_t HW, DType stats,
                 F f) {
  float total = 0.0f;
  for (int b = 0; b < B; ++b) {
    const float* x = in + std::size_t(b) * planeStride;
    float sum = 0.0f;
    if (stats == DType::F32) {
      for (std::size_t p = 0; p < HW; ++p)
        sum += f(x[p]);
      total += sum;
    } else {
      for (std::size_t p = 0; p < HW; ++p)
        sum = roundScalar(stats, sum + roundScalar(stats, f(x[p])));
      total = roundScalar(stats, total + sum);
    }
  }
  return total;
}

} // namespace

void batchNorm2dTrainForward(std::span<float> out, std::span<float> mean, std::span<float> rstd,
                             std::span<float> runningMean, std::span<float> runningVar,
                             std::span<const float> in, std::span<const float> gamma,
                             std::span<const float> beta, int B, int C, int HW, DType stats,
                             float momentum) {
  checkSizes("batchNorm2dTrainForward", B, C, HW, {{"in", in.size()}, {"out", out.size()}},
             {{"mean", mean.size()},
              {"rstd", rstd.size()},
              {"runningMean", runningMean.size()},
              {"runningVar", runningVar.size()},
              {"gamma", gamma.size()},
              {"beta", beta.size()}});
  const std::size_t hw = std::size_t(HW);
  const std::size_t N = std::size_t(B) * hw;
  if (N < 2)
    throw std::invalid_argument("batchNorm2dTrainForward: " + std::to_string(N) +
                                " value per channel; batch statistics need at least 2");
  const std::size_t planeStride = std::size_t(C) * hw;
  const float n = float(N);
  for (std::size_t c = 0; c < std::size_t(C); ++c) {
    const float* x = in.data() + c * hw;
    const float m =
        roundScalar(stats, channelSum(x, B, planeStride, hw, stats, [](float v) { return v; }) / n);
    const float var = roundScalar(
        stats,
        channelSum(x, B, planeStride, hw, stats, [m](float v) { return (v - m) * (v - m); }) / n);
    const float s = roundScalar(stats, 1.0f / std::sqrt(var + kNormEps));
    const float scale = s * gamma[c];
    for (int b = 0; b < B; ++b) {
      const std::size_t off = std::size_t(b) * planeStride + c * hw;
      for (std::size_t p = 0; p < hw; ++p)
        out[off + p] = (in[off + p] - m) * scale + beta[c];
    }
    mean[c] = m;
    rstd[c] = s;
    const float unbiased = var * (n / float(N - 1));
    runningMean[c] = roundScalar(stats, (1.0f - momentum) * runningMean[c] + momentum * m);
    runningVar[c] = roundScalar(stats, (1.0f - momentum) * runningVar[c] + momentum * unbiased);
  }
}

void batchNorm2dEvalForward(std::span<float> out, std::span<const float> in,
                            std::span<const float> gamma, std::span<const float> beta,
                            std::span<const float> runningMean,
                            std::span<const float> runningVar, int B, int C, int HW) {
  checkSizes("batchNorm2dEvalForward", B, C, HW, {{"in", in.size()}, {"out", out.size()}},
             {{"gamma", gamma.size()},
              {"beta", beta.size()},
              {"runningMean", runningMean.size()},
              {"runningVar", runningVar.size()}});
  const std::size_t hw = std::size_t(HW);
  const std::size_t planeStride = std::size_t(C) * hw;
  for (std::size_t c = 0; c < std::size_t(C); ++c) {
    const float scale = gamma[c] / std::sqrt(runningVar[c] + kNormEps);
    const float m = runningMean[c];
    for (int b = 0; b < B; ++b) {
      const std::size_t off = std::size_t(b) * planeStride + c * hw;
      for (std::size_t p = 0; p < hw; ++p)
        out[off + p] = (in[off + p] - m) * scale + beta[c];
    }
  }
}

void batchNorm2dBackward(std::span<float> din, std::span<float> dgamma, std::span<float> dbeta,
                         std::span<const float> dout, std::span<const float> in,
                         std::span<const float> gamma, std::span<const float> mean,
                         std::span<const float> rstd, int B, int C, int HW) {
  checkSizes("batchNorm2dBackward", B, C, HW,
             {{"din", din.size()}, {"dout", dout.size()}, {"in", in.size()}},
             {{"dgamma", dgamma.size()},
              {"dbeta", dbeta.size()},
              {"gamma", gamma.size()},
              {"mean", mean.size()},
              {"rstd", rstd.size()}});
  const std::size_t hw = std::size_t(HW);
  const std::size_t planeStride = std::size_t(C) * hw;
  const float n = float(std::size_t(B) * hw);
  for (std::size_t c = 0; c < std::size_t(C); ++c) {
    const float m = mean[c], s = rstd[c];
    float sumD = 0.0f, sumDx = 0.0f;
    for (int b = 0; b < B; ++b) {
      const std::size_t off = std::size_t(b) * planeStride + c * hw;
      float pd = 0.0f, pdx = 0.0f;
      for (std::size_t p = 0; p < hw; ++p) {
        const float d = dout[off + p];
        pd += d;
        pdx += d * (in[off + p] - m) * s;
      }
      sumD += pd;
      sumDx += pdx;
    }
    dbeta[c] = sumD;
    dgamma[c] = sumDx;
    const float meanD = sumD / n, meanDx = sumDx / n;
    const float scale = gamma[c] * s;
    for (int b = 0; b < B; ++b) {
      const std::size_t off = std::size_t(b) * planeStride + c * hw;
      for (std::size_t p = 0; p < hw; ++p) {
        const float xhat = (in[off + p] - m) * s;
        din[off + p] = scale * (dout[off + p] - meanD - xhat * meanDx);
      }
    }
  }
}

} // namespace mantissa::nn
