// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Rounding modes, ties, overflow, FTZ, and stepping through a format.
#include <mantissa/numeric/codec.h>

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace {

using namespace mantissa::numeric;

const FloatFormat& fmt(FormatId id) { return formatInfo(id); }

EncodeResult enc(FormatId id, const char* text, EncodeOptions o = {}) {
  const ParseResult p = parseNumber(text);
  EXPECT_TRUE(p.value.has_value()) << p.error;
  return encode(fmt(id), p.value.value_or(ExactValue()), o);
}

EncodeOptions with(Rounding r) {
  EncodeOptions o;
  o.rounding = r;
  return o;
}

TEST(NumericRounding, TiesGoToEven) {
  // FP16 spacing at 2048 is 2: 2049 lies between 2048 (even) and 2050 (odd).
  EXPECT_EQ(enc(FormatId::Fp16, "2049").bits, 0x6800u);
  EXPECT_EQ(enc(FormatId::Fp16, "2051").bits, 0x6802u);
  EXPECT_EQ(enc(FormatId::Fp16, "-2049").bits, 0xe800u);
  // BF16 at 1: spacing 2^-7; 1 + 2^-8 and 1 + 3 x 2^-8 are ties.
  EXPECT_EQ(encode(fmt(FormatId::Bf16), 1.0 + 0x1p-8).bits, 0x3f80u);
  EXPECT_EQ(encode(fmt(FormatId::Bf16), 1.0 + 3 * 0x1p-8).bits, 0x3f82u);
  // E4M3: 464 is the tie between 448 (1.110) and 480 (1.111, the NaN pattern).
  EXPECT_EQ(enc(FormatId::Fp8E4M3, "464").bits, 0x7eu);
  // FP16: 65520 ties between 65504 (odd) and 65536, which overflows to inf.
  EXPECT_EQ(enc(FormatId::Fp16, "65519.99").bits, 0x7bffu);
  EXPECT_EQ(enc(FormatId::Fp16, "65520").bits, 0x7c00u);
  // Ties among subnormals: 1.5 x 2^-24 -> 2 x 2^-24, 2.5 x 2^-24 -> 2 x 2^-24.
  EXPECT_EQ(encode(fmt(FormatId::Fp16), 1.5 * 0x1p-24).bits, 0x0002u);
  EXPECT_EQ(encode(fmt(FormatId::Fp16), 2.5 * 0x1p-24).bits, 0x0002u);
  EXPECT_EQ(encode(fmt(FormatId::Fp16), 0.5 * 0x1p-24).bits, 0x0000u);
}

TEST(NumericRounding, DecimalRoundsOnceNotTwice) {
  // 1 + 2^-11 + 10^-27 is just above an FP16 tie. Through double it becomes
  // the tie itself and would round down to 1.0: a single rounding goes up.
  EXPECT_EQ(enc(FormatId::Fp16, "1.000488281250000000000000001").bits, 0x3c01u);
  EXPECT_EQ(enc(FormatId::Fp16, "1.00048828125").bits, 0x3c00u);
  EXPECT_EQ(encode(fmt(FormatId::Fp16), 1.000488281250000000000000001).bits, 0x3c00u);
  // Just below a BF16 tie, from far below the double's precision.
  EXPECT_EQ(enc(FormatId::Bf16, "1.00390624999999999999999999").bits, 0x3f80u);
  EXPECT_EQ(enc(FormatId::Bf16, "1.00390625000000000000000001").bits, 0x3f81u);
}

TEST(NumericRounding, DirectedModesOnPointOne) {
  // 0.1 lies between FP16 0x2e66 (0.0999755859375) and 0x2e67.
  EXPECT_EQ(enc(FormatId::Fp16, "0.1", with(Rounding::TowardZero)).bits, 0x2e66u);
  EXPECT_EQ(enc(FormatId::Fp16, "0.1", with(Rounding::Down)).bits, 0x2e66u);
  EXPECT_EQ(enc(FormatId::Fp16, "0.1", with(Rounding::Up)).bits, 0x2e67u);
  EXPECT_EQ(enc(FormatId::Fp16, "-0.1", with(Rounding::TowardZero)).bits, 0xae66u);
  EXPECT_EQ(enc(FormatId::Fp16, "-0.1", with(Rounding::Up)).bits, 0xae66u);
  EXPECT_EQ(enc(FormatId::Fp16, "-0.1", with(Rounding::Down)).bits, 0xae67u);
  // Exact values are unchanged by every mode.
  for (Rounding r : {Rounding::NearestEven, Rounding::TowardZero, Rounding::Up, Rounding::Down,
                     Rounding::Stochastic}) {
    const EncodeResult e = enc(FormatId::Fp16, "0.1875", with(r));
    EXPECT_EQ(e.bits, 0x3200u);
    EXPECT_FALSE(e.inexact);
  }
}

TEST(NumericRounding, DirectedModesBracketTheValue) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-30, 20);
  for (FormatId id : {FormatId::Fp16, FormatId::Bf16, FormatId::Fp8E4M3, FormatId::Fp8E5M2}) {
    const FloatFormat& f = fmt(id);
    for (int i = 0; i < 20000; ++i) {
      const double x = std::ldexp(mantissa(rng), exponent(rng)) * (rng() & 1 ? -1 : 1);
      if (std::fabs(x) > f.maxFinite())
        continue;
      const double down = toDouble(f, encode(f, x, with(Rounding::Down)).bits);
      const double up = toDouble(f, encode(f, x, with(Rounding::Up)).bits);
      const double zero = toDouble(f, encode(f, x, with(Rounding::TowardZero)).bits);
      const double near = toDouble(f, encode(f, x).bits);
      ASSERT_LE(down, x);
      ASSERT_GE(up, x);
      ASSERT_EQ(zero, x < 0 ? up : down);
      ASSERT_TRUE(near == down || near == up);
      ASSERT_LE(std::fabs(near - x), (up - down) / 2);
      if (down != up) { // adjacent: nothing of the format lies strictly between
        ASSERT_EQ(nextUp(f, encode(f, x, with(Rounding::Down)).bits),
                  encode(f, x, with(Rounding::Up)).bits);
      }
    }
  }
}

TEST(NumericRounding, StochasticIsReproducibleAndExactAtTheThreshold) {
  // 1 + 2^-12 is a quarter of the way from FP16 1.0 to 1 + 2^-10.
  EncodeOptions o = with(Rounding::Stochastic);
  const double x = 1.0 + 0x1p-12;
  o.random = 0x3fffffff; // < 0.25 x 2^32: up
  EXPECT_EQ(encode(fmt(FormatId::Fp16), x, o).bits, 0x3c01u);
  o.random = 0x40000000; // = 0.25 x 2^32: down
  EXPECT_EQ(encode(fmt(FormatId::Fp16), x, o).bits, 0x3c00u);
  o.random = 0x12345678;
  const auto first = encode(fmt(FormatId::Fp16), x, o).bits;
  EXPECT_EQ(encode(fmt(FormatId::Fp16), x, o).bits, first);
  // The decimal path agrees with the double path.
  EXPECT_EQ(enc(FormatId::Fp16, "1.000244140625", o).bits, first);
}

// Over many draws the fraction rounded up equals the position in the gap.
TEST(NumericRounding, StochasticUpFractionMatchesPositionInGap) {
  struct Case {
    FormatId id;
    const char* value;
    double fraction; // (value - lower) / (upper - lower), exact
  };
  const Case cases[] = {
      {FormatId::Fp16, "0.1", 0.4},            // 0.1 = 0x2e66 + 0.4 ulp
      {FormatId::Fp16, "1.000244140625", 0.25}, // 1 + 2^-12
      {FormatId::Bf16, "1.001953125", 0.25},    // 1 + 2^-9
      {FormatId::Fp8E4M3, "-1.1", 0.8},         // |x| = 1 + 0.8 x 2^-3
      {FormatId::Fp16, "-1e-7", 0.6777216},     // subnormal: 1e-7 = 1.6777216 x 2^-24
  };
  std::mt19937 rng(2026);
  for (const auto& c : cases) {
    const ExactValue v = *parseNumber(c.value).value;
    EncodeOptions o = with(Rounding::Stochastic);
    const std::uint64_t lower = encode(fmt(c.id), v, with(Rounding::TowardZero)).bits;
    constexpr int kDraws = 200000;
    int ups = 0;
    for (int i = 0; i < kDraws; ++i) {
      o.random = rng();
      const std::uint64_t bits = encode(fmt(c.id), v, o).bits;
      ASSERT_TRUE(bits == lower || bits == lower + 1) << c.value;
      ups += bits != lower;
    }
    const double sigma = std::sqrt(c.fraction * (1 - c.fraction) / kDraws);
    EXPECT_NEAR(static_cast<double>(ups) / kDraws, c.fraction, 5 * sigma) << c.value;
  }
}

TEST(NumericRounding, OverflowToInfinityNanOrSaturate) {
  EncodeOptions sat;
  sat.overflow = OverflowMode::Saturate;
  EXPECT_EQ(enc(FormatId::Fp16, "1e6").bits, 0x7c00u);
  EXPECT_TRUE(enc(FormatId::Fp16, "1e6").overflowed);
  EXPECT_EQ(enc(FormatId::Fp16, "1e6", sat).bits, 0x7bffu);
  EXPECT_EQ(enc(FormatId::Fp16, "-1e6", sat).bits, 0xfbffu);
  EXPECT_EQ(enc(FormatId::Fp8E4M3, "500").bits, 0x7fu); // OCP non-saturating: NaN
  EXPECT_EQ(enc(FormatId::Fp8E4M3, "500", sat).bits, 0x7eu);
  EXPECT_EQ(enc(FormatId::Fp8E4M3, "inf", sat).bits, 0x7eu);
  EXPECT_EQ(enc(FormatId::Fp8E5M2, "1e6").bits, 0x7cu);
  EXPECT_EQ(enc(FormatId::Fp8E5M2, "1e6", sat).bits, 0x7bu);
  EXPECT_EQ(enc(FormatId::Fp8E5M2, "-inf", sat).bits, 0xfbu);
  EXPECT_EQ(enc(FormatId::Bf16, "1e39").bits, 0x7f80u);
  EXPECT_EQ(enc(FormatId::Fp8E5M2, "nan", sat).bits, 0x7eu); // NaN stays NaN
  // IEEE 754 7.4: directed roundings stop at max finite on the near side.
  EXPECT_EQ(enc(FormatId::Fp16, "1e6", with(Rounding::TowardZero)).bits, 0x7bffu);
  EXPECT_EQ(enc(FormatId::Fp16, "1e6", with(Rounding::Down)).bits, 0x7bffu);
  EXPECT_EQ(enc(FormatId::Fp16, "1e6", with(Rounding::Up)).bits, 0x7c00u);
  EXPECT_EQ(enc(FormatId::Fp16, "-1e6", with(Rounding::Up)).bits, 0xfbffu);
  EXPECT_EQ(enc(FormatId::Fp16, "-1e6", with(Rounding::Down)).bits, 0xfc00u);
  EXPECT_EQ(enc(FormatId::Fp16, "1e400").bits, 0x7c00u);
  EXPECT_FALSE(enc(FormatId::Fp16, "65504").overflowed);
}

TEST(NumericRounding, FlushSubnormalsToZero) {
  EncodeOptions ftz;
  ftz.flushSubnormals = true;
  EXPECT_EQ(enc(FormatId::Fp16, "1e-5").bits, 0x00a8u); // 1e-5 / 2^-24 = 167.77 -> 168
  const EncodeResult flushed = enc(FormatId::Fp16, "1e-5", ftz);
  EXPECT_EQ(flushed.bits, 0x0000u);
  EXPECT_TRUE(flushed.flushed);
  EXPECT_EQ(enc(FormatId::Fp16, "-1e-5", ftz).bits, 0x8000u);
  EXPECT_EQ(enc(FormatId::Fp16, "0.00006103515625", ftz).bits, 0x0400u); // 2^-14 stays
  EXPECT_EQ(enc(FormatId::Bf16, "1e-39").bits, 0x000bu);                 // 1e-39 / 2^-133 = 10.9
  EXPECT_EQ(enc(FormatId::Bf16, "1e-39", ftz).bits, 0x0000u);
  EXPECT_EQ(encode(fmt(FormatId::Fp32), 0x1p-149, ftz).bits, 0x0u); // DAZ on a subnormal input
  EXPECT_EQ(encode(fmt(FormatId::Fp32), 0x1p-149).bits, 0x1u);
}

TEST(NumericRounding, NextUpAndDownAcrossZeroSubnormalsAndMax) {
  const FloatFormat& h = fmt(FormatId::Fp16);
  EXPECT_EQ(nextUp(h, 0x8001), 0x8000u); // -min subnormal -> -0
  EXPECT_EQ(nextUp(h, 0x8000), 0x0001u); // -0 -> +min subnormal
  EXPECT_EQ(nextUp(h, 0x0000), 0x0001u);
  EXPECT_EQ(nextDown(h, 0x0001), 0x0000u);
  EXPECT_EQ(nextDown(h, 0x0000), 0x8001u);
  EXPECT_EQ(nextUp(h, 0x03ff), 0x0400u); // largest subnormal -> min normal
  EXPECT_EQ(nextUp(h, 0x7bff), 0x7c00u); // max -> inf
  EXPECT_EQ(nextUp(h, 0x7c00), 0x7c00u);
  EXPECT_EQ(nextUp(h, 0xfc00), 0xfbffu);
  EXPECT_EQ(nextDown(h, 0x7c00), 0x7bffu);
  EXPECT_EQ(nextUp(h, 0x7e00), 0x7e00u); // NaN stays
  EXPECT_EQ(nextUp(h, 0x3c00), 0x3c01u); // one ULP, not 1.0
  EXPECT_EQ(toDouble(h, nextUp(h, 0x3c00)) - 1.0, 0x1p-10);
  const FloatFormat& e4 = fmt(FormatId::Fp8E4M3);
  EXPECT_EQ(nextUp(e4, 0x7e), 0x7eu); // no inf: stops at 448
  EXPECT_EQ(nextDown(e4, 0xfe), 0xfeu);
}

// Walking the whole format from -inf (or -max) to +inf visits every value
// once in strictly increasing order.
TEST(NumericRounding, WalkingVisitsEveryValueInOrder) {
  for (FormatId id : {FormatId::Fp16, FormatId::Bf16, FormatId::Fp8E4M3, FormatId::Fp8E5M2}) {
    const FloatFormat& f = fmt(id);
    std::uint64_t bits = f.signMask() | (f.hasInfinity() ? f.infinityBits() : f.maxFiniteBits());
    const std::uint64_t top = f.hasInfinity() ? f.infinityBits() : f.maxFiniteBits();
    std::uint64_t steps = 0;
    while (bits != top) {
      const std::uint64_t next = nextUp(f, bits);
      ASSERT_LT(toDouble(f, bits), toDouble(f, next)) << f.name << " " << formatBitsHex(f, bits);
      ASSERT_EQ(nextDown(f, next), bits == f.signMask() ? 0 : bits) << formatBitsHex(f, bits);
      bits = next;
      ++steps;
    }
    // Non-NaN patterns, minus one for +0 (skipped), minus one for the start.
    std::uint64_t nonNan = 0;
    for (std::uint64_t b = 0; b < (1ull << f.totalBits()); ++b)
      nonNan += classify(f, b) != FloatClass::NaN;
    EXPECT_EQ(steps, nonNan - 2) << f.name;
  }
}

} // namespace
