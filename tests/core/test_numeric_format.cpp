// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Format constants against the specifications: IEEE 754-2019 (binary16/32),
// bfloat16, NVIDIA TF32, OCP 8-bit floating point (E4M3 "fn", E5M2).
#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/format.h>

#include <gtest/gtest.h>

#include <cmath>

namespace {

using namespace mantissa::numeric;

struct SpecRow {
  FormatId id;
  int totalBits;
  int bias;
  double maxFinite;
  double minNormal;
  double minSubnormal;
  double epsilon;
  std::uint64_t maxFiniteBits;
  std::uint64_t infinityBits;
  std::uint64_t quietNanBits;
};

// Values as the specifications state them (decimal or exact powers of two).
const SpecRow kSpec[] = {
    {FormatId::Fp32, 32, 127, 3.4028234663852886e38, 0x1p-126, 0x1p-149, 0x1p-23, 0x7f7fffff,
     0x7f800000, 0x7fc00000},
    {FormatId::Tf32, 19, 127, 0x1.ffcp127, 0x1p-126, 0x1p-136, 0x1p-10, 0x3fbff, 0x3fc00, 0x3fe00},
    {FormatId::Fp16, 16, 15, 65504.0, 0x1p-14, 0x1p-24, 0x1p-10, 0x7bff, 0x7c00, 0x7e00},
    {FormatId::Bf16, 16, 127, 3.3895313892515355e38, 0x1p-126, 0x1p-133, 0x1p-7, 0x7f7f, 0x7f80,
     0x7fc0},
    {FormatId::Fp8E4M3, 8, 7, 448.0, 0x1p-6, 0x1p-9, 0x1p-3, 0x7e, 0, 0x7f},
    {FormatId::Fp8E5M2, 8, 15, 57344.0, 0x1p-14, 0x1p-16, 0x1p-2, 0x7b, 0x7c, 0x7e},
};

TEST(NumericFormat, SpecConstants) {
  for (const auto& row : kSpec) {
    const FloatFormat& f = formatInfo(row.id);
    SCOPED_TRACE(std::string(f.name));
    EXPECT_EQ(f.totalBits(), row.totalBits);
    EXPECT_EQ(f.bias(), row.bias);
    EXPECT_EQ(f.maxFinite(), row.maxFinite);
    EXPECT_EQ(f.minNormal(), row.minNormal);
    EXPECT_EQ(f.minSubnormal(), row.minSubnormal);
    EXPECT_EQ(f.epsilon(), row.epsilon);
    EXPECT_EQ(f.maxFiniteBits(), row.maxFiniteBits);
    EXPECT_EQ(f.infinityBits(), row.infinityBits);
    EXPECT_EQ(f.quietNanBits(), row.quietNanBits);
    // The bit patterns decode to the same constants.
    EXPECT_EQ(toDouble(f, row.maxFiniteBits), row.maxFinite);
    EXPECT_EQ(toDouble(f, 1), row.minSubnormal);
    EXPECT_EQ(toDouble(f, std::uint64_t{1} << f.mantissaBits), row.minNormal);
  }
}

TEST(NumericFormat, E4M3HasNoInfinityAndOneNanPerSign) {
  const FloatFormat& f = formatInfo(FormatId::Fp8E4M3);
  EXPECT_FALSE(f.hasInfinity());
  int nans = 0;
  for (std::uint64_t bits = 0; bits < 256; ++bits) {
    const FloatClass c = classify(f, bits);
    EXPECT_NE(c, FloatClass::Infinity);
    nans += c == FloatClass::NaN;
  }
  EXPECT_EQ(nans, 2); // 0x7f and 0xff (OCP: S.1111.111)
  EXPECT_EQ(classify(f, 0x7f), FloatClass::NaN);
  EXPECT_EQ(classify(f, 0x7e), FloatClass::Normal);
  EXPECT_EQ(classify(f, 0x78), FloatClass::Normal); // 256: the all-ones exponent holds normals
  EXPECT_EQ(toDouble(f, 0x78), 256.0);
}

TEST(NumericFormat, E5M2IsIeeeLike) {
  const FloatFormat& f = formatInfo(FormatId::Fp8E5M2);
  EXPECT_EQ(classify(f, 0x7c), FloatClass::Infinity);
  EXPECT_EQ(classify(f, 0x7d), FloatClass::NaN);
  EXPECT_EQ(classify(f, 0x7f), FloatClass::NaN);
  EXPECT_EQ(classify(f, 0xfc), FloatClass::Infinity);
}

TEST(NumericFormat, ParsesNamesAndAliases) {
  EXPECT_EQ(parseFormatName("fp32"), FormatId::Fp32);
  EXPECT_EQ(parseFormatName("FP16"), FormatId::Fp16);
  EXPECT_EQ(parseFormatName("bf16"), FormatId::Bf16);
  EXPECT_EQ(parseFormatName("tf32"), FormatId::Tf32);
  EXPECT_EQ(parseFormatName("fp8-e4m3"), FormatId::Fp8E4M3);
  EXPECT_EQ(parseFormatName("e4m3"), FormatId::Fp8E4M3);
  EXPECT_EQ(parseFormatName("fp8-e5m2"), FormatId::Fp8E5M2);
  EXPECT_EQ(parseFormatName("fp64"), FormatId::Fp64);
  EXPECT_FALSE(parseFormatName("fp12").has_value());
  EXPECT_FALSE(parseFormatName("").has_value());
  for (FormatId id : explorerFormats())
    EXPECT_EQ(parseFormatName(formatInfo(id).name), id);
}

TEST(NumericFormat, ExplorerFormatsWidestFirst) {
  const auto formats = explorerFormats();
  ASSERT_EQ(formats.size(), 6u);
  EXPECT_EQ(formats.front(), FormatId::Fp32);
  EXPECT_EQ(formats.back(), FormatId::Fp8E5M2);
}

} // namespace
