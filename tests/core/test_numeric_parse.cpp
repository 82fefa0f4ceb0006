// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The number syntax shared by the explorer and the CLI.
#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/exact_value.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

namespace {

using namespace mantissa::numeric;

std::string exact(const char* text) {
  const ParseResult p = parseNumber(text);
  return p.value ? p.value->toString() : "error: " + p.error;
}

TEST(NumericParse, DecimalHexAndSpecials) {
  EXPECT_EQ(exact("0.1"), "0.1");
  EXPECT_EQ(exact("-0"), "-0");
  EXPECT_EQ(exact("1e-8"), "0.00000001");
  EXPECT_EQ(exact("65504"), "65504");
  EXPECT_EQ(exact("  2.50  "), "2.5");
  EXPECT_EQ(exact(".5"), "0.5");
  EXPECT_EQ(exact("5."), "5");
  EXPECT_EQ(exact("+1E+3"), "1000");
  EXPECT_EQ(exact("0x1.8p-3"), "0.1875");
  EXPECT_EQ(exact("-0X1P+4"), "-16");
  EXPECT_EQ(exact("0x10"), "16");
  EXPECT_EQ(exact("0x.8"), "0.5");
  EXPECT_EQ(exact("inf"), "inf");
  EXPECT_EQ(exact("-Infinity"), "-inf");
  EXPECT_EQ(exact("NaN"), "nan");
  const ParseResult z = parseNumber("-0");
  ASSERT_TRUE(z.value);
  EXPECT_TRUE(z.value->isZero());
  EXPECT_TRUE(z.value->negative());
  EXPECT_EQ(parseNumber("-inf").value->kind(), ExactValue::Kind::Infinity);
  EXPECT_EQ(parseNumber("nan").value->kind(), ExactValue::Kind::NaN);
}

TEST(NumericParse, BadInputNamesItselfAndSaysWhy) {
  for (const char* bad : {"", "   ", "0.1.2", "abc", "1e", "1e+", "0x", "0x1p", "--1", "1,5",
                          "12abc", "0x1.8p-3q", "infinite", ".", "-", "1e5.5"}) {
    const ParseResult p = parseNumber(bad);
    EXPECT_FALSE(p.value.has_value()) << bad;
    EXPECT_EQ(p.error.rfind("'" + std::string(bad) + "' is not a number: ", 0), 0u) << p.error;
  }
  EXPECT_NE(parseNumber("0.1.2").error.find("position 4"), std::string::npos);
  EXPECT_FALSE(parseNumber(std::string(5000, '1')).value.has_value());
}

TEST(NumericParse, ExtremeExponentsStayExactAndCheap) {
  EXPECT_EQ(parseNumber("1e-100000000").value->approximate(), 0.0);
  EXPECT_EQ(parseNumber("-1e100000000").value->approximate(), -HUGE_VAL);
  EXPECT_EQ(parseNumber("1e999999999").value->toString(), "1e999999999");
  EXPECT_EQ(parseNumber("2.5e-999999999").value->toString(), "2.5e-999999999");
  EXPECT_NE(parseNumber("1e1000000000").error.find("exponent beyond"), std::string::npos);
  EXPECT_EQ(encode(formatInfo(FormatId::Fp16), *parseNumber("-1e999999999").value).bits, 0xfc00u);
  EncodeOptions up;
  up.rounding = Rounding::Up;
  EXPECT_EQ(encode(formatInfo(FormatId::Fp16), *parseNumber("1e-999999999").value, up).bits, 0x0001u);
  EXPECT_EQ(parseNumber("0x1p-1074").value->approximate(), 0x1p-1074);
  EXPECT_EQ(parseNumber("2.4703282292062328e-324").value->approximate(), 0x1p-1074); // above half
  EXPECT_EQ(parseNumber("2.4703282292062327e-324").value->approximate(), 0.0);        // below half
}

TEST(NumericParse, ExactValueOfADoubleHasEveryDigit) {
  EXPECT_EQ(ExactValue::fromDouble(0.1).toString(),
            "0.1000000000000000055511151231257827021181583404541015625");
  EXPECT_EQ(ExactValue::fromDouble(-2.5).toString(), "-2.5");
  EXPECT_EQ(ExactValue::fromDouble(1e22).toString(), "10000000000000000000000");
  EXPECT_EQ(ExactValue::fromDouble(-0.0).toString(), "-0");
}

// approximate() is a correctly rounded decimal -> double conversion; glibc's
// strtod is one too, so they must agree on every input.
TEST(NumericParse, ApproximateMatchesStrtod) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 20000; ++i) {
    std::string s = std::to_string(rng() % 100000000000000000ull);
    if (rng() & 1)
      s += std::to_string(rng());
    s.insert(rng() % s.size(), ".");
    s += "e" + std::to_string(static_cast<int>(rng() % 700) - 350);
    const ParseResult p = parseNumber(s);
    ASSERT_TRUE(p.value) << p.error;
    ASSERT_EQ(p.value->approximate(), std::strtod(s.c_str(), nullptr)) << s;
  }
}

} // namespace
