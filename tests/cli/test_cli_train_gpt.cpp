// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli train with a GPT: a short run's log and summary (val_loss,
// train_loss, sample), --sample printing exactly N characters of the
// vocabulary, a user's text file, and bad models, policies and texts each
// refused with a message naming the problem. The GPT trains through the same
// train path as every model: --config (a GPT's own log re-runs it step for
// step), --scaler, --lr-floor and --matmul apply to it; options that cannot
// apply (--grad-accumulation to a GPT, --sample and --eval-batches to an
// image model) are refused naming the option and the model.
#include "cli_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

using mantissa::test::runCli;
namespace fs = std::filesystem;

namespace {

fs::path tempPath(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("mantissa_cli_gpt_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

const std::vector<std::string> kTiny{"train", "--model", "gpt:layers=1,heads=2,embd=16,ctx=16",
                                     "--batch", "4", "--eval-batches", "2", "--quiet"};

std::vector<std::string> tiny(std::vector<std::string> more) {
  std::vector<std::string> args = kTiny;
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

void expectUsageError(const std::vector<std::string>& args, const std::string& needle) {
  const auto r = runCli(args);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "stderr: " << r.err;
}

} // namespace

TEST(CliTrainGpt, ShortRunLogsStepsEvalsAndASummaryWithSample) {
  const fs::path log = tempPath("run.jsonl");
  const auto r = runCli(tiny({"--steps", "20", "--eval-every", "10", "--sample", "40", "--log",
                              log.string(), "--policy", "autocast-cpu-bf16,softmax=fp16"}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::ifstream in(log);
  std::vector<nlohmann::json> rows;
  for (std::string line; std::getline(in, line);)
    rows.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(rows.size(), 1u + 20u + 2u + 1u); // header, steps, evals at 10 and 20, summary
  EXPECT_EQ(rows.front()["policy"], "autocast-cpu-bf16,softmax=fp16");
  EXPECT_EQ(rows.front()["vocabulary"], 65);
  EXPECT_EQ(rows.front()["policy_table"][4]["precision"], "fp16");
  std::vector<nlohmann::json> steps, evals;
  for (std::size_t i = 1; i + 1 < rows.size(); ++i)
    (rows[i].contains("eval") ? evals : steps).push_back(rows[i]);
  ASSERT_EQ(steps.size(), 20u);
  for (int s = 0; s < 20; ++s)
    EXPECT_EQ(steps[std::size_t(s)]["step"], s);
  ASSERT_EQ(evals.size(), 2u);
  EXPECT_EQ(evals[0]["step"], 10);
  EXPECT_EQ(evals[1]["step"], 20);
  const auto& summary = rows.back();
  ASSERT_TRUE(summary["summary"].get<bool>());
  const double val = summary["val_loss"], train = summary["train_loss"];
  // It learned something: a model that learned nothing predicts every one of
  // the 65 characters alike, a loss of ln 65 = 4.174 (the first steps' loss).
  // Twenty steps of this tiny model take the validation loss about 0.15
  // below that, and the second evaluation is below the first.
  EXPECT_GT(val, 0.5);
  EXPECT_LT(val, std::log(65.0) - 0.1);
  EXPECT_LT(evals[1]["val_loss"].get<double>(), evals[0]["val_loss"].get<double>());
  EXPECT_LT(val, steps.front()["loss"].get<double>() - 0.1);
  EXPECT_GT(train, 0.5);
  EXPECT_EQ(summary["val_loss"], rows[rows.size() - 2]["val_loss"]);
  const std::string sample = summary["sample"];
  EXPECT_EQ(sample.size(), 40u); // Tiny Shakespeare is ASCII: one byte per character
  EXPECT_NE(r.out.find("val_loss"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(sample), std::string::npos) << r.out;
}

TEST(CliTrainGpt, SamplePrintsExactlyNCharactersOfTheText) {
  const auto r = runCli(tiny({"--steps", "3", "--sample", "200", "--temperature", "0.8"}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto nl = r.out.find('\n');
  ASSERT_NE(nl, std::string::npos);
  const std::string sample = r.out.substr(nl + 1, r.out.size() - nl - 2); // minus the final newline
  EXPECT_EQ(sample.size(), 200u);
  std::ifstream text(std::string(MANTISSA_SOURCE_DIR) + "/resources/data/tinyshakespeare.txt");
  std::ostringstream buffer;
  buffer << text.rdbuf();
  const std::string all = buffer.str();
  const std::set<char> vocabulary(all.begin(), all.end());
  for (char c : sample)
    EXPECT_TRUE(vocabulary.count(c)) << int(c);
}

TEST(CliTrainGpt, TrainsOnAUsersTextFile) {
  const fs::path path = tempPath("poem.txt");
  {
    std::ofstream out(path);
    for (int i = 0; i < 200; ++i)
      out << "the quick brown fox jumps over the lazy dog\n";
  }
  const auto r = runCli(tiny({"--data", path.string(), "--steps", "5", "--sample", "10"}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("val_loss"), std::string::npos);
}

// --log naming the text it trains on is refused before any work, and the
// text is left as it was; an existing log is kept until the run starts.
TEST(CliTrainGpt, ALogThatIsTheInputIsRefusedAndTheInputKept) {
  const fs::path path = tempPath("input.txt");
  {
    std::ofstream out(path);
    for (int i = 0; i < 200; ++i)
      out << "the quick brown fox jumps over the lazy dog\n";
  }
  const auto before = fs::file_size(path);
  expectUsageError(tiny({"--data", path.string(), "--steps", "2", "--log", path.string()}),
                   "is the input");
  EXPECT_EQ(fs::file_size(path), before);

  const fs::path log = tempPath("kept.jsonl");
  std::ofstream(log) << "an earlier run\n";
  // The log is opened, then the data is refused: the log stays as it was.
  expectUsageError(tiny({"--data", (path.parent_path() / "missing.txt").string(), "--steps", "2",
                         "--log", log.string()}),
                   "missing.txt");
  std::ifstream in(log);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "an earlier run"); // a refused run does not empty the log
}

TEST(CliTrainGpt, BadInputGetsAClearMessage) {
  expectUsageError(tiny({"--policy", "autocast-cpu-bf16,softmx=fp16"}),
                   "unknown op class \"softmx\"; did you mean \"softmax\"?");
  expectUsageError({"train", "--model", "gpt:layers=2,heads=3,embd=128"},
                   "embd 128 is not divisible by heads 3");
  expectUsageError(tiny({"--temperature", "0"}), "--temperature: must be in (0, 100]");
  const fs::path empty = tempPath("empty.txt");
  std::ofstream(empty).flush();
  expectUsageError(tiny({"--data", empty.string()}), empty.string() + ": empty");
  const fs::path binary = tempPath("binary.txt");
  {
    std::ofstream out(binary, std::ios::binary);
    out << std::string(500, 'a') << '\0' << std::string(500, 'b');
  }
  expectUsageError(tiny({"--data", binary.string()}), binary.string() + ": binary, not text");
  const fs::path shortText = tempPath("short.txt");
  std::ofstream(shortText) << "too short";
  expectUsageError(tiny({"--data", shortText.string()}), shortText.string() + ": too short");
  const fs::path latin1 = tempPath("latin1.txt");
  std::ofstream(latin1, std::ios::binary) << std::string(300, 'x') << "caf\xE9 " << std::string(300, 'y');
  expectUsageError(tiny({"--data", latin1.string()}), latin1.string() + ": invalid UTF-8 at byte 303");
  expectUsageError(tiny({"--data", tempPath("missing.txt").string()}), "missing.txt");
  expectUsageError({"train", "--model", "mlp:784-10", "--data", "shakespeare"},
                   "model: 'mlp:784-10' is an MLP; text data (shakespeare) trains a GPT");
}

TEST(CliTrainGpt, TelemetryEveryKWritesFramesThatReportAndPlotRead) {
  const fs::path log = tempPath("telemetry.jsonl");
  const auto r = runCli(tiny({"--steps", "6", "--telemetry-every", "3", "--log", log.string()}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::ifstream in(log);
  std::vector<nlohmann::json> rows;
  for (std::string line; std::getline(in, line);)
    rows.push_back(nlohmann::json::parse(line));
  ASSERT_FALSE(rows.empty());
  const auto& layers = rows.front()["layers"];
  ASSERT_TRUE(layers.is_array());
  std::vector<std::int64_t> frameSteps;
  for (const auto& row : rows)
    if (row.contains("telemetry"))
      frameSteps.push_back(row["step"].get<std::int64_t>());
  EXPECT_EQ(frameSteps, (std::vector<std::int64_t>{0, 3}));
  EXPECT_NE(std::find(layers.begin(), layers.end(), "h0.attention probs"), layers.end());
  EXPECT_NE(std::find(layers.begin(), layers.end(), "h0.ln2 input"), layers.end());
  // The same log renders through report, as an MLP run's does.
  const fs::path html = tempPath("telemetry.html");
  const auto rep = runCli({"report", log.string(), "--out", html.string()});
  EXPECT_EQ(rep.exitCode, 0) << rep.err;
  EXPECT_GT(fs::file_size(html), 1000u);
  expectUsageError(tiny({"--telemetry-every", "-1"}), "telemetry-every");
}

TEST(CliTrainGpt, ItsOwnLogAsConfigTrainsTheSameLossesStepForStep) {
  const fs::path first = tempPath("first.jsonl"), again = tempPath("again.jsonl");
  auto r = runCli(tiny({"--steps", "6", "--recipe", "bf16-mixed", "--lr-floor", "0.0005", "--log",
                        first.string()}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  r = runCli({"train", "--config", first.string(), "--quiet", "--log", again.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto losses = [](const fs::path& log) {
    std::ifstream in(log);
    std::vector<double> out;
    nlohmann::json header;
    for (std::string line; std::getline(in, line);) {
      const auto row = nlohmann::json::parse(line);
      if (row.contains("header"))
        header = row;
      else if (row.contains("step") && !row.contains("eval"))
        out.push_back(row["loss"].get<double>());
    }
    EXPECT_EQ(header["config"]["recipe"], "bf16-mixed");
    EXPECT_EQ(header["config"]["lr_floor"], 0.0005);
    EXPECT_EQ(header["config"]["optimizer"], "adamw");
    return out;
  };
  const auto a = losses(first), b = losses(again);
  ASSERT_EQ(a.size(), 6u);
  EXPECT_EQ(a, b);
}

TEST(CliTrainGpt, AScalerOfAnFp16RecipeScalesTheGptsLoss) {
  const fs::path log = tempPath("static.jsonl");
  const auto r = runCli(tiny({"--steps", "2", "--recipe", "fp16-mixed", "--scaler", "static:1024",
                              "--log", log.string()}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::ifstream in(log);
  std::vector<double> scales;
  for (std::string line; std::getline(in, line);) {
    const auto row = nlohmann::json::parse(line);
    if (row.contains("loss_scale"))
      scales.push_back(row["loss_scale"].get<double>());
  }
  EXPECT_EQ(scales, (std::vector<double>{1024.0, 1024.0}));
}

TEST(CliTrainGpt, OptionsThatCannotApplyNameTheOptionAndTheModel) {
  expectUsageError(tiny({"--steps", "2", "--grad-accumulation", "2"}),
                   "grad_accumulation: model 'gpt:layers=1,heads=2,embd=16,ctx=16' is a GPT, which "
                   "trains on one batch per step (1), got 2");
  expectUsageError({"train", "--model", "mlp:784-10", "--steps", "2", "--sample", "10"},
                   "--sample: model 'mlp:784-10' is an MLP; sampling text needs a GPT");
  expectUsageError({"train", "--model", "mlp:784-10", "--steps", "2", "--eval-batches", "3"},
                   "eval_batches: model 'mlp:784-10' is an MLP, evaluated on its whole test set; "
                   "fixed evaluation batches are a GPT's");
  expectUsageError({"train", "--model", "mlp:784-10", "--steps", "2", "--policy", "fp32"},
                   "policy: a precision policy applies to GPT models");
}

TEST(CliTrainGpt, ListPresetsNamesShakespeareCharOnce) {
  const auto r = runCli({"train", "--list-presets"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::string line =
      "shakespeare-char  Character-level GPT on Tiny Shakespeare (nanoGPT's CPU configuration)\n";
  const auto at = r.out.find(line);
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(line, at + 1), std::string::npos) << r.out;
}
