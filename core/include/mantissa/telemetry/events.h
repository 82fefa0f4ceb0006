// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The loss-scale stream and the run's discrete events, in bounded memory.
//
// The scaler's own types are reused (amp/loss_scaler.h: ScalerState,
// ScalerEvent, ScalerEventKind); this file adds what the scaler does not
// know: the per-step record (state after the update, found_inf, skipped), the
// first non-finite value of a step (layer, op, forward or backward), a
// bounded log of both, and their JSONL form:
//   {"step": 12, "loss_scale": 32768, "growth_tracker": 0, "hysteresis": 1,
//    "found_inf": true, "skipped": true}
//   {"step": 12, "event": "backoff", "scale_before": 65536, "scale_after": 32768}
//   {"step": 40, "event": "non_finite", "layer": 2, "op": "matmul", "pass": "backward"}

#include <mantissa/amp/loss_scaler.h>

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>

namespace mantissa::telemetry {

struct LossScaleRecord {
  std::int64_t step = 0;
  amp::ScalerState state{}; // after this step's update
  bool foundInf = false;    // the scaled gradients held inf/NaN
  bool skipped = false;     // the optimizer step was not applied
  bool operator==(const LossScaleRecord& o) const {
    return step == o.step && state.scale == o.state.scale &&
           state.growthTracker == o.state.growthTracker &&
           state.hysteresisLeft == o.state.hysteresisLeft && foundInf == o.foundInf &&
           skipped == o.skipped;
  }
};

enum class Pass : std::uint8_t { Forward, Backward };

// The first non-finite value seen in a step.
struct NonFiniteEvent {
  std::int64_t step = 0;
  int layer = 0;
  std::string op; // "matmul", "relu", "softmax_xent", "conversion", ...
  Pass pass = Pass::Forward;
  bool operator==(const NonFiniteEvent&) const = default;
};

class EventLog {
public:
  // Keeps at most `capacity` scaler events and `capacity` non-finite events
  // (the most recent); per-kind totals stay exact. capacity >= 1.
  explicit EventLog(std::size_t capacity = 4096);

  // Once per optimizer step with what LossScaler::update() returned and its lastEvents().
  void onScalerUpdate(std::int64_t step, bool foundInf, const amp::ScalerUpdate& update,
                      std::span<const amp::ScalerEvent> events);
  // Keeps only the first event of each step.
  void onNonFinite(NonFiniteEvent event);

  const std::optional<LossScaleRecord>& lastRecord() const { return m_last; }
  const std::deque<amp::ScalerEvent>& scalerEvents() const { return m_scalerEvents; }
  const std::deque<NonFiniteEvent>& nonFiniteEvents() const { return m_nonFinite; }
  std::uint64_t total(amp::ScalerEventKind kind) const {
    return m_totals[static_cast<std::size_t>(kind)];
  }
  std::uint64_t nonFiniteTotal() const { return m_nonFiniteTotal; }
  std::uint64_t dropped() const { return m_dropped; } // events pushed out by the bound

private:
  std::size_t m_capacity;
  std::optional<LossScaleRecord> m_last;
  std::deque<amp::ScalerEvent> m_scalerEvents;
  std::deque<NonFiniteEvent> m_nonFinite;
  std::array<std::uint64_t, 4> m_totals{}; // by ScalerEventKind
  std::uint64_t m_nonFiniteTotal = 0;
  std::uint64_t m_dropped = 0;
};

nlohmann::json toJson(const LossScaleRecord& record);
nlohmann::json toJson(const amp::ScalerEvent& event);
nlohmann::json toJson(const NonFiniteEvent& event);
// Throw TelemetryJsonError (frame.h) naming the missing or malformed field.
LossScaleRecord lossScaleRecordFromJson(const nlohmann::json& json);
amp::ScalerEvent scalerEventFromJson(const nlohmann::json& json);
NonFiniteEvent nonFiniteEventFromJson(const nlohmann::json& json);

} // namespace mantissa::telemetry
