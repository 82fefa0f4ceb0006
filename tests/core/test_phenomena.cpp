// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The phenomena, shown on the shipped MNIST, with the presets of train/presets.h
// exactly as the GUI and the lessons run them. Each test trains full 3-epoch
// runs of MLP 784-256-256-10 (label `training`). Thresholds are stated once
// here; they are the words turned into numbers:
//   "within 0.5 percentage points"  -> |acc difference| <= 0.005
//   "measurably / clearly worse"    -> at least 2 / 5 percentage points lower
//   "at least 5% ... become zero"   -> a layer's lost fraction >= 0.05
//   "loses most small updates"      -> more than half of the non-zero updates
#include <mantissa/train/presets.h>
#include <mantissa/train/trainer.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace mantissa;

namespace {

struct RunResult {
  double accuracy = 0.0;
  std::int64_t skipped = 0;
  int backoffs = 0;
  int growths = 0;
  bool scaleAlwaysOne = true;
  double maxLayerUnderflow = 0.0; // largest per-layer lost fraction seen at a telemetry step
  double meanUpdatesLost = 0.0;   // over all applied steps
  bool diverged = false;
};

std::shared_ptr<const data::TrainTest> mnist() {
  static const auto data = std::make_shared<const data::TrainTest>(data::loadBuiltin("mnist"));
  return data;
}

RunResult run(const train::RunConfig& config) {
  train::Session session(config, mnist());
  RunResult r;
  double lostSum = 0.0;
  std::int64_t applied = 0;
  train::TrainerCallbacks cb;
  cb.onStep = [&](const train::StepReport& s) {
    r.scaleAlwaysOne &= s.lossScale == 1.0;
    for (const auto& e : s.scalerEvents) {
      r.backoffs += e.kind == amp::ScalerEventKind::Backoff;
      r.growths += e.kind == amp::ScalerEventKind::Growth;
    }
    for (const auto& u : s.underflow)
      r.maxLayerUnderflow = std::max(r.maxLayerUnderflow, u.fraction());
    if (!s.skipped) {
      lostSum += s.updates.lostFraction();
      ++applied;
    }
  };
  const auto summary = train::runToCompletion(session, cb);
  r.accuracy = summary.testAccuracy;
  r.skipped = summary.skippedSteps;
  r.diverged = summary.divergence.has_value();
  r.meanUpdatesLost = applied ? lostSum / double(applied) : 0.0;
  std::cout << "[ run ] " << config.recipe << ": accuracy " << r.accuracy << ", skipped "
            << r.skipped << ", backoffs " << r.backoffs << ", growths " << r.growths
            << ", max layer underflow " << r.maxLayerUnderflow << ", updates lost "
            << r.meanUpdatesLost << "\n";
  return r;
}

const train::Preset& preset(const char* name) {
  const auto* p = train::findPreset(name);
  if (!p)
    throw std::runtime_error(std::string("no preset ") + name);
  return *p;
}

} // namespace

TEST(MnistBar, Fp32Bf16MixedFp16MixedWithinHalfAPoint) {
  const auto fp32 = run(train::referenceRun("fp32"));
  const auto bf16 = run(train::referenceRun("bf16-mixed"));
  const auto fp16 = run(train::referenceRun("fp16-mixed"));
  const double hi = std::max({fp32.accuracy, bf16.accuracy, fp16.accuracy});
  const double lo = std::min({fp32.accuracy, bf16.accuracy, fp16.accuracy});
  EXPECT_LE(hi - lo, 0.005);
  EXPECT_GT(fp32.accuracy, 0.85) << "the reference run must actually learn";
}

TEST(Phenomena, UnderflowWithoutScalingLosesGradientsAndAccuracy) {
  const auto& p = preset("underflow");
  ASSERT_EQ(p.runs[0].recipe, "fp16-mixed-noscale");
  ASSERT_EQ(p.runs[1].recipe, "fp16-mixed");
  const auto noscale = run(p.runs[0]);
  const auto scaled = run(p.runs[1]);
  EXPECT_GE(noscale.maxLayerUnderflow, 0.05);
  EXPECT_LE(noscale.accuracy, scaled.accuracy - 0.02);
  EXPECT_FALSE(noscale.diverged);
}

TEST(Phenomena, DynamicScalingRecoversAndItsTraceBacksOffAndGrows) {
  const auto& p = preset("scaling");
  ASSERT_EQ(p.runs[0].recipe, "fp16-mixed");
  ASSERT_EQ(p.runs[1].recipe, "fp32");
  const auto scaled = run(p.runs[0]);
  const auto fp32 = run(p.runs[1]);
  EXPECT_GE(scaled.backoffs, 1);
  EXPECT_GE(scaled.growths, 1);
  EXPECT_EQ(scaled.skipped, scaled.backoffs); // PyTorch rules: every overflow skips and halves
  EXPECT_LT(scaled.maxLayerUnderflow, 0.01) << "scaling keeps the small gradients";
  EXPECT_LE(std::abs(scaled.accuracy - fp32.accuracy), 0.005);
}

TEST(Phenomena, Bf16MixedNeedsNoScaler) {
  const auto& p = preset("bf16-no-scaler");
  ASSERT_EQ(p.runs[0].recipe, "bf16-mixed");
  const auto bf16 = run(p.runs[0]);
  const auto fp32 = run(p.runs[1]);
  EXPECT_TRUE(bf16.scaleAlwaysOne);
  EXPECT_EQ(bf16.skipped, 0);
  EXPECT_EQ(bf16.maxLayerUnderflow, 0.0);
  EXPECT_LE(std::abs(bf16.accuracy - fp32.accuracy), 0.005);
}

TEST(Phenomena, SwampingInPureBf16AndStochasticRoundingRecoversIt) {
  const auto& p = preset("swamping");
  ASSERT_EQ(p.runs[0].recipe, "bf16-pure");
  ASSERT_EQ(p.runs[1].recipe, "bf16-pure-sr");
  ASSERT_EQ(p.runs[2].recipe, "bf16-mixed");
  const auto pure = run(p.runs[0]);
  const auto sr = run(p.runs[1]);
  const auto mixed = run(p.runs[2]);
  EXPECT_GT(pure.meanUpdatesLost, 0.5);
  const double gap = mixed.accuracy - pure.accuracy;
  EXPECT_GE(gap, 0.05);
  EXPECT_GE(sr.accuracy - pure.accuracy, 0.5 * gap);
}

TEST(Presets, EveryPresetIsValidAndNamed) {
  for (const char* name : {"underflow", "scaling", "bf16-no-scaler", "swamping"}) {
    const auto& p = preset(name);
    EXPECT_FALSE(p.title.empty());
    EXPECT_FALSE(p.explanation.empty());
    ASSERT_GE(p.runs.size(), 2u) << name;
    for (const auto& r : p.runs)
      EXPECT_TRUE(r.problems().empty()) << name << ": " << r.recipe;
  }
}
