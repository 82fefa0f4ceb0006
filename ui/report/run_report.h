// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The one-click report of a run: configuration, machine and ISA, the
// op-precision table, the summary and speed figures, then the loss and
// accuracy curves, the loss-scale trace with its events and the
// weight-gradient histograms at chosen steps. Written as a multi-page vector
// PDF (QPdfWriter) or one HTML file with the charts embedded as SVG. Built
// from a RunLog only, so a report from a saved log equals one made live from
// the same run (the HTML is byte-identical; the PDF differs only in its
// creation date).

#include "ui/report/run_charts.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <vector>

namespace mantissa::ui {

// A report draws at most this many histogram charts (layers x steps, layer by
// layer from layer 0), however many layers a log's frames name.
inline constexpr std::size_t kMaxReportHistograms = 96;
// `mantissa-cli report --steps` takes at most this many steps.
inline constexpr std::size_t kMaxReportSteps = 16;

struct RunReportOptions {
  std::vector<std::int64_t> histogramSteps; // empty: defaultHistogramSteps()
  bool scaledHistograms = true;             // see RunChartSpec::scaled
};

// One table of the report's text part.
struct ReportTable {
  QString heading;
  QStringList columns;       // empty: a two-column key/value table without header
  QList<QStringList> rows;
};

class RunReport {
public:
  explicit RunReport(const train::RunLog& log, RunReportOptions options = {});

  QString title() const;
  // One line under the title: model, batch, seed, steps, test accuracy.
  QString subtitle() const;
  const QList<ReportTable>& tables() const { return m_tables; }
  const std::vector<RunChartSpec>& charts() const { return m_charts; }

  QByteArray html() const;
  // The PDF; *pages receives its page count when non-null.
  QByteArray pdf(int* pages = nullptr) const;

  // Renders by the extension (.pdf or .html/.htm) and writes atomically.
  // Returns "" or an error naming the path.
  QString write(const QString& path) const;

private:
  void addTables();

  const train::RunLog& m_log;
  RunReportOptions m_options;
  QList<ReportTable> m_tables;
  std::vector<RunChartSpec> m_charts;
};

// What `mantissa-cli train --export DIR` and File > Export Run Charts… write:
// every chart as SVG, PNG and CSV (exportRunCharts) and report.html, into
// `dir` (created if missing). "" or the first error; paths to *written.
QString exportRun(const train::RunLog& log, const QString& dir, QStringList* written = nullptr);

} // namespace mantissa::ui
