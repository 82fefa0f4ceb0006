// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Softmax cross-entropy, always in FP32 (every recipe: the log-sum-exp of
// BF16/FP16 logits is where mixed precision would otherwise lose the most).
//
//   B batch, C classes
//   logits [B, C]  FP32 (values as stored by the recipe)
//   labels [B]     in [0, C)
//   probs  [B, C]  softmax(logits), kept for backward
//   dlogits[B, C]  d(scale * mean loss)/dlogits = scale * (probs - onehot) / B

#include <cstdint>
#include <span>

namespace mantissa::nn {

struct XentResult {
  double loss = 0.0; // mean over the batch of -log softmax(logits)[label]
  int correct = 0;   // rows whose arg-max equals the label
};

XentResult softmaxXentForward(std::span<const float> logits, std::span<const std::int32_t> labels,
                              int batch, int classes, std::span<float> probs);

// `scale` is the loss scale times any extra factor (e.g. 1/accumulation
// steps); the result is the gradient of scale * mean loss.
void softmaxXentBackward(std::span<const float> probs, std::span<const std::int32_t> labels,
                         int batch, int classes, float scale, std::span<float> dlogits);

} // namespace mantissa::nn
