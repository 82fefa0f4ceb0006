// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// `mantissa-cli inspect`, run as a user would. Expected values are the
// formats' definitions worked by hand (IEEE 754, bfloat16, TF32, OCP FP8).
#include "cli_runner.h"

#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace {

using mantissa::test::runCli;
using nlohmann::json;

struct Expected {
  const char* format;
  const char* bits;
  int exponent;
  int exponentUnbiased;
  const char* mantissa;
  const char* value;
  double absError;
  double relError;
  double ulp;
};

TEST(CliInspect, PointOneInEveryFormatIsRightInEveryField) {
  const auto r = runCli({"inspect", "0.1", "--format", "all", "--json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json rows = json::parse(r.out);
  const Expected expected[] = {
      {"fp32", "0x3dcccccd", 123, -4, "0x4ccccd", "0.100000001490116119384765625",
       1.490116119384765625e-9, 1.490116119384765625e-8, 0x1p-27},
      {"tf32", "0x1ee66", 123, -4, "0x266", "0.0999755859375", 2.44140625e-5, 2.44140625e-4,
       0x1p-14},
      {"fp16", "0x2e66", 11, -4, "0x266", "0.0999755859375", 2.44140625e-5, 2.44140625e-4, 0x1p-14},
      {"bf16", "0x3dcd", 123, -4, "0x4d", "0.10009765625", 9.765625e-5, 9.765625e-4, 0x1p-11},
      {"fp8-e4m3", "0x1d", 3, -4, "0x5", "0.1015625", 0.0015625, 0.015625, 0x1p-7},
      {"fp8-e5m2", "0x2e", 11, -4, "0x2", "0.09375", 0.00625, 0.0625, 0x1p-6},
  };
  ASSERT_TRUE(rows.is_array());
  ASSERT_EQ(rows.size(), std::size(expected));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const json& row = rows[i];
    const Expected& e = expected[i];
    SCOPED_TRACE(e.format);
    EXPECT_EQ(row.at("format"), e.format);
    EXPECT_EQ(row.at("bits"), e.bits);
    EXPECT_EQ(row.at("sign"), 0);
    EXPECT_EQ(row.at("exponent"), e.exponent);
    EXPECT_EQ(row.at("exponent_unbiased"), e.exponentUnbiased);
    EXPECT_EQ(row.at("mantissa"), e.mantissa);
    EXPECT_EQ(row.at("class"), "normal");
    EXPECT_EQ(row.at("value"), e.value);
    EXPECT_EQ(row.at("abs_error").get<double>(), e.absError);
    EXPECT_NEAR(row.at("rel_error").get<double>(), e.relError, e.relError * 1e-15);
    EXPECT_EQ(row.at("ulp").get<double>(), e.ulp);
  }
  EXPECT_TRUE(r.err.empty());
}

TEST(CliInspect, TableIsAlignedAndHasEveryFormat) {
  const auto r = runCli({"inspect", "0.1"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  std::size_t bitsColumn = std::string::npos;
  int formatRows = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("format", 0) == 0)
      bitsColumn = line.find("bits");
    else if (bitsColumn != std::string::npos && !line.empty()) {
      EXPECT_EQ(line.find("0x"), bitsColumn) << line;
      ++formatRows;
    }
  }
  EXPECT_EQ(formatRows, 6);
  for (const char* cell : {"fp32", "tf32", "fp16", "bf16", "fp8-e4m3", "fp8-e5m2", "0x3dcccccd",
                           "0.100000001490116119384765625", "0.10009765625"})
    EXPECT_NE(r.out.find(cell), std::string::npos) << cell;
}

json inspectOne(std::vector<std::string> args) {
  args.insert(args.begin(), "inspect");
  args.push_back("--json");
  const auto r = runCli(args);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  const json rows = json::parse(r.out);
  EXPECT_EQ(rows.size(), 1u);
  return rows.at(0);
}

TEST(CliInspect, SpecialValuesAndSyntax) {
  const json negZero = inspectOne({"-0", "--format", "fp16"});
  EXPECT_EQ(negZero.at("bits"), "0x8000");
  EXPECT_EQ(negZero.at("sign"), 1);
  EXPECT_EQ(negZero.at("class"), "zero");
  EXPECT_EQ(negZero.at("value"), "-0");
  EXPECT_EQ(inspectOne({"inf", "--format", "fp8-e4m3"}).at("class"), "nan"); // OCP: no inf
  EXPECT_EQ(inspectOne({"inf", "--format", "fp8-e5m2"}).at("bits"), "0x7c");
  EXPECT_EQ(inspectOne({"nan", "--format", "bf16"}).at("bits"), "0x7fc0");
  EXPECT_EQ(inspectOne({"0x1.8p-3", "--format", "fp16"}).at("bits"), "0x3200");
  const json tiny = inspectOne({"1e-8", "--format", "fp16"});
  EXPECT_EQ(tiny.at("bits"), "0x0000");
  EXPECT_EQ(tiny.at("underflow"), true);
  EXPECT_EQ(tiny.at("rel_error").get<double>(), 1.0);
  const json big = inspectOne({"65504", "--format", "fp16"});
  EXPECT_EQ(big.at("bits"), "0x7bff");
  EXPECT_EQ(big.at("abs_error").get<double>(), 0.0);
  EXPECT_EQ(big.at("ulp").get<double>(), 32.0);
}

TEST(CliInspect, RoundingSaturationAndFtzOptions) {
  EXPECT_EQ(inspectOne({"0.1", "--format", "fp16", "--rounding", "up"}).at("bits"), "0x2e67");
  EXPECT_EQ(inspectOne({"0.1", "--format", "fp16", "--rounding", "toward-zero"}).at("bits"), "0x2e66");
  EXPECT_EQ(inspectOne({"-0.1", "--format", "fp16", "--rounding", "down"}).at("bits"), "0xae67");
  EXPECT_EQ(inspectOne({"1e6", "--format", "fp16"}).at("bits"), "0x7c00");
  EXPECT_EQ(inspectOne({"1e6", "--format", "fp16", "--saturate"}).at("bits"), "0x7bff");
  EXPECT_EQ(inspectOne({"500", "--format", "fp8-e4m3"}).at("bits"), "0x7f");
  EXPECT_EQ(inspectOne({"500", "--format", "fp8-e4m3", "--saturate"}).at("bits"), "0x7e");
  EXPECT_EQ(inspectOne({"1e-5", "--format", "fp16"}).at("bits"), "0x00a8");
  const json flushed = inspectOne({"1e-5", "--format", "fp16", "--ftz"});
  EXPECT_EQ(flushed.at("bits"), "0x0000");
  EXPECT_EQ(flushed.at("flushed"), true);
  const json a = inspectOne({"0.1", "--format", "fp16", "--rounding", "stochastic", "--seed", "9"});
  const json b = inspectOne({"0.1", "--format", "fp16", "--rounding", "stochastic", "--seed", "9"});
  EXPECT_EQ(a.at("bits"), b.at("bits"));
  EXPECT_TRUE(a.at("bits") == "0x2e66" || a.at("bits") == "0x2e67");
}

TEST(CliInspect, RawBits) {
  const json max = inspectOne({"--bits", "0x7bff", "--format", "fp16"});
  EXPECT_EQ(max.at("value"), "65504");
  EXPECT_EQ(max.at("exponent"), 30);
  EXPECT_EQ(max.at("exponent_unbiased"), 15);
  EXPECT_EQ(max.at("mantissa"), "0x3ff");
  const json sub = inspectOne({"--bits", "0x0001", "--format", "fp16"});
  EXPECT_EQ(sub.at("class"), "subnormal");
  EXPECT_EQ(sub.at("value"), "0.000000059604644775390625");
  EXPECT_EQ(sub.at("exponent_unbiased"), -14);
  const json e4m3 = inspectOne({"--bits", "0x7e", "--format", "fp8-e4m3"});
  EXPECT_EQ(e4m3.at("value"), "448");
  EXPECT_EQ(inspectOne({"--bits", "0x7f", "--format", "fp8-e4m3"}).at("class"), "nan");
  EXPECT_EQ(inspectOne({"--bits", "0xfc00", "--format", "fp16"}).at("class"), "inf");
}

// FNUZ and spec formats by their bits: 0x7f of E4M3FNUZ is 240 with the
// unbiased exponent 7 (bias 8), 0x80 its NaN; a spec's bias shows in the exponent.
TEST(CliInspect, FnuzAndSpecFormats) {
  const json max = inspectOne({"--bits", "0x7f", "--format", "fp8-e4m3fnuz"});
  EXPECT_EQ(max.at("value"), "240");
  EXPECT_EQ(max.at("exponent_unbiased"), 7);
  EXPECT_EQ(inspectOne({"--bits", "0x80", "--format", "fp8-e4m3fnuz"}).at("class"), "nan");
  const json spec = inspectOne({"--bits", "0x40", "--format", "e4m3:bias=11,special=fnuz"});
  EXPECT_EQ(spec.at("value"), "0.125"); // 2^(8 - 11)
  EXPECT_EQ(spec.at("format"), "fp8-e4m3b11fnuz");
  const json custom = inspectOne({"--bits", "0x38", "--format", "e4m3:bias=5,special=none,subnormals=no"});
  EXPECT_EQ(custom.at("value"), "4"); // 2^(7 - 5)
  EXPECT_EQ(custom.at("format"), "e4m3:bias=5,special=none,subnormals=no");
}

void expectUsageError(const std::vector<std::string>& args, const std::string& mention) {
  const auto r = runCli(args);
  EXPECT_EQ(r.exitCode, 2) << mention;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find(mention), std::string::npos) << r.err;
}

TEST(CliInspect, BadInputIsNamedAndNothingIsPrinted) {
  expectUsageError({"inspect", "0.1.2"}, "'0.1.2' is not a number");
  expectUsageError({"inspect", "abc", "--json"}, "'abc' is not a number");
  expectUsageError({"inspect", "0.1", "--format", "fp12"}, "unknown format 'fp12'");
  expectUsageError({"inspect", "--bits", "0x1ffff", "--format", "fp16"}, "'0x1ffff' has more bits than fp16");
  expectUsageError({"inspect", "--bits", "0xzz", "--format", "fp16"}, "'0xzz'");
  expectUsageError({"inspect", "--bits", "0x3c00"}, "--bits needs --format");
  expectUsageError({"inspect", "1", "--bits", "0x3c00", "--format", "fp16"}, "either a VALUE or --bits");
  expectUsageError({"inspect"}, "either a VALUE or --bits");
  expectUsageError({"inspect", "1", "--rounding", "nearest"}, "unknown mode 'nearest'");
  expectUsageError({"inspect", "1", "--seed", "-3", "--rounding", "stochastic"}, "--seed");
}

} // namespace

namespace {

TEST(CliInspect, MicroscalingFormatsAreTheirOwnGroup) {
  const auto r = runCli({"inspect", "0.3", "--format", "mx", "--json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json rows = json::parse(r.out);
  ASSERT_EQ(rows.size(), 5u);
  // 0.3 in FP6 E2M3: subnormal quantum 1/8, 0.3 = 2.4 x 1/8 -> 2/8 = 0.25.
  EXPECT_EQ(rows[0].at("format"), "fp6-e2m3");
  EXPECT_EQ(rows[0].at("bits"), "0x02");
  EXPECT_EQ(rows[0].at("value"), "0.25");
  EXPECT_EQ(rows[0].at("class"), "subnormal");
  // E3M2: 0.3 = 1.2 x 2^-2, quantum 2^-4: 4.8 -> 5 x 2^-4 = 0.3125.
  EXPECT_EQ(rows[1].at("format"), "fp6-e3m2");
  EXPECT_EQ(rows[1].at("value"), "0.3125");
  EXPECT_EQ(rows[1].at("bits"), "0x05");
  // E2M1: 0.3 is nearer 0.5 than 0.
  EXPECT_EQ(rows[2].at("format"), "fp4-e2m1");
  EXPECT_EQ(rows[2].at("bits"), "0x1");
  EXPECT_EQ(rows[2].at("value"), "0.5");
  // E8M0: 0.3 lies between 2^-2 and 2^-1 (midpoint 0.375): 2^-2, code 125.
  EXPECT_EQ(rows[3].at("format"), "e8m0");
  EXPECT_EQ(rows[3].at("bits"), "0x7d");
  EXPECT_EQ(rows[3].at("value"), "0.25");
  EXPECT_EQ(rows[3].at("formula"), "2^(125 - 127) = 2^-2");
  // INT8: 0.3 x 64 = 19.2 -> 19 = 0x13.
  EXPECT_EQ(rows[4].at("format"), "int8");
  EXPECT_EQ(rows[4].at("bits"), "0x13");
  EXPECT_EQ(rows[4].at("value"), "0.296875");
  EXPECT_EQ(rows[4].at("formula"), "19 x 2^-6");

  const json nan = inspectOne({"nan", "--format", "fp4-e2m1"});
  EXPECT_EQ(nan.at("invalid"), true);
  const json raw = inspectOne({"--bits", "0xff", "--format", "e8m0"});
  EXPECT_EQ(raw.at("class"), "nan");
  const json big = inspectOne({"100", "--format", "fp6-e3m2"});
  EXPECT_EQ(big.at("bits"), "0x1f");
  EXPECT_EQ(big.at("overflow"), true);
  // The default list is still the six training formats.
  EXPECT_EQ(json::parse(runCli({"inspect", "1", "--json"}).out).size(), 6u);
}

} // namespace
