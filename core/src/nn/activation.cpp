// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/nn/activation.h>

#include <cmath>
#include <cstddef>

namespace mantissa::nn {

namespace {
constexpr float kSqrt2OverPi = 0.7978845608028654f;
constexpr float kGeluCubic = 0.044715f;
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
    for (std::size_t i = 0; i < n; ++i)
      y[i] = x[i] > 0.0f ? x[i] : 0.0f;
    break;
  case Activation::Gelu:
    for (std::size_t i = 0; i < n; ++i) {
      const float v = x[i];
      const float t = std::tanh(kSqrt2OverPi * (v + kGeluCubic * v * v * v));
      y[i] = 0.5f * v * (1.0f + t);
    }
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
    for (std::size_t i = 0; i < n; ++i)
      dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;
    break;
  case Activation::Gelu:
    // d/dx 0.5 x (1 + t) = 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 c x^2)
    for (std::size_t i = 0; i < n; ++i) {
      const float v = x[i];
      const float t = std::tanh(kSqrt2OverPi * (v + kGeluCubic * v * v * v));
      const float inner = kSqrt2OverPi * (1.0f + 3.0f * kGeluCubic * v * v);
      dx[i] = dy[i] * (0.5f * (1.0f + t) + 0.5f * v * (1.0f - t * t) * inner);
    }
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
