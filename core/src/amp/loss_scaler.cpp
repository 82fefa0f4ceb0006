// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/amp/loss_scaler.h>
#include <mantissa/kernels/elementwise.h>
#include <mantissa/tensor/run_state.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace mantissa::amp {
namespace {

constexpr const char* kPresetList = "pytorch, keras, apex, deepspeed, megatron, static:S, none";

// torch/amp/grad_scaler.py GradScaler defaults (init_scale=2.**16, growth_factor=2.0,
// backoff_factor=0.5, growth_interval=2000), update rule from
// aten/src/ATen/native/cpu/AmpGradScalerKernels.cpp _amp_update_scale_cpu_kernel:
// the scale is a float32 tensor; "successful = tracker + 1; if successful ==
// growth_interval" grows unless the float32 result is inf; an overflow multiplies
// by backoff_factor and zeroes the tracker; step() is skipped when found_inf.
ScalerConfig pytorch() {
  ScalerConfig c;
  c.preset = "pytorch";
  c.float32Scale = true;
  c.growOnlyIfFinite = true;
  return c;
}

// keras/src/optimizers/loss_scale_optimizer.py LossScaleOptimizer (Keras 3):
// initial_scale=2.0**15, dynamic_growth_steps=2000; float32 dynamic_scale. Finite:
// "if step_counter == dynamic_growth_steps - 1: counter = 0, scale *= 2 else
// counter += 1" (growth on the 2000th consecutive finite step, as PyTorch);
// non-finite: counter = 0, scale /= 2, the inner optimizer is not applied. No
// minimum, no maximum, no guard against float32 overflow. (The stateful path
// unscales by the scale before the doubling; we unscale before update() too.)
ScalerConfig keras() {
  ScalerConfig c;
  c.preset = "keras";
  c.initScale = 32768.0;
  c.float32Scale = true;
  return c;
}

// apex/amp/scaler.py LossScaler(init_scale=2.**16, scale_factor=2., scale_window=2000,
// min_loss_scale=None, max_loss_scale=2.**24); update_scale(): overflow ->
// should_skip, scale /= 2 (max with min_loss_scale when set), _unskipped = 0;
// else _unskipped += 1 and at scale_window: scale = min(max_loss_scale, scale*2),
// _unskipped = 0. Python floats (double).
ScalerConfig apex() {
  ScalerConfig c;
  c.preset = "apex";
  c.maxScale = 16777216.0;
  return c;
}

// deepspeed/runtime/fp16/loss_scaler.py DynamicLossScaler.update_scale() with the
// fp16 config defaults of deepspeed/runtime/constants.py (initial_scale_power 16,
// loss_scale_window 1000, hysteresis 2 = delayed_shift, consecutive_hysteresis
// false, min_loss_scale 1) and raise_error_at_min_scale=True. See updateDeepSpeed().
ScalerConfig deepspeed() {
  ScalerConfig c;
  c.preset = "deepspeed";
  c.rule = ScalerRule::DeepSpeed;
  c.growthInterval = 1000;
  c.hysteresis = 2;
  c.minScale = 1.0;
  c.raiseAtMinScale = true;
  return c;
}

// megatron/core/optimizer/grad_scaler.py DynamicGradScaler as built by
// megatron/core/optimizer/__init__.py (growth_factor=2.0, backoff_factor=0.5) with
// OptimizerConfig defaults initial_loss_scale=2**32, min_loss_scale=1.0,
// loss_scale_window=1000, hysteresis=2; float32 scale tensor. The optimizer skips
// every step with found_inf. See updateMegatron().
ScalerConfig megatron() {
  ScalerConfig c;
  c.preset = "megatron";
  c.rule = ScalerRule::Megatron;
  c.initScale = 4294967296.0;
  c.growthInterval = 1000;
  c.hysteresis = 2;
  c.minScale = 1.0;
  c.float32Scale = true;
  return c;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

} // namespace

std::string formatScale(double scale) {
  int exponent = 0;
  if (std::isfinite(scale) && scale > 0 && std::frexp(scale, &exponent) == 0.5 &&
      std::abs(exponent - 1) >= 10)
    return "2^" + std::to_string(exponent - 1);
  return number(scale);
}

ScalerConfig scalerPreset(std::string_view spec) {
  if (spec == "pytorch")
    return pytorch();
  if (spec == "keras")
    return keras();
  if (spec == "apex")
    return apex();
  if (spec == "deepspeed")
    return deepspeed();
  if (spec == "megatron")
    return megatron();
  if (spec == "none") {
    // No scaling: scale 1, and non-finite gradients are the trainer's divergence to report.
    ScalerConfig c;
    c.preset = "none";
    c.dynamic = false;
    c.initScale = 1.0;
    c.skipOnOverflow = false;
    return c;
  }
  if (spec.rfind("static", 0) == 0) {
    // Megatron's ConstantGradScaler: the scale never changes, and the optimizer
    // (MixedPrecisionOptimizer.step) still skips steps whose gradients are non-finite.
    const std::string_view value = spec.substr(6);
    double s = 0;
    const bool hasColon = !value.empty() && value.front() == ':';
    const char* first = value.data() + (hasColon ? 1 : 0);
    const char* last = value.data() + value.size();
    const auto [end, ec] = std::from_chars(first, last, s);
    if (!hasColon || ec != std::errc() || end != last || !std::isfinite(s) || s <= 0)
      throw std::invalid_argument("scaler '" + std::string(spec) +
                                  "': static scaling needs a positive factor, e.g. static:1024");
    ScalerConfig c;
    c.preset = "static";
    c.dynamic = false;
    c.initScale = s;
    return c;
  }
  throw std::invalid_argument("unknown scaler '" + std::string(spec) + "'; choose one of " +
                              kPresetList);
}

std::string describeScaler(const ScalerConfig& c) {
  if (!c.dynamic)
    return c.preset == "none" ? "no loss scaling"
                              : "static loss scale " + formatScale(c.initScale) + ", overflowing steps skipped";
  std::string s = c.preset + ": init " + formatScale(c.initScale) + ", x" + number(c.growthFactor) +
                  " after " + std::to_string(c.growthInterval) + " finite steps, x" +
                  number(c.backoffFactor) + " on overflow";
  if (c.hysteresis > 1)
    s += " (after " + std::to_string(c.hysteresis) + " overflows)";
  if (c.minScale)
    s += ", min " + formatScale(*c.minScale);
  if (c.maxScale)
    s += ", max " + formatScale(*c.maxScale);
  return s;
}

const char* toString(ScalerEventKind kind) {
  switch (kind) {
  case ScalerEventKind::Overflow: return "overflow";
  case ScalerEventKind::Backoff: return "backoff";
  case ScalerEventKind::Growth: return "growth";
  case ScalerEventKind::SkippedStep: return "skipped";
  }
  return "?";
}

void LossScaler::visitState(RunStateVisitor& v) {
  v.value("scale", m_scale);
  v.value("growth_tracker", m_growthTracker);
  v.value("hysteresis_left", m_hysteresisLeft);
  v.value("iteration", m_iter);
  v.value("last_overflow_iteration", m_lastOverflowIter);
  if (!std::isfinite(m_scale) || m_scale <= 0)
    throw std::invalid_argument("scaler scale: " + std::to_string(m_scale) + " is not a positive finite scale");
  if (m_growthTracker < 0 || m_hysteresisLeft < 0 || m_iter < 0)
    throw std::invalid_argument("scaler: a negative counter");
}

LossScaler::LossScaler(ScalerConfig config) : m_config(std::move(config)) {
  const auto& c = m_config;
  if (!std::isfinite(c.initScale) || c.initScale <= 0)
    throw std::invalid_argument("loss scaler: initial scale must be positive and finite");
  if (c.dynamic) {
    if (!(c.growthFactor > 1.0) || !std::isfinite(c.growthFactor))
      throw std::invalid_argument("loss scaler: growth factor must be > 1");
    if (!(c.backoffFactor > 0.0 && c.backoffFactor < 1.0))
      throw std::invalid_argument("loss scaler: backoff factor must be in (0, 1)");
    if (c.growthInterval < 1 || c.hysteresis < 1)
      throw std::invalid_argument("loss scaler: growth interval and hysteresis must be >= 1");
    if (c.minScale && c.maxScale && *c.minScale > *c.maxScale)
      throw std::invalid_argument("loss scaler: min scale above max scale");
  }
  m_scale = store(c.initScale);
  m_hysteresisLeft = c.hysteresis;
}

double LossScaler::store(double v) const {
  return m_config.float32Scale ? static_cast<double>(static_cast<float>(v)) : v;
}

ScalerState LossScaler::state() const {
  return {m_scale, m_growthTracker, m_hysteresisLeft};
}

ScalerUpdate LossScaler::update(std::int64_t step, bool foundInf) {
  ScalerUpdate u{};
  u.scaleBefore = m_scale;
  u.skipped = foundInf && m_config.skipOnOverflow;
  if (m_config.dynamic) {
    switch (m_config.rule) {
    case ScalerRule::GrowthTracker: updateGrowthTracker(foundInf, u); break;
    case ScalerRule::DeepSpeed: updateDeepSpeed(foundInf, u); break;
    case ScalerRule::Megatron: updateMegatron(foundInf, u); break;
    }
  }
  u.scaleAfter = m_scale;
  u.backedOff = u.scaleAfter < u.scaleBefore;
  u.grew = u.scaleAfter > u.scaleBefore;
  u.state = state();

  m_eventCount = 0;
  const auto add = [&](ScalerEventKind k) {
    m_events[m_eventCount++] = {step, k, u.scaleBefore, u.scaleAfter};
  };
  if (foundInf)
    add(ScalerEventKind::Overflow);
  if (u.backedOff)
    add(ScalerEventKind::Backoff);
  if (u.grew)
    add(ScalerEventKind::Growth);
  if (u.skipped)
    add(ScalerEventKind::SkippedStep);
  return u;
}

// PyTorch (_amp_update_scale_cpu_kernel), Keras and Apex: identical counting,
// differing in storage (float32 or double), the growth guard and the clamps.
void LossScaler::updateGrowthTracker(bool foundInf, ScalerUpdate&) {
  const auto& c = m_config;
  if (foundInf) {
    double next = store(m_scale * c.backoffFactor);
    if (c.minScale)
      next = std::max(*c.minScale, next);
    m_scale = next;
    m_growthTracker = 0;
    return;
  }
  const int successful = m_growthTracker + 1;
  if (successful == c.growthInterval) {
    double next = store(m_scale * c.growthFactor);
    if (c.maxScale)
      next = std::min(*c.maxScale, next);
    if (!c.growOnlyIfFinite || std::isfinite(next))
      m_scale = next;
    m_growthTracker = 0;
  } else {
    m_growthTracker = successful;
  }
}

// DeepSpeed DynamicLossScaler.update_scale(overflow), line by line:
//   overflow: if delayed_shift == 1 or cur_hysteresis == 1:
//               if cur_scale == min_scale and raise_error_at_min_scale: raise
//               else cur_scale = max(cur_scale / scale_factor, min_scale)
//             else: cur_hysteresis -= 1
//             last_overflow_iter = cur_iter
//   finite:   if consecutive_hysteresis: cur_hysteresis = delayed_shift
//             stable_interval = cur_iter - last_overflow_iter - 1
//             if stable_interval > 0 and stable_interval % scale_window == 0:
//               if not consecutive_hysteresis: cur_hysteresis = delayed_shift
//               cur_scale *= scale_factor
//   cur_iter += 1
// So the first growth comes on the 1001st finite step after an overflow (or
// from the start), later ones every 1000; cur_hysteresis is not refilled by a
// backoff, only by growth (or any finite step with consecutive_hysteresis).
void LossScaler::updateDeepSpeed(bool foundInf, ScalerUpdate& u) {
  const auto& c = m_config;
  if (foundInf) {
    if (c.hysteresis == 1 || m_hysteresisLeft == 1) {
      if (c.raiseAtMinScale && c.minScale && m_scale == *c.minScale) {
        // DeepSpeed raises here, before touching last_overflow_iter or
        // cur_iter: the state stays as it was and the run is over.
        u.stopReason =
            "Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.";
        return;
      }
      m_scale = std::max(m_scale / c.growthFactor, c.minScale.value_or(0.0));
    } else {
      --m_hysteresisLeft;
    }
    m_lastOverflowIter = m_iter;
    m_growthTracker = 0;
  } else {
    if (c.consecutiveHysteresis)
      m_hysteresisLeft = c.hysteresis;
    const std::int64_t stable = m_iter - m_lastOverflowIter - 1;
    if (stable > 0 && stable % c.growthInterval == 0) {
      if (!c.consecutiveHysteresis)
        m_hysteresisLeft = c.hysteresis;
      m_scale *= c.growthFactor;
    }
    m_growthTracker = static_cast<int>(stable % c.growthInterval);
  }
  ++m_iter;
}

// Megatron DynamicGradScaler.update(found_inf):
//   found_inf: growth_tracker = 0; hysteresis_tracker -= 1;
//              if hysteresis_tracker <= 0: scale = max(scale * backoff, min_scale)
//   else:      growth_tracker += 1; if growth_tracker == growth_interval:
//              growth_tracker = 0; hysteresis_tracker = hysteresis; scale *= growth
// Once the hysteresis is spent every further overflow backs off, until a growth.
void LossScaler::updateMegatron(bool foundInf, ScalerUpdate&) {
  const auto& c = m_config;
  if (foundInf) {
    m_growthTracker = 0;
    if (m_hysteresisLeft > INT_MIN)
      --m_hysteresisLeft;
    if (m_hysteresisLeft <= 0)
      m_scale = std::max(store(m_scale * c.backoffFactor), c.minScale.value_or(0.0));
  } else {
    ++m_growthTracker;
    if (m_growthTracker == c.growthInterval) {
      m_growthTracker = 0;
      m_hysteresisLeft = c.hysteresis;
      m_scale = store(m_scale * c.growthFactor);
    }
  }
}

namespace {

// Loops built for AVX-512, AVX2 and baseline x86-64; the loader picks the one
// the CPU runs (function multiversioning, dispatched on CPUID).
// Not under ASan or TSan: the loader runs the clones' resolver before the
// sanitizer's runtime is set up (under TSan the instrumented resolver crashes).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) &&                            \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define MANTISSA_KERNEL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define MANTISSA_KERNEL_CLONES
#endif

// Exponent all ones <=> inf or NaN; an integer test the compiler vectorises
// (std::isfinite is not, without -ffast-math, which would also break it).
MANTISSA_KERNEL_CLONES bool anyNonFinite(const float* g, std::size_t n) {
  std::uint32_t nonFinite = 0;
  for (std::size_t i = 0; i < n; ++i)
    nonFinite |= (std::bit_cast<std::uint32_t>(g[i]) & 0x7F800000u) == 0x7F800000u;
  return nonFinite != 0;
}

MANTISSA_KERNEL_CLONES bool scaleCheckingFinite(float* g, std::size_t n, float invScale) {
  std::uint32_t nonFinite = 0;
  for (std::size_t i = 0; i < n; ++i) {
    nonFinite |= (std::bit_cast<std::uint32_t>(g[i]) & 0x7F800000u) == 0x7F800000u;
    g[i] *= invScale;
  }
  return nonFinite != 0;
}

} // namespace

// Large spans are cut into pieces for the OpenMP team: each value is tested
// and scaled by itself, so the result does not depend on the cut.
bool LossScaler::unscaleAndCheck(std::span<float> grads, float invScale) {
  bool found = false;
  kernels::forChunks(grads.size(), [&](std::size_t b, std::size_t e) {
    const bool here = invScale == 1.0f ? anyNonFinite(grads.data() + b, e - b)
                                       : scaleCheckingFinite(grads.data() + b, e - b, invScale);
    if (here) {
#pragma omp atomic write
      found = true;
    }
  });
  return found;
}

} // namespace mantissa::amp
