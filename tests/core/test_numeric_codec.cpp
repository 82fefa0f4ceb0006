// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Decode/encode against published bit patterns and exact decimal expansions.
#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/neighbour.h>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>

namespace {

using namespace mantissa::numeric;

const FloatFormat& fmt(FormatId id) { return formatInfo(id); }

std::uint64_t encodeText(FormatId id, const char* text, EncodeOptions o = {}) {
  const ParseResult p = parseNumber(text);
  EXPECT_TRUE(p.value.has_value()) << p.error;
  return p.value ? encode(fmt(id), *p.value, o).bits : ~0ull;
}

// Well-known encodings of 0.1 and 1/3 (IEEE 754 binary32/binary16, bfloat16
// round-to-nearest-even; OCP FP8).
TEST(NumericCodec, PointOneAndOneThird) {
  EXPECT_EQ(encodeText(FormatId::Fp32, "0.1"), 0x3dcccccdu);
  EXPECT_EQ(encodeText(FormatId::Fp16, "0.1"), 0x2e66u);
  EXPECT_EQ(encodeText(FormatId::Bf16, "0.1"), 0x3dcdu);
  EXPECT_EQ(encodeText(FormatId::Fp8E4M3, "0.1"), 0x1du);
  EXPECT_EQ(encodeText(FormatId::Fp8E5M2, "0.1"), 0x2eu);
  EXPECT_EQ(encodeText(FormatId::Fp64, "0.1"), 0x3fb999999999999aull);
  const char* third = "0.333333333333333333333333333333333333";
  EXPECT_EQ(encodeText(FormatId::Fp32, third), 0x3eaaaaabu);
  EXPECT_EQ(encodeText(FormatId::Fp16, third), 0x3555u);
  EXPECT_EQ(encodeText(FormatId::Bf16, third), 0x3eabu);
  EXPECT_EQ(encode(fmt(FormatId::Fp16), 1.0 / 3.0).bits, 0x3555u);
  EXPECT_EQ(encode(fmt(FormatId::Bf16), 1.0 / 3.0).bits, 0x3eabu);
}

TEST(NumericCodec, ExactDecimalsHaveEveryDigit) {
  EXPECT_EQ(decode(fmt(FormatId::Fp32), 0x3dcccccd).exactDecimal, "0.100000001490116119384765625");
  EXPECT_EQ(decode(fmt(FormatId::Fp16), 0x2e66).exactDecimal, "0.0999755859375");
  EXPECT_EQ(decode(fmt(FormatId::Bf16), 0x3dcd).exactDecimal, "0.10009765625");
  EXPECT_EQ(decode(fmt(FormatId::Fp16), 0x3555).exactDecimal, "0.333251953125");
  EXPECT_EQ(decode(fmt(FormatId::Bf16), 0x3eab).exactDecimal, "0.333984375");
  EXPECT_EQ(decode(fmt(FormatId::Fp32), 0x3eaaaaab).exactDecimal, "0.3333333432674407958984375");
  EXPECT_EQ(decode(fmt(FormatId::Fp16), 0x0001).exactDecimal, "0.000000059604644775390625");
  EXPECT_EQ(decode(fmt(FormatId::Fp16), 0x7bff).exactDecimal, "65504");
  EXPECT_EQ(decode(fmt(FormatId::Fp16), 0xfbff).exactDecimal, "-65504");
  EXPECT_EQ(decode(fmt(FormatId::Fp8E4M3), 0x7e).exactDecimal, "448");
  EXPECT_EQ(decode(fmt(FormatId::Fp8E5M2), 0x7b).exactDecimal, "57344");
  EXPECT_EQ(decode(fmt(FormatId::Fp32), 0x7f7fffff).exactDecimal,
            "340282346638528859811704183484516925440");
  EXPECT_EQ(decode(fmt(FormatId::Fp16), 0x8000).exactDecimal, "-0");
  EXPECT_EQ(decode(fmt(FormatId::Fp16), 0x7c00).exactDecimal, "inf");
  EXPECT_EQ(decode(fmt(FormatId::Fp16), 0x7e00).exactDecimal, "nan");
}

// glibc's printf prints the exact binary value of a double given enough
// digits: an independent oracle for every finite pattern of every format.
std::string printfExact(double v) {
  std::string s(1500, '\0');
  s.resize(static_cast<std::size_t>(std::snprintf(s.data(), s.size(), "%.1100f", v)));
  while (s.back() == '0')
    s.pop_back();
  if (s.back() == '.')
    s.pop_back();
  return s;
}

TEST(NumericCodec, ExactDecimalsMatchGlibcPrintf) {
  std::mt19937_64 rng(7);
  for (FormatId id : {FormatId::Fp64, FormatId::Fp32, FormatId::Tf32, FormatId::Fp16,
                      FormatId::Bf16, FormatId::Fp8E4M3, FormatId::Fp8E5M2}) {
    const FloatFormat& f = fmt(id);
    const std::uint64_t mask = f.totalBits() == 64 ? ~0ull : (1ull << f.totalBits()) - 1;
    for (int i = 0; i < 3000; ++i) {
      const std::uint64_t bits = rng() & mask;
      const FloatClass c = classify(f, bits);
      if (c == FloatClass::NaN || c == FloatClass::Infinity || c == FloatClass::Zero)
        continue;
      ASSERT_EQ(decode(f, bits).exactDecimal, printfExact(toDouble(f, bits)))
          << f.name << " " << formatBitsHex(f, bits);
    }
  }
}

TEST(NumericCodec, DecodeFields) {
  const Decoded d = decode(fmt(FormatId::Fp32), 0x3dcccccd);
  EXPECT_FALSE(d.negative);
  EXPECT_EQ(d.biasedExponent, 123u);
  EXPECT_EQ(d.unbiasedExponent, -4);
  EXPECT_EQ(d.mantissa, 0x4ccccdu);
  EXPECT_EQ(d.implicitBit, 1);
  EXPECT_EQ(d.cls, FloatClass::Normal);
  EXPECT_EQ(d.value, static_cast<double>(0.1f));
  EXPECT_EQ(d.formula, "(-1)^0 x 1.10011001100110011001101 x 2^-4");

  const Decoded s = decode(fmt(FormatId::Fp16), 0x8001);
  EXPECT_TRUE(s.negative);
  EXPECT_EQ(s.cls, FloatClass::Subnormal);
  EXPECT_EQ(s.biasedExponent, 0u);
  EXPECT_EQ(s.unbiasedExponent, -14);
  EXPECT_EQ(s.implicitBit, 0);
  EXPECT_EQ(s.value, -0x1p-24);
  EXPECT_EQ(s.formula, "(-1)^1 x 0.0000000001 x 2^-14");
  EXPECT_EQ(decode(fmt(FormatId::Fp16), 0x0000).cls, FloatClass::Zero);
  EXPECT_EQ(decode(fmt(FormatId::Fp16), 0xfc00).cls, FloatClass::Infinity);
}

TEST(NumericCodec, SignedZeros) {
  EXPECT_EQ(encodeText(FormatId::Fp16, "-0"), 0x8000u);
  EXPECT_EQ(encodeText(FormatId::Fp16, "0"), 0x0000u);
  EXPECT_EQ(encode(fmt(FormatId::Bf16), -0.0).bits, 0x8000u);
  EXPECT_EQ(encode(fmt(FormatId::Fp8E4M3), -0.0).bits, 0x80u);
  // Underflow keeps the sign.
  EXPECT_EQ(encodeText(FormatId::Fp16, "-1e-10"), 0x8000u);
  EXPECT_TRUE(std::signbit(toDouble(fmt(FormatId::Fp16), 0x8000)));
}

TEST(NumericCodec, InfinitiesAndNans) {
  EXPECT_EQ(encodeText(FormatId::Fp16, "inf"), 0x7c00u);
  EXPECT_EQ(encodeText(FormatId::Fp16, "-Infinity"), 0xfc00u);
  EXPECT_EQ(encodeText(FormatId::Bf16, "nan"), 0x7fc0u);
  EXPECT_EQ(encodeText(FormatId::Fp8E4M3, "nan"), 0x7fu);
  EXPECT_EQ(encodeText(FormatId::Fp8E4M3, "inf"), 0x7fu); // OCP: no inf, non-saturating -> NaN
  EXPECT_EQ(encodeText(FormatId::Fp8E4M3, "-inf"), 0xffu);
  EXPECT_EQ(encodeText(FormatId::Fp8E5M2, "inf"), 0x7cu);
}

TEST(NumericCodec, NanPayloadsFollowX86) {
  // Signaling double NaN 0x7ff4000000000000: quiet bit set, top payload bits kept.
  const double snan = std::bit_cast<double>(0x7ff4000000000000ull);
  EXPECT_EQ(encode(fmt(FormatId::Fp32), snan).bits, 0x7fe00000u);
  EXPECT_EQ(encode(fmt(FormatId::Fp16), snan).bits, 0x7f00u);
  EXPECT_EQ(encode(fmt(FormatId::Bf16), snan).bits, 0x7fe0u);
  const double negNan = std::bit_cast<double>(0xfff8000000000123ull);
  EXPECT_EQ(encode(fmt(FormatId::Fp32), negNan).bits, 0xffc00000u);
  EXPECT_EQ(encode(fmt(FormatId::Fp8E4M3), negNan).bits, 0xffu);
  const Decoded d = decode(fmt(FormatId::Fp16), 0x7d23);
  EXPECT_EQ(d.cls, FloatClass::NaN);
  EXPECT_EQ(d.formula, "signaling NaN, payload 0x123");
  EXPECT_EQ(decode(fmt(FormatId::Fp16), 0xfe01).formula, "quiet NaN, payload 0x1");
}

TEST(NumericCodec, BitsHexIsZeroPaddedToTheFormatsWidth) {
  EXPECT_EQ(formatBitsHex(fmt(FormatId::Fp32), 0x3dcccccd), "0x3dcccccd");
  EXPECT_EQ(formatBitsHex(fmt(FormatId::Fp16), 0x2e66), "0x2e66");
  EXPECT_EQ(formatBitsHex(fmt(FormatId::Fp16), 0x1), "0x0001");
  EXPECT_EQ(formatBitsHex(fmt(FormatId::Tf32), 0x1ee66), "0x1ee66");
  EXPECT_EQ(formatBitsHex(fmt(FormatId::Fp8E4M3), 0x1d), "0x1d");
  EXPECT_EQ(formatBitsHex(fmt(FormatId::Fp8E4M3), 0x3), "0x03");
  EXPECT_EQ(formatBitsHex(fmt(FormatId::Fp64), 1), "0x0000000000000001");
}

// Stored minus typed value, from the exact decimals above (0.1 = 1/10).
TEST(NumericCodec, RoundingErrorIsExact) {
  const ExactValue tenth = *parseNumber("0.1").value;
  const RoundingError e32 = roundingError(fmt(FormatId::Fp32), 0x3dcccccd, tenth);
  EXPECT_EQ(e32.absolute.toString(), "0.000000001490116119384765625");
  EXPECT_EQ(e32.absoluteApprox, 1.490116119384765625e-9);
  EXPECT_DOUBLE_EQ(e32.relative, 1.490116119384765625e-8);
  const RoundingError e16 = roundingError(fmt(FormatId::Fp16), 0x2e66, tenth);
  EXPECT_EQ(e16.absolute.toString(), "0.0000244140625");
  EXPECT_EQ(e16.relative, 0.000244140625);
  const RoundingError eb = roundingError(fmt(FormatId::Bf16), 0x3dcd, tenth);
  EXPECT_EQ(eb.absolute.toString(), "0.00009765625");
  EXPECT_EQ(eb.relative, 0.0009765625);
  const ExactValue minusTenth = *parseNumber("-0.1").value;
  EXPECT_EQ(roundingError(fmt(FormatId::Fp16), 0xae66, minusTenth).absolute.toString(),
            "0.0000244140625");
  EXPECT_EQ(roundingError(fmt(FormatId::Fp16), 0x3c00, *parseNumber("1").value).absoluteApprox, 0.0);
  EXPECT_EQ(roundingError(fmt(FormatId::Fp16), 0x0000, *parseNumber("1e-9").value).relative, 1.0);
  EXPECT_TRUE(std::isinf(roundingError(fmt(FormatId::Fp16), 0x7c00, *parseNumber("1e6").value).relative));
  EXPECT_TRUE(std::isnan(roundingError(fmt(FormatId::Fp16), 0x7e00, *parseNumber("nan").value).relative));
  EXPECT_EQ(roundingError(fmt(FormatId::Fp16), 0xfc00, *parseNumber("-inf").value).absoluteApprox, 0.0);
}

TEST(NumericCodec, ToDoubleKeepsNanPayloads) {
  EXPECT_EQ(std::bit_cast<std::uint64_t>(toDouble(fmt(FormatId::Fp16), 0xfd23)),
            0xfff8000000000000ull | (0x123ull << 42));
  EXPECT_EQ(std::bit_cast<std::uint64_t>(toDouble(fmt(FormatId::Fp32), 0x7fc00001)),
            0x7ff8000000000000ull | (0x400001ull << 29));
  EXPECT_TRUE(std::isnan(toDouble(fmt(FormatId::Fp8E4M3), 0x7f)));
}

TEST(NumericCodec, RoundingNames) {
  EXPECT_EQ(parseRoundingName("nearest-even"), Rounding::NearestEven);
  EXPECT_EQ(parseRoundingName("toward-zero"), Rounding::TowardZero);
  EXPECT_EQ(parseRoundingName("up"), Rounding::Up);
  EXPECT_EQ(parseRoundingName("down"), Rounding::Down);
  EXPECT_EQ(parseRoundingName("stochastic"), Rounding::Stochastic);
  EXPECT_FALSE(parseRoundingName("nearest").has_value());
}

TEST(NumericCodec, UlpPerBinade) {
  EXPECT_EQ(ulp(fmt(FormatId::Fp16), 0x3c00), 0x1p-10);
  EXPECT_EQ(ulp(fmt(FormatId::Fp16), 0x0001), 0x1p-24);
  EXPECT_EQ(ulp(fmt(FormatId::Fp16), 0x0000), 0x1p-24);
  EXPECT_EQ(ulp(fmt(FormatId::Fp16), 0x7bff), 32.0);
  EXPECT_EQ(ulp(fmt(FormatId::Bf16), 0x3f80), 0x1p-7);
  EXPECT_EQ(ulp(fmt(FormatId::Fp32), 0x3f800000), 0x1p-23);
  EXPECT_EQ(ulp(fmt(FormatId::Fp8E4M3), 0x7e), 32.0);
  EXPECT_EQ(ulp(fmt(FormatId::Fp8E5M2), 0x7b), 8192.0);
  EXPECT_TRUE(std::isnan(ulp(fmt(FormatId::Fp16), 0x7c00)));
  EXPECT_TRUE(std::isnan(ulp(fmt(FormatId::Fp16), 0x7e00)));
}

// Beyond the largest finite value: FP16 has +inf; E4M3 has nothing, so a
// larger value converts to NaN (0x7F), or saturates at 448 (0x7E); FP4 E2M1
// always saturates at 6; +inf has nothing beyond. Inside the range the
// neighbour is nextUp's.
TEST(Neighbour, AboveTheLargestValueIsWhatAValueBeyondConvertsTo) {
  const FloatFormat& fp16 = formatInfo(FormatId::Fp16);
  const FloatFormat& e4m3 = formatInfo(FormatId::Fp8E4M3);
  const FloatFormat& e2m1 = formatInfo(FormatId::Fp4E2M1);
  EncodeOptions toInf;
  EncodeOptions saturate;
  saturate.overflow = OverflowMode::Saturate;

  Neighbour n = neighbourAbove(fp16, 0x7BFF, toInf); // 65504
  EXPECT_EQ(n.kind, NeighbourKind::Infinity);
  EXPECT_EQ(n.bits, 0x7C00u);
  EXPECT_EQ(neighbourAbove(fp16, 0x7C00, toInf).kind, NeighbourKind::None);

  n = neighbourAbove(e4m3, 0x7E, toInf); // 448
  EXPECT_EQ(n.kind, NeighbourKind::NaN);
  EXPECT_EQ(n.bits, 0x7Fu);
  n = neighbourAbove(e4m3, 0x7E, saturate);
  EXPECT_EQ(n.kind, NeighbourKind::Saturates);
  EXPECT_EQ(n.bits, 0x7Eu);
  n = neighbourBelow(e4m3, 0xFE, saturate); // -448
  EXPECT_EQ(n.kind, NeighbourKind::Saturates);
  EXPECT_EQ(n.bits, 0xFEu);
  n = neighbourAbove(e4m3, 0x7D, toInf); // 416 -> 448
  EXPECT_EQ(n.kind, NeighbourKind::Value);
  EXPECT_EQ(n.bits, 0x7Eu);

  n = neighbourAbove(e2m1, 0x7, toInf); // 6: FP4 has neither inf nor NaN
  EXPECT_EQ(n.kind, NeighbourKind::Saturates);
  EXPECT_EQ(n.bits, 0x7u);
}

} // namespace
