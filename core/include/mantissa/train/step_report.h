// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// What a training step, an evaluation and a finished run report. Plain data:
// the trainer hands these to a callback on its own thread; consumers copy
// what they keep (spans point into the session and are valid until the next
// step).

#include <mantissa/amp/loss_scaler.h>
#include <mantissa/amp/optimizer.h>
#include <mantissa/model/mlp.h>
#include <mantissa/model/op_times.h>
#include <mantissa/telemetry/frame.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace mantissa::train {

struct ShadowFrame; // train/shadow.h

// The run stopped because a value became inf or NaN where it must not, or
// because the loss scaler gave up (DeepSpeed: an overflow at its minimum scale).
struct Divergence {
  std::int64_t step = 0;
  int layer = 0;
  bool backward = false; // false: forward pass
  std::string op;        // "input", "linear", "relu", "softmax-xent", "linear dW", ...
  std::string reason;    // "non-finite loss", "non-finite gradient", "input contains NaN",
                         // "input contains inf", "loss scale at its minimum"
  std::string message;   // one sentence for people, naming the step and the reason
};

struct StepReport {
  std::int64_t step = 0; // 0-based index of this optimizer step
  std::int64_t totalSteps = 0;
  std::int64_t epoch = 0;  // epoch of the last micro-batch
  double loss = 0.0;       // mean training cross-entropy (unscaled) over the micro-batches
  double accuracy = 0.0;   // fraction of this step's samples classified correctly
  double lr = 0.0;         // learning rate used
  double lossScale = 1.0;  // scale the loss was multiplied by
  bool foundInf = false;   // scaled gradients had inf/NaN
  bool skipped = false;    // the optimizer step was not applied
  double gradNorm = 0.0;   // global norm after unscaling, before clipping (NaN if foundInf)
  double clipFactor = 1.0; // < 1 when the gradients were clipped
  double stepMs = 0.0;     // wall time of the whole step
  model::OpTimes times;    // its breakdown by op kind
  amp::ScalerState scaler{1.0, 0, 0};
  std::span<const amp::ScalerEvent> scalerEvents;  // events of this step
  amp::UpdateStats updates;                        // summed over parameter tensors
  std::span<const model::GradUnderflow> underflow; // [layers], at telemetry steps only (else empty)
  std::shared_ptr<const telemetry::TelemetryFrame> telemetry; // at telemetry steps only
  // FP8 / microscaling recipes: every scaled tensor this step (Network::scalingStats)
  std::shared_ptr<const telemetry::ScalingFrame> scaling;
  // Shadow steps only: every tensor's error against the reference (train/shadow.h)
  std::shared_ptr<const ShadowFrame> shadow;
  std::optional<model::NonFiniteSite> firstNonFinite; // where a skipped step's inf/NaN began
  std::optional<Divergence> divergence;
};

struct EvalReport {
  std::int64_t step = 0; // optimizer steps done when evaluated
  double loss = 0.0;     // mean test cross-entropy (GPT: over the validation split's fixed batches)
  std::optional<double> trainLoss; // GPT: over the training split's fixed batches
  double accuracy = 0.0;           // fraction correct
  std::int64_t samples = 0;
};

struct RunSummary {
  std::string recipe;
  std::int64_t steps = 0; // optimizer steps completed
  std::int64_t skippedSteps = 0;
  double wallSeconds = 0.0;
  double testAccuracy = 0.0;
  double testLoss = 0.0;               // a GPT's: the final validation loss
  double finalTrainLoss = 0.0;         // the last step's loss
  std::optional<double> evalTrainLoss; // a GPT's: the final evaluation's training-split loss
  bool stoppedEarly = false;           // stop() before the planned steps
  std::optional<Divergence> divergence;
};

} // namespace mantissa::train
