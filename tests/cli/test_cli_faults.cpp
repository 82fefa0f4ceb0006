// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli under faults: killed with SIGKILL at different moments (with a
// telemetry frame in every line, so a kill can land mid-line), a log on a full
// disk, truncated or garbage input files. Each ends with a clear message and
// a non-zero exit, or, when killed, a log whose complete lines all parse and
// cover every step from 0 to the last one written.

#include "cli_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

using mantissa::test::runCli;
namespace fs = std::filesystem;
extern char** environ;

namespace {

fs::path tempDir() {
  const fs::path dir = fs::temp_directory_path() / ("mantissa_cli_faults_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

pid_t spawnCli(std::vector<std::string> args) {
  args.insert(args.begin(), MANTISSA_CLI);
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, MANTISSA_CLI, nullptr, nullptr, argv.data(), environ), 0);
  return pid;
}

std::size_t newlines(const fs::path& p) {
  const std::string text = readText(p);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

} // namespace

// Five runs killed after 3, 6, 9, 12 and 15 logged lines.
TEST(CliFaults, KilledAtAnyMomentLeavesCompleteLinesCoveringEveryStep) {
  const fs::path log = tempDir() / "killed.jsonl";
  for (std::size_t wanted = 3; wanted <= 15; wanted += 3) {
    fs::remove(log);
    const pid_t pid = spawnCli({"train", "--model", "mlp:784-64-10", "--steps", "100000",
                                "--batch", "16", "--telemetry-every", "1", "--log", log.string(),
                                "--quiet"});
    bool enough = false;
    for (int i = 0; i < 6000 && !enough; ++i) { // up to 60 s on a loaded machine
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      enough = fs::exists(log) && newlines(log) >= wanted;
    }
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(enough) << "fewer than " << wanted << " lines within 60 s";
    ASSERT_TRUE(WIFSIGNALED(status));

    const std::string text = readText(log);
    std::size_t start = 0;
    std::int64_t expected = 0;
    int lines = 0;
    for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
      const auto j = nlohmann::json::parse(text.substr(start, nl - start)); // a complete line
      ++lines;
      if (lines == 1) {
        EXPECT_TRUE(j.contains("header")) << j.dump();
        continue;
      }
      if (j.contains("step") && !j.contains("eval") && !j.contains("summary")) {
        EXPECT_EQ(j["step"].get<std::int64_t>(), expected++) << "line " << lines;
      }
    }
    EXPECT_GE(std::size_t(lines), wanted);
    EXPECT_GE(expected, 1);
    // Whatever follows the last newline is the one line cut by the kill, if any.
    EXPECT_EQ(text.find('\n', start), std::string::npos);
  }
}

// A log on a full disk must not be lost silently: the run says so and fails.
TEST(CliFaults, LogOnAFullDiskIsAnErrorNamingTheFile) {
  auto r = runCli({"train", "--model", "mlp:784-16-10", "--steps", "3", "--batch", "16", "--log",
                   "/dev/full", "--quiet"});
  EXPECT_NE(r.exitCode, 0) << "the log could not be written, yet the run reported success";
  EXPECT_NE(r.err.find("/dev/full"), std::string::npos) << r.err;
}

TEST(CliFaults, TruncatedOrGarbageInputFilesFailWithTheirName) {
  const fs::path dir = tempDir();
  const fs::path config = dir / "half.json";
  std::ofstream(config) << R"({"model": "mlp:784-16-10", "st)";
  auto r = runCli({"train", "--config", config.string()});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("half.json"), std::string::npos) << r.err;

  const fs::path csv = dir / "cut.csv";
  std::ofstream(csv) << "label,a,b\n1,0.5,0.25\n0,0.1"; // the last row cut short
  r = runCli({"train", "--data", csv.string(), "--model", "mlp:2-4-2", "--steps", "2"});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("cut.csv"), std::string::npos) << r.err;

  const fs::path idx = dir / "train-images-idx3-ubyte";
  std::ofstream(idx, std::ios::binary) << std::string("\0\0\x08\x03\0\0\0\x05", 8); // header cut
  std::ofstream(dir / "train-labels-idx1-ubyte", std::ios::binary)
      << std::string("\0\0\x08\x01\0\0\0\x05\x01\x02\x03\x04\x05", 13); // whole
  r = runCli({"train", "--data", idx.string(), "--steps", "2"});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("train-images-idx3-ubyte"), std::string::npos) << r.err;
}
