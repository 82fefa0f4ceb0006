// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Formats as data: every named 8-bit format and a set of user-defined specs,
// decoded pattern by pattern against an exact integer decoder written from the
// published definitions (format_oracle.h), FP16 and BF16 over all 2^16
// patterns; round to nearest even with overflow to inf/NaN and with
// saturation against that decoder's nearest-value search on every tie and
// boundary and on random doubles; the published FNUZ constants; spec strings
// and JSON with their errors.
#include "format_oracle_cases.h"

#include <mantissa/build_flags.h>
#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/format_spec.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace {

using namespace mantissa::numeric;
namespace fo = format_oracle;

FloatFormat formatOf(const fo::Definition& d) {
  const FormatParse p = parseFormatSpec(d.name);
  EXPECT_TRUE(p.format) << d.name << ": " << p.error;
  return p.format.value_or(formatInfo(FormatId::Fp32));
}

fo::Exact libraryValue(const FloatFormat& f, std::uint64_t bits) {
  return fo::fromDouble(toDouble(f, bits));
}

class FormatModel : public ::testing::TestWithParam<fo::Definition> {};

TEST_P(FormatModel, WidthsAndConstantsAreTheDefinitions) {
  const fo::Definition d = GetParam();
  const FloatFormat f = formatOf(d);
  EXPECT_EQ(f.totalBits(), d.bits());
  EXPECT_EQ(f.bias(), d.bias);
  EXPECT_EQ(f.hasSign(), d.sign);
  EXPECT_EQ(f.subnormals, d.subnormals);
  const fo::ValueSet set(d);
  const auto& top = set.values.back();
  EXPECT_EQ(libraryValue(f, f.maxFiniteBits()), set.signedValue(false, top)) << d.name;
  EXPECT_EQ(fo::fromDouble(f.maxFinite()), set.signedValue(false, top)) << d.name;
  EXPECT_EQ(fo::fromDouble(f.minSubnormal()), set.signedValue(false, set.values[1])) << d.name;
}

TEST_P(FormatModel, EveryPatternDecodesAsTheExactDecoder) {
  const fo::Definition d = GetParam();
  if (d.bits() > 16)
    GTEST_SKIP();
  const FloatFormat f = formatOf(d);
  for (std::uint64_t p = 0; p < (1ull << d.bits()); ++p) {
    const fo::Exact want = fo::decode(d, p);
    ASSERT_EQ(libraryValue(f, p), want) << d.name << " pattern " << p;
    const FloatClass cls = classify(f, p);
    ASSERT_EQ(cls == FloatClass::NaN, want.kind == fo::Exact::Kind::NaN) << d.name << " " << p;
    ASSERT_EQ(cls == FloatClass::Infinity, want.kind == fo::Exact::Kind::Infinity) << d.name << " " << p;
    ASSERT_EQ(cls == FloatClass::Zero, want.kind == fo::Exact::Kind::Number && want.sig == 0) << d.name << " " << p;
    if (want.kind == fo::Exact::Kind::Number) {
      ASSERT_EQ(fo::fromDouble(decode(f, p).value), want) << d.name << " " << p;
    }
  }
}

// Every value's neighbours in the format's own order are the next larger and
// smaller values of the decoder's sorted set.
TEST_P(FormatModel, NeighboursWalkTheSortedValues) {
  const fo::Definition d = GetParam();
  if (d.bits() > 16)
    GTEST_SKIP();
  const FloatFormat f = formatOf(d);
  const fo::ValueSet set(d);
  for (std::size_t i = 0; i + 1 < set.values.size(); ++i) {
    const std::uint64_t up = nextUp(f, set.values[i].pattern);
    ASSERT_EQ(libraryValue(f, up), set.signedValue(false, set.values[i + 1])) << d.name << " " << i;
    const std::uint64_t down = nextDown(f, set.values[i + 1].pattern);
    ASSERT_EQ(fo::fromDouble(std::fabs(toDouble(f, down))), set.signedValue(false, set.values[i]))
        << d.name << " " << i;
  }
}

void expectRounds(const FloatFormat& f, const fo::ValueSet& set, double x) {
  for (const auto mode : {OverflowMode::Infinity, OverflowMode::Saturate}) {
    EncodeOptions o;
    o.overflow = mode;
    const fo::Exact want =
        set.nearest(x, mode == OverflowMode::Infinity ? fo::Overflow::Infinity : fo::Overflow::Saturate);
    const EncodeResult fromDouble = encode(f, x, o);
    ASSERT_EQ(fo::decode(set.def, fromDouble.bits), want)
        << set.def.name << " x=" << x << " (" << std::hexfloat << x << std::defaultfloat << ") saturate="
        << (mode == OverflowMode::Saturate) << " got bits " << fromDouble.bits;
    if (!std::isnan(x)) {
      const EncodeResult exact = encode(f, ExactValue::fromDouble(x), o);
      ASSERT_EQ(fo::decode(set.def, exact.bits), want) << set.def.name << " exact path, x=" << x;
    }
  }
}

// Under a sanitizer the 16-bit formats' tie sweep checks
// one value in 13 and the first and last 64 (subnormals, min normal, max
// finite and overflow): every load is a shadow check there, and the full sweep
// of 2^16 values takes minutes. 13 is prime to every binade's size, so the
// sample walks through all mantissa positions. The release suite checks all.
bool skippedUnderSanitizer(std::size_t i, std::size_t n) {
  return mantissa::builtWithSanitizer() && n > 1024 && i >= 64 && i + 64 < n && i % 13 != 0;
}

// Every value, every midpoint between neighbours, one double either side of
// each, and the overflow threshold (half a unit past max finite).
TEST_P(FormatModel, TiesAndBoundariesRoundAsTheNearestValueSearch) {
  const fo::Definition d = GetParam();
  if (d.bits() > 16)
    GTEST_SKIP();
  const FloatFormat f = formatOf(d);
  const fo::ValueSet set(d);
  const auto valueOf = [](const fo::ValueSet::Entry& v) { return std::ldexp(static_cast<double>(v.sig), v.exp); };
  std::vector<double> inputs{0.0, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max()};
  for (std::size_t i = 0; i < set.values.size(); ++i) {
    if (skippedUnderSanitizer(i, set.values.size()))
      continue;
    const double v = valueOf(set.values[i]);
    const double next = i + 1 < set.values.size()
                            ? valueOf(set.values[i + 1])
                            : v + std::ldexp(1.0, set.values[i].exp); // past max: one more unit
    const double mid = v + (next - v) / 2;
    for (double x : {v, mid, next})
      for (double y : {x, std::nextafter(x, 0.0), std::nextafter(x, HUGE_VAL)})
        inputs.push_back(y);
    inputs.push_back(v / 4); // far below a value (below the min positive for the first)
  }
  inputs.push_back(valueOf(set.values.back()) * 4);
  for (double x : inputs) {
    expectRounds(f, set, x);
    expectRounds(f, set, -x);
  }
}

TEST_P(FormatModel, RandomDoublesRoundAsTheNearestValueSearch) {
  const fo::Definition d = GetParam();
  if (d.bits() > 16)
    GTEST_SKIP();
  const FloatFormat f = formatOf(d);
  const fo::ValueSet set(d);
  std::mt19937_64 rng(0x5eed + d.bits());
  const int lowExp = set.values[1].exp - 3;
  const int highExp = set.values.back().exp + d.m + 3;
  std::uniform_int_distribution<int> exps(lowExp, highExp);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t r = rng();
    const double x = std::ldexp(1.0 + static_cast<double>(r >> 12) / 4503599627370496.0, exps(rng));
    expectRounds(f, set, (r & 1u) ? -x : x);
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, FormatModel, ::testing::ValuesIn(fo::kDefinitions),
                         [](const ::testing::TestParamInfo<fo::Definition>& param) {
                           return "f" + std::to_string(param.index);
                         });

// The published FNUZ constants (ml_dtypes float8_e4m3fnuz / float8_e5m2fnuz,
// AMD's MI300 ISA and Graphcore's 8-bit paper): max finite 240 and 57344, min
// subnormal 2^-10 and 2^-17, 0x80 the one NaN, no -0, no infinities.
TEST(FormatFnuz, PublishedConstants) {
  const FloatFormat& e4 = formatInfo(FormatId::Fp8E4M3Fnuz);
  const FloatFormat& e5 = formatInfo(FormatId::Fp8E5M2Fnuz);
  const FloatFormat& b11 = formatInfo(FormatId::Fp8E4M3B11Fnuz);
  EXPECT_EQ(e4.maxFinite(), 240.0);
  EXPECT_EQ(e5.maxFinite(), 57344.0);
  EXPECT_EQ(b11.maxFinite(), 30.0);
  EXPECT_EQ(e4.minSubnormal(), std::ldexp(1.0, -10));
  EXPECT_EQ(e5.minSubnormal(), std::ldexp(1.0, -17));
  EXPECT_EQ(e4.minNormal(), std::ldexp(1.0, -7));
  EXPECT_EQ(e5.minNormal(), std::ldexp(1.0, -15));
  for (const FloatFormat* f : {&e4, &e5, &b11}) {
    EXPECT_EQ(classify(*f, 0x80), FloatClass::NaN) << f->name;
    EXPECT_TRUE(std::isnan(toDouble(*f, 0x80)));
    EXPECT_EQ(encode(*f, std::nan("")).bits, 0x80u);
    EXPECT_EQ(encode(*f, -std::nan("")).bits, 0x80u);
    EXPECT_EQ(encode(*f, -0.0).bits, 0x00u) << "-0 rounds to +0";
    EXPECT_EQ(encode(*f, -std::ldexp(1.0, -40)).bits, 0x00u) << "a negative underflow is +0";
    EXPECT_EQ(encode(*f, HUGE_VAL).bits, 0x80u) << "no infinity: inf is NaN";
    EXPECT_EQ(encode(*f, -HUGE_VAL).bits, 0x80u);
    EncodeOptions saturate;
    saturate.overflow = OverflowMode::Saturate;
    EXPECT_EQ(encode(*f, -HUGE_VAL, saturate).bits, 0xffu);
    EXPECT_FALSE(f->hasInfinity());
    EXPECT_EQ(nextUp(*f, 0x7f), 0x7fu);
    EXPECT_EQ(nextDown(*f, 0x00), 0x81u);
    EXPECT_EQ(nextUp(*f, 0x81), 0x00u);
  }
  EXPECT_EQ(encode(e4, 240.0).bits, 0x7fu);
  EXPECT_EQ(encode(e4, 1.0).bits, 0x40u); // bias 8: 1.0 is exponent field 8
  EXPECT_EQ(encode(e5, 1.0).bits, 0x40u); // bias 16
  EXPECT_EQ(encode(e4, 248.0).bits, 0x80u) << "the tie past 240 goes to the (even) 256: overflow";
  EXPECT_EQ(encode(e4, 247.0).bits, 0x7fu);
}

// ml_dtypes float8_e3m4: bias 3, IEEE rule; max 15.5, min normal 0.25,
// min subnormal 2^-6, inf 0x70.
TEST(FormatE3m4, MlDtypesConstants) {
  const FloatFormat& f = formatInfo(FormatId::Fp8E3M4);
  EXPECT_EQ(f.maxFinite(), 15.5);
  EXPECT_EQ(f.minNormal(), 0.25);
  EXPECT_EQ(f.minSubnormal(), std::ldexp(1.0, -6));
  EXPECT_EQ(f.infinityBits(), 0x70u);
  EXPECT_EQ(encode(f, 16.0).bits, 0x70u);
  EXPECT_EQ(encode(f, 1.0).bits, 0x30u);
}

// NVFP4's scale: E4M3 without a sign; 0x7f NaN, max 448; negatives have no encoding.
TEST(FormatUe4m3, UnsignedE4m3) {
  const FloatFormat& f = formatInfo(FormatId::Ue4m3);
  EXPECT_EQ(f.totalBits(), 7);
  EXPECT_EQ(f.maxFinite(), 448.0);
  EXPECT_EQ(classify(f, 0x7f), FloatClass::NaN);
  EXPECT_EQ(encode(f, -0.0).bits, 0u);
  const EncodeResult negative = encode(f, -1.0);
  EXPECT_TRUE(negative.invalid);
  EXPECT_EQ(negative.bits, 0x7fu);
}

// INT4 as MX-style element: i / 4 for i in -8..7.
TEST(FormatInt4, TwosComplementQuarters) {
  const FloatFormat& f = formatInfo(FormatId::Int4);
  EXPECT_EQ(f.totalBits(), 4);
  for (std::uint64_t p = 0; p < 16; ++p) {
    const long long i = p < 8 ? static_cast<long long>(p) : static_cast<long long>(p) - 16;
    EXPECT_EQ(toDouble(f, p), static_cast<double>(i) / 4) << p;
  }
  EXPECT_EQ(encode(f, 100.0).bits, 0x7u);
  EXPECT_EQ(encode(f, -100.0).bits, 0x8u);
  EXPECT_EQ(encode(f, 0.375).bits, 0x2u); // tie 1.5/4 -> even 2/4
}

TEST(FormatNames, NewNamesAndTheOldOnes) {
  EXPECT_EQ(parseFormatName("ue8m0"), FormatId::E8M0);
  EXPECT_EQ(parseFormatName("e8m0"), FormatId::E8M0);
  EXPECT_EQ(parseFormatName("fp8-e4m3fnuz"), FormatId::Fp8E4M3Fnuz);
  EXPECT_EQ(parseFormatName(std::string_view("F8_E5M2FNUZ").substr(3)), FormatId::Fp8E5M2Fnuz);
  EXPECT_EQ(parseFormatName("fp8-e4m3b11fnuz"), FormatId::Fp8E4M3B11Fnuz);
  EXPECT_EQ(parseFormatName("e3m4"), FormatId::Fp8E3M4);
  EXPECT_EQ(parseFormatName("int4"), FormatId::Int4);
  EXPECT_EQ(parseFormatName("ue4m3"), FormatId::Ue4m3);
  EXPECT_EQ(parseFormatName("fp8-e4m3"), FormatId::Fp8E4M3);
  for (FormatId id : namedFormats())
    EXPECT_EQ(parseFormatName(formatInfo(id).name), id) << formatInfo(id).name;
}

TEST(FormatSpec, ASpecEqualToANamedFormatIsThatFormat) {
  EXPECT_EQ(parseFormatSpec("e5m2:bias=15,special=ieee").format->id, FormatId::Fp8E5M2);
  EXPECT_EQ(parseFormatSpec("e4m3:bias=8,special=fnuz").format->id, FormatId::Fp8E4M3Fnuz);
  EXPECT_EQ(parseFormatSpec("E4M3:special=fn").format->id, FormatId::Fp8E4M3);
  EXPECT_EQ(parseFormatSpec("e8m7").format->id, FormatId::Bf16);
  EXPECT_EQ(parseFormatSpec("fp16").format->id, FormatId::Fp16);
  const FormatParse custom = parseFormatSpec("e4m3:bias=8,special=fnuz,subnormals=no");
  ASSERT_TRUE(custom.format) << custom.error;
  EXPECT_EQ(custom.format->id, FormatId::Custom);
  EXPECT_EQ(custom.format->name, "e4m3:bias=8,special=fnuz,subnormals=no");
  // The canonical spec parses back to the same format.
  const FormatParse again = parseFormatSpec(custom.format->spec());
  ASSERT_TRUE(again.format);
  EXPECT_TRUE(again.format->sameEncoding(*custom.format));
  // The base's fields stay unless a field changes them.
  EXPECT_EQ(parseFormatSpec("e4m3b11fnuz:subnormals=no").format->bias(), 11);
  EXPECT_EQ(parseFormatSpec("e6m9").format->bias(), 31);
  EXPECT_EQ(parseFormatSpec("e11m52").format->id, FormatId::Fp64);
  EXPECT_EQ(parseFormatSpec("e8m23:bias=100").format->totalBits(), 32);
}

TEST(FormatSpec, ErrorsNameTheField) {
  const auto error = [](std::string_view text) {
    const FormatParse p = parseFormatSpec(text);
    EXPECT_FALSE(p.format) << text;
    return p.error;
  };
  EXPECT_NE(error("e4m3:bias=x").find("bias:"), std::string::npos);
  EXPECT_NE(error("e4m3:bias=").find("bias:"), std::string::npos);
  EXPECT_NE(error("e4m3:special=foo").find("special:"), std::string::npos);
  EXPECT_NE(error("e4m3:subnormals=maybe").find("subnormals:"), std::string::npos);
  EXPECT_NE(error("e4m3:colour=red").find("unknown field 'colour'"), std::string::npos);
  EXPECT_NE(error("e12m3").find("exponent bits: 12"), std::string::npos);
  EXPECT_NE(error("e4m53").find("mantissa bits: 53"), std::string::npos);
  EXPECT_NE(error("ue4m3:special=fnuz").find("special: fnuz needs a sign bit"), std::string::npos);
  EXPECT_NE(error("e1m3:special=ieee").find("special: ieee"), std::string::npos);
  EXPECT_NE(error("e4m0:special=ieee").find("special: ieee"), std::string::npos);
  EXPECT_NE(error("e0m3:special=none,subnormals=no").find("subnormals:"), std::string::npos);
  EXPECT_NE(error("e11m52:bias=0").find("bias: 0 puts the largest exponent at 2^2046"), std::string::npos);
  EXPECT_NE(error("e4m3:bias=2000").find("bias: 2000"), std::string::npos);
  EXPECT_NE(error("e4m3:bias=1,bias=2").find("bias: given twice"), std::string::npos);
  EXPECT_NE(error("e4m3:").find("nothing after ':'"), std::string::npos);
  EXPECT_NE(error("e4m3:bias").find("no '='"), std::string::npos);
  EXPECT_NE(error("int8:bias=3").find("int8"), std::string::npos);
  EXPECT_NE(error("float9").find("neither a named format nor eXmY"), std::string::npos);
  EXPECT_NE(error("").find("empty"), std::string::npos);
  EXPECT_NE(error(std::string(300, 'e')).find("longer than"), std::string::npos);
}

TEST(FormatSpec, TensorsTakeAtMostSixteenBits) {
  EXPECT_EQ(tensorFormatError(*parseFormatSpec("e5m10:bias=3").format), "");
  EXPECT_EQ(tensorFormatError(formatInfo(FormatId::Fp32)), "");
  const std::string wide = tensorFormatError(*parseFormatSpec("e8m10:bias=100").format);
  EXPECT_NE(wide.find("19 bits"), std::string::npos) << wide;
  EXPECT_NE(wide.find("at most 16"), std::string::npos) << wide;
}

TEST(FormatSpec, JsonObjects) {
  const FormatParse p = parseFormatJson(
      R"({"exponent_bits": 4, "mantissa_bits": 3, "bias": 8, "special": "fnuz", "subnormals": false, "name": "my e4m3"})");
  ASSERT_TRUE(p.format) << p.error;
  EXPECT_EQ(p.format->name, "e4m3:bias=8,special=fnuz,subnormals=no");
  EXPECT_EQ(p.format->displayName, "my e4m3");
  EXPECT_EQ(parseFormatJson(R"({"spec": "e4m3fnuz"})").format->id, FormatId::Fp8E4M3Fnuz);
  EXPECT_EQ(parseFormatJson(R"({"exponent_bits": 5, "mantissa_bits": 2})").format->id, FormatId::Fp8E5M2);
  const auto error = [](std::string_view json) { return parseFormatJson(json).error; };
  EXPECT_NE(error("{").find("not valid JSON"), std::string::npos);
  EXPECT_NE(error("[1]").find("object"), std::string::npos);
  EXPECT_NE(error(R"({"mantissa_bits": 3})").find("exponent_bits: missing"), std::string::npos);
  EXPECT_NE(error(R"({"exponent_bits": "4", "mantissa_bits": 3})").find("exponent_bits: must be an integer"),
            std::string::npos);
  EXPECT_NE(error(R"({"exponent_bits": 4, "mantissa_bits": 3, "special": 1})").find("special:"), std::string::npos);
  EXPECT_NE(error(R"({"exponent_bits": 4, "mantissa_bits": 3, "sign": "no"})").find("sign: must be true or false"),
            std::string::npos);
  EXPECT_NE(error(R"({"exponent_bits": 4, "mantissa_bits": 3, "bais": 3})").find("unknown field \"bais\""),
            std::string::npos);
  EXPECT_NE(error(R"({"exponent_bits": 40, "mantissa_bits": 3})").find("exponent_bits: 40"), std::string::npos);
}

} // namespace
