// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Fault cases for every recipe: a learning rate of 1e6, all-zero data, NaN
// and inf in the data. Each run must end (finished() within its planned
// steps) with either a clear divergence message or finite numbers: never a
// non-finite loss or weight carried on silently, never a crash or a hang.

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
#include <string>

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

train::RunConfig config(const std::string& recipe, int steps = 30) {
  train::RunConfig c;
  c.model = "mlp:8-16-2";
  c.recipe = recipe;
  c.batch = 16;
  c.steps = steps;
  c.seed = 3;
  c.evalEvery = 0;
  return c;
}

bool allFinite(const model::Mlp& m) {
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

TEST_P(EveryRecipe, NaNInTheDataStopsAtTheFirstStep) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  train::Session s(config(GetParam()), makeData([&](int, int f) { return f == 3 ? nan : 0.25f; }));
  runChecked(s);
  if (s.scaler() && !s.divergence()) {
    // A dynamic scaler treats the NaN gradients as overflow: every step is
    // skipped (weights untouched) instead of a divergence being reported.
    EXPECT_EQ(s.skippedSteps(), s.stepsDone());
    return;
  }
  ASSERT_TRUE(s.divergence().has_value()) << "a NaN input must stop the run";
  EXPECT_EQ(s.divergence()->step, 0);
  // The NaN enters in layer 0's forward linear, whatever op later shows it.
  EXPECT_FALSE(s.divergence()->backward);
  EXPECT_EQ(s.divergence()->layer, 0);
}

TEST_P(EveryRecipe, InfInTheDataStopsTheRun) {
  const float inf = std::numeric_limits<float>::infinity();
  train::Session s(config(GetParam()), makeData([&](int, int f) { return f == 0 ? inf : 0.25f; }));
  runChecked(s);
  ASSERT_TRUE(s.divergence().has_value()) << "an inf input must stop the run";
  EXPECT_EQ(s.divergence()->step, 0);
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
  EXPECT_LT(s.steps, 1000);
  t.wait();
  EXPECT_EQ(t.state(), train::TrainerState::Finished);
}

INSTANTIATE_TEST_SUITE_P(Faults, EveryRecipe, testing::ValuesIn(amp::recipeNames()),
                         [](const testing::TestParamInfo<std::string>& p) {
                           std::string name;
                           for (char ch : p.param)
                             name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return name;
                         });
