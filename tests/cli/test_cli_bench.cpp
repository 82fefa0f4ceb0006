// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli bench on the tiny configuration: the JSON object on stdout,
// progress on stderr, the tables, --out written, bad usage. Never timings.
#include "cli_runner.h"

#include <mantissa/numeric/cpu_features.h>

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

using mantissa::test::runCli;
using nlohmann::json;

namespace {
// auto remembers its choices in the user's cache directory: a private one here.
const bool kPrivateCache = [] {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("mantissa_cli_bench_cache_" + std::to_string(::getpid()));
  ::setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  return true;
}();
} // namespace

TEST(CliBench, JsonOnStdoutProgressOnStderr) {
  // Per process: two suites at once on one machine (two build trees) must not share it.
  const auto out = std::filesystem::temp_directory_path() /
                   ("mantissa_cli_bench_out_" + std::to_string(::getpid()) + ".json");
  std::filesystem::remove(out);
  auto r = runCli({"bench", "--tiny", "--json", "--out", out.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = json::parse(r.out); // stdout is exactly one JSON object
  EXPECT_EQ(j.at("mode"), "tiny");
  EXPECT_EQ(j.at("isa"), mantissa::numeric::describeIsa());
  EXPECT_GE(j.at("threads").get<int>(), 1);
  for (const char* key : {"matmul", "steps", "conversion", "versus_fp32"})
    EXPECT_FALSE(j.at(key).empty()) << key;
  EXPECT_FALSE(j.contains("targets"));
  // The probe lists every path, present or absent with a reason.
  ASSERT_EQ(j.at("probe").at("paths").size(), 5u);
  for (const auto& p : j.at("probe").at("paths"))
    EXPECT_TRUE(p.at("present").get<bool>() ? p.at("gflops_per_core").get<double>() > 0
                                            : !p.at("absent_reason").get<std::string>().empty())
        << p.dump();
  EXPECT_TRUE(j.at("peak_gflops").contains("fp32"));
  EXPECT_TRUE(j.at("peak_gflops").contains("bf16"));
  EXPECT_TRUE(j.at("memcpy_gbps").is_number());
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  EXPECT_EQ(j.at("machine").at("omp_wait_policy").get<std::string>().rfind(policy ? policy : "passive", 0), 0u)
      << "the re-exec sets passive when OMP_WAIT_POLICY is unset";
  EXPECT_NE(r.err.find("[100%] done"), std::string::npos) << r.err;
  std::ifstream in(out);
  ASSERT_TRUE(in) << out;
  EXPECT_EQ(json::parse(in), j);
  std::filesystem::remove(out);
}

TEST(CliBench, TablesNameTheProbeTheRecipesAndEmulation) {
  auto r = runCli({"bench", "--tiny"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* text : {"What this CPU can do", "Matmul throughput", "Peak", "Conversion throughput",
                           "Training step", "Bytes allocated per recipe", "Each recipe against fp32",
                           "OMP_WAIT_POLICY"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  // Development targets and test file names are not the product's business.
  for (const char* text : {"target", "NOT MET", "MET", "test_", "tests/"})
    EXPECT_EQ(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  // FP16 has no oneDNN CPU matmul: its column is always labelled.
  EXPECT_NE(r.out.find("onednn fp16 (emulated)"), std::string::npos) << r.out;
}

TEST(CliBench, BadUsageIsRefused) {
  auto r = runCli({"bench", "--tiny", "--matmul", "fastest"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("not one of native, fp32-compute, auto"), std::string::npos) << r.err;
  r = runCli({"bench", "--tiny", "--fp16-accumulation", "0"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--fp16-accumulation: '0' is not a number of products from 1 to 65536 or never"),
            std::string::npos)
      << r.err;
  r = runCli({"bench", "--quick", "--tiny"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("exclude each other"), std::string::npos) << r.err;
  r = runCli({"bench", "--tiny", "--out", "/nonexistent-dir/x.json"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("/nonexistent-dir/x.json"), std::string::npos) << r.err;
  r = runCli({"bench", "--help"});
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.out.find("--tiny"), std::string::npos);
  EXPECT_EQ(r.out.find("test suite"), std::string::npos) << r.out; // help speaks to users
}

// --threads N: the report and a run log's header say how many threads ran;
// a count that is not one is refused with the option named.
TEST(CliBench, ThreadsOptionSetsTheThreadCount) {
  auto r = runCli({"bench", "--tiny", "--json", "--threads", "1"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(json::parse(r.out).at("threads"), 1);

  const auto log = std::filesystem::temp_directory_path() /
                   ("mantissa_cli_threads_" + std::to_string(::getpid()) + ".jsonl");
  r = runCli({"train", "--preset", "underflow", "--steps", "2", "--threads", "1", "--log",
              log.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::ifstream in(log);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(json::parse(header).at("machine").at("threads"), 1) << header;
  std::filesystem::remove(log);

  for (const char* bad : {"0", "2x", "-1", "1025"}) {
    r = runCli({"train", "--preset", "underflow", "--steps", "1", "--threads", bad});
    EXPECT_EQ(r.exitCode, 2) << bad;
    EXPECT_NE(r.err.find("--threads: '" + std::string(bad) + "' is not a number of threads"),
              std::string::npos)
        << r.err;
  }
}
