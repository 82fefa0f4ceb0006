// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Each scaler preset driven through scripted overflow sequences; the whole trace
// (scale before every step, skipped flags, every event) is compared with a trace
// derived by hand from the library's rules as quoted in loss_scaler.cpp:
//   PyTorch/Keras/Apex: growth on the N-th consecutive finite step (N = 2000),
//     overflow halves and skips, tracker reset; Apex caps at 2^24.
//   DeepSpeed: growth when (iter - last_overflow - 1) is a positive multiple of
//     1000, i.e. on the 1001st finite step; two overflows before the first backoff;
//     hysteresis refilled only by growth; raise at min_scale.
//   Megatron: growth on the 1000th finite step; backoff once 2 overflows used the
//     hysteresis, which only growth refills; min 1.
#include <mantissa/amp/loss_scaler.h>

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace {

using mantissa::amp::LossScaler;
using mantissa::amp::scalerPreset;
using mantissa::amp::ScalerConfig;
using Kind = mantissa::amp::ScalerEventKind;

struct Run {
  int count;
  bool inf;
};

struct Ev {
  std::int64_t step;
  Kind kind;
  double before, after;
  bool operator==(const Ev&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Ev& e) {
  return os << "{step " << e.step << ", " << mantissa::amp::toString(e.kind) << ", " << e.before
            << " -> " << e.after << "}";
}

// Expected events of one step, in the order the scaler reports them.
std::vector<Ev> overflowSkip(std::int64_t step, double scale) {
  return {{step, Kind::Overflow, scale, scale}, {step, Kind::SkippedStep, scale, scale}};
}
std::vector<Ev> overflowBackoff(std::int64_t step, double before, double after) {
  return {{step, Kind::Overflow, before, after},
          {step, Kind::Backoff, before, after},
          {step, Kind::SkippedStep, before, after}};
}
std::vector<Ev> growth(std::int64_t step, double before, double after) {
  return {{step, Kind::Growth, before, after}};
}
std::vector<Ev> cat(std::initializer_list<std::vector<Ev>> parts) {
  std::vector<Ev> all;
  for (const auto& p : parts)
    all.insert(all.end(), p.begin(), p.end());
  return all;
}

// Drives the scaler through the script and checks the whole trace against the
// expected events: the scale before each step must be the initial scale changed
// only by the expected Backoff/Growth events, and a step is skipped exactly when
// a SkippedStep event is expected for it.
void expectTrace(ScalerConfig config, const std::vector<Run>& script, const std::vector<Ev>& expected) {
  LossScaler scaler(std::move(config));
  double expectedScale = scaler.scale();
  std::size_t next = 0; // index into expected
  std::vector<Ev> seen;
  std::int64_t step = 0;
  for (const Run& run : script) {
    for (int i = 0; i < run.count; ++i, ++step) {
      ASSERT_EQ(scaler.scale(), expectedScale) << "scale before step " << step;
      const auto u = scaler.update(step, run.inf);
      bool expectSkip = false;
      for (; next < expected.size() && expected[next].step == step; ++next) {
        expectSkip |= expected[next].kind == Kind::SkippedStep;
        if (expected[next].kind == Kind::Backoff || expected[next].kind == Kind::Growth)
          expectedScale = expected[next].after;
      }
      ASSERT_EQ(u.skipped, expectSkip) << "step " << step;
      for (const auto& e : scaler.lastEvents())
        seen.push_back({e.step, e.kind, e.scaleBefore, e.scaleAfter});
      ASSERT_EQ(seen.size(), next) << "events differ at step " << step << ": got "
                                   << (seen.empty() ? Ev{} : seen.back());
    }
  }
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(scaler.scale(), expectedScale);
}

TEST(LossScalerPresets, DocumentedConstants) {
  const auto pt = scalerPreset("pytorch");
  EXPECT_EQ(pt.initScale, 65536.0);
  EXPECT_EQ(pt.growthFactor, 2.0);
  EXPECT_EQ(pt.backoffFactor, 0.5);
  EXPECT_EQ(pt.growthInterval, 2000);
  EXPECT_FALSE(pt.minScale || pt.maxScale);
  const auto keras = scalerPreset("keras");
  EXPECT_EQ(keras.initScale, 32768.0);
  EXPECT_EQ(keras.growthInterval, 2000);
  const auto apex = scalerPreset("apex");
  EXPECT_EQ(apex.initScale, 65536.0);
  EXPECT_EQ(apex.growthInterval, 2000);
  EXPECT_EQ(apex.maxScale, 16777216.0);
  EXPECT_FALSE(apex.minScale);
  const auto ds = scalerPreset("deepspeed");
  EXPECT_EQ(ds.initScale, 65536.0);
  EXPECT_EQ(ds.growthInterval, 1000);
  EXPECT_EQ(ds.hysteresis, 2);
  EXPECT_EQ(ds.minScale, 1.0);
  const auto mg = scalerPreset("megatron");
  EXPECT_EQ(mg.initScale, 4294967296.0);
  EXPECT_EQ(mg.growthInterval, 1000);
  EXPECT_EQ(mg.hysteresis, 2);
  EXPECT_EQ(mg.minScale, 1.0);
  EXPECT_EQ(scalerPreset("static:1024").initScale, 1024.0);
  EXPECT_FALSE(scalerPreset("static:0.5").dynamic);
  EXPECT_EQ(scalerPreset("none").initScale, 1.0);
}

TEST(LossScalerPresets, BadSpecsAreRefusedByName) {
  for (const char* spec : {"", "Pytorch", "torch", "static", "static:", "static:0", "static:-4",
                           "static:abc", "static:inf", "static:1e400", "static:12x", "static1024"}) {
    try {
      scalerPreset(spec);
      ADD_FAILURE() << "accepted '" << spec << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("'" + std::string(spec) + "'"), std::string::npos)
          << e.what();
    }
  }
}

TEST(LossScalerPyTorch, GrowsOnThe2000thFiniteStepAndHalvesOnOverflow) {
  expectTrace(scalerPreset("pytorch"), {{2000, false}, {1, true}, {2000, false}},
              cat({growth(1999, 65536, 131072), overflowBackoff(2000, 131072, 65536),
                   growth(4000, 65536, 131072)}));
}

TEST(LossScalerPyTorch, OverflowResetsTheGrowthTracker) {
  expectTrace(scalerPreset("pytorch"), {{1999, false}, {1, true}, {1999, false}},
              overflowBackoff(1999, 65536, 32768));
}

TEST(LossScalerPyTorch, ConsecutiveOverflowsHalveEachTimeWithNoMinimum) {
  expectTrace(scalerPreset("pytorch"), {{20, true}}, [] {
    std::vector<Ev> ev;
    double s = 65536;
    for (int i = 0; i < 20; ++i, s /= 2)
      ev = cat({ev, overflowBackoff(i, s, s / 2)});
    return ev;
  }());
}

TEST(LossScalerPyTorch, NeverGrowsPastFloat32ButKerasDoes) {
  // At 2^127 the next growth overflows float32: PyTorch keeps 2^127 (and resets
  // the tracker), Keras stores inf.
  auto pt = scalerPreset("pytorch");
  pt.initScale = 0x1p127;
  pt.growthInterval = 1;
  expectTrace(pt, {{3, false}}, {});
  auto keras = scalerPreset("keras");
  keras.initScale = 0x1p127;
  keras.growthInterval = 1;
  expectTrace(keras, {{1, false}}, growth(0, 0x1p127, std::numeric_limits<double>::infinity()));
}

TEST(LossScalerKeras, SameCountingFromTwoToThe15) {
  expectTrace(scalerPreset("keras"), {{2000, false}, {2, true}, {2000, false}},
              cat({growth(1999, 32768, 65536), overflowBackoff(2000, 65536, 32768),
                   overflowBackoff(2001, 32768, 16384), growth(4001, 16384, 32768)}));
}

TEST(LossScalerApex, CapsAtTwoToThe24) {
  // Eight growths reach 2^24 at step 15999; the ninth window ends at 17999 with
  // min(2^24, 2^25) = 2^24: no change, no event. Then an overflow halves.
  std::vector<Ev> ev;
  double s = 65536;
  for (int k = 1; k <= 8; ++k, s *= 2)
    ev = cat({ev, growth(2000 * k - 1, s, 2 * s)});
  ev = cat({ev, overflowBackoff(18000, 16777216, 8388608)});
  expectTrace(scalerPreset("apex"), {{18000, false}, {1, true}}, ev);
}

TEST(LossScalerApex, HasNoMinimumByDefault) {
  auto c = scalerPreset("apex");
  c.initScale = 1;
  expectTrace(c, {{2, true}}, cat({overflowBackoff(0, 1, 0.5), overflowBackoff(1, 0.5, 0.25)}));
}

TEST(LossScalerDeepSpeed, FirstGrowthOnThe1001stFiniteStepThenEvery1000) {
  expectTrace(scalerPreset("deepspeed"), {{2001, false}},
              cat({growth(1000, 65536, 131072), growth(2000, 131072, 262144)}));
}

TEST(LossScalerDeepSpeed, TwoOverflowsBeforeBackingOffAndNoRefillByBackoff) {
  // 0: hysteresis 2 -> 1, skipped only. 1: backoff. 2: backoff again (still 1).
  // 3..1003: last overflow at 2, growth when iter - 2 - 1 = 1000 -> step 1003,
  // which refills the hysteresis: 1004 only skips, 1005 backs off.
  expectTrace(scalerPreset("deepspeed"), {{3, true}, {1001, false}, {2, true}},
              cat({overflowSkip(0, 65536), overflowBackoff(1, 65536, 32768),
                   overflowBackoff(2, 32768, 16384), growth(1003, 16384, 32768),
                   overflowSkip(1004, 32768), overflowBackoff(1005, 32768, 16384)}));
}

TEST(LossScalerDeepSpeed, FiniteStepsDoNotRefillHysteresisUnlessConsecutive) {
  expectTrace(scalerPreset("deepspeed"), {{1, true}, {5, false}, {1, true}},
              cat({overflowSkip(0, 65536), overflowBackoff(6, 65536, 32768)}));
  auto consecutive = scalerPreset("deepspeed");
  consecutive.consecutiveHysteresis = true;
  expectTrace(consecutive, {{1, true}, {5, false}, {1, true}},
              cat({overflowSkip(0, 65536), overflowSkip(6, 65536)}));
}

TEST(LossScalerDeepSpeed, ClampsAtMinAndThenStopsTheRun) {
  auto c = scalerPreset("deepspeed");
  c.initScale = 2;
  LossScaler s(c);
  EXPECT_TRUE(s.update(0, true).stopReason.empty()); // hysteresis 2 -> 1
  const auto down = s.update(1, true);                // 2 -> max(1, 1)
  EXPECT_EQ(down.scaleAfter, 1.0);
  EXPECT_TRUE(down.stopReason.empty());
  const auto stop = s.update(2, true); // at min_scale with raise_error_at_min_scale
  EXPECT_NE(stop.stopReason.find("already at minimum"), std::string_view::npos);
  EXPECT_TRUE(stop.skipped);
  EXPECT_EQ(stop.scaleAfter, 1.0);
}

TEST(LossScalerMegatron, HysteresisTwoRefilledOnlyByGrowth) {
  // 0: tracker 2 -> 1, skip. 1: -> 0, backoff. 2: finite. 3: -> -1, backoff.
  // 4..1003: growth on the 1000th finite step (1003), tracker refilled to 2.
  constexpr double k32 = 4294967296.0;
  expectTrace(scalerPreset("megatron"), {{2, true}, {1, false}, {1, true}, {1000, false}, {2, true}},
              cat({overflowSkip(0, k32), overflowBackoff(1, k32, k32 / 2),
                   overflowBackoff(3, k32 / 2, k32 / 4), growth(1003, k32 / 4, k32 / 2),
                   overflowSkip(1004, k32 / 2), overflowBackoff(1005, k32 / 2, k32 / 4)}));
}

TEST(LossScalerMegatron, GrowsOnThe1000thFiniteStepAndClampsAtMin) {
  expectTrace(scalerPreset("megatron"), {{1000, false}}, growth(999, 4294967296.0, 8589934592.0));
  auto c = scalerPreset("megatron");
  c.initScale = 2;
  c.hysteresis = 1;
  expectTrace(c, {{3, true}},
              cat({overflowBackoff(0, 2, 1), overflowSkip(1, 1), overflowSkip(2, 1)}));
}

TEST(LossScalerStatic, SkipsOverflowsAndNeverChanges) {
  expectTrace(scalerPreset("static:1024"), {{3000, false}, {1, true}, {3000, false}},
              overflowSkip(3000, 1024));
}

TEST(LossScalerNone, NeverScalesNorSkips) {
  expectTrace(scalerPreset("none"), {{5, false}, {1, true}}, {{5, Kind::Overflow, 1, 1}});
}

TEST(LossScalerState, ReportsTrackers) {
  LossScaler pt(scalerPreset("pytorch"));
  for (int i = 0; i < 5; ++i)
    pt.update(i, false);
  EXPECT_EQ(pt.state().growthTracker, 5);
  LossScaler mg(scalerPreset("megatron"));
  EXPECT_EQ(mg.state().hysteresisLeft, 2);
  const auto u = mg.update(0, true);
  EXPECT_EQ(u.state.hysteresisLeft, 1);
  EXPECT_EQ(u.state.scale, 4294967296.0);
  EXPECT_FLOAT_EQ(LossScaler(scalerPreset("pytorch")).invScale(), 1.0f / 65536.0f);
}

TEST(LossScalerConfig, InvalidValuesAreRefused) {
  auto c = scalerPreset("pytorch");
  c.backoffFactor = 1.5;
  EXPECT_THROW(LossScaler{c}, std::invalid_argument);
  c = scalerPreset("pytorch");
  c.growthInterval = 0;
  EXPECT_THROW(LossScaler{c}, std::invalid_argument);
  c = scalerPreset("pytorch");
  c.initScale = -1;
  EXPECT_THROW(LossScaler{c}, std::invalid_argument);
}

// unscaleAndCheck against a direct loop, with non-finite values at the start, the
// middle and the end of buffers whose sizes cover vector bodies and tails.
TEST(LossScalerUnscale, MatchesADirectLoop) {
  const float kInf = std::numeric_limits<float>::infinity();
  const float kNan = std::numeric_limits<float>::quiet_NaN();
  for (int n : {1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 64, 67, 1000}) {
    for (float bad : {kInf, -kInf, kNan, 0.0f}) {
      for (int pos : {0, n / 2, n - 1}) {
        for (float inv : {1.0f / 65536.0f, 1.0f, 0.5f}) {
          std::vector<float> g(static_cast<std::size_t>(n));
          for (int i = 0; i < n; ++i)
            g[static_cast<std::size_t>(i)] = (i % 3 == 0 ? -1.0f : 1.0f) * (1.0f + 1e-3f * i) *
                                             (i % 5 == 0 ? FLT_MAX : 1024.0f);
          g[static_cast<std::size_t>(pos)] = bad;
          std::vector<float> want = g;
          bool wantFlag = false;
          for (float& w : want) {
            wantFlag = wantFlag || !std::isfinite(w);
            w = w * inv;
          }
          const bool flag = LossScaler::unscaleAndCheck(g, inv);
          ASSERT_EQ(flag, wantFlag) << "n " << n << " pos " << pos << " bad " << bad;
          for (std::size_t i = 0; i < g.size(); ++i) {
            if (std::isnan(want[i]))
              ASSERT_TRUE(std::isnan(g[i])) << i;
            else
              ASSERT_EQ(g[i], want[i]) << i;
          }
        }
      }
    }
  }
  std::vector<float> empty;
  EXPECT_FALSE(LossScaler::unscaleAndCheck(empty, 0.5f));
}

} // namespace

// describeScaler says what loss_scaler.h documents, with the presets'
// published defaults (GradScaler: 2^16, x2 after 2000, x0.5; DeepSpeed:
// window 1000, hysteresis 2, min 1; Megatron: 2^32; Apex: max 2^24).
TEST(DescribeScaler, MatchesItsDocumentation) {
  using mantissa::amp::describeScaler;
  using mantissa::amp::scalerPreset;
  EXPECT_EQ(describeScaler(scalerPreset("pytorch")),
            "pytorch: init 2^16, x2 after 2000 finite steps, x0.5 on overflow");
  EXPECT_EQ(describeScaler(scalerPreset("deepspeed")),
            "deepspeed: init 2^16, x2 after 1000 finite steps, x0.5 on overflow (after 2 overflows), min 1");
  EXPECT_EQ(describeScaler(scalerPreset("megatron")),
            "megatron: init 2^32, x2 after 1000 finite steps, x0.5 on overflow (after 2 overflows), min 1");
  EXPECT_EQ(describeScaler(scalerPreset("apex")),
            "apex: init 2^16, x2 after 2000 finite steps, x0.5 on overflow, max 2^24");
  EXPECT_EQ(describeScaler(scalerPreset("static:1024")), "static loss scale 2^10, overflowing steps skipped");
  EXPECT_EQ(describeScaler(scalerPreset("static:1000")), "static loss scale 1000, overflowing steps skipped");
  EXPECT_EQ(describeScaler(scalerPreset("none")), "no loss scaling");
}

TEST(FormatScale, PowersOfTwoAsExponents) {
  using mantissa::amp::formatScale;
  EXPECT_EQ(formatScale(4294967296.0), "2^32");
  EXPECT_EQ(formatScale(65536.0), "2^16");
  EXPECT_EQ(formatScale(1024.0), "2^10");
  EXPECT_EQ(formatScale(1.0 / 16384.0), "2^-14");
  EXPECT_EQ(formatScale(512.0), "512"); // small powers read better as numbers
  EXPECT_EQ(formatScale(1.0), "1");
  EXPECT_EQ(formatScale(3000.0), "3000");
  EXPECT_EQ(formatScale(0.5), "0.5");
}
