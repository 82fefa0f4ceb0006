// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Learning-rate schedules at chosen points against the closed form worked out by
// hand (base 0.1, W = 10, T = 110, floor 0.01).
#include <mantissa/amp/lr_schedule.h>

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace {

using mantissa::amp::LrSchedule;
using mantissa::amp::LrScheduleConfig;
using mantissa::amp::LrScheduleKind;

LrSchedule cosine() {
  return LrSchedule({LrScheduleKind::WarmupCosine, 0.1, 10, 110, 0.01});
}

TEST(LrSchedule, ConstantIsConstant) {
  const LrSchedule s({LrScheduleKind::Constant, 0.05, 0, 0, 0});
  for (std::int64_t step : {0, 1, 999, 1000000})
    EXPECT_EQ(s.lrAt(step), 0.05);
}

TEST(LrSchedule, LinearWarmupReachesBaseOnTheLastWarmupStep) {
  const auto s = cosine();
  EXPECT_DOUBLE_EQ(s.lrAt(0), 0.01); // 0.1 * 1/10
  EXPECT_DOUBLE_EQ(s.lrAt(4), 0.05); // 0.1 * 5/10
  EXPECT_DOUBLE_EQ(s.lrAt(9), 0.1);  // 0.1 * 10/10
}

TEST(LrSchedule, CosineDecayAtChosenPoints) {
  const auto s = cosine();
  EXPECT_DOUBLE_EQ(s.lrAt(10), 0.1);  // r = 0: cos 0 = 1
  EXPECT_DOUBLE_EQ(s.lrAt(60), 0.055); // r = 1/2: floor + 0.09 * 1/2
  // r = 1/4: 0.01 + 0.09 * (1 + sqrt(2)/2) / 2
  EXPECT_NEAR(s.lrAt(35), 0.01 + 0.09 * (1.0 + std::sqrt(2.0) / 2.0) / 2.0, 1e-15);
  // r = 3/4: 0.01 + 0.09 * (1 - sqrt(2)/2) / 2
  EXPECT_NEAR(s.lrAt(85), 0.01 + 0.09 * (1.0 - std::sqrt(2.0) / 2.0) / 2.0, 1e-15);
  EXPECT_EQ(s.lrAt(110), 0.01); // at and after T: the floor
  EXPECT_EQ(s.lrAt(5000), 0.01);
}

TEST(LrSchedule, DecaysMonotonicallyAfterWarmup) {
  const auto s = cosine();
  for (std::int64_t step = 10; step < 120; ++step)
    ASSERT_LE(s.lrAt(step + 1), s.lrAt(step)) << step;
}

TEST(LrSchedule, NoWarmupStartsAtBase) {
  const LrSchedule s({LrScheduleKind::WarmupCosine, 0.2, 0, 100, 0.0});
  EXPECT_DOUBLE_EQ(s.lrAt(0), 0.2);
  EXPECT_DOUBLE_EQ(s.lrAt(50), 0.1);
}

TEST(LrSchedule, BadConfigsAreRefused) {
  EXPECT_THROW(LrSchedule({LrScheduleKind::WarmupCosine, 0.1, 10, 10, 0.0}), std::invalid_argument);
  EXPECT_THROW(LrSchedule({LrScheduleKind::WarmupCosine, 0.1, -1, 10, 0.0}), std::invalid_argument);
  EXPECT_THROW(LrSchedule({LrScheduleKind::WarmupCosine, 0.1, 0, 10, 0.2}), std::invalid_argument);
  EXPECT_THROW(LrSchedule({LrScheduleKind::Constant, -0.1, 0, 0, 0.0}), std::invalid_argument);
  EXPECT_THROW(LrSchedule({LrScheduleKind::Constant, NAN, 0, 0, 0.0}), std::invalid_argument);
}

} // namespace
