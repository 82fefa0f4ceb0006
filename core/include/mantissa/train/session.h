// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A training run, one step at a time, on the caller's thread. The Trainer
// drives it from its own thread; the CLI, tests and benchmarks may drive it
// directly.
//
// One step:
//   for each micro-batch: next batch; forward (recipe precisions); the loss
//     in FP32; backward of (loss scale / micro-batches) x lossMultiplier x loss
//   telemetry (every K steps): weights, activations, gradients as stored
//   unscale + inf/NaN check fused (scaled recipes); global norm (FP32)
//   scaler update: on overflow back off and skip the step
//   divergence: non-finite loss, or non-finite gradients without a scaler ->
//     the step and the first layer/op that produced it; the run is over.
//     Input data holding inf/NaN is named as such ("input contains NaN"), in
//     every recipe: with a scaler too, since no scale cures it. A scaler
//     that gives up (DeepSpeed: overflow at its minimum scale) ends the run
//     the same way ("loss scale at its minimum").
//   clip by global norm; optimizer (recipe's update rounding); working casts
// Everything is allocated in the constructor: a steady-state step without
// telemetry allocates nothing and creates no oneDNN primitive.
//
// A GPT ("gpt:..." model, model::GptNetwork) trains on text with the same
// step: its batch is B random windows of the training split (seeded), its
// precisions the config's policy (or the recipe's), AdamW with weight decay
// on matrices and embeddings only; evaluation is the mean loss over fixed
// batches of each split, drawn once from the seed (EvalReport::loss is the
// validation loss, trainLoss the training one); sample() generates text.
// Its telemetry frames name the GPT's tensors (Network::telemetryNames):
// the weights and activations after forward, the weight gradients after
// backward.

#include <mantissa/amp/loss_scaler.h>
#include <mantissa/amp/lr_schedule.h>
#include <mantissa/amp/optimizer.h>
#include <mantissa/amp/recipe.h>
#include <mantissa/data/batcher.h>
#include <mantissa/data/dataset.h>
#include <mantissa/data/text.h>
#include <mantissa/model/network.h>
#include <mantissa/telemetry/collector.h>
#include <mantissa/train/run_config.h>
#include <mantissa/train/shadow.h>
#include <mantissa/train/step_report.h>

#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace mantissa::train {

class BackgroundScans;

class Session {
public:
  // With a loss scaler that skips overflowing steps (fp16-mixed), a forward
  // pass that overflows FP16 makes the loss and gradients non-finite: the step
  // is skipped and the scale backs off, as with PyTorch's GradScaler. This
  // many such steps in a row end the run as a divergence ("forward
  // overflow"), since the forward pass never sees the scale.
  static constexpr int kForwardOverflowLimit = 10;

  // Validates the config (ConfigError) and loads the data (data::DataError):
  // images for an MLP or CNN, a text (data::loadTextSpec) for a GPT.
  explicit Session(RunConfig config);
  // Same, on data already loaded (shared by several runs; must outlive this).
  Session(RunConfig config, std::shared_ptr<const data::TrainTest> data);
  // A GPT on a text already loaded (shared by several runs).
  Session(RunConfig config, std::shared_ptr<const data::TextCorpus> text);
  ~Session();
  Session(Session&&) noexcept;

  // Runs one optimizer step. Precondition: !finished().
  const StepReport& step();
  // Mean loss and accuracy over the whole test set (padded last batch); for
  // a GPT the mean losses over the fixed batches of each split.
  EvalReport evaluate();
  // GPT: n characters generated from the current weights after `prompt`
  // (after a newline, or the first vocabulary entry, when it is empty),
  // sampling softmax(logits / t). Throws std::invalid_argument naming a
  // prompt character outside the vocabulary. Uses the model's batch buffers
  // (the next step draws a new batch).
  std::string sample(int n, double temperature, std::uint64_t seed, std::u32string_view prompt = {});

  // For tests of run comparison (train/run_diff.h): after forward of step
  // `step`, the first finite non-zero value of layer `layer`'s Activations
  // tensor (its output; for a model filed per layer) moves one ULP away
  // from zero, before telemetry counts it and backward reads it. Unset (the
  // default), a step pays one comparison for it. Throws std::invalid_argument
  // for a layer the model does not have.
  struct ActivationNudge {
    std::int64_t step = 0;
    int layer = 0;
  };
  void setActivationNudge(std::optional<ActivationNudge> nudge);

  // The next step runs the shadow pass (train/shadow.h) against a reference
  // in `precision` (F32 or F64), whatever RunConfig::shadow says: a check on
  // demand. Throws std::invalid_argument for Off, and ConfigError when the
  // run cannot be shadowed (gradient accumulation).
  void requestShadow(ShadowPrecision precision);

  bool finished() const { return m_step >= m_totalSteps || m_divergence.has_value(); }
  std::int64_t stepsDone() const { return m_step; }
  std::int64_t totalSteps() const { return m_totalSteps; }
  std::int64_t stepsPerEpoch() const; // optimizer steps per pass over the training set
  std::int64_t skippedSteps() const { return m_skipped; }
  const std::optional<Divergence>& divergence() const { return m_divergence; }

  const RunConfig& config() const { return m_config; }
  const amp::Recipe& recipe() const { return m_recipe; }
  const model::Network& model() const { return *m_model; }
  model::Network& model() { return *m_model; }
  const amp::Optimizer& optimizer() const { return *m_optimizer; }
  const amp::LossScaler* scaler() const { return m_scaler ? &*m_scaler : nullptr; }
  const data::TrainTest& data() const { return *m_data; } // precondition: !isText()
  bool isText() const { return m_text != nullptr; }
  const data::TextCorpus& text() const { return *m_text; } // precondition: isText()
  std::string scalerDescription() const;
  // Everything the next step reads besides the parameters (tensor/run_state.h):
  // "step", "skipped_steps", "data.*" (the batch order), "optimizer.*",
  // "scaler.*" and "model.*" (the model's own: BatchNorm statistics, amax
  // histories). A checkpoint stores it; a resume puts it back, and the next
  // step is then the one the uninterrupted run would have taken.
  void visitState(RunStateVisitor& v);
  // Model plus optimizer state, at the recipe's precisions.
  std::vector<model::PlanRow> plan() const;
  // Bytes really allocated per tensor class: the model's (Network::allocatedBytes)
  // and "optimizer state" (Optimizer::allocatedBytes).
  std::map<std::string, std::size_t> allocatedBytes() const;

private:
  void initImages();   // model and batcher of an MLP or CNN on m_data
  void initText();     // the GPT, its batcher and fixed evaluation batches on m_text
  void initTraining(); // optimizer, scaler, schedule, telemetry buffers
  EvalReport evaluateText();
  // Telemetry of a model that files it by named tensor
  // (Network::telemetryTensors): one pass's tensors counted at once.
  void observeNamed(model::Network::TelemetryPass pass);
  // Its weights and activations, final once forward ran, posted to
  // m_background: counted during backward on the core the step leaves
  // idle, recorded by observeTelemetry() after backward.
  void postNamedForward();
  // Activations, their gradients and the weight gradients of every layer,
  // timed as telemetry (before unscaling changes the gradients).
  void observeTelemetry();
  bool m_namedTelemetry = false;     // the model files telemetry by named tensor
  bool m_namedForwardPosted = false; // this step's weights and activations: see postNamedForward()
  std::vector<telemetry::TelemetryCollector::Observed> m_namedForward; // what was posted
  std::vector<telemetry::TensorScan> m_namedScans; // m_namedForward's counts, in its order
  std::vector<telemetry::TelemetryCollector::Observed> m_namedItems; // observeNamed()'s
  // Without a loss scaler or multiplier nothing changes the weights before
  // the optimizer, nor the activations and gradients after backward: their
  // counts are taken by m_background while the model runs on one core.
  // postWeightScans() at the start of such a step; postActivationScans()
  // after forward and postGradientScans(l) as backward finishes layer l
  // (without gradient accumulation; otherwise gradNormBesideTelemetry posts
  // them, !posted); gradNormBesideTelemetry() after backward: the global
  // gradient norm on this thread (amp::globalGradNorm) while the background
  // counts, then the counts recorded. waitedMs: how long this thread waited.
  void postWeightScans();
  void postActivationScans();
  void postGradientScans(int layer);
  double gradNormBesideTelemetry(bool posted, double& waitedMs);
  // The weights, when the optimizer does not run (counted: by postWeightScans()).
  void observeWeightsApart(bool counted);
  // No inf or NaN among the weights postWeightScans() counted (after the wait).
  bool weightsCountedFinite() const;
  // After an FP32-working optimizer step beside finite counted weights: the
  // updates posted to the background, then (after the working casts) waited
  // for and recorded with the weights and the swamped fractions.
  void postUpdateScans();
  void recordParametersApart();
  // Ends the run: Divergence{site, reason}, message "<reason> at step N: first
  // in layer L, op OP (pass). <detail>".
  void fail(const model::NonFiniteSite& site, std::string_view reason,
            std::string_view detail = {});
  // The divergence message of a model that runs a per-op policy, once the
  // step's loss is known: the policy, and for a non-finite loss the first
  // op (by name, in forward order) holding inf or NaN ("non-finite loss
  // (NaN) at step 3 in policy P: first non-finite value at h0.attention scores").
  void nameDivergenceInPolicy(StepReport& r, const amp::Policy& policy);
  // "input contains NaN|inf" when a micro-batch of this step held one, else nullptr.
  const char* inputProblem() const;
  // fail() at the input when inputProblem(); returns whether it did.
  bool failAtInput();
  // Loss-scaler update of this step: skip, events, and a scaler's stop.
  void applyScalerUpdate(StepReport& r);

  RunConfig m_config;
  amp::Recipe m_recipe;
  std::shared_ptr<const data::TrainTest> m_data;  // images; null for text
  std::shared_ptr<const data::TextCorpus> m_text; // text; null for images
  int m_context = 0;                              // text: the model's window (characters)
  std::unique_ptr<data::TextBatcher> m_textBatcher;
  std::vector<std::int32_t> m_evalTrain, m_evalVal; // per batch: B*T inputs, then B*T targets
  std::unique_ptr<model::Network> m_model;
  std::unique_ptr<data::Batcher> m_batcher;
  std::unique_ptr<amp::Optimizer> m_optimizer;
  std::optional<amp::LossScaler> m_scaler;
  std::unique_ptr<amp::LrSchedule> m_schedule;
  telemetry::TelemetryCollector m_telemetry;
  std::vector<std::span<float>> m_gradSpans; // mutable views of every gradient tensor
  bool m_optimizerCastsWorking = false;      // the optimizer writes the 16-bit working weights
  // Counts taken by m_background: [layers] weights, [2 * layers] activations
  // and their gradients (layer l at 2l, 2l + 1), [layers] weight gradients
  // and updates.
  std::vector<telemetry::TensorScan> m_weightScans;
  std::vector<telemetry::TensorScan> m_activationScans;
  std::vector<telemetry::TensorScan> m_gradScans;
  std::vector<telemetry::TensorScan> m_updateScans;
  std::int64_t m_totalSteps = 0;
  std::int64_t m_step = 0;
  std::int64_t m_skipped = 0;
  int m_forwardOverflowRun = 0;         // consecutive steps whose forward pass overflowed (skipped)
  std::optional<ActivationNudge> m_nudge; // setActivationNudge()
  // The shadow pass, one per reference precision (F32, F64), built when first wanted.
  std::unique_ptr<ShadowPass> m_shadowPasses[2];
  std::optional<ShadowPrecision> m_shadowRequest; // requestShadow(): the next step's
  ShadowPass& shadowPass(ShadowPrecision precision);
  // The run's model built again under the fp32 recipe (the FP32 reference).
  std::unique_ptr<model::Network> fp32Copy() const;
  void applyNudge();
  const char* m_inputProblem = nullptr; // this step, with accumulation: first non-finite input
  std::optional<Divergence> m_divergence;
  StepReport m_report;
  std::vector<amp::ScalerEvent> m_events; // capacity reserved; copies of the scaler's events
  // Last: stopped before the tensors it reads go away.
  std::unique_ptr<BackgroundScans> m_background;
};

} // namespace mantissa::train
