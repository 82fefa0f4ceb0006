// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The OCP Microscaling (MX v1.0) formats: FP6 E2M3 and E3M2, FP4 E2M1, the
// E8M0 scale and MXINT8's INT8. Every code is decoded and checked against
// the spec's formula written out here in double; conversion is checked at
// every rounding boundary, in every rounding mode, on both the exact and the
// double path.
#include <mantissa/numeric/codec.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

namespace {

using namespace mantissa::numeric;

struct Small {
  FormatId id;
  int e, m, bias;
  double maxNormal, minNormal, minSubnormal; // OCP MX v1.0, table 2
};

// The spec's constants, as printed in its element-format table.
const Small kSmall[] = {
    {FormatId::Fp6E2M3, 2, 3, 1, 7.5, 1.0, 0.125},
    {FormatId::Fp6E3M2, 3, 2, 3, 28.0, 0.25, 0.0625},
    {FormatId::Fp4E2M1, 2, 1, 1, 6.0, 1.0, 0.5},
};

// The spec's formula: subnormal (-1)^S x 2^(1-bias) x 0.M, normal
// (-1)^S x 2^(E-bias) x 1.M; no code is reserved for Inf or NaN.
double specValue(const Small& s, unsigned code) {
  const unsigned sign = code >> (s.e + s.m);
  const unsigned exponent = (code >> s.m) & ((1u << s.e) - 1);
  const unsigned mantissa = code & ((1u << s.m) - 1);
  const double fraction = mantissa / std::pow(2.0, s.m);
  const double magnitude = exponent == 0 ? std::pow(2.0, 1 - s.bias) * fraction
                                         : std::pow(2.0, int(exponent) - s.bias) * (1.0 + fraction);
  return sign ? -magnitude : magnitude;
}

EncodeOptions with(Rounding r, std::uint32_t random = 0) {
  EncodeOptions o;
  o.rounding = r;
  o.random = random;
  return o;
}

// Both encode paths must agree; returns the double path's result.
EncodeResult enc(FormatId id, double v, EncodeOptions o = {}) {
  const FloatFormat& f = formatInfo(id);
  const EncodeResult a = encode(f, v, o);
  const EncodeResult b = encode(f, ExactValue::fromDouble(v), o);
  EXPECT_EQ(a.bits, b.bits) << f.name << " " << v;
  EXPECT_EQ(a.overflowed, b.overflowed) << f.name << " " << v;
  EXPECT_EQ(a.underflowed, b.underflowed) << f.name << " " << v;
  EXPECT_EQ(a.inexact, b.inexact) << f.name << " " << v;
  return a;
}

TEST(NumericMxFormats, ConstantsMatchTheSpec) {
  for (const Small& s : kSmall) {
    const FloatFormat& f = formatInfo(s.id);
    SCOPED_TRACE(std::string(f.name));
    EXPECT_EQ(f.totalBits(), 1 + s.e + s.m);
    EXPECT_EQ(f.bias(), s.bias);
    EXPECT_EQ(f.maxFinite(), s.maxNormal);
    EXPECT_EQ(f.minNormal(), s.minNormal);
    EXPECT_EQ(f.minSubnormal(), s.minSubnormal);
    EXPECT_FALSE(f.hasInfinity());
    EXPECT_FALSE(f.hasNan());
    EXPECT_EQ(parseFormatName(f.name), s.id);
  }
  const FloatFormat& e8 = formatInfo(FormatId::E8M0);
  EXPECT_EQ(e8.totalBits(), 8);
  EXPECT_EQ(e8.bias(), 127);
  EXPECT_EQ(e8.maxFinite(), std::ldexp(1.0, 127));
  EXPECT_EQ(e8.minNormal(), std::ldexp(1.0, -127));
  EXPECT_EQ(e8.quietNanBits(), 0xffu);
  EXPECT_EQ(e8.signMask(), 0u);
  const FloatFormat& i8 = formatInfo(FormatId::Int8);
  EXPECT_EQ(i8.totalBits(), 8);
  EXPECT_EQ(i8.maxFinite(), 127.0 / 64.0);
  EXPECT_EQ(i8.minNormal(), 1.0 / 64.0);
  EXPECT_EQ(parseFormatName("fp4"), FormatId::Fp4E2M1);
  EXPECT_EQ(parseFormatName("E2M1"), FormatId::Fp4E2M1);
  EXPECT_EQ(parseFormatName("mxint8"), FormatId::Int8);
  // The six training formats keep their list; the MX ones have their own.
  EXPECT_EQ(explorerFormats().size(), 6u);
  EXPECT_EQ(microscalingFormats().size(), 5u);
}

TEST(NumericMxFormats, Fp4E2M1ValuesAreTheSpecTable) {
  // OCP MX v1.0's FP4 table: the eight magnitudes, codes 0..7.
  const double table[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
  const FloatFormat& f = formatInfo(FormatId::Fp4E2M1);
  for (unsigned c = 0; c < 16; ++c) {
    const double expected = c >= 8 ? -table[c - 8] : table[c];
    EXPECT_EQ(toDouble(f, c), expected) << c;
    EXPECT_EQ(std::signbit(toDouble(f, c)), c >= 8) << c;
  }
}

TEST(NumericMxFormats, EverySmallCodeDecodesByTheFormula) {
  for (const Small& s : kSmall) {
    const FloatFormat& f = formatInfo(s.id);
    SCOPED_TRACE(std::string(f.name));
    const unsigned codes = 1u << (1 + s.e + s.m);
    for (unsigned c = 0; c < codes; ++c) {
      const double expected = specValue(s, c);
      const Decoded d = decode(f, c);
      EXPECT_EQ(d.value, expected) << c;
      EXPECT_EQ(std::signbit(d.value), (c >> (s.e + s.m)) != 0) << c;
      EXPECT_NE(d.cls, FloatClass::NaN) << c;
      EXPECT_NE(d.cls, FloatClass::Infinity) << c;
      const unsigned exponent = (c >> s.m) & ((1u << s.e) - 1);
      const unsigned mantissa = c & ((1u << s.m) - 1);
      EXPECT_EQ(d.cls, exponent != 0 ? FloatClass::Normal
                                     : (mantissa != 0 ? FloatClass::Subnormal : FloatClass::Zero))
          << c;
      // Every code converts back to itself, in every rounding mode (exact).
      for (Rounding r : {Rounding::NearestEven, Rounding::TowardZero, Rounding::Up, Rounding::Down,
                         Rounding::Stochastic}) {
        const EncodeResult e = enc(s.id, expected, with(r, 0));
        EXPECT_EQ(e.bits, c) << c;
        EXPECT_FALSE(e.inexact) << c;
      }
      EXPECT_EQ(std::stod(d.exactDecimal), expected) << d.exactDecimal;
    }
  }
}

TEST(NumericMxFormats, EverySmallBoundaryRoundsEachWay) {
  for (const Small& s : kSmall) {
    const FloatFormat& f = formatInfo(s.id);
    SCOPED_TRACE(std::string(f.name));
    // The non-negative values in order, with their codes, from the formula.
    std::map<double, unsigned> byValue;
    for (unsigned c = 0; c < (1u << (s.e + s.m)); ++c)
      byValue[specValue(s, c)] = c;
    const std::vector<std::pair<double, unsigned>> v(byValue.begin(), byValue.end());
    for (std::size_t i = 0; i + 1 < v.size(); ++i) {
      const auto [lo, loCode] = v[i];
      const auto [hi, hiCode] = v[i + 1];
      const double mid = (lo + hi) / 2, quarter = lo + (hi - lo) / 4, three = lo + 3 * (hi - lo) / 4;
      const unsigned even = (loCode & 1u) == 0 ? loCode : hiCode;
      const unsigned neg = 1u << (s.e + s.m);
      for (double sign : {1.0, -1.0}) {
        const unsigned sb = sign < 0 ? neg : 0;
        EXPECT_EQ(enc(s.id, sign * mid).bits, even | sb) << mid;
        EXPECT_EQ(enc(s.id, sign * quarter).bits, loCode | sb) << quarter;
        EXPECT_EQ(enc(s.id, sign * three).bits, hiCode | sb) << three;
        EXPECT_EQ(enc(s.id, sign * quarter, with(Rounding::TowardZero)).bits, loCode | sb);
        EXPECT_EQ(enc(s.id, sign * three, with(Rounding::TowardZero)).bits, loCode | sb);
        EXPECT_EQ(enc(s.id, sign * quarter, with(Rounding::Up)).bits, (sign > 0 ? hiCode : loCode) | sb);
        EXPECT_EQ(enc(s.id, sign * quarter, with(Rounding::Down)).bits, (sign > 0 ? loCode : hiCode) | sb);
        // Stochastic: a quarter of the way up rounds away iff random < 2^30.
        EXPECT_EQ(enc(s.id, sign * quarter, with(Rounding::Stochastic, 0x3fffffffu)).bits, hiCode | sb);
        EXPECT_EQ(enc(s.id, sign * quarter, with(Rounding::Stochastic, 0x40000000u)).bits, loCode | sb);
      }
      // nextUp / nextDown walk the same order.
      EXPECT_EQ(nextUp(f, loCode), hiCode);
      EXPECT_EQ(nextDown(f, hiCode), loCode);
    }
  }
}

TEST(NumericMxFormats, SmallFormatsSaturateAndHaveNoNan) {
  for (const Small& s : kSmall) {
    const FloatFormat& f = formatInfo(s.id);
    SCOPED_TRACE(std::string(f.name));
    const unsigned maxCode = (1u << (s.e + s.m)) - 1, neg = 1u << (s.e + s.m);
    EXPECT_EQ(toDouble(f, maxCode), s.maxNormal);
    for (OverflowMode mode : {OverflowMode::Infinity, OverflowMode::Saturate}) {
      EncodeOptions o;
      o.overflow = mode;
      for (double big : {s.maxNormal * 1.5, 1e30, std::numeric_limits<double>::infinity()}) {
        const EncodeResult p = enc(s.id, big, o), n = enc(s.id, -big, o);
        EXPECT_EQ(p.bits, maxCode) << big;
        EXPECT_EQ(n.bits, maxCode | neg) << big;
        EXPECT_TRUE(p.overflowed);
        EXPECT_TRUE(n.overflowed);
      }
      o.rounding = Rounding::Up;
      EXPECT_EQ(enc(s.id, s.maxNormal * 1.01, o).bits, maxCode);
    }
    EXPECT_EQ(nextUp(f, maxCode), maxCode);
    const EncodeResult nan = encode(f, std::numeric_limits<double>::quiet_NaN());
    EXPECT_TRUE(nan.invalid);
    EXPECT_EQ(nan.bits, 0u);
    EXPECT_TRUE(encode(f, ExactValue::nan()).invalid);
    // Below half the smallest subnormal: zero, flagged.
    const EncodeResult tiny = enc(s.id, s.minSubnormal / 4);
    EXPECT_EQ(tiny.bits, 0u);
    EXPECT_TRUE(tiny.underflowed);
    EXPECT_EQ(enc(s.id, -s.minSubnormal / 4).bits, neg); // -0 exists
  }
}

TEST(NumericMxFormats, E8M0EveryCodeIsAPowerOfTwo) {
  const FloatFormat& f = formatInfo(FormatId::E8M0);
  for (unsigned c = 0; c < 255; ++c) {
    const double expected = std::pow(2.0, int(c) - 127);
    const Decoded d = decode(f, c);
    EXPECT_EQ(d.value, expected) << c;
    EXPECT_EQ(d.cls, FloatClass::Normal) << c; // code 0 is 2^-127, not zero
    EXPECT_EQ(d.unbiasedExponent, int(c) - 127);
    EXPECT_EQ(enc(FormatId::E8M0, expected).bits, c);
    if (c > 0) {
      EXPECT_EQ(nextDown(f, c), c - 1);
    }
  }
  EXPECT_EQ(toDouble(f, 0x7f), 1.0);
  EXPECT_EQ(decode(f, 0xff).cls, FloatClass::NaN);
  EXPECT_TRUE(std::isnan(toDouble(f, 0xff)));
  EXPECT_EQ(nextUp(f, 0xfe), 0xfeu);
  EXPECT_EQ(nextDown(f, 0x00), 0x00u);
  EXPECT_EQ(decode(f, 0x80).formula, "2^(128 - 127) = 2^1");
}

TEST(NumericMxFormats, E8M0ConversionRules) {
  // Ties between powers of two go to the even code: 3 lies between 2 (code
  // 128) and 4 (129); 6 between 4 (129) and 8 (130).
  EXPECT_EQ(enc(FormatId::E8M0, 3.0).bits, 0x80u);
  EXPECT_EQ(enc(FormatId::E8M0, 6.0).bits, 0x82u);
  EXPECT_EQ(enc(FormatId::E8M0, 2.9).bits, 0x80u);
  EXPECT_EQ(enc(FormatId::E8M0, 3.1).bits, 0x81u);
  EXPECT_EQ(enc(FormatId::E8M0, 3.0, with(Rounding::Up)).bits, 0x81u);
  EXPECT_EQ(enc(FormatId::E8M0, 3.0, with(Rounding::Down)).bits, 0x80u);
  EXPECT_EQ(enc(FormatId::E8M0, 3.0, with(Rounding::TowardZero)).bits, 0x80u);
  // No zero: zero and tiny values give the smallest scale, flagged.
  for (double tiny : {0.0, std::ldexp(1.0, -140), std::ldexp(1.0, -128)}) {
    const EncodeResult r = enc(FormatId::E8M0, tiny);
    EXPECT_EQ(r.bits, 0x00u) << tiny;
    EXPECT_TRUE(r.underflowed) << tiny;
  }
  // No sign: negative values are invalid and give NaN.
  const EncodeResult negative = enc(FormatId::E8M0, -1.0);
  EXPECT_EQ(negative.bits, 0xffu);
  EXPECT_TRUE(negative.invalid);
  EXPECT_EQ(encode(formatInfo(FormatId::E8M0), std::numeric_limits<double>::quiet_NaN()).bits, 0xffu);
  // Past 2^127: NaN (there is no infinity), or 2^127 when saturating.
  EXPECT_EQ(enc(FormatId::E8M0, std::ldexp(1.0, 128)).bits, 0xffu);
  EXPECT_EQ(enc(FormatId::E8M0, std::numeric_limits<double>::infinity()).bits, 0xffu);
  EncodeOptions sat;
  sat.overflow = OverflowMode::Saturate;
  EXPECT_EQ(enc(FormatId::E8M0, std::ldexp(1.0, 128), sat).bits, 0xfeu);
  EXPECT_EQ(enc(FormatId::E8M0, std::ldexp(1.0, 127) * 1.4).bits, 0xfeu);
}

TEST(NumericMxFormats, Int8EveryCodeIsAMultipleOfTwoToTheMinusSix) {
  const FloatFormat& f = formatInfo(FormatId::Int8);
  for (unsigned c = 0; c < 256; ++c) {
    const int i = c < 128 ? int(c) : int(c) - 256;
    const double expected = i / 64.0;
    EXPECT_EQ(toDouble(f, c), expected) << c;
    EXPECT_EQ(decode(f, c).cls, i == 0 ? FloatClass::Zero : FloatClass::Normal);
    EXPECT_EQ(enc(FormatId::Int8, expected).bits, c) << c;
    if (c != 0x7f) {
      EXPECT_EQ(toDouble(f, nextUp(f, c)), expected + 1.0 / 64) << c;
    }
  }
  EXPECT_EQ(nextUp(f, 0x7f), 0x7fu);
  EXPECT_EQ(nextDown(f, 0x80), 0x80u);
  EXPECT_EQ(decode(f, 0xe0).formula, "-32 x 2^-6");
  EXPECT_EQ(enc(FormatId::Int8, -0.0).bits, 0u); // one zero
}

TEST(NumericMxFormats, Int8RoundsAndSaturates) {
  // Ties (odd multiples of 2^-7) go to the even integer.
  EXPECT_EQ(enc(FormatId::Int8, 1.0 / 128).bits, 0x00u);
  EXPECT_EQ(enc(FormatId::Int8, 3.0 / 128).bits, 0x02u);
  EXPECT_EQ(enc(FormatId::Int8, -3.0 / 128).bits, 0xfeu);
  EXPECT_EQ(enc(FormatId::Int8, 0.3).bits, 19u); // 19.2 / 64
  EXPECT_EQ(enc(FormatId::Int8, 0.3, with(Rounding::Up)).bits, 20u);
  EXPECT_EQ(enc(FormatId::Int8, -0.3, with(Rounding::Up)).bits, 0xedu);   // -19
  EXPECT_EQ(enc(FormatId::Int8, -0.3, with(Rounding::Down)).bits, 0xecu); // -20
  EXPECT_EQ(enc(FormatId::Int8, -0.3, with(Rounding::TowardZero)).bits, 0xedu);
  EXPECT_EQ(enc(FormatId::Int8, 0.3, with(Rounding::Stochastic, 0)).bits, 20u);
  EXPECT_EQ(enc(FormatId::Int8, 0.3, with(Rounding::Stochastic, 0xffffffffu)).bits, 19u);
  const EncodeResult tiny = enc(FormatId::Int8, 0.001);
  EXPECT_EQ(tiny.bits, 0u);
  EXPECT_TRUE(tiny.underflowed);
  // 127.6 / 64 rounds to 128: past the top, clamped to 127/64.
  const EncodeResult top = enc(FormatId::Int8, 127.6 / 64);
  EXPECT_EQ(top.bits, 0x7fu);
  EXPECT_TRUE(top.overflowed);
  EXPECT_EQ(enc(FormatId::Int8, -2.0).bits, 0x80u);
  EXPECT_FALSE(enc(FormatId::Int8, -2.0).overflowed);
  for (double big : {2.5, 3.99, 4.0, 1e300, std::numeric_limits<double>::infinity()}) {
    EXPECT_EQ(enc(FormatId::Int8, big).bits, 0x7fu) << big;
    EXPECT_EQ(enc(FormatId::Int8, -big).bits, 0x80u) << big;
    EXPECT_TRUE(enc(FormatId::Int8, big).overflowed) << big;
  }
  EXPECT_TRUE(encode(formatInfo(FormatId::Int8), std::numeric_limits<double>::quiet_NaN()).invalid);
}

} // namespace
