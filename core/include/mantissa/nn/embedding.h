// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Token + position embedding (GPT's encoder), FP32.
//
//   B batch, T context, C channels, V vocabulary
//   tokens [B*T]  in [0, V)
//   wte    [V, C] token embedding     wpe [T, C] position embedding
//   out    [B*T, C] = wte[tokens[b,t]] + wpe[t]
//
//   dout   [B*T, C]
//   dwte   [V, C] += sum over (b,t) with tokens[b,t] = v of dout[b,t]
//   dwpe   [T, C] += sum over b of dout[b,t]
// Backward accumulates (the tied output head also writes dwte); the caller
// zeroes the gradients once per step.

#include <cstdint>
#include <span>

namespace mantissa::nn {

void embeddingForward(std::span<float> out, std::span<const std::int32_t> tokens,
                      std::span<const float> wte, std::span<const float> wpe, int T, int C);

void embeddingBackward(std::span<float> dwte, std::span<float> dwpe, std::span<const float> dout,
                       std::span<const std::int32_t> tokens, int T, int C);

} // namespace mantissa::nn
