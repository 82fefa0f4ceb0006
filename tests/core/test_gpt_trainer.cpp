// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Samples of a GPT on train::Trainer, the thread every model trains on (its
// pause / single-step / stop rules and run log are test_trainer's EveryModel):
// made by the run's own thread while paused and after the end, never racing
// a step.
#include <mantissa/train/presets.h>
#include <mantissa/train/run_log_rows.h>
#include <mantissa/train/trainer.h>

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace mantissa;

namespace {

// The shakespeare-char preset on a one-block model.
train::RunConfig tinyConfig(std::int64_t steps) {
  train::RunConfig c = train::findPreset("shakespeare-char")->runs.front();
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
  void add(nlohmann::json j) {
    std::lock_guard lock(m);
    records.push_back(std::move(j));
    cv.notify_all();
  }
};

// Callbacks that write the run's log objects into the inbox, as the GUI's
// run controller writes them into its live log. `trainer` is set before start.
train::TrainerCallbacks logInto(Inbox& inbox, train::Trainer*& trainer) {
  train::TrainerCallbacks cb;
  cb.onStep = [&inbox, &trainer](const train::StepReport& r) {
    inbox.add(train::runLogStep(trainer->session(), r));
  };
  cb.onEval = [&inbox, &trainer](const train::EvalReport& e) {
    inbox.add(train::runLogEval(trainer->session(), e));
  };
  cb.onDone = [&inbox, &trainer](const train::RunSummary& s) {
    inbox.add(train::runLogSummary(trainer->session(), s));
    std::lock_guard lock(inbox.m);
    inbox.done = true;
    inbox.cv.notify_all();
  };
  return cb;
}

} // namespace

TEST(TrainerGpt, SamplesWhilePausedAndAfterTheEndTakeNoStep) {
  Inbox inbox;
  train::Trainer* self = nullptr;
  train::Trainer trainer(tinyConfig(7), logInto(inbox, self));
  self = &trainer;
  trainer.keepServing(true);
  trainer.start(true);
  EXPECT_EQ(trainer.state(), train::TrainerState::Paused);
  trainer.stepOnce();
  trainer.stepOnce();
  ASSERT_TRUE(inbox.waitFor([&] { return inbox.stepRows() == 2; }));
  EXPECT_EQ(trainer.stepsDone(), 2);
  EXPECT_EQ(trainer.state(), train::TrainerState::Paused);

  // A sample while paused: made by the run's thread, no step taken for it.
  ASSERT_TRUE(trainer.sample(25, 0.8, 3, [&](std::string text) {
    std::lock_guard lock(inbox.m);
    inbox.samples.push_back(std::move(text));
    inbox.stepsAtSample.push_back(trainer.stepsDone());
    inbox.cv.notify_all();
  }));
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
  ASSERT_TRUE(trainer.sample(10, 1.0, 3, [&](std::string text) {
    std::lock_guard lock(inbox.m);
    inbox.samples.push_back(std::move(text));
    inbox.cv.notify_all();
  }));
  ASSERT_TRUE(inbox.waitFor([&] { return inbox.samples.size() == 2; }));
  EXPECT_EQ(inbox.samples[1].size(), 10u);
  trainer.stop();
  trainer.wait();
}

TEST(TrainerGpt, FinishingEarlyKeepsServingSamples) {
  Inbox inbox;
  train::Trainer* self = nullptr;
  train::Trainer trainer(tinyConfig(100000), logInto(inbox, self));
  self = &trainer;
  trainer.keepServing(true);
  trainer.start(false);
  ASSERT_TRUE(inbox.waitFor([&] { return inbox.stepRows() >= 1; }));
  trainer.finish();
  ASSERT_TRUE(inbox.waitFor(
      [&] { return !inbox.records.empty() && inbox.records.back().contains("summary"); }));
  EXPECT_TRUE(trainer.sample(12, 1.0, 1, [&](std::string text) {
    std::lock_guard lock(inbox.m);
    inbox.samples.push_back(std::move(text));
    inbox.cv.notify_all();
  }));
  ASSERT_TRUE(inbox.waitFor([&] { return inbox.samples.size() == 1; }));
  EXPECT_EQ(inbox.samples[0].size(), 12u);
  {
    std::lock_guard lock(inbox.m);
    EXPECT_TRUE(inbox.records.back()["stopped_early"].get<bool>());
  }
  EXPECT_EQ(trainer.state(), train::TrainerState::Finished);
  trainer.stop();
  trainer.wait();
  EXPECT_FALSE(trainer.sample(5, 1.0, 1, [](std::string) {}));
}

// Without keepServing the thread ends with the run, as it always has for the
// command line and the tests: a sample asked after that is refused.
TEST(TrainerGpt, WithoutKeepServingTheThreadEndsWithTheRun) {
  Inbox inbox;
  train::Trainer* self = nullptr;
  train::Trainer trainer(tinyConfig(2), logInto(inbox, self));
  self = &trainer;
  trainer.start(false);
  trainer.wait(); // returns: nothing keeps the thread
  EXPECT_EQ(trainer.stepsDone(), 2);
  EXPECT_TRUE(inbox.done);
  EXPECT_FALSE(trainer.sample(5, 1.0, 1, [](std::string) { FAIL() << "sampled after the end"; }));
}

// Only a GPT has text to generate: an MLP's trainer refuses sample requests.
TEST(TrainerGpt, AnMlpTrainerRefusesToSample) {
  train::RunConfig c; // MNIST, the default MLP
  c.steps = 2;
  train::Trainer trainer(c, {});
  EXPECT_FALSE(trainer.sample(5, 1.0, 1, [](std::string) { FAIL() << "an MLP sampled"; }));
}
