// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// No step is lost between a fast trainer and a slow GUI: a full mailbox
// coalesces its rows (StepRow::absorb) instead of dropping them. Checked on
// hand-made rows against the inputs, and end to end on a tiny model whose
// 6000 steps all land in the ring before the GUI drains once, against the
// trainer's own summary and the scaler's chain of scale changes.

#include "ui/bridge/run_controller.h"
#include "ui/bridge/run_data.h"
#include "ui/bridge/run_record.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

namespace mantissa::ui {
namespace {

using amp::ScalerEventKind;

// Step s: a loss with a spike at 7 and a dip at 12, skipped steps 3, 4, 8 (an
// overflow, a backoff and a skip each), a frame every other step.
constexpr int kSteps = 20;
double lossAt(int s) { return s == 7 ? 9.0 : s == 12 ? 0.01 : 1.0 + 0.1 * (s % 3); }
bool skippedAt(int s) { return s == 3 || s == 4 || s == 8; }

StepRow rowAt(int s) {
  StepRow row;
  row.step = s;
  row.loss = lossAt(s);
  row.accuracy = 0.5;
  row.lr = 0.1;
  row.lossScale = 1024.0;
  row.stepMs = 1.0 + s;
  row.gradNorm = 2.0;
  row.skipped = skippedAt(s);
  row.foundInf = row.skipped;
  row.scaler = {1024.0, s, 0};
  if (row.skipped) {
    row.events = {amp::ScalerEvent{s, ScalerEventKind::Overflow, 2048.0, 2048.0},
                  amp::ScalerEvent{s, ScalerEventKind::Backoff, 2048.0, 1024.0},
                  amp::ScalerEvent{s, ScalerEventKind::SkippedStep, 1024.0, 1024.0}};
    row.eventCount = 3;
  }
  if (s % 2 == 0) {
    auto frame = std::make_shared<telemetry::TelemetryFrame>();
    frame->step = s;
    row.frame = frame;
  }
  return row;
}

TEST(DashboardMailbox, AbsorbKeepsExtremesLastValuesSkippedStepsAndEveryEvent) {
  StepRow row = rowAt(0);
  for (int s = 1; s < kSteps; ++s)
    ASSERT_TRUE(row.absorb(rowAt(s)));
  ASSERT_NE(row.span, nullptr);
  const StepSpan& span = *row.span;
  EXPECT_EQ(span.firstStep, 0);
  EXPECT_EQ(span.steps, kSteps);
  EXPECT_EQ(row.step, kSteps - 1);
  EXPECT_EQ(row.loss, lossAt(kSteps - 1)); // the last step's own values
  EXPECT_EQ(span.high[0], 9.0);
  EXPECT_EQ(span.highStep, 7);
  EXPECT_EQ(span.low[0], 0.01);
  EXPECT_EQ(span.lowStep, 12);
  EXPECT_EQ(span.low[4], 1.0); // step ms: 1 + s
  EXPECT_EQ(span.high[4], double(kSteps));
  using Range = std::pair<std::int64_t, std::int64_t>;
  EXPECT_EQ(span.skipped, (std::vector<Range>{{3, 4}, {8, 8}}));
  ASSERT_EQ(span.events.size(), 9u);
  EXPECT_EQ(span.events[3].step, 4);
  EXPECT_EQ(span.events[8].kind, ScalerEventKind::SkippedStep);
  ASSERT_EQ(span.frames.size(), std::size_t(kSteps / 2)); // below StepSpan::kMaxFrames
  EXPECT_EQ(span.frames.back()->step, 18);
}

TEST(DashboardMailbox, EvalRowsAndOutOfOrderRowsDoNotMerge) {
  StepRow step = rowAt(5);
  StepRow eval;
  eval.kind = StepRow::Kind::Eval;
  eval.step = 6;
  EXPECT_FALSE(step.absorb(std::move(eval)));
  EXPECT_EQ(eval.step, 6); // untouched
  EXPECT_FALSE(step.absorb(rowAt(5)));
  EXPECT_EQ(step.span, nullptr);
}

TEST(DashboardMailbox, AFullRingCoalescesAndTheRecordGetsEveryStep) {
  RunMailbox box(8);
  constexpr int kMany = 1000;
  std::vector<double> losses;
  int skipped = 0;
  for (int s = 0; s < kMany; ++s) {
    StepRow row = rowAt(s % kSteps);
    row.step = s;
    row.scaler.growthTracker = s;
    for (int e = 0; e < row.eventCount; ++e)
      row.events[std::size_t(e)].step = s;
    if (row.frame) {
      auto frame = std::make_shared<telemetry::TelemetryFrame>();
      frame->step = s;
      row.frame = frame;
    }
    losses.push_back(row.loss);
    skipped += row.skipped ? 1 : 0;
    box.push(std::move(row));
  }
  RunMailbox::Drained drained = box.drain();
  EXPECT_EQ(drained.droppedRows, 0u);
  EXPECT_LE(drained.rows.size(), 8u);
  EXPECT_EQ(drained.coalescedRows, kMany - drained.rows.size());
  RunRecord record;
  record.apply(std::move(drained));
  EXPECT_EQ(record.stepsReceived(), kMany);
  EXPECT_EQ(record.lastStep(), kMany - 1);
  EXPECT_EQ(record.skippedTotal(), skipped);
  EXPECT_EQ(record.eventsTotal(), 3u * std::uint64_t(skipped));
  EXPECT_EQ(record.scalerEvents().size(), 3u * std::size_t(skipped));
  // Every skipped step is marked, at its own step.
  for (double step : record.skippedSteps())
    EXPECT_TRUE(skippedAt(int(step) % kSteps)) << step;
  // The curve keeps the run's extremes.
  const auto series = record.history().series(RunRecord::Loss);
  const auto [lo, hi] = std::minmax_element(series.begin(), series.end(),
                                            [](const auto& a, const auto& b) { return a.y < b.y; });
  EXPECT_EQ(lo->y, *std::min_element(losses.begin(), losses.end()));
  EXPECT_EQ(hi->y, *std::max_element(losses.begin(), losses.end()));
  EXPECT_EQ(std::fmod(hi->x, kSteps), 7.0); // where a spike was
  EXPECT_FALSE(record.frames().empty());
  EXPECT_EQ(record.frames().back()->step, kMany - 2);
}

// A tiny FP16 run whose scale starts far too high and grows after every
// finite step: overflows, backoffs, skipped steps and growths all the time.
train::RunConfig oscillating(std::int64_t steps) {
  train::RunConfig c;
  c.data = "spirals";
  c.model = "mlp:2-8-2:tanh";
  c.recipe = "fp16-mixed";
  c.scaler = "pytorch";
  c.scalerInitScale = std::ldexp(1.0, 40);
  c.scalerGrowthInterval = 1;
  c.batch = 8;
  c.steps = steps;
  c.telemetryEvery = 50;
  c.evalEvery = 1000000;
  return c;
}

TEST(DashboardMailbox, ATrainerFasterThanTheGuiLosesNoStepNoSkipNoEvent) {
  constexpr std::int64_t kRunSteps = 6000; // > the 4096-row ring
  RunController c;
  ASSERT_EQ(c.setRuns({oscillating(kRunSteps)}), QString());
  c.start();
  // No event loop: nothing drains until the trainer is done.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  while (c.trainerState(0) != train::TrainerState::Finished &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(c.trainerState(0), train::TrainerState::Finished);
  // Finished is stored before the summary is published: join the trainer
  // (then drain) so the summary is in, however the threads were scheduled.
  c.shutdown();
  const RunRecord& r = c.record(0);
  ASSERT_TRUE(r.snapshot() && r.snapshot()->summary);
  const train::RunSummary& summary = *r.snapshot()->summary;
  ASSERT_EQ(summary.steps, kRunSteps);
  EXPECT_GT(r.coalescedRows(), 0u); // the ring did fill: the test exercised coalescing
  EXPECT_EQ(r.droppedRows(), 0u);
  EXPECT_EQ(r.stepsReceived(), summary.steps);
  EXPECT_EQ(r.lastStep(), summary.steps - 1);
  ASSERT_GT(summary.skippedSteps, 100);
  EXPECT_EQ(r.skippedTotal(), summary.skippedSteps);
  // Every event arrived: one SkippedStep event per skipped step (the trainer's
  // count), and the scale changes form an unbroken chain from the initial
  // scale to the last one (a lost growth or backoff would break it).
  ASSERT_EQ(r.eventsTotal(), r.scalerEvents().size()); // below RunRecord::kMaxEvents: none thinned
  std::int64_t skipEvents = 0;
  double scale = std::ldexp(1.0, 40);
  int changes = 0;
  for (const amp::ScalerEvent& e : r.scalerEvents()) {
    skipEvents += e.kind == ScalerEventKind::SkippedStep ? 1 : 0;
    if (e.kind == ScalerEventKind::Growth || e.kind == ScalerEventKind::Backoff) {
      ASSERT_EQ(e.scaleBefore, scale) << "event at step " << e.step;
      scale = e.scaleAfter;
      ++changes;
    }
  }
  EXPECT_EQ(skipEvents, summary.skippedSteps);
  EXPECT_GT(changes, 200);
  ASSERT_FALSE(r.scaleRecords().empty());
  EXPECT_EQ(r.scaleRecords().back().state.scale, scale);
  EXPECT_EQ(r.scaleRecords().back().step, kRunSteps - 1);
}

} // namespace
} // namespace mantissa::ui
