// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Reduced precision emulated on FP32 storage: a value "in BF16" or "in FP16"
// is an FP32 value rounded (nearest, ties to even) to that format, through
// the conversion kernels of numeric/convert.h. F32 leaves values untouched.

#include <mantissa/numeric/convert.h>
#include <mantissa/tensor/dtype.h>

#include <span>

namespace mantissa::nn {

// One value rounded to `dtype` and widened back.
inline float roundScalar(DType dtype, float value) noexcept {
  switch (dtype) {
  case DType::F32: return value;
  case DType::BF16: return numeric::bf16ToF32(numeric::f32ToBf16(value));
  case DType::F16: return numeric::f16ToF32(numeric::f32ToF16(value));
  }
  return value;
}

// Every value rounded in place (batch conversion kernels).
inline void roundSpan(DType dtype, std::span<float> values) noexcept {
  if (dtype == DType::BF16)
    numeric::roundTripBf16(values);
  else if (dtype == DType::F16)
    numeric::roundTripF16(values);
}

} // namespace mantissa::nn
