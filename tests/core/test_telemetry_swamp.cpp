// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Update swamping against the direct check: is round_working(w + u) == w?
// FP32: the hardware's own FP32 addition (one correctly rounded step).
// FP16/BF16: the exact sum (in double, exact for the values used here) rounded
// once by the numeric core's codec.
#include <mantissa/numeric/codec.h>
#include <mantissa/telemetry/cast_fractions.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

namespace {

namespace nm = mantissa::numeric;
namespace tl = mantissa::telemetry;
using mantissa::DType;

struct Pairs {
  std::vector<float> w, u;
  void add(float wv, float uv) {
    w.push_back(wv);
    u.push_back(uv);
  }
};

// Weights of assorted binades with updates straddling half an ULP: below,
// exactly at, above; towards and away from zero; at powers of two (where the
// gap below is half the gap above); odd and even last mantissa bits.
Pairs adversarialPairs(int mantissaBits) {
  Pairs p;
  for (float w : {1.0f, 1.5f, 3.0f, 0.75f, std::ldexp(1.0f, -10), 1000.0f, std::ldexp(1.0f, 8),
                  -1.0f, -1.5f}) {
    for (int odd = 0; odd < 2; ++odd) {
      int e = 0;
      std::frexp(w, &e);
      const float ulp = std::ldexp(1.0f, e - 1 - mantissaBits);
      const float wv = w + static_cast<float>(odd) * ulp; // odd or even last bit
      // 0.5 +- 2^-20 (and 0.25 +- 2^-21): w + u needs more than 24 bits, so
      // an FP32 sum would land exactly on the 16-bit tie; the exact sum is not.
      const float nudge = std::ldexp(1.0f, -20);
      for (float f : {0.25f, 0.4999f, 0.5f, 0.5001f, 0.75f, 1.0f, 0.2499f, 0.2501f, 0.5f + nudge,
                      0.5f - nudge, 0.25f + nudge / 2, 0.25f - nudge / 2}) {
        p.add(wv, f * ulp);
        p.add(wv, -f * ulp);
      }
    }
  }
  p.add(1.0f, 0.0f);                                     // zero update: not eligible
  p.add(1.0f, std::numeric_limits<float>::quiet_NaN());  // not eligible
  p.add(std::numeric_limits<float>::infinity(), 1.0f);   // not eligible
  p.add(0.0f, std::numeric_limits<float>::denorm_min()); // swamped only where it flushes
  return p;
}

TEST(Swamping, Fp32MatchesTheHardwareAddition) {
  Pairs p = adversarialPairs(23);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> mag(-30.0f, 0.0f);
  for (int i = 0; i < 70000; ++i) { // > 2^16 pairs: the sliced (OpenMP) pass too
    const float w = std::exp2(mag(rng)) * ((rng() & 1) ? 1.0f : -1.0f);
    p.add(w, w * std::exp2(-static_cast<float>(rng() % 30)) * ((rng() & 1) ? 1.0f : -1.0f));
  }
  std::uint64_t eligible = 0, swamped = 0;
  for (std::size_t i = 0; i < p.w.size(); ++i) {
    if (!std::isfinite(p.w[i]) || !std::isfinite(p.u[i]) || p.u[i] == 0.0f)
      continue;
    ++eligible;
    volatile float sum = p.w[i] + p.u[i];
    swamped += sum == p.w[i];
  }
  const auto c = tl::swampCounts(p.w, p.u, DType::F32);
  EXPECT_EQ(c.eligible, eligible);
  EXPECT_EQ(c.swamped, swamped);
  EXPECT_GT(swamped, 0u);
  EXPECT_LT(swamped, eligible);
  EXPECT_DOUBLE_EQ(tl::swampedFraction(p.w, p.u, DType::F32),
                   static_cast<double>(swamped) / static_cast<double>(eligible));
}

void expectMatchesCodec(DType working, nm::FormatId id, int mantissaBits) {
  Pairs p = adversarialPairs(mantissaBits);
  // Random pairs, including weights that are not representable in the
  // working format (rounded first) and updates near half an ULP.
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> mag(-12.0f, 4.0f);
  for (int i = 0; i < 70000; ++i) { // > 2^16 pairs: the sliced (OpenMP) pass too
    const float w = std::exp2(mag(rng)) * ((rng() & 1) ? 1.0f : -1.0f);
    const float ratio =
        std::exp2(-static_cast<float>(mantissaBits) - 2.0f + static_cast<float>(rng() % 4));
    p.add(w, w * ratio * (0.5f + static_cast<float>(rng() % 1000) / 1000.0f) *
                 ((rng() & 1) ? 1.0f : -1.0f));
  }
  const nm::FloatFormat& f = nm::formatInfo(id);
  std::uint64_t eligible = 0, swamped = 0;
  for (std::size_t i = 0; i < p.w.size(); ++i) {
    if (!std::isfinite(p.w[i]) || !std::isfinite(p.u[i]) || p.u[i] == 0.0f)
      continue;
    ++eligible;
    const double w = nm::toDouble(f, nm::encode(f, static_cast<double>(p.w[i])).bits);
    const double sum = w + static_cast<double>(p.u[i]); // exact: <= 45 significant bits here
    swamped += nm::toDouble(f, nm::encode(f, sum).bits) == w;
  }
  const auto c = tl::swampCounts(p.w, p.u, working);
  EXPECT_EQ(c.eligible, eligible);
  EXPECT_EQ(c.swamped, swamped);
  EXPECT_GT(swamped, 0u);
  EXPECT_LT(swamped, eligible);
}

TEST(Swamping, Fp16MatchesTheCodec) {
  expectMatchesCodec(DType::F16, nm::FormatId::Fp16, 10);
}
TEST(Swamping, Bf16MatchesTheCodec) {
  expectMatchesCodec(DType::BF16, nm::FormatId::Bf16, 7);
}

TEST(Swamping, TiesGoToTheEvenNeighbour) {
  // w = 1 + 2^-23 (odd last bit): +half ULP rounds up (to even), not swamped;
  // w = 1 (even): +half ULP ties back to 1, swamped; below 1 the gap halves.
  const float half = std::ldexp(1.0f, -24);
  const std::vector<float> w = {1.0f + 2 * half, 1.0f, 1.0f, 1.0f};
  const std::vector<float> u = {half, half, -half / 2, -half};
  const std::vector<float> expectSwamped = {0, 1, 1, 0};
  for (std::size_t i = 0; i < w.size(); ++i) {
    const auto c = tl::swampCounts(std::span(&w[i], 1), std::span(&u[i], 1), DType::F32);
    EXPECT_EQ(c.swamped, static_cast<std::uint64_t>(expectSwamped[i])) << "case " << i;
  }
}

TEST(Swamping, Bf16TieOfTheFp32SumIsBrokenByTheExactSum) {
  // w = 1; BF16 half-gaps are 2^-8 above 1 and 2^-9 below it.
  const float w = 1.0f;
  auto swamped = [&](float u) {
    return tl::swampCounts(std::span(&w, 1), std::span(&u, 1), DType::BF16).swamped;
  };
  EXPECT_EQ(swamped(std::ldexp(1.0f, -8)), 1u);                          // tie -> even (1)
  EXPECT_EQ(swamped(std::ldexp(1.0f, -8) + std::ldexp(1.0f, -30)), 0u);  // just above: 1 + 2^-7
  EXPECT_EQ(swamped(std::ldexp(1.0f, -8) - std::ldexp(1.0f, -31)), 1u);  // just below
  EXPECT_EQ(swamped(-std::ldexp(1.0f, -9) - std::ldexp(1.0f, -31)), 0u); // down: 1 - 2^-8
  EXPECT_EQ(swamped(-std::ldexp(1.0f, -9)), 1u);                         // tie -> even (1)
}

TEST(Swamping, MismatchedSizesAreAnError) {
  const std::vector<float> w(3), u(4);
  EXPECT_THROW(tl::swampedFraction(w, u, DType::F32), std::invalid_argument);
  EXPECT_EQ(tl::swampedFraction({}, {}, DType::F32), 0.0);
}

} // namespace
