// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// GUI faults: a run stopped and restarted 50 times, pause hammered while
// training, the window closed in the middle of a step, and a loss scaler that
// gives up. Each ends in a usable state (Ready / Finished, records from step 0
// again) with no thread left behind: the process's thread count
// (/proc/self/status, less Qt's global pool) returns to what it was after the
// first cycle (oneDNN's pool exists by then); a stop is shown like a
// divergence.
//
// Counts are read once they settle: oneDNN runs on OpenMP, and libgomp tears a
// trainer thread's team down after that thread has been joined, so for a few
// milliseconds after a join its workers are still exiting. A leaked thread
// never exits, so waiting for the count cannot hide one.

#include "drain_wait.h"
#include "settled_value.h"
#include "ui/app_shell/main_window.h"
#include "ui/bridge/run_controller.h"
#include "ui/panels/train_panel.h"

#include <QElapsedTimer>
#include <QTest>
#include <QThreadPool>

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>

namespace mantissa::ui {
namespace {

train::RunConfig tiny(const std::string& recipe) {
  train::RunConfig c;
  c.data = "spirals";
  c.model = "mlp:2-16-2:tanh";
  c.recipe = recipe;
  c.batch = 32;
  c.steps = 100000000;
  c.telemetryEvery = 5;
  c.evalEvery = 1000000;
  return c;
}

template <class Pred> bool waitFor(RunController& c, Pred pred, int ms = 30000) {
  return waitDrained(c, pred, ms);
}

// Threads of this process, less Qt's global pool: Qt's image and chart
// painting borrow pool threads ("Thread (pooled)"), which live on for 30 s
// after their last task, one or two depending on timing. The pool is emptied
// (its idle threads joined) before each count; a trainer thread is not in it.
int threadCount() {
  QThreadPool::globalInstance()->waitForDone();
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("Threads:", 0) == 0)
      return std::stoi(line.substr(8));
  return -1;
}

// The thread count once it has held still for 300 ms (at most 10 s).
int settledThreadCount() { return settledValue(threadCount, 300); }

// The thread count once it is at most `bound`, or after 10 s.
int threadCountFallingTo(int bound) {
  (void)QTest::qWaitFor([&] { return threadCount() <= bound; }, 10000);
  return threadCount();
}

} // namespace

TEST(FaultsGui, StoppedAndRestarted50TimesLeavesNoThreadsAndStillTrains) {
  RunController c;
  ASSERT_EQ(c.setRuns({tiny("fp32"), tiny("bf16-mixed")}), QString());
  int baseline = -1;
  for (int i = 0; i < 50; ++i) {
    c.start();
    ASSERT_TRUE(waitFor(c, [&] { return c.record(0).lastStep() >= 1 && c.record(1).lastStep() >= 1; }))
        << "cycle " << i;
    c.stop();
    ASSERT_TRUE(waitFor(c, [&] { return c.state() == RunController::State::Finished; })) << "cycle " << i;
    c.reset();
    ASSERT_EQ(c.state(), RunController::State::Ready) << "cycle " << i;
    if (i == 0)
      baseline = settledThreadCount();
  }
  EXPECT_LE(threadCountFallingTo(baseline), baseline);
  // Still trains from scratch after all that.
  c.start();
  ASSERT_TRUE(waitFor(c, [&] { return c.record(1).lastStep() >= 5; }));
  EXPECT_EQ(c.state(), RunController::State::Running);
  c.shutdown();
}

TEST(FaultsGui, HammeringPauseWhileTrainingEndsPausedOrRunningNeverStuck) {
  RunController c;
  ASSERT_EQ(c.setRuns({tiny("fp16-mixed")}), QString());
  c.start();
  ASSERT_TRUE(waitFor(c, [&] { return c.record(0).lastStep() >= 1; }));
  for (int i = 0; i < 201; ++i) { // odd: ends paused
    c.togglePause();
    if (i % 20 == 0)
      QTest::qWait(5);
  }
  ASSERT_TRUE(waitFor(c, [&] { return c.trainerState(0) == train::TrainerState::Paused; }));
  c.resume();
  const std::int64_t before = c.record(0).lastStep();
  ASSERT_TRUE(waitFor(c, [&] { return c.record(0).lastStep() > before + 3; }));
  c.stop();
  ASSERT_TRUE(waitFor(c, [&] { return c.state() == RunController::State::Finished; }));
}

TEST(FaultsGui, ClosingTheWindowMidStepJoinsEveryTrainer) {
  int baseline = -1;
  for (int round = 0; round < 3; ++round) {
    auto window = std::make_unique<MainWindow>();
    window->show();
    auto* panel = window->findChild<TrainPanel*>();
    ASSERT_NE(panel, nullptr);
    RunController& c = *panel->controller();
    ASSERT_EQ(c.setRuns({tiny("fp32"), tiny("fp16-mixed"), tiny("bf16-mixed")}), QString());
    c.start();
    ASSERT_TRUE(waitFor(c, [&] { return c.record(2).lastStep() >= 2; }));
    window->close();
    window.reset(); // mid-step: the trainers are running right now
    if (round == 0)
      baseline = settledThreadCount();
  }
  EXPECT_LE(threadCountFallingTo(baseline), baseline);
}

// DeepSpeed's scaler ends the run when an overflow finds the scale at its
// minimum (deepspeed/runtime/fp16/loss_scaler.py). With every step overflowing
// (loss x 1e30): step 0 spends the hysteresis, steps 1-16 halve 2^16 down to 1,
// step 17 stops. The dashboard shows it through the divergence path.
TEST(FaultsGui, ScalerStopShowsInTheStatusAndTheBanner) {
  TrainPanel panel;
  RunController& c = *panel.controller();
  train::RunConfig ds = tiny("fp16-mixed");
  ds.scaler = "deepspeed";
  ds.lossMultiplier = 1e30;
  ds.steps = 1000;
  ASSERT_EQ(c.setRuns({ds}), QString());
  c.start();
  ASSERT_TRUE(waitFor(c, [&] {
    return c.state() == RunController::State::Finished && c.record(0).divergence().has_value();
  }));
  panel.refresh();
  const train::Divergence& d = *c.record(0).divergence();
  EXPECT_EQ(d.step, 17);
  EXPECT_EQ(d.reason, "loss scale at its minimum");
  EXPECT_EQ(c.record(0).lastStep(), 17);
  const QString banner = panel.divergenceText();
  EXPECT_TRUE(banner.contains(QStringLiteral("diverged"))) << banner.toStdString();
  EXPECT_TRUE(banner.contains(QStringLiteral("at step 17"))) << banner.toStdString();
  EXPECT_TRUE(banner.contains(QStringLiteral("loss scale at its minimum"))) << banner.toStdString();
  EXPECT_TRUE(panel.statusText().contains(QStringLiteral("diverged"))) << panel.statusText().toStdString();
}

} // namespace mantissa::ui
