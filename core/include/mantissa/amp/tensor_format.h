// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The number format a class of tensor is held in under a precision policy:
// the format whose limits (flush to zero, subnormals, overflow) the tensor's
// values meet. The charts shade these limits by default.
//
//   weights           as multiplied: the matmul inputs' precision, or the W
//                     operand's element format (E4M3, E2M1) under FP8 / MX scaling
//   activations       the activations' precision, or X's element format under scaling
//   activation grads  the gradients' precision, or dY's element format under
//                     scaling (E5M2 for fp8-delayed and fp8-current)
//   weight grads      the gradients' precision (dW is produced from the
//                     quantized X and dY and stored in it)
//   weight updates    the master weights' precision, which receives them
//
// An element format under scaling meets the values times a scale (per tensor
// or per block), not the values themselves: scaledOperand names the operand
// whose scale applies (telemetry/scaling.h records it per step).

#include <mantissa/amp/policy.h>
#include <mantissa/numeric/format.h>
#include <mantissa/telemetry/histogram.h>
#include <mantissa/telemetry/scaling.h>

#include <optional>
#include <string>
#include <utility>

namespace mantissa::amp {

struct TensorFormat {
  // FormatId::Custom for an element format from a spec string
  // (matmul-inputs=e5m2:bias=13,special=fn): `spec` then says which.
  numeric::FormatId format = numeric::FormatId::Fp32;
  // Set for an FP8 / microscaling element format: the operand whose scale
  // multiplies the values into the format.
  std::optional<telemetry::ScaledRole> scaledOperand;
  std::string spec; // the custom format's full spec (FloatFormat::spec()); "" for a named one

  // {format, operand} as before the spec (no missing-initializer warnings).
  TensorFormat(numeric::FormatId id = numeric::FormatId::Fp32,
               std::optional<telemetry::ScaledRole> operand = std::nullopt, std::string customSpec = {})
      : format(id), scaledOperand(operand), spec(std::move(customSpec)) {}
  bool operator==(const TensorFormat&) const = default;
};

// FP32 -> Fp32, BF16 -> Bf16, F16 -> Fp16.
numeric::FormatId formatOfDType(DType dtype);

TensorFormat tensorFormat(const Policy& policy, telemetry::TensorClass cls);

// The format itself: the named format's table entry, or the custom one
// rebuilt from its spec.
numeric::FloatFormat floatFormat(const TensorFormat& format);

} // namespace mantissa::amp
