// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "kernels/step_isa_variants.h"
#include "kernels/step_parallel.h"

#include <mantissa/nn/norm.h>
#include <mantissa/nn/precision.h>

#include <algorithm>
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

// FP32 row sums, kRows rows at a time: lane k of an accumulator vector is
// row k's running sum, which adds that row's terms in column order, one
// rounding per addition, exactly as a scalar loop over the row does. (A row
// summed alone is one chain of dependent additions; kRows rows side by side
// fill a vector.) The terms of a tile of columns are written transposed
// into `tile` ([column][row]) so that the additions read whole vectors.
constexpr int kRows = 16;
constexpr int kTile = 64;

// The kRows rows at x (row stride C): mean[k] = sum_c x / C,
// rstd[k] = 1 / sqrt(sum_c (x - mean)^2 / C + eps), and the rows of out.
[[gnu::always_inline]] inline void
layerNormRowsBody(float* __restrict out, const float* __restrict x, const float* __restrict w,
                  const float* __restrict b, int C, float* __restrict mean,
                  float* __restrict rstd) {
  alignas(64) float tile[kTile * kRows];
  alignas(64) float acc[kRows] = {};
  const std::size_t c = static_cast<std::size_t>(C);
  for (int c0 = 0; c0 < C; c0 += kTile) {
    const int cn = std::min(kTile, C - c0);
    for (int j = 0; j < cn; ++j)
      for (int k = 0; k < kRows; ++k)
        tile[j * kRows + k] = x[std::size_t(k) * c + std::size_t(c0 + j)];
    for (int j = 0; j < cn; ++j)
      for (int k = 0; k < kRows; ++k)
        acc[k] += tile[j * kRows + k];
  }
  alignas(64) float m[kRows], sq[kRows] = {};
  for (int k = 0; k < kRows; ++k)
    m[k] = acc[k] / float(C);
  for (int c0 = 0; c0 < C; c0 += kTile) {
    const int cn = std::min(kTile, C - c0);
    for (int j = 0; j < cn; ++j)
      for (int k = 0; k < kRows; ++k) {
        const float d = x[std::size_t(k) * c + std::size_t(c0 + j)] - m[k];
        tile[j * kRows + k] = d * d;
      }
    for (int j = 0; j < cn; ++j)
      for (int k = 0; k < kRows; ++k)
        sq[k] += tile[j * kRows + k];
  }
  for (int k = 0; k < kRows; ++k) {
    const float s = 1.0f / std::sqrt(sq[k] / float(C) + kNormEps);
    const float mk = m[k];
    const float* __restrict xr = x + std::size_t(k) * c;
    float* __restrict o = out + std::size_t(k) * c;
    for (std::size_t i = 0; i < c; ++i)
      o[i] = (xr[i] - mk) * s * w[i] + b[i];
    mean[k] = mk;
    rstd[k] = s;
  }
}

// The input gradient of the kRows rows at x, dout (row stride C): their row
// sums gMean = sum_c g / C and gxMean = sum_c g * xhat / C (g = dout * w,
// xhat = (x - mean) * rstd), then row by row din accumulated. dw and db are
// layerNormWeightGrad's.
[[gnu::always_inline]] inline void
layerNormBackwardRowsBody(float* __restrict din, const float* __restrict d,
                          const float* __restrict x, const float* __restrict w,
                          const float* __restrict mean, const float* __restrict rstd, int C) {
  alignas(64) float tileG[kTile * kRows], tileGx[kTile * kRows];
  alignas(64) float sumG[kRows] = {}, sumGx[kRows] = {};
  const std::size_t c = static_cast<std::size_t>(C);
  for (int c0 = 0; c0 < C; c0 += kTile) {
    const int cn = std::min(kTile, C - c0);
    for (int j = 0; j < cn; ++j)
      for (int k = 0; k < kRows; ++k) {
        const std::size_t i = std::size_t(k) * c + std::size_t(c0 + j);
        const float xhat = (x[i] - mean[k]) * rstd[k];
        const float g = d[i] * w[c0 + j];
        tileG[j * kRows + k] = g;
        tileGx[j * kRows + k] = g * xhat;
      }
    for (int j = 0; j < cn; ++j)
      for (int k = 0; k < kRows; ++k) {
        sumG[k] += tileG[j * kRows + k];
        sumGx[k] += tileGx[j * kRows + k];
      }
  }
  for (int k = 0; k < kRows; ++k) {
    const float gMean = sumG[k] / float(C), gxMean = sumGx[k] / float(C);
    const float m = mean[k], s = rstd[k];
    const float* __restrict xr = x + std::size_t(k) * c;
    const float* __restrict dr = d + std::size_t(k) * c;
    float* __restrict dx = din + std::size_t(k) * c;
    for (std::size_t i = 0; i < c; ++i) {
      const float xhat = (xr[i] - m) * s;
      dx[i] += s * (dr[i] * w[i] - gMean - xhat * gxMean);
    }
  }
}

// dw and db of the rows [0, rows) at x, dout (row stride C), columns
// [c0, c1): each column summed in row order, as in the row-by-row rule.
[[gnu::always_inline]] inline void
layerNormWeightGradBody(float* __restrict dw, float* __restrict db, const float* __restrict d,
                        const float* __restrict x, const float* __restrict mean,
                        const float* __restrict rstd, std::size_t rows, std::size_t C,
                        std::size_t c0, std::size_t c1) {
  for (std::size_t r = 0; r < rows; ++r) {
    const float m = mean[r], s = rstd[r];
    const float* __restrict xr = x + r * C;
    const float* __restrict dr = d + r * C;
    for (std::size_t i = c0; i < c1; ++i) {
      const float xhat = (xr[i] - m) * s;
      dw[i] += dr[i] * xhat;
      db[i] += dr[i];
    }
  }
}

MANTISSA_STEP_VARIANTS(void, layerNormRows,
                       (float* out, const float* x, const float* w, const float* b, int C,
                        float* mean, float* rstd),
                       (out, x, w, b, C, mean, rstd))
MANTISSA_STEP_VARIANTS(void, layerNormBackwardRows,
                       (float* din, const float* d, const float* x, const float* w,
                        const float* mean, const float* rstd, int C),
                       (din, d, x, w, mean, rstd, C))
MANTISSA_STEP_VARIANTS(void, layerNormWeightGrad,
                       (float* dw, float* db, const float* d, const float* x, const float* mean,
                        const float* rstd, std::size_t rows, std::size_t C, std::size_t c0,
                        std::size_t c1),
                       (dw, db, d, x, mean, rstd, rows, C, c0, c1))

} // namespace

void layerNormForward(std::span<float> out, std::span<float> mean, std::span<float> rstd,
                      std::span<const float> in, std::span<const float> w, std::span<const float> b,
                      int N, int C, DType stats) {
  const std::size_t c = static_cast<std::size_t>(C);
  std::size_t n = 0;
  // FP32 statistics: whole blocks of rows at a time (the same bits as the
  // row loop below).
  // The blocks are independent: split between the OpenMP threads
  // (kernels/step_parallel.h).
  if (stats == DType::F32) {
    const std::size_t blocks = static_cast<std::size_t>(N) / kRows;
    kernels::forStepPieces(blocks, blocks * kRows * c, 1, [&](std::size_t b0, std::size_t b1) {
      for (std::size_t k = b0; k < b1; ++k) {
        const std::size_t r = k * kRows;
        MANTISSA_STEP_DISPATCH(layerNormRows, (out.data() + r * c, in.data() + r * c, w.data(),
                                               b.data(), C, mean.data() + r, rstd.data() + r));
      }
    });
    n = blocks * kRows;
  }
  for (; n < static_cast<std::size_t>(N); ++n) {
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
  std::size_t n = 0;
  // Whole blocks of rows first (the same bits as the row loop below): din
  // block by block, the blocks split between the OpenMP threads; then dw and
  // db, each column summed in row order, the columns split between the
  // threads (kernels/step_parallel.h).
  const std::size_t blocks = static_cast<std::size_t>(N) / kRows;
  kernels::forStepPieces(blocks, blocks * kRows * c, 1, [&](std::size_t b0, std::size_t b1) {
    for (std::size_t k = b0; k < b1; ++k) {
      const std::size_t r = k * kRows;
      MANTISSA_STEP_DISPATCH(layerNormBackwardRows,
                             (din.data() + r * c, dout.data() + r * c, in.data() + r * c, w.data(),
                              mean.data() + r, rstd.data() + r, C));
    }
  });
  n = blocks * kRows;
  kernels::forStepPieces(c, n * c, 16, [&](std::size_t c0, std::size_t c1) {
    MANTISSA_STEP_DISPATCH(layerNormWeightGrad, (dw.data(), db.data(), dout.data(), in.data(),
                                                 mean.data(), rstd.data(), n, c, c0, c1));
  });
  for (; n < static_cast<std::size_t>(N); ++n) {
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
