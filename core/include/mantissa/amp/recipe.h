// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A mixed-precision recipe: which op runs in which precision.
//
// One Recipe object is the whole contract. The trainer executes exactly these
// fields (nn/mlp.cpp and amp/optimizer.cpp read nothing else), and the UI
// shows recipeTable(recipe), built from the same fields, so what is displayed
// is what ran. Names follow the field's usage:
//   fp32               everything FP32
//   bf16-mixed         torch.autocast(cpu, bfloat16): BF16 matmul inputs, FP32
//                      accumulation, FP32 master weights, no loss scaling
//   fp16-mixed         the same in FP16, with dynamic loss scaling
//   fp16-mixed-noscale FP16 without loss scaling (gradient underflow)
//   bf16-pure          weights, gradients, optimizer state in BF16, no master copy
//   bf16-pure-sr       bf16-pure with stochastic rounding of the weight update
//   bf16-pure-kahan    bf16-pure with Kahan-compensated updates
//   fp8-delayed, fp8-current, fp8-block, mxfp8, nvfp4
//                      bf16-mixed with every linear layer's X, W and dY
//                      quantized by that scaling recipe (amp/scaling.h) and
//                      multiplied in FP32; everything else as bf16-mixed

#include <mantissa/amp/scaling.h>
#include <mantissa/tensor/dtype.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::amp {

// How the new weight value w + update is rounded to the weight dtype.
enum class UpdateRounding : std::uint8_t {
  Nearest,    // round to nearest, ties to even (numeric::f32ToBf16)
  Stochastic, // numeric::f32ToBf16Stochastic with a seeded generator
  Kahan,      // nearest, with a compensation buffer carrying the lost part
};

std::string_view updateRoundingName(UpdateRounding rounding);

struct Recipe {
  std::string_view name;
  std::string_view summary;
  DType matmulInputs;   // X, W and dY as fed to every matmul
  DType accumulation;   // matmul accumulator (F32 in every recipe)
  DType activations;    // matmul outputs and activations stored for backward
  DType loss;           // softmax and cross-entropy (F32 in every recipe)
  DType reductions;     // gradient norm, bias-gradient sums, loss mean
  DType weights;        // working weights used by the forward pass
  DType gradients;      // weight and activation gradients as produced
  DType optimizerState; // momentum / Adam moments
  bool masterWeights;   // an FP32 master copy receives the updates
  bool lossScaling;     // the loss is multiplied by a scale before backward
  UpdateRounding updateRounding;
  std::string_view defaultScaler; // scaler preset used when none is given
  // FP8 / microscaling: the linear layers' operands quantized by this recipe
  // (matmulInputs then applies to the other products only).
  MatmulScaling scaling = MatmulScaling::None;
};

// The recipes, in the order the UI lists them.
std::span<const Recipe> recipes();
std::vector<std::string> recipeNames();

// nullptr if unknown.
const Recipe* findRecipe(std::string_view name);
// Throws std::invalid_argument naming the recipe, suggesting the closest name
// for a misspelt one, and listing the valid ones.
const Recipe& recipeByName(std::string_view name);

// "fp8-e4m3 (X, W), fp8-e5m2 (dY)" and one line on how the operands are
// scaled, for tables ("" for MatmulScaling::None).
std::string scalingPrecision(MatmulScaling scaling);
std::string_view scalingNote(MatmulScaling scaling);
// The same for options whose element formats or block scale may differ from
// the recipe's: "fp8-e4m3fnuz (X, W), fp8-e5m2 (dY)", "e3m4 (unscaled)",
// "fp8-e4m3, ue4m3 block scale".
std::string scalingPrecision(const ScalingOptions& options);

// One row per op for display: ("matmul inputs", "bf16", "X, W, dY rounded to
// nearest-even before each product").
struct RecipeRow {
  std::string op;
  std::string precision;
  std::string note;
};
std::vector<RecipeRow> recipeTable(const Recipe& recipe);

} // namespace mantissa::amp
