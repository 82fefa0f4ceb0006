// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// A GPT run's log is a run log like any other: written by a short run with the
// run_log_rows objects and read back by loadRunLog (what report, plot and the
// GUI read), with telemetry frames naming the attention probabilities and the
// LayerNorm inputs; the frames' histograms and cast fractions agree with an
// independent count of the very tensors (std::frexp, FP16's spec limits).
#include <mantissa/model/gpt_network.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/run_log.h>
#include <mantissa/train/run_log_rows.h>
#include <mantissa/train/trainer.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

using namespace mantissa;
namespace tl = mantissa::telemetry;

namespace {

// The shakespeare-char preset on a two-block model.
train::RunConfig tinyConfig() {
  train::RunConfig c = train::findPreset("shakespeare-char")->runs.front();
  c.model = "gpt:layers=2,heads=2,embd=32,ctx=16";
  c.batch = 4;
  c.steps = 5;
  c.warmupSteps = 1;
  c.evalBatches = 2;
  c.evalEvery = 2;
  c.telemetryEvery = 2;
  return c;
}

int layerOf(const train::Session& run, const std::string& name) {
  const auto& names = model::gptOf(run.model())->telemetryLayers();
  const auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : int(it - names.begin());
}

// Binade counts by std::frexp: x = m 2^e with 0.5 <= |m| < 1, so 2^(e-1) <= |x| < 2^e.
struct Reference {
  std::map<int, std::uint64_t> bins;
  std::uint64_t zeros = 0, nonFinite = 0, total = 0;
};
Reference countByFrexp(std::span<const float> values) {
  Reference r;
  for (const float v : values) {
    ++r.total;
    if (!std::isfinite(v)) {
      ++r.nonFinite;
    } else if (v == 0.0f) {
      ++r.zeros;
    } else {
      int e = 0;
      std::frexp(double(v), &e);
      ++r.bins[e - 1];
    }
  }
  return r;
}

void expectSameCounts(const tl::ExponentHistogram& h, std::span<const float> values,
                      const std::string& what) {
  const Reference ref = countByFrexp(values);
  EXPECT_EQ(h.total, ref.total) << what;
  EXPECT_EQ(h.zeros, ref.zeros) << what;
  EXPECT_EQ(h.posInf + h.negInf + h.nan, ref.nonFinite) << what;
  std::uint64_t sum = 0;
  for (int e = tl::ExponentHistogram::kMinExponent; e <= tl::ExponentHistogram::kMaxExponent; ++e) {
    const auto it = ref.bins.find(e);
    EXPECT_EQ(h.count(e), it == ref.bins.end() ? 0u : it->second) << what << " binade " << e;
    sum += h.count(e);
  }
  EXPECT_EQ(sum, ref.total - ref.zeros - ref.nonFinite) << what;
}

} // namespace

TEST(GptLog, AShortRunsLogLoadsAsARunLogWithNamedFrames) {
  train::Session run(tinyConfig());
  const auto path =
      std::filesystem::temp_directory_path() / ("gpt_log_" + std::to_string(::getpid()) + ".jsonl");
  {
    // As `mantissa-cli train --log --sample 30` writes it.
    std::ofstream out(path);
    out << train::runLogHeader(run).dump() << "\n";
    train::TrainerCallbacks cb;
    cb.onStep = [&](const train::StepReport& r) {
      out << train::runLogStep(run, r).dump() << "\n";
    };
    cb.onEval = [&](const train::EvalReport& e) {
      out << train::runLogEval(run, e).dump() << "\n";
    };
    const train::RunSummary summary = train::runToCompletion(run, cb);
    nlohmann::json row = train::runLogSummary(run, summary);
    row["sample"] = run.sample(30, 1.0, 7);
    out << row.dump() << "\n";
  }
  const train::RunLog log = train::loadRunLog(path);
  std::filesystem::remove(path);

  EXPECT_EQ(log.name(), "fp32");
  ASSERT_EQ(log.steps.size(), 5u);
  ASSERT_EQ(log.frames.size(), 3u); // steps 0, 2, 4
  EXPECT_EQ(log.frames[1].step, 2);
  ASSERT_EQ(log.evals.size(), 3u); // after 2 and 4 steps, and the final one after 5
  EXPECT_EQ(log.evals[2].step, 5);
  EXPECT_TRUE(std::isfinite(log.evals[2].trainLoss));
  // The val_loss after 5 steps (warm-up 1, lr 1e-3): still near-uniform
  // predictions, ln 65 = 4.17; a broken evaluation or a diverging step is far from it.
  EXPECT_NEAR(log.evals[2].testLoss, std::log(65.0), 0.25);
  EXPECT_EQ(log.summary["val_loss"].get<double>(), log.evals[2].testLoss);
  EXPECT_EQ(log.summary["train_loss"].get<double>(), log.evals[2].trainLoss);
  EXPECT_EQ(log.summary["sample"].get<std::string>().size(), 30u); // Tiny Shakespeare is ASCII
  EXPECT_FALSE(log.summary["diverged"].get<bool>());

  // Memory, as every run's header has it: the FP32 master weights and their
  // gradients take 4 bytes per parameter, AdamW's two FP32 moments 8.
  // Activations, from the fp32 model's shapes (N = B*T rows, G = B*H heads):
  // per block x, ln1, atty, attproj, r, ln2 and fcproj [N, C], qkv [N, 3C],
  // fch and gelu [N, 4C], two LayerNorms' mean and 1/std [N], attention's q, k,
  // v [N, C] in all, its probabilities [G*T, T]; once, attention's scores
  // [G*T, T] and output [N, C] in all (the blocks run one at a time and share
  // them; backward's dP and dO use them); then the embedding output, the
  // last block's output and the final LayerNorm [N, C] with its mean and
  // 1/std. Backward's scratch, shared by the blocks: dres, dln, datty [N, C],
  // dqkv [N, 3C], dfch and dgelu [N, 4C], dlogits [N, V]; attention's dq,
  // dk, dv [N, C] in all.
  const std::int64_t B = 4, T = 16, C = 32, H = 2, L = 2, V = 65, N = B * T, G = B * H;
  const std::int64_t acts = L * (21 * N * C + 4 * N + G * T * T) + G * T * T + 4 * N * C + 2 * N;
  const std::int64_t dacts = 14 * N * C + N * V + 3 * N * C;
  const auto params = log.header["parameters"].get<std::int64_t>();
  EXPECT_EQ(log.header["bytes"]["master weights"].get<std::int64_t>(), 4 * params);
  EXPECT_EQ(log.header["bytes"]["activations"].get<std::int64_t>(), 4 * acts);
  EXPECT_EQ(log.header["bytes"]["gradients"].get<std::int64_t>(), 4 * (params + dacts));
  EXPECT_EQ(log.header["bytes"]["logits"].get<std::int64_t>(), 4 * 2 * N * V); // logits, probs
  EXPECT_EQ(log.header["bytes_at_recipe_precision"]["master weights"].get<std::int64_t>(),
            4 * params);
  EXPECT_EQ(log.header["bytes_at_recipe_precision"]["optimizer state"].get<std::int64_t>(),
            8 * params);
  EXPECT_GE(log.header["bytes"]["optimizer state"].get<std::int64_t>(), 8 * params);

  // The header names every layer of the frames; each block's attention
  // probabilities and both LayerNorm inputs have activation histograms.
  const auto& layers = log.header["layers"];
  ASSERT_TRUE(layers.is_array());
  const tl::TelemetryFrame& frame = log.frames[0];
  for (int l = 0; l < 2; ++l)
    for (const char* what : {"attention probs", "ln1 input", "ln2 input"}) {
      const std::string name = "h" + std::to_string(l) + "." + what;
      const int layer = layerOf(run, name);
      ASSERT_GE(layer, 0) << name;
      EXPECT_EQ(layers[std::size_t(layer)], name);
      const tl::TensorTelemetry* t = frame.find(layer, tl::TensorClass::Activations);
      ASSERT_NE(t, nullptr) << name;
      EXPECT_GT(t->hist.total, 0u) << name;
    }
  // Each parameter: weights and gradients.
  const int qkv = layerOf(run, "h1.qkv.w");
  ASSERT_GE(qkv, 0);
  EXPECT_EQ(layers[std::size_t(qkv)], "h1.qkv.w");
  ASSERT_NE(frame.find(qkv, tl::TensorClass::Weights), nullptr);
  ASSERT_NE(frame.find(qkv, tl::TensorClass::WeightGrads), nullptr);
  EXPECT_EQ(frame.find(qkv, tl::TensorClass::Weights)->hist.total, 32u * 96u);

  // The op table names the kernel that ran; it has a row for every op class
  // but BatchNorm's (a CNN's: a GPT has none).
  const auto& table = log.header["recipe_table"];
  ASSERT_EQ(table.size(), amp::kOpClassCount - 1);
  EXPECT_EQ(table[0]["note"], run.model().matmulImplementation());
  EXPECT_EQ(log.header["vocabulary"], 65);
  EXPECT_EQ(log.header["policy"], "fp32");
  for (const auto& row : table)
    EXPECT_NE(row["op"], "BatchNorm statistics");
  // So does the policy table: each of the GPT's op classes, then loss scaling.
  const auto& policy = log.header["policy_table"];
  ASSERT_EQ(policy.size(), amp::kOpClassCount - 1 + 1);
  for (const auto& row : policy)
    EXPECT_NE(row["op"], "BatchNorm statistics");
  EXPECT_EQ(policy.back()["op"], "loss scaling");
}

TEST(GptLog, FrameCountsEqualAnIndependentCountOfTheTensors) {
  train::RunConfig c = tinyConfig();
  c.telemetryEvery = 1;
  c.clipNorm = 0.0; // the gradients stay as observed
  train::Session run(c);
  model::Gpt& gpt = model::gptOf(run.model())->gpt();
  run.step();
  // Weights as this step uses them: copied before it.
  const int wte = layerOf(run, "wte");
  ASSERT_GE(wte, 0);
  const std::vector<float> weights(gpt.param("wte").value.f32().begin(),
                                   gpt.param("wte").value.f32().end());
  const train::StepReport& step = run.step();
  ASSERT_NE(step.telemetry, nullptr);
  const tl::TelemetryFrame& frame = *step.telemetry;
  EXPECT_EQ(frame.step, 1);
  expectSameCounts(frame.find(wte, tl::TensorClass::Weights)->hist, weights, "wte weights");
  expectSameCounts(frame.find(wte, tl::TensorClass::WeightGrads)->hist, gpt.param("wte").grad.f32(),
                   "wte grads");

  // Activations of the step's forward (backward and the update leave them).
  for (const auto& a : gpt.observedActivations()) {
    const tl::TensorTelemetry* t = frame.find(layerOf(run, a.name), tl::TensorClass::Activations);
    ASSERT_NE(t, nullptr) << a.name;
    expectSameCounts(t->hist, a.values, a.name);
  }
  // The attention probabilities are layer 0's softmax: rows sum to 1, and
  // the causal mask's zeros are counted as zeros.
  const auto probs = gpt.attentionProbs(0).f32();
  const tl::TensorTelemetry* p =
      frame.find(layerOf(run, "h0.attention probs"), tl::TensorClass::Activations);
  ASSERT_NE(p, nullptr);
  const std::uint64_t T = 16, rows = probs.size() / T;
  EXPECT_GE(p->hist.zeros, rows * (T - 1) / 2); // the strictly upper triangle of each row block
  EXPECT_LE(p->hist.highestExponent().value_or(99), 0); // probabilities <= 1

  // FP16's cast rule from its spec: |x| <= 2^-25 (half the smallest
  // subnormal 2^-24, ties to even) becomes zero; 2^-25 < |x| < 2^-14 is subnormal.
  std::uint64_t toZero = 0, toSub = 0;
  for (const float v : probs) {
    const double a = std::fabs(double(v));
    toZero += a <= std::ldexp(1.0, -25);
    toSub += a > std::ldexp(1.0, -25) && a < std::ldexp(1.0, -14);
  }
  const tl::CastFractions& f16 = p->fractions[0];
  EXPECT_DOUBLE_EQ(f16.toZero, double(toZero) / double(probs.size()));
  EXPECT_NEAR(f16.toSubnormal, double(toSub) / double(probs.size()), 0.0);
}

TEST(GptLog, LossScaledGradientsHaveScaledAndUnscaledViews) {
  train::RunConfig c = tinyConfig();
  c.recipe = "fp16-mixed";
  c.telemetryEvery = 1;
  train::Session run(c);
  const train::StepReport& step = run.step();
  ASSERT_NE(step.telemetry, nullptr);
  ASSERT_GT(step.lossScale, 1.0);
  const int fc = layerOf(run, "h0.fc.w");
  const tl::TensorTelemetry* scaled = step.telemetry->find(fc, tl::TensorClass::WeightGrads, true);
  const tl::TensorTelemetry* plain = step.telemetry->find(fc, tl::TensorClass::WeightGrads, false);
  ASSERT_NE(scaled, nullptr);
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(scaled->lossScale, step.lossScale);
  // A power-of-two scale shifts every binade by log2(scale).
  const int k = int(std::lround(std::log2(step.lossScale)));
  EXPECT_EQ(*scaled->hist.highestExponent(), *plain->hist.highestExponent() + k);
}

TEST(GptLog, TelemetryOffWritesNoFrames) {
  train::RunConfig c = tinyConfig();
  c.telemetryEvery = 0;
  train::Session run(c);
  EXPECT_EQ(run.step().telemetry, nullptr);
  const train::StepReport& second = run.step();
  EXPECT_FALSE(train::runLogStep(run, second).contains("telemetry"));
  c.telemetryEvery = -1;
  EXPECT_THROW(train::Session bad(c), train::ConfigError);
}
