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
  bool any = !drained.rows.empty() || drained.snapshot != nullptr;
  for (StepRow& row : drained.rows) {
    if (row.kind == StepRow::Kind::Eval) {
      m_testLoss.push_back({double(row.step), row.loss});
      m_testAccuracy.push_back({double(row.step), 100.0 * row.accuracy});
      continue;
    }
    addStep(row);
  }
  if (drained.snapshot)
    m_snapshot = std::move(drained.snapshot);
  return any;
}

void RunRecord::addStep(StepRow& row) {
  m_lastStep = row.step;
  const std::array<double, ColumnCount> values{row.loss,      100.0 * row.accuracy, row.lr,
                                               row.lossScale, row.stepMs,           row.gradNorm};
  m_history.append(row.step, values);
  if (row.skipped) {
    ++m_skippedTotal;
    if (m_skipped.size() < kMaxSkipped)
      m_skipped.push_back(double(row.step));
  }
  addScaleRecord(row);
  for (int i = 0; i < row.eventCount; ++i) {
    if (m_events.size() == kMaxEvents)
      m_events.erase(m_events.begin(), m_events.begin() + kMaxEvents / 4);
    m_events.push_back(row.events[std::size_t(i)]);
  }
  if (row.frame) {
    if (m_frames.size() == kMaxFrames) {
      // Keep every other frame: half the resolution over the whole run.
      std::vector<std::shared_ptr<const telemetry::TelemetryFrame>> kept;
      kept.reserve(kMaxFrames);
      for (std::size_t i = 0; i < m_frames.size(); i += 2)
        kept.push_back(std::move(m_frames[i]));
      m_frames = std::move(kept);
    }
    m_frames.push_back(std::move(row.frame));
  }
  if (row.watch)
    m_watch = row.watch;
  if (row.divergence && !m_divergence)
    m_divergence = std::move(row.divergence);
}

// Keeps a record where the scale changed or an event happened, and otherwise
// one every m_scaleStride steps; when full, the stride doubles and the
// in-between records go (the changes stay).
void RunRecord::addScaleRecord(const StepRow& row) {
  const telemetry::LossScaleRecord record{row.step, row.scaler, row.foundInf, row.skipped};
  const bool changed = m_scaleRecords.empty() ||
                       m_scaleRecords.back().state.scale != row.scaler.scale || isChange(record);
  if (!changed && row.step % m_scaleStride != 0)
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

const telemetry::TelemetryFrame* RunRecord::frameAt(std::int64_t step) const {
  auto it = std::lower_bound(m_frames.begin(), m_frames.end(), step,
                             [](const auto& f, std::int64_t s) { return f->step < s; });
  return it != m_frames.end() && (*it)->step == step ? it->get() : nullptr;
}

} // namespace mantissa::ui
