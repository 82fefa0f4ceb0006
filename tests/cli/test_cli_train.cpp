// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli train: the log's contract, bad options, divergence, and a run
// killed with SIGKILL keeping every step it wrote.
#include "cli_runner.h"
#include "../build_tree.h"

#include <mantissa/kernels/matmul_path.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using mantissa::test::runCli;
namespace fs = std::filesystem;

extern char** environ;

namespace {

fs::path tempPath(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("mantissa_cli_train_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

std::vector<nlohmann::json> readLog(const fs::path& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> lines;
  std::string line;
  while (std::getline(in, line))
    lines.push_back(nlohmann::json::parse(line)); // throws if a line is not one JSON object
  return lines;
}

void expectUsageError(const std::vector<std::string>& args, const std::string& needle) {
  auto r = runCli(args);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "stderr: " << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

} // namespace

TEST(CliTrain, LogHasOneObjectPerStepEvalsAndASummary) {
  const auto log = tempPath("run.jsonl");
  auto r = runCli({"train", "--model", "mlp:784-32-10", "--recipe", "fp16-mixed", "--steps", "6",
                   "--batch", "64", "--eval-every", "4", "--telemetry-every", "3", "--log",
                   log.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("test accuracy"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("step 6/6"), std::string::npos) << r.err;
  const auto lines = readLog(log);
  ASSERT_GE(lines.size(), 1u + 6 + 2 + 1);
  EXPECT_TRUE(lines.front().value("header", false));
  EXPECT_EQ(lines.front()["config"]["recipe"], "fp16-mixed");
  // The log's machine line carries the one BF16 label --version and the GUI show.
  EXPECT_NE(lines.front()["machine"]["isa"].get<std::string>().find(
                mantissa::kernels::bf16Support().label),
            std::string::npos)
      << lines.front()["machine"].dump();
  std::vector<std::int64_t> steps, evals, telemetry;
  for (const auto& j : lines) {
    if (j.contains("eval")) {
      evals.push_back(j["step"].get<std::int64_t>());
      EXPECT_TRUE(j.contains("test_accuracy"));
    } else if (j.contains("step") && !j.contains("header")) {
      steps.push_back(j["step"].get<std::int64_t>());
      for (const char* key : {"loss", "lr", "loss_scale", "found_inf", "skipped", "step_ms",
                              "grad_norm", "breakdown_ms"})
        EXPECT_TRUE(j.contains(key)) << key << " missing in " << j.dump();
      EXPECT_EQ(j["loss_scale"], 65536.0);
      if (j.contains("telemetry")) {
        telemetry.push_back(j["step"].get<std::int64_t>());
        EXPECT_TRUE(j["telemetry"].contains("tensors"));
        EXPECT_EQ(j["grad_underflow"].size(), 2u);
      }
    }
  }
  EXPECT_EQ(steps, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(evals, (std::vector<std::int64_t>{4, 6}));
  EXPECT_EQ(telemetry, (std::vector<std::int64_t>{0, 3}));
  const auto& s = lines.back();
  EXPECT_TRUE(s.value("summary", false));
  EXPECT_EQ(s["steps"], 6);
  EXPECT_EQ(s["recipe"], "fp16-mixed");
  for (const char* key : {"test_accuracy", "test_loss", "wall_s"})
    EXPECT_TRUE(s.contains(key)) << key;
}

TEST(CliTrain, ConfigFileIsReadAndFlagsOverrideIt) {
  const auto config = tempPath("config.json");
  std::ofstream(config) << R"({"model": "mlp:784-16-10", "recipe": "bf16-mixed", "steps": 3, "batch": 32})";
  const auto log = tempPath("config.jsonl");
  auto r = runCli({"train", "--config", config.string(), "--steps", "2", "--log", log.string(),
                   "--quiet"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto lines = readLog(log);
  EXPECT_EQ(lines.front()["config"]["recipe"], "bf16-mixed");
  EXPECT_EQ(lines.front()["config"]["model"], "mlp:784-16-10");
  EXPECT_EQ(lines.back()["steps"], 2);
  EXPECT_TRUE(r.err.empty()) << "--quiet: " << r.err;
}

TEST(CliTrain, BadOptionsFailWithAClearMessage) {
  expectUsageError({"train", "--recipe", "fp8"}, "unknown recipe 'fp8'");
  expectUsageError({"train", "--lr", "fast"}, "--lr");
  expectUsageError({"train", "--lr", "-1"}, "lr: must be a positive");
  expectUsageError({"train", "--steps", "5", "--epochs", "1"}, "not both");
  expectUsageError({"train", "--steps", "0"}, "--steps");
  expectUsageError({"train", "--model", "mlp:784-10:swish"}, "unknown activation 'swish'");
  expectUsageError({"train", "--model", "mlp:100-10", "--steps", "1"}, "does not match");
  expectUsageError({"train", "--recipe", "bf16-mixed", "--scaler", "pytorch"}, "loss scaling");
  expectUsageError({"train", "--recipe", "fp16-mixed", "--scaler", "bogus"}, "bogus");
  expectUsageError({"train", "--data", "/nonexistent/images-idx3-ubyte.gz", "--steps", "1"},
                   "/nonexistent");
  expectUsageError({"train", "--optimizer", "lion"}, "lion");
  expectUsageError({"train", "--config", "/nonexistent.json"}, "cannot open");
  const auto bad = tempPath("bad.json");
  std::ofstream(bad) << R"({"learning_rate": 1})";
  expectUsageError({"train", "--config", bad.string()}, "learning_rate");
  expectUsageError({"train", "--steps", "1", "--log", "/nonexistent-dir/x.jsonl"}, "--log");
  expectUsageError({"train", "--preset", "nope"}, "nope");
}

TEST(CliTrain, DivergenceIsReportedAndExitsWith3) {
  const auto log = tempPath("diverge.jsonl");
  auto r = runCli({"train", "--model", "mlp:784-32-10", "--recipe", "fp16-mixed-noscale", "--lr",
                   "1e6", "--steps", "50", "--batch", "32", "--log", log.string(), "--quiet"});
  EXPECT_EQ(r.exitCode, 3) << r.err;
  EXPECT_NE(r.err.find("diverged"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("layer 0"), std::string::npos) << r.err;
  const auto lines = readLog(log);
  const auto& s = lines.back();
  EXPECT_TRUE(s["diverged"].get<bool>());
  EXPECT_EQ(s["divergence"]["pass"], "forward");
  EXPECT_LT(s["steps"].get<int>(), 50);
}

TEST(CliTrain, KilledRunKeepsEveryStepItWrote) {
  const auto log = tempPath("killed.jsonl");
  fs::remove(log);
  std::vector<std::string> args{mantissa::test::cliBinary(), "train", "--model", "mlp:784-64-10", "--steps",
                                "100000", "--batch", "32", "--log", log.string(), "--quiet"};
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, mantissa::test::cliBinary(), nullptr, nullptr, argv.data(), environ), 0);
  // Wait for a few steps to be logged.
  bool enough = false;
  for (int i = 0; i < 6000 && !enough; ++i) { // up to 60 s on a loaded machine (ASan)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::ifstream in(log);
    enough = std::count(std::istreambuf_iterator<char>(in), {}, '\n') >= 6;
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(enough) << "no steps logged within 60 s";
  EXPECT_TRUE(WIFSIGNALED(status));
  const auto lines = readLog(log); // every line complete JSON
  ASSERT_GE(lines.size(), 6u);
  std::int64_t expected = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].contains("eval"))
      continue;
    EXPECT_EQ(lines[i]["step"].get<std::int64_t>(), expected++);
  }
  EXPECT_FALSE(lines.back().contains("summary"));
}

// One step at lr 1e300 leaves the weights non-finite: no step saw a non-finite
// value, but the test loss is NaN. That run diverged and exits as one.
TEST(CliTrain, RunEndingWithNonFiniteTestLossExitsWith3) {
  const auto log = tempPath("nan-end.jsonl");
  auto r = runCli({"train", "--model", "mlp:784-32-10", "--lr", "1e300", "--steps", "1",
                   "--batch", "32", "--log", log.string(), "--quiet"});
  EXPECT_EQ(r.exitCode, 3) << r.err;
  EXPECT_NE(r.err.find("diverged: non-finite test loss at step 0:"), std::string::npos) << r.err;
  const auto s = readLog(log).back();
  EXPECT_TRUE(s["diverged"].get<bool>());
  EXPECT_TRUE(s["test_loss"].is_null());
  EXPECT_EQ(s["divergence"]["reason"], "non-finite test loss");
}

// --log naming an input would destroy it: refused before anything is read or
// written, and the input is byte for byte what it was.
TEST(CliTrain, OutputsThatAreInputsAreRefused) {
  const auto config = tempPath("in.config.json");
  const std::string configText = R"({"model": "mlp:2-8-2", "data": "spirals", "steps": 2})";
  std::ofstream(config) << configText;
  expectUsageError({"train", "--config", config.string(), "--log", config.string()},
                   "is the input");
  const auto csv = tempPath("in.csv");
  std::ofstream(csv) << "a,b,label\n0.1,0.2,0\n0.3,0.1,1\n0.2,0.2,0\n0.9,0.1,1\n0.5,0.5,0\n";
  expectUsageError({"train", "--data", csv.string(), "--model", "mlp:2-8-2", "--steps", "1",
                    "--log", csv.string()},
                   "is the input");
  // Through a symlink to the input, too.
  const auto link = tempPath("link.jsonl");
  fs::remove(link);
  fs::create_symlink(csv, link);
  expectUsageError({"train", "--data", csv.string(), "--model", "mlp:2-8-2", "--steps", "1",
                    "--log", link.string()},
                   "is the input");
  const auto slurp = [](const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  };
  EXPECT_EQ(slurp(config), configText);
  EXPECT_EQ(slurp(csv).substr(0, 9), "a,b,label");
}

// A run refused before it starts leaves an existing log as it was.
TEST(CliTrain, RefusedRunLeavesTheOldLog) {
  const auto log = tempPath("old.jsonl");
  std::ofstream(log) << "{\"step\": 0, \"loss\": 1}\n";
  expectUsageError({"train", "--data", "/nonexistent/x.csv", "--steps", "1", "--log", log.string()},
                   "/nonexistent");
  EXPECT_EQ(fs::file_size(log), std::string("{\"step\": 0, \"loss\": 1}\n").size());
  // A log that did not exist is not left behind empty.
  const auto fresh = tempPath("fresh.jsonl");
  fs::remove(fresh);
  expectUsageError({"train", "--data", "/nonexistent/x.csv", "--steps", "1", "--log", fresh.string()},
                   "/nonexistent");
  EXPECT_FALSE(fs::exists(fresh));
}

// An export folder that cannot be written is found before training, not after.
TEST(CliTrain, UnwritableExportFolderIsRefusedBeforeTraining) {
  const auto file = tempPath("plain-file");
  std::ofstream(file) << "x";
  auto r = runCli({"train", "--model", "mlp:784-32-10", "--steps", "1", "--export",
                   (file / "charts").string()});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("--export: cannot write to"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("training "), std::string::npos) << "trained first: " << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// A CNN on the Fashion-MNIST set by its file name: the progress line and the
// log name the convolution kernel, the log's op table lists the convolutions
// and BatchNorm statistics at the precisions asked, and each step's breakdown
// has convolution time apart from matmul time.
TEST(CliTrain, CnnRunNamesItsConvolutionsInTheLogAndTheOpTable) {
  const auto log = tempPath("cnn.jsonl");
  auto r = runCli({"train", "--model", "cnn:c4k3b-p2-f8", "--data", "fashion-12k", "--recipe",
                   "bf16-mixed", "--batchnorm", "bf16", "--steps", "3", "--batch", "16", "--log",
                   log.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("; convolution "), std::string::npos) << r.err;
  const auto lines = readLog(log);
  const auto& h = lines.front();
  ASSERT_TRUE(h.contains("conv")) << h.dump();
  EXPECT_FALSE(h["conv"].get<std::string>().empty());
  EXPECT_EQ(h["config"]["batchnorm"], "bf16");
  EXPECT_EQ(h["layers"].size(), 3u);
  std::map<std::string, std::string> ops;
  for (const auto& row : h["recipe_table"])
    ops[row["op"].get<std::string>()] = row["precision"].get<std::string>();
  EXPECT_EQ(ops["convolution inputs"], "bf16");
  EXPECT_EQ(ops["BatchNorm statistics"], "bf16");
  const auto& step = lines[1];
  ASSERT_TRUE(step.contains("breakdown_ms"));
  EXPECT_GT(step["breakdown_ms"]["conv_fwd"].get<double>(), 0.0);
  EXPECT_GT(step["breakdown_ms"]["conv_bwd"].get<double>(), 0.0);
}

TEST(CliTrain, CnnSpecsThatDoNotFitAreRefused) {
  expectUsageError({"train", "--model", "cnn:lenet", "--data", "spirals", "--steps", "1"},
                   "model \"cnn:lenet\": needs image data");
  expectUsageError({"train", "--model", "cnn:c8k3-p2-c8k3-p2-c8k3-p2", "--steps", "1"},
                   "layer 2: 2x2 pooling needs an even image size");
  expectUsageError({"train", "--model", "cnn:c8k7", "--steps", "1"}, "only 3 and 5");
  expectUsageError({"train", "--model", "cnn:lenet-bn", "--batchnorm", "fp8", "--steps", "1"},
                   "batchnorm");
}

TEST(CliTrain, ShadowRecordsEveryTensorsErrorAtTelemetryStepsAndNamesTheFirstOver) {
  const auto log = tempPath("shadow.jsonl");
  auto r = runCli({"train", "--model", "mlp:784-32-10", "--recipe", "bf16-mixed", "--steps", "4",
                   "--batch", "32", "--telemetry-every", "2", "--shadow", "fp32",
                   "--shadow-threshold", "1e-6", "--log", log.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // bf16-mixed loses more than 1e-6 in the first product: it is named.
  EXPECT_NE(r.err.find("shadow fp32 at step 0: first tensor over 0.0001% error: layer0 output"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("shadow fp32 at step 2:"), std::string::npos) << r.err;
  int frames = 0;
  for (const auto& row : readLog(log)) {
    if (!row.contains("step") || row.contains("eval") || row.contains("summary"))
      continue;
    const std::int64_t step = row["step"];
    ASSERT_EQ(row.contains("shadow"), step % 2 == 0) << row.dump();
    if (!row.contains("shadow"))
      continue;
    ++frames;
    const auto& s = row["shadow"];
    EXPECT_EQ(s["step"], step);
    EXPECT_EQ(s["reference"], "fp32");
    // Forward and backward of both layers: outputs, the hidden activation,
    // output gradients and both parameters' gradients per layer.
    EXPECT_EQ(s["tensors"].size(), 9u) << s.dump();
    EXPECT_EQ(s["first_over"], 0);
  }
  EXPECT_EQ(frames, 2);
}

TEST(CliTrain, ShadowOptionsAreCheckedWithTheirNames) {
  expectUsageError({"train", "--steps", "1", "--telemetry-every", "1", "--shadow", "fp16"},
                   "--shadow: must be fp32 or fp64");
  auto r = runCli({"train", "--steps", "1", "--shadow", "fp32"});
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("shadow: the shadow pass runs at telemetry steps"), std::string::npos)
      << r.err;
  r = runCli({"train", "--steps", "1", "--telemetry-every", "1", "--shadow", "fp32",
              "--grad-accumulation", "2"});
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("grad_accumulation 1"), std::string::npos) << r.err;
  r = runCli({"train", "--steps", "1", "--telemetry-every", "1", "--shadow", "fp32",
              "--shadow-threshold", "-1"});
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("shadow_threshold"), std::string::npos) << r.err;
}
