// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli diff: two trainings with the same seed differ nowhere (exit
// 0); a log whose loss at step 3 is 3 ULPs away (built with nextafter)
// differs there at tolerance 2 (exit 1, JSON and CSV) and nowhere at 3; a
// bad log is named by file and line (exit 2).
#include "cli_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <unistd.h>

using mantissa::test::runCli;
namespace fs = std::filesystem;

namespace {

fs::path tempPath(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("mantissa_cli_diff_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

std::string readAll(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Steps 0..5 with losses 2 - 0.25 s; `ulps` added to step 3's.
std::string lossLog(int ulps) {
  std::string out = "{\"header\": true, \"name\": \"fixture\"}\n";
  for (int s = 0; s < 6; ++s) {
    double loss = 2.0 - 0.25 * s + 1e-3;
    if (s == 3)
      for (int i = 0; i < ulps; ++i)
        loss = std::nextafter(loss, std::numeric_limits<double>::infinity());
    out += nlohmann::json{{"step", s}, {"loss", loss}}.dump() + "\n";
  }
  return out;
}

} // namespace

TEST(CliDiff, TwoTrainingsWithOneSeedDifferNowhere) {
  const auto a = tempPath("a.jsonl"), b = tempPath("b.jsonl");
  for (const auto& log : {a, b}) {
    const auto r = runCli({"train", "--model", "mlp:784-16-10", "--recipe", "fp32", "--steps", "30",
                           "--batch", "16", "--seed", "5", "--telemetry-every", "1", "--eval-every",
                           "10", "--log", log.string()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
  }
  const auto r = runCli({"diff", a.string(), b.string()});
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("The runs differ nowhere."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Compared 30 steps, 30 telemetry frames"), std::string::npos) << r.out;
  const auto j = runCli({"diff", a.string(), b.string(), "--json"});
  ASSERT_EQ(j.exitCode, 0) << j.err;
  const auto parsed = nlohmann::json::parse(j.out);
  EXPECT_FALSE(parsed["differ"].get<bool>());
  EXPECT_TRUE(parsed["first"].is_null());
  EXPECT_GT(parsed["tensors_compared"].get<int>(), 30 * 4);
}

TEST(CliDiff, LossThreeUlpsAwayIsFoundWithinToleranceTwoNotThree) {
  const auto a = tempPath("loss_a.jsonl"), b = tempPath("loss_b.jsonl"), csv = tempPath("t.csv");
  write(a, lossLog(0));
  write(b, lossLog(3));
  const auto r = runCli({"diff", a.string(), b.string(), "--tolerance-ulps", "2", "--out", csv.string()});
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("First divergence: step 3, loss, loss"), std::string::npos) << r.out;
  EXPECT_EQ(readAll(csv).rfind("step,pass,tensor,layer,measure,a,b,ulps,emd,detail\n3,loss,loss,,loss,", 0),
            0u)
      << readAll(csv);
  const auto j = runCli({"diff", a.string(), b.string(), "--tolerance-ulps=2", "--json"});
  ASSERT_EQ(j.exitCode, 1) << j.err;
  const auto parsed = nlohmann::json::parse(j.out);
  EXPECT_EQ(parsed["first"]["step"], 3);
  EXPECT_EQ(parsed["first"]["ulps"], 3.0);
  const auto within = runCli({"diff", a.string(), b.string(), "--tolerance-ulps", "3"});
  EXPECT_EQ(within.exitCode, 0) << within.out;
  // Logs without telemetry are compared by their losses, and say so.
  EXPECT_NE(within.out.find("Note: neither log has telemetry frames"), std::string::npos)
      << within.out;
}

TEST(CliDiff, BadInputIsExitTwoNamingTheFileAndLine) {
  const auto a = tempPath("good.jsonl"), bad = tempPath("bad.jsonl");
  write(a, lossLog(0));
  write(bad, "{\"step\": 0, \"loss\": 1.0}\n{\"step\": 1, \"loss\": \"high\"}\n{\"step\": 2, \"loss\": 1}\n");
  auto r = runCli({"diff", a.string(), bad.string()});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find(bad.string() + ":2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\"loss\""), std::string::npos) << r.err;
  r = runCli({"diff", a.string(), tempPath("missing.jsonl").string()});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("missing.jsonl"), std::string::npos) << r.err;
  r = runCli({"diff", a.string()});
  EXPECT_EQ(r.exitCode, 2);
  r = runCli({"diff", a.string(), a.string(), "--tolerance-ulps", "-1"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("tolerance-ulps"), std::string::npos) << r.err;
}
