// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// RunController: start / pause / step / stop drive real trainers on a tiny
// model; rows reach the GUI thread through the mailbox; the watched weight's
// bits and swamping marks; divergence stays inspectable; destruction mid-run
// joins the training threads; Save Checkpoint from the run's own thread. ThreadHandoff (the worker -> GUI thread call
// queue the controller's nudges go through) and the mean op times per step.

#include "drain_wait.h"
#include "ui/app_shell/palette.h"
#include "ui/bridge/run_controller.h"
#include "ui/bridge/thread_handoff.h"

#include <mantissa/train/checkpoint.h>
#include <mantissa/train/session.h>

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

namespace mantissa::ui {
namespace {

train::RunConfig tiny(const std::string& recipe, std::int64_t steps) {
  train::RunConfig c;
  c.data = "spirals";
  c.model = "mlp:2-16-2:tanh";
  c.recipe = recipe;
  c.batch = 32;
  c.steps = steps;
  c.lr = 0.05;
  c.telemetryEvery = 1;
  c.evalEvery = 1000000;
  return c;
}

// Waits (running the event loop, so the drain timer fires) until pred holds.
template <class Pred> bool waitFor(RunController& c, Pred pred, int ms = 20000) {
  return waitDrained(c, pred, ms);
}

TEST(DashboardController, StepWhilePausedRunsExactlyOneStepPerPress) {
  RunController c;
  ASSERT_EQ(c.setRuns({tiny("fp32", 1000)}), QString());
  EXPECT_EQ(c.state(), RunController::State::Ready);
  c.stepOnce();
  ASSERT_TRUE(waitFor(c, [&] { return c.record(0).lastStep() == 0; }));
  c.stepOnce();
  c.stepOnce();
  ASSERT_TRUE(waitFor(c, [&] { return c.record(0).lastStep() == 2; }));
  EXPECT_EQ(c.trainerState(0), train::TrainerState::Paused);
  EXPECT_EQ(c.state(), RunController::State::Paused);
  // Handshake instead of a sleep: stop and join the paused trainer. Whatever
  // it ran is then in (the summary counts it), and nothing more can arrive.
  c.stop();
  ASSERT_TRUE(waitFor(c, [&] {
    return c.state() == RunController::State::Finished && c.record(0).snapshot() &&
           c.record(0).snapshot()->summary.has_value();
  }));
  c.shutdown();
  c.drainNow();
  EXPECT_EQ(c.record(0).snapshot()->summary->steps, 3) << "single steps must not run on";
  EXPECT_EQ(c.record(0).history().rowsAppended(), 3);
}

// A pause lets the step in flight finish (at most one: the trainer checks the
// pause before each step), then nothing more arrives. No sleep guesses when
// that step lands: stopping the paused trainer and joining it is the
// handshake, after which its summary counts every step it ran.
TEST(DashboardController, PauseHoldsAtMostTheStepInFlight) {
  RunController c;
  ASSERT_EQ(c.setRuns({tiny("fp32", 1000000)}), QString());
  c.start();
  ASSERT_TRUE(waitFor(c, [&] { return c.record(0).lastStep() >= 5; }));
  c.pause();
  // Paused at once (pause() sets it); the wait's drain runs after the pause,
  // so every step finished before it is in.
  ASSERT_TRUE(waitFor(c, [&] { return c.trainerState(0) == train::TrainerState::Paused; }));
  const std::int64_t atPause = c.record(0).lastStep();
  c.stop();
  ASSERT_TRUE(waitFor(c, [&] {
    return c.state() == RunController::State::Finished && c.record(0).snapshot() &&
           c.record(0).snapshot()->summary.has_value();
  }));
  c.shutdown(); // joined: nothing more can arrive
  c.drainNow();
  const auto& summary = *c.record(0).snapshot()->summary;
  EXPECT_LE(summary.steps, atPause + 2) << "only the step in flight may finish";
  EXPECT_EQ(summary.steps, c.record(0).lastStep() + 1);
  EXPECT_TRUE(summary.stoppedEarly);
}

TEST(DashboardController, ResumeContinuesStopFinishesEarly) {
  RunController c;
  ASSERT_EQ(c.setRuns({tiny("fp32", 1000000)}), QString());
  c.start();
  ASSERT_TRUE(waitFor(c, [&] { return c.record(0).lastStep() >= 5; }));
  c.pause();
  ASSERT_TRUE(waitFor(c, [&] { return c.trainerState(0) == train::TrainerState::Paused; }));
  const std::int64_t held = c.record(0).lastStep();
  c.resume();
  ASSERT_TRUE(waitFor(c, [&] { return c.record(0).lastStep() > held + 3; }));
  c.stop();
  ASSERT_TRUE(waitFor(c, [&] { return c.state() == RunController::State::Finished; }));
  ASSERT_TRUE(waitFor(c, [&] {
    return c.record(0).snapshot() && c.record(0).snapshot()->summary.has_value();
  }));
  const auto& summary = *c.record(0).snapshot()->summary;
  EXPECT_TRUE(summary.stoppedEarly);
  EXPECT_EQ(summary.steps, c.record(0).lastStep() + 1);
}

// Save Checkpoint on a paused run: its own thread writes the file between
// two steps; a Session resumed from it takes the same next steps as one
// that ran straight through (the run's arithmetic does not depend on the
// GUI). A loaded run, or a path that cannot be written, gets no file.
TEST(DashboardController, SaveCheckpointOfAPausedRunResumesExactly) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  train::RunConfig config = tiny("bf16-mixed", 12);
  config.optimizer = "adamw";
  config.lr = 3e-3;
  RunController c;
  ASSERT_EQ(c.setRuns({config}), QString());
  for (int i = 0; i < 4; ++i)
    c.stepOnce();
  ASSERT_TRUE(waitFor(c, [&] { return c.record(0).lastStep() == 3; }));
  const QString path = dir.filePath(QStringLiteral("paused.safetensors"));
  std::optional<QString> result;
  ASSERT_TRUE(c.saveCheckpoint(0, path, [&](const QString& error) { result = error; }));
  ASSERT_TRUE(waitFor(c, [&] { return result.has_value(); }));
  EXPECT_EQ(*result, QString());
  const train::CheckpointInfo info = train::readCheckpointInfo(path.toStdString());
  EXPECT_EQ(info.step, 4);

  train::Session straight(config), resumed(info.config);
  for (int i = 0; i < 4; ++i)
    straight.step();
  train::restoreCheckpoint(resumed, path.toStdString(), train::RestoreScope::Everything);
  for (int i = 4; i < 12; ++i)
    EXPECT_EQ(std::bit_cast<std::uint64_t>(resumed.step().loss),
              std::bit_cast<std::uint64_t>(straight.step().loss))
        << "step " << i + 1;

  std::optional<QString> failed;
  ASSERT_TRUE(c.saveCheckpoint(0, dir.filePath(QStringLiteral("absent/x.safetensors")),
                               [&](const QString& error) { failed = error; }));
  ASSERT_TRUE(waitFor(c, [&] { return failed.has_value(); }));
  EXPECT_NE(*failed, QString()) << "a folder that does not exist";
  EXPECT_FALSE(c.saveCheckpoint(7, path, [](const QString&) {})) << "no such run";
  c.shutdown();
}

TEST(DashboardController, RunsToTheEndWithTestEvaluationAndOneColourPerRun) {
  RunController c;
  ASSERT_EQ(c.setRuns({tiny("fp32", 40), tiny("bf16-mixed", 40), tiny("fp16-mixed", 40)}),
            QString());
  ASSERT_EQ(c.runCount(), 3);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(c.runColor(i), palette::seriesColor(i));
  EXPECT_NE(c.runColor(0), c.runColor(1));
  c.start();
  ASSERT_TRUE(waitFor(c, [&] { return c.state() == RunController::State::Finished; }));
  ASSERT_TRUE(waitFor(c, [&] {
    for (int i = 0; i < 3; ++i)
      if (!c.record(i).snapshot() || !c.record(i).snapshot()->summary)
        return false;
    return true;
  }));
  for (int i = 0; i < 3; ++i) {
    const RunRecord& r = c.record(i);
    EXPECT_EQ(r.lastStep(), 39);
    EXPECT_EQ(r.history().rowsAppended(), 40);
    EXPECT_EQ(r.frames().size(), 40u); // telemetry every step
    ASSERT_FALSE(r.testAccuracy().empty());
    EXPECT_EQ(r.testAccuracy().back().x, 40.0);
    EXPECT_EQ(r.droppedRows(), 0u);
  }
  // fp16-mixed scales its loss: its trace starts at PyTorch's 2^16.
  ASSERT_FALSE(c.record(2).scaleRecords().empty());
  EXPECT_EQ(c.record(2).scaleRecords().front().state.scale, 65536.0);
  EXPECT_EQ(c.record(0).scaleRecords().front().state.scale, 1.0);
}

TEST(DashboardController, BadSetupIsReportedNamingTheRunAndTheField) {
  RunController c;
  train::RunConfig bad = tiny("fp32", 10);
  bad.lr = -1;
  const QString problems = c.setRuns({bad});
  EXPECT_TRUE(problems.contains(QStringLiteral("fp32"))) << problems.toStdString();
  EXPECT_TRUE(problems.contains(QStringLiteral("lr"))) << problems.toStdString();
  EXPECT_EQ(c.runCount(), 0);
  EXPECT_EQ(c.state(), RunController::State::Empty);
  train::RunConfig missing = tiny("fp32", 10);
  missing.data = "/no/such/file.csv";
  EXPECT_TRUE(c.setRuns({missing}).contains(QStringLiteral("file.csv")));
}

// Round to nearest even into BF16, from the bit layout (independent of the code under test).
std::uint32_t referenceBf16(float v) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(v);
  return (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
}

TEST(DashboardController, WatchedWeightShowsMasterAndWorkingBits) {
  RunController c;
  ASSERT_EQ(c.setRuns({tiny("bf16-mixed", 1000), tiny("fp32", 1000)}), QString());
  c.setWatch(0, 1, 5); // layer 1 W is [16, 2]: index 5 = row 2, column 1
  c.setWatch(1, 0, 7);
  c.stepOnce();
  c.stepOnce();
  ASSERT_TRUE(waitFor(c, [&] { return c.record(0).lastStep() == 1 && c.record(1).lastStep() == 1; }));
  const WatchSample& bf = *c.record(0).watch();
  EXPECT_EQ(bf.layer, 1);
  EXPECT_EQ(bf.index, 5);
  EXPECT_TRUE(bf.hasMaster);
  EXPECT_EQ(bf.working, DType::BF16);
  EXPECT_EQ(bf.workingBits, referenceBf16(bf.master));
  const WatchSample& f = *c.record(1).watch();
  EXPECT_EQ(f.working, DType::F32);
  EXPECT_EQ(f.workingBits, std::bit_cast<std::uint32_t>(f.master));
  EXPECT_FALSE(f.swamped);
  EXPECT_NE(f.gradient, 0.0f);
}

TEST(DashboardController, SwampedUpdatesAreMarkedInPureBf16) {
  // Plain SGD with a tiny learning rate: lr x g is far below half a BF16 ULP
  // of any weight, so pure BF16 keeps every weight as it was.
  train::RunConfig pure = tiny("bf16-pure", 1000);
  pure.lr = 1e-7;
  pure.momentum = 0.0;
  train::RunConfig mixed = pure;
  mixed.recipe = "fp32";
  mixed.lr = 0.5;
  RunController c;
  ASSERT_EQ(c.setRuns({pure, mixed}), QString());
  c.setWatch(0, 0, 3);
  c.setWatch(1, 0, 3);
  for (int i = 0; i < 4; ++i)
    c.stepOnce();
  ASSERT_TRUE(waitFor(c, [&] { return c.record(0).lastStep() == 3 && c.record(1).lastStep() == 3; }));
  const WatchSample& s = *c.record(0).watch();
  EXPECT_FALSE(s.hasMaster);
  ASSERT_NE(s.gradient, 0.0f);
  EXPECT_TRUE(s.swamped);
  EXPECT_EQ(s.swampedSoFar, 3); // steps 1..3 compared with the step before
  EXPECT_EQ(c.record(1).watch()->swampedSoFar, 0);
}

TEST(DashboardController, ClickedBinadePicksAWeightInThatBinade) {
  RunController c;
  ASSERT_EQ(c.setRuns({tiny("fp32", 1000)}), QString());
  c.stepOnce();
  ASSERT_TRUE(waitFor(c, [&] { return c.record(0).lastStep() == 0; }));
  const auto* frame = c.record(0).frames().back().get();
  const auto* weights = frame->find(0, telemetry::TensorClass::Weights);
  ASSERT_NE(weights, nullptr);
  const int exponent = *weights->hist.highestExponent(); // many weights there: stable for a step
  c.watchInBinade(0, 0, telemetry::TensorClass::Weights, exponent);
  c.stepOnce(); // the search and the sample run on the training thread after this step
  ASSERT_TRUE(waitFor(c, [&] { return c.record(0).lastStep() == 1; }));
  const WatchSample& s = *c.record(0).watch();
  EXPECT_EQ(s.layer, 0);
  ASSERT_NE(s.master, 0.0f);
  // 2^e <= |w| < 2^(e+1), checked with frexp (|w| = m 2^k, 0.5 <= m < 1, so e = k - 1).
  int k = 0;
  std::frexp(s.master, &k);
  EXPECT_EQ(k - 1, exponent);
}

TEST(DashboardController, DivergenceShowsStepLayerOpAndKeepsTheRecord) {
  train::RunConfig c1 = tiny("fp32", 1000);
  c1.model = "mlp:2-16-16-2:relu"; // unbounded activations: products of huge weights overflow
  c1.lr = 1e30;                    // weights explode after the first update
  c1.momentum = 0.0;
  RunController c;
  ASSERT_EQ(c.setRuns({c1}), QString());
  c.start();
  ASSERT_TRUE(waitFor(c, [&] { return c.state() == RunController::State::Finished; }));
  ASSERT_TRUE(waitFor(c, [&] { return c.record(0).divergence().has_value(); }));
  const auto& d = *c.record(0).divergence();
  EXPECT_FALSE(d.op.empty());
  EXPECT_GE(d.layer, 0);
  EXPECT_LT(d.step, 1000);
  EXPECT_EQ(c.record(0).lastStep(), d.step);
  EXPECT_GT(c.record(0).history().rowsAppended(), 0); // still inspectable
}

TEST(DashboardController, DestroyingMidRunJoinsTheTrainers) {
  auto c = std::make_unique<RunController>();
  ASSERT_EQ(c->setRuns({tiny("fp32", 100000000), tiny("bf16-mixed", 100000000)}), QString());
  c->start();
  ASSERT_TRUE(waitFor(*c, [&] { return c->record(1).lastStep() >= 3; }));
  c->shutdown();
  EXPECT_EQ(c->trainerState(0), train::TrainerState::Finished);
  EXPECT_EQ(c->trainerState(1), train::TrainerState::Finished);
  c->reset(); // rebuilt, ready again
  EXPECT_EQ(c->state(), RunController::State::Ready);
  c->start();
  ASSERT_TRUE(waitFor(*c, [&] { return c->record(0).lastStep() >= 2; }));
  c.reset(); // destructor while running: stops and joins
  SUCCEED();
}

// Calls posted from a worker thread run on the handoff's (GUI) thread, in
// posting order, with what the worker wrote into their captures. Under
// ./dev tsan this is also the check that the handoff's annotation makes the
// worker's writes visible as ordered before the call (without it TSan
// reports the first call's event as racing, 3 runs out of 3).
TEST(ThreadHandoff, CallsFromAWorkerRunOnTheGuiThreadInOrderWithTheirData) {
  ThreadHandoff handoff;
  constexpr int kCalls = 200;
  std::vector<int> seen;         // GUI thread only
  bool allOnGuiThread = true;    // GUI thread only
  std::int64_t badPayloads = 0;  // GUI thread only
  const std::thread::id gui = std::this_thread::get_id();
  std::thread worker([&] {
    for (int i = 0; i < kCalls; ++i) {
      std::vector<int> payload(64, i); // written here, read on the GUI thread
      handoff.post([&, i, payload = std::move(payload)] {
        seen.push_back(i);
        allOnGuiThread = allOnGuiThread && std::this_thread::get_id() == gui;
        for (int v : payload)
          badPayloads += v != i;
      });
    }
  });
  // Delivered while the worker still posts (a join first would order its
  // writes before the calls by itself and hide a missing annotation).
  const bool all = QTest::qWaitFor([&] { return int(seen.size()) == kCalls; }, 10000);
  worker.join();
  ASSERT_TRUE(all);
  EXPECT_TRUE(allOnGuiThread);
  EXPECT_EQ(badPayloads, 0);
  for (int i = 0; i < kCalls; ++i)
    ASSERT_EQ(seen[std::size_t(i)], i) << "out of posting order";
}

// A call still queued when the handoff goes away never runs, and what it
// captured is released (the owner's object may be half destroyed by then).
TEST(ThreadHandoff, ACallQueuedWhenItIsDestroyedIsDroppedUnrun) {
  auto sentinel = std::make_shared<int>(7);
  bool ran = false;
  {
    ThreadHandoff handoff;
    std::thread worker([&, held = sentinel] { handoff.post([&ran, held] { ran = *held == 7; }); });
    worker.join();
    EXPECT_EQ(sentinel.use_count(), 2); // queued, holding its capture
  }
  QCoreApplication::processEvents();
  EXPECT_FALSE(ran);
  EXPECT_EQ(sentinel.use_count(), 1);
}

// The op table's figures: each group's total over the interval divided by
// its steps; nothing (not a division by zero) for an empty interval.
TEST(DashboardController, MeanOpTimesDivideEachGroupByTheSteps) {
  model::OpTimes total;
  total.matmulForward = 12.0;
  total.matmulBackward = 24.0;
  total.conversion = 3.0;
  total.elementwise = 6.0;
  total.loss = 1.5;
  total.optimizer = 9.0;
  total.telemetry = 0.75;
  total.data = 30.0;
  const model::OpTimes mean = meanOpTimes(total, 3);
  EXPECT_DOUBLE_EQ(mean.matmulForward, 4.0);
  EXPECT_DOUBLE_EQ(mean.matmulBackward, 8.0);
  EXPECT_DOUBLE_EQ(mean.conversion, 1.0);
  EXPECT_DOUBLE_EQ(mean.elementwise, 2.0);
  EXPECT_DOUBLE_EQ(mean.loss, 0.5);
  EXPECT_DOUBLE_EQ(mean.optimizer, 3.0);
  EXPECT_DOUBLE_EQ(mean.telemetry, 0.25);
  EXPECT_DOUBLE_EQ(mean.data, 10.0);
  EXPECT_DOUBLE_EQ(meanOpTimes(total, 0).total(), 0.0);
}

} // namespace
} // namespace mantissa::ui
