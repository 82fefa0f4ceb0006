// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A precision policy: which precision each class of op runs in, as data.
//
// The table maps every op class to FP32, BF16 or FP16. A 16-bit class on the
// CPU is emulated where the hardware has no such instruction: values are
// stored as FP32 rounded (nearest, ties to even) to the 16-bit format, so they
// are exactly the values a 16-bit tensor would hold. Matmul accumulation in
// 16 bits rounds the running sum after every addition, or, with
// promoteEvery = N_C > 0, rounds partial sums of N_C products and adds them
// into an FP32 total (what tensor-core GEMMs with periodic promotion do).
//
// Spec syntax (`--policy`): NAME[,class=precision...] or NAME,promote-every=N
// or NAME,softmax-max=off, e.g. "autocast-cpu-bf16,softmax=fp16"; NAME is a
// preset or a recipe. update=nearest|stochastic|kahan rounds the updates of
// BF16 master weights as the bf16-pure recipes do.
// FP8 and microscaling: matmul-inputs=fp8-delayed (or fp8-current, fp8-block,
// mxfp8, nvfp4) quantizes every linear layer's X, W and dY with that recipe
// (amp/scaling.h) and multiplies them in FP32; the other products (attention,
// the tied head) then take BF16 inputs. fp8-history=N (1..65536, default
// 1024) and fp8-amax=max|most-recent tune fp8-delayed; fp8-margin=N (0..32)
// fp8-delayed and fp8-current.
// Any element format: matmul-inputs=FORMAT (a name or spec, format_spec.h:
// e3m4, fp8-e4m3fnuz, e4m3:bias=8,special=fnuz) rounds the linear layers' X,
// W and dY to it with no scale (MatmulScaling::Unscaled); element=FORMAT
// gives a recipe's X, W and dY that element format (8 bits for fp8-delayed,
// fp8-current and fp8-block), grad-element=FORMAT dY's alone, and
// block-scale=e8m0|ue4m3 the block scale of mxfp8 and nvfp4. A format's own
// fields (bias=, special=, subnormals=, sign=) after a spec with a colon
// belong to it. Elements need a sign bit and at most 16 bits; errors name
// the field ("element: fp8-e5m2 has 8 bits; ...").
// Per layer (a GPT's): a key prefixed by a layer's name applies to that layer
// alone, over the model-wide row. Layers are a block, hN (N from 0), or one
// of its linear layers, hN.qkv, hN.attproj, hN.fc, hN.fcproj. Keys:
// LAYER.matmul-inputs=VALUE (the values of matmul-inputs: a precision, a
// scaling recipe or an element format; hN sets all four linear layers of
// block N, hN.fc only that one; a linear layer's own row wins over its
// block's) and LAYER.element=FORMAT with a recipe; hN.softmax=PRECISION
// (blocks only) sets that block's attention softmax. E.g.
// "fp32,h1.fc.matmul-inputs=mxfp8,h1.fc.element=e2m1,h0.softmax=fp16".
// A layer the model does not have is refused when the model is built.

#include <mantissa/amp/recipe.h>
#include <mantissa/amp/scaling.h>
#include <mantissa/tensor/dtype.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::amp {

enum class OpClass : std::uint8_t {
  MatmulInputs,       // X, W, dY as fed to every product (incl. attention's)
  MatmulAccumulation, // the products' running sums
  Activations,        // matmul outputs and activations stored for backward
  Residual,           // the residual stream between blocks
  Softmax,            // attention softmax (exp, sum, probabilities)
  NormStatistics,     // LayerNorm / RMSNorm mean, variance, 1/sqrt
  Gelu,               // GELU outputs
  Embedding,          // token and position embedding tables and their sum
  Loss,               // output softmax and cross-entropy
  Gradients,          // activation and weight gradients as produced
  MasterWeights,      // the copy that receives the updates
  OptimizerState,     // AdamW moments
  BatchNorm,          // BatchNorm batch statistics (mean, variance, 1/sqrt): CNNs only, which
                      // take it from RunConfig::batchnorm (mantissa-cli train --batchnorm)
};

inline constexpr std::size_t kOpClassCount = 13;

// "matmul-inputs", "matmul-accumulation", "activations", "residual",
// "softmax", "norm-stats", "gelu", "embedding", "loss", "gradients",
// "master-weights", "optimizer-state", "batchnorm": the spec's keys.
std::string_view opClassKey(OpClass c);
// "matmul inputs", ..., for tables.
std::string_view opClassLabel(OpClass c);
std::span<const OpClass> opClasses();

// "fp32", "bf16", "fp16"
std::string_view precisionKey(DType dtype);

// One layer's rows of a policy (see the spec syntax above).
struct LayerPolicy {
  std::string layer;                 // "h1" (a block) or "h1.fc" (one linear layer)
  std::optional<DType> matmulInputs; // set: the layer's linear products take these inputs
  ScalingOptions scaling;            // scheme != None: its operands scaled / rounded so
  std::optional<DType> softmax;      // blocks: their attention softmax
  bool operator==(const LayerPolicy&) const = default;
};

// The linear layers of a GPT block, as layer names use them.
std::span<const std::string_view> gptLinearLayers(); // qkv, attproj, fc, fcproj

// What one linear layer's products take: the policy's model-wide inputs,
// or its own or its block's row.
struct LinearInputs {
  DType dtype = DType::F32;  // BF16 when scaling is set
  ScalingOptions scaling;    // scheme None: plain dtype inputs
  bool own = false;          // a per-layer row decides it
};

struct Policy {
  std::string name;                         // preset the policy started from
  std::array<DType, kOpClassCount> table{}; // indexed by OpClass
  int promoteEvery = 0;    // N_C; 0: a 16-bit accumulator is never promoted
  bool softmaxMax = true;  // subtract the row maximum before exp
  bool lossScaling = false; // dynamic loss scaling (GradScaler)
  // How the master weights take an update (amp::UpdateRounding): to
  // nearest, or with stochastic rounding or Kahan compensation, which need
  // BF16 master weights (update=stochastic|kahan).
  UpdateRounding update = UpdateRounding::Nearest;
  // FP8 / microscaling of the linear layers' operands; when set,
  // table[MatmulInputs] is BF16 (the other products' inputs).
  ScalingOptions scaling;
  // Per-layer rows, sorted by layer name, one per layer.
  std::vector<LayerPolicy> layers;

  DType operator[](OpClass c) const { return table[static_cast<std::size_t>(c)]; }
  DType& operator[](OpClass c) { return table[static_cast<std::size_t>(c)]; }
  bool operator==(const Policy&) const = default;

  // Canonical spec: the preset name plus every row that differs from it, in
  // class order (matmul-inputs as its scaling recipe when there is one), the
  // fp8 options that differ from their defaults, then promote-every and softmax-max when set.
  // The per-layer rows come last, by layer.
  // parsePolicy(toSpec()) == *this.
  std::string toSpec() const;

  // Linear layer `linear` of block `block` ("fc"): its inputs.
  LinearInputs linearInputs(int block, std::string_view linear) const;
  // Block `block`'s attention softmax precision.
  DType softmaxOf(int block) const;
  // The per-layer row of `layer`, or nullptr.
  const LayerPolicy* layer(std::string_view name) const;
  // The row of `layer`, added (in order) when absent.
  LayerPolicy& layerRow(std::string_view name);
  // Blocks the per-layer rows name, the highest + 1 (0 without such rows).
  int blocksNamed() const;
};

struct PolicyPreset {
  std::string_view name;
  std::string_view summary;
  Policy policy;
};

// fp32, autocast-cpu-bf16, autocast-cuda-fp16, llm.c, all-bf16, all-fp16.
std::span<const PolicyPreset> policyPresets();
std::vector<std::string> policyPresetNames();

// A bad spec: the message quotes the spec, names the problem and, for a
// misspelt name, class or precision, suggests the closest valid one.
class PolicyError : public std::invalid_argument {
public:
  using invalid_argument::invalid_argument;
};

// Largest accepted promote-every.
inline constexpr int kMaxPromoteEvery = 1 << 20;

Policy parsePolicy(std::string_view spec);

// A policy file's spec (what `--policy FILE` reads): its lines without
// '#' comments and surrounding blanks, the non-empty ones joined by commas
// ("fp32\nh0.softmax=fp16\n" -> "fp32,h0.softmax=fp16").
std::string policySpecFromFile(std::string_view text);

// The policy a recipe runs a GPT with: its matmul, activation, loss,
// gradient and optimizer-state precisions, its matmul scaling; master
// weights FP32 when the recipe keeps a master copy, else its weight dtype;
// its loss scaling and update rounding.
Policy policyForRecipe(const Recipe& recipe);

// "nearest", "stochastic", "kahan": the spec's update=... value.
std::string_view updateRoundingKey(UpdateRounding rounding);

// One row per op class: ("softmax", "fp32").
struct PolicyRow {
  std::string op;
  std::string precision;
};
std::vector<PolicyRow> policyTable(const Policy& policy);

// Levenshtein distance, for suggestions.
std::size_t editDistance(std::string_view a, std::string_view b);

} // namespace mantissa::amp
