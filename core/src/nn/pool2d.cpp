// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/nn/pool2d.h>

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace mantissa::nn {
namespace {

void checkShape(const char* who, std::size_t inSize, std::size_t outSize, std::size_t argmaxSize,
                int B, int C, int H, int W) {
  if (B <= 0 || C <= 0 || H <= 0 || W <= 0)
    throw std::invalid_argument(std::string(who) + ": sizes B=" + std::to_string(B) +
                                " C=" + std::to_string(C) + " H=" + std::to_string(H) +
                                " W=" + std::to_string(W) + " must be positive");
  if (H % 2 != 0 || W % 2 != 0)
    throw std::invalid_argument(std::string(who) + ": a " + std::to_string(H) + "x" +
                                std::to_string(W) +
                                " image cannot be pooled 2x2: height and width must be even");
  const std::size_t planes = std::size_t(B) * std::size_t(C);
  const std::size_t in = planes * std::size_t(H) * std::size_t(W);
  const std::size_t out = in / 4;
  if (inSize != in || outSize != out || argmaxSize != out)
    throw std::invalid_argument(std::string(who) + ": input " + std::to_string(inSize) +
                                ", output " + std::to_string(outSize) + " and argmax " +
                                std::to_string(argmaxSize) + " values, expected " +
                                std::to_string(in) + ", " + std::to_string(out) + " and " +
                                std::to_string(out));
}

// The kernels over plain arrays, one output row at a time, branch-free so the
// loops vectorise; built for AVX-512, AVX2 and baseline x86-64, the loader
// picks the one the CPU runs (GCC/Clang function multiversioning).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__SANITIZE_ADDRESS__)
#define MANTISSA_POOL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define MANTISSA_POOL_CLONES
#endif

// One output row: the windows over input rows r0 (at offset `top0` in the
// plane) and r1 = r0 + W. A later candidate c replaces the current maximum m
// when !(c <= m) and m is not NaN: c > m, or c is NaN while m is not. So the
// first NaN wins, else the first maximum.
MANTISSA_POOL_CLONES void poolRowForward(const float* __restrict r0, const float* __restrict r1,
                                         float* __restrict o, std::int32_t* __restrict a,
                                         int Wo, std::int32_t top0, std::int32_t W) {
  for (int j = 0; j < Wo; ++j) {
    const std::int32_t top = top0 + 2 * j;
    float m = r0[2 * j];
    std::int32_t k = top;
    const float c1 = r0[2 * j + 1], c2 = r1[2 * j], c3 = r1[2 * j + 1];
    bool t = !(c1 <= m) && m == m;
    m = t ? c1 : m;
    k = t ? top + 1 : k;
    t = !(c2 <= m) && m == m;
    m = t ? c2 : m;
    k = t ? top + W : k;
    t = !(c3 <= m) && m == m;
    m = t ? c3 : m;
    k = t ? top + W + 1 : k;
    o[j] = m;
    a[j] = k;
  }
}

// One output row backward: every position of each window written, dout at the
// argmax and 0 elsewhere. Returns the number of argmax values outside their window.
MANTISSA_POOL_CLONES int poolRowBackward(float* __restrict r0, float* __restrict r1,
                                         const float* __restrict d,
                                         const std::int32_t* __restrict a, int Wo,
                                         std::int32_t top0, std::int32_t W) {
  int outside = 0;
  for (int j = 0; j < Wo; ++j) {
    const std::int32_t rel = a[j] - (top0 + 2 * j);
    const float g = d[j];
    r0[2 * j] = rel == 0 ? g : 0.0f;
    r0[2 * j + 1] = rel == 1 ? g : 0.0f;
    r1[2 * j] = rel == W ? g : 0.0f;
    r1[2 * j + 1] = rel == W + 1 ? g : 0.0f;
    outside += (rel != 0) & (rel != 1) & (rel != W) & (rel != W + 1);
  }
  return outside;
}

} // namespace

void maxPool2dForward(std::span<float> out, std::span<std::int32_t> argmax,
                      std::span<const float> in, int B, int C, int H, int W) {
  checkShape("maxPool2dForward", in.size(), out.size(), argmax.size(), B, C, H, W);
  const std::size_t planes = std::size_t(B) * std::size_t(C);
  const int Ho = H / 2, Wo = W / 2;
  const std::size_t planeIn = std::size_t(H) * std::size_t(W);
  const std::size_t planeOut = std::size_t(Ho) * std::size_t(Wo);
  for (std::size_t q = 0; q < planes; ++q) {
    const float* x = in.data() + q * planeIn;
    float* o = out.data() + q * planeOut;
    std::int32_t* a = argmax.data() + q * planeOut;
    for (int i = 0; i < Ho; ++i) {
      const float* r0 = x + std::size_t(2 * i) * std::size_t(W);
      poolRowForward(r0, r0 + W, o + std::size_t(i) * std::size_t(Wo),
                     a + std::size_t(i) * std::size_t(Wo), Wo, 2 * i * W, W);
    }
  }
}

void maxPool2dBackward(std::span<float> din, std::span<const float> dout,
                       std::span<const std::int32_t> argmax, int B, int C, int H, int W) {
  checkShape("maxPool2dBackward", din.size(), dout.size(), argmax.size(), B, C, H, W);
  const std::size_t planes = std::size_t(B) * std::size_t(C);
  const std::size_t planeIn = std::size_t(H) * std::size_t(W);
  const std::size_t planeOut = planeIn / 4;
  const int Ho = H / 2, Wo = W / 2;
  for (std::size_t q = 0; q < planes; ++q) {
    float* dx = din.data() + q * planeIn;
    const float* d = dout.data() + q * planeOut;
    const std::int32_t* a = argmax.data() + q * planeOut;
    for (int i = 0; i < Ho; ++i) {
      float* r0 = dx + std::size_t(2 * i) * std::size_t(W);
      const std::size_t o = std::size_t(i) * std::size_t(Wo);
      if (poolRowBackward(r0, r0 + W, d + o, a + o, Wo, 2 * i * W, W) != 0)
        for (int j = 0; j < Wo; ++j) {
          const std::int32_t rel = a[o + std::size_t(j)] - (2 * i * W + 2 * j);
          if (rel != 0 && rel != 1 && rel != W && rel != W + 1)
            throw std::invalid_argument("maxPool2dBackward: argmax " +
                                        std::to_string(a[o + std::size_t(j)]) +
                                        " lies outside its 2x2 window");
        }
    }
  }
}

} // namespace mantissa::nn
