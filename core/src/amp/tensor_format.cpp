// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/amp/tensor_format.h>

#include <mantissa/numeric/format_spec.h>

#include <stdexcept>

namespace mantissa::amp {

numeric::FormatId formatOfDType(DType dtype) {
  switch (dtype) {
  case DType::BF16: return numeric::FormatId::Bf16;
  case DType::F16: return numeric::FormatId::Fp16;
  case DType::F32: break;
  }
  return numeric::FormatId::Fp32;
}

TensorFormat tensorFormat(const Policy& policy, telemetry::TensorClass cls) {
  using telemetry::ScaledRole;
  using telemetry::TensorClass;
  const MatmulScaling scheme = policy.scaling.scheme;
  const auto operand = [&](ScaledRole role) {
    numeric::FormatId id = scheme == MatmulScaling::Unscaled ? numeric::FormatId::Bf16
                                                             : operandFormat(scheme, role);
    try {
      const numeric::FloatFormat f = operandElement(policy.scaling, role);
      if (f.id == numeric::FormatId::Custom)
        return TensorFormat{f.id, role, f.spec()};
      id = f.id;
    } catch (const std::invalid_argument&) {
    }
    return TensorFormat{id, role, {}};
  };
  const bool scaled = scheme != MatmulScaling::None;
  switch (cls) {
  case TensorClass::Weights:
    return scaled ? operand(ScaledRole::Weight)
                  : TensorFormat{formatOfDType(policy[OpClass::MatmulInputs]), std::nullopt, {}};
  case TensorClass::Activations:
    return scaled ? operand(ScaledRole::Input)
                  : TensorFormat{formatOfDType(policy[OpClass::Activations]), std::nullopt, {}};
  case TensorClass::ActivationGrads:
    return scaled ? operand(ScaledRole::GradOutput)
                  : TensorFormat{formatOfDType(policy[OpClass::Gradients]), std::nullopt, {}};
  case TensorClass::WeightGrads:
    return {formatOfDType(policy[OpClass::Gradients]), std::nullopt, {}};
  case TensorClass::Updates:
    return {formatOfDType(policy[OpClass::MasterWeights]), std::nullopt, {}};
  }
  return {};
}

numeric::FloatFormat floatFormat(const TensorFormat& format) {
  if (format.format != numeric::FormatId::Custom)
    return numeric::formatInfo(format.format);
  numeric::FormatParse parsed = numeric::parseFormatSpec(format.spec);
  if (!parsed.format)
    throw std::invalid_argument("custom format: " + parsed.error);
  return *parsed.format;
}

} // namespace mantissa::amp
