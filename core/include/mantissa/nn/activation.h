// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Elementwise activations, FP32 compute, as forward/backward pairs.
//
//   x  [n]  pre-activation      y  [n]  f(x)
//   dy [n]  dLoss/dy            dx [n]  dLoss/dx = dy * f'(x)
//
// GELU is the tanh approximation (Hendrycks & Gimpel; PyTorch
// approximate="tanh"): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// Backward reads x (ReLU, GELU) or y (tanh, sigmoid), whichever gives the
// derivative without recomputing the function.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace mantissa::nn {

enum class Activation : std::uint8_t { Relu, Gelu, Tanh, Sigmoid };

std::string_view activationName(Activation activation); // "relu", "gelu", "tanh", "sigmoid"
std::optional<Activation> parseActivation(std::string_view name);

// y = f(x); x and y may alias.
void activationForward(Activation activation, std::span<const float> x, std::span<float> y);

// dx = dy * f'(x); dx may alias dy.
void activationBackward(Activation activation, std::span<const float> x, std::span<const float> y,
                        std::span<const float> dy, std::span<float> dx);

} // namespace mantissa::nn
