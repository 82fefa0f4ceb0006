// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Lessons 3, 4 and 6: loss scaling (worked example, a real run's gradients,
// the dynamic scaler by hand), BF16 without a scaler, matmul speed. These
// call the trainer, amp::LossScaler, the telemetry cast counts and the bench.
#include <mantissa/lessons/demos.h>

#include <mantissa/amp/loss_scaler.h>
#include <mantissa/bench/matmul_bench.h>
#include <mantissa/numeric/codec.h>
#include <mantissa/telemetry/cast_fractions.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/run_log.h>
#include <mantissa/train/run_log_rows.h>
#include <mantissa/train/session.h>

#include <cmath>
#include <map>
#include <stdexcept>

namespace mantissa::lessons {

using numeric::FormatId;

ScalingExample scalingExample(double g, double scale) {
  const auto& fp16 = numeric::formatInfo(FormatId::Fp16);
  ScalingExample e{};
  e.g = g;
  e.scale = scale;
  const auto gBits = numeric::encode(fp16, g).bits;
  e.gInFp16 = numeric::toDouble(fp16, gBits);
  e.gIsSubnormal = numeric::classify(fp16, gBits) == numeric::FloatClass::Subnormal;
  // g*S is formed in FP32 (one rounding), then cast to FP16 (a second one).
  const float scaled = static_cast<float>(g) * static_cast<float>(scale);
  const auto sBits = numeric::encode(fp16, static_cast<double>(scaled)).bits;
  e.scaledInFp16 = numeric::toDouble(fp16, sBits);
  e.scaledIsNormal = numeric::classify(fp16, sBits) == numeric::FloatClass::Normal;
  e.recovered = static_cast<float>(e.scaledInFp16) / static_cast<float>(scale);
  e.relativeError = std::abs(e.recovered - g) / g;
  return e;
}

namespace {

const train::RunConfig& presetRun(const char* preset, const char* recipe) {
  const auto* p = train::findPreset(preset);
  if (p == nullptr) throw std::runtime_error(std::string("lesson demo: no preset ") + preset);
  for (const auto& r : p->runs)
    if (r.recipe == recipe) return r;
  throw std::runtime_error(std::string("lesson demo: preset ") + preset + " has no " + recipe +
                           " run");
}

} // namespace

RecoveryDemo recoveryDemo(const std::vector<double>& scales, int steps) {
  // The scaled run keeps gradients that the unscaled one flushes; after the
  // step they are unscaled and the preset's small-loss factor (2^-14, a power
  // of two, so exact) is undone. Multiplying it back gives the gradients of
  // the objective FP16 has to represent.
  train::RunConfig config = presetRun("underflow", "fp16-mixed");
  config.epochs = 0;
  config.steps = steps;
  config.evalEvery = 0;
  train::Session session(config);
  while (!session.finished()) session.step();
  std::vector<float> g;
  for (const auto& layer : session.model().grads())
    for (float v : layer.w.f32()) g.push_back(static_cast<float>(v * config.lossMultiplier));

  RecoveryDemo d;
  d.values = g.size();
  d.fp16MinSubnormalLog2 = std::log2(numeric::formatInfo(FormatId::Fp16).minSubnormal());
  const auto fp16 = static_cast<std::size_t>(0); // kCastTargets[0] is Fp16
  static_assert(telemetry::kCastTargets[0] == telemetry::CastTarget::Fp16);
  for (double s : scales) {
    const auto f = telemetry::castFractions(g, static_cast<float>(s))[fp16];
    d.rows.push_back({s, f.nonzeroLostToZero, f.overflow});
  }
  std::map<int, double> bins;
  for (float v : g)
    if (v != 0.0f && std::isfinite(v)) bins[static_cast<int>(std::floor(std::log2(std::abs(v))))] += 1;
  for (const auto& [b, n] : bins) {
    d.log2Bins.push_back(b);
    d.binCounts.push_back(n);
  }
  return d;
}

std::vector<ScalerStep> scalerWalk(const std::vector<bool>& overflows, double initScale,
                                   int growthInterval) {
  auto config = amp::scalerPreset("pytorch");
  config.initScale = initScale;
  config.growthInterval = growthInterval;
  amp::LossScaler scaler(config);
  std::vector<ScalerStep> out;
  for (std::size_t i = 0; i < overflows.size(); ++i) {
    const auto u = scaler.update(static_cast<std::int64_t>(i), overflows[i]);
    out.push_back({static_cast<std::int64_t>(i), overflows[i], u.scaleBefore, u.scaleAfter,
                   u.skipped, u.backedOff, u.grew});
  }
  return out;
}

Bf16RunDemo bf16RunDemo(int steps) {
  train::RunConfig config = presetRun("bf16-no-scaler", "bf16-mixed");
  config.epochs = 0;
  config.steps = steps;
  config.evalEvery = 0;
  train::Session session(config);
  Bf16RunDemo d;
  d.hasScaler = session.scaler() != nullptr;
  while (!session.finished()) {
    const auto& r = session.step();
    d.steps.push_back(static_cast<double>(session.stepsDone()));
    d.loss.push_back(r.loss);
    d.scale.push_back(r.lossScale);
  }
  d.skipped = session.skippedSteps();
  return d;
}

namespace {

// One short run of the underflow preset in `recipe`, logged as the live run
// writes its log, telemetry at every step.
train::RunLog loggedUnderflowRun(const char* recipe, int steps, std::vector<double>& loss,
                                 double* initialScale) {
  train::RunConfig config = presetRun("underflow", recipe);
  config.epochs = 0;
  config.steps = steps;
  config.evalEvery = 0;
  config.telemetryEvery = 1;
  train::Session session(config);
  if (initialScale != nullptr)
    *initialScale = session.scaler() != nullptr ? session.scaler()->scale() : 1.0;
  train::RunLogBuilder log;
  log.add(train::runLogHeader(session), recipe);
  while (!session.finished()) {
    const auto& r = session.step();
    loss.push_back(r.loss);
    log.add(train::runLogStep(session, r), recipe);
  }
  return log.take();
}

} // namespace

ScalerDiffDemo scalerDiffDemo(int steps) {
  ScalerDiffDemo d;
  d.steps = steps;
  const train::RunLog scaled = loggedUnderflowRun("fp16-mixed", steps, d.lossScaled, &d.initialScale);
  const train::RunLog unscaled = loggedUnderflowRun("fp16-mixed-noscale", steps, d.lossUnscaled, nullptr);
  for (int s = 0; s < steps; ++s) d.stepX.push_back(s);
  d.diff = train::diffRuns(scaled, unscaled);
  if (d.diff.differ()) {
    const auto step = d.diff.rows.front().step;
    const auto* a = scaled.frameAt(step);
    const auto* b = unscaled.frameAt(step);
    if (a != nullptr && b != nullptr) {
      for (const auto& t : a->tensors)
        if (t.cls == telemetry::TensorClass::WeightGrads && !t.scaled) {
          d.zerosScaled += t.hist.zeros;
          d.gradValues += t.hist.total;
        }
      for (const auto& t : b->tensors)
        if (t.cls == telemetry::TensorClass::WeightGrads && !t.scaled) d.zerosUnscaled += t.hist.zeros;
    }
  }
  return d;
}

std::vector<SpeedRow> speedDemo(std::int64_t size) {
  bench::MatmulBenchOptions o;
  o.squareSizes = {size};
  o.trainingShapes = false;
  o.eigen = false;
  o.warmup = 1;
  o.repetitions = 5;
  std::vector<SpeedRow> rows;
  for (const auto& r : bench::measureMatmuls(o))
    rows.push_back({std::string(dtypeName(r.dtype)), r.m, r.gflops, r.cv, r.emulated,
                    r.implementation});
  return rows;
}

} // namespace mantissa::lessons
