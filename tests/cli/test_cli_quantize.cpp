// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// `mantissa-cli quantize`: numbers on stdin, a block scheme's scales and
// element bits out, against blocks worked by hand from the OCP MX rules.
#include "cli_runner.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace {

using mantissa::test::runCli;
using nlohmann::json;

json quantizeJson(std::vector<std::string> args, const std::string& input) {
  args.insert(args.begin(), "quantize");
  args.push_back("--json");
  const auto r = runCli(args, input);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  return json::parse(r.out);
}

TEST(CliQuantize, Mxfp4BlockByHand) {
  // amax 7: X = 2^(floor(log2 7) - 2) = 1; 7 clamps to 6 (0x7), 1.3 -> 1.5
  // (0x3), -0.2 -> -0 (0x8), 0.1 -> 0.
  const json j = quantizeJson({"--scheme", "mxfp4"}, "7, 1.3\n-0.2 0.1\n");
  EXPECT_EQ(j.at("element_format"), "fp4-e2m1");
  EXPECT_EQ(j.at("scale_format"), "e8m0");
  EXPECT_EQ(j.at("scale_rounding"), "floor");
  ASSERT_EQ(j.at("blocks").size(), 1u);
  EXPECT_EQ(j.at("blocks")[0].at("scale_bits"), "0x7f");
  EXPECT_EQ(j.at("blocks")[0].at("scale_exponent"), 0);
  EXPECT_EQ(j.at("blocks")[0].at("max_clipped"), true);
  const json& e = j.at("elements");
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].at("bits"), "0x7");
  EXPECT_EQ(e[0].at("value"), 6.0);
  EXPECT_EQ(e[0].at("saturated"), true);
  EXPECT_EQ(e[1].at("bits"), "0x3");
  EXPECT_EQ(e[2].at("bits"), "0x8");
  EXPECT_EQ(e[2].at("lost_to_zero"), true);
  EXPECT_EQ(e[3].at("bits"), "0x0");
  EXPECT_DOUBLE_EQ(j.at("stats").at("fraction_saturated").get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(j.at("stats").at("fraction_lost_to_zero").get<double>(), 0.5);

  // ceil: X = 2; 3.5 ties to the even code 0x6 (4), so 7 -> 8.
  const json c = quantizeJson({"--scheme", "mxfp4", "--scale-rounding", "ceil"}, "7 1.3 -0.2 0.1");
  EXPECT_EQ(c.at("blocks")[0].at("scale_bits"), "0x80");
  EXPECT_EQ(c.at("elements")[0].at("bits"), "0x6");
  EXPECT_EQ(c.at("elements")[0].at("value"), 8.0);
  EXPECT_EQ(c.at("blocks")[0].at("max_clipped"), false);
}

TEST(CliQuantize, TextShowsScalesBitsAndNotes) {
  const auto r = runCli({"quantize", "--scheme", "mxfp8-e4m3"}, "500\n-3\n0.001\n");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("scheme mxfp8-e4m3: fp8-e4m3 elements, e8m0 scales, blocks of 32, scale rounding floor"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("scale 0x7f = 2^0  (maximum clipped)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0x7e"), std::string::npos);
  EXPECT_NE(r.out.find("saturated"), std::string::npos);
  EXPECT_NE(r.out.find("subnormal"), std::string::npos);
  EXPECT_NE(r.out.find("blocks with a clipped maximum 1 of 1"), std::string::npos) << r.out;
}

TEST(CliQuantize, BlocksNvfp4AndShapes) {
  // 40 values in blocks of 32: two blocks, the second short.
  std::string forty;
  for (int i = 1; i <= 40; ++i)
    forty += std::to_string(i) + "\n";
  const json m = quantizeJson({"--scheme", "mxint8"}, forty);
  ASSERT_EQ(m.at("blocks").size(), 2u);
  EXPECT_EQ(m.at("blocks")[1].at("cols"), 8);
  // Block 1's amax 40: floor(log2 40) = 5, INT8's emax 0: X = 32, 40 / 32 =
  // 1.25 = 80 / 64.
  EXPECT_EQ(m.at("blocks")[1].at("scale_bits"), "0x84");
  EXPECT_EQ(m.at("elements")[39].at("bits"), "0x50");

  // nvfp4: tensor amax 2688 = 448 x 6 gives tensor scale 1; block scale 448.
  const json n = quantizeJson({"--scheme", "nvfp4"}, "2688 12 3 1");
  EXPECT_EQ(n.at("tensor_scale").at("bits"), "0x3f800000");
  EXPECT_EQ(n.at("blocks")[0].at("scale_bits"), "0x7e");
  EXPECT_EQ(n.at("elements")[0].at("bits"), "0x7");
  EXPECT_EQ(n.at("scale_rounding"), nullptr);

  // fp8-block: 2 x 256 as tiles of 128 -> 4 blocks; one per tensor -> 1.
  std::string v512;
  for (int i = 0; i < 512; ++i)
    v512 += std::to_string(i % 17 - 8) + " ";
  EXPECT_EQ(quantizeJson({"--scheme", "fp8-block", "--shape", "2x256"}, v512).at("blocks").size(), 4u);
  EXPECT_EQ(quantizeJson({"--scheme", "fp8-tensor", "--shape", "2x256"}, v512).at("blocks").size(), 1u);
  const json w = quantizeJson({"--scheme", "fp8-block", "--shape", "2x256", "--weight-blocks"}, v512);
  ASSERT_EQ(w.at("blocks").size(), 2u);
  EXPECT_EQ(w.at("blocks")[1].at("rows"), 2);
  EXPECT_EQ(w.at("blocks")[1].at("col"), 128);
  // amax 8: scale 8 / 448 in FP32, and 8 is stored as 448 (0x7e).
  EXPECT_EQ(w.at("blocks")[0].at("scale"), static_cast<double>(8.0f / 448.0f));
  EXPECT_EQ(w.at("elements")[16].at("bits"), "0x7e");
}

TEST(CliQuantize, AllSchemesOnTheSameValues) {
  // 7 1.3 -0.2 0.1: mxfp4 clips 7 and loses two of four (the block above).
  const auto r = runCli({"quantize", "--scheme", "all", "--json"}, "7 1.3 -0.2 0.1\n");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json rows = json::parse(r.out);
  ASSERT_EQ(rows.size(), 9u);
  EXPECT_EQ(rows[4].at("scheme"), "mxfp4");
  EXPECT_DOUBLE_EQ(rows[4].at("fraction_saturated").get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(rows[4].at("fraction_lost_to_zero").get<double>(), 0.5);
  EXPECT_EQ(rows[4].at("blocks_max_clipped"), 1);
  const auto text = runCli({"quantize", "--scheme", "all", "--scale-rounding", "ceil"}, "7 1.3 -0.2 0.1\n");
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_NE(text.out.find("(MX scale rounding ceil)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("fp8-tensor"), std::string::npos);
}

TEST(CliQuantize, BadInputIsNamed) {
  struct Case {
    std::vector<std::string> args;
    std::string input;
    int exitCode;
    std::string mention;
  };
  for (const Case& c : std::vector<Case>{
           {{"quantize"}, "1\n", 2, "missing --scheme"},
           {{"quantize", "--scheme", "mxfp44"}, "1\n", 2, "unknown scheme 'mxfp44'; did you mean 'mxfp4'?"},
           {{"quantize", "--scheme", "nvfp-4"}, "1\n", 2, "did you mean 'nvfp4'?"},
           {{"quantize", "--scheme", "banana"}, "1\n", 2, "unknown scheme 'banana' (known: mxfp8-e4m3"},
           {{"quantize", "--scheme", "mxfp4", "--scale-rounding", "up"}, "1\n", 2, "unknown mode 'up'"},
           {{"quantize", "--scheme", "nvfp4", "--scale-rounding", "ceil"}, "1\n", 2, "applies to the MX schemes"},
           {{"quantize", "--scheme", "mxfp4"}, "1\n2 x3\n", 1, "line 2, column 3: 'x3' is not a number"},
           {{"quantize", "--scheme", "mxfp4"}, "# nothing\n", 1, "no values on stdin"},
           {{"quantize", "--scheme", "mxfp4", "--shape", "2x3"}, "1 2 3\n", 1, "needs 6 values; stdin has 3"},
           {{"quantize", "--scheme", "mxfp4", "--shape", "23"}, "1\n", 2, "is not RxC"},
           {{"quantize", "--scheme", "mxfp4", "--weight-blocks"}, "1\n", 2, "--weight-blocks needs"},
       }) {
    const auto r = runCli(c.args, c.input);
    EXPECT_EQ(r.exitCode, c.exitCode) << c.mention << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find(c.mention), std::string::npos) << r.err;
  }
}

} // namespace
