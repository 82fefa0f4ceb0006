// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "kernels/step_math.h"

#include "kernels/step_isa_variants.h"

#include <mantissa/kernels/step_math.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace mantissa::kernels {
namespace {

[[gnu::always_inline]] inline void expBody(const float* x, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    y[i] = expStep(x[i]);
}

[[gnu::always_inline]] inline void tanhBody(const float* x, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    y[i] = tanhStep(x[i]);
}

MANTISSA_STEP_VARIANTS(void, exp, (const float* x, float* y, std::size_t n), (x, y, n))
MANTISSA_STEP_VARIANTS(void, tanh, (const float* x, float* y, std::size_t n), (x, y, n))

void checkSizes(const char* name, std::size_t x, std::size_t y) {
  if (x != y)
    throw std::invalid_argument(std::string(name) + ": input and output sizes differ");
}

} // namespace

void expSpan(std::span<const float> x, std::span<float> y) {
  checkSizes("expSpan", x.size(), y.size());
  MANTISSA_STEP_DISPATCH(exp, (x.data(), y.data(), x.size()));
}

void tanhSpan(std::span<const float> x, std::span<float> y) {
  checkSizes("tanhSpan", x.size(), y.size());
  MANTISSA_STEP_DISPATCH(tanh, (x.data(), y.data(), x.size()));
}

} // namespace mantissa::kernels
