// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Run logs read back: every row kind, clear errors naming line and field, a
// killed run's cut-off last line, and saveRun() round trips atomically.
#include <mantissa/io/atomic_file.h>
#include <mantissa/telemetry/frame.h>
#include <mantissa/train/run_log.h>
#include <mantissa/train/run_precision.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using mantissa::train::loadRunLog;
using mantissa::train::RunLogError;
using nlohmann::json;

class RunLogTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() /
            ("mantissa-runlog-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }
  fs::path write(const std::string& name, const std::string& text) const {
    const fs::path p = m_dir / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  static std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  // The expected error text, or "" when no RunLogError was thrown.
  std::string errorOf(const std::string& text) const {
    try {
      loadRunLog(write("bad.jsonl", text));
    } catch (const RunLogError& e) {
      return e.what();
    }
    return {};
  }
  fs::path m_dir;
};

// Lines exactly as `mantissa-cli train --log` writes them (keys sorted, compact).
const char* const kHeader =
    R"({"bytes":{"weights":1000},"config":{"data":"spirals","model":"mlp:2-16-3:relu","recipe":"fp16-mixed","steps":3},"header":true,"recipe_table":[{"note":"","op":"matmul","precision":"fp16"}],"scaler":"PyTorch GradScaler"})";
const char* const kStep0 =
    R"({"events":[{"event":"overflow","scale_after":65536.0,"scale_before":65536.0},{"event":"backoff","scale_after":32768.0,"scale_before":65536.0}],"found_inf":true,"grad_norm":null,"growth_tracker":0,"hysteresis":1,"loss":null,"loss_scale":32768.0,"lr":0.05,"skipped":true,"step":0,"step_ms":1.5,"train_accuracy":0.25})";
const char* const kStep1 =
    R"({"found_inf":false,"grad_norm":1.25,"growth_tracker":1,"hysteresis":1,"loss":1.0986,"loss_scale":32768.0,"lr":0.05,"skipped":false,"step":1,"step_ms":1.25,"train_accuracy":0.5})";
const char* const kEval =
    R"({"eval":true,"samples":300,"step":2,"test_accuracy":0.625,"test_loss":0.875})";
const char* const kSummary =
    R"({"recipe":"fp16-mixed","steps":2,"summary":true,"test_accuracy":0.625})";

TEST_F(RunLogTest, ReadsEveryRowKind) {
  const std::string text = std::string(kHeader) + "\n" + kStep0 + "\n" + kStep1 + "\n" + kEval +
                           "\n" + kSummary + "\n";
  const auto log = loadRunLog(write("run.jsonl", text));
  ASSERT_TRUE(log.config.has_value());
  EXPECT_EQ(log.config->recipe, "fp16-mixed");
  EXPECT_EQ(log.config->data, "spirals");
  EXPECT_EQ(log.name(), "fp16-mixed");
  ASSERT_EQ(log.steps.size(), 2u);
  EXPECT_TRUE(std::isnan(log.steps[0].loss)); // logged as null (non-finite)
  EXPECT_TRUE(std::isnan(log.steps[0].gradNorm));
  EXPECT_TRUE(log.steps[0].skipped);
  EXPECT_TRUE(log.steps[0].foundInf);
  EXPECT_EQ(log.steps[0].lossScale, 32768.0);
  ASSERT_EQ(log.steps[0].events.size(), 2u);
  EXPECT_EQ(log.steps[0].events[1].kind, mantissa::amp::ScalerEventKind::Backoff);
  EXPECT_EQ(log.steps[0].events[1].scaleBefore, 65536.0);
  EXPECT_EQ(log.steps[0].events[1].scaleAfter, 32768.0);
  EXPECT_EQ(log.steps[0].events[1].step, 0);
  EXPECT_EQ(log.steps[1].loss, 1.0986);
  EXPECT_EQ(log.steps[1].trainAccuracy, 0.5);
  EXPECT_EQ(log.steps[1].growthTracker, 1);
  ASSERT_EQ(log.evals.size(), 1u);
  EXPECT_EQ(log.evals[0].step, 2);
  EXPECT_EQ(log.evals[0].testAccuracy, 0.625);
  EXPECT_EQ(log.evals[0].samples, 300);
  EXPECT_EQ(log.summary["test_accuracy"], 0.625);
  EXPECT_FALSE(log.truncated);
  // Written back, the text is the same, line for line.
  EXPECT_EQ(mantissa::train::runLogText(log), text);
}

TEST_F(RunLogTest, KilledRunKeepsEveryCompleteStep) {
  std::string text = std::string(kHeader) + "\n";
  for (int s = 0; s < 7; ++s)
    text += json{{"step", s}, {"loss", 2.0 - 0.1 * s}}.dump() + "\n";
  const std::string cut = json{{"step", 7}, {"loss", 1.3}, {"telemetry", {{"step", 7}}}}.dump();
  text += cut.substr(0, cut.size() / 2); // kill -9 in the middle of a write: no newline
  const auto log = loadRunLog(write("killed.jsonl", text));
  EXPECT_TRUE(log.truncated);
  ASSERT_EQ(log.steps.size(), 7u);
  EXPECT_EQ(log.steps.back().step, 6);
  EXPECT_DOUBLE_EQ(log.steps.back().loss, 2.0 - 0.6);
  EXPECT_TRUE(log.summary.is_null());
}

TEST_F(RunLogTest, ErrorsNameLineAndProblem) {
  const std::string h = std::string(kHeader) + "\n";
  std::string e = errorOf(h + kStep0 + "\n{\"step\": 1, \"loss\": \n" + kStep1 + "\n");
  EXPECT_NE(e.find("bad.jsonl:3: not valid JSON"), std::string::npos) << e;
  e = errorOf(h + R"({"step": 0, "loss": "low"})" + "\n");
  EXPECT_NE(e.find("bad.jsonl:2: step row: \"loss\" must be a number or null"), std::string::npos)
      << e;
  e = errorOf(h + R"({"step": 0})" + "\n");
  EXPECT_NE(e.find(":2: step row: \"loss\" is missing"), std::string::npos) << e;
  e = errorOf(h + R"({"step": 1, "loss": 1})" + "\n" + R"({"step": 1, "loss": 1})" + "\n");
  EXPECT_NE(e.find(":3: step 1 does not follow step 1"), std::string::npos) << e;
  e = errorOf(h + R"({"loss": 1})" + "\n");
  EXPECT_NE(e.find(":2: not a header, step, eval or summary row"), std::string::npos) << e;
  e = errorOf(h + R"({"step": 0, "loss": 1, "events": [{"event": "boom"}]})" + "\n");
  EXPECT_NE(e.find("unknown scaler event \"boom\""), std::string::npos) << e;
  e = errorOf(R"({"header": true, "config": {"lr": "fast"}})" "\n");
  EXPECT_NE(e.find(":1: header: config:"), std::string::npos) << e;
  e = errorOf(h + R"({"step": 0, "loss": 1, "telemetry": {"step": 0, "tensors": 5}})" + "\n");
  EXPECT_NE(e.find(":2: telemetry:"), std::string::npos) << e;
  e = errorOf("");
  EXPECT_NE(e.find("is empty"), std::string::npos) << e;
  e = errorOf("[1, 2]\n");
  EXPECT_NE(e.find(":1: expected a JSON object, got array"), std::string::npos) << e;
  try {
    loadRunLog(m_dir / "missing.jsonl");
    FAIL() << "no error for a missing file";
  } catch (const RunLogError& err) {
    EXPECT_NE(std::string(err.what()).find("cannot open run log"), std::string::npos);
    EXPECT_NE(std::string(err.what()).find("missing.jsonl"), std::string::npos);
  }
}

TEST_F(RunLogTest, TelemetryFramesComeBackWithTheirStep) {
  mantissa::telemetry::TelemetryFrame frame;
  frame.step = 1;
  mantissa::telemetry::TensorTelemetry t;
  t.layer = 1;
  t.cls = mantissa::telemetry::TensorClass::WeightGrads;
  t.hist.bins[mantissa::telemetry::ExponentHistogram::index(-20)] = 5;
  t.hist.bins[mantissa::telemetry::ExponentHistogram::index(-3)] = 7;
  t.hist.zeros = 2;
  t.hist.total = 14;
  frame.tensors.push_back(t);
  frame.swamped = {0.5};
  json step1 = json::parse(kStep1);
  step1["telemetry"] = mantissa::telemetry::toJson(frame);
  const std::string text = std::string(kHeader) + "\n" + kStep0 + "\n" + step1.dump() + "\n";
  const auto log = loadRunLog(write("t.jsonl", text));
  ASSERT_EQ(log.frames.size(), 1u);
  ASSERT_NE(log.frameAt(1), nullptr);
  EXPECT_EQ(log.frameAt(0), nullptr);
  const auto* back = log.frameAt(1)->find(1, mantissa::telemetry::TensorClass::WeightGrads);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->hist.count(-20), 5u);
  EXPECT_EQ(back->hist.count(-3), 7u);
  EXPECT_EQ(back->hist.zeros, 2u);
  EXPECT_FALSE(log.steps[1].raw.contains("telemetry")); // kept once, in frames
  EXPECT_EQ(mantissa::train::runLogText(log), text);
}

TEST_F(RunLogTest, SaveRunWritesLogAndConfigThatLoadBack) {
  const std::string text = std::string(kHeader) + "\n" + kStep0 + "\n" + kStep1 + "\n" + kEval +
                           "\n" + kSummary + "\n";
  const auto log = loadRunLog(write("run.jsonl", text));
  const fs::path saved = m_dir / "saved.jsonl";
  mantissa::train::saveRun(log, saved);
  EXPECT_EQ(read(saved), text);
  EXPECT_EQ(mantissa::train::configPath(saved), m_dir / "saved.config.json");
  const json config = json::parse(read(m_dir / "saved.config.json"));
  EXPECT_EQ(config["recipe"], "fp16-mixed");
  EXPECT_EQ(config["data"], "spirals");
  EXPECT_EQ(config["steps"], 3);
  const auto again = loadRunLog(saved);
  EXPECT_EQ(again.steps.size(), 2u);
  EXPECT_EQ(again.evals.size(), 1u);
}

TEST_F(RunLogTest, SaveRunFailureLeavesTheOldFileIntact) {
  const auto log = loadRunLog(write("run.jsonl", std::string(kHeader) + "\n" + kStep1 + "\n"));
  EXPECT_THROW(mantissa::train::saveRun(log, "/proc/mantissa-no/run.jsonl"),
               mantissa::io::AtomicFileError);
  // A directory where the config file should go: the log is written, the config fails.
  const fs::path target = m_dir / "keep.jsonl";
  fs::create_directories(m_dir / "keep.config.json" / "x");
  EXPECT_THROW(mantissa::train::saveRun(log, target), mantissa::io::AtomicFileError);
  for (const auto& entry : fs::directory_iterator(m_dir))
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos)
        << "temp file left behind: " << entry.path();
}

} // namespace

// A GPT's log as written before every header carried "config": its header
// held "gpt_config" with the fields a GPT run then set, and no optimizer,
// schedule or betas (AdamW, warm-up + cosine, 0.9 and 0.99 were fixed).
// It opens as any run's log, its configuration read as "config".
TEST_F(RunLogTest, AnOlderGptLogsConfigurationReadsAsConfig) {
  const fs::path p = write(
      "old-gpt.jsonl",
      R"({"header": true, "name": "fp16-mixed", "model": "gpt:layers=1,heads=2,embd=16,ctx=16", )"
      R"("gpt_config": {"data": "shakespeare", "model": "gpt:layers=1,heads=2,embd=16,ctx=16", )"
      R"("recipe": "fp16-mixed", "policy": "", "batch": 4, "steps": 20, "lr": 0.003, )"
      R"("lr_floor": 0.0001, "warmup_steps": 2, "weight_decay": 0.1, "clip_norm": 1.0, "seed": 7, )"
      R"("eval_every": 10, "eval_batches": 2, "telemetry_every": 0}, "policy": "fp32"})"
      "\n"
      R"({"step": 0, "loss": 4.2, "lr": 0.0015, "loss_scale": 65536})"
      "\n"
      R"({"eval": true, "step": 1, "test_loss": 4.1, "val_loss": 4.1, "train_loss": 4.0})"
      "\n");
  const auto log = loadRunLog(p);
  ASSERT_TRUE(log.config.has_value());
  const mantissa::train::RunConfig& c = *log.config;
  EXPECT_EQ(c.data, "shakespeare");
  EXPECT_EQ(c.model, "gpt:layers=1,heads=2,embd=16,ctx=16");
  EXPECT_EQ(c.recipe, "fp16-mixed");
  EXPECT_EQ(c.batch, 4);
  EXPECT_EQ(c.steps, 20);
  EXPECT_EQ(c.epochs, 0);
  EXPECT_EQ(c.lr, 0.003);
  EXPECT_EQ(c.lrFloor, 0.0001);
  EXPECT_EQ(c.warmupSteps, 2);
  EXPECT_EQ(c.weightDecay, 0.1);
  EXPECT_EQ(c.clipNorm, 1.0);
  EXPECT_EQ(c.seed, 7u);
  EXPECT_EQ(c.evalEvery, 10);
  EXPECT_EQ(c.evalBatches, 2);
  // What the older header left out, at the values every GPT run then had.
  EXPECT_EQ(c.optimizer, "adamw");
  EXPECT_EQ(c.schedule, "cosine");
  EXPECT_EQ(c.beta1, 0.9);
  EXPECT_EQ(c.beta2, 0.99);
  EXPECT_TRUE(c.problems().empty());
  EXPECT_TRUE(log.header.contains("config"));
  EXPECT_FALSE(log.header.contains("gpt_config"));
  EXPECT_EQ(log.name(), "fp16-mixed");
  EXPECT_EQ(mantissa::train::runScalerPreset(log), "pytorch"); // fp16-mixed's
  ASSERT_EQ(log.evals.size(), 1u);
  EXPECT_EQ(log.evals[0].testLoss, 4.1);

  // A "gpt_config" that is not an object is named, with its line.
  const fs::path bad = write("bad-gpt.jsonl", R"({"header": true, "gpt_config": 3})"
                                              "\n");
  try {
    loadRunLog(bad);
    FAIL() << "accepted";
  } catch (const RunLogError& e) {
    EXPECT_NE(std::string(e.what()).find("bad-gpt.jsonl:1: header: \"gpt_config\" must be an object, got 3"),
              std::string::npos)
        << e.what();
  }
}

// A GPT run given a policy is named by it, as the run names itself.
TEST_F(RunLogTest, AGptLogWithAPolicyIsNamedByThePolicy) {
  const fs::path p = write(
      "gpt-policy.jsonl",
      R"({"header": true, "config": {"data": "shakespeare", "model": "gpt:layers=1,heads=2,embd=16,ctx=16", )"
      R"("recipe": "fp32", "policy": "autocast-cpu-bf16,softmax=fp16", "optimizer": "adamw", "steps": 5}})"
      "\n");
  EXPECT_EQ(loadRunLog(p).name(), "autocast-cpu-bf16,softmax=fp16");
}
