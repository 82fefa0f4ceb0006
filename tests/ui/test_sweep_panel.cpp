// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The Sweep dock: a small sweep runs off the GUI thread with progress; the
// table holds core's ranked rows and its CSV export is core's sweep.csv; the
// Pareto chart names every probe and exports as SVG and CSV; Cancel stops a
// sweep with its finished runs saved, and Resume completes it.

#include "ui/charts/chart_export.h"
#include "ui/charts/sweep_pareto_chart.h"
#include "ui/panels/sweep_panel.h"

#include <QFile>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using mantissa::ui::SweepPanel;

namespace {

QByteArray readFile(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void smallSweep(SweepPanel& panel, const QString& dir, int steps) {
  panel.setModel(QStringLiteral("gpt:layers=1,heads=2,embd=32,ctx=32"));
  panel.setSteps(steps);
  panel.setFormats(QStringLiteral("bf16,fp16"));
  panel.setOps(QStringLiteral("gelu,loss,residual"));
  panel.setOutputFolder(dir);
}

} // namespace

TEST(SweepPanel, RunsOffTheGuiThreadAndShowsTheRankedTableAndChart) {
  QTemporaryDir dir;
  SweepPanel panel;
  smallSweep(panel, dir.path(), 3);
  QSignalSpy done(&panel, &SweepPanel::finished);
  QSignalSpy progress(&panel, &SweepPanel::progressed);
  panel.start();
  EXPECT_TRUE(panel.running());
  ASSERT_TRUE(done.wait(120000)) << panel.statusText().toStdString();
  EXPECT_FALSE(panel.running());
  ASSERT_NE(panel.result(), nullptr);
  const auto& rows = panel.result()->rows;
  ASSERT_EQ(rows.size(), 6u); // 3 classes x 2 formats
  // The base, 6 probes, then the chosen policy's check runs, the last at done == total.
  ASSERT_GE(progress.count(), 8);
  EXPECT_EQ(progress.back()[0].toInt(), progress.back()[1].toInt());
  ASSERT_EQ(panel.table()->rowCount(), 6);
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(panel.table()->item(i, 1)->text().toStdString(), rows[std::size_t(i)].probe.name());
  // Every drawn point is named.
  QStringList names = panel.chart()->shownNames();
  EXPECT_EQ(names.size(), 6);
  for (const auto& row : rows)
    EXPECT_TRUE(names.contains(QString::fromStdString(row.probe.name()))) << row.probe.name();
  // Exports: the table as core's CSV; the chart as SVG (names as text) and CSV.
  const QString table = dir.filePath(QStringLiteral("table.csv"));
  EXPECT_EQ(panel.exportTableCsv(table), QString());
  EXPECT_EQ(readFile(table).toStdString(), mantissa::train::sweepCsv(*panel.result()));
  const QString svg = dir.filePath(QStringLiteral("pareto.svg"));
  EXPECT_EQ(mantissa::ui::exportChart(*panel.chart(), svg), QString());
  EXPECT_TRUE(readFile(svg).contains("gelu bf16"));
  const QString csv = dir.filePath(QStringLiteral("pareto.csv"));
  EXPECT_EQ(mantissa::ui::exportChart(*panel.chart(), csv), QString());
  EXPECT_EQ(readFile(csv).count('\n'), 7);
}

TEST(SweepPanel, CancelKeepsTheFinishedRunsAndResumeCompletes) {
  QTemporaryDir dir;
  SweepPanel panel;
  smallSweep(panel, dir.path(), 40);
  QSignalSpy stopped(&panel, &SweepPanel::stopped);
  QSignalSpy done(&panel, &SweepPanel::finished);
  QObject::connect(&panel, &SweepPanel::progressed, &panel, [&panel](int finishedRuns, int) {
    if (finishedRuns == 1)
      panel.cancel();
  });
  panel.start();
  ASSERT_TRUE(stopped.wait(120000)) << panel.statusText().toStdString();
  EXPECT_EQ(done.count(), 0);
  EXPECT_FALSE(panel.running());
  EXPECT_FALSE(QFile::exists(dir.filePath(QStringLiteral("sweep.csv"))));
  const auto savedRuns = [&] {
    return nlohmann::json::parse(readFile(dir.filePath(QStringLiteral("runs.json"))).toStdString())["runs"]
        .size();
  };
  const std::size_t saved = savedRuns();
  EXPECT_GE(saved, 1u);
  panel.setResume(true);
  panel.start();
  ASSERT_TRUE(done.wait(120000)) << panel.statusText().toStdString();
  ASSERT_NE(panel.result(), nullptr);
  EXPECT_EQ(panel.result()->rows.size(), 6u);
  // Only what was not saved was trained.
  EXPECT_EQ(std::size_t(panel.result()->runsTrained), savedRuns() - saved);
}

TEST(SweepPanel, BadOptionsAreReportedNamingTheOption) {
  SweepPanel panel;
  panel.setFormats(QStringLiteral("bf16,fp7"));
  QSignalSpy failed(&panel, &SweepPanel::failed);
  panel.start();
  ASSERT_EQ(failed.count(), 1);
  EXPECT_TRUE(failed.front().front().toString().startsWith(QStringLiteral("--formats:")));
  EXPECT_FALSE(panel.running());
}
