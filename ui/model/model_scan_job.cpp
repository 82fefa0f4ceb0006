// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/model/model_scan_job.h"

#include <chrono>
#include <exception>
#include <new>

namespace mantissa::ui {

ModelScanJob::ModelScanJob(QString path, QObject* parent) : QObject(parent), m_path(std::move(path)) {
  m_thread = std::thread([this] { run(); });
}

ModelScanJob::~ModelScanJob() {
  cancel();
  if (m_thread.joinable())
    m_thread.join();
}

// Worker thread. Everything it hands over goes through m_handoff: the calls
// run on the GUI thread, in posting order, or are dropped with the job.
void ModelScanJob::run() {
  auto scan = std::make_shared<ModelScan>();
  scan->path = m_path;
  try {
    scan->model = std::make_shared<const inspect::ModelFile>(
        inspect::ModelFile::open(std::filesystem::path(m_path.toStdString())));
  } catch (const std::bad_alloc&) {
    m_handoff.post([this] { emit failed(tr("%1: not enough memory to read its header").arg(m_path)); });
    return;
  } catch (const std::exception& e) {
    // Names can be hostile: the message is cut, never shown whole.
    QString message = QString::fromUtf8(e.what());
    if (message.size() > 600)
      message = message.left(600) + QStringLiteral("…");
    m_handoff.post([this, message] { emit failed(message); });
    return;
  }
  using Clock = std::chrono::steady_clock;
  auto last = Clock::now() - std::chrono::seconds(1);
  const auto progress = [this, &last](const inspect::ScanProgress& p) {
    const auto now = Clock::now();
    if (now - last < std::chrono::milliseconds(100) && p.tensorsDone < p.tensorsTotal)
      return;
    last = now;
    m_handoff.post([this, p] { emit progressed(p); });
  };
  try {
    scan->stats = inspect::scanModel(*scan->model, progress, &m_cancel);
    if (m_cancel.load(std::memory_order_relaxed)) {
      m_handoff.post([this] { emit cancelled(); });
      return;
    }
    scan->verdicts = inspect::verdicts(*scan->model, scan->stats);
    scan->pairings = inspect::pairScales(*scan->model);
    for (const inspect::ScalePairing& pairing : scan->pairings) {
      PairedScales ps;
      ps.grid = inspect::scaleGrid(*scan->model, pairing);
      if (ps.grid.ok()) {
        ps.blocks = inspect::scaleBlocks(*scan->model, pairing, ps.grid, &scan->stats[pairing.tensor], &m_cancel);
        ps.histogram = inspect::scaleHistogram(ps.grid);
      }
      scan->scales.push_back(std::move(ps));
    }
    if (m_cancel.load(std::memory_order_relaxed)) {
      m_handoff.post([this] { emit cancelled(); });
      return;
    }
  } catch (const std::exception& e) {
    const QString message = m_path + QStringLiteral(": ") + QString::fromUtf8(e.what()).left(600);
    m_handoff.post([this, message] { emit failed(message); });
    return;
  }
  std::shared_ptr<const ModelScan> done = std::move(scan);
  m_handoff.post([this, done] { emit finished(done); });
}

} // namespace mantissa::ui
