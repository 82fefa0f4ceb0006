// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The FP8 recipes from the command line: `train --recipe fp8-delayed` logs
// each scaled tensor's scale and amax, `scales` prints them; bad names and
// logs without scaling telemetry get clear messages.
#include "cli_runner.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace {

using mantissa::test::runCli;
namespace fs = std::filesystem;

fs::path tempLog(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("mantissa_cli_scales_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

std::vector<std::vector<std::string>> csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream l(line);
    for (std::string cell; std::getline(l, cell, ',');)
      cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

TEST(CliScales, DelayedScalingTraceOfAnMlp) {
  const auto log = tempLog("mlp-fp8.jsonl");
  auto r = runCli({"train", "--data", "spirals", "--recipe", "fp8-delayed", "--steps", "6",
                   "--quiet", "--log", log.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  r = runCli({"scales", log.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("layer0.x"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fp8-e5m2"), std::string::npos) << r.out; // dY
  r = runCli({"scales", log.string(), "--tensor", "layer1.w", "--format", "csv"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto rows = csv(r.out);
  ASSERT_EQ(rows.size(), 7u) << r.out; // header + 6 steps
  ASSERT_EQ(rows[0][4], "scale");
  ASSERT_EQ(rows[0][7], "amax");
  EXPECT_EQ(rows[1][3], "fp8-e4m3");
  EXPECT_EQ(std::stod(rows[1][4]), 1.0); // TE's first step: scale 1
  // Later steps: 448 / the largest amax recorded before (history of 1024).
  double amax = 0;
  for (std::size_t s = 2; s < rows.size(); ++s) {
    amax = std::max(amax, std::stod(rows[s - 1][7]));
    const float expected = 448.0f / static_cast<float>(amax);
    EXPECT_NEAR(std::stod(rows[s][4]), expected, expected * 1e-7) << "step " << rows[s][0];
  }
}

TEST(CliScales, ClearErrors) {
  const auto log = tempLog("mlp-fp32.jsonl");
  auto r = runCli({"train", "--data", "spirals", "--steps", "2", "--quiet", "--log", log.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  r = runCli({"scales", log.string()});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("holds no scaling telemetry"), std::string::npos) << r.err;
  r = runCli({"train", "--data", "spirals", "--recipe", "fp8-delayd", "--steps", "2", "--quiet"});
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("fp8-delayed"), std::string::npos) << r.err;
  const auto fp8 = tempLog("mlp-mx.jsonl");
  r = runCli({"train", "--data", "spirals", "--recipe", "mxfp8", "--steps", "2", "--quiet", "--log",
              fp8.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  r = runCli({"scales", fp8.string(), "--tensor", "layer0.dz"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("did you mean 'layer0.dy'?"), std::string::npos) << r.err;
  r = runCli({"scales", fp8.string(), "--format", "xml"});
  EXPECT_EQ(r.exitCode, 2);
  r = runCli({"scales", (fs::temp_directory_path() / "no-such-run.jsonl").string()});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_FALSE(r.err.empty());
}

TEST(CliScales, GptPolicyWithAScheme) {
  const auto log = tempLog("gpt-mx.jsonl");
  auto r = runCli({"train", "--preset", "shakespeare-char", "--policy",
                   "autocast-cpu-bf16,matmul-inputs=mxfp8", "--steps", "2", "--quiet", "--log",
                   log.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  r = runCli({"scales", log.string(), "--format", "csv"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find(",h0.qkv.x,x,fp8-e4m3,"), std::string::npos) << r.out.substr(0, 400);
  EXPECT_NE(r.out.find(",h3.fcproj.dy,dy,fp8-e4m3,"), std::string::npos);
  r = runCli({"train", "--preset", "shakespeare-char", "--policy",
              "fp32,matmul-inputs=fp8-delayed,fp8-amax=maximum", "--steps", "1", "--quiet"});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("fp8-amax is max or most-recent"), std::string::npos) << r.err;
}

} // namespace
