// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Everything the GUI keeps about one run, in bounded memory however long it
// trains: scalar history (telemetry::History), test evaluations, skipped
// steps, a thinned loss-scale trace, scaler events and telemetry frames
// (skipped steps, events and frames are halved in resolution when full, so
// they stay spread over the whole run; the totals stay exact). Lives on the
// GUI thread only; fed by apply() with what a mailbox drain handed over,
// including rows the mailbox coalesced (StepRow::span).

#include "ui/bridge/run_data.h"

#include <mantissa/telemetry/events.h>
#include <mantissa/telemetry/history.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace mantissa::ui {

class RunRecord {
public:
  enum Column : std::size_t { Loss, Accuracy, Lr, LossScale, StepMs, GradNorm, ColumnCount };
  static constexpr std::size_t kMaxFrames = 1024;
  static constexpr std::size_t kMaxScaleRecords = 8192;
  static constexpr std::size_t kMaxEvents = 16384;
  static constexpr std::size_t kMaxSkipped = 8192;
  static constexpr std::size_t kMaxShadowFrames = 512;

  RunRecord();

  // Folds one drain in; returns true when anything new arrived.
  bool apply(RunMailbox::Drained&& drained);
  void clear();

  const telemetry::History& history() const { return m_history; }
  std::int64_t lastStep() const { return m_lastStep; } // -1 before the first step
  const std::vector<telemetry::SeriesPoint>& testLoss() const { return m_testLoss; }
  const std::vector<telemetry::SeriesPoint>& testAccuracy() const { return m_testAccuracy; }
  // Skipped steps to mark: all of them up to kMaxSkipped, then every 2^k-th.
  const std::vector<double>& skippedSteps() const { return m_skipped; }
  std::int64_t skippedTotal() const { return m_skippedTotal; }
  std::int64_t stepsReceived() const { return m_stepsReceived; } // steps the rows covered
  std::uint64_t eventsTotal() const { return m_eventsTotal; }    // scaler events received
  const std::vector<telemetry::LossScaleRecord>& scaleRecords() const { return m_scaleRecords; }
  const std::vector<amp::ScalerEvent>& scalerEvents() const { return m_events; }
  // Recorded telemetry frames, steps increasing.
  const std::vector<std::shared_ptr<const telemetry::TelemetryFrame>>& frames() const {
    return m_frames;
  }
  const telemetry::TelemetryFrame* frameAt(std::int64_t step) const; // exact step or nullptr
  // Shadow-pass frames (train/shadow.h), steps increasing: all of them up to
  // kMaxShadowFrames, then every other one (the newest always kept).
  const std::vector<std::shared_ptr<const train::ShadowFrame>>& shadowFrames() const {
    return m_shadow;
  }
  std::int64_t shadowTotal() const { return m_shadowTotal; } // frames received
  const std::optional<WatchSample>& watch() const { return m_watch; }
  const std::optional<train::Divergence>& divergence() const { return m_divergence; }
  const std::shared_ptr<const RunSnapshot>& snapshot() const { return m_snapshot; }
  std::uint64_t droppedRows() const { return m_droppedRows; }
  std::uint64_t coalescedRows() const { return m_coalescedRows; }

private:
  void addStep(StepRow& row);
  void addSpan(StepRow& row);
  void addSkipped(std::int64_t step);
  void addEvent(const amp::ScalerEvent& event);
  void addFrame(std::shared_ptr<const telemetry::TelemetryFrame> frame);
  void addShadow(std::shared_ptr<const train::ShadowFrame> frame);
  void addScaleRecord(const telemetry::LossScaleRecord& record);

  telemetry::History m_history;
  std::int64_t m_lastStep = -1;
  std::vector<telemetry::SeriesPoint> m_testLoss;     // (steps done, test loss)
  std::vector<telemetry::SeriesPoint> m_testAccuracy; // (steps done, percent)
  std::vector<double> m_skipped;
  std::int64_t m_skippedStride = 1; // marks every m_skippedStride-th skipped step
  std::int64_t m_skippedTotal = 0;
  std::int64_t m_stepsReceived = 0;
  std::uint64_t m_eventsTotal = 0;
  std::uint64_t m_eventStride = 1;
  std::vector<telemetry::LossScaleRecord> m_scaleRecords;
  std::int64_t m_scaleStride = 1; // records kept every m_scaleStride steps besides changes
  std::vector<amp::ScalerEvent> m_events;
  std::vector<std::shared_ptr<const telemetry::TelemetryFrame>> m_frames;
  std::vector<std::shared_ptr<const train::ShadowFrame>> m_shadow;
  std::int64_t m_shadowTotal = 0;
  std::optional<WatchSample> m_watch;
  std::optional<train::Divergence> m_divergence;
  std::shared_ptr<const RunSnapshot> m_snapshot;
  std::uint64_t m_droppedRows = 0;
  std::uint64_t m_coalescedRows = 0;
};

static_assert(RunRecord::ColumnCount == kStepColumns, "StepRow::values() feeds the history");

} // namespace mantissa::ui
