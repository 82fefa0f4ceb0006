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
//
// Every buffer is allocated in the constructor; forward/backward/refresh
// never allocate.

#include <mantissa/amp/recipe.h>
#include <mantissa/model/op_times.h>
#include <mantissa/model/tensor_plan.h>
#include <mantissa/nn/activation.h>
#include <mantissa/nn/linear.h>
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

// Where a non-finite value first appeared.
struct NonFiniteSite {
  int layer = 0;
  bool backward = false;
  std::string op; // "linear", "relu", "softmax-xent", "linear dW", ...
};

// Per layer: the weight gradient's non-zero FP32 values and how many of them
// became zero when rounded to the recipe's gradient dtype.
struct GradUnderflow {
  std::int64_t nonzero = 0;
  std::int64_t lostToZero = 0;
  double fraction() const { return nonzero ? double(lostToZero) / double(nonzero) : 0.0; }
};

struct LayerParams {
  Tensor w;    // [I, O] FP32: master copy, or the only copy (values exact in `weights` dtype)
  Tensor b;    // [1, O] FP32, same rule as w
  Tensor wLow; // [I, O] D: working copy for the matmuls (empty when D is F32)
};

struct LayerGrads {
  Tensor w;     // [I, O] FP32 values rounded to the gradient dtype (accumulated over micro-batches)
  Tensor b;     // [1, O] same
  Tensor wStep; // [I, O] one micro-batch's dW when accumulating (else empty)
  Tensor bStep; // [1, O] same
  Tensor wBf16; // [I, O] BF16: dW as the kernel writes it when it rounds (else empty)
};

struct LayerActs {
  Tensor in;      // [B, I] D: input cast for the matmuls (empty when D is F32)
  Tensor pre;     // [B, O] FP32: in . W + b, rounded to the activation dtype
  Tensor preBf16; // [B, O] BF16: pre as the kernel writes it when it rounds (else empty)
  Tensor post;    // [B, O] FP32: f(pre), hidden layers only
  Tensor dpre;    // [B, O] FP32: gradient of pre, rounded to the gradient dtype
  Tensor dpreLow; // [B, O] D: dpre cast for the matmuls (empty when D is F32)
  Tensor dIn;     // [B, I] FP32: gradient of this layer's input (l > 0 only)
  Tensor dInBf16; // [B, I] BF16: dIn as the kernel writes it when it rounds (else empty)
};

// Told when the model starts and ends a multi-threaded product, so that
// work running beside the model (Session's background scans) can leave the
// cores to the product and use them while the model runs on one thread.
class ParallelSections {
public:
  virtual ~ParallelSections() = default;
  virtual void enter() = 0;
  virtual void leave() = 0;
};

class Mlp {
public:
  // accumulation > 1 allocates the per-micro-batch gradient buffers.
  Mlp(const MlpSpec& spec, int batch, const amp::Recipe& recipe, int accumulation = 1);

  // PyTorch nn.Linear's default, U(-1/sqrt(I), 1/sqrt(I)) for W and b, times
  // `gain`; rounded to the weight dtype when there is no master copy.
  void initialize(std::uint64_t seed, float gain = 1.0f);

  // The batch to run: x [B, F] FP32 and labels [B].
  std::span<float> inputs() { return m_x.f32(); }
  std::span<std::int32_t> labels() { return m_labels; }

  // Runs the forward pass and the loss on the first `validRows` rows (B when
  // 0; evaluation pads the last partial batch).
  nn::XentResult forward(OpTimes& times, int validRows = 0);
  // Gradient of scale * mean loss. accumulate = false overwrites the
  // gradients, true adds this micro-batch to them. layerDone(l), when given,
  // is called as soon as layer l's gradients (acts()[l].dpre, grads()[l])
  // hold this micro-batch's values, last layer first.
  void backward(float scale, bool accumulate, OpTimes& times,
                const std::function<void(int)>& layerDone = {});
  // Casts the weights into the matmul dtype after an update.
  void refreshWorkingWeights(OpTimes& times);

  // When set, backward() counts weight-gradient underflow (one read of dW).
  void setMeasureUnderflow(bool on) { m_measureUnderflow = on; }
  std::span<const GradUnderflow> underflow() const { return m_underflow; }
  // Told about every matmul of forward() and backward(); nullptr: nobody.
  void setParallelSections(ParallelSections* sections) { m_sections = sections; }

  // First non-finite value in forward (layer 0 up) or backward (last layer
  // down) order, scanning the buffers of the last pass; nullopt if all finite.
  std::optional<NonFiniteSite> firstNonFinite(bool backward) const;

  int layers() const { return m_spec.layers(); }
  int batch() const { return m_batch; }
  const MlpSpec& spec() const { return m_spec; }
  const amp::Recipe& recipe() const { return m_recipe; }
  std::vector<LayerParams>& params() { return m_params; }
  const std::vector<LayerParams>& params() const { return m_params; }
  std::vector<LayerGrads>& grads() { return m_grads; }
  const std::vector<LayerGrads>& grads() const { return m_grads; }
  const std::vector<LayerActs>& acts() const { return m_acts; }
  const Tensor& probs() const { return m_probs; }
  std::int64_t parameterCount() const;
  std::string matmulImplementation() const { return m_linear.front().implementation(); }
  bool matmulEmulated() const { return m_linear.front().emulated(); }
  // Every product the model runs (per layer: forward, dX where l > 0, dW),
  // its path, kernel and why.
  std::vector<nn::MatmulUse> matmulUses() const;

  // Every tensor of the model at its recipe precision (optimizer state is
  // added by the optimizer's own plan).
  std::vector<PlanRow> plan() const;

  // Bytes really allocated per tensor class, as stored (FP32 buffers that
  // hold rounded values count 4 bytes a value; 16-bit working copies 2),
  // padded as Tensor allocates them. Keys: "weights", "master weights",
  // "activations", "gradients" (every model Tensor), "matmul FP32 copies"
  // (FP32 twins of 16-bit operands inside the matmuls, Tensors too) and
  // "oneDNN scratchpad" (allocated by oneDNN).
  std::map<std::string, std::size_t> allocatedBytes() const;

private:
  const Tensor& matmulInput(int layer) const;

  MlpSpec m_spec;
  int m_batch;
  const amp::Recipe& m_recipe;
  int m_accumulation;
  bool m_measureUnderflow = false;
  ParallelSections* m_sections = nullptr;
  std::vector<nn::Linear> m_linear;       // [L]
  std::vector<LayerParams> m_params;      // [L]
  std::vector<LayerGrads> m_grads;        // [L]
  std::vector<LayerActs> m_acts;          // [L]
  std::vector<GradUnderflow> m_underflow; // [L]
  Tensor m_x;                             // [B, F] FP32
  std::vector<std::int32_t> m_labels;     // [B]
  Tensor m_probs;                         // [B, C] FP32
};

// Rounds FP32 values in place to `dtype` (nearest-even; no-op for F32).
void roundTo(DType dtype, std::span<float> values);

} // namespace mantissa::model
