// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Multi-layer perceptron executing a mixed-precision recipe.
//
// Legend: B batch, L layers, I_l / O_l inputs / outputs of layer l
// (I_0 = features, O_{L-1} = classes), D the recipe's matmul dtype.
//
// Forward, layer l:   in_l  = cast_D(x or post_{l-1})
//                     pre_l = round_act(in_l . W_l + b_l)      FP32 accumulation
//                     post_l = round_act(f(pre_l))             hidden layers only
// Loss (FP32):        probs = softmax(pre_{L-1}), mean cross-entropy
// Backward, layer l:  dpre_l = round_grad(dpost_l * f'(pre_l))  or scale*(probs-1hot)/B
//                     dW_l = round_grad(in_l^T . cast_D(dpre_l)), db_l = round_grad(sum dpre_l)
//                     dIn_l = round_grad(cast_D(dpre_l) . W_l^T)  (l > 0)
// "round_x" keeps FP32 storage but rounds each value to the recipe's dtype for
// x (nearest-even), so the values are exactly those a BF16/FP16 tensor holds.
// Where the native BF16 kernel can round pre (bias included), dX and dW
// itself with the same bits (nn::Linear::forwardToBf16InKernel,
// gradientsToBf16InKernel), it writes them as BF16 and they are widened
// exactly into the FP32 buffers; dW takes the FP32 route on steps that count
// its underflow, which needs the values before rounding.
// Under a scaled recipe (recipe.scaling: fp8-delayed, mxfp8, ...) the three
// products of layer l run through nn::ScaledLinear "layer<l>" on the FP32
// input, master weights and dpre (rounded to the gradient dtype first).
//
// Every buffer is allocated in the constructor; forward/backward/refresh
// never allocate.

#include <mantissa/amp/recipe.h>
#include <mantissa/model/network.h>
#include <mantissa/model/op_times.h>
#include <mantissa/model/tensor_plan.h>
#include <mantissa/nn/activation.h>
#include <mantissa/nn/linear.h>
#include <mantissa/nn/scaled_linear.h>
#include <mantissa/nn/softmax_xent.h>
#include <mantissa/tensor/tensor.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::model {

struct MlpSpec {
  std::vector<int> widths; // [features, hidden..., classes], at least two entries
  nn::Activation activation = nn::Activation::Relu;

  int layers() const { return static_cast<int>(widths.size()) - 1; }
  std::string toString() const; // "mlp:784-256-10:relu"
};

// Limits of a model spec: kMaxMlpLayers linear layers, kMaxMlpParameters
// weights and biases in all (512 MiB as FP32), each width in [1, 65536].
inline constexpr int kMaxMlpLayers = 64;
inline constexpr std::uint64_t kMaxMlpParameters = std::uint64_t{1} << 27;

// "mlp:784-256-256-10" or "mlp:784-256-256-10:gelu"; within the limits above.
// Throws std::invalid_argument naming the spec and the problem.
MlpSpec parseMlpSpec(std::string_view spec);

class Mlp final : public Network {
public:
  // accumulation > 1 allocates the per-micro-batch gradient buffers.
  Mlp(const MlpSpec& spec, int batch, const amp::Recipe& recipe, int accumulation = 1);

  // PyTorch nn.Linear's default, U(-1/sqrt(I), 1/sqrt(I)) for W and b, times
  // `gain`; rounded to the weight dtype when there is no master copy.
  void initialize(std::uint64_t seed, float gain = 1.0f) override;

  // The batch to run: x [B, F] FP32 and labels [B].
  std::span<float> inputs() override { return m_x.f32(); }
  std::span<std::int32_t> labels() override { return m_labels; }

  // Runs the forward pass and the loss on the first `validRows` rows (B when
  // 0; evaluation pads the last partial batch).
  nn::XentResult forward(OpTimes& times, int validRows = 0) override;
  // Gradient of scale * mean loss. accumulate = false overwrites the
  // gradients, true adds this micro-batch to them. layerDone(l), when given,
  // is called as soon as layer l's gradients (acts()[l].dpre, grads()[l])
  // hold this micro-batch's values, last layer first.
  void backward(float scale, bool accumulate, OpTimes& times,
                const std::function<void(int)>& layerDone = {}) override;
  // Casts the weights into the matmul dtype after an update.
  void refreshWorkingWeights(OpTimes& times) override;

  // When set, backward() counts weight-gradient underflow (one read of dW).
  void setMeasureUnderflow(bool on) override { m_measureUnderflow = on; }
  std::span<const GradUnderflow> underflow() const override { return m_underflow; }
  // Told about every matmul of forward() and backward(); nullptr: nobody.
  bool setParallelSections(ParallelSections* sections) override {
    m_sections = sections;
    return true;
  }

  // First non-finite value in forward (layer 0 up) or backward (last layer
  // down) order, scanning the buffers of the last pass; nullopt if all finite.
  std::optional<NonFiniteSite> firstNonFinite(bool backward) const override;
  void shadowTensors(std::vector<ShadowTensor>& out) const override;
  std::vector<telemetry::ScaledTensorStats> scalingStats() const override;

  int layers() const override { return m_spec.layers(); }
  int batch() const override { return m_batch; }
  const MlpSpec& spec() const { return m_spec; }
  std::string specString() const override { return m_spec.toString(); }
  std::vector<LayerInfo> layerInfo() const override;
  const amp::Recipe& recipe() const { return m_recipe; }
  std::vector<LayerParams>& params() override { return m_params; }
  const std::vector<LayerParams>& params() const override { return m_params; }
  std::vector<LayerGrads>& grads() override { return m_grads; }
  const std::vector<LayerGrads>& grads() const override { return m_grads; }
  const std::vector<LayerActs>& acts() const override { return m_acts; }
  const Tensor& probs() const { return m_probs; }
  std::int64_t parameterCount() const override;
  // layer<l>.W, layer<l>.b; in PyTorch a ModuleList `layers` of nn.Linear.
  std::vector<Parameter> parameters() override;
  void visitState(RunStateVisitor& v) override;
  std::string matmulImplementation() const override { return m_linear.front().implementation(); }
  bool matmulEmulated() const override { return m_linear.front().emulated(); }
  // Every product the model runs (per layer: forward, dX where l > 0, dW),
  // its path, kernel and why.
  std::vector<nn::MatmulUse> matmulUses() const override;

  // Every tensor of the model at its recipe precision (optimizer state is
  // added by the optimizer's own plan).
  std::vector<PlanRow> plan() const override;

  // Bytes really allocated per tensor class, as stored (FP32 buffers that
  // hold rounded values count 4 bytes a value; 16-bit working copies 2),
  // padded as Tensor allocates them. Keys: "weights", "master weights",
  // "activations", "gradients" (every model Tensor), "matmul FP32 copies"
  // (FP32 twins of 16-bit operands inside the matmuls, Tensors too) and
  // "oneDNN scratchpad" (allocated by oneDNN).
  std::map<std::string, std::size_t> allocatedBytes() const override;

private:
  const Tensor& matmulInput(int layer) const;

  MlpSpec m_spec;
  int m_batch;
  const amp::Recipe& m_recipe;
  int m_accumulation;
  bool m_measureUnderflow = false;
  ParallelSections* m_sections = nullptr;
  bool m_low = false;                     // matmul operands cast to a 16-bit dtype
  std::vector<nn::Linear> m_linear;       // [L]
  std::vector<nn::ScaledLinear> m_scaled; // [L] under a scaled recipe, else empty
  std::vector<LayerParams> m_params;      // [L]
  std::vector<LayerGrads> m_grads;        // [L]
  std::vector<LayerActs> m_acts;          // [L]
  std::vector<GradUnderflow> m_underflow; // [L]
  Tensor m_x;                             // [B, F] FP32
  std::vector<std::int32_t> m_labels;     // [B]
  Tensor m_probs;                         // [B, C] FP32
};

} // namespace mantissa::model
