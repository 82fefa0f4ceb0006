// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Exponent histograms against a straightforward reference: std::fpclassify
// and std::ilogb per value (libm, no bit tricks), on adversarial tensors.
#include "ilogb_reference.h"

#include <mantissa/telemetry/histogram.h>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

using mantissa::telemetry::accumulate;
using mantissa::telemetry::ExponentHistogram;

using mantissa::telemetry::testing::ilogbReference;

// The spec boundaries and their FP32 neighbours, both signs.
std::vector<float> adversarial() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> base = {
      0.0f,
      std::ldexp(1.0f, -149),
      std::ldexp(1.0f, -148),
      std::ldexp(3.0f, -149),
      std::ldexp(1.0f, -133),
      std::ldexp(1.0f, -127),
      std::ldexp(1.0f, -126),
      std::numeric_limits<float>::denorm_min(),
      std::numeric_limits<float>::min(),
      std::nextafter(std::numeric_limits<float>::min(), 0.0f), // largest subnormal
      std::ldexp(1.0f, -24),
      std::ldexp(1.0f, -25),
      std::ldexp(1.0f, -14),
      std::ldexp(1.0f, -16),
      std::ldexp(1.0f, -9),
      std::ldexp(1.0f, -6),
      65504.0f,
      65520.0f,
      65536.0f,
      448.0f,
      464.0f,
      57344.0f,
      61440.0f,
      1.0f,
      0.1f,
      std::numeric_limits<float>::max(),
      inf,
      std::numeric_limits<float>::quiet_NaN(),
      std::numeric_limits<float>::signaling_NaN(),
      std::bit_cast<float>(0x7f800001u),
      std::bit_cast<float>(0x7fffffffu)};
  std::vector<float> out;
  for (float v : base) {
    for (float w : {v, std::nextafter(v, 0.0f), std::nextafter(v, inf)}) {
      out.push_back(w);
      out.push_back(-w);
    }
  }
  return out;
}

TEST(ExponentHistogram, MatchesTheIlogbReferenceOnBoundaryValues) {
  const auto values = adversarial();
  ExponentHistogram h;
  accumulate(values, h);
  EXPECT_EQ(h, ilogbReference(values));
  EXPECT_EQ(h.finiteNonZero() + h.zeros + h.posInf + h.negInf + h.nan, h.total);
}

TEST(ExponentHistogram, BinsSubnormalsByTheirTrueExponent) {
  ExponentHistogram h;
  const std::vector<float> v = {std::ldexp(1.0f, -149),
                                std::ldexp(1.0f, -133),
                                std::ldexp(1.5f, -133),
                                std::ldexp(1.0f, -127),
                                std::ldexp(1.0f, -126),
                                -0.0f,
                                0.0f};
  accumulate(v, h);
  EXPECT_EQ(h.count(-149), 1u);
  EXPECT_EQ(h.count(-133), 2u);
  EXPECT_EQ(h.count(-127), 1u);
  EXPECT_EQ(h.count(-126), 1u);
  EXPECT_EQ(h.zeros, 2u); // both signed zeros
  EXPECT_EQ(h.lowestExponent(), -149);
  EXPECT_EQ(h.highestExponent(), -126);
}

TEST(ExponentHistogram, SpecialsAreCountedNotDropped) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> v = {inf,
                                inf,
                                -inf,
                                std::numeric_limits<float>::quiet_NaN(),
                                -std::numeric_limits<float>::quiet_NaN(),
                                65504.0f};
  ExponentHistogram h;
  accumulate(v, h);
  EXPECT_EQ(h.posInf, 2u);
  EXPECT_EQ(h.negInf, 1u);
  EXPECT_EQ(h.nan, 2u);
  EXPECT_EQ(h.count(15), 1u);
  EXPECT_EQ(h.total, 6u);
}

// Every bit pattern class, in lengths that straddle the kernel's chunks and
// its 4-way unrolling, with specials placed in some chunks but not others.
TEST(ExponentHistogram, MatchesTheReferenceOnRandomBitPatterns) {
  std::mt19937 rng(1234);
  for (std::size_t n : {0u, 1u, 3u, 4u, 5u, 2047u, 2048u, 2049u, 10007u, 100000u}) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t bits = rng();
      switch (rng() % 4) {
      case 0: v[i] = std::bit_cast<float>(bits); break;               // anything, NaN included
      case 1: v[i] = std::bit_cast<float>(bits & 0x807fffffu); break; // zero or subnormal
      case 2: v[i] = std::bit_cast<float>((bits & 0x83ffffffu) | 0x38000000u); break; // near 2^-15
      default: v[i] = std::ldexp(static_cast<float>(bits % 1000) - 500.0f, -20); // includes zeros
      }
    }
    ExponentHistogram h;
    accumulate(v, h);
    EXPECT_EQ(h, ilogbReference(v)) << "n = " << n;
  }
}

// Tensors as training makes them: most values within ~15 binades (the AVX2
// kernel's exponent window), with zeros, rare outliers (subnormals, huge,
// inf, NaN) and a jump of the distribution mid-tensor, which makes the
// kernel pick its window again. Windows at the top (inf and NaN inside it)
// and at the bottom (next to the subnormals) too. Lengths straddle the
// kernel's 32-value rounds and the 2048-value chunks.
TEST(ExponentHistogram, MatchesTheReferenceOnConcentratedTensors) {
  std::mt19937 rng(99);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const float inf = std::numeric_limits<float>::infinity();
  const float rare[] = {std::ldexp(1.0f, -140),
                        std::ldexp(1.0f, -126),
                        -std::ldexp(3.0f, 100),
                        inf,
                        -inf,
                        std::numeric_limits<float>::quiet_NaN(),
                        -0.0f,
                        65504.0f};
  for (int centre : {-6, -20, 110, -118}) {
    for (std::size_t n : {31u, 32u, 33u, 2047u, 6161u, 100000u}) {
      std::vector<float> v(n);
      for (std::size_t i = 0; i < n; ++i) {
        const int shift = (i >= n / 2 && centre == -6) ? 30 : 0; // jump in the second half
        const std::uint32_t r = rng();
        if (r % 997 == 0)
          v[i] = rare[r % 8];
        else if (r % 10 < 3)
          v[i] = 0.0f;
        else
          v[i] = std::ldexp(normal(rng), centre + shift);
      }
      ExponentHistogram h;
      accumulate(v, h);
      EXPECT_EQ(h, ilogbReference(v)) << "centre 2^" << centre << ", n = " << n;
    }
  }
}

TEST(ExponentHistogram, AccumulatesAcrossCallsAndAdds) {
  const std::vector<float> a = {1.0f, 2.0f, 0.0f};
  const std::vector<float> b = {std::numeric_limits<float>::infinity(), 3.0f};
  ExponentHistogram h1, h2, sum;
  accumulate(a, h1);
  accumulate(b, h1);
  accumulate(a, h2);
  ExponentHistogram hb;
  accumulate(b, hb);
  sum = h2;
  sum += hb;
  EXPECT_EQ(h1, sum);
  EXPECT_EQ(h1.count(1), 2u); // 2 and 3
  EXPECT_EQ(h1.total, 5u);
}

TEST(ExponentHistogram, EmptyHistogramHasNoRange) {
  ExponentHistogram h;
  EXPECT_FALSE(h.lowestExponent().has_value());
  EXPECT_EQ(h.count(-150), 0u);
  EXPECT_EQ(h.count(128), 0u);
  EXPECT_EQ(ExponentHistogram::kBinCount, 277);
}

TEST(ExponentHistogram, TensorClassNamesRoundTrip) {
  using mantissa::telemetry::TensorClass;
  for (auto c : {TensorClass::Weights, TensorClass::Activations, TensorClass::ActivationGrads,
                 TensorClass::WeightGrads, TensorClass::Updates})
    EXPECT_EQ(mantissa::telemetry::parseTensorClass(mantissa::telemetry::tensorClassName(c)), c);
  EXPECT_EQ(mantissa::telemetry::tensorClassName(TensorClass::ActivationGrads), "activation_grads");
  EXPECT_FALSE(mantissa::telemetry::parseTensorClass("gradients").has_value());
}

} // namespace
