// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Where a format flushes to zero, goes subnormal and overflows, for named
// formats and formats from spec strings, against the constants their
// specifications publish (typed here, not derived): IEEE 754 binary16, OCP
// FP8, ml_dtypes' float8_e4m3fnuz / float8_e5m2fnuz / float8_e3m4, AMD's and
// Graphcore's FNUZ papers. The flush edge is also checked against the codec:
// the edge value rounds to zero, the next double above it does not.

#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/format_limits.h>
#include <mantissa/numeric/format_spec.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace mantissa::numeric {
namespace {

struct Published {
  const char* spec;
  double minSubnormal; // the smallest positive value
  double minNormal;
  double maxFinite;
  OverflowTo overflow;
};

// ml_dtypes: float8_e4m3fnuz max 240, smallest subnormal 2^-10 (bias 8);
// float8_e5m2fnuz max 57344, smallest subnormal 2^-17 (bias 16);
// float8_e3m4 max 15.5, smallest normal 0.25, smallest subnormal 2^-6 (bias 3).
// OCP FP8: E4M3 max 448, 2^-9; E5M2 max 57344, 2^-16. IEEE binary16: 65504, 2^-24.
// Graphcore's E4M3B11FNUZ: bias 11, max 30, smallest subnormal 2^-13.
const Published kPublished[] = {
    {"fp16", 0x1p-24, 0x1p-14, 65504.0, OverflowTo::Infinity},
    {"fp8-e4m3", 0x1p-9, 0x1p-6, 448.0, OverflowTo::NanOrMax},
    {"fp8-e5m2", 0x1p-16, 0x1p-14, 57344.0, OverflowTo::Infinity},
    {"fp8-e4m3fnuz", 0x1p-10, 0x1p-7, 240.0, OverflowTo::NanOrMax},
    {"fp8-e5m2fnuz", 0x1p-17, 0x1p-15, 57344.0, OverflowTo::NanOrMax},
    {"fp8-e4m3b11fnuz", 0x1p-13, 0x1p-10, 30.0, OverflowTo::NanOrMax},
    {"e3m4", 0x1p-6, 0x1p-2, 15.5, OverflowTo::Infinity},
    {"fp4-e2m1", 0.5, 1.0, 6.0, OverflowTo::Max},
    // The same FNUZ encoding typed as a spec string: the same limits.
    {"e4m3:bias=8,special=fnuz", 0x1p-10, 0x1p-7, 240.0, OverflowTo::NanOrMax},
    // A spec that is no named format: E5M2 with bias 13 and the fn rule
    // (no infinities; S.11111.11 is NaN, so S.11111.10 = 1.5 x 2^18 is the max).
    {"e5m2:bias=13,special=fn", 0x1p-14, 0x1p-12, 393216.0, OverflowTo::NanOrMax},
};

FloatFormat parsed(const std::string& spec) {
  const FormatParse p = parseFormatSpec(spec);
  EXPECT_TRUE(p.format.has_value()) << spec << ": " << p.error;
  return p.format.value_or(formatInfo(FormatId::Fp32));
}

TEST(FormatLimits, BoundsAreThePublishedConstants) {
  for (const Published& e : kPublished) {
    SCOPED_TRACE(e.spec);
    const FormatLimits l = formatLimits(parsed(e.spec));
    EXPECT_EQ(l.subnormalLoLog2, std::log2(e.minSubnormal));
    EXPECT_EQ(l.subnormalHiLog2, std::log2(e.minNormal));
    EXPECT_TRUE(l.hasSubnormalRange());
    EXPECT_EQ(l.flushToZeroLog2, std::log2(e.minSubnormal) - 1.0); // half the smallest subnormal
    EXPECT_EQ(l.overflowLog2, std::log2(e.maxFinite));
    EXPECT_EQ(l.overflow, e.overflow);
    EXPECT_FALSE(l.castsFlushSubnormals);
  }
}

TEST(FormatLimits, CustomSpecFormatIsNotANamedOne) {
  EXPECT_EQ(parsed("e5m2:bias=13,special=fn").id, FormatId::Custom);
  EXPECT_EQ(parsed("e4m3:subnormals=no").id, FormatId::Custom);
}

// subnormals=no: the exponent field 0 is zero, so the smallest positive value
// is the smallest normal (2^-6 for bias 7) and the subnormal range is empty;
// half of it (2^-7) is a tie that goes to the even zero.
TEST(FormatLimits, FormatWithoutSubnormalsHasAnEmptySubnormalRange) {
  const FormatLimits l = formatLimits(parsed("e4m3:subnormals=no"));
  EXPECT_FALSE(l.hasSubnormalRange());
  EXPECT_EQ(l.subnormalLoLog2, -6.0);
  EXPECT_EQ(l.subnormalHiLog2, -6.0);
  EXPECT_EQ(l.flushToZeroLog2, -7.0);
  EXPECT_EQ(l.overflowLog2, std::log2(448.0));
}

// BF16 as Mantissa casts it: DAZ, as VCVTNEPS2BF16 (Intel SDM) treats FP32
// subnormal inputs as zero, so everything below 2^-126 becomes 0.
TEST(FormatLimits, Bf16CastsFlushItsSubnormals) {
  const FormatLimits l = formatLimits(formatInfo(FormatId::Bf16));
  EXPECT_TRUE(l.castsFlushSubnormals);
  EXPECT_EQ(l.flushToZeroLog2, -126.0);
  EXPECT_FALSE(l.hasSubnormalRange());
  EXPECT_EQ(l.overflowLog2, std::log2(3.3895313892515355e38));
  EXPECT_EQ(l.overflow, OverflowTo::Infinity);
}

// MXINT8: i / 64, i in -128..127: the smallest step 2^-6, the max 127/64;
// E8M0 has no zero (code 0 is 2^-127): nothing flushes.
TEST(FormatLimits, IntegerAndScaleLayouts) {
  const FormatLimits i8 = formatLimits(formatInfo(FormatId::Int8));
  EXPECT_EQ(i8.flushToZeroLog2, -7.0);
  EXPECT_FALSE(i8.hasSubnormalRange());
  EXPECT_EQ(i8.overflowLog2, std::log2(127.0 / 64.0));
  EXPECT_EQ(i8.overflow, OverflowTo::Max);
  const FormatLimits e8 = formatLimits(formatInfo(FormatId::E8M0));
  EXPECT_TRUE(std::isinf(e8.flushToZeroLog2) && e8.flushToZeroLog2 < 0);
  EXPECT_EQ(e8.overflowLog2, 127.0);
}

// The flush edge is where the codec's round to nearest even sends a value to
// zero: 2^flush gives zero, the next double above it the smallest positive value.
TEST(FormatLimits, FlushEdgeIsWhereTheCodecRoundsToZero) {
  for (const char* spec : {"fp16", "fp8-e4m3fnuz", "fp8-e5m2fnuz", "e3m4", "e4m3:subnormals=no",
                           "e5m2:bias=13,special=fn", "int8", "fp4-e2m1"}) {
    SCOPED_TRACE(spec);
    const FloatFormat f = parsed(spec);
    const FormatLimits l = formatLimits(f);
    const double edge = std::ldexp(1.0, static_cast<int>(l.flushToZeroLog2));
    EXPECT_EQ(toDouble(f, encode(f, edge).bits), 0.0);
    const double above = std::nextafter(edge, 1.0);
    EXPECT_EQ(toDouble(f, encode(f, above).bits), std::ldexp(1.0, static_cast<int>(l.subnormalLoLog2)));
  }
}

} // namespace
} // namespace mantissa::numeric
