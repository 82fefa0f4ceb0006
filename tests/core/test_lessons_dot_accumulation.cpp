// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The dot-product accumulation demo: the limited accumulator is recomputed
// here with plain double arithmetic (truncation by std::trunc on a scaled
// significand, not the codec), and the curves have the shape the lesson
// claims: pure 16-bit accumulators and the truncating accumulator grow with K;
// promotion to FP32 keeps the error bounded.
#include <mantissa/lessons/demo_registry.h>
#include <mantissa/lessons/demos.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

using namespace mantissa::lessons;

// x with `bits` significant bits, the rest cut off (toward zero); FP32's
// exponent range is never left here (sums of at most 16384 values below 1).
double truncateTo(double x, int bits) {
  if (x == 0)
    return 0;
  const int e = std::ilogb(x);
  return std::ldexp(std::trunc(std::ldexp(x, bits - 1 - e)), e - (bits - 1));
}

// E4M3 of a value in [0, 1), nearest even: 3 fraction bits for normals
// (>= 2^-6), a 2^-9 grid below.
double e4m3(double x) {
  if (x < std::ldexp(1.0, -6))
    return std::ldexp(std::nearbyint(std::ldexp(x, 9)), -9);
  const int e = std::ilogb(x);
  return std::ldexp(std::nearbyint(std::ldexp(x, 3 - e)), e - 3);
}

TEST(LessonDotAccumulation, LimitedAccumulatorMatchesAPlainRecomputation) {
  const DotAccumulationDemo d = dotAccumulationDemo(14, 128, 4, 5, 1024);
  ASSERT_EQ(d.rows.size(), 7u); // 16 .. 1024
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (const auto& row : d.rows) {
    double worstLimited = 0, worstPromoted = 0, worstFp32 = 0;
    for (int t = 0; t < 4; ++t) {
      std::vector<double> p;
      for (int i = 0; i < row.k; ++i) {
        const double a = e4m3(uniform(rng));
        const double b = e4m3(uniform(rng));
        p.push_back(a * b);
      }
      double exact = 0, limited = 0, partial = 0, total = 0;
      float f32 = 0;
      for (int i = 0; i < row.k; ++i) {
        exact += p[static_cast<std::size_t>(i)];
        limited = truncateTo(limited + p[static_cast<std::size_t>(i)], 14);
        partial = truncateTo(partial + p[static_cast<std::size_t>(i)], 14);
        f32 += static_cast<float>(p[static_cast<std::size_t>(i)]);
        if ((i + 1) % 128 == 0 || i + 1 == row.k) {
          total = static_cast<float>(total + partial);
          partial = 0;
        }
      }
      worstLimited = std::max(worstLimited, std::fabs(limited - exact) / exact);
      worstPromoted = std::max(worstPromoted, std::fabs(total - exact) / exact);
      worstFp32 = std::max(worstFp32, std::fabs(f32 - exact) / exact);
    }
    EXPECT_EQ(row.limited, worstLimited) << row.k;
    EXPECT_EQ(row.promoted, worstPromoted) << row.k;
    EXPECT_EQ(row.fp32, worstFp32) << row.k;
  }
}

TEST(LessonDotAccumulation, ErrorGrowsWithKUnlessPromoted) {
  const DotAccumulationDemo d = dotAccumulationDemo();
  ASSERT_EQ(d.rows.front().k, 16);
  ASSERT_EQ(d.rows.back().k, 16384);
  for (const auto& r : d.rows)
    std::printf("K %5d  fp32 %.3g  bf16 %.3g  fp16 %.3g  14-bit %.3g  promoted %.3g\n", r.k, r.fp32, r.bf16,
                r.fp16, r.limited, r.promoted);
  const auto& first = d.rows.front();
  const auto& last = d.rows.back();
  // Pure 16-bit and truncating accumulators: the error grows with K.
  EXPECT_GT(last.bf16, 10 * first.bf16);
  EXPECT_GT(last.fp16, 10 * first.fp16);
  EXPECT_GT(last.limited, 10 * first.limited);
  // At K = 4096 the 14-bit accumulator is off by percents, FP32 by far less.
  const auto& k4096 = d.rows[8];
  ASSERT_EQ(k4096.k, 4096);
  EXPECT_GT(k4096.limited, 0.01);
  EXPECT_LT(k4096.fp32, 1e-4);
  // Promotion every 128 products bounds it: no K exceeds the error of 128
  // truncated additions by much, and every K is far below the unpromoted one.
  for (const auto& r : d.rows) {
    EXPECT_LT(r.promoted, 3 * d.rows[3].limited) << r.k; // d.rows[3] is K = 128
    if (r.k >= 1024) {
      EXPECT_LT(r.promoted, r.limited / 10) << r.k;
    }
  }
  const DemoOutput o = runDemo("dot-accumulation");
  EXPECT_EQ(o.series.size(), 5u);
  EXPECT_EQ(o.lines.size(), d.rows.size() + 1);
}

} // namespace
