// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/nn/norm.h>
#include <mantissa/nn/precision.h>

#include <cmath>
#include <cstddef>

namespace mantissa::nn {
namespace {

// sum_c f(x_c) in `stats` precision: FP32, or rounded after every addition.
template <class F> float reduce(const float* x, int C, DType stats, F f) {
  float sum = 0.0f;
  if (stats == DType::F32) {
    for (int c = 0; c < C; ++c)
      sum += f(x[c]);
  } else {
    for (int c = 0; c < C; ++c)
      sum = roundScalar(stats, sum + roundScalar(stats, f(x[c])));
  }
  return sum;
}

} // namespace

void layerNormForward(std::span<float> out, std::span<float> mean, std::span<float> rstd,
                      std::span<const float> in, std::span<const float> w,
                      std::span<const float> b, int N, int C, DType stats) {
  const std::size_t c = static_cast<std::size_t>(C);
  for (std::size_t n = 0; n < static_cast<std::size_t>(N); ++n) {
    const float* x = in.data() + n * c;
    const float m = roundScalar(stats, reduce(x, C, stats, [](float v) { return v; }) / float(C));
    const float var = roundScalar(
        stats, reduce(x, C, stats, [m](float v) { return (v - m) * (v - m); }) / float(C));
    const float s = roundScalar(stats, 1.0f / std::sqrt(var + kNormEps));
    float* o = out.data() + n * c;
    for (std::size_t i = 0; i < c; ++i)
      o[i] = (x[i] - m) * s * w[i] + b[i];
    mean[n] = m;
    rstd[n] = s;
  }
}

void layerNormBackward(std::span<float> din, std::span<float> dw, std::span<float> db,
                       std::span<const float> dout, std::span<const float> in,
                       std::span<const float> w, std::span<const float> mean,
                       std::span<const float> rstd, int N, int C) {
  const std::size_t c = static_cast<std::size_t>(C);
  for (std::size_t n = 0; n < static_cast<std::size_t>(N); ++n) {
    const float* x = in.data() + n * c;
    const float* d = dout.data() + n * c;
    float* dx = din.data() + n * c;
    const float m = mean[n], s = rstd[n];
    float gMean = 0.0f, gxMean = 0.0f;
    for (std::size_t i = 0; i < c; ++i) {
      const float xhat = (x[i] - m) * s;
      const float g = d[i] * w[i];
      gMean += g;
      gxMean += g * xhat;
    }
    gMean /= float(C);
    gxMean /= float(C);
    for (std::size_t i = 0; i < c; ++i) {
      const float xhat = (x[i] - m) * s;
      dw[i] += d[i] * xhat;
      db[i] += d[i];
      dx[i] += s * (d[i] * w[i] - gMean - xhat * gxMean);
    }
  }
}

void rmsNormForward(std::span<float> out, std::span<float> rrms, std::span<const float> in,
                    std::span<const float> w, int N, int C, DType stats) {
  const std::size_t c = static_cast<std::size_t>(C);
  for (std::size_t n = 0; n < static_cast<std::size_t>(N); ++n) {
    const float* x = in.data() + n * c;
    const float ms =
        roundScalar(stats, reduce(x, C, stats, [](float v) { return v * v; }) / float(C));
    const float r = roundScalar(stats, 1.0f / std::sqrt(ms + kNormEps));
    float* o = out.data() + n * c;
    for (std::size_t i = 0; i < c; ++i)
      o[i] = x[i] * r * w[i];
    rrms[n] = r;
  }
}

void rmsNormBackward(std::span<float> din, std::span<float> dw, std::span<const float> dout,
                     std::span<const float> in, std::span<const float> w,
                     std::span<const float> rrms, int N, int C) {
  const std::size_t c = static_cast<std::size_t>(C);
  for (std::size_t n = 0; n < static_cast<std::size_t>(N); ++n) {
    const float* x = in.data() + n * c;
    const float* d = dout.data() + n * c;
    float* dx = din.data() + n * c;
    const float r = rrms[n];
    float gxMean = 0.0f;
    for (std::size_t i = 0; i < c; ++i)
      gxMean += d[i] * w[i] * x[i] * r;
    gxMean /= float(C);
    for (std::size_t i = 0; i < c; ++i) {
      const float xhat = x[i] * r;
      dw[i] += d[i] * xhat;
      dx[i] += r * (d[i] * w[i] - xhat * gxMean);
    }
  }
}

} // namespace mantissa::nn
