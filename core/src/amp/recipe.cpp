// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/amp/recipe.h>

#include <array>
#include <stdexcept>

namespace mantissa::amp {

namespace {

constexpr DType F32 = DType::F32;
constexpr DType BF16 = DType::BF16;
constexpr DType F16 = DType::F16;

// name, summary, matmul in, accum, activations, loss, reductions, weights,
// gradients, optimizer state, master, scaling, update rounding, scaler
constexpr std::array kRecipes{
    Recipe{"fp32", "Everything in FP32: the reference.", F32, F32, F32, F32, F32, F32, F32, F32,
           false, false, UpdateRounding::Nearest, "none"},
    Recipe{"bf16-mixed",
           "BF16 matmul inputs, FP32 accumulation and master weights, no loss scaling "
           "(torch.autocast on CPU).",
           BF16, F32, BF16, F32, F32, BF16, BF16, F32, true, false, UpdateRounding::Nearest, "none"},
    Recipe{"fp16-mixed",
           "FP16 matmul inputs, FP32 accumulation and master weights, dynamic loss scaling.", F16,
           F32, F16, F32, F32, F16, F16, F32, true, true, UpdateRounding::Nearest, "pytorch"},
    Recipe{"fp16-mixed-noscale",
           "fp16-mixed without loss scaling: small gradients underflow to zero in FP16.", F16, F32,
           F16, F32, F32, F16, F16, F32, true, false, UpdateRounding::Nearest, "none"},
    Recipe{"bf16-pure",
           "Weights, gradients and optimizer state in BF16, no FP32 master copy: small updates "
           "are rounded away.",
           BF16, F32, BF16, F32, F32, BF16, BF16, BF16, false, false, UpdateRounding::Nearest,
           "none"},
    Recipe{"bf16-pure-sr", "bf16-pure with stochastic rounding of the weight update.", BF16, F32,
           BF16, F32, F32, BF16, BF16, BF16, false, false, UpdateRounding::Stochastic, "none"},
    Recipe{"bf16-pure-kahan",
           "bf16-pure with Kahan compensation: a BF16 buffer carries what each update lost.", BF16,
           F32, BF16, F32, F32, BF16, BF16, BF16, false, false, UpdateRounding::Kahan, "none"},
};

std::string precisionName(DType dtype) { return std::string(dtypeName(dtype)); }

} // namespace

std::string_view updateRoundingName(UpdateRounding rounding) {
  switch (rounding) {
  case UpdateRounding::Nearest:
    return "nearest-even";
  case UpdateRounding::Stochastic:
    return "stochastic";
  case UpdateRounding::Kahan:
    return "kahan";
  }
  return "?";
}

std::span<const Recipe> recipes() { return kRecipes; }

std::vector<std::string> recipeNames() {
  std::vector<std::string> names;
  for (const auto& r : kRecipes)
    names.emplace_back(r.name);
  return names;
}

const Recipe* findRecipe(std::string_view name) {
  for (const auto& r : kRecipes)
    if (r.name == name)
      return &r;
  return nullptr;
}

const Recipe& recipeByName(std::string_view name) {
  if (const Recipe* r = findRecipe(name))
    return *r;
  std::string list;
  for (const auto& r : kRecipes)
    list += (list.empty() ? "" : ", ") + std::string(r.name);
  throw std::invalid_argument("unknown recipe '" + std::string(name) + "' (expected one of: " +
                              list + ")");
}

std::vector<RecipeRow> recipeTable(const Recipe& r) {
  const bool lowIn = r.matmulInputs != F32;
  std::vector<RecipeRow> rows;
  rows.push_back({"matmul inputs", precisionName(r.matmulInputs),
                  lowIn ? "X, W and dY rounded to nearest-even before each product"
                        : "X, W and dY used as stored"});
  rows.push_back({"matmul accumulation", precisionName(r.accumulation),
                  "every product summed in FP32, rounded at most once at the end"});
  rows.push_back({"activations (stored for backward)", precisionName(r.activations),
                  r.activations != F32 ? "matmul outputs and activations rounded on store"
                                       : "kept in FP32"});
  rows.push_back({"softmax / cross-entropy", precisionName(r.loss),
                  "logits read as FP32, log-sum-exp in FP32"});
  rows.push_back({"reductions", precisionName(r.reductions),
                  "loss mean, bias-gradient sums and gradient norm in FP32"});
  rows.push_back({"weights", precisionName(r.weights),
                  r.masterWeights ? "working copy cast from the FP32 master after each update"
                  : r.weights == F32 ? "updated in place"
                                     : "the only copy: updated in place in this precision"});
  rows.push_back({"gradients", precisionName(r.gradients),
                  r.gradients != F32 ? "dW, db, dX rounded to this precision when produced"
                                     : "kept in FP32"});
  rows.push_back({"optimizer state", precisionName(r.optimizerState),
                  r.optimizerState != F32 ? "momentum / moments rounded after each update"
                                          : "momentum / moments in FP32"});
  rows.push_back({"master weights", r.masterWeights ? "f32" : "none",
                  r.masterWeights ? "updates applied to an FP32 copy" : "no separate copy"});
  rows.push_back({"loss scaling", r.lossScaling ? "dynamic" : "off",
                  r.lossScaling ? "loss x scale before backward; unscale + inf/NaN check fused; "
                                  "step skipped and scale halved on overflow, in the gradients "
                                  "or the forward pass (as GradScaler)"
                                : "gradients used as computed"});
  rows.push_back({"update rounding", std::string(updateRoundingName(r.updateRounding)),
                  r.updateRounding == UpdateRounding::Stochastic
                      ? "round up with probability equal to the fraction of an ULP"
                  : r.updateRounding == UpdateRounding::Kahan
                      ? "nearest-even plus a compensation buffer"
                      : "round to nearest, ties to even"});
  return rows;
}

} // namespace mantissa::amp
