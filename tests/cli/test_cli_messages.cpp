// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// What mantissa-cli says when a user gets something wrong, and the
// conveniences a user relies on: "did you mean", names in any letter case,
// preset comparisons across recipes, data-sized default models, a run log as
// --config, the reason a file cannot be written, Ctrl+C's exit status, and
// numbers printed as people write them.
#include "cli_runner.h"
#include "../build_tree.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using mantissa::test::runCli;
namespace fs = std::filesystem;

extern char** environ;

namespace {

fs::path tempDir() {
  const fs::path dir = fs::temp_directory_path() / ("mantissa_cli_messages_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST(CliMessages, MisspelledCommandGetsASuggestion) {
  const auto r = runCli({"trian"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "did you mean 'train'")) << r.err;
  const auto far = runCli({"xyzzy"});
  EXPECT_EQ(far.exitCode, 2);
  EXPECT_FALSE(contains(far.err, "did you mean")) << far.err;
}

TEST(CliMessages, MisspelledOptionGetsASuggestion) {
  const auto r = runCli({"train", "--recipie", "fp32"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "did you mean '--recipe'")) << r.err;
}

TEST(CliMessages, MisspelledNamesGetASuggestion) {
  auto r = runCli({"train", "--recipe", "bf16-mixd", "--steps", "1"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "did you mean 'bf16-mixed'")) << r.err;
  r = runCli({"train", "--preset", "scalng"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "did you mean 'scaling'")) << r.err;
  r = runCli({"train", "--recipe", "fp16-mixed", "--scaler", "pytorc", "--steps", "1"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "did you mean 'pytorch'")) << r.err;
  r = runCli({"inspect", "1", "--format", "bfl16"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "did you mean 'bf16'")) << r.err;
  r = runCli({"inspect", "1", "--rounding", "nearest-eve"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "did you mean 'nearest-even'")) << r.err;
}

TEST(CliMessages, NamesMatchInAnyLetterCase) {
  auto r = runCli({"train", "--recipe", "BF16-Mixed", "--steps", "2", "--batch", "32", "--quiet"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "recipe bf16-mixed")) << r.out;
  r = runCli({"inspect", "1", "--format", "FP16", "--rounding", "Nearest-Even"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  r = runCli({"train", "--preset", "SWAMPING", "--steps", "1", "--batch", "32", "--quiet"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
}

TEST(CliMessages, PresetRunsWithARecipeWithoutScaler) {
  for (const char* recipe : {"fp32", "bf16-mixed"}) {
    const auto r = runCli({"train", "--preset", "scaling", "--recipe", recipe, "--steps", "2",
                           "--batch", "32", "--quiet"});
    EXPECT_EQ(r.exitCode, 0) << recipe << ": " << r.err;
    EXPECT_TRUE(contains(r.out, std::string("recipe ") + recipe)) << r.out;
  }
}

TEST(CliMessages, ScalerNoneIsAccepted) {
  for (const char* recipe : {"fp32", "bf16-mixed", "fp16-mixed"}) {
    const auto r = runCli({"train", "--recipe", recipe, "--scaler", "none", "--steps", "2",
                           "--batch", "32", "--quiet"});
    EXPECT_EQ(r.exitCode, 0) << recipe << ": " << r.err;
  }
}

TEST(CliMessages, SyntheticDataGetsAModelOfItsShape) {
  for (const char* data : {"spirals", "blobs"}) {
    const auto r = runCli({"train", "--data", data, "--steps", "5", "--batch", "32"});
    EXPECT_EQ(r.exitCode, 0) << data << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "mlp:2-64-64-")) << r.err; // 2 features in, the classes out
  }
}

TEST(CliMessages, RunLogServesAsConfig) {
  const fs::path log = tempDir() / "config-run.jsonl";
  auto r = runCli({"train", "--recipe", "bf16-mixed", "--lr", "0.02", "--steps", "2", "--batch",
                   "32", "--log", log.string(), "--quiet"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  r = runCli({"train", "--config", log.string(), "--steps", "1", "--quiet"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "recipe bf16-mixed")) << r.out;

  // Not a configuration: a clear sentence, no JSON library internals.
  const fs::path junk = tempDir() / "junk.json";
  std::ofstream(junk) << "{ this is not json";
  r = runCli({"train", "--config", junk.string()});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "not a JSON configuration or a run log")) << r.err;
  EXPECT_FALSE(contains(r.err, "json.exception")) << r.err;
}

TEST(CliMessages, CannotWriteSaysWhy) {
  const auto r = runCli({"train", "--steps", "1", "--batch", "32", "--log",
                         "/nonexistent-directory/run.jsonl", "--quiet"});
  EXPECT_NE(r.exitCode, 0);
  EXPECT_TRUE(contains(r.err, "No such file or directory")) << r.err;
}

TEST(CliMessages, ConvertQuotesBadLinesShortAndEscaped) {
  std::string line(100000, '7');
  line += "\x01\x1b[31m";
  const auto r = runCli({"convert", "--to", "fp16"}, "1\n" + line + "\n");
  EXPECT_NE(r.exitCode, 0);
  EXPECT_LT(r.err.size(), 400u) << r.err.substr(0, 400);
  EXPECT_EQ(r.err.find('\x01'), std::string::npos);
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos);
  EXPECT_TRUE(contains(r.err, "100006 bytes")) << r.err;

  const auto control = runCli({"convert", "--to", "fp16"}, "1\x07x\n");
  EXPECT_TRUE(contains(control.err, "\\x07")) << control.err;
}

TEST(CliMessages, NumbersReadLikeNumbers) {
  const auto r = runCli({"train", "--recipe", "fp16-mixed", "--steps", "3", "--batch", "32"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // GradScaler's initial scale is 2^16, written so (or 2^15 after a back-off).
  EXPECT_TRUE(std::regex_search(r.err, std::regex("scale 2\\^1[0-9]\n"))) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("test accuracy [0-9]+\\.[0-9]{2} %, test loss "
                                                  "[0-9]\\.[0-9]{4},")))
      << r.out;
}

TEST(CliMessages, InterruptedRunExits130AfterSavingItsLog) {
  const fs::path log = tempDir() / "interrupted.jsonl";
  fs::remove(log);
  std::vector<std::string> args{mantissa::test::cliBinary(), "train", "--model", "mlp:784-64-10", "--steps",
                                "100000", "--batch", "32", "--log", log.string(), "--quiet"};
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, mantissa::test::cliBinary(), nullptr, nullptr, argv.data(), environ), 0);
  bool started = false; // the header and a few steps are in the log: the handler is installed
  for (int i = 0; i < 6000 && !started; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::ifstream in(log);
    started = std::count(std::istreambuf_iterator<char>(in), {}, '\n') >= 4;
  }
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(started) << "no steps logged within 60 s";
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  std::ifstream in(log);
  std::string line, last;
  while (std::getline(in, line))
    last = line;
  EXPECT_TRUE(nlohmann::json::parse(last).contains("summary")) << last;
}

#ifdef MANTISSA_CLI_HAS_UI
TEST(CliMessages, ReportSaysWhatIsWrongWithItsArguments) {
  const fs::path log = tempDir() / "report-run.jsonl";
  ASSERT_EQ(runCli({"train", "--steps", "2", "--batch", "32", "--log", log.string(), "--quiet"}).exitCode, 0);
  auto r = runCli({"report", log.string(), "--out", (tempDir() / "r.docx").string()});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "must end in .pdf or .html")) << r.err;
  EXPECT_FALSE(contains(r.err, "required")) << r.err;
  r = runCli({"report", tempDir().string(), "--out", (tempDir() / "r.pdf").string()});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_TRUE(contains(r.err, "is a directory")) << r.err;
}

TEST(CliMessages, HeadlessPlotPrintsNoRuntimeDirWarning) {
  const fs::path log = tempDir() / "plot-run.jsonl";
  ASSERT_EQ(runCli({"train", "--steps", "2", "--batch", "32", "--log", log.string(), "--quiet"}).exitCode, 0);
  const char* saved = std::getenv("XDG_RUNTIME_DIR");
  const std::string keep = saved ? saved : "";
  ::unsetenv("XDG_RUNTIME_DIR");
  const auto r = runCli({"plot", log.string(), "--chart", "loss", "--out", (tempDir() / "loss.svg").string()});
  if (saved)
    ::setenv("XDG_RUNTIME_DIR", keep.c_str(), 1);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "XDG_RUNTIME_DIR")) << r.err;
  EXPECT_FALSE(contains(r.err, "QStandardPaths")) << r.err;
}
#endif
