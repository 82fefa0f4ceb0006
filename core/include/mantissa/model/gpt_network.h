// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// model::Gpt as a model::Network, so that train::Session trains it with the
// same loop as the MLP and the CNN (forward, backward, unscale and check,
// clip, optimizer step, scaler update).
//
// Its tensors are named, not per-layer W and b: layers() is 0, and every
// parameter is named as in Gpt::params() ("wte", "h0.qkv.w", ...), with
// weight decay on the matrices and embeddings only (nanoGPT's two parameter
// groups), and in PyTorch as nanoGPT's GPT names it:
//   transformer.wte.weight [V, C], transformer.wpe.weight [T, C],
//   transformer.h.L.ln_1.weight / .bias [C],
//   transformer.h.L.attn.c_attn.weight [3C, C] / .bias [3C],
//   transformer.h.L.attn.c_proj.weight [C, C] / .bias [C],
//   transformer.h.L.ln_2.weight / .bias [C],
//   transformer.h.L.mlp.c_fc.weight [4C, C] / .bias [4C],
//   transformer.h.L.mlp.c_proj.weight [C, 4C] / .bias [C],
//   transformer.ln_f.weight / .bias [C]
// (lm_head.weight is wte itself, tied). The batch is tokens and
// targets (labels() gives the targets, [B*T]); inputs() is empty. Telemetry
// of a GPT names its tensors: telemetryLayers() lists the parameters, then
// the observed activations (Gpt::observedActivations).
//
// The master weights are rounded to the policy's master-weight precision at
// initialisation when it is not FP32 (no FP32 copy then).

#include <mantissa/amp/policy.h>
#include <mantissa/model/gpt.h>
#include <mantissa/model/network.h>

#include <string>
#include <vector>

namespace mantissa::model {

class GptNetwork final : public Network {
public:
  GptNetwork(const GptSpec& spec, int vocabulary, int batch, const amp::Policy& policy);

  Gpt& gpt() { return m_gpt; }
  const Gpt& gpt() const { return m_gpt; }
  std::span<std::int32_t> tokens() override { return m_gpt.tokens(); }
  std::span<const float> logits() const override { return m_gpt.logits().f32(); }
  // The forward share of the last forward + backward's matrix-product time.
  double matmulForwardMs() const { return m_matmulForwardMs; }
  // The last refreshWorkingWeights()'s time (part of OpTimes::conversion).
  double refreshMs() const { return m_refreshMs; }
  // Telemetry layer names: the parameters in model order, then the observed activations.
  const std::vector<std::string>& telemetryLayers() const { return m_telemetryLayers; }

  void initialize(std::uint64_t seed, float gain = 1.0f) override; // gain: GPT-2's init has none
  std::span<float> inputs() override { return {}; }
  std::span<std::int32_t> labels() override { return m_gpt.targets(); }
  // correct: positions whose arg-max logit is the target.
  nn::XentResult forward(OpTimes& times, int validRows = 0) override;
  // Precondition: !accumulate (a GPT step is one micro-batch).
  void backward(float scale, bool accumulate, OpTimes& times,
                const std::function<void(int)>& layerDone = {}) override;
  void refreshWorkingWeights(OpTimes& times) override;
  void setMeasureUnderflow(bool) override {}
  void keepForwardTensors(bool keep) override { m_gpt.keepForwardTensors(keep); }
  std::span<const GradUnderflow> underflow() const override { return {}; }
  bool setParallelSections(ParallelSections*) override { return false; }
  std::vector<std::string> telemetryNames() const override { return m_telemetryLayers; }
  void telemetryTensors(TelemetryPass pass,
                        std::vector<telemetry::TelemetryCollector::Observed>& out) const override;
  const amp::Policy* policy() const override { return &m_gpt.policy(); }
  std::vector<std::pair<std::string, double>> opMs() const override;
  double matmulMs() const override { return m_gpt.times().matmulMs; }
  // Forward: the first op whose output holds an inf or NaN (its name in op);
  // backward: the first parameter whose gradient does ("h0.qkv.w gradient").
  std::optional<NonFiniteSite> firstNonFinite(bool backward) const override;
  void shadowTensors(std::vector<ShadowTensor>& out) const override;
  std::vector<telemetry::ScaledTensorStats> scalingStats() const override {
    return m_gpt.scalingStats();
  }

  int layers() const override { return 0; }
  int batch() const override { return m_gpt.batch(); }
  std::string specString() const override { return m_gpt.spec().toString(); }
  std::vector<LayerInfo> layerInfo() const override { return {}; }
  std::vector<LayerParams>& params() override { return m_noParams; }
  const std::vector<LayerParams>& params() const override { return m_noParams; }
  std::vector<LayerGrads>& grads() override { return m_noGrads; }
  const std::vector<LayerGrads>& grads() const override { return m_noGrads; }
  const std::vector<LayerActs>& acts() const override { return m_noActs; }
  std::vector<Parameter> parameters() override;
  void visitState(RunStateVisitor& v) override { m_gpt.visitState(v); }
  std::int64_t parameterCount() const override { return m_gpt.parameterCount(); }
  std::string matmulImplementation() const override { return m_gpt.matmulImplementation(); }
  bool matmulEmulated() const override;
  // One row per op class of the policy that a GPT has (all but BatchNorm):
  // its precision and how it ran (the matmul kernel, 16-bit emulation, max
  // subtraction, ...).
  std::vector<amp::RecipeRow> opRows() const override;
  std::vector<PlanRow> plan() const override { return m_gpt.plan(); }
  std::map<std::string, std::size_t> allocatedBytes() const override;

private:
  void addTimes(OpTimes& times, bool backwardPass);

  Gpt m_gpt;
  std::vector<std::string> m_telemetryLayers;
  std::vector<LayerParams> m_noParams;
  std::vector<LayerGrads> m_noGrads;
  std::vector<LayerActs> m_noActs;
  GptTimes m_counted;            // the part of m_gpt.times() already added to OpTimes
  double m_matmulForwardMs = 0.0;
  double m_refreshMs = 0.0;
};

// The network as a GPT, or nullptr when it is another model.
inline GptNetwork* gptOf(Network& n) { return dynamic_cast<GptNetwork*>(&n); }
inline const GptNetwork* gptOf(const Network& n) { return dynamic_cast<const GptNetwork*>(&n); }

} // namespace mantissa::model
