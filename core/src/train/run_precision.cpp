// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/train/run_precision.h>

#include <mantissa/amp/policy.h>
#include <mantissa/amp/recipe.h>
#include <mantissa/model/gpt.h>
#include <mantissa/model/model_registry.h>

#include <algorithm>
#include <cmath>

namespace mantissa::train {

namespace {

bool hasPolicySpec(const RunConfig& config) {
  return model::modelKind(config.model).takesPolicy && !config.policy.empty();
}

} // namespace

amp::Policy runPolicy(const RunConfig& config) {
  if (hasPolicySpec(config))
    return amp::parsePolicy(config.policy);
  return amp::policyForRecipe(amp::recipeByName(config.recipe));
}

std::optional<amp::Policy> runPolicy(const RunLog& log) {
  try {
    if (log.config)
      return runPolicy(*log.config);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!log.header.is_object())
    return std::nullopt;
  if (const auto spec = log.header.find("policy"); spec != log.header.end() && spec->is_string()) {
    try {
      return amp::parsePolicy(spec->get<std::string>());
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  const auto it = log.header.find("autocast_dtypes");
  if (it == log.header.end() || !it->is_array() || it->size() != 1 || !it->front().is_string())
    return std::nullopt;
  const std::string dtype = it->front().get<std::string>();
  if (dtype == "bf16")
    return amp::parsePolicy("autocast-cpu-bf16");
  if (dtype == "fp16")
    return amp::parsePolicy("autocast-cuda-fp16");
  return std::nullopt;
}

std::string runScalerPreset(const RunConfig& config) {
  if (!runPolicy(config).lossScaling)
    return {};
  if (!config.scaler.empty())
    return config.scaler;
  if (hasPolicySpec(config))
    return "pytorch";
  return std::string(amp::recipeByName(config.recipe).defaultScaler);
}

std::string runScalerPreset(const RunLog& log) {
  if (!log.config)
    return {};
  try {
    return runScalerPreset(*log.config);
  } catch (const std::exception&) { // a recipe or policy this version does not know
    return {};
  }
}

std::optional<double> operandShift(const std::vector<telemetry::ScalingFrame>& frames,
                                   std::int64_t step, std::string_view tensor) {
  const auto it = std::lower_bound(frames.begin(), frames.end(), step,
                                   [](const telemetry::ScalingFrame& f, std::int64_t s) { return f.step < s; });
  if (it == frames.end() || it->step != step)
    return std::nullopt;
  const telemetry::ScaledTensorStats* t = it->find(tensor);
  if (t == nullptr || !(t->scale > 0.0) || !std::isfinite(t->scale))
    return std::nullopt;
  return -std::log2(t->scale);
}

std::string scaledOperandName(int layer, std::string_view layerName, telemetry::ScaledRole role) {
  if (role == telemetry::ScaledRole::Weight && layerName.size() > 2 && layerName.ends_with(".w"))
    return std::string(layerName);
  return "layer" + std::to_string(layer) + "." + std::string(telemetry::scaledRoleKey(role));
}

LayerFormat layerFormat(const amp::Policy& policy, telemetry::TensorClass cls, int layer,
                        std::string_view layerName) {
  const amp::TensorFormat format = amp::tensorFormat(policy, cls);
  if (!format.scaledOperand)
    return {format, {}};
  if (cls == telemetry::TensorClass::Activations)
    if (const auto product = model::Gpt::productInputOf(layerName)) {
      if (product->empty())
        return {{amp::formatOfDType(policy[amp::OpClass::Activations]), std::nullopt}, {}};
      return {format, *product};
    }
  return {format, scaledOperandName(layer, layerName, *format.scaledOperand)};
}

} // namespace mantissa::train
