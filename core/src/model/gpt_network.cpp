// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/model/gpt_network.h>
#include <mantissa/amp/recipe.h>
#include <mantissa/amp/scaling.h>
#include <mantissa/nn/precision.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mantissa::model {

namespace {

bool sixteen(DType d) { return d != DType::F32; }

std::string emulatedNote(DType d) {
  return sixteen(d) ? "FP32 values rounded to " + std::string(amp::precisionKey(d)) +
                          " (nearest even) after the op"
                    : std::string("kept in FP32");
}

} // namespace

GptNetwork::GptNetwork(const GptSpec& spec, int vocabulary, int batch, const amp::Policy& policy)
    : m_gpt(spec, vocabulary, batch, policy) {
  for (const auto& p : m_gpt.params())
    m_telemetryLayers.push_back(p.name);
  for (const auto& a : m_gpt.observedActivations())
    m_telemetryLayers.push_back(a.name);
}

void GptNetwork::initialize(std::uint64_t seed, float) {
  m_gpt.initialize(seed);
  const DType master = m_gpt.policy()[amp::OpClass::MasterWeights];
  if (master != DType::F32) {
    for (auto& p : m_gpt.params())
      nn::roundSpan(master, p.value.f32());
    m_gpt.refreshWorkingWeights();
  }
}

// The GPT's per-op times as the op kinds every model reports: its products
// (forward and backward), the casts, the loss, and the rest (embedding,
// LayerNorm, softmax and AV bookkeeping, GELU, residual adds) as elementwise.
void GptNetwork::addTimes(OpTimes& times, bool backwardPass) {
  const GptTimes& now = m_gpt.times();
  auto delta = [&](GptOp op) {
    const auto i = static_cast<std::size_t>(op);
    return now.ms[i] - m_counted.ms[i];
  };
  double all = 0.0;
  for (std::size_t i = 0; i < kGptOpCount; ++i)
    all += now.ms[i] - m_counted.ms[i];
  const double matmul = now.matmulMs - m_counted.matmulMs;
  const double casts = delta(GptOp::Casts);
  const double loss = delta(GptOp::Loss);
  (backwardPass ? times.matmulBackward : times.matmulForward) += matmul;
  times.conversion += casts;
  times.loss += loss;
  times.elementwise += std::max(0.0, all - matmul - casts - loss);
  m_counted = now;
}

nn::XentResult GptNetwork::forward(OpTimes& times, int) {
  nn::XentResult r;
  r.loss = m_gpt.forward(); // resets m_gpt.times()
  m_counted = GptTimes{};
  m_matmulForwardMs = m_gpt.times().matmulMs;
  addTimes(times, false);
  // Next-character accuracy: positions whose largest logit is the target.
  const int V = m_gpt.vocabulary();
  const auto logits = m_gpt.logits().f32();
  const auto targets = m_gpt.targets();
  for (std::size_t row = 0; row < targets.size(); ++row) {
    const float* z = logits.data() + row * static_cast<std::size_t>(V);
    int best = 0;
    for (int v = 1; v < V; ++v)
      if (z[v] > z[best])
        best = v;
    r.correct += best == targets[row] ? 1 : 0;
  }
  return r;
}

void GptNetwork::backward(float scale, bool accumulate, OpTimes& times,
                          const std::function<void(int)>&) {
  if (accumulate)
    throw std::logic_error("GptNetwork::backward: gradient accumulation is not supported");
  m_gpt.backward(scale);
  addTimes(times, true);
}

void GptNetwork::refreshWorkingWeights(OpTimes& times) {
  m_refreshMs = 0.0;
  {
    ScopedTimer t(m_refreshMs);
    m_gpt.refreshWorkingWeights();
  }
  times.conversion += m_refreshMs;
}

void GptNetwork::telemetryTensors(TelemetryPass pass,
                                  std::vector<telemetry::TelemetryCollector::Observed>& out) const {
  using telemetry::TensorClass;
  const auto& params = m_gpt.params();
  out.clear();
  if (pass == TelemetryPass::Gradients) {
    for (std::size_t i = 0; i < params.size(); ++i)
      out.push_back({int(i), TensorClass::WeightGrads, params[i].grad.f32()});
    return;
  }
  for (std::size_t i = 0; i < params.size(); ++i)
    out.push_back({int(i), TensorClass::Weights, params[i].value.f32()});
  const auto acts = m_gpt.observedActivations();
  for (std::size_t i = 0; i < acts.size(); ++i)
    out.push_back({int(params.size() + i), TensorClass::Activations, acts[i].values});
}

std::vector<std::pair<std::string, double>> GptNetwork::opMs() const {
  std::vector<std::pair<std::string, double>> ops;
  const GptTimes& times = m_gpt.times();
  for (std::size_t o = 0; o < kGptOpCount; ++o)
    ops.emplace_back(std::string(gptOpName(GptOp(o))), times.ms[o]);
  return ops;
}

void GptNetwork::shadowTensors(std::vector<ShadowTensor>& out) const {
  m_gpt.shadowTensors(out);
}

std::optional<NonFiniteSite> GptNetwork::firstNonFinite(bool backward) const {
  if (!backward) {
    if (auto op = m_gpt.firstNonFinite())
      return NonFiniteSite{0, false, std::move(*op)};
    return std::nullopt;
  }
  for (const auto& p : m_gpt.params())
    for (const float v : p.grad.f32())
      if (!std::isfinite(v))
        return NonFiniteSite{0, true, p.name + " gradient"};
  return std::nullopt;
}

namespace {

// Mantissa's parameter names ("h0.qkv.w") as nanoGPT's (gpt_network.h).
std::string torchNameOf(const std::string& n) {
  if (n == "wte" || n == "wpe")
    return "transformer." + n + ".weight";
  if (n == "lnf.w" || n == "lnf.b")
    return std::string("transformer.ln_f.") + (n == "lnf.w" ? "weight" : "bias");
  // "h<L>.<part>.<w|b>"
  const std::size_t dot = n.find('.'), last = n.rfind('.');
  const std::string block = "transformer.h." + n.substr(1, dot - 1) + ".";
  const std::string part = n.substr(dot + 1, last - dot - 1);
  const std::string suffix = n.substr(last + 1) == "w" ? "weight" : "bias";
  static const std::pair<const char*, const char*> modules[] = {
      {"ln1", "ln_1"}, {"ln2", "ln_2"}, {"qkv", "attn.c_attn"}, {"attproj", "attn.c_proj"},
      {"fc", "mlp.c_fc"}, {"fcproj", "mlp.c_proj"}};
  for (const auto& [ours, theirs] : modules)
    if (part == ours)
      return block + theirs + "." + suffix;
  throw std::logic_error("GPT parameter '" + n + "' has no PyTorch name");
}

} // namespace

std::vector<Parameter> GptNetwork::parameters() {
  std::vector<Parameter> out;
  // Where every working copy is a 16-bit cast of its whole parameter (the
  // bits of Gpt::refreshWorkingWeights), the optimizer writes them, block by
  // block while the updated values are in cache; otherwise (copies rounded
  // in FP32 storage) the model refreshes them all after the step.
  bool optimizerCasts = false;
  for (const auto& p : m_gpt.params()) {
    if (p.low.size() == 0)
      continue;
    const bool sixteenBits = p.low.dtype() == DType::BF16 || p.low.dtype() == DType::F16;
    optimizerCasts = sixteenBits && p.low.size() == p.value.size();
    if (!optimizerCasts)
      break;
  }
  for (auto& p : m_gpt.params()) {
    const bool sixteenBits = p.low.dtype() == DType::BF16 || p.low.dtype() == DType::F16;
    const bool working = sixteenBits && p.low.size() == p.value.size();
    Parameter q{.name = p.name, .value = &p.value, .grad = &p.grad,
                .working = working ? &p.low : nullptr, .optimizerCasts = optimizerCasts && working,
                .decay = p.matrix, .torchName = torchNameOf(p.name), .torchShape = {}};
    // Linear weights are [in, out] here, nn.Linear's [out, in] there;
    // embeddings [rows, C] in both; vectors [1, n] here, [n] there.
    const bool embedding = p.name == "wte" || p.name == "wpe";
    if (p.value.rows() == 1) {
      q.torchShape = {std::uint64_t(p.value.cols())};
    } else if (embedding) {
      q.torchShape = {std::uint64_t(p.value.rows()), std::uint64_t(p.value.cols())};
    } else {
      q.torchShape = {std::uint64_t(p.value.cols()), std::uint64_t(p.value.rows())};
      q.transposed = true;
    }
    out.push_back(std::move(q));
  }
  return out;
}

bool GptNetwork::matmulEmulated() const {
  return m_gpt.policy()[amp::OpClass::MatmulAccumulation] != DType::F32;
}

std::map<std::string, std::size_t> GptNetwork::allocatedBytes() const {
  std::map<std::string, std::size_t> bytes;
  for (const auto& p : m_gpt.params()) {
    bytes["master weights"] += p.value.bytes();
    bytes["gradients"] += p.grad.bytes();
    if (p.low.size() > 0)
      bytes["weights"] += p.low.bytes();
  }
  bytes["logits"] = m_gpt.logits().bytes() + m_gpt.probs().bytes();
  const auto buffers = m_gpt.bufferBytes();
  bytes["activations"] = buffers.activations;
  bytes["gradients"] += buffers.gradients; // as an MLP's: activation and weight gradients
  return bytes;
}

std::vector<amp::RecipeRow> GptNetwork::opRows() const {
  using amp::OpClass;
  const amp::Policy& p = m_gpt.policy();
  std::vector<amp::RecipeRow> rows;
  for (const OpClass c : amp::opClasses()) {
    if (c == OpClass::BatchNorm)
      continue; // a GPT has no BatchNorm: that class is a CNN's (Cnn::opRows)
    const DType d = p[c];
    amp::RecipeRow row{std::string(amp::opClassLabel(c)), std::string(amp::precisionKey(d)), ""};
    switch (c) {
    case OpClass::MatmulInputs:
      row.note = m_gpt.matmulImplementation();
      if (p.scaling.scheme != amp::MatmulScaling::None) {
        row.precision = std::string(amp::matmulScalingName(p.scaling.scheme)) + ": " +
                        amp::scalingPrecision(p.scaling) + "; other products " +
                        row.precision;
        row.note = "linear layers (qkv, attention projection, fc, fc projection): " +
                   std::string(amp::scalingNote(p.scaling.scheme)) +
                   "; attention and the tied head: " + row.note;
      }
      break;
    case OpClass::MatmulAccumulation:
      row.note = !sixteen(d) ? "FP32 sums (oneDNN)"
                 : p.promoteEvery > 0
                     ? "running sum rounded after every addition, promoted to FP32 every " +
                           std::to_string(p.promoteEvery) + " products"
                     : "running sum rounded after every addition, never promoted";
      break;
    case OpClass::Softmax:
      row.note = std::string(p.softmaxMax ? "row maximum subtracted before exp"
                                          : "no max subtraction: exp of the raw scores") +
                 (sixteen(d) ? "; exp, sum and probabilities rounded" : "");
      break;
    case OpClass::NormStatistics:
      row.note = sixteen(d) ? "mean, variance and 1/sqrt rounded" : "FP32 statistics";
      break;
    case OpClass::Loss:
      row.note = sixteen(d) ? "logits and each row's log-sum-exp terms rounded"
                            : "FP32 softmax cross-entropy";
      break;
    case OpClass::MasterWeights:
      row.note = p.lossScaling ? "updates applied here; dynamic loss scaling (GradScaler)"
                               : "updates applied here";
      break;
    case OpClass::OptimizerState:
      row.note = "AdamW moments";
      break;
    default:
      row.note = emulatedNote(d);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

} // namespace mantissa::model
