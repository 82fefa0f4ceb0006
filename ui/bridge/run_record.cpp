// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/bridge/run_record.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>

namespace mantissa::ui {

namespace {

std::vector<std::string> columnNames() {
  return {"loss", "accuracy", "lr", "loss_scale", "step_ms", "grad_norm"};
}

bool isChange(const telemetry::LossScaleRecord& r) { return r.foundInf || r.skipped; }

} // namespace

RunRecord::RunRecord() : m_history(columnNames()) {}

void RunRecord::clear() { *this = RunRecord(); }

bool RunRecord::apply(RunMailbox::Drained&& drained) {
  m_droppedRows += drained.droppedRows;
  m_coalescedRows += drained.coalescedRows;
  bool any = !drained.rows.empty() || drained.snapshot != nullptr;
  for (StepRow& row : drained.rows) {
    if (row.kind == StepRow::Kind::Eval) {
      m_testLoss.push_back({double(row.step), row.loss});
      m_testAccuracy.push_back({double(row.step), 100.0 * row.accuracy});
      continue;
    }
    if (row.span)
      addSpan(row);
    else
      addStep(row);
  }
  if (drained.snapshot)
    m_snapshot = std::move(drained.snapshot);
  return any;
}

void RunRecord::addStep(StepRow& row) {
  m_lastStep = row.step;
  ++m_stepsReceived;
  m_history.append(row.step, row.values());
  if (row.skipped)
    addSkipped(row.step);
  addScaleRecord({row.step, row.scaler, row.foundInf, row.skipped});
  for (int i = 0; i < row.eventCount; ++i)
    addEvent(row.events[std::size_t(i)]);
  if (row.frame)
    addFrame(std::move(row.frame));
  if (row.shadow)
    addShadow(std::move(row.shadow));
  if (row.watch)
    m_watch = row.watch;
  if (row.divergence && !m_divergence)
    m_divergence = std::move(row.divergence);
}

// A row the mailbox coalesced: the history gets the steps of the lowest and
// highest loss (each carrying every column's minimum / maximum over the span)
// and the last step, so the decimated curves keep the span's extremes within
// its few steps; skipped steps, events and frames are all replayed.
void RunRecord::addSpan(StepRow& row) {
  StepSpan& s = *row.span;
  m_lastStep = row.step;
  m_stepsReceived += s.steps;
  struct Point {
    std::int64_t step;
    StepValues values;
  };
  std::array<Point, 3> points{Point{s.lowStep, s.low}, Point{s.highStep, s.high},
                              Point{row.step, row.values()}};
  std::sort(points.begin(), points.end(),
            [](const Point& a, const Point& b) { return a.step < b.step; });
  for (std::size_t i = 0; i < points.size(); ++i)
    if (i == 0 || points[i].step != points[i - 1].step)
      m_history.append(points[i].step, points[i].values);
  for (const auto& [first, last] : s.skipped)
    for (std::int64_t step = first; step <= last; ++step)
      addSkipped(step);
  // The scale trace: where the span starts, after each event, and where it ends.
  addScaleRecord({s.firstStep, s.firstScaler, false, false});
  for (const amp::ScalerEvent& e : s.events) {
    const bool inf = e.kind == amp::ScalerEventKind::Overflow;
    const bool skip = e.kind == amp::ScalerEventKind::SkippedStep;
    addScaleRecord({e.step, {e.scaleAfter, 0, row.scaler.hysteresisLeft}, inf, skip});
    addEvent(e);
  }
  addScaleRecord({row.step, row.scaler, row.foundInf, row.skipped});
  for (auto& f : s.frames)
    addFrame(std::move(f));
  for (auto& f : s.shadow)
    addShadow(std::move(f));
  if (row.watch)
    m_watch = row.watch;
  if (row.divergence && !m_divergence)
    m_divergence = std::move(row.divergence);
}

void RunRecord::addSkipped(std::int64_t step) {
  if (m_skippedTotal++ % m_skippedStride != 0)
    return;
  if (m_skipped.size() == kMaxSkipped) {
    // Keep every other mark: the marks stay spread over the whole run.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < m_skipped.size(); i += 2)
      m_skipped[kept++] = m_skipped[i];
    m_skipped.resize(kept);
    m_skippedStride *= 2;
    if ((m_skippedTotal - 1) % m_skippedStride != 0)
      return;
  }
  m_skipped.push_back(double(step));
}

void RunRecord::addEvent(const amp::ScalerEvent& event) {
  if (m_eventsTotal++ % m_eventStride != 0)
    return;
  if (m_events.size() == kMaxEvents) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < m_events.size(); i += 2)
      m_events[kept++] = m_events[i];
    m_events.resize(kept);
    m_eventStride *= 2;
    if ((m_eventsTotal - 1) % m_eventStride != 0)
      return;
  }
  m_events.push_back(event);
}

void RunRecord::addFrame(std::shared_ptr<const telemetry::TelemetryFrame> frame) {
  if (m_frames.size() == kMaxFrames) {
    // Keep every other frame: half the resolution over the whole run.
    std::vector<std::shared_ptr<const telemetry::TelemetryFrame>> kept;
    kept.reserve(kMaxFrames);
    for (std::size_t i = 0; i < m_frames.size(); i += 2)
      kept.push_back(std::move(m_frames[i]));
    m_frames = std::move(kept);
  }
  m_frames.push_back(std::move(frame));
}

// Keeps a record where the scale changed or an event happened, and otherwise
// one every m_scaleStride steps; when full, the stride doubles and the
// in-between records go (the changes stay).
void RunRecord::addScaleRecord(const telemetry::LossScaleRecord& record) {
  const bool changed = m_scaleRecords.empty() ||
                       m_scaleRecords.back().state.scale != record.state.scale || isChange(record);
  if (!changed && record.step % m_scaleStride != 0)
    return;
  if (m_scaleRecords.size() >= kMaxScaleRecords) {
    m_scaleStride *= 2;
    std::vector<telemetry::LossScaleRecord> kept;
    kept.reserve(kMaxScaleRecords);
    for (std::size_t i = 0; i < m_scaleRecords.size(); ++i) {
      const auto& r = m_scaleRecords[i];
      const bool scaleMoved = i == 0 || m_scaleRecords[i - 1].state.scale != r.state.scale;
      if (scaleMoved || isChange(r) || r.step % m_scaleStride == 0)
        kept.push_back(r);
    }
    if (kept.size() >= kMaxScaleRecords) // changes every step: keep the recent three quarters
      kept.erase(kept.begin(), kept.begin() + std::ptrdiff_t(kept.size() / 4));
    m_scaleRecords = std::move(kept);
  }
  m_scaleRecords.push_back(record);
}

void RunRecord::addShadow(std::shared_ptr<const train::ShadowFrame> frame) {
  ++m_shadowTotal;
  if (!m_shadow.empty() && frame->step <= m_shadow.back()->step)
    return; // a step already recorded (a followed log read again)
  if (m_shadow.size() == kMaxShadowFrames) {
    std::vector<std::shared_ptr<const train::ShadowFrame>> kept;
    kept.reserve(kMaxShadowFrames);
    for (std::size_t i = 0; i < m_shadow.size(); i += 2)
      kept.push_back(std::move(m_shadow[i]));
    m_shadow = std::move(kept);
  }
  m_shadow.push_back(std::move(frame));
}

const telemetry::TelemetryFrame* RunRecord::frameAt(std::int64_t step) const {
  auto it = std::lower_bound(m_frames.begin(), m_frames.end(), step,
                             [](const auto& f, std::int64_t s) { return f->step < s; });
  return it != m_frames.end() && (*it)->step == step ? it->get() : nullptr;
}

} // namespace mantissa::ui
