// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// What precision a run executes, read from its configuration or its log: the
// policy table its tensors follow and the loss scaler it trains with. The
// charts and reports ask here instead of guessing from the recipe's name.

#include <mantissa/amp/policy.h>
#include <mantissa/amp/tensor_format.h>
#include <mantissa/train/run_config.h>
#include <mantissa/train/run_log.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::train {

// A GPT's policy spec when it has one, else its recipe's table
// (amp::policyForRecipe). Throws amp::PolicyError / std::invalid_argument for an
// unknown policy or recipe.
amp::Policy runPolicy(const RunConfig& config);

// The log's header config's policy; a GPT's log (no config): its header's
// "policy" spec; a PyTorch tap's: its autocast dtype, bf16 ->
// autocast-cpu-bf16, fp16 -> autocast-cuda-fp16.
// nullopt when the log does not say, or names a recipe or policy this
// version does not know.
std::optional<amp::Policy> runPolicy(const RunLog& log);

// The scaler preset the run trains with: its own, else the recipe's default
// ("pytorch" for a GPT policy that scales); "" when the run has no loss scaling.
std::string runScalerPreset(const RunConfig& config);
// The same from a log: its config's; a GPT's log: "pytorch" when its policy
// scales the loss (a GPT trains with PyTorch's GradScaler rules); "" otherwise
// or when the log does not say.
std::string runScalerPreset(const RunLog& log);

// Binades an FP8 / MX element format's limits move by for the values of one
// operand at `step`: -log2(scale), the scale the operand named `tensor`
// ("layer1.dy") was quantized with (telemetry/scaling.h: the format holds
// value x scale; a block recipe's median block scale). nullopt when `frames`
// has no such tensor at that step, or its scale is not a positive number.
std::optional<double> operandShift(const std::vector<telemetry::ScalingFrame>& frames,
                                   std::int64_t step, std::string_view tensor);

// The name the scaling frames give operand `role` of telemetry tensor
// `layer` named `layerName`: "layer1.dy" for layer 1 of an MLP or CNN; a
// GPT's linear weight is its own operand ("h0.qkv.w"). A GPT's other tensors
// get the layer form too, which its frames do not hold: operandShift finds
// no scale for them, and their limits are not shaded.
std::string scaledOperandName(int layer, std::string_view layerName, telemetry::ScaledRole role);

// The format the tensor of class `cls` of telemetry layer `layer` (named
// `layerName`) meets under `policy`, and the name of the scaled operand whose
// scale moves its limits ("" when none does). The class's format
// (amp::tensorFormat), except for a GPT's observed activation that enters no
// scaled product (a LayerNorm input, the attention probabilities, the
// logits): it meets the activations' own precision, unscaled. A GPT's
// activation that is a product's X is that product's operand
// ("h0.gelu output" is "h0.fcproj.x").
struct LayerFormat {
  amp::TensorFormat format;
  std::string operand;
};
LayerFormat layerFormat(const amp::Policy& policy, telemetry::TensorClass cls, int layer,
                        std::string_view layerName);

} // namespace mantissa::train
