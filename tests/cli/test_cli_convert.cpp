// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// `mantissa-cli convert`: values on stdin, bits on stdout, one line each.
#include "cli_runner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace {

using mantissa::test::runCli;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

TEST(CliConvert, DecimalsToFp16) {
  const auto r = runCli({"convert", "--to", "fp16"},
                        "0.1\n-0\n1e-8\ninf\n-inf\nnan\n0x1.8p-3\n65504\n65520\n2049\n0.333333333333\n");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(lines(r.out), (std::vector<std::string>{"0x2e66", "0x8000", "0x0000", "0x7c00", "0xfc00",
                                                    "0x7e00", "0x3200", "0x7bff", "0x7c00", "0x6800",
                                                    "0x3555"}));
  EXPECT_TRUE(r.err.empty());
}

TEST(CliConvert, EveryFormatIsPaddedToItsWidth) {
  auto one = [](const char* to, const char* value) {
    const auto r = runCli({"convert", "--to", to}, std::string(value) + "\n");
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return r.out;
  };
  EXPECT_EQ(one("fp32", "1"), "0x3f800000\n");
  EXPECT_EQ(one("fp32", "1e-45"), "0x00000001\n");
  EXPECT_EQ(one("tf32", "0.1"), "0x1ee66\n");
  EXPECT_EQ(one("bf16", "0.1"), "0x3dcd\n");
  EXPECT_EQ(one("fp8-e4m3", "0.0009"), "0x00\n"); // below half of 2^-9
  EXPECT_EQ(one("fp8-e4m3", "0.001"), "0x01\n");  // above half of 2^-9
  EXPECT_EQ(one("fp8-e4m3", "448"), "0x7e\n");
  EXPECT_EQ(one("fp8-e5m2", "57344"), "0x7b\n");
  EXPECT_EQ(one("fp64", "0.1"), "0x3fb999999999999a\n");
}

TEST(CliConvert, RawBitsFromAnotherFormat) {
  // Ties to even (1 + 2^-8 and 1 + 3 x 2^-8 in BF16); a signaling NaN keeps
  // its top bits and becomes quiet, as on x86.
  const auto r = runCli({"convert", "--from", "fp32", "--to", "bf16"},
                        "0x3dcccccd\n0x3f808000\n0x3f818000\n0x7fa00000\n0.1\n");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(lines(r.out), (std::vector<std::string>{"0x3dcd", "0x3f80", "0x3f82", "0x7fe0", "0x3dcd"}));
  const auto h = runCli({"convert", "--from", "fp16", "--to", "fp32"}, "0x3c00\n0x0001\n0x7bff\n");
  ASSERT_EQ(h.exitCode, 0) << h.err;
  EXPECT_EQ(lines(h.out), (std::vector<std::string>{"0x3f800000", "0x33800000", "0x477fe000"}));
}

TEST(CliConvert, RoundingSaturateAndFtz) {
  auto run = [](std::vector<std::string> args, const char* input) {
    args.insert(args.begin(), "convert");
    const auto r = runCli(args, input);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return lines(r.out);
  };
  EXPECT_EQ(run({"--to", "fp16", "--rounding", "up"}, "0.1\n-0.1\n"),
            (std::vector<std::string>{"0x2e67", "0xae66"}));
  EXPECT_EQ(run({"--to", "fp16", "--rounding", "down"}, "0.1\n-0.1\n"),
            (std::vector<std::string>{"0x2e66", "0xae67"}));
  EXPECT_EQ(run({"--to", "fp16", "--saturate"}, "1e6\n-1e6\n"),
            (std::vector<std::string>{"0x7bff", "0xfbff"}));
  EXPECT_EQ(run({"--to", "fp8-e4m3"}, "500\n"), (std::vector<std::string>{"0x7f"}));
  EXPECT_EQ(run({"--to", "fp16", "--ftz"}, "1e-5\n-1e-5\n0.00006103515625\n"),
            (std::vector<std::string>{"0x0000", "0x8000", "0x0400"}));
}

// 0.1 sits 0.4 of the way from FP16 0x2e66 to 0x2e67: with stochastic
// rounding about 40% of many lines go up, and a seed replays exactly.
TEST(CliConvert, StochasticIsSeededAndUnbiased) {
  std::string input;
  constexpr int kLines = 4000;
  for (int i = 0; i < kLines; ++i)
    input += "0.1\n";
  const auto a = runCli({"convert", "--to", "fp16", "--rounding", "stochastic", "--seed", "42"}, input);
  const auto b = runCli({"convert", "--to", "fp16", "--rounding", "stochastic", "--seed", "42"}, input);
  const auto c = runCli({"convert", "--to", "fp16", "--rounding", "stochastic", "--seed", "43"}, input);
  ASSERT_EQ(a.exitCode, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out, c.out);
  int ups = 0;
  for (const auto& line : lines(a.out)) {
    ASSERT_TRUE(line == "0x2e66" || line == "0x2e67") << line;
    ups += line == "0x2e67";
  }
  const double sigma = std::sqrt(0.4 * 0.6 / kLines);
  EXPECT_NEAR(static_cast<double>(ups) / kLines, 0.4, 5 * sigma);
}

TEST(CliConvert, BadLinesAreNamedWithTheirLineAndNothingIsPrinted) {
  const auto r = runCli({"convert", "--to", "fp16", "--from", "fp16"}, "0.1\nabc\n0x1ffff\n\n1\n");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("line 2: 'abc' is not a number"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("line 3: '0x1ffff' has more bits than fp16"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("line 4: '' is empty"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("line 1"), std::string::npos) << r.err;
}

TEST(CliConvert, BadOptions) {
  for (const auto& [args, mention] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"convert"}, "missing --to"},
           {{"convert", "--to", "fp99"}, "unknown format 'fp99'"},
           {{"convert", "--to", "fp16", "--from", "int3"}, "unknown format 'int3'"},
           {{"convert", "--to", "fp16", "--rounding", "sideways"}, "unknown mode 'sideways'"},
           {{"convert", "--to", "fp16", "--seed", "x"}, "--seed"},
       }) {
    const auto r = runCli(args, "1\n");
    EXPECT_EQ(r.exitCode, 2) << mention;
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find(mention), std::string::npos) << r.err;
  }
}

} // namespace

namespace {

TEST(CliConvert, MicroscalingFormats) {
  // FP4 E2M1: 5 ties between 4 (0b0110) and 6 (0b0111) and goes to the even
  // code; 100 saturates at 6, as OCP MX has no infinity.
  const auto fp4 = runCli({"convert", "--to", "fp4-e2m1"}, "0.5\n5\n-5\n100\n-inf\n0.2\n");
  ASSERT_EQ(fp4.exitCode, 0) << fp4.err;
  EXPECT_EQ(lines(fp4.out), (std::vector<std::string>{"0x1", "0x6", "0xe", "0x7", "0xf", "0x0"}));
  // FP6: 7.5 and 28 are the two maxima; the width is two hex digits.
  EXPECT_EQ(runCli({"convert", "--to", "fp6-e2m3"}, "7.5\n0.125\n").out, "0x1f\n0x01\n");
  EXPECT_EQ(runCli({"convert", "--to", "fp6-e3m2"}, "28\n-0.0625\n").out, "0x1f\n0x21\n");
  // E8M0: 2^(c - 127); 3 ties between 2 (0x80) and 4 (0x81), to the even code.
  EXPECT_EQ(runCli({"convert", "--to", "e8m0"}, "1\n3\n0x1p-127\n").out, "0x7f\n0x80\n0x00\n");
  // INT8 (MXINT8): value x 64 as two's complement.
  EXPECT_EQ(runCli({"convert", "--to", "int8"}, "0.5\n-0.5\n-2\n1.984375\n9\n").out,
            "0x20\n0xe0\n0x80\n0x7f\n0x7f\n");
  // Raw bits the other way: fp4 0x7 is 6, which is 0x4600 in fp16.
  EXPECT_EQ(runCli({"convert", "--from", "fp4-e2m1", "--to", "fp16"}, "0x7\n0xf\n").out,
            "0x4600\n0xc600\n");
}

TEST(CliConvert, ValuesWithNoEncodingAreErrors) {
  const auto nan = runCli({"convert", "--to", "fp4-e2m1"}, "1\nnan\n");
  EXPECT_EQ(nan.exitCode, 1);
  EXPECT_TRUE(nan.out.empty());
  EXPECT_NE(nan.err.find("line 2: 'nan' has no fp4-e2m1 encoding (it has no NaN)"), std::string::npos)
      << nan.err;
  const auto negative = runCli({"convert", "--to", "e8m0"}, "-4\n");
  EXPECT_EQ(negative.exitCode, 1);
  EXPECT_NE(negative.err.find("line 1: '-4' has no e8m0 encoding (it has no sign)"), std::string::npos)
      << negative.err;
  const auto wide = runCli({"convert", "--from", "fp4-e2m1", "--to", "fp32"}, "0x10\n");
  EXPECT_EQ(wide.exitCode, 1);
  EXPECT_NE(wide.err.find("has more bits than fp4-e2m1 (4 bits)"), std::string::npos) << wide.err;
}

// Formats given as specs: E4M3FNUZ (bias 8) stores 240 as 0x7f, -0 as +0
// and NaN as 0x80 (ml_dtypes float8_e4m3fnuz); E3M4 (bias 3) stores 1 as 0x30.
TEST(CliConvert, SpecsAndNewNamedFormats) {
  const auto fnuz = runCli({"convert", "--to", "e4m3:bias=8,special=fnuz"}, "240\n-0\nnan\n1\n");
  EXPECT_EQ(fnuz.exitCode, 0) << fnuz.err;
  EXPECT_EQ(fnuz.out, "0x7f\n0x00\n0x80\n0x40\n");
  const auto e3m4 = runCli({"convert", "--to", "fp8-e3m4"}, "1\n16\n");
  EXPECT_EQ(e3m4.out, "0x30\n0x70\n");
  const auto back = runCli({"convert", "--from", "fp8-e5m2fnuz", "--to", "fp32"}, "0x7f\n");
  EXPECT_EQ(back.out, "0x47600000\n"); // 57344
  const auto bad = runCli({"convert", "--to", "e4m3:bias=x"}, "1\n");
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_NE(bad.err.find("--to: bias: 'x' is not an integer"), std::string::npos) << bad.err;
  const auto special = runCli({"convert", "--to", "e4m3:special=maybe"}, "1\n");
  EXPECT_NE(special.err.find("special: 'maybe' is not one of ieee, fn, fnuz, none"), std::string::npos)
      << special.err;
}

} // namespace
