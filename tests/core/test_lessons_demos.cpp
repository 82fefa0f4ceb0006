// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Each lesson demo shows its phenomenon, computed by the core.
// Expected values are the formats' spec constants, hand-derived rounding
// facts, or the stated outcomes; never the demo's own output.
#include <mantissa/lessons/demo_registry.h>
#include <mantissa/lessons/demos.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/session.h>

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

using namespace mantissa;
using namespace mantissa::lessons;
using numeric::FormatId;

TEST(LessonAnatomy, FormatTableHasSpecConstants) {
  const auto rows = formatTable();
  ASSERT_EQ(rows.size(), 6u);
  const auto find = [&](const char* name) {
    for (const auto& r : rows)
      if (r.name == name) return r;
    ADD_FAILURE() << "no row " << name;
    return rows.front();
  };
  const auto h = find("FP16");
  EXPECT_EQ(h.bits, 16);
  EXPECT_EQ(h.bias, 15);
  EXPECT_EQ(h.maxFinite, 65504.0);
  EXPECT_EQ(h.minNormal, std::ldexp(1.0, -14));
  EXPECT_EQ(h.minSubnormal, std::ldexp(1.0, -24));
  EXPECT_EQ(h.epsilon, std::ldexp(1.0, -10));
  const auto b = find("BF16");
  EXPECT_EQ(b.bias, 127);
  EXPECT_EQ(b.epsilon, std::ldexp(1.0, -7));
  EXPECT_EQ(b.minNormal, std::ldexp(1.0, -126));
  const auto f = find("FP32");
  EXPECT_EQ(f.maxFinite, 3.4028234663852886e38);
  EXPECT_EQ(f.minSubnormal, std::ldexp(1.0, -149));
}

TEST(LessonAnatomy, UlpRulerGrowsWithMagnitude) {
  EXPECT_EQ(ulpAt(FormatId::Fp16, 1.0), std::ldexp(1.0, -10));
  EXPECT_EQ(ulpAt(FormatId::Fp16, 1000.0), 0.5);  // binade [512, 1024): 2^(9-10)
  EXPECT_EQ(ulpAt(FormatId::Fp16, 65504.0), 32.0); // binade [32768, 65536): 2^(15-10)
  EXPECT_EQ(ulpAt(FormatId::Bf16, 1000.0), 4.0);   // 2^(9-7)
  EXPECT_EQ(ulpAt(FormatId::Fp32, 1.0), std::ldexp(1.0, -23));
  EXPECT_TRUE(std::isnan(ulpAt(FormatId::Fp8E4M3, 1000.0))); // past 448
}

TEST(LessonSwamping, Fp32WalksToZeroSixteenBitStaysAtOne) {
  const auto d = swampingDemo();
  ASSERT_EQ(d.runs.size(), 3u);
  EXPECT_EQ(d.runs[0].name, "FP32");
  EXPECT_EQ(d.runs[0].steps.back(), 10000.0);
  EXPECT_NEAR(d.runs[0].w.back(), 0.0, 1e-3);
  for (int k : {1, 2}) {
    SCOPED_TRACE(d.runs[static_cast<std::size_t>(k)].name);
    for (double w : d.runs[static_cast<std::size_t>(k)].w) ASSERT_EQ(w, 1.0);
  }
}

TEST(LessonSwamping, ThresholdsFromEpsilon) {
  EXPECT_EQ(swampRatioLog2(FormatId::Fp16), 11);
  EXPECT_EQ(swampRatioLog2(FormatId::Bf16), 8);
  // Just above / below the threshold in BF16 at w = 1 (ULP below... above 1 is 2^-7).
  EXPECT_EQ(swampTrajectory(FormatId::Bf16, 1.0, std::ldexp(1.0, -9), 1, 1).w.back(), 1.0);
  EXPECT_GT(swampTrajectory(FormatId::Bf16, 1.0, std::ldexp(1.0, -7), 1, 1).w.back(), 1.0);
}

TEST(LessonSwamping, FixesLetTheWeightMove) {
  EXPECT_NEAR(masterCopyFix(1.0, -1e-4, 10000, 50).w.back(), 0.0, 1e-3);
  const auto k = kahanFix(1.0, -1e-4, 10000, 50);
  EXPECT_LT(k.w.back(), 0.05);
  EXPECT_GT(k.w.back(), -0.05);
}

TEST(LessonSwamping, StochasticRoundingReachesAboutTwo) {
  const auto d = stochasticRoundingDemo(1.0, 0.001, 1000, 1);
  for (double w : d.nearest.w) ASSERT_EQ(w, 1.0);
  EXPECT_GE(d.stochastic.w.back(), 1.8);
  EXPECT_LE(d.stochastic.w.back(), 2.2);
  // Seeded: the same seed gives the same walk.
  EXPECT_EQ(stochasticRoundingDemo(1.0, 0.001, 1000, 1).stochastic.w, d.stochastic.w);
}

TEST(LessonLossScaling, WorkedExample) {
  const auto e = scalingExample(2e-7, 1024);
  EXPECT_TRUE(e.gIsSubnormal); // 2^-24 < 2e-7 < 2^-14
  EXPECT_TRUE(e.scaledIsNormal);
  EXPECT_NEAR(e.scaledInFp16, 2.048e-4, 2.048e-4 * std::ldexp(1.0, -11));
  EXPECT_LT(e.relativeError, std::ldexp(1.0, -10));
  // Without scaling FP16 keeps g only to a multiple of 2^-24: a large error.
  EXPECT_GT(std::abs(e.gInFp16 - 2e-7) / 2e-7, 0.01);
}

TEST(LessonLossScaling, ScalingRecoversGradientsLostToZero) {
  const auto d = recoveryDemo({1.0, 8.0, 32768.0}, 3);
  ASSERT_EQ(d.rows.size(), 3u);
  EXPECT_GT(d.values, 100000u);
  EXPECT_GT(d.rows[0].lostToZero, 0.0);
  EXPECT_LT(d.rows[1].lostToZero, d.rows[0].lostToZero);
  EXPECT_LT(d.rows[2].lostToZero, d.rows[1].lostToZero);
}

TEST(LessonLossScaling, ScalerStateSequenceFollowsTheRules) {
  // Rules (PyTorch GradScaler): overflow -> halve and skip, tracker reset;
  // `interval` consecutive finite steps -> double. Interval 3, init 1024.
  const std::vector<bool> script{false, false, false, true, false, false, true, false, false, false};
  const double expectedAfter[] = {1024, 1024, 2048, 1024, 1024, 1024, 512, 512, 512, 1024};
  const auto walk = scalerWalk(script, 1024, 3);
  ASSERT_EQ(walk.size(), script.size());
  for (std::size_t i = 0; i < walk.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(walk[i].scaleAfter, expectedAfter[i]);
    EXPECT_EQ(walk[i].skipped, script[i]);
    EXPECT_EQ(walk[i].backedOff, script[i]);
  }
}

TEST(LessonBf16, NoScalerNoSkips) {
  const auto d = bf16RunDemo(20);
  ASSERT_EQ(d.steps.size(), 20u);
  EXPECT_EQ(d.skipped, 0);
  for (double s : d.scale) EXPECT_EQ(s, 1.0);
  EXPECT_LT(d.loss.back(), d.loss.front());
}

TEST(LessonFp32, AccumulatorStallsInBf16) {
  const auto d = accumulationDemo(10000, 1, 50);
  ASSERT_EQ(d.runs.size(), 3u);
  EXPECT_GE(d.runs[0].w.back(), 128.0); // BF16
  EXPECT_LE(d.runs[0].w.back(), 512.0);
  EXPECT_NEAR(d.runs[2].w.back(), d.exact, 0.02 * d.exact); // FP32
  EXPECT_NEAR(d.exact, 5000.0, 200.0);
}

TEST(LessonFp32, SoftmaxLayerNormErrorsOrdered) {
  const auto d = softmaxLayerNormDemo(256, 1);
  ASSERT_EQ(d.rows.size(), 3u);
  EXPECT_LT(d.rows[0].softmaxMaxRelError, 1e-5);
  EXPECT_LT(d.rows[0].layerNormMaxAbsError, 1e-5);
  for (int k : {1, 2}) {
    EXPECT_GT(d.rows[static_cast<std::size_t>(k)].softmaxMaxRelError, 100 * d.rows[0].softmaxMaxRelError);
    EXPECT_GT(d.rows[static_cast<std::size_t>(k)].layerNormMaxAbsError, 100 * d.rows[0].layerNormMaxAbsError);
  }
}

// Lesson 7's claims, on its own measured rows: FP16 softmax without the max
// overflows and names the attention softmax; with the max it stays finite;
// BF16 sums promoted every 8 products land closer to FP32 than BF16 sums.
TEST(LessonIslands, WhatTheLessonSaysHoldsOnItsMeasuredGpt) {
  const IslandsDemo d = fp32IslandsDemo();
  ASSERT_TRUE(std::isfinite(d.fp32Loss));
  auto row = [&](const std::string& change) -> const IslandRow& {
    for (const auto& r : d.rows)
      if (r.change == change)
        return r;
    ADD_FAILURE() << "no row " << change;
    return d.rows.front();
  };
  const IslandRow& noMax = row("softmax in FP16, no max subtraction");
  EXPECT_FALSE(std::isfinite(noMax.loss));
  EXPECT_EQ(noMax.nonFinite, "layer 0 attention softmax");
  for (const auto& r : d.rows)
    if (&r != &noMax) {
      EXPECT_TRUE(std::isfinite(r.loss)) << r.change;
      EXPECT_TRUE(r.nonFinite.empty()) << r.change;
    }
  EXPECT_GT(row("matmul sums in BF16").deviation,
            2 * row("matmul sums in BF16, promoted every 8").deviation);
  EXPECT_GT(row("LayerNorm statistics in BF16").deviation,
            row("LayerNorm statistics in FP16").deviation);
  const DemoOutput o = runDemo("fp32-islands");
  EXPECT_EQ(o.categories.size(), d.rows.size());
  int named = 0;
  for (const auto& line : o.lines)
    named += line.find("no max subtraction") != std::string::npos &&
             line.find("first non-finite value at layer 0 attention softmax") != std::string::npos;
  EXPECT_EQ(named, 1);
  // The figure carries the headline case as a NaN bar, not as a missing one.
  ASSERT_EQ(o.series.size(), 1u);
  int nanBars = 0;
  for (std::size_t i = 0; i < o.series[0].y.size(); ++i)
    if (std::isnan(o.series[0].y[i])) {
      ++nanBars;
      EXPECT_EQ(d.rows.at(std::size_t(o.series[0].x[i])).change, "softmax in FP16, no max subtraction");
    }
  EXPECT_EQ(nanBars, 1);
}

TEST(LessonRegistry, EveryIdRunsExceptUnknown) {
  for (auto id : demoIds()) {
    if (id == "speed" || id == "loss-scaling" || id == "scale-recovery" || id == "bf16-run") continue; // covered above, slow
    const auto o = runDemo(id);
    EXPECT_EQ(o.id, id);
    EXPECT_FALSE(o.lines.empty()) << id;
    EXPECT_FALSE(o.series.empty()) << id;
  }
  EXPECT_THROW(runDemo("no-such-demo"), UnknownDemo);
}

// The lesson figure of the recovered fraction: one bar per scale with the
// core's own shares, and the histogram's "lost" edges where FP16 flushes g x S
// (half of 2^-24, the IEEE binary16 smallest subnormal, divided by S).
TEST(LessonLossScaling, RecoveryFigureIsBarsPerScale) {
  const auto o = runDemo("scale-recovery");
  EXPECT_EQ(o.categories, (std::vector<std::string>{"x1", "x8", "x32768"}));
  ASSERT_EQ(o.series.size(), 2u);
  for (const auto& s : o.series) EXPECT_TRUE(s.bars) << s.name;
  const auto d = recoveryDemo({1.0, 8.0, 32768.0}, 3);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(o.series[0].x[i], static_cast<double>(i));
    EXPECT_DOUBLE_EQ(o.series[0].y[i], 100 * d.rows[i].lostToZero);
    EXPECT_DOUBLE_EQ(o.series[1].y[i], 100 * d.rows[i].overflow);
  }
  EXPECT_GT(o.series[0].y[0], o.series[0].y[2]);

  const auto h = runDemo("loss-scaling");
  ASSERT_EQ(h.series.size(), 4u);
  EXPECT_TRUE(h.series[0].bars);
  const double edges[] = {-25, -28, -40}; // log2(2^-25 / S) for S = 1, 8, 32768
  for (int k = 0; k < 3; ++k) {
    EXPECT_FALSE(h.series[static_cast<std::size_t>(k + 1)].bars);
    EXPECT_EQ(h.series[static_cast<std::size_t>(k + 1)].x.front(), edges[k]);
  }
}

// Stepping the scaler's walk (presenter mode's Next Demo Step): its script
// starts finite, finite, finite, overflow at 2^16 with growth after 3 finite
// steps (PyTorch's rule: x2 on the third, x0.5 on an overflow), so after
// step k the figure holds exactly the scales 2^16, 2^16, 2^17, 2^16 up to k.
TEST(DemoSteps, ScalerWalkStepsOneScalerUpdateAtATime) {
  const DemoOutput full = runDemo("scaler-walk");
  ASSERT_EQ(full.series.size(), 1u);
  const int steps = demoStepCount(full);
  EXPECT_EQ(steps, static_cast<int>(full.series[0].x.size()));
  const std::vector<double> expected{65536, 65536, 131072, 65536};
  for (int k = 1; k <= 4; ++k) {
    const DemoOutput at = demoAtStep(full, k);
    ASSERT_EQ(at.series[0].x.size(), static_cast<std::size_t>(k));
    EXPECT_EQ(at.series[0].x.back(), k - 1); // the walk numbers its steps from 0
    EXPECT_EQ(at.series[0].y, std::vector<double>(expected.begin(), expected.begin() + k));
    // "Step k of N" and then one line per scaler step so far.
    ASSERT_EQ(at.lines.size(), static_cast<std::size_t>(k) + 1);
    EXPECT_EQ(at.lines[0].rfind("Step " + std::to_string(k) + " of " + std::to_string(steps), 0), 0u) << at.lines[0];
    EXPECT_EQ(at.lines.back(), full.stepLines[static_cast<std::size_t>(k - 1)]);
  }
  EXPECT_NE(demoAtStep(full, 4).lines.back().find("halved"), std::string::npos);
  EXPECT_EQ(demoAtStep(full, steps).series[0].y, full.series[0].y);
  EXPECT_THROW(demoAtStep(full, 0), std::out_of_range);
  EXPECT_THROW(demoAtStep(full, steps + 1), std::out_of_range);
}

// A trajectory steps through its samples; every series keeps the points up
// to the step's x. A demo of categories (the format table) has no steps.
TEST(DemoSteps, TrajectoriesStepThroughTheirSamplesAndTablesHaveNone) {
  DemoOutput d;
  d.id = "made-up";
  d.xLabel = "step";
  d.yLabel = "w";
  d.series = {{"a", {0, 50, 100}, {1.0, 0.5, 0.25}}, {"b", {0, 100}, {2.0, 3.0}}};
  ASSERT_EQ(demoStepCount(d), 3);
  const DemoOutput at = demoAtStep(d, 2);
  EXPECT_EQ(at.series[0].x, (std::vector<double>{0, 50}));
  EXPECT_EQ(at.series[1].x, (std::vector<double>{0}));
  ASSERT_EQ(at.lines.size(), 3u);
  EXPECT_EQ(at.lines[0], "Step 2 of 3: step = 50");
  EXPECT_EQ(at.lines[1], "a: w = 0.5");
  EXPECT_EQ(at.lines[2], "b: w = 2");
  EXPECT_EQ(demoStepCount(runDemo("format-table")), 0);
  d.series[1].bars = true;
  EXPECT_EQ(demoStepCount(d), 0);
}

// Lesson 9's error map: a bf16-mixed GPT's last step against its FP32 shadow.
// Every tensor the GPT lists is compared and shown by name; the matrix
// products, whose inputs bf16-mixed rounds to 8 significant bits, are off
// (not exact) by a relative amount of the order of BF16's unit roundoff 2^-8,
// far below 1 (so the map is of rounding, not of a broken run).
TEST(LessonWherePrecision, ErrorMapShowsEveryTensorAndBf16ProductsAreNotExact) {
  const ErrorMapDemo d = errorMapDemo(3);
  const auto& f = d.frame;
  ASSERT_FALSE(f.tensors.empty());
  EXPECT_EQ(f.step, 2);
  EXPECT_EQ(f.reference, train::ShadowPrecision::F32);
  int forward = 0, backward = 0;
  for (const auto& t : f.tensors) {
    SCOPED_TRACE(t.tensor);
    EXPECT_GT(t.count, 0);
    EXPECT_TRUE(std::isfinite(t.tensorRelative));
    (t.backward ? backward : forward) += 1;
  }
  // 1 block: embedding, 9 block tensors, lnf input, logits; 16 parameter gradients.
  EXPECT_EQ(forward, 12);
  EXPECT_EQ(backward, 16);
  const auto error = [&f](const std::string& name) {
    for (const auto& t : f.tensors)
      if (t.tensor == name) return t.tensorRelative;
    ADD_FAILURE() << "no tensor " << name;
    return -1.0;
  };
  for (const char* name : {"h0.qkv output", "h0.fc output", "logits", "h0.qkv.w gradient", "h0.fc.w gradient"}) {
    SCOPED_TRACE(name);
    EXPECT_GT(error(name), 0.0);
    EXPECT_LT(error(name), 0.25);
  }
  // The figure and the lines: one category per op, every tensor named in the lines.
  const auto o = runDemo("error-map");
  EXPECT_TRUE(o.logY);
  EXPECT_EQ(o.categories.size(), 12u);
  ASSERT_EQ(o.series.size(), 2u);
  EXPECT_FALSE(o.series[0].x.empty());
  EXPECT_FALSE(o.series[1].x.empty());
  for (const auto& s : o.series)
    for (double y : s.y) EXPECT_GT(y, 0.0);
  std::string all;
  for (const auto& line : o.lines) all += line + "\n";
  const ErrorMapDemo shown = errorMapDemo();
  EXPECT_NE(all.find(train::describeShadowFrame(shown.frame)), std::string::npos);
  for (const auto& t : shown.frame.tensors) EXPECT_NE(all.find(t.tensor), std::string::npos) << t.tensor;
}

// Lesson 9's diff: fp16-mixed with and without its scaler part where the
// unscaled run's gradients first underflow. That step is found here from the
// two runs' own telemetry (trained again here): the first step at which a
// gradient tensor of the unscaled run holds more zeros than the scaled
// run's. The diff must name that step, in the backward pass, and nothing
// before it; the forward pass and the loss agree up to it.
TEST(LessonWherePrecision, ScalerDiffPartsInTheGradientsWhereTheyUnderflow) {
  const int steps = 20;
  const ScalerDiffDemo d = scalerDiffDemo(steps);
  ASSERT_TRUE(d.diff.differ());

  std::vector<std::shared_ptr<const telemetry::TelemetryFrame>> frames[2];
  std::vector<double> loss[2];
  const char* recipes[] = {"fp16-mixed", "fp16-mixed-noscale"};
  for (int k = 0; k < 2; ++k) {
    train::RunConfig c;
    for (const auto& r : train::findPreset("underflow")->runs)
      if (r.recipe == recipes[k]) c = r;
    ASSERT_EQ(c.recipe, recipes[k]);
    c.epochs = 0;
    c.steps = steps;
    c.evalEvery = 0;
    c.telemetryEvery = 1;
    train::Session s(c);
    while (!s.finished()) {
      const auto& r = s.step();
      frames[k].push_back(r.telemetry);
      loss[k].push_back(r.loss);
    }
  }
  std::int64_t underflowAt = -1;
  for (int step = 0; step < steps && underflowAt < 0; ++step) {
    ASSERT_TRUE(frames[0][step] && frames[1][step]);
    for (const auto& t : frames[1][step]->tensors) {
      if (t.cls != telemetry::TensorClass::WeightGrads && t.cls != telemetry::TensorClass::ActivationGrads) continue;
      const auto* scaled = frames[0][step]->find(t.layer, t.cls, false);
      if (!t.scaled && scaled != nullptr && t.hist.zeros > scaled->hist.zeros) underflowAt = step;
    }
  }
  ASSERT_GE(underflowAt, 0) << "the unscaled run's gradients never held more zeros";
  const auto& first = d.diff.rows.front();
  EXPECT_EQ(first.step, underflowAt);
  EXPECT_EQ(first.pass, train::DiffPass::Backward);
  EXPECT_NE(first.tensor.find("grad"), std::string::npos) << first.tensor;
  for (const auto& r : d.diff.rows) EXPECT_GE(r.step, underflowAt) << r.tensor;
  for (std::int64_t s = 0; s <= underflowAt; ++s) EXPECT_EQ(loss[0][s], loss[1][s]) << "step " << s;
  EXPECT_GT(d.zerosUnscaled, d.zerosScaled);
  EXPECT_EQ(d.lossScaled, loss[0]);
  EXPECT_EQ(d.lossUnscaled, loss[1]);

  const auto o = runDemo("scaler-diff");
  ASSERT_EQ(o.series.size(), 2u);
  EXPECT_EQ(o.series[0].y.size(), std::size_t(d.steps));
  std::string all;
  for (const auto& line : o.lines) all += line + "\n";
  EXPECT_NE(all.find("step " + std::to_string(underflowAt) + ", backward pass"), std::string::npos) << all;
}
