// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/amp/policy.h>
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
    Recipe{"fp8-delayed",
           "Transformer Engine's delayed scaling: linear-layer X and W in FP8 E4M3, dY in E5M2, "
           "one scale per tensor from a 1024-step amax history; the rest as bf16-mixed.",
           BF16, F32, BF16, F32, F32, BF16, BF16, F32, true, false, UpdateRounding::Nearest,
           "none", MatmulScaling::Fp8Delayed},
    Recipe{"fp8-current",
           "Per-tensor current scaling: FP8 E4M3 X and W, E5M2 dY, scale = 448 (or 57344) / "
           "amax of the tensor itself; the rest as bf16-mixed.",
           BF16, F32, BF16, F32, F32, BF16, BF16, F32, true, false, UpdateRounding::Nearest,
           "none", MatmulScaling::Fp8Current},
    Recipe{"fp8-block",
           "DeepSeek-V3's block scaling: FP8 E4M3 with one FP32 scale per 1x128 activation and "
           "gradient tile and per 128x128 weight block; the rest as bf16-mixed.",
           BF16, F32, BF16, F32, F32, BF16, BF16, F32, true, false, UpdateRounding::Nearest,
           "none", MatmulScaling::Fp8Block},
    Recipe{"mxfp8",
           "OCP MXFP8: E4M3 elements with one power-of-two E8M0 scale per 32 values along each "
           "product's sum; the rest as bf16-mixed.",
           BF16, F32, BF16, F32, F32, BF16, BF16, F32, true, false, UpdateRounding::Nearest,
           "none", MatmulScaling::Mxfp8},
    Recipe{"nvfp4",
           "NVFP4: FP4 E2M1 elements, one E4M3 scale per 16 values and one FP32 scale per tensor; "
           "gradients rounded stochastically; the rest as bf16-mixed.",
           BF16, F32, BF16, F32, F32, BF16, BF16, F32, true, false, UpdateRounding::Nearest,
           "none", MatmulScaling::Nvfp4},
};

std::string precisionName(DType dtype) { return std::string(dtypeName(dtype)); }

} // namespace

std::string scalingPrecision(MatmulScaling s) {
  switch (s) {
  case MatmulScaling::Fp8Delayed:
  case MatmulScaling::Fp8Current:
    return "fp8-e4m3 (X, W), fp8-e5m2 (dY)";
  case MatmulScaling::Fp8Block:
  case MatmulScaling::Mxfp8:
    return "fp8-e4m3";
  case MatmulScaling::Nvfp4:
    return "fp4-e2m1";
  case MatmulScaling::Unscaled:
    return "the policy's element format, unscaled";
  case MatmulScaling::None:
    break;
  }
  return "";
}

std::string scalingPrecision(const ScalingOptions& o) {
  if (o.scheme == MatmulScaling::None)
    return "";
  if (o.element.empty() && o.gradElement.empty() && o.blockScale == BlockScale::Default)
    return scalingPrecision(o.scheme);
  using telemetry::ScaledRole;
  const std::string x = operandElement(o, ScaledRole::Input).name;
  const std::string dy = operandElement(o, ScaledRole::GradOutput).name;
  std::string out = x == dy ? x : x + " (X, W), " + dy + " (dY)";
  if (o.scheme == MatmulScaling::Unscaled)
    out += ", unscaled";
  if ((o.scheme == MatmulScaling::Mxfp8 || o.scheme == MatmulScaling::Nvfp4) &&
      o.blockScale != BlockScale::Default)
    out += ", " + std::string(blockScaleName(o.blockScale)) + " block scale";
  return out;
}

std::string_view scalingNote(MatmulScaling s) {
  switch (s) {
  case MatmulScaling::Fp8Delayed:
    return "one FP32 scale per tensor: (FP8_MAX / max amax of the last 1024 steps) / 2^margin; "
           "quantized and dequantized exactly, products in FP32";
  case MatmulScaling::Fp8Current:
    return "one FP32 scale per tensor: FP8_MAX / amax of the tensor; quantized and dequantized "
           "exactly, products in FP32";
  case MatmulScaling::Fp8Block:
    return "FP32 scale amax / 448 per 1x128 tile of X and dY along each product's sum, per "
           "128x128 block of W; products in FP32";
  case MatmulScaling::Mxfp8:
    return "E8M0 scale 2^(floor(log2 amax) - 8) per 32 values along each product's sum "
           "(OCP MX v1.0); products in FP32";
  case MatmulScaling::Nvfp4:
    return "E4M3 scale per 16 values along each product's sum and an FP32 tensor scale; dY "
           "rounded stochastically (seeded), X and W to nearest; products in FP32";
  case MatmulScaling::Unscaled:
    return "X, W and dY rounded to nearest-even in the element format (saturating), no scale; "
           "products in FP32";
  case MatmulScaling::None:
    break;
  }
  return "";
}


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
  std::string list, best;
  std::size_t bestDistance = std::string_view::npos;
  for (const auto& r : kRecipes) {
    list += (list.empty() ? "" : ", ") + std::string(r.name);
    if (const std::size_t d = editDistance(name, r.name); d < bestDistance) {
      bestDistance = d;
      best = r.name;
    }
  }
  const std::string hint = !best.empty() && bestDistance <= std::max<std::size_t>(2, best.size() / 3)
                               ? "; did you mean '" + best + "'?"
                               : "";
  throw std::invalid_argument("unknown recipe '" + std::string(name) + "'" + hint +
                              " (expected one of: " + list + ")");
}

std::vector<RecipeRow> recipeTable(const Recipe& r) {
  const bool lowIn = r.matmulInputs != F32;
  std::vector<RecipeRow> rows;
  if (r.scaling != MatmulScaling::None) {
    rows.push_back({"linear-layer matmul inputs", scalingPrecision(r.scaling),
                    std::string(scalingNote(r.scaling))});
    rows.push_back({"other matmul inputs", precisionName(r.matmulInputs),
                    "products outside the linear layers (a GPT's attention and tied output "
                    "head): rounded to nearest-even"});
  } else {
  rows.push_back({"matmul inputs", precisionName(r.matmulInputs),
                  lowIn ? "X, W and dY rounded to nearest-even before each product"
                        : "X, W and dY used as stored"});
  }
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
