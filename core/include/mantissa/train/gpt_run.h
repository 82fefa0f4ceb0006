// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Training a character-level GPT, one step at a time, on the caller's thread:
// a train::Session on the text (see session.h), with a GPT's configuration,
// step report and divergence messages.
//
// One step (Session::step): next batch of B random windows; forward (policy
// precisions); backward of lossScale x mean loss; unscale + inf/NaN check;
// scaler update (skip on overflow); without a scaler, non-finite gradients
// or loss end the run; clip by global norm; AdamW with weight decay on the
// matrices and embeddings only (nanoGPT's two parameter groups); working
// casts. Evaluation: mean loss over fixed batches of each split (drawn once
// from the seed), so train_loss and val_loss are comparable from run to run.

#include <mantissa/amp/loss_scaler.h>
#include <mantissa/amp/lr_schedule.h>
#include <mantissa/amp/optimizer.h>
#include <mantissa/amp/policy.h>
#include <mantissa/amp/recipe.h>
#include <mantissa/data/text.h>
#include <mantissa/model/gpt.h>
#include <mantissa/train/run_config.h>
#include <mantissa/train/session.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mantissa::model {
class GptNetwork;
}

namespace mantissa::train {

struct GptRunConfig {
  std::string data = "shakespeare"; // built-in text or a UTF-8 .txt path
  std::string model = "gpt:layers=4,heads=4,embd=128,ctx=64";
  std::string recipe = "fp32"; // a recipe: its policy, master weights and scaler
  std::string policy;          // "" = the recipe's policy; else parsePolicy spec
  int batch = 12;
  std::int64_t steps = 2000;
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.99;
  double weightDecay = 0.1; // matrices and embeddings only
  std::int64_t warmupSteps = 100;
  double lrFloor = 1e-4; // cosine end value
  double clipNorm = 1.0; // 0 = off
  std::uint64_t seed = 1;
  int evalBatches = 20;         // fixed batches per split for train_loss / val_loss
  std::int64_t evalEvery = 250; // 0 = only at the end
  int telemetryEvery = 0;       // K: a telemetry frame every K steps; 0 = off

  // Every problem, one message each; empty when valid.
  std::vector<std::string> problems() const;
  // The same run as a Session's configuration (AdamW, warm-up + cosine).
  RunConfig toRunConfig() const;
};

// nanoGPT's shakespeare_char on the CPU: 4 layers, 4 heads, embd 128, ctx 64,
// batch 12, AdamW lr 1e-3 beta2 0.99 wd 0.1, warm-up 100 then cosine to 1e-4,
// clip 1.0, 2000 steps.
GptRunConfig shakespeareCharPreset();

// The policy a recipe runs a GPT with: its matmul, activation, loss,
// gradient and optimizer-state precisions, its matmul scaling; master weights FP32 when the recipe
// keeps a master copy, else its weight dtype; its loss scaling.
amp::Policy policyForRecipe(const amp::Recipe& recipe);

struct GptStep {
  std::int64_t step = 0;
  double loss = 0.0;
  double lr = 0.0;
  double gradNorm = 0.0;
  double lossScale = 1.0;
  bool foundInf = false; // non-finite gradients (skipped with a scaler)
  bool skipped = false;
  double stepMs = 0.0;
  model::GptTimes times;        // per op, forward + backward of this step
  double matmulForwardMs = 0.0; // the forward's share of times.matmulMs
  double dataMs = 0.0;          // drawing the batch
  double optimizerMs = 0.0;     // unscale + check, clipping, AdamW, working casts
  double telemetryMs = 0.0;     // this step's telemetry frame
  // Every telemetryEvery steps: the exponent histograms and cast fractions of
  // each parameter's weights (as used by this step) and gradients (scaled and
  // unscaled views when loss scaling is on), and of the model's observed
  // activations (Gpt::observedActivations). Layer indices of the frame are
  // those of GptRun::telemetryLayers(). Null on other steps.
  std::shared_ptr<const telemetry::TelemetryFrame> telemetry;
  // FP8 / microscaling policies: every scaled tensor's statistics this step
  // (Gpt::scalingStats); null otherwise.
  std::shared_ptr<const telemetry::ScalingFrame> scaling;
};

// The GPT's view of a Session step (its per-op times, read from the network
// right after the step).
GptStep gptStepOf(const StepReport& step, const model::GptNetwork& network);

struct GptEval {
  std::int64_t step = 0;
  double trainLoss = 0.0;
  double valLoss = 0.0;
};

class GptRun {
public:
  // Throws ConfigError (train/run_config.h) on a bad config and
  // data::DataError when the text cannot be used.
  explicit GptRun(GptRunConfig config);
  ~GptRun();

  // One optimizer step. Precondition: !finished().
  const GptStep& step();
  // Mean loss over the fixed evaluation batches of each split.
  GptEval evaluate();
  // n characters generated from the current weights, starting after a
  // newline (or the first vocabulary entry), sampling softmax(logits / t).
  std::string sample(int n, double temperature, std::uint64_t seed);

  bool finished() const { return m_session->finished(); }
  std::int64_t stepsDone() const { return m_session->stepsDone(); }
  std::int64_t skippedSteps() const { return m_session->skippedSteps(); }
  const std::optional<std::string>& divergence() const { return m_divergence; }
  const GptRunConfig& config() const { return m_config; }
  // The names of the telemetry frames' layers: the parameters ("wte",
  // "h0.qkv.w", ...) in model order, then the observed activations
  // ("embedding output", "h0.ln1 input", "h0.attention probs", ...).
  const std::vector<std::string>& telemetryLayers() const;
  const amp::Policy& policy() const { return model().policy(); }
  const data::TextCorpus& corpus() const { return m_session->text(); }
  model::Gpt& model();
  const model::Gpt& model() const;
  Session& session() { return *m_session; }
  const Session& session() const { return *m_session; }

private:
  GptRunConfig m_config;
  std::unique_ptr<Session> m_session;
  std::optional<std::string> m_divergence;
  GptStep m_report;
};

} // namespace mantissa::train
