// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "kernels/step_isa_variants.h"
#include "kernels/step_math.h"
#include "kernels/step_parallel.h"

#include <mantissa/nn/activation.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace mantissa::nn {

namespace {
constexpr float kSqrt2OverPi = 0.7978845608028654f;
constexpr float kGeluCubic = 0.044715f;

// GELU, tanh form: 0.5 x (1 + tanh(a)) with a = sqrt(2/pi) (x + c x^3).
// 0.5 (1 + tanh(a)) is the logistic sigmoid s of 2a: with t = e^-2|a| (in
// [0, 1], never overflowing) and q = 1 / (1 + t), s = q for a >= 0 and t q
// below. That avoids the cancellation of 1 + tanh(a) near -1: accurate in the
// negative tail down to the subnormals. Where x^3 overflows, a is +-inf, t is
// 0 and s is 1 or 0 (y = x or -0). One loop body built for AVX-512, AVX2 and
// baseline x86-64 (kernels/step_isa.h), the same bits on each.
[[gnu::always_inline]] inline void geluForwardBody(const float* x, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const float v = x[i];
    const float a = kSqrt2OverPi * (v + kGeluCubic * v * (v * v));
    const float t = kernels::expStep(-2.0f * std::fabs(a));
    const float q = 1.0f / (1.0f + t);
    y[i] = v * (a >= 0.0f ? q : t * q);
  }
}

// d/dx x s = s + 2 x s (1 - s) sqrt(2/pi) (1 + 3 c x^2), where s (1 - s) is
// q (t q) whatever the sign of a. x^2 is capped at 900 (|x| = 30, where t is
// already 0) so that 1 + 3 c x^2 stays finite.
[[gnu::always_inline]] inline void geluBackwardBody(const float* x, const float* dy, float* dx,
                                                    std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const float v = x[i];
    float v2 = v * v;
    v2 = v2 > 900.0f ? 900.0f : v2;
    const float a = kSqrt2OverPi * (v + kGeluCubic * v * v2);
    const float t = kernels::expStep(-2.0f * std::fabs(a));
    const float q = 1.0f / (1.0f + t);
    const float tq = t * q;
    const float inner = kSqrt2OverPi * (1.0f + 3.0f * kGeluCubic * v2);
    dx[i] = dy[i] * ((a >= 0.0f ? q : tq) + 2.0f * v * (q * tq) * inner);
  }
}

MANTISSA_STEP_VARIANTS(void, geluForward, (const float* x, float* y, std::size_t n), (x, y, n))
MANTISSA_STEP_VARIANTS(void, geluBackward,
                       (const float* x, const float* dy, float* dx, std::size_t n), (x, dy, dx, n))

// Both split between the OpenMP threads when large (kernels/step_parallel.h).
void geluForward(const float* x, float* y, std::size_t n) {
  kernels::forStepPieces(n, n, 64, [&](std::size_t b, std::size_t e) {
    MANTISSA_STEP_DISPATCH(geluForward, (x + b, y + b, e - b));
  });
}

void geluBackward(const float* x, const float* dy, float* dx, std::size_t n) {
  kernels::forStepPieces(n, n, 64, [&](std::size_t b, std::size_t e) {
    MANTISSA_STEP_DISPATCH(geluBackward, (x + b, dy + b, dx + b, e - b));
  });
}

// ReLU: built for AVX-512, AVX2 and baseline x86-64, the loader picks the one
// the CPU runs (GCC/Clang function multiversioning).
// Not under ASan or TSan: the loader runs the clones' resolver before the
// sanitizer's runtime is set up (under TSan the instrumented resolver crashes).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) &&                            \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define MANTISSA_ELEMENTWISE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define MANTISSA_ELEMENTWISE_CLONES
#endif

// ReLU and its gradient without branches: both operands are loaded, then
// selected, so the loops vectorise (a branch per value mispredicts on
// random signs). x > 0 is false for NaN: NaN maps to 0, as before.
MANTISSA_ELEMENTWISE_CLONES void reluForward(const float* x, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const float v = x[i];
    y[i] = v > 0.0f ? v : 0.0f;
  }
}

MANTISSA_ELEMENTWISE_CLONES void reluBackward(const float* x, const float* dy, float* dx,
                                              std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const float g = dy[i];
    dx[i] = x[i] > 0.0f ? g : 0.0f;
  }
}
} // namespace

std::string_view activationName(Activation activation) {
  switch (activation) {
  case Activation::Relu: return "relu";
  case Activation::Gelu: return "gelu";
  case Activation::Tanh: return "tanh";
  case Activation::Sigmoid: return "sigmoid";
  }
  return "?";
}

std::optional<Activation> parseActivation(std::string_view name) {
  for (Activation a : {Activation::Relu, Activation::Gelu, Activation::Tanh, Activation::Sigmoid})
    if (activationName(a) == name)
      return a;
  return std::nullopt;
}

void activationForward(Activation activation, std::span<const float> x, std::span<float> y) {
  const std::size_t n = x.size();
  switch (activation) {
  case Activation::Relu: reluForward(x.data(), y.data(), n); break;
  case Activation::Gelu: geluForward(x.data(), y.data(), n); break;
  case Activation::Tanh:
    for (std::size_t i = 0; i < n; ++i)
      y[i] = std::tanh(x[i]);
    break;
  case Activation::Sigmoid:
    for (std::size_t i = 0; i < n; ++i)
      y[i] = 1.0f / (1.0f + std::exp(-x[i]));
    break;
  }
}

void activationBackward(Activation activation, std::span<const float> x, std::span<const float> y,
                        std::span<const float> dy, std::span<float> dx) {
  const std::size_t n = dy.size();
  switch (activation) {
  case Activation::Relu: reluBackward(x.data(), dy.data(), dx.data(), n); break;
  case Activation::Gelu: geluBackward(x.data(), dy.data(), dx.data(), n); break;
  case Activation::Tanh:
    for (std::size_t i = 0; i < n; ++i)
      dx[i] = dy[i] * (1.0f - y[i] * y[i]);
    break;
  case Activation::Sigmoid:
    for (std::size_t i = 0; i < n; ++i)
      dx[i] = dy[i] * y[i] * (1.0f - y[i]);
    break;
  }
}

} // namespace mantissa::nn
