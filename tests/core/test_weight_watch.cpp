// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The watched weight, computed in core: the binade search against frexp, and
// swamping in pure BF16 against the rounding rule itself: an SGD update
// lr x g changes a BF16 weight w exactly when |lr x g| reaches half a BF16
// ULP of w (2^(e - 8) for w = m 2^e, m in [0.5, 1)).
#include <mantissa/model/network.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/session.h>
#include <mantissa/train/weight_watch.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

using namespace mantissa;

namespace {

// W [784, 32]: the weight from pixel 400 (the image's centre, where the
// digits are; border pixels are always 0 and their gradients too) to unit 3.
constexpr std::int64_t kCentre = 400 * 32 + 3;

train::RunConfig swampingRun(const char* recipe) {
  for (const train::RunConfig& c : train::findPreset("swamping")->runs)
    if (c.recipe == recipe) {
      train::RunConfig r = c;
      r.model = "mlp:784-32-10";
      r.steps = 30;
      r.epochs = 0;
      r.telemetryEvery = 0;
      return r;
    }
  ADD_FAILURE() << "no " << recipe << " run in the swamping preset";
  return {};
}

} // namespace

TEST(WeightWatch, FindsTheFirstValueOfABinade) {
  train::Session session(swampingRun("bf16-mixed"));
  session.step();
  const auto w = session.model().params()[0].w.f32();
  for (int exponent : {-12, -9, -7, -5, 3}) {
    std::int64_t expected = -1;
    for (std::size_t i = 0; i < w.size() && expected < 0; ++i) {
      int e = 0;
      if (w[i] != 0.0f && std::isfinite(w[i]) && (std::frexp(w[i], &e), e - 1 == exponent))
        expected = std::int64_t(i);
    }
    EXPECT_EQ(train::findInBinade(session.model(), 0, telemetry::TensorClass::Weights, exponent),
              expected)
        << "binade " << exponent;
  }
  EXPECT_EQ(train::findInBinade(session.model(), 7, telemetry::TensorClass::Weights, -7), -1);
}

TEST(WeightWatch, SwampingInPureBf16FollowsTheRoundingRule) {
  // The 32 weights from the centre pixel, each watched on its own.
  train::Session session(swampingRun("bf16-pure"));
  session.step();
  std::vector<train::WeightWatch> watches(32);
  std::vector<train::WatchSample> before;
  const train::StepReport& first = session.step();
  for (std::int64_t o = 0; o < 32; ++o) {
    const auto s = watches[std::size_t(o)].sample(session, first, 0, kCentre - 3 + o);
    ASSERT_TRUE(s.has_value());
    EXPECT_FALSE(s->hasMaster);
    EXPECT_EQ(s->working, DType::BF16);
    before.push_back(*s);
  }
  int swamped = 0, kept = 0;
  while (!session.finished()) {
    const train::StepReport& report = session.step();
    for (std::int64_t o = 0; o < 32; ++o) {
      const float w = before[std::size_t(o)].master;
      const auto after = watches[std::size_t(o)].sample(session, report, 0, kCentre - 3 + o);
      ASSERT_TRUE(after.has_value());
      // The gradient the update used is the one read after the step.
      const double update = std::fabs(double(report.lr) * double(after->gradient));
      int e = 0;
      std::frexp(w, &e);
      const double halfUlp = std::ldexp(1.0, e - 9);
      if (after->gradient != 0.0f && update < 0.9 * halfUlp) {
        EXPECT_TRUE(after->swamped) << "step " << report.step << ": |lr g| " << update
                                    << " < half ULP " << halfUlp;
        swamped += after->swamped;
      } else if (update > 1.1 * halfUlp) {
        EXPECT_FALSE(after->swamped) << "step " << report.step;
        kept += !after->swamped;
      }
      EXPECT_EQ(after->swampedSoFar,
                before[std::size_t(o)].swampedSoFar + (after->swamped ? 1 : 0));
      before[std::size_t(o)] = *after;
    }
  }
  // Both sides of the rule were seen.
  EXPECT_GT(swamped, 10);
  EXPECT_GT(kept, 10);
}

TEST(WeightWatch, AMasterCopyKeepsTheUpdates) {
  train::Session session(swampingRun("bf16-mixed"));
  train::WeightWatch watch;
  session.step();
  auto previous = watch.sample(session, session.step(), 0, kCentre);
  ASSERT_TRUE(previous.has_value());
  while (!session.finished()) {
    const auto s = watch.sample(session, session.step(), 0, kCentre);
    ASSERT_TRUE(s.has_value());
    EXPECT_TRUE(s->hasMaster);
    if (s->gradient != 0.0f) {
      EXPECT_FALSE(s->swamped) << "FP32 master weights keep an update of " << s->gradient;
    }
  }
  EXPECT_FALSE(watch.sample(session, session.step(), 0, 1 << 30).has_value());
}
