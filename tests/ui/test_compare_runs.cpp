// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// File > Compare Runs…: two hand-written logs whose first divergence is known
// by construction (step 3's loss 3 ULPs away, built with nextafter) are
// compared off the GUI thread; the first divergence is named at the top and
// the table lists it; the CSV export holds the table; the tolerance of 3
// ULPs makes them equal; a bad log is named by file and line.

#include "ui/app_shell/compare_runs_dialog.h"

#include <QFile>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

using mantissa::ui::CompareRunsDialog;

namespace {

void writeLog(const QString& path, int ulps) {
  std::string out = "{\"header\": true, \"name\": \"fixture\"}\n";
  for (int s = 0; s < 6; ++s) {
    double loss = 1.5 - 0.125 * s + 1e-3;
    if (s == 3)
      for (int i = 0; i < ulps; ++i)
        loss = std::nextafter(loss, std::numeric_limits<double>::infinity());
    out += nlohmann::json{{"step", s}, {"loss", loss}}.dump() + "\n";
  }
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(out.data(), static_cast<qint64>(out.size()));
}

} // namespace

TEST(CompareRuns, NamesTheFirstDivergenceAndExportsTheTable) {
  QTemporaryDir dir;
  const QString a = dir.filePath("a.jsonl"), b = dir.filePath("b.jsonl");
  writeLog(a, 0);
  writeLog(b, 3);
  CompareRunsDialog dialog;
  QSignalSpy done(&dialog, &CompareRunsDialog::compared);
  dialog.compare(a, b, 2);
  ASSERT_TRUE(done.wait(20000));
  ASSERT_NE(dialog.result(), nullptr);
  EXPECT_TRUE(dialog.firstDivergenceText().startsWith("First divergence: step 3, loss, loss"))
      << dialog.firstDivergenceText().toStdString();
  ASSERT_EQ(dialog.table()->rowCount(), 1);
  EXPECT_EQ(dialog.table()->item(0, 0)->text(), "3");
  EXPECT_EQ(dialog.table()->item(0, 2)->text(), "loss");
  const QString csv = dir.filePath("t.csv");
  EXPECT_EQ(dialog.exportCsv(csv), QString());
  QFile f(csv);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  const QString text = QString::fromUtf8(f.readAll());
  EXPECT_TRUE(text.startsWith("step,pass,tensor,layer,measure,a,b,ulps,emd,detail\n3,loss,loss,,loss,"))
      << text.toStdString();

  dialog.compare(a, b, 3); // within the tolerance
  ASSERT_TRUE(done.wait(20000));
  EXPECT_FALSE(dialog.result()->differ());
  EXPECT_EQ(dialog.table()->rowCount(), 0);
  EXPECT_TRUE(dialog.firstDivergenceText().startsWith("The runs differ nowhere"));
}

TEST(CompareRuns, ABadLogIsNamedByFileAndLine) {
  QTemporaryDir dir;
  const QString a = dir.filePath("a.jsonl"), bad = dir.filePath("bad.jsonl");
  writeLog(a, 0);
  QFile f(bad);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write("{\"step\": 0, \"loss\": 1.0}\n{\"step\": 1, \"loss\": \"high\"}\n");
  f.close();
  CompareRunsDialog dialog;
  QSignalSpy failed(&dialog, &CompareRunsDialog::failed);
  dialog.compare(a, bad);
  ASSERT_TRUE(failed.wait(20000));
  const QString why = failed.front().front().toString();
  EXPECT_TRUE(why.contains(bad + ":2")) << why.toStdString();
  EXPECT_EQ(dialog.result(), nullptr);
}
