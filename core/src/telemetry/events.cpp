// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/telemetry/events.h>
#include <mantissa/telemetry/frame.h>

#include <nlohmann/json.hpp>

#include <cstring>
#include <stdexcept>

namespace mantissa::telemetry {
namespace {

using nlohmann::json;
constexpr std::array kKinds{amp::ScalerEventKind::Overflow, amp::ScalerEventKind::Backoff,
                            amp::ScalerEventKind::Growth, amp::ScalerEventKind::SkippedStep};

template <class T> T get(const json& j, const char* key, const char* what) {
  const auto it = j.is_object() ? j.find(key) : j.end();
  if (it == j.end())
    throw TelemetryJsonError(std::string(what) + ": missing \"" + key + "\"");
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    throw TelemetryJsonError(std::string(what) + ": \"" + key +
                             "\" has the wrong type: " + it->dump());
  }
}

} // namespace

EventLog::EventLog(std::size_t capacity) : m_capacity(capacity) {
  if (capacity == 0)
    throw std::invalid_argument("EventLog: capacity must be at least 1");
}

void EventLog::onScalerUpdate(std::int64_t step, bool foundInf, const amp::ScalerUpdate& update,
                              std::span<const amp::ScalerEvent> events) {
  m_last = LossScaleRecord{step, update.state, foundInf, update.skipped};
  for (const auto& e : events) {
    ++m_totals[static_cast<std::size_t>(e.kind)];
    m_scalerEvents.push_back(e);
    if (m_scalerEvents.size() > m_capacity) {
      m_scalerEvents.pop_front();
      ++m_dropped;
    }
  }
}

void EventLog::onNonFinite(NonFiniteEvent event) {
  if (!m_nonFinite.empty() && m_nonFinite.back().step == event.step)
    return; // only the first of a step
  ++m_nonFiniteTotal;
  m_nonFinite.push_back(std::move(event));
  if (m_nonFinite.size() > m_capacity) {
    m_nonFinite.pop_front();
    ++m_dropped;
  }
}

json toJson(const LossScaleRecord& r) {
  return {{"step", r.step},
          {"loss_scale", r.state.scale},
          {"growth_tracker", r.state.growthTracker},
          {"hysteresis", r.state.hysteresisLeft},
          {"found_inf", r.foundInf},
          {"skipped", r.skipped}};
}

json toJson(const amp::ScalerEvent& e) {
  return {{"step", e.step},
          {"event", amp::toString(e.kind)},
          {"scale_before", e.scaleBefore},
          {"scale_after", e.scaleAfter}};
}

json toJson(const NonFiniteEvent& e) {
  return {{"step", e.step},
          {"event", "non_finite"},
          {"layer", e.layer},
          {"op", e.op},
          {"pass", e.pass == Pass::Forward ? "forward" : "backward"}};
}

LossScaleRecord lossScaleRecordFromJson(const json& j) {
  constexpr const char* what = "loss-scale record";
  LossScaleRecord r;
  r.step = get<std::int64_t>(j, "step", what);
  r.state.scale = get<double>(j, "loss_scale", what);
  r.state.growthTracker = get<int>(j, "growth_tracker", what);
  r.state.hysteresisLeft = get<int>(j, "hysteresis", what);
  r.foundInf = get<bool>(j, "found_inf", what);
  r.skipped = get<bool>(j, "skipped", what);
  return r;
}

amp::ScalerEvent scalerEventFromJson(const json& j) {
  constexpr const char* what = "loss-scale event";
  const auto name = get<std::string>(j, "event", what);
  for (auto kind : kKinds) {
    if (name == amp::toString(kind))
      return {get<std::int64_t>(j, "step", what), kind, get<double>(j, "scale_before", what),
              get<double>(j, "scale_after", what)};
  }
  throw TelemetryJsonError(std::string(what) + ": unknown event \"" + name +
                           "\" (overflow, backoff, growth, skipped)");
}

NonFiniteEvent nonFiniteEventFromJson(const json& j) {
  constexpr const char* what = "non-finite event";
  NonFiniteEvent e;
  e.step = get<std::int64_t>(j, "step", what);
  e.layer = get<int>(j, "layer", what);
  e.op = get<std::string>(j, "op", what);
  const auto pass = get<std::string>(j, "pass", what);
  if (pass != "forward" && pass != "backward")
    throw TelemetryJsonError(
        std::string(what) + ": \"pass\" must be \"forward\" or \"backward\", got \"" + pass + "\"");
  e.pass = pass == "forward" ? Pass::Forward : Pass::Backward;
  return e;
}

} // namespace mantissa::telemetry
