// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli train on hostile input: sizes whose bytes multiply past the
// memory available (refused before allocating, with the figure and the term
// that dominates), a log path that is another user's symlink or sits on a
// full disk, a GPT whose loss ends NaN, extreme sampling temperatures,
// settings that cannot apply, repeated flags, a GPT named by a config file,
// texts of one character or without a .txt suffix. Each run has an
// address-space, CPU-time and file-size cap, so a regression is a failed
// assertion, not an exhausted machine.

#include "cli_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using mantissa::test::CliLimits;
using mantissa::test::CliResult;
using mantissa::test::runCliLimited;

namespace {

fs::path tempDir() {
  const fs::path dir =
      fs::temp_directory_path() / ("mantissa_cli_hostile_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs mantissa-cli with an address-space cap (not under sanitizers), a
// CPU-time cap and, where a test asks, a file-size cap.
CliResult runCapped(const std::vector<std::string>& args, CliLimits limits = {}) {
  limits.timeoutMs = 300000;
  limits.cpuSeconds = 240;
  return runCliLimited(args, limits);
}

const std::vector<std::string> kTinyGpt{"train", "--model", "gpt:layers=1,heads=2,embd=16,ctx=16",
                                        "--batch", "4", "--eval-batches", "2", "--quiet"};

std::vector<std::string> tinyGpt(std::vector<std::string> more) {
  std::vector<std::string> args = kTinyGpt;
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

// The generated characters: the line after the summary line.
std::string sampleOf(const std::string& out) {
  const auto nl = out.find('\n');
  if (nl == std::string::npos || out.size() < nl + 2)
    return {};
  return out.substr(nl + 1, out.size() - nl - 2);
}

fs::path writeText(const std::string& name, const std::string& content) {
  const fs::path path = tempDir() / name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

std::string poem() {
  std::string text;
  for (int i = 0; i < 200; ++i)
    text += "the quick brown fox jumps over the lazy dog\n";
  return text;
}

} // namespace

// --- sizes that multiply past memory -------------------------------------

TEST(CliHostileMemory, EvaluationBatchesOfAGptPastMemoryAreRefusedWithTheFigure) {
  // 2 splits x 10000 batches x 2 x 4096 x 64 int32: 42 GB, under a 4 GB cap.
  const auto r = runCapped({"train", "--model", "gpt:layers=1,heads=1,embd=8,ctx=64", "--batch",
                            "4096", "--eval-batches", "10000", "--steps", "1", "--quiet"});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "needs 4")) << r.err;
  EXPECT_TRUE(contains(r.err, "(evaluation batches 41.9 GB)")) << r.err;
  EXPECT_TRUE(contains(r.err, "is available")) << r.err;
}

TEST(CliHostileMemory, GptActivationsPastMemoryAreRefused) {
  const auto r = runCapped({"train", "--model", "gpt:layers=4,heads=4,embd=512,ctx=1024", "--batch",
                            "256", "--steps", "1", "--quiet"});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "(activations ")) << r.err;
  EXPECT_TRUE(contains(r.err, "is available")) << r.err;
}

TEST(CliHostileMemory, CnnActivationsPastMemoryAreRefused) {
  const auto r = runCapped(
      {"train", "--model", "cnn:c1024k3-c1024k3", "--batch", "4096", "--steps", "1", "--quiet"});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  // The gradients of the activations (dpre, dIn) outweigh the activations.
  EXPECT_TRUE(contains(r.err, "(gradients ")) << r.err;
  EXPECT_TRUE(contains(r.err, "is available")) << r.err;
}

TEST(CliHostileMemory, ARunThatFitsTheCapRuns) {
  const auto r = runCapped(tinyGpt({"--steps", "2"}));
  EXPECT_EQ(r.exitCode, 0) << r.err;
  const auto mlp = runCapped({"train", "--data", "blobs", "--steps", "2", "--quiet"});
  EXPECT_EQ(mlp.exitCode, 0) << mlp.err;
}

// --- log files ------------------------------------------------------------

// In a folder anyone can write to (not sticky), a symlink another user
// planted at the log's path is refused; the file it points to is untouched.
TEST(CliHostileLog, AnotherUsersSymlinkIsNotFollowed) {
  const fs::path dir = tempDir() / "shared";
  fs::create_directories(dir);
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  const fs::path victim = tempDir() / "victim.txt";
  std::ofstream(victim) << "precious\n";
  const fs::path link = dir / "run.jsonl";
  fs::remove(link);
  fs::create_symlink(victim, link);
  if (::lchown(link.c_str(), 65534, 65534) != 0)
    GTEST_SKIP() << "giving the link to another user needs root";
  const auto r = runCapped(tinyGpt({"--steps", "2", "--log", link.string()}));
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "symlink owned by another user")) << r.err;
  EXPECT_EQ(readText(victim), "precious\n");
  const auto mlp = runCapped({"train", "--data", "blobs", "--steps", "2", "--quiet", "--log",
                              link.string()});
  EXPECT_EQ(mlp.exitCode, 2) << mlp.err;
  EXPECT_EQ(readText(victim), "precious\n");
}

// A disk too full for the new log's first row leaves the earlier log whole,
// and no temporary file behind.
TEST(CliHostileLog, TheEarlierLogSurvivesADiskTooFullForTheFirstRow) {
  const fs::path dir = tempDir() / "full";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path log = dir / "run.jsonl";
  const std::string earlier = "{\"an\": \"earlier run\"}\n";
  std::ofstream(log) << earlier;
  CliLimits caps;
  caps.fileSizeBytes = 1024; // the header row is longer
  const auto r = runCapped(tinyGpt({"--steps", "2", "--log", log.string()}), caps);
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "--log: cannot write")) << r.err;
  EXPECT_EQ(readText(log), earlier);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir))
    ++files;
  EXPECT_EQ(files, 1u);

  const auto mlp = runCapped({"train", "--data", "blobs", "--steps", "2", "--quiet", "--log",
                              log.string()},
                             caps);
  EXPECT_EQ(mlp.exitCode, 1) << mlp.err;
  EXPECT_EQ(readText(log), earlier);
}

TEST(CliHostileLog, ANewLogReplacesTheEarlierOneOnceWritten) {
  const fs::path dir = tempDir() / "replace";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path log = dir / "run.jsonl";
  std::ofstream(log) << "old\n";
  ASSERT_EQ(::chmod(log.c_str(), 0640), 0);
  const auto r = runCapped(tinyGpt({"--steps", "2", "--log", log.string()}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::string text = readText(log);
  const auto header = nlohmann::json::parse(text.substr(0, text.find('\n')));
  EXPECT_TRUE(header.value("header", false)) << text.substr(0, 80);
  EXPECT_EQ(fs::status(log).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir))
    ++files;
  EXPECT_EQ(files, 1u);
}

// --- divergence -----------------------------------------------------------

// A GPT whose evaluation loss ends non-finite diverged, as an MLP's does:
// exit 3, "diverged" in the log's summary, the reason on stderr.
TEST(CliHostileDivergence, AGptWhoseLossEndsNaNDiverged) {
  // All-FP16 overflows in the forward pass: each step is skipped, and after
  // three (fewer than the ten that end a run as a forward overflow) the
  // evaluation's loss is NaN.
  const fs::path log = tempDir() / "nan.jsonl";
  const auto r = runCapped(tinyGpt({"--steps", "3", "--policy", "all-fp16,loss-scaling=on",
                                    "--log", log.string()}));
  const std::string text = readText(log);
  ASSERT_GT(text.size(), 2u);
  const auto lastLine = text.substr(text.rfind('\n', text.size() - 2) + 1);
  const auto summary = nlohmann::json::parse(lastLine);
  ASSERT_TRUE(summary.value("summary", false)) << lastLine;
  EXPECT_TRUE(summary["val_loss"].is_null()) << lastLine;
  EXPECT_EQ(r.exitCode, 3) << r.err;
  EXPECT_TRUE(summary.value("diverged", false)) << lastLine;
  EXPECT_TRUE(contains(r.err, "diverged: non-finite validation loss (NaN) at step 2 in policy "
                              "all-fp16,loss-scaling=on"))
      << r.err;
}

// --- sampling ---------------------------------------------------------------

TEST(CliHostileSampling, ATinyTemperatureIsGreedy) {
  // 1e-320 is subnormal: logits / t overflow. As t goes to 0 sampling becomes
  // the greedy pick, which 1e-30 already gives.
  const auto tiny = runCapped(tinyGpt({"--steps", "3", "--sample", "40", "--temperature", "1e-320"}));
  const auto small = runCapped(tinyGpt({"--steps", "3", "--sample", "40", "--temperature", "1e-30"}));
  ASSERT_EQ(tiny.exitCode, 0) << tiny.err;
  ASSERT_EQ(small.exitCode, 0) << small.err;
  EXPECT_EQ(sampleOf(tiny.out).size(), 40u);
  EXPECT_EQ(sampleOf(tiny.out), sampleOf(small.out));
}

TEST(CliHostileSampling, AHugeTemperatureSamplesTheWholeVocabulary) {
  const auto r = runCapped(tinyGpt({"--steps", "3", "--sample", "200", "--temperature", "100"}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::string sample = sampleOf(r.out);
  ASSERT_EQ(sample.size(), 200u);
  // Near-uniform over 65 characters: 200 draws show far more than 20.
  EXPECT_GT(std::set<char>(sample.begin(), sample.end()).size(), 20u) << sample;
}

// --- settings that cannot apply; bounded messages -------------------------

TEST(CliHostilePolicy, ASettingThatCannotApplyIsAnError) {
  auto r = runCapped(tinyGpt({"--steps", "2", "--policy", "fp32,batchnorm=fp16"}));
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "batchnorm cannot apply")) << r.err;
  r = runCapped(tinyGpt({"--steps", "2", "--policy", "fp32,fp8-history=1024"}));
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "fp8-history and fp8-amax tune delayed scaling: they need matmul-inputs=fp8-delayed")) << r.err;
  r = runCapped(tinyGpt({"--steps", "2", "--policy", ""}));
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "'--policy' has an empty value")) << r.err;
}

TEST(CliHostilePolicy, AHugeSpecGivesAShortMessage) {
  std::string huge(120000, 'x');
  huge.insert(0, "fp32,");
  huge.append("=fp16");
  std::vector<std::string> args = tinyGpt({"--steps", "2", "--policy"});
  args.push_back(huge);
  auto r = runCapped(args);
  EXPECT_EQ(r.exitCode, 2) << r.err.substr(0, 300);
  EXPECT_LT(r.err.size(), 2000u) << r.err.substr(0, 300);
  EXPECT_TRUE(contains(r.err, "bytes)")) << r.err.substr(0, 300);
  std::string model(120000, 'y');
  model.insert(0, "gpt:");
  r = runCapped({"train", "--model", model, "--steps", "2", "--quiet"});
  EXPECT_EQ(r.exitCode, 2) << r.err.substr(0, 300);
  EXPECT_LT(r.err.size(), 2000u) << r.err.substr(0, 300);
}

// --- repeated flags ---------------------------------------------------------

TEST(CliHostileArgs, ARepeatedFlagIsAnError) {
  auto r = runCapped(tinyGpt({"--steps", "2", "--steps", "3"}));
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "'--steps' given more than once")) << r.err;
  r = runCapped({"train", "--data", "blobs", "--steps", "2", "--steps=3", "--quiet"});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "'--steps' given more than once")) << r.err;
  r = runCapped({"inspect", "--format", "fp16", "--format", "bf16", "1.5"});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "'--format' given more than once")) << r.err;
}

// --- the route chosen after reading --config ------------------------------

TEST(CliHostileConfig, AConfigFileThatNamesAGptTrainsOne) {
  const fs::path config = tempDir() / "gpt.json";
  std::ofstream(config) << R"({"model": "gpt:layers=1,heads=2,embd=16,ctx=16", "data": "shakespeare",
                               "batch": 4, "steps": 2, "eval_batches": 2})";
  const auto r = runCapped({"train", "--config", config.string(), "--quiet"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "val_loss")) << r.out;
}

TEST(CliHostileConfig, MessagesAboutTheFilesDataNameItsField) {
  const fs::path config = tempDir() / "missing-data.json";
  std::ofstream(config) << R"({"model": "gpt:layers=1,heads=2,embd=16,ctx=16",
                               "data": "/nonexistent/corpus.txt", "batch": 4, "steps": 2})";
  const auto r = runCapped({"train", "--config", config.string(), "--quiet"});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--config " + config.string() + ": \"data\": ")) << r.err;
  EXPECT_FALSE(contains(r.err, "--data:")) << r.err;
}

// --- texts ------------------------------------------------------------------

TEST(CliHostileText, ATextOfOneDistinctCharacterIsNamedAndExplained) {
  const fs::path path = writeText("same.txt", std::string(2000, 'a'));
  const auto r = runCapped(tinyGpt({"--data", path.string(), "--steps", "2"}));
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_TRUE(contains(r.err, path.string())) << r.err;
  EXPECT_TRUE(contains(r.err, "at least two distinct characters")) << r.err;
}

TEST(CliHostileText, ATextIsKnownByItsContentNotItsSuffix) {
  for (const char* name : {"Corpus.TXT", "corpus"}) {
    const fs::path path = writeText(name, poem());
    const auto r = runCapped({"train", "--data", path.string(), "--model",
                              "gpt:layers=1,heads=2,embd=16,ctx=16", "--batch", "4",
                              "--eval-batches", "2", "--steps", "2", "--quiet"});
    EXPECT_EQ(r.exitCode, 0) << name << ": " << r.err;
    EXPECT_TRUE(contains(r.out, "val_loss")) << name << ": " << r.out;
    // Without --model too: the text alone chooses the GPT.
    const auto bare = runCapped({"train", "--data", path.string(), "--batch", "4",
                                 "--eval-batches", "2", "--steps", "2", "--quiet"});
    EXPECT_EQ(bare.exitCode, 0) << name << ": " << bare.err;
    EXPECT_TRUE(contains(bare.out, "val_loss")) << name << ": " << bare.out;
  }
}
