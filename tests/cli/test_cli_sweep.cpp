// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli sweep on a tiny GPT: the table and policy files are written,
// and train --policy FILE replays the chosen policy to the val_loss the sweep
// measured for it, within the budget of the base's; bad options are exit 2
// naming the option.
#include "cli_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using mantissa::test::runCli;

namespace {

const std::vector<std::string> kRun{"--preset",       "shakespeare-char",
                                    "--model",        "gpt:layers=1,heads=2,embd=32,ctx=32",
                                    "--steps",        "20",
                                    "--batch",        "8",
                                    "--eval-batches", "4"};

std::vector<std::string> with(std::vector<std::string> head, const std::vector<std::string>& more) {
  head.insert(head.end(), kRun.begin(), kRun.end());
  head.insert(head.end(), more.begin(), more.end());
  return head;
}

nlohmann::json readJson(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

} // namespace

TEST(CliSweep, WritesTheTableAndAPolicyFileThatTrainReplays) {
  const fs::path dir = fs::temp_directory_path() / ("mantissa-cli-sweep-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const auto r = runCli(with({"sweep"}, {"--formats", "bf16,mxfp4", "--ops", "matmul-inputs,gelu",
                                         "--budget", "0.05", "--out", dir.string(), "--quiet"}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("chosen policy"), std::string::npos) << r.out;
  for (const char* f : {"sweep.csv", "sweep.json", "policy.txt", "runs.json"})
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  const nlohmann::json table = readJson(dir / "sweep.json");
  ASSERT_EQ(table["rows"].size(), 4u * 2u + 1u); // 4 linear layers x 2 formats + gelu bf16
  const double base = table["base_val_loss"][0];
  const double chosen = table["chosen"]["val_loss"][0];

  const fs::path log = dir / "replay.jsonl";
  const auto t = runCli(with({"train"}, {"--seed", "1", "--policy", (dir / "policy.txt").string(),
                                         "--log", log.string(), "--quiet"}));
  ASSERT_EQ(t.exitCode, 0) << t.err;
  std::ifstream in(log);
  std::string line, last, first;
  std::getline(in, first);
  while (std::getline(in, line))
    last = line;
  EXPECT_EQ(nlohmann::json::parse(first)["policy"], table["chosen"]["policy"]);
  const double replayed = nlohmann::json::parse(last)["val_loss"];
  EXPECT_EQ(replayed, chosen);
  EXPECT_LE(replayed - base, 0.05);
  fs::remove_all(dir);
}

TEST(CliSweep, BadOptionsAreExitTwoNamingTheOption) {
  const auto formats = runCli(with({"sweep"}, {"--formats", "bf16,fp7"}));
  EXPECT_EQ(formats.exitCode, 2);
  EXPECT_NE(formats.err.find("--formats: unknown format \"fp7\""), std::string::npos) << formats.err;
  const auto steps = runCli({"sweep", "--steps", "0"});
  EXPECT_EQ(steps.exitCode, 2);
  EXPECT_NE(steps.err.find("--steps"), std::string::npos) << steps.err;
  const auto preset = runCli({"sweep", "--preset", "underflow"});
  EXPECT_EQ(preset.exitCode, 2);
  EXPECT_NE(preset.err.find("--preset: 'underflow' is not a GPT preset"), std::string::npos)
      << preset.err;
  const auto ops = runCli(with({"sweep"}, {"--ops", "batchnorm"}));
  EXPECT_EQ(ops.exitCode, 2);
  EXPECT_NE(ops.err.find("--ops: unknown op class \"batchnorm\""), std::string::npos) << ops.err;
}
