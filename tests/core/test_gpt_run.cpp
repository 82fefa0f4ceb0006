// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Training a GPT through train::Session and train::Trainer, the path of every
// model: the shakespeare-char preset's values, a short run learning (the loss
// falls from ln 65 = 4.17), the loss scaler of autocast-cuda-fp16, fixed
// evaluation batches, sampling, and bad configurations refused.
#include <mantissa/amp/policy.h>
#include <mantissa/model/gpt_network.h>
#include <mantissa/model/tensor_plan.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/run_config.h>
#include <mantissa/train/trainer.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

using namespace mantissa;

namespace {

// The shakespeare-char preset on a one-block model.
train::RunConfig tinyConfig(std::int64_t steps) {
  train::RunConfig c = train::findPreset("shakespeare-char")->runs.front();
  c.model = "gpt:layers=1,heads=2,embd=32,ctx=32";
  c.batch = 8;
  c.steps = steps;
  c.warmupSteps = 5;
  c.lr = 3e-3;
  c.evalBatches = 4;
  return c;
}

} // namespace

// nanoGPT's shakespeare_char on the CPU: 4 layers, 4 heads, embd 128, ctx 64,
// batch 12, AdamW lr 1e-3 beta2 0.99 wd 0.1, warm-up 100 then cosine to 1e-4,
// clip 1.0, 2000 steps.
TEST(GptTraining, ShakespeareCharPresetIsNanoGptsCpuConfiguration) {
  const train::Preset* preset = train::findPreset("shakespeare-char");
  ASSERT_NE(preset, nullptr);
  ASSERT_EQ(preset->runs.size(), 1u);
  const train::RunConfig& c = preset->runs.front();
  EXPECT_EQ(c.data, "shakespeare");
  EXPECT_EQ(c.model, "gpt:layers=4,heads=4,embd=128,ctx=64");
  EXPECT_EQ(c.recipe, "fp32");
  EXPECT_EQ(c.optimizer, "adamw");
  EXPECT_EQ(c.schedule, "cosine");
  EXPECT_EQ(c.batch, 12);
  EXPECT_EQ(c.steps, 2000);
  EXPECT_EQ(c.lr, 1e-3);
  EXPECT_EQ(c.beta1, 0.9);
  EXPECT_EQ(c.beta2, 0.99);
  EXPECT_EQ(c.weightDecay, 0.1);
  EXPECT_EQ(c.warmupSteps, 100);
  EXPECT_EQ(c.lrFloor, 1e-4);
  EXPECT_EQ(c.clipNorm, 1.0);
  EXPECT_EQ(c.evalBatches, 20);
  EXPECT_EQ(c.evalEvery, 250);
  EXPECT_EQ(c.seed, 1u);
  EXPECT_EQ(c.telemetryEvery, 0);
  EXPECT_TRUE(c.problems().empty());
}

TEST(GptTraining, GradAccumulationOnAGptIsRefusedNamingOptionAndModel) {
  train::RunConfig c = train::findPreset("shakespeare-char")->runs.front();
  c.gradAccumulation = 4;
  const auto problems = c.problems();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems.front(), "grad_accumulation: model 'gpt:layers=4,heads=4,embd=128,ctx=64' "
                              "is a GPT, which trains on one batch per step (1), got 4");
}

TEST(GptTraining, ShortRunLearnsAndEvaluatesOnFixedBatches) {
  train::Session run(tinyConfig(150));
  const auto before = run.evaluate();
  ASSERT_TRUE(before.trainLoss.has_value());
  EXPECT_NEAR(before.loss, std::log(65.0), 0.2); // near-uniform predictions at init
  EXPECT_EQ(run.evaluate().loss, before.loss) << "same fixed batches, same weights";
  while (!run.finished())
    run.step();
  const auto after = run.evaluate();
  ASSERT_TRUE(after.trainLoss.has_value());
  EXPECT_LT(*after.trainLoss, *before.trainLoss - 0.9);
  EXPECT_LT(after.loss, before.loss - 0.9);
  const std::string text = run.sample(100, 1.0, 7);
  EXPECT_EQ(text.size(), 100u);
  EXPECT_EQ(run.sample(100, 1.0, 7), text) << "seeded";
}

TEST(GptTraining, Fp16PolicyWithScalerTrains) {
  auto c = tinyConfig(60);
  c.policy = "autocast-cuda-fp16";
  train::Session run(c);
  double first = 0, last = 0;
  while (!run.finished()) {
    const auto& r = run.step();
    if (r.step == 0) {
      first = r.loss;
      EXPECT_EQ(r.lossScale, 65536.0);
    }
    last = r.loss;
  }
  EXPECT_FALSE(run.divergence());
  EXPECT_LT(last, first - 0.5);
}

namespace {

// Large weights make attention scores overflow FP16's exp without the max.
void overflowAttention(model::Gpt& gpt) {
  for (auto& p : gpt.params())
    if (p.name.ends_with("qkv.w"))
      for (float& v : p.value.f32())
        v *= 200.0f;
  gpt.refreshWorkingWeights();
}

} // namespace

TEST(GptTraining, NonFiniteLossEndsTheRunNamingTheOp) {
  auto c = tinyConfig(10);
  c.policy = "fp32,softmax=fp16,softmax-max=off";
  train::Session run(c);
  model::Gpt& gpt = model::gptOf(run.model())->gpt();
  overflowAttention(gpt);
  run.step();
  ASSERT_TRUE(run.divergence());
  EXPECT_TRUE(run.finished());
  EXPECT_NE(
      run.divergence()->message.find("non-finite loss (NaN) at step 0 in policy "
                                     "fp32,softmax=fp16,softmax-max=off: first non-finite value at "
                                     "layer 0 attention softmax"),
      std::string::npos)
      << run.divergence()->message;
}

TEST(GptTraining, ASixteenBitRunSharingItsForwardTensorsStillNamesTheOp) {
  // BF16 products: without telemetry the blocks share the forward tensors
  // backward does not read, and the search runs the forward again.
  auto c = tinyConfig(10);
  c.model = "gpt:layers=2,heads=2,embd=32,ctx=32";
  c.policy = "bf16-mixed,softmax=fp16,softmax-max=off";
  train::Session run(c);
  model::Gpt& gpt = model::gptOf(run.model())->gpt();
  EXPECT_FALSE(gpt.forwardTensorsKept());
  overflowAttention(gpt);
  run.step();
  ASSERT_TRUE(run.divergence());
  EXPECT_NE(run.divergence()->message.find("first non-finite value at layer 0 attention softmax"),
            std::string::npos)
      << run.divergence()->message;
}

TEST(GptTraining, SharedForwardTensorsLeaveEveryLossAndGradientNormUnchanged) {
  // The same run with telemetry (every forward tensor kept per block) and
  // without (shared by the blocks, casts computed again in backward): the
  // same bits, in less memory.
  std::vector<double> losses[2], norms[2];
  std::size_t activationBytes[2] = {};
  for (int telemetry = 0; telemetry < 2; ++telemetry) {
    auto c = tinyConfig(6);
    c.model = "gpt:layers=2,heads=2,embd=32,ctx=32";
    c.recipe = "bf16-mixed";
    c.telemetryEvery = telemetry ? 1 : 0;
    train::Session run(c);
    EXPECT_EQ(model::gptOf(run.model())->gpt().forwardTensorsKept(), telemetry == 1);
    activationBytes[telemetry] = run.allocatedBytes().at("activations");
    while (!run.finished()) {
      const auto& r = run.step();
      losses[telemetry].push_back(r.loss);
      norms[telemetry].push_back(r.gradNorm);
    }
    losses[telemetry].push_back(run.evaluate().loss);
  }
  ASSERT_EQ(losses[0].size(), 7u);
  for (std::size_t i = 0; i < losses[0].size(); ++i)
    EXPECT_EQ(std::bit_cast<std::uint64_t>(losses[0][i]), std::bit_cast<std::uint64_t>(losses[1][i]))
        << "step " << i;
  EXPECT_EQ(norms[0], norms[1]);
  EXPECT_LT(activationBytes[0], activationBytes[1]);
}

TEST(GptTraining, BadConfigurationsAreRefusedWithEveryProblem) {
  auto c = tinyConfig(10);
  c.model = "gpt:heads=3";
  c.policy = "fp33";
  c.batch = 0;
  try {
    train::Session run(c);
    FAIL() << "accepted";
  } catch (const train::ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("embd 128 is not divisible by heads 3"), std::string::npos) << m;
    EXPECT_NE(m.find("unknown preset \"fp33\"; did you mean \"fp32\"?"), std::string::npos) << m;
    EXPECT_NE(m.find("batch: must be in [1, 65536], got 0"), std::string::npos) << m;
  }
}

// The GPT is a model like the MLP and the CNN: a plain RunConfig naming it
// trains through train::Trainer on its own thread, with evaluations on the
// fixed batches of both splits and a summary, like any run.
TEST(GptSession, TheTrainerRunsAGptConfigLikeAnyModel) {
  train::RunConfig c;
  c.data = "shakespeare";
  c.model = "gpt:layers=1,heads=2,embd=32,ctx=32";
  c.optimizer = "adamw";
  c.schedule = "cosine";
  c.lr = 3e-3;
  c.warmupSteps = 5;
  c.lrFloor = 3e-4;
  c.beta2 = 0.99;
  c.weightDecay = 0.1;
  c.clipNorm = 1.0;
  c.batch = 8;
  c.steps = 150;
  c.evalEvery = 50;
  c.evalBatches = 4;
  std::vector<double> losses;
  std::vector<train::EvalReport> evals;
  std::optional<train::RunSummary> done;
  train::TrainerCallbacks cb;
  cb.onStep = [&](const train::StepReport& r) {
    losses.push_back(r.loss);
    EXPECT_GE(r.accuracy, 0.0);
    EXPECT_LE(r.accuracy, 1.0);
    EXPECT_GT(r.times.matmulForward, 0.0);
    EXPECT_GT(r.times.matmulBackward, 0.0);
  };
  cb.onEval = [&](const train::EvalReport& e) { evals.push_back(e); };
  cb.onDone = [&](const train::RunSummary& s) { done = s; };
  train::Trainer trainer(c, cb);
  EXPECT_TRUE(trainer.session().isText());
  EXPECT_EQ(trainer.session().text().vocabularySize(), 65);
  trainer.start();
  trainer.wait();
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(done->steps, 150);
  EXPECT_FALSE(done->divergence);
  ASSERT_EQ(losses.size(), 150u);
  EXPECT_NEAR(losses.front(), std::log(65.0), 0.2); // near-uniform predictions at init
  ASSERT_EQ(evals.size(), 3u);                       // after 50, 100 and at the end
  EXPECT_EQ(evals[0].step, 50);
  EXPECT_EQ(evals.back().step, 150);
  for (const auto& e : evals)
    ASSERT_TRUE(e.trainLoss.has_value());
  EXPECT_LT(evals.back().loss, std::log(65.0) - 0.9);
  EXPECT_LT(*evals.back().trainLoss, std::log(65.0) - 0.9);
  EXPECT_EQ(done->testLoss, evals.back().loss);
}

// Memory accounting of a GPT through the Session, against the parameter
// count worked out from the architecture: FP32 master weights and gradients
// of every parameter, and AdamW's two moments of each.
TEST(GptSession, PlanCountsEveryParameterItsGradientAndBothAdamMoments) {
  train::RunConfig c;
  c.data = "shakespeare";
  c.model = "gpt:layers=2,heads=2,embd=32,ctx=16";
  c.optimizer = "adamw";
  c.batch = 4;
  c.steps = 10;
  train::Session s(c);
  const std::int64_t V = 65, T = 16, C = 32, L = 2;
  const std::int64_t perBlock = 2 * C + (C * 3 * C + 3 * C) + (C * C + C) + 2 * C +
                                (C * 4 * C + 4 * C) + (4 * C * C + C);
  const std::int64_t params = V * C + T * C + L * perBlock + 2 * C;
  EXPECT_EQ(s.model().parameterCount(), params);
  const auto plan = s.plan();
  auto count = [&](model::TensorRole role) {
    std::int64_t n = 0;
    for (const auto& r : plan)
      if (r.role == role)
        n += r.rows * r.cols;
    return n;
  };
  EXPECT_EQ(count(model::TensorRole::MasterWeights), params);
  EXPECT_EQ(count(model::TensorRole::Gradients), params);
  EXPECT_EQ(count(model::TensorRole::OptimizerState), 2 * params);
  EXPECT_EQ(model::bytesFor(plan, model::TensorRole::OptimizerState),
            static_cast<std::size_t>(2 * params * 4));
  // A GPT names its data: images are refused, and a GPT's policy is refused for an MLP.
  c.model = "mlp:784-10:relu";
  c.policy = "llm.c";
  EXPECT_THROW(train::Session{c}, train::ConfigError);
}

// A policy that starts from bf16-pure-sr trains with stochastic rounding of
// its BF16 master weights' updates, says so in its spec, and parts from the
// same run rounded to nearest within a few steps.
TEST(GptTraining, PolicyFromARecipeKeepsItsUpdateRounding) {
  std::vector<std::vector<float>> weights;
  for (const char* policy : {"bf16-pure-sr", "bf16-pure"}) {
    auto c = tinyConfig(8);
    c.policy = policy;
    train::Session run(c);
    EXPECT_EQ(run.recipe().updateRounding, std::string(policy) == "bf16-pure"
                                               ? amp::UpdateRounding::Nearest
                                               : amp::UpdateRounding::Stochastic);
    ASSERT_NE(run.model().policy(), nullptr);
    // Its spec reads back with the same update rounding ("bf16-pure-sr" implies it).
    EXPECT_EQ(amp::parsePolicy(run.model().policy()->toSpec()).update,
              run.recipe().updateRounding)
        << run.model().policy()->toSpec();
    while (!run.finished())
      run.step();
    std::vector<float> all;
    for (const model::Parameter& p : run.model().parameters())
      for (const float v : p.value->f32()) {
        ASSERT_EQ(std::bit_cast<std::uint32_t>(v) & 0xFFFFu, 0u) << p.name << " is not BF16";
        all.push_back(v);
      }
    weights.push_back(std::move(all));
  }
  EXPECT_NE(weights[0], weights[1]);
}

namespace {

double firstLoss(const std::string& policy, const std::string& model = "gpt:layers=2,heads=2,embd=32,ctx=32") {
  auto c = tinyConfig(6);
  c.model = model;
  c.policy = policy;
  train::Session run(c);
  return run.step().loss;
}

} // namespace

// Per-layer policy rows reach the layer they name, and only it.
TEST(GptTraining, PerLayerRowsApplyToTheirLayerOnly) {
  const double fp32 = firstLoss("fp32");
  // An explicit FP32 row for a layer is the FP32 run, bit for bit.
  EXPECT_EQ(firstLoss("fp32,h0.matmul-inputs=fp32,h1.softmax=fp32"), fp32);
  // Rounded inputs in one layer move the loss; in different layers differently.
  const double h0 = firstLoss("fp32,h0.qkv.matmul-inputs=bf16");
  const double h1 = firstLoss("fp32,h1.fcproj.matmul-inputs=bf16");
  EXPECT_NE(h0, fp32);
  EXPECT_NE(h1, fp32);
  EXPECT_NE(h0, h1);
  // A block's row covers its four linear layers: all of them = the block row.
  EXPECT_EQ(firstLoss("fp32,h0.matmul-inputs=e4m3"),
            firstLoss("fp32,h0.qkv.matmul-inputs=e4m3,h0.attproj.matmul-inputs=e4m3,"
                      "h0.fc.matmul-inputs=e4m3,h0.fcproj.matmul-inputs=e4m3"));
  // A scaled layer is the only one with scaling statistics.
  auto c = tinyConfig(6);
  c.model = "gpt:layers=2,heads=2,embd=32,ctx=32";
  c.policy = "fp32,h1.fc.matmul-inputs=fp8-current";
  train::Session run(c);
  run.step();
  std::vector<std::string> names;
  for (const auto& s : run.model().scalingStats())
    names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"h1.fc.x", "h1.fc.w", "h1.fc.dy"}));
}

TEST(GptTraining, PerLayerRowOfAMissingBlockIsRefused) {
  auto c = tinyConfig(6);
  c.policy = "fp32,h3.softmax=fp16";
  try {
    train::Session run(c);
    FAIL() << "accepted";
  } catch (const train::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("policy: names block h3 but the model has blocks h0 to h0"),
              std::string::npos)
        << e.what();
  }
}
