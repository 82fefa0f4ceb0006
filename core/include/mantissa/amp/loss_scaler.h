// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Loss scaling for FP16 training: the loss is multiplied by scale() before the
// backward pass, the gradients are unscaled (g *= 1/scale) and checked for
// inf/NaN in one fused pass, and update() is called once per optimizer step with
// that finding. Each preset reproduces one library's rules exactly, including
// its counting conventions (see loss_scaler.cpp for the source of each rule):
//
//   preset     init   growth              backoff          hysteresis  min  max    scale kept in
//   pytorch    2^16   x2 / 2000 finite    x0.5, skip       -           -    -      float32 (no growth to inf)
//   keras      2^15   x2 / 2000 finite    x0.5, skip       -           -    -      float32
//   apex       2^16   x2 / 2000 finite    x0.5, skip       -           -    2^24   double
//   deepspeed  2^16   x2 / 1000 stable    x0.5, skip       2 (delayed)  1    -      double
//   megatron   2^32   x2 / 1000 finite    x0.5, skip       2            1    -      float32
//   static:S   S      never               never, skip      -           -    -
//   none       1      never               never, no skip   -           -    -

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace mantissa {
class RunStateVisitor;
}

namespace mantissa::amp {

// How consecutive finite steps and overflows are counted.
enum class ScalerRule {
  GrowthTracker, // PyTorch, Keras, Apex: tracker of consecutive finite steps, reset on overflow
  DeepSpeed,     // iterations since the last overflow; delayed_shift hysteresis
  Megatron,      // growth tracker + hysteresis tracker refilled only on growth
};

struct ScalerConfig {
  std::string preset;          // "pytorch", "keras", "apex", "deepspeed", "megatron", "static", "none"
  bool dynamic = true;         // false: the scale never changes
  double initScale = 65536.0;
  double growthFactor = 2.0;
  double backoffFactor = 0.5;
  int growthInterval = 2000;   // consecutive finite steps before growth (DeepSpeed: scale_window)
  int hysteresis = 1;          // overflows tolerated before backing off (DeepSpeed/Megatron)
  std::optional<double> minScale, maxScale;
  ScalerRule rule = ScalerRule::GrowthTracker;
  bool consecutiveHysteresis = false; // DeepSpeed: refill hysteresis on every finite step
  bool raiseAtMinScale = false;       // DeepSpeed: an overflow at min_scale ends the run
  bool float32Scale = false;          // scale stored in a float32 tensor: rounded after each update
  bool growOnlyIfFinite = false;      // PyTorch: no growth when scale*growth overflows float32
  bool skipOnOverflow = true;         // skip the optimizer step when grads are non-finite
};

// "pytorch", "keras", "apex", "deepspeed", "megatron", "static:1024", "none".
// Throws std::invalid_argument naming the spec and the valid choices.
ScalerConfig scalerPreset(std::string_view spec);

// One line for the UI, the CLI and a run log's header, e.g.
//   "pytorch: init 2^16, x2 after 2000 finite steps, x0.5 on overflow"
//   "deepspeed: init 2^16, x2 after 1000 finite steps, x0.5 on overflow (after 2 overflows), min 1"
//   "static loss scale 1024, overflowing steps skipped"
//   "no loss scaling"
// Scales print as formatScale() does.
std::string describeScaler(const ScalerConfig& config);

// A loss scale as people write it: an exact power of two from 2^10 up (or
// 2^-10 down) as "2^N" ("2^32", "2^-14"), anything else in at most 10
// significant digits ("1", "512", "3000").
std::string formatScale(double scale);

enum class ScalerEventKind { Overflow, Backoff, Growth, SkippedStep };

// "overflow", "backoff", "growth", "skipped"
const char* toString(ScalerEventKind kind);

struct ScalerEvent {
  std::int64_t step;
  ScalerEventKind kind;
  double scaleBefore;
  double scaleAfter;
};

struct ScalerState {
  double scale;
  int growthTracker;  // finite steps counted toward the next growth (DeepSpeed: stable % window)
  int hysteresisLeft; // overflows still tolerated before a backoff (Megatron may go below 0)
};

struct ScalerUpdate {
  bool skipped;        // the optimizer step must not be applied
  bool backedOff;      // scale decreased
  bool grew;           // scale increased
  double scaleBefore;
  double scaleAfter;
  ScalerState state;
  // Non-empty: the library aborts the run here, in its own words (DeepSpeed:
  // an overflow with the scale already at min_scale). update() must not be
  // called again; the trainer ends the run.
  std::string_view stopReason;
};

class LossScaler {
public:
  explicit LossScaler(ScalerConfig config); // throws std::invalid_argument on bad values

  double scale() const { return m_scale; } // multiply the loss by this before backward
  ScalerState state() const;

  // Once per optimizer step, with the finiteness of the scaled gradients.
  ScalerUpdate update(std::int64_t step, bool foundInf);

  // The events of the last update() (Overflow, Backoff, Growth, SkippedStep), in that order.
  std::span<const ScalerEvent> lastEvents() const { return {m_events.data(), m_eventCount}; }

  // Fused unscale + finiteness check over a gradient buffer: g *= invScale (skipped
  // when invScale == 1); returns true if any input value was inf or NaN. As in
  // PyTorch's kernel, every value is multiplied even after a non-finite one is seen.
  static bool unscaleAndCheck(std::span<float> grads, float invScale);

  // 1/scale computed in double and rounded once to float, as GradScaler does.
  float invScale() const { return static_cast<float>(1.0 / m_scale); }

  const ScalerConfig& config() const { return m_config; }
  // The scale, growth tracker, hysteresis and iteration counters (tensor/run_state.h).
  void visitState(RunStateVisitor& v);

private:
  double store(double v) const; // rounds to float32 when the library keeps the scale there
  void updateGrowthTracker(bool foundInf, ScalerUpdate& u);
  void updateDeepSpeed(bool foundInf, ScalerUpdate& u);
  void updateMegatron(bool foundInf, ScalerUpdate& u);

  ScalerConfig m_config;
  double m_scale;
  int m_growthTracker = 0;
  int m_hysteresisLeft;
  std::int64_t m_iter = 0;              // DeepSpeed cur_iter
  std::int64_t m_lastOverflowIter = -1; // DeepSpeed last_overflow_iter
  std::array<ScalerEvent, 3> m_events{};
  std::size_t m_eventCount = 0;
};

} // namespace mantissa::amp
