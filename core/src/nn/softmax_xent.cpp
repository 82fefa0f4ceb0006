// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "kernels/step_isa_variants.h"
#include "kernels/step_math.h"

#include <mantissa/nn/softmax_xent.h>

#include <cmath>
#include <cstddef>

namespace mantissa::nn {
namespace {

// p[c] = e^(x[c] - shift) (the step kernels' exp, kernels/step_math.h) and
// their sum in eight interleaved lanes, a fixed order: one body built for
// AVX-512, AVX2 and baseline x86-64 (kernels/step_isa.h), the same bits on each.
[[gnu::always_inline]] inline float expShiftedSumBody(const float* __restrict x,
                                                      float* __restrict p, int n, float shift) {
  for (int c = 0; c < n; ++c)
    p[c] = kernels::expStep(x[c] - shift);
  return kernels::laneSum8(p, n);
}

MANTISSA_STEP_VARIANTS(float, expShiftedSum,
                       (const float* __restrict x, float* __restrict p, int n, float shift),
                       (x, p, n, shift))

} // namespace

XentResult softmaxXentForward(std::span<const float> logits, std::span<const std::int32_t> labels,
                              int batch, int classes, std::span<float> probs) {
  XentResult result;
  double lossSum = 0.0;
  for (int b = 0; b < batch; ++b) {
    const float* row = logits.data() + static_cast<std::size_t>(b) * classes;
    float* p = probs.data() + static_cast<std::size_t>(b) * classes;
    float maxValue = row[0];
    int argMax = 0;
    for (int c = 1; c < classes; ++c)
      if (row[c] > maxValue) {
        maxValue = row[c];
        argMax = c;
      }
    const float sum = MANTISSA_STEP_DISPATCH(expShiftedSum, (row, p, classes, maxValue));
    const float inv = 1.0f / sum;
    for (int c = 0; c < classes; ++c)
      p[c] *= inv;
    // -log p[label] = log(sum) - (x[label] - max), exact even when p underflows.
    const int label = labels[static_cast<std::size_t>(b)];
    lossSum += static_cast<double>(std::log(sum) - (row[label] - maxValue));
    result.correct += argMax == label ? 1 : 0;
  }
  result.loss = lossSum / batch;
  return result;
}

void softmaxXentBackward(std::span<const float> probs, std::span<const std::int32_t> labels,
                         int batch, int classes, float scale, std::span<float> dlogits) {
  const float factor = scale / static_cast<float>(batch);
  for (int b = 0; b < batch; ++b) {
    const float* p = probs.data() + static_cast<std::size_t>(b) * classes;
    float* d = dlogits.data() + static_cast<std::size_t>(b) * classes;
    for (int c = 0; c < classes; ++c)
      d[c] = factor * p[c];
    d[labels[static_cast<std::size_t>(b)]] -= factor;
  }
}

} // namespace mantissa::nn
