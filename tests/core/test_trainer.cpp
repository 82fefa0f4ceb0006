// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Run configuration, determinism, divergence, loss-scaler skips, and the
// Trainer's thread controls. Small models on the shipped MNIST, a few dozen
// steps each; the thread controls and the run log also for a CNN and a GPT.
#include <mantissa/kernels/matmul.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/run_log.h>
#include <mantissa/train/run_log_rows.h>
#include <mantissa/train/step_benchmark.h>
#include <mantissa/train/trainer.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <semaphore>
#include <thread>

using namespace mantissa;
using train::RunConfig;

namespace {

RunConfig small(std::string recipe, std::int64_t steps = 20) {
  RunConfig c;
  c.model = "mlp:784-32-10";
  c.recipe = std::move(recipe);
  c.batch = 32;
  c.steps = steps;
  c.seed = 7;
  return c;
}

std::shared_ptr<const data::TrainTest> mnist() {
  static const auto data = std::make_shared<const data::TrainTest>(data::loadBuiltin("mnist"));
  return data;
}

std::vector<double> lossTrace(const RunConfig& c) {
  train::Session s(c, mnist());
  std::vector<double> trace;
  while (!s.finished())
    trace.push_back(s.step().loss);
  return trace;
}

bool waitFor(const std::function<bool()>& cond) {
  for (int i = 0; i < 2000; ++i) { // up to 20 s on a loaded machine
    if (cond())
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return cond();
}

} // namespace

TEST(RunConfigJson, RoundTripsEveryField) {
  RunConfig c = small("fp16-mixed");
  c.scaler = "apex";
  c.scalerInitScale = 1024.0;
  c.optimizer = "adamw";
  c.schedule = "cosine";
  c.warmupSteps = 5;
  c.lrFloor = 0.001;
  c.telemetryEvery = 3;
  c.gradAccumulation = 2;
  c.clipNorm = 1.5;
  const auto back = train::runConfigFromJson(train::toJson(c));
  EXPECT_EQ(train::toJson(back), train::toJson(c));
  EXPECT_EQ(back.scalerInitScale, 1024.0);
  EXPECT_FALSE(back.scalerGrowthInterval.has_value());
}

// A run that names extra telemetry formats writes them into its log's
// header; reading that header back must accept them (it was refused as an
// unknown key, so no such run could be opened again).
TEST(RunConfigJson, TelemetryFormatsRoundTrip) {
  train::RunConfig c;
  c.telemetryFormats = "fp8-e4m3fnuz,e4m3:bias=9,special=fnuz";
  const auto back = train::runConfigFromJson(train::toJson(c));
  EXPECT_EQ(back.telemetryFormats, c.telemetryFormats);
}

TEST(RunConfigJson, RejectsUnknownKeysAndWrongTypesByName) {
  auto expectError = [](const char* text, const char* needle) {
    try {
      train::runConfigFromJson(nlohmann::json::parse(text));
      ADD_FAILURE() << text;
    } catch (const train::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expectError(R"({"learning_rate": 0.1})", "learning_rate");
  expectError(R"({"lr": "fast"})", "lr");
  expectError(R"({"batch": 1.5})", "batch");
  expectError(R"({"seed": -3})", "seed");
  expectError(R"([1, 2])", "object");
}

// The settings a run's title adds to its recipe: only those that differ
// from the defaults and have no field in the setup, with powers of two as
// the presets write them.
TEST(RunConfigText, SettingsBeyondSetupNameWhatDiffersFromTheDefaults) {
  train::RunConfig c;
  EXPECT_TRUE(train::settingsBeyondSetup(c).empty());
  c.lossMultiplier = 0.00006103515625; // 2^-14
  c.scalerInitScale = 4294967296.0;   // 2^32
  c.scalerGrowthInterval = 50;
  c.momentum = 0.0;
  c.initGain = 0.3;
  c.lr = 0.5; // a field of its own: not listed
  EXPECT_EQ(train::settingsBeyondSetup(c),
            (std::vector<std::string>{"loss × 2^-14", "scaler initial scale 2^32",
                                      "scaler growth every 50 steps", "momentum 0",
                                      "init gain 0.3"}));
  c.optimizer = "adamw"; // no momentum to speak of
  EXPECT_EQ(train::settingsBeyondSetup(c).size(), 4u);
}

TEST(RunConfigValidate, NamesEveryProblem) {
  RunConfig c;
  c.lr = -1;
  c.batch = 0;
  c.steps = 10;
  c.epochs = 2;
  c.recipe = "bf16-mixed";
  c.scaler = "pytorch";
  c.model = "mlp:784";
  const auto p = c.problems();
  auto has = [&](const char* prefix) {
    for (const auto& s : p)
      if (s.rfind(prefix, 0) == 0)
        return true;
    return false;
  };
  EXPECT_TRUE(has("lr:"));
  EXPECT_TRUE(has("batch:"));
  EXPECT_TRUE(has("steps/epochs:"));
  EXPECT_TRUE(has("scaler:"));
  EXPECT_TRUE(has("model:"));
  EXPECT_THROW(c.validate(), train::ConfigError);
  EXPECT_TRUE(small("fp32").problems().empty());
  RunConfig wrongWidth = small("fp32");
  wrongWidth.model = "mlp:100-10";
  EXPECT_THROW(train::Session(wrongWidth, mnist()), train::ConfigError);
}

TEST(Determinism, SameConfigSameBitsDifferentSeedDifferentBits) {
  for (const char* recipe : {"fp32", "fp16-mixed", "bf16-pure-sr"}) {
    const auto a = lossTrace(small(recipe));
    const auto b = lossTrace(small(recipe));
    ASSERT_EQ(a.size(), 20u);
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double))) << recipe;
    RunConfig other = small(recipe);
    other.seed = 8;
    EXPECT_NE(lossTrace(other), a) << recipe;
  }
}

TEST(Training, LossFallsAndEvaluationCoversTheTestSet) {
  RunConfig c = small("bf16-mixed", 60);
  c.lr = 0.1;
  train::Session s(c, mnist());
  const auto before = s.evaluate();
  while (!s.finished())
    s.step();
  const auto after = s.evaluate();
  EXPECT_EQ(after.samples, 2000);
  EXPECT_LT(after.loss, 0.6 * before.loss);
  EXPECT_GT(after.accuracy, 0.75);
}

namespace {

bool finite(const Tensor& t) {
  for (float v : t.f32())
    if (!std::isfinite(v))
      return false;
  return true;
}

} // namespace

// lr 1e6 in FP16 without a scaler: the first update makes layer 0's outputs
// exceed 65504, so the forward pass overflows. (In FP32 the same run stays
// finite: the log-sum-exp keeps the loss finite and the ReLUs die.)
TEST(Divergence, HugeLearningRateStopsWithStepLayerAndOp) {
  RunConfig c = small("fp16-mixed-noscale", 50);
  c.lr = 1e6;
  train::Session s(c, mnist());
  while (!s.finished())
    s.step();
  ASSERT_TRUE(s.divergence().has_value());
  const auto& d = *s.divergence();
  EXPECT_LT(s.stepsDone(), 50);
  EXPECT_EQ(d.step, s.stepsDone() - 1);
  EXPECT_FALSE(d.backward);
  EXPECT_EQ(d.op, "linear");
  EXPECT_NE(d.message.find("step " + std::to_string(d.step)), std::string::npos) << d.message;
  // The named layer really is the first with a non-finite value.
  const auto& acts = s.model().acts();
  for (int l = 0; l < d.layer; ++l)
    EXPECT_TRUE(finite(acts[l].pre) && finite(acts[l].post)) << "layer " << l;
  EXPECT_FALSE(finite(acts[d.layer].pre));
}

// A loss multiplied by 1e6 in FP16 without a scaler: the forward pass is
// fine, the weight gradient of the last layer overflows FP16 in backward.
TEST(Divergence, BackwardOverflowIsReportedAsBackward) {
  RunConfig c = small("fp16-mixed-noscale", 5);
  c.lossMultiplier = 1e6;
  train::Session s(c, mnist());
  s.step();
  ASSERT_TRUE(s.divergence().has_value());
  const auto& d = *s.divergence();
  EXPECT_EQ(d.step, 0);
  EXPECT_TRUE(d.backward);
  EXPECT_TRUE(s.finished());
  const auto& m = s.model();
  for (int l = m.layers() - 1; l > d.layer; --l)
    EXPECT_TRUE(finite(m.acts()[l].dpre) && finite(m.grads()[l].w) && finite(m.grads()[l].b) &&
                finite(m.acts()[l].dIn))
        << "layer " << l << " comes earlier in backward order";
  EXPECT_FALSE(finite(m.acts()[d.layer].dpre) && finite(m.grads()[d.layer].w) &&
               finite(m.grads()[d.layer].b) &&
               (d.layer == 0 || finite(m.acts()[d.layer].dIn)));
  EXPECT_EQ(d.op.rfind("linear", 0) == 0 || d.op == "relu" || d.op == "softmax-xent", true) << d.op;
}

TEST(LossScaling, OverflowSkipsTheStepAndBacksOffWithoutDiverging) {
  RunConfig c = small("fp16-mixed", 30);
  c.scalerInitScale = std::ldexp(1.0, 40); // scaled gradients overflow FP16 at once
  train::Session s(c, mnist());
  int skipped = 0, backoffs = 0;
  double firstScale = 0, lastScale = 0;
  while (!s.finished()) {
    const auto& r = s.step();
    if (r.step == 0)
      firstScale = r.lossScale;
    lastScale = r.scaler.scale;
    skipped += r.skipped;
    for (const auto& e : r.scalerEvents)
      backoffs += e.kind == amp::ScalerEventKind::Backoff;
    EXPECT_EQ(r.skipped, r.foundInf);
    EXPECT_EQ(r.firstNonFinite.has_value(), r.foundInf);
    if (r.firstNonFinite) {
      EXPECT_TRUE(r.firstNonFinite->backward);
    }
  }
  EXPECT_FALSE(s.divergence().has_value());
  EXPECT_EQ(firstScale, std::ldexp(1.0, 40));
  EXPECT_GE(skipped, 1);
  EXPECT_EQ(backoffs, skipped);
  EXPECT_LT(lastScale, std::ldexp(1.0, 40));
}

// Every step overflows (a loss multiplied by 1e30 makes FP16 gradients inf at
// any scale >= 1), scripted against DeepSpeed's DynamicLossScaler.update_scale
// (deepspeed/runtime/fp16/loss_scaler.py) with its fp16 defaults
// (deepspeed/runtime/constants.py: initial_scale_power 16, hysteresis 2,
// min_loss_scale 1, raise_error_at_min_scale True):
//   step 0: cur_hysteresis 2 -> 1, skipped, scale stays 2^16;
//   steps 1..16: scale / 2 each (2^15 ... 2^0), skipped;
//   step 17: cur_scale == min_scale -> raise "Current loss scale already at
//   minimum - cannot decrease scale anymore. Exiting run."
// The run ends at step 17 with a reported stop, not an endless run of skips.
TEST(LossScaling, DeepSpeedOverflowAtTheMinimumScaleEndsTheRun) {
  RunConfig c = small("fp16-mixed", 100);
  c.scaler = "deepspeed";
  c.lossMultiplier = 1e30;
  train::Session s(c, mnist());
  const std::vector<float> w0(s.model().params()[0].w.f32().begin(),
                              s.model().params()[0].w.f32().end());
  std::vector<double> scales;
  while (!s.finished()) {
    const auto& r = s.step();
    scales.push_back(r.lossScale);
    EXPECT_TRUE(r.foundInf) << "step " << r.step;
    EXPECT_TRUE(r.skipped) << "step " << r.step;
  }
  std::vector<double> expected{65536.0};
  for (int k = 16; k >= 0; --k)
    expected.push_back(std::ldexp(1.0, k));
  EXPECT_EQ(scales, expected);
  ASSERT_TRUE(s.divergence().has_value());
  const train::Divergence& d = *s.divergence();
  EXPECT_EQ(d.step, 17);
  EXPECT_EQ(s.stepsDone(), 18);
  EXPECT_EQ(s.skippedSteps(), 18);
  EXPECT_EQ(d.reason, "loss scale at its minimum");
  EXPECT_TRUE(d.backward); // where the overflow began
  EXPECT_EQ(d.message.rfind("loss scale at its minimum at step 17", 0), 0u) << d.message;
  EXPECT_NE(d.message.find("Current loss scale already at minimum - cannot decrease scale anymore"),
            std::string::npos)
      << d.message;
  // Every step was skipped: the weights are the initial ones.
  const auto w = s.model().params()[0].w.f32();
  EXPECT_TRUE(std::equal(w.begin(), w.end(), w0.begin()));
}

// Megatron's DynamicGradScaler has no such stop: at min_scale it keeps
// skipping (megatron/core/optimizer/grad_scaler.py), so the same run ends
// at its planned steps with every step skipped and the scale clamped at 1.
TEST(LossScaling, MegatronKeepsSkippingAtTheMinimumScale) {
  RunConfig c = small("fp16-mixed", 40);
  c.scaler = "megatron";
  c.lossMultiplier = 1e30;
  train::Session s(c, mnist());
  double lastScale = 0;
  while (!s.finished())
    lastScale = s.step().scaler.scale;
  EXPECT_FALSE(s.divergence().has_value());
  EXPECT_EQ(s.stepsDone(), 40);
  EXPECT_EQ(s.skippedSteps(), 40);
  EXPECT_EQ(lastScale, 1.0); // 2^32 after one hysteresis overflow, then 32 halvings
}

TEST(Clipping, LargeGradientsAreScaledToTheMaxNorm) {
  RunConfig c = small("fp32", 3);
  c.clipNorm = 1e-3;
  train::Session s(c, mnist());
  const auto& r = s.step();
  EXPECT_GT(r.gradNorm, 1e-3);
  EXPECT_NEAR(r.clipFactor, 1e-3 / (r.gradNorm + 1e-6), 1e-9);
}

TEST(Telemetry, FramesArriveEveryKSteps) {
  RunConfig c = small("fp16-mixed", 7);
  c.telemetryEvery = 3;
  train::Session s(c, mnist());
  std::vector<std::int64_t> frames;
  while (!s.finished()) {
    const auto& r = s.step();
    if (r.telemetry) {
      frames.push_back(r.telemetry->step);
      EXPECT_EQ(r.underflow.size(), 2u);
      // Gradients of a loss-scaled recipe: both the scaled and unscaled views.
      EXPECT_NE(r.telemetry->find(0, telemetry::TensorClass::WeightGrads, true), nullptr);
      EXPECT_NE(r.telemetry->find(0, telemetry::TensorClass::WeightGrads, false), nullptr);
    }
  }
  EXPECT_EQ(frames, (std::vector<std::int64_t>{0, 3, 6}));
}

// A pause from another thread lets the step in flight finish and runs no
// further. That step is held inside onStep until this thread has paused, so
// the count at the pause is known exactly (a fixed 100 ms sleep guessed it:
// on a loaded machine the step in flight landed after the guess).
TEST(Trainer, PauseSingleStepResumeAndStopFromAnotherThread) {
  std::atomic<int> stepCalls{0}, doneCalls{0};
  std::atomic<bool> holdNextStep{false};
  std::binary_semaphore stepHeld{0}, stepReleased{0};
  train::RunSummary summary;
  train::TrainerCallbacks cb;
  cb.onStep = [&](const train::StepReport&) {
    ++stepCalls;
    if (holdNextStep.exchange(false)) {
      stepHeld.release();
      stepReleased.acquire();
    }
  };
  cb.onDone = [&](const train::RunSummary& s) {
    summary = s;
    ++doneCalls;
  };
  train::Trainer t(small("fp32", 100000), mnist(), cb);
  EXPECT_EQ(t.state(), train::TrainerState::Ready);
  t.start(/*startPaused=*/true);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(t.stepsDone(), 0);
  for (int i = 0; i < 3; ++i)
    t.stepOnce();
  ASSERT_TRUE(waitFor([&] { return t.stepsDone() == 3; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  EXPECT_EQ(t.stepsDone(), 3) << "single steps must not run on";
  EXPECT_EQ(t.state(), train::TrainerState::Paused);
  t.resume();
  ASSERT_TRUE(waitFor([&] { return t.stepsDone() > 10; }));
  holdNextStep = true;
  const bool inFlight = stepHeld.try_acquire_for(std::chrono::seconds(60));
  if (inFlight)
    t.pause(); // mid-step: the held step has counted itself (stepsDone, then onStep)
  const std::int64_t pausedAt = t.stepsDone();
  holdNextStep = false;
  stepReleased.release(); // (also when nothing was held: the trainer must never block on it)
  ASSERT_TRUE(inFlight) << "no step reached onStep within 60 s";
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  EXPECT_EQ(t.stepsDone(), pausedAt) << "a pause must stop the run after the step in flight";
  EXPECT_EQ(t.state(), train::TrainerState::Paused);
  t.stop();
  t.wait();
  EXPECT_EQ(t.state(), train::TrainerState::Finished);
  EXPECT_EQ(doneCalls.load(), 1);
  EXPECT_TRUE(summary.stoppedEarly);
  EXPECT_EQ(summary.steps, t.stepsDone());
  EXPECT_EQ(stepCalls.load(), t.stepsDone());
}

TEST(Trainer, DestructorStopsARunningTrainer) {
  std::atomic<int> doneCalls{0};
  {
    train::TrainerCallbacks cb;
    cb.onDone = [&](const train::RunSummary&) { ++doneCalls; };
    train::Trainer t(small("fp32", 100000), mnist(), cb);
    t.start();
    ASSERT_TRUE(waitFor([&] { return t.stepsDone() > 2; }));
  } // ~Trainer: request stop, join
  EXPECT_EQ(doneCalls.load(), 1);
}

TEST(Trainer, RunsToTheEndAndEvaluates) {
  std::vector<train::EvalReport> evals;
  train::TrainerCallbacks cb;
  cb.onEval = [&](const train::EvalReport& e) { evals.push_back(e); };
  RunConfig c = small("fp32", 12);
  c.evalEvery = 5;
  train::Trainer t(c, mnist(), cb);
  t.start();
  t.wait();
  ASSERT_EQ(evals.size(), 3u); // after steps 5, 10 and the final one
  EXPECT_EQ(evals[0].step, 5);
  EXPECT_EQ(evals[1].step, 10);
  EXPECT_EQ(evals[2].step, 12);
}

TEST(StepBenchmark, BreakdownAddsUpAndBytesAndLabelsAreRight) {
  train::StepBenchOptions o;
  o.model = "mlp:784-64-10";
  o.batch = 32;
  o.warmup = 1;
  o.repetitions = 6;
  o.recipes = {"fp32", "bf16-mixed"};
  std::vector<std::string> seen;
  o.progress = [&](double, std::string_view what) {
    seen.emplace_back(what);
    return true;
  };
  const auto results = train::measureSteps(o);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(seen, (std::vector<std::string>{"fp32", "bf16-mixed", "done"}));
  const std::size_t params = 784 * 64 + 64 + 64 * 10 + 10;
  for (const auto& r : results) {
    EXPECT_GT(r.medianMs, 0.0);
    EXPECT_GE(r.cv, 0.0);
    EXPECT_LE(r.breakdownMs.total(), r.meanMs * 1.0001) << r.recipe; // timed inside the step
    EXPECT_GT(r.breakdownMs.matmulForward, 0.0);
    EXPECT_GT(r.breakdownMs.matmulBackward, 0.0);
  }
  // Every op kind is timed inside the step; only a little glue is not. A
  // wall-clock ratio: one preemption in the untimed glue (a loaded machine)
  // can sink a measurement, an op kind left untimed sinks every one, so it is
  // measured up to three times.
  const auto covered = [](const std::vector<train::StepBenchResult>& rs) {
    double worst = rs.empty() ? 0.0 : 1.0;
    for (const auto& r : rs)
      worst = std::min(worst, r.breakdownMs.total() / r.meanMs);
    return worst;
  };
  double coverage = covered(results);
  train::StepBenchOptions again = o;
  again.progress = nullptr;
  for (int attempt = 1; attempt < 3 && coverage < 0.8; ++attempt)
    coverage = std::max(coverage, covered(train::measureSteps(again)));
  EXPECT_GE(coverage, 0.8) << "share of the step time in timed op kinds, best of 3";
  // At the recipe's precision: what a format-native implementation holds.
  EXPECT_EQ(results[0].bytesAtRecipePrecision.at("weights"), params * 4);
  EXPECT_EQ(results[0].bytesAtRecipePrecision.at("master weights"), 0u);
  EXPECT_EQ(results[1].bytesAtRecipePrecision.at("weights"), params * 2);
  EXPECT_EQ(results[1].bytesAtRecipePrecision.at("master weights"), params * 4);
  // Allocated: FP32 storage for every parameter, plus bf16-mixed's 16-bit
  // working copy of W (test_memory_bytes holds the totals to the allocator).
  EXPECT_GE(results[0].bytes.at("weights"), params * 4);
  EXPECT_EQ(results[0].bytes.at("master weights"), 0u);
  EXPECT_GE(results[1].bytes.at("master weights"), params * 4);
  EXPECT_GT(results[1].bytes.at("weights"), 0u);
  EXPECT_LT(results[1].bytes.at("weights"), params * 4);
  EXPECT_FALSE(results[0].matmulEmulated);
  // BF16 is emulated exactly when the kernel layer says so, and labelled.
  kernels::Matmul probe(kernels::MatmulShape{32, 64, 784}, DType::BF16);
  EXPECT_EQ(results[1].matmulEmulated, probe.emulated());
  if (probe.emulated()) {
    EXPECT_NE(results[1].matmulImplementation.find("emulated"), std::string::npos);
  }
  // Cancel from the progress callback: nothing measured.
  o.progress = [](double, std::string_view) { return false; };
  EXPECT_TRUE(train::measureSteps(o).empty());
}

// With an FP32 master copy (bf16-mixed) updates land in FP32, so an update is
// swamped exactly when it leaves the FP32 master weight unchanged. The frame's
// per-layer fraction must agree with that, counted directly from the weights
// before and after the step (nothing is swamped just because BF16 could not
// hold it: the master copy can).
TEST(Telemetry, SwampingIsMeasuredWhereUpdatesLand) {
  RunConfig c = small("bf16-mixed", 3);
  c.telemetryEvery = 1;
  train::Session s(c, mnist());
  s.step(); // momentum builds up; measure a later step
  const int layers = s.model().layers();
  std::vector<std::vector<float>> before;
  for (int l = 0; l < layers; ++l) {
    auto w = s.model().params()[l].w.f32();
    before.emplace_back(w.begin(), w.end());
  }
  const auto& r = s.step();
  ASSERT_TRUE(r.telemetry);
  ASSERT_FALSE(r.skipped);
  for (int l = 0; l < layers; ++l) {
    const auto after = s.model().params()[l].w.f32();
    const auto update = s.optimizer().lastUpdate(static_cast<std::size_t>(2 * l));
    std::int64_t nonzero = 0, unchanged = 0;
    for (std::size_t i = 0; i < after.size(); ++i) {
      if (update[i] == 0.0f || !std::isfinite(update[i]))
        continue;
      ++nonzero;
      unchanged += after[i] == before[l][i] ? 1 : 0;
    }
    ASSERT_GT(nonzero, 0);
    EXPECT_NEAR(r.telemetry->swamped[static_cast<std::size_t>(l)],
                static_cast<double>(unchanged) / static_cast<double>(nonzero), 1e-12)
        << "layer " << l;
  }
}

// A pace caps the steps started per second; the wait lies between steps, so
// each step's reported wall time is still the full-speed one.
TEST(Trainer, PaceCapsTheStepRateAndStepTimeExcludesTheWait) {
  constexpr double kPace = 2.0; // steps per second: a 500 ms slot, far above a step's time
  constexpr std::size_t kWindow = 6;
  std::mutex mutex;
  std::vector<std::chrono::steady_clock::time_point> at; // guarded by mutex
  std::vector<double> stepMs;                            // guarded by mutex
  train::TrainerCallbacks cb;
  cb.onStep = [&](const train::StepReport& r) {
    std::lock_guard lock(mutex);
    at.push_back(std::chrono::steady_clock::now());
    stepMs.push_back(r.stepMs);
  };
  train::Trainer t(small("fp32", 100000), mnist(), cb);
  t.setPace(kPace);
  EXPECT_EQ(t.pace(), kPace);
  t.start();
  ASSERT_TRUE(waitFor([&] { return t.stepsDone() > std::int64_t(kWindow); }));
  t.stop();
  t.wait();
  std::lock_guard lock(mutex);
  ASSERT_GT(at.size(), kWindow);
  // Step k starts at least k slots after step 0; each callback comes that
  // step's time after its start, so the callbacks' span may fall short of
  // k slots by step 0's time (and the callback's own few microseconds).
  const double seconds = std::chrono::duration<double>(at[kWindow] - at[0]).count();
  EXPECT_GE(seconds + stepMs[0] / 1000.0 + 0.005, double(kWindow) / kPace)
      << kWindow << " steps in " << seconds << " s: faster than the cap";
  // Had the wait been counted, every step would report about the whole slot.
  std::vector<double> sorted(stepMs.begin(), stepMs.begin() + kWindow);
  std::sort(sorted.begin(), sorted.end());
  EXPECT_LT(sorted[kWindow / 2], 0.5 * 1000.0 / kPace) << "median step ms";
}

// The pace's wait, computed from the clock readings alone (no timing): the
// rest of the 1/pace slot after the previous step's start, nothing once the
// slot has passed, at full speed, or before the first step.
TEST(StepGate, PaceWaitIsTheRestOfTheSlot) {
  using Clock = train::StepGate::Clock;
  using std::chrono::milliseconds;
  const Clock::time_point start = Clock::time_point{} + std::chrono::hours(1);
  const auto wait = [&](double pace, Clock::duration since) {
    return std::chrono::duration_cast<std::chrono::microseconds>(
        train::StepGate::paceWait(pace, start, start + since));
  };
  EXPECT_EQ(wait(5.0, milliseconds(0)), milliseconds(200)); // a class's pace: 5 steps a second
  EXPECT_EQ(wait(5.0, milliseconds(50)), milliseconds(150));
  EXPECT_EQ(wait(5.0, milliseconds(199)), milliseconds(1));
  EXPECT_EQ(wait(5.0, milliseconds(200)), milliseconds(0));
  EXPECT_EQ(wait(5.0, milliseconds(900)), milliseconds(0)); // a slow step: the next starts at once
  EXPECT_EQ(wait(1.0, milliseconds(250)), milliseconds(750));
  EXPECT_EQ(wait(0.5, milliseconds(0)), milliseconds(2000));
  EXPECT_EQ(wait(100.0, milliseconds(4)), milliseconds(6));
  for (double fullSpeed : {0.0, -3.0, std::numeric_limits<double>::infinity(), std::nan("")})
    EXPECT_EQ(wait(fullSpeed, milliseconds(0)), milliseconds(0)) << fullSpeed;
  // The first step is never held.
  EXPECT_EQ(train::StepGate::paceWait(5.0, Clock::time_point{}, start), Clock::duration::zero());
}

// The GPT trains through the same gate: at one step per 1000 s, work posted
// to the training thread after the first step finds it waiting with exactly
// one step done; full speed then releases it.
TEST(Trainer, AGptRunHonoursThePace) {
  train::RunConfig c = train::findPreset("shakespeare-char")->runs.front();
  c.model = "gpt:layers=1,heads=2,embd=16,ctx=16";
  c.batch = 4;
  c.steps = 100000;
  c.evalEvery = 100000;
  train::Trainer t(c, {});
  t.setPace(0.001);
  EXPECT_EQ(t.pace(), 0.001);
  t.start();
  ASSERT_TRUE(waitFor([&] { return t.stepsDone() >= 1; }));
  std::atomic<std::int64_t> seen{-1};
  ASSERT_TRUE(t.visit([&](const train::Session&) { seen = t.stepsDone(); }));
  ASSERT_TRUE(waitFor([&] { return seen.load() >= 0; }));
  EXPECT_EQ(seen.load(), 1) << "a step started inside the 1000 s slot";
  t.setPace(0);
  ASSERT_TRUE(waitFor([&] { return t.stepsDone() > 3; }));
  t.stop();
  t.wait();
}

// A slow pace never holds up a pause, a single step, a new pace or a stop:
// at one step per 1000 s, each of them would otherwise hang this test.
TEST(Trainer, PauseStepNewPaceAndStopEndAPacingWait) {
  std::atomic<bool> done{false};
  train::TrainerCallbacks cb;
  cb.onDone = [&](const train::RunSummary&) { done = true; };
  train::Trainer t(small("fp32", 100000), mnist(), cb);
  t.setPace(0.001);
  t.start();
  ASSERT_TRUE(waitFor([&] { return t.stepsDone() == 1; })); // the first step is not held
  t.pause();
  EXPECT_EQ(t.state(), train::TrainerState::Paused);
  t.stepOnce(); // single steps are not paced
  ASSERT_TRUE(waitFor([&] { return t.stepsDone() == 2; }));
  t.resume();   // back in the 1000 s slot...
  t.setPace(0); // ...which full speed ends
  ASSERT_TRUE(waitFor([&] { return t.stepsDone() > 5; }));
  t.setPace(0.001);
  const std::int64_t before = t.stepsDone(); // one more step may be in flight
  t.stop(); // in the slow slot: must end at once
  t.wait();
  EXPECT_TRUE(done.load());
  EXPECT_EQ(t.state(), train::TrainerState::Finished);
  EXPECT_LE(t.stepsDone(), before + 1);
}

// A visit reads the weights on the training thread between steps: paused
// after exactly three steps, it sees the weights a plain Session has after
// the same three steps, bit for bit; once the thread has ended, visit()
// refuses (the caller then owns the session).
TEST(Trainer, VisitReadsTheWeightsBetweenStepsWhilePaused) {
  train::Session reference(small("fp32"), mnist());
  for (int i = 0; i < 3; ++i)
    reference.step();
  const std::vector<float> expected(reference.model().params()[0].w.f32().begin(),
                                    reference.model().params()[0].w.f32().end());

  train::Trainer t(small("fp32"), mnist(), {});
  t.start(/*startPaused=*/true);
  for (int i = 0; i < 3; ++i) {
    t.stepOnce();
    ASSERT_TRUE(waitFor([&] { return t.stepsDone() == i + 1; }));
  }
  std::mutex m;
  std::vector<float> seen;
  std::int64_t seenStep = -1;
  bool visited = false;
  ASSERT_TRUE(t.visit([&](const train::Session& s) {
    std::lock_guard lock(m);
    const auto w = s.model().params()[0].w.f32();
    seen.assign(w.begin(), w.end());
    seenStep = s.stepsDone();
    visited = true;
  }));
  ASSERT_TRUE(waitFor([&] {
    std::lock_guard lock(m);
    return visited;
  }));
  EXPECT_EQ(seenStep, 3);
  ASSERT_EQ(seen.size(), expected.size());
  EXPECT_EQ(std::memcmp(seen.data(), expected.data(), seen.size() * sizeof(float)), 0);
  EXPECT_EQ(t.stepsDone(), 3); // the visit took no step

  t.stop();
  t.wait();
  EXPECT_FALSE(t.visit([](const train::Session&) { FAIL() << "visited after the thread ended"; }));
}

namespace {

// A few steps of each kind of model, evaluated every 3 steps with a
// telemetry frame every 2: an MLP and a CNN on MNIST, a GPT on Tiny
// Shakespeare (the shakespeare-char preset on a one-block model).
RunConfig modelConfig(const std::string& model, std::int64_t steps) {
  RunConfig c;
  if (model == "gpt") {
    c = train::findPreset("shakespeare-char")->runs.front();
    c.model = "gpt:layers=1,heads=2,embd=16,ctx=16";
    c.batch = 4;
    c.warmupSteps = 1;
    c.evalBatches = 2;
  } else {
    c.model = model == "cnn" ? "cnn:c4k3-p2-f8" : "mlp:784-32-10";
    c.batch = 32;
    c.seed = 7;
  }
  c.steps = steps;
  c.evalEvery = 3;
  c.telemetryEvery = 2;
  return c;
}

// The run's log objects as the training thread hands them over (as the GUI's
// run controller writes its live log). `trainer` is set before start.
struct LogInbox {
  std::mutex m;
  std::vector<nlohmann::json> records; // guarded by m
  train::Trainer* trainer = nullptr;

  train::TrainerCallbacks callbacks() {
    train::TrainerCallbacks cb;
    cb.onStep = [this](const train::StepReport& r) {
      add(train::runLogStep(trainer->session(), r));
    };
    cb.onEval = [this](const train::EvalReport& e) {
      add(train::runLogEval(trainer->session(), e));
    };
    cb.onDone = [this](const train::RunSummary& s) {
      add(train::runLogSummary(trainer->session(), s));
    };
    return cb;
  }
  void add(nlohmann::json j) {
    std::lock_guard lock(m);
    records.push_back(std::move(j));
  }
  std::size_t size() {
    std::lock_guard lock(m);
    return records.size();
  }
};

} // namespace

class EveryModel : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryModel, SingleStepsWhilePausedThenRunsToTheEndAndLogsARunLog) {
  LogInbox inbox;
  train::Trainer trainer(modelConfig(GetParam(), 7), inbox.callbacks());
  inbox.trainer = &trainer;
  const nlohmann::json header = train::runLogHeader(trainer.session());
  ASSERT_TRUE(header.contains("config"));
  EXPECT_EQ(train::runConfigFromJson(header["config"]).model, modelConfig(GetParam(), 7).model);
  trainer.start(/*startPaused=*/true);
  EXPECT_EQ(trainer.state(), train::TrainerState::Paused);
  trainer.stepOnce();
  trainer.stepOnce();
  ASSERT_TRUE(waitFor([&] { return inbox.size() == 2; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  EXPECT_EQ(trainer.stepsDone(), 2) << "single steps must not run on";
  EXPECT_EQ(inbox.size(), 2u);
  EXPECT_EQ(trainer.state(), train::TrainerState::Paused);
  trainer.resume();
  trainer.wait();
  EXPECT_EQ(trainer.state(), train::TrainerState::Finished);
  EXPECT_EQ(trainer.stepsDone(), 7);

  train::RunLogBuilder builder;
  builder.add(header);
  for (const auto& r : inbox.records)
    builder.add(r);
  const train::RunLog& log = builder.log();
  EXPECT_EQ(log.steps.size(), 7u);
  ASSERT_EQ(log.frames.size(), 4u); // steps 0, 2, 4, 6
  ASSERT_EQ(log.evals.size(), 3u);  // after 3 and 6 steps, and the final one
  EXPECT_EQ(log.evals.back().step, 7);
  ASSERT_TRUE(log.summary.is_object());
  EXPECT_FALSE(log.summary["stopped_early"].get<bool>());
  EXPECT_EQ(log.summary["steps"], 7);
  EXPECT_EQ(log.summary["test_loss"].get<double>(), log.evals.back().testLoss);
  EXPECT_EQ(log.summary["recipe"], "fp32");
  if (GetParam() == "gpt") { // a GPT's losses over both splits' fixed batches
    EXPECT_EQ(log.summary["val_loss"].get<double>(), log.evals.back().testLoss);
    EXPECT_EQ(log.summary["train_loss"].get<double>(), log.evals.back().trainLoss);
  } else {
    EXPECT_EQ(log.summary["test_accuracy"].get<double>(), log.evals.back().testAccuracy);
  }
}

TEST_P(EveryModel, StopEndsARunEarlyWithItsSummary) {
  LogInbox inbox;
  train::Trainer trainer(modelConfig(GetParam(), 100000), inbox.callbacks());
  inbox.trainer = &trainer;
  trainer.start(false);
  ASSERT_TRUE(waitFor([&] { return trainer.stepsDone() >= 2; }));
  trainer.stop();
  trainer.wait();
  EXPECT_EQ(trainer.state(), train::TrainerState::Finished);
  EXPECT_LT(trainer.stepsDone(), 100000);
  std::lock_guard lock(inbox.m);
  ASSERT_TRUE(inbox.records.back().contains("summary"));
  EXPECT_TRUE(inbox.records.back()["stopped_early"].get<bool>());
  EXPECT_EQ(inbox.records.back()["steps"], trainer.stepsDone());
}

INSTANTIATE_TEST_SUITE_P(Models, EveryModel, ::testing::Values("mlp", "cnn", "gpt"),
                         [](const auto& param) { return std::string(param.param); });
