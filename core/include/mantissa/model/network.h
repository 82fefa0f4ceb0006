// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// What a training run needs of a classifier: the batch to fill, forward and
// loss, backward, the working-weight casts, and its tensors per parametrised
// layer for telemetry, memory accounting and the tables. model::Mlp,
// model::Cnn and model::GptNetwork (a GPT, whose tensors are named rather
// than per layer: see gpt_network.h) implement it; train::Session and the UI
// hold a Network.
//
// A "layer" is one parametrised block: a linear layer of an MLP, or a conv
// block (convolution, optional BatchNorm, ReLU, optional pooling) or a fully
// connected layer of a CNN. Per layer l:
//   params()[l].w / .b   its weights and bias (optimizer slots "layer<l>.W", "layer<l>.b")
//   grads()[l].w / .b    their gradients
//   acts()[l].post       the block's output (pre for the last layer, whose softmax is the loss)
//   acts()[l].pre        the product's output (linear or convolution, before any norm)
//   acts()[l].dpre       the gradient of pre

#include <mantissa/amp/optimizer.h>
#include <mantissa/amp/recipe.h>
#include <mantissa/model/op_times.h>
#include <mantissa/model/shadow_reference.h>
#include <mantissa/model/tensor_plan.h>
#include <mantissa/nn/linear.h>
#include <mantissa/nn/softmax_xent.h>
#include <mantissa/telemetry/collector.h>
#include <mantissa/telemetry/scaling.h>
#include <mantissa/tensor/tensor.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace mantissa {
class RunStateVisitor;
}
namespace mantissa::amp {
class Policy;
}

namespace mantissa::model {

// Where a non-finite value first appeared.
struct NonFiniteSite {
  int layer = 0;
  bool backward = false;
  std::string op; // "linear", "relu", "softmax-xent", "linear dW", "conv", "batchnorm", ...
};

// Per layer: the weight gradient's non-zero FP32 values and how many of them
// became zero when rounded to the recipe's gradient dtype.
struct GradUnderflow {
  std::int64_t nonzero = 0;
  std::int64_t lostToZero = 0;
  double fraction() const { return nonzero ? double(lostToZero) / double(nonzero) : 0.0; }
};

struct LayerParams {
  Tensor w;    // FP32: master copy, or the only copy (values exact in `weights` dtype)
  Tensor b;    // [1, O] FP32, same rule as w
  Tensor wLow; // D: working copy for the products (empty when D is F32)
};

struct LayerGrads {
  Tensor w;     // FP32 values rounded to the gradient dtype (accumulated over micro-batches)
  Tensor b;     // [1, O] same
  Tensor wStep; // one micro-batch's dW when accumulating (else empty)
  Tensor bStep; // [1, O] same
  Tensor wBf16; // BF16: dW as the kernel writes it when it rounds (else empty)
};

struct LayerActs {
  Tensor in;      // D: input cast for the product (empty when D is F32)
  Tensor pre;     // FP32: the product plus bias, rounded to the activation dtype
  Tensor preBf16; // BF16: pre as the kernel writes it when it rounds (else empty)
  Tensor post;    // FP32: the block's output, hidden layers only
  Tensor dpre;    // FP32: gradient of pre, rounded to the gradient dtype
  Tensor dpreLow; // D: dpre cast for the products (empty when D is F32)
  Tensor dIn;     // FP32: gradient of this layer's input (l > 0 only)
  Tensor dInBf16; // BF16: dIn as the kernel writes it when it rounds (else empty)
};

// One parameter of the model, by name: the registry that the optimizer,
// checkpoints and views share, the same for every model.
struct Parameter {
  std::string name;         // "layer0.W", "h0.qkv.w", "layer1.bn.gamma"
  Tensor* value = nullptr;  // FP32 (master copy, or values exact in the weight dtype)
  Tensor* grad = nullptr;   // FP32, the same size
  // The 16-bit (BF16 or F16) working copy the products read, or nullptr.
  // optimizerCasts: the optimizer writes it after each step, block by block
  // while the values are in cache; otherwise refreshWorkingWeights does.
  Tensor* working = nullptr;
  bool optimizerCasts = false;
  bool decay = true; // weight decay applies
  // The same parameter in the PyTorch module of this model: its name and
  // shape. transposed: `value` is a Linear's [in, out], PyTorch's is [out, in].
  std::string torchName;
  std::vector<std::uint64_t> torchShape;
  bool transposed = false;
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

// A layer as pickers and tables name it: "linear 784→256", "conv 5×5 1→32 +BN +pool".
// The weight matrix is rows × cols as stored (MLP [I, O]; conv [Cout, Cin·k·k]).
struct LayerInfo {
  std::string name;
  int rows = 0;
  int cols = 0;
};

class Network {
public:
  virtual ~Network() = default;

  // Seeds every parameter; rounded to the weight dtype when there is no master copy.
  virtual void initialize(std::uint64_t seed, float gain = 1.0f) = 0;

  // The batch to run: x [B, F] FP32 and labels [B]. A model that reads
  // token ids reads tokens() [B*T] instead of inputs() (empty then), and
  // labels() holds the next token of each position [B*T].
  virtual std::span<float> inputs() = 0;
  virtual std::span<std::int32_t> labels() = 0;
  virtual std::span<std::int32_t> tokens() { return {}; }
  // A model that predicts tokens: the last forward's logits, [B*T, vocabulary].
  virtual std::span<const float> logits() const { return {}; }

  // Forward pass and loss on the first `validRows` rows (B when 0).
  virtual nn::XentResult forward(OpTimes& times, int validRows = 0) = 0;
  // Gradient of scale * mean loss; accumulate adds to the gradients.
  // layerDone(l) is called once layer l's gradients hold this micro-batch's
  // values, last layer first.
  virtual void backward(float scale, bool accumulate, OpTimes& times,
                        const std::function<void(int)>& layerDone = {}) = 0;
  // Casts the weights into the product dtype after an update.
  virtual void refreshWorkingWeights(OpTimes& times) = 0;
  // Training (true, the default) or evaluation: BatchNorm uses the batch's
  // statistics and updates its running ones, or uses the running ones.
  virtual void setTraining(bool) {}

  virtual void setMeasureUnderflow(bool on) = 0;
  // Whether forward's tensors must stay readable after it (telemetry, the
  // shadow pass): true allocates them, and may be called between steps; a
  // model may share the ones backward does not read between its layers
  // until then.
  virtual void keepForwardTensors(bool) {}
  virtual std::span<const GradUnderflow> underflow() const = 0;
  // Whether the model tells `sections` when its products start and end (a
  // model that does not leaves the scheduler to give them the cores).
  virtual bool setParallelSections(ParallelSections* sections) = 0;

  // Telemetry filed by named tensor rather than per parametrised layer
  // (layers() then is 0): the telemetry layers' names, and the tensors of
  // each pass with their index in those names. Forward: what is final once
  // forward ran (the weights and activations); Gradients: what backward
  // wrote (the weight gradients). Empty for a model filed per layer.
  enum class TelemetryPass { Forward, Gradients };
  virtual std::vector<std::string> telemetryNames() const { return {}; }
  virtual void telemetryTensors(TelemetryPass,
                                std::vector<telemetry::TelemetryCollector::Observed>&) const {}
  // The per-op precision policy the model runs (amp/policy.h), or nullptr
  // when the recipe's table (amp::recipeTable) plus opRows() describe it.
  virtual const amp::Policy* policy() const { return nullptr; }
  // The model's own time per op of the last forward + backward, by op
  // name, and the share of its matrix products; empty when OpTimes is all.
  virtual std::vector<std::pair<std::string, double>> opMs() const { return {}; }
  virtual double matmulMs() const { return 0.0; }

  // First non-finite value in forward (layer 0 up) or backward (last layer
  // down) order, scanning the buffers of the last pass; nullopt if all finite.
  virtual std::optional<NonFiniteSite> firstNonFinite(bool backward) const = 0;
  // Under an FP8 / microscaling recipe: each scaled tensor's statistics from
  // the last forward and backward (telemetry/scaling.h); empty otherwise.
  virtual std::vector<telemetry::ScaledTensorStats> scalingStats() const { return {}; }

  virtual int layers() const = 0;
  virtual int batch() const = 0;
  virtual std::string specString() const = 0;
  virtual std::vector<LayerInfo> layerInfo() const = 0;
  virtual std::vector<LayerParams>& params() = 0;
  virtual const std::vector<LayerParams>& params() const = 0;
  virtual std::vector<LayerGrads>& grads() = 0;
  virtual const std::vector<LayerGrads>& grads() const = 0;
  virtual const std::vector<LayerActs>& acts() const = 0;
  // Every parameter, in the order the optimizer steps them.
  virtual std::vector<Parameter> parameters() = 0;
  // State that is not a parameter but that the next step reads: BatchNorm's
  // running statistics, the scaled products' amax histories and random-bit
  // counters (tensor/run_state.h).
  virtual void visitState(RunStateVisitor&) {}
  virtual std::int64_t parameterCount() const = 0;

  // oneDNN's kernel for the products ("brg:avx512_core_bf16", "gemm:jit", ...).
  virtual std::string matmulImplementation() const = 0;
  virtual bool matmulEmulated() const = 0;
  // Every matrix product the model runs, its path, kernel and why; empty
  // when the model does not list them.
  virtual std::vector<nn::MatmulUse> matmulUses() const { return {}; }
  // The same for the convolutions; empty when the model has none.
  virtual std::string convImplementation() const { return {}; }
  virtual bool convEmulated() const { return false; }
  // Rows the op table adds to amp::recipeTable for this model's own ops
  // (convolutions with their precision and oneDNN kernels, BatchNorm
  // statistics); none for the MLP, whose ops the recipe table covers.
  virtual std::vector<amp::RecipeRow> opRows() const { return {}; }

  // Every tensor the last forward and backward wrote, by name, forward's
  // in the order they were written, then backward's
  // (model/shadow_reference.h): what a shadow pass compares.
  virtual void shadowTensors(std::vector<ShadowTensor>& out) const { out.clear(); }

  // Every tensor of the model at its recipe precision.
  virtual std::vector<PlanRow> plan() const = 0;
  // Bytes really allocated per tensor class (see Mlp::allocatedBytes).
  virtual std::map<std::string, std::size_t> allocatedBytes() const = 0;
};

// Rounds FP32 values in place to `dtype` (nearest-even; no-op for F32).
void roundTo(DType dtype, std::span<float> values);

} // namespace mantissa::model
