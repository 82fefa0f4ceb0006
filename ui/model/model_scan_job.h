// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "ui/bridge/thread_handoff.h"

#include <mantissa/inspect/model_file.h>
#include <mantissa/inspect/model_report.h>
#include <mantissa/inspect/model_scales.h>
#include <mantissa/inspect/model_scan.h>

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace mantissa::ui {

// A pairing's scales: the grid over its weight and, when the grid is ok,
// its blocks (inspect::scaleBlocks) and the scales' exponent histogram.
struct PairedScales {
  inspect::ScaleGrid grid;
  numeric::QuantizedTensor blocks;
  telemetry::ExponentHistogram histogram;
};

// Everything the Model page shows, as core computed it: the opened file, one
// TensorStats per tensor (in file order), the verdicts, the scale pairings
// and their scales (one PairedScales per pairing, in the same order).
struct ModelScan {
  QString path;
  std::shared_ptr<const inspect::ModelFile> model;
  std::vector<inspect::TensorStats> stats;
  std::vector<inspect::FormatVerdict> verdicts;
  std::vector<inspect::ScalePairing> pairings;
  std::vector<PairedScales> scales;
  // The pairing whose weight (or scale) is tensor `index`, if any has a grid.
  const PairedScales* scalesOf(std::size_t index) const {
    for (std::size_t k = 0; k < pairings.size() && k < scales.size(); ++k)
      if ((pairings[k].tensor == index || pairings[k].scale == index) && scales[k].grid.ok())
        return &scales[k];
    return nullptr;
  }
};

// Opens and scans one model file on its own thread (inspect::ModelFile::open,
// scanModel, verdicts, pairScales) and hands the result to the GUI thread.
// Exactly one of finished, failed or cancelled is emitted, on the thread that
// created the job. Destroying the job cancels the scan and joins its thread.
class ModelScanJob : public QObject {
  Q_OBJECT
public:
  explicit ModelScanJob(QString path, QObject* parent = nullptr);
  ~ModelScanJob() override;

  // Asks the scan to stop at its next slice; cancelled follows.
  void cancel() { m_cancel.store(true, std::memory_order_relaxed); }
  const QString& path() const { return m_path; }

signals:
  // At most every 100 ms while the scan reads tensor data.
  void progressed(const mantissa::inspect::ScanProgress& progress);
  void finished(std::shared_ptr<const mantissa::ui::ModelScan> scan);
  // The file could not be opened: the reader's message, naming the field or tensor.
  void failed(const QString& message);
  void cancelled();

private:
  void run();

  QString m_path;
  std::atomic<bool> m_cancel{false};
  ThreadHandoff m_handoff;  // before m_thread: joined before the handoff goes
  std::thread m_thread;
};

} // namespace mantissa::ui
