// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// What crosses from a training thread to the GUI thread, per run: plain rows
// (one per step or evaluation) and an immutable snapshot (the run's state as
// of its last publication). No Qt types, no pointers into the session.

#include <mantissa/amp/loss_scaler.h>
#include <mantissa/model/op_times.h>
#include <mantissa/telemetry/frame.h>
#include <mantissa/telemetry/mailbox.h>
#include <mantissa/tensor/dtype.h>
#include <mantissa/train/shadow.h>
#include <mantissa/train/step_report.h>
#include <mantissa/train/trainer.h>
#include <mantissa/train/weight_watch.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace mantissa::ui {

// One weight followed step by step (core: train/weight_watch.h).
using WatchSample = train::WatchSample;

// The scalar columns a step row carries, in RunRecord::Column order.
inline constexpr std::size_t kStepColumns = 6; // loss, accuracy %, lr, loss scale, step ms, grad norm
using StepValues = std::array<double, kStepColumns>;

// What a row that covers several consecutive steps keeps besides the last
// step's values (which stay in StepRow's own fields). Built by
// StepRow::absorb() when a full mailbox merges neighbouring rows: the scalars
// keep their extremes, skipped steps and scaler events are all kept, telemetry
// frames are thinned to at most kMaxFrames (every other one goes); shadow
// frames likewise.
struct StepSpan {
  static constexpr std::size_t kMaxFrames = 16;
  std::int64_t firstStep = 0;
  std::int64_t steps = 1;        // steps covered: last step - firstStep + 1
  std::int64_t lowStep = 0;      // step of the lowest loss (NaN losses ignored)
  std::int64_t highStep = 0;     // step of the highest loss
  StepValues low{};              // per column minimum over the covered steps
  StepValues high{};             // per column maximum
  amp::ScalerState firstScaler{1.0, 0, 0}; // after the first covered step
  std::vector<std::pair<std::int64_t, std::int64_t>> skipped; // [first, last] runs of skipped steps
  std::vector<amp::ScalerEvent> events;                       // every event, steps increasing
  std::vector<std::shared_ptr<const telemetry::TelemetryFrame>> frames; // steps increasing
  std::vector<std::shared_ptr<const train::ShadowFrame>> shadow;        // steps increasing
};

struct StepRow {
  enum class Kind : std::uint8_t { Step, Eval };
  Kind kind = Kind::Step;
  std::int64_t step = 0; // Step: 0-based step index; Eval: steps done
  double loss = 0.0;
  double accuracy = 0.0;
  double lr = 0.0;
  double lossScale = 1.0;
  double gradNorm = 0.0;
  double stepMs = 0.0;
  bool foundInf = false;
  bool skipped = false;
  amp::ScalerState scaler{1.0, 0, 0};
  std::array<amp::ScalerEvent, 3> events{}; // this step's scaler events
  int eventCount = 0;
  model::OpTimes times;
  std::shared_ptr<const telemetry::TelemetryFrame> frame; // telemetry steps only
  std::shared_ptr<const train::ShadowFrame> shadow;        // shadow steps only (train/shadow.h)
  std::optional<WatchSample> watch;
  std::optional<train::Divergence> divergence; // the first one covered
  std::unique_ptr<StepSpan> span; // set when this row covers several steps (then `frame`,
                                  // `shadow`, `events` and `skipped` are in the span, not above)

  // The scalar columns of the last step covered.
  StepValues values() const {
    return {loss, 100.0 * accuracy, lr, lossScale, stepMs, gradNorm};
  }
  std::int64_t firstStep() const { return span ? span->firstStep : step; }
  std::int64_t stepsCovered() const { return span ? span->steps : 1; }
  // Mailbox coalescing (telemetry::CoalescingRow): folds `next`, the step row
  // right after this one, into this row. Eval rows never merge (false).
  bool absorb(StepRow&& next);

private:
  StepSpan& toSpan(); // moves this row's frame, events and skipped flag into a span
};

struct RunSnapshot {
  std::int64_t stepsDone = 0;
  std::int64_t totalSteps = 0;
  double elapsedSeconds = 0.0;   // since the first step of this run
  double stepsPerSecond = 0.0;   // over the last publication interval (paced, if a pace is set)
  double fullSpeedStepsPerSecond = 0.0; // the same steps timed without the pacing wait
  double pace = 0.0;             // the trainer's cap in steps per second, 0 = none
  model::OpTimes meanTimes;      // mean per step over the last publication interval
                                 // (once finished: over the whole run)
  bool timesRecorded = true;     // false: a loaded log without per-op times (a PyTorch tap's)
  bool finished = false;
  std::optional<train::RunSummary> summary; // once finished
};

using RunMailbox = telemetry::Mailbox<RunSnapshot, StepRow>;

} // namespace mantissa::ui
