// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Fault cases for every recipe, and for fp16-mixed under every loss-scaler
// preset: a learning rate of 1e6, all-zero data, NaN and inf in the data.
// Each run must end (finished() within its planned steps) with either a clear
// divergence message or finite numbers: never a non-finite loss or weight
// carried on silently, never a crash or a hang.
//
// The rule for a NaN in the data: the forward pass never sees the
// loss scale, so a scaler backing off cannot cure it; every recipe, scaled or
// not, stops at the first step whose batch holds it, naming the input.

#include <mantissa/amp/recipe.h>
#include <mantissa/train/session.h>
#include <mantissa/train/trainer.h>

#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <future>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

using namespace mantissa;

namespace {

constexpr int kSamples = 64;
constexpr int kFeatures = 8;

// A small two-class set: x[i][f] = value(i, f), labels alternate.
template <typename Value>
std::shared_ptr<const data::TrainTest> makeData(Value value) {
  data::Dataset d;
  d.name = "faults";
  d.features = kFeatures;
  d.classes = 2;
  d.classNames = {"0", "1"};
  for (int i = 0; i < kSamples; ++i) {
    d.y.push_back(static_cast<std::uint8_t>(i % 2));
    for (int f = 0; f < kFeatures; ++f)
      d.x.push_back(value(i, f));
  }
  auto tt = std::make_shared<data::TrainTest>();
  tt->train = d;
  tt->test = d;
  return tt;
}

std::shared_ptr<const data::TrainTest> separable() {
  return makeData([](int i, int f) { return (i % 2 ? 0.5f : -0.5f) + 0.01f * float(f); });
}

// "recipe" or "recipe/scaler".
train::RunConfig config(const std::string& which, int steps = 30) {
  train::RunConfig c;
  c.model = "mlp:8-16-2";
  const auto slash = which.find('/');
  c.recipe = which.substr(0, slash);
  if (slash != std::string::npos)
    c.scaler = which.substr(slash + 1);
  c.batch = 16;
  c.steps = steps;
  c.seed = 3;
  c.evalEvery = 0;
  return c;
}

bool allFinite(const model::Network& m) {
  for (const auto& p : m.params())
    for (const Tensor* t : {&p.w, &p.b})
      for (float v : t->f32())
        if (!std::isfinite(v))
          return false;
  return true;
}

// Steps the session to its end and checks the invariant every fault relies on:
// a step whose loss is not finite either ends the run with a divergence naming
// the step, or is a loss-scaler skip (which leaves the weights untouched).
void runChecked(train::Session& s) {
  const std::int64_t planned = s.totalSteps();
  while (!s.finished()) {
    ASSERT_LT(s.stepsDone(), planned);
    const train::StepReport& r = s.step();
    if (!std::isfinite(r.loss) && !r.skipped) {
      ASSERT_TRUE(s.divergence().has_value()) << "non-finite loss at step " << r.step;
      EXPECT_EQ(s.divergence()->step, r.step);
    }
  }
  if (const auto& d = s.divergence()) {
    EXPECT_FALSE(d->message.empty());
    EXPECT_NE(d->message.find("step " + std::to_string(d->step)), std::string::npos) << d->message;
  } else {
    EXPECT_EQ(s.stepsDone(), planned);
    EXPECT_TRUE(allFinite(s.model())) << "weights went non-finite without a divergence";
  }
}

bool holdsNaN(std::span<const float> x) {
  for (float v : x)
    if (std::isnan(v))
      return true;
  return false;
}

std::vector<std::string> everyCase() {
  std::vector<std::string> cases = amp::recipeNames();
  for (const char* scaler : {"pytorch", "keras", "apex", "deepspeed", "megatron", "static:1024"})
    cases.push_back(std::string("fp16-mixed/") + scaler);
  return cases;
}

class EveryRecipe : public testing::TestWithParam<std::string> {};

} // namespace

TEST_P(EveryRecipe, HugeLearningRateEndsCleanly) {
  train::RunConfig c = config(GetParam());
  c.lr = 1e6;
  train::Session s(c, separable());
  runChecked(s);
}

TEST_P(EveryRecipe, AllZeroDataTrainsWithFiniteNumbers) {
  train::Session s(config(GetParam(), 20), makeData([](int, int) { return 0.0f; }));
  runChecked(s);
  EXPECT_FALSE(s.divergence().has_value()) << s.divergence()->message;
  const train::EvalReport e = s.evaluate();
  EXPECT_TRUE(std::isfinite(e.loss));
  EXPECT_EQ(e.samples, kSamples);
}

// Feature 3 is NaN in every sample. With ReLU the NaN never reaches the loss
// (max(0, NaN) = 0) and only the gradients show it, which a scaler would
// take for an overflow and skip for ever.
TEST_P(EveryRecipe, NaNInTheDataStopsAtTheFirstStepNamingTheInput) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  train::Session s(config(GetParam()), makeData([&](int, int f) { return f == 3 ? nan : 0.25f; }));
  const double scaleBefore = s.scaler() ? s.scaler()->scale() : 1.0;
  runChecked(s);
  ASSERT_TRUE(s.divergence().has_value()) << "a NaN input must stop the run";
  const train::Divergence& d = *s.divergence();
  EXPECT_EQ(d.step, 0);
  EXPECT_EQ(s.stepsDone(), 1);
  EXPECT_EQ(d.layer, 0);
  EXPECT_FALSE(d.backward);
  EXPECT_EQ(d.op, "input");
  EXPECT_EQ(d.reason, "input contains NaN");
  EXPECT_EQ(d.message.rfind("input contains NaN at step 0", 0), 0u) << d.message;
  EXPECT_EQ(s.skippedSteps(), 0);
  if (s.scaler()) { // not taken for an overflow: the scale was not backed off
    EXPECT_EQ(s.scaler()->scale(), scaleBefore);
  }
}

TEST_P(EveryRecipe, InfInTheDataStopsTheRunNamingTheInput) {
  const float inf = std::numeric_limits<float>::infinity();
  train::Session s(config(GetParam()), makeData([&](int, int f) { return f == 0 ? inf : 0.25f; }));
  runChecked(s);
  ASSERT_TRUE(s.divergence().has_value()) << "an inf input must stop the run";
  EXPECT_EQ(s.divergence()->step, 0);
  EXPECT_EQ(s.divergence()->op, "input");
  EXPECT_EQ(s.divergence()->reason, "input contains inf");
}

// One bad sample among 64 (batches of 16, shuffled): the steps before the
// one that draws it train normally; that step stops the run, and its batch
// (still in the model's input buffer) really holds the NaN.
TEST_P(EveryRecipe, OneNaNSampleStopsTheStepThatDrawsIt) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  train::Session s(config(GetParam(), 40),
                   makeData([&](int i, int f) { return i == 37 && f == 5 ? nan : (i % 2 ? 0.5f : -0.5f); }));
  runChecked(s);
  ASSERT_TRUE(s.divergence().has_value());
  const train::Divergence& d = *s.divergence();
  EXPECT_LT(d.step, 4) << "every sample is drawn once per epoch of 4 steps";
  EXPECT_EQ(d.op, "input");
  EXPECT_EQ(d.reason, "input contains NaN");
  EXPECT_TRUE(holdsNaN(s.model().inputs()));
  EXPECT_TRUE(allFinite(s.model()));
}

// With gradient accumulation the NaN micro-batch may not be the last one,
// whose inputs are what the model holds when the gradients are checked.
TEST_P(EveryRecipe, NaNInAnEarlierMicroBatchIsStillNamed) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  train::RunConfig c = config(GetParam(), 40);
  c.gradAccumulation = 4; // a whole epoch of 4 micro-batches per optimizer step
  train::Session s(c, makeData([&](int i, int f) { return i == 37 && f == 5 ? nan : 0.25f; }));
  runChecked(s);
  ASSERT_TRUE(s.divergence().has_value());
  EXPECT_EQ(s.divergence()->step, 0);
  EXPECT_EQ(s.divergence()->op, "input");
  EXPECT_EQ(s.divergence()->reason, "input contains NaN");
}

// The threaded path: a diverging run reports onDone with the divergence and
// the thread ends by itself (a hang shows up as the 60 s wait running out).
TEST_P(EveryRecipe, DivergingTrainerThreadFinishesAndReports) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::promise<train::RunSummary> done;
  train::TrainerCallbacks cb;
  cb.onDone = [&](const train::RunSummary& s) { done.set_value(s); };
  train::Trainer t(config(GetParam(), 1000), makeData([&](int i, int) { return i == 5 ? nan : 1.0f; }),
                   cb);
  auto summary = done.get_future();
  t.start();
  ASSERT_EQ(summary.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  const train::RunSummary s = summary.get();
  ASSERT_TRUE(s.divergence.has_value());
  EXPECT_EQ(s.divergence->reason, "input contains NaN");
  EXPECT_LT(s.steps, 1000);
  t.wait();
  EXPECT_EQ(t.state(), train::TrainerState::Finished);
}

INSTANTIATE_TEST_SUITE_P(Faults, EveryRecipe, testing::ValuesIn(everyCase()),
                         [](const testing::TestParamInfo<std::string>& p) {
                           std::string name;
                           for (char ch : p.param)
                             name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return name;
                         });
