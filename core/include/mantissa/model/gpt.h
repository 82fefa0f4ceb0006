// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A GPT-2 style decoder (pre-LayerNorm blocks, GELU MLP, output head tied to
// the token embedding) on the layer library of nn/, executing a precision
// policy.
//
// Legend: B batch, T context, C channels (embd), H heads, L layers,
// V vocabulary, N = B * T rows. Every Linear stores W as [in, out].
//
//   x0      = embed(tokens)                    wte [V, C], wpe [T, C]
//   block l:  a   = ln1(x_l)                   ln1w, ln1b [C]
//             qkv = a . Wqkv + bqkv            [C, 3C], [3C]
//             y   = attention(qkv)             causal, H heads
//             r   = x_l + y . Wap + bap        [C, C], [C]
//             m   = ln2(r)                     ln2w, ln2b [C]
//             h   = gelu(m . Wfc + bfc)        [C, 4C], [4C]
//             x_{l+1} = r + h . Wfp + bfp      [4C, C], [C]
//   logits  = lnf(x_L) . wte^T                 lnfw, lnfb [C]; tied head
//   loss    = mean over N of cross-entropy(logits, targets)
//
// Backward runs the same ops' backward functions in reverse order with one
// residual-gradient buffer [N, C] that each block's two LayerNorm backwards
// accumulate into. Every buffer is allocated in the constructor (or by
// keepForwardTensors); forward(), backward() and refreshWorkingWeights() do
// not allocate.
//
// Policy, per op class: matmul inputs (x, W, dY cast before each product;
// BF16 runs natively where oneDNN has a kernel for this CPU), activations
// (linear outputs rounded), residual stream, softmax (attention), norm
// statistics, GELU outputs, embedding output, gradients (activation and
// weight gradients rounded). Accumulation in 16 bits runs every product,
// the linear layers', the head's and attention's six per head, through
// kernels::matmulEmulatedAccumulation (slow; small models). Under an FP8 /
// microscaling policy the four linear layers' products run through
// nn::ScaledLinear on the FP32 operands; attention and the head keep BF16. The loss
// in 16 bits rounds the logits and each row's log-sum-exp terms.

#include <mantissa/amp/policy.h>
#include <mantissa/model/shadow_reference.h>
#include <mantissa/model/tensor_plan.h>
#include <mantissa/nn/attention.h>
#include <mantissa/nn/linear.h>
#include <mantissa/nn/tied_head.h>
#include <mantissa/telemetry/scaling.h>
#include <mantissa/tensor/tensor.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa {
class RunStateVisitor;
}

namespace mantissa::model {

struct GptSpec {
  int layers = 4;
  int heads = 4;
  int embd = 128;
  int ctx = 64;
  std::string toString() const; // "gpt:layers=4,heads=4,embd=128,ctx=64"
};

// Bounds of a GptSpec's fields.
inline constexpr int kGptMaxLayers = 64;
inline constexpr int kGptMaxHeads = 64;
inline constexpr int kGptMaxEmbd = 4096;
inline constexpr int kGptMaxCtx = 4096;

// "gpt" or "gpt:key=value,..." with keys layers, heads, embd, ctx (any
// subset, each once; missing keys keep the defaults above). Throws
// std::invalid_argument naming the spec and the problem: unknown key (with a
// suggestion), not a whole number, out of bounds, embd not divisible by heads.
GptSpec parseGptSpec(std::string_view spec);
bool isGptSpec(std::string_view spec); // starts with "gpt"

// One parameter tensor and its gradient.
struct GptParam {
  std::string name; // "wte", "h0.qkv.w", "lnf.b", ...
  Tensor value;     // FP32
  Tensor grad;      // FP32, same shape
  Tensor low;       // working copy in the matmul input dtype (empty when unused)
  bool matrix;      // weight decay applies (2-D weights and embeddings)
};

// Where the last forward + backward went, per op (milliseconds, both passes
// summed), and the part of it spent in matrix products (oneDNN or the
// emulated accumulator).
enum class GptOp : std::uint8_t {
  Embedding, LayerNorm, QkvLinear, Attention, AttnProjection, Residual, FcLinear, Gelu,
  FcProjection, Head, Loss, Casts
};
inline constexpr std::size_t kGptOpCount = 12;
std::string_view gptOpName(GptOp op); // "embedding", "layernorm", ...

struct GptTimes {
  std::array<double, kGptOpCount> ms{};
  double matmulMs = 0.0;
  double total() const;
};

class Gpt {
public:
  Gpt(const GptSpec& spec, int vocabulary, int batch, const amp::Policy& policy);
  ~Gpt();
  Gpt(const Gpt&) = delete;
  Gpt& operator=(const Gpt&) = delete;

  // GPT-2's initialisation: weights N(0, 0.02), the two projections into the
  // residual stream N(0, 0.02 / sqrt(2 L)), biases 0, LayerNorm weights 1.
  void initialize(std::uint64_t seed);

  // Tokens [B*T] and targets [B*T], in [0, V).
  std::span<std::int32_t> tokens() { return m_tokens; }
  std::span<std::int32_t> targets() { return m_targets; }

  // Mean cross-entropy over the N positions.
  double forward();
  // Gradients of scale * mean loss into every param's grad (overwritten).
  void backward(float scale);
  // Casts the FP32 weights into the matmul input dtype after an update.
  void refreshWorkingWeights();

  std::vector<GptParam>& params() { return m_params; }
  const std::vector<GptParam>& params() const { return m_params; }
  GptParam& param(std::string_view name);
  // The scaled products' amax histories and random-bit counters (tensor/run_state.h).
  void visitState(RunStateVisitor& v);
  std::int64_t parameterCount() const;

  // Logits of the last forward, [N, V] FP32; probabilities [N, V].
  const Tensor& logits() const { return m_logits; }
  const Tensor& probs() const { return m_probs; }
  // Attention probabilities of layer l's last forward, [B*H*T, T].
  const Tensor& attentionProbs(int layer) const;

  // The activations of the last forward a telemetry frame shows, in
  // execution order, named "embedding output", "h0.ln1 input" (the block's
  // residual stream), "h0.attention probs" ([B*H*T, T]: the causal mask's
  // zeros included), "h0.attention output", "h0.ln2 input", "h0.gelu
  // output", ..., "lnf input", "logits". Allocates the list (call it on
  // telemetry steps only).
  struct Activation {
    std::string name;
    std::span<const float> values;
  };
  std::vector<Activation> observedActivations() const;
  // Every tensor of the last forward and backward a shadow pass compares
  // (model/shadow_reference.h): the observed activations plus each linear
  // layer's output, then every parameter's gradient.
  void shadowTensors(std::vector<ShadowTensor>& out) const;
  // The product whose X operand an observed activation is, by the name
  // the scaling frames give it: "h0.attention output" -> "h0.attproj.x",
  // "h0.gelu output" -> "h0.fcproj.x"; "" for an activation that enters no
  // scaled product (LayerNorm inputs, attention probabilities, logits), and
  // nullopt for a name that is none of observedActivations()'.
  static std::optional<std::string> productInputOf(std::string_view activation);

  const GptSpec& spec() const { return m_spec; }
  int vocabulary() const { return m_vocab; }
  int batch() const { return m_batch; }
  const amp::Policy& policy() const { return m_policy; }
  std::string matmulImplementation() const;
  // Bytes of the activations kept for backward (every block's tensors, the
  // attention buffers, the embedding output and the final LayerNorm's; not
  // the logits) and of backward's activation-gradient scratch.
  struct BufferBytes {
    std::size_t activations = 0, gradients = 0;
  };
  BufferBytes bufferBytes() const;

  // The first op of the last forward pass, in execution order, whose output
  // holds an inf or NaN ("layer 0 attention (softmax, AV)", "loss"); nullopt
  // when all are finite.
  std::optional<std::string> firstNonFinite() const;

  // Under an FP8 / microscaling policy (policy().scaling): every linear
  // layer's X, W and dY statistics from the last forward and backward, in
  // model order ("h0.qkv.x", "h0.qkv.w", "h0.qkv.dy", "h0.attproj.x", ...);
  // empty otherwise.
  std::vector<telemetry::ScaledTensorStats> scalingStats() const;

  // Times of the last forward() + backward() (reset by forward()).
  const GptTimes& times() const { return m_times; }

  // Every tensor of the model at its policy precision.
  std::vector<PlanRow> plan() const;

  // The forward tensors backward does not read (each block's FP32 LayerNorm
  // outputs, qkv, attention output, projections and GELU output): kept per
  // block (the default), or, when every linear layer casts its operands to
  // 16 bits, shared by the blocks, until keepForwardTensors(true) allocates
  // them per block (they stay so; false changes nothing then). Backward's
  // datty, dqkv and dgelu use the shared buffers while there are some.
  // observedActivations() and shadowTensors() show a forward's values only
  // when it kept them; firstNonFinite() runs the forward again into kept
  // ones when it did not.
  void keepForwardTensors(bool keep);
  bool forwardTensorsKept() const;

private:
  void allocateForwardTensors(bool perBlock);

  struct Block;
  struct Impl;
  std::unique_ptr<Impl> m_impl;
  GptSpec m_spec;
  int m_vocab;
  int m_batch;
  amp::Policy m_policy;
  std::vector<GptParam> m_params;
  std::vector<std::int32_t> m_tokens;
  std::vector<std::int32_t> m_targets;
  Tensor m_logits;
  Tensor m_probs;
  GptTimes m_times;
};

} // namespace mantissa::model
