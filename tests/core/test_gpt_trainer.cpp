// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// train::GptTrainer: a GPT trained on its own thread under the pause /
// single-step / stop rules, its records forming a run log, and samples made
// by the run's own thread while paused and after the end (never racing a step).
#include <mantissa/train/gpt_trainer.h>
#include <mantissa/train/run_log.h>
#include <mantissa/train/run_log_gpt.h>

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace mantissa;

namespace {

train::GptRunConfig tinyConfig(std::int64_t steps) {
  train::GptRunConfig c;
  c.model = "gpt:layers=1,heads=2,embd=16,ctx=16";
  c.batch = 4;
  c.steps = steps;
  c.warmupSteps = 1;
  c.evalBatches = 2;
  c.evalEvery = 3;
  c.telemetryEvery = 2;
  return c;
}

// What the training thread handed over, with a wait for a condition on it.
struct Inbox {
  std::mutex m;
  std::condition_variable cv;
  std::vector<nlohmann::json> records;
  std::vector<std::string> samples;
  std::vector<std::int64_t> stepsAtSample;
  bool done = false;

  template <class Pred> bool waitFor(Pred pred) {
    std::unique_lock lock(m);
    return cv.wait_for(lock, std::chrono::seconds(60), [&] { return pred(); });
  }
  std::size_t stepRows() {
    std::size_t n = 0;
    for (const auto& r : records)
      n += r.contains("step") && !r.contains("eval") && !r.contains("summary");
    return n;
  }
};

} // namespace

TEST(GptTrainer, SingleStepsWhilePausedThenRunsToTheEndAndLogsARunLog) {
  Inbox inbox;
  train::GptTrainerCallbacks cb;
  cb.onRecord = [&](const nlohmann::json& j) {
    std::lock_guard lock(inbox.m);
    inbox.records.push_back(j);
    inbox.cv.notify_all();
  };
  cb.onDone = [&] {
    std::lock_guard lock(inbox.m);
    inbox.done = true;
    inbox.cv.notify_all();
  };
  train::GptTrainer trainer(tinyConfig(7), cb);
  const nlohmann::json header = train::gptLogHeader(trainer.run());
  trainer.start(true);
  EXPECT_EQ(trainer.state(), train::TrainerState::Paused);
  trainer.stepOnce();
  trainer.stepOnce();
  ASSERT_TRUE(inbox.waitFor([&] { return inbox.stepRows() == 2; }));
  EXPECT_EQ(trainer.stepsDone(), 2);
  EXPECT_EQ(trainer.state(), train::TrainerState::Paused);

  // A sample while paused: made by the run's thread, no step taken for it.
  trainer.sample(25, 0.8, 3, [&](std::string text) {
    std::lock_guard lock(inbox.m);
    inbox.samples.push_back(std::move(text));
    inbox.stepsAtSample.push_back(trainer.stepsDone());
    inbox.cv.notify_all();
  });
  ASSERT_TRUE(inbox.waitFor([&] { return inbox.samples.size() == 1; }));
  EXPECT_EQ(inbox.samples[0].size(), 25u);
  EXPECT_EQ(inbox.stepsAtSample[0], 2);
  {
    std::lock_guard lock(inbox.m);
    EXPECT_EQ(inbox.stepRows(), 2u);
  }

  trainer.resume();
  ASSERT_TRUE(inbox.waitFor([&] { return inbox.done; }));
  EXPECT_EQ(trainer.state(), train::TrainerState::Finished);
  EXPECT_EQ(trainer.stepsDone(), 7);

  // After the end the thread still serves samples, of the final weights.
  trainer.sample(10, 1.0, 3, [&](std::string text) {
    std::lock_guard lock(inbox.m);
    inbox.samples.push_back(std::move(text));
    inbox.cv.notify_all();
  });
  ASSERT_TRUE(inbox.waitFor([&] { return inbox.samples.size() == 2; }));
  EXPECT_EQ(inbox.samples[1].size(), 10u);
  trainer.stop();
  trainer.wait();

  train::RunLogBuilder builder;
  builder.add(header);
  for (const auto& r : inbox.records)
    builder.add(r);
  const train::RunLog& log = builder.log();
  EXPECT_EQ(log.steps.size(), 7u);
  ASSERT_EQ(log.frames.size(), 4u); // steps 0, 2, 4, 6
  ASSERT_EQ(log.evals.size(), 3u);  // after 3 and 6 steps, and the final one
  EXPECT_EQ(log.evals.back().step, 7);
  ASSERT_TRUE(log.summary.is_object());
  EXPECT_FALSE(log.summary["stopped_early"].get<bool>());
  EXPECT_EQ(log.summary["val_loss"].get<double>(), log.evals.back().testLoss);
}

TEST(GptTrainer, StopEndsARunEarlyWithItsSummary) {
  Inbox inbox;
  train::GptTrainerCallbacks cb;
  cb.onRecord = [&](const nlohmann::json& j) {
    std::lock_guard lock(inbox.m);
    inbox.records.push_back(j);
    inbox.cv.notify_all();
  };
  train::GptTrainer trainer(tinyConfig(100000), cb);
  trainer.start(false);
  ASSERT_TRUE(inbox.waitFor([&] { return inbox.stepRows() >= 2; }));
  trainer.stop();
  trainer.wait();
  EXPECT_EQ(trainer.state(), train::TrainerState::Finished);
  std::lock_guard lock(inbox.m);
  ASSERT_TRUE(inbox.records.back().contains("summary"));
  EXPECT_TRUE(inbox.records.back()["stopped_early"].get<bool>());
  EXPECT_LT(trainer.stepsDone(), 100000);
}

TEST(GptTrainer, FinishingEarlyKeepsServingSamples) {
  Inbox inbox;
  train::GptTrainerCallbacks cb;
  cb.onRecord = [&](const nlohmann::json& j) {
    std::lock_guard lock(inbox.m);
    inbox.records.push_back(j);
    inbox.cv.notify_all();
  };
  train::GptTrainer trainer(tinyConfig(100000), cb);
  trainer.start(false);
  ASSERT_TRUE(inbox.waitFor([&] { return inbox.stepRows() >= 1; }));
  trainer.finishEarly();
  ASSERT_TRUE(inbox.waitFor([&] { return !inbox.records.empty() && inbox.records.back().contains("summary"); }));
  EXPECT_TRUE(trainer.sample(12, 1.0, 1, [&](std::string text) {
    std::lock_guard lock(inbox.m);
    inbox.samples.push_back(std::move(text));
    inbox.cv.notify_all();
  }));
  ASSERT_TRUE(inbox.waitFor([&] { return inbox.samples.size() == 1; }));
  EXPECT_EQ(inbox.samples[0].size(), 12u);
  trainer.stop();
  trainer.wait();
  EXPECT_FALSE(trainer.sample(5, 1.0, 1, [](std::string) {}));
}
