// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
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

// exp(x) for x in [-87, 87] (callers clamp) in straight-line float arithmetic
// that compilers vectorise: x = n ln2 + r with |r| <= ln2/2, a degree-6
// polynomial for exp(r) (Cephes coefficients, within 2 ulp of expf), and 2^n
// built in the exponent bits. n is rounded with the 1.5 * 2^23 trick, which
// needs no rounding instruction.
inline float expPoly(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;
  constexpr float kLn2Lo = -2.12194440e-4f;
  constexpr float kShifter = 12582912.0f; // 1.5 * 2^23
  const float shifted = x * kLog2e + kShifter;
  const float n = shifted - kShifter;
  const std::int32_t ni = std::bit_cast<std::int32_t>(shifted) - std::bit_cast<std::int32_t>(kShifter);
  const float r = (x - n * kLn2Hi) - n * kLn2Lo;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  return p * std::bit_cast<float>((ni + 127) << 23);
}

// tanh(u) = 1 - 2 / (exp(2u) + 1), with 2u clamped to [-87, 87] (tanh is
// +-1 in float well before that). Absolute error below 3e-7 everywhere.
inline float tanhFast(float u) {
  float u2 = 2.0f * u;
  u2 = std::max(-87.0f, std::min(u2, 87.0f));
  return 1.0f - 2.0f / (expPoly(u2) + 1.0f);
}

// GELU, tanh form, and its derivative, over plain arrays so the loops vectorise;
// built for AVX-512, AVX2 and baseline x86-64, the loader picks the one the CPU
// runs (GCC/Clang function multiversioning).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__SANITIZE_ADDRESS__)
#define MANTISSA_ELEMENTWISE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define MANTISSA_ELEMENTWISE_CLONES
#endif

MANTISSA_ELEMENTWISE_CLONES void geluForward(const float* x, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const float v = x[i];
    const float t = tanhFast(kSqrt2OverPi * (v + kGeluCubic * v * v * v));
    y[i] = 0.5f * v * (1.0f + t);
  }
}

// d/dx 0.5 x (1 + t) = 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 c x^2)
MANTISSA_ELEMENTWISE_CLONES void geluBackward(const float* x, const float* dy, float* dx, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const float v = x[i];
    const float t = tanhFast(kSqrt2OverPi * (v + kGeluCubic * v * v * v));
    const float inner = kSqrt2OverPi * (1.0f + 3.0f * kGeluCubic * v * v);
    dx[i] = dy[i] * (0.5f * (1.0f + t) + 0.5f * v * (1.0f - t * t) * inner);
  }
}
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
  case Activation::Relu:
    return "relu";
  case Activation::Gelu:
    return "gelu";
  case Activation::Tanh:
    return "tanh";
  case Activation::Sigmoid:
    return "sigmoid";
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
  case Activation::Relu:
    reluForward(x.data(), y.data(), n);
    break;
  case Activation::Gelu:
    geluForward(x.data(), y.data(), n);
    break;
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
  case Activation::Relu:
    reluBackward(x.data(), dy.data(), dx.data(), n);
    break;
  case Activation::Gelu:
    geluBackward(x.data(), dy.data(), dx.data(), n);
    break;
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
