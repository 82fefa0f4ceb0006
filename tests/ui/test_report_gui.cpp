// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// File -> Open Run… in the main window: a log written by `mantissa-cli train`
// joins the Train page's runs with no training (curves, histograms and heat
// map, loss scale, op table, a status saying it is loaded); several open side
// by side; a malformed log is an error naming the file and line that leaves
// the runs as they were; Start asks before replacing loaded runs. Exporting
// the run from the window (charts, report, Save Run) gives the same files as
// the CLI.
#include "spawn_process.h"
#include "ui/app_shell/main_window.h"
#include "ui/app_shell/run_files.h"
#include "ui/bridge/run_controller.h"
#include "ui/charts/histogram_heatmap.h"
#include "ui/charts/loss_chart.h"
#include "ui/panels/op_table_panel.h"
#include "ui/panels/train_panel.h"
#include "ui/panels/train_panel_setup.h"
#include "../build_tree.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineSeries>
#include <QMessageBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <gtest/gtest.h>

#include <cmath>
#include <utility>

namespace {

using namespace mantissa;
using namespace mantissa::ui;

QByteArray readAll(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Runs mantissa-cli as a user runs it: its own platform choice (offscreen),
// whatever this GUI test runs on (offscreen under ctest, xcb under xvfb-run).
// Returns its exit code (stderr into *err); spawn_process.h, not QProcess,
// which TSan cannot follow.
int cli(const QStringList& args, QString* err = nullptr) {
  std::vector<std::string> argv;
  for (const QString& a : args)
    argv.push_back(a.toStdString());
  const auto r = mantissa::test::spawnProcess(mantissa::test::cliBinary(), argv, {"QT_QPA_PLATFORM"});
  if (err)
    *err = QString::fromStdString(r.err);
  return r.exitCode;
}

// A 30-step fp16-mixed run: evals every 10 steps, telemetry at 0, 10, 20.
QStringList trainArgs(const QString& recipe, const QString& log) {
  return {"train", "--data", "spirals", "--model", "mlp:2-16-2:tanh", "--recipe", recipe,
          "--steps", "30", "--batch", "32", "--eval-every", "10", "--telemetry-every", "10",
          "--log", log, "--quiet"};
}

// Answers the next modal message box with `button`.
void answerNextQuestion(QMessageBox::StandardButton button) {
  QTimer::singleShot(0, [button] {
    if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget()))
      box->button(button)->click();
  });
}

// plot and report draw a loss-scaled run's histograms as the 16-bit format
// stores them by default; --unscaled shows the unscaled values with the
// regions moved by -log2(loss scale) (IEEE binary16: smallest subnormal 2^-24,
// smallest normal 2^-14). The two options exclude each other.
TEST(ReportGui, PlotAndReportChooseScaledOrUnscaledHistograms) {
  QTemporaryDir dir;
  const QString log = dir.filePath("run.jsonl");
  QString err;
  ASSERT_EQ(cli(trainArgs("fp16-mixed", log), &err), 0) << err.toStdString();
  const auto plot = [&](const QStringList& extra, const QString& out) {
    return cli(QStringList{"plot", log, "--chart", "histogram", "--out", out} + extra, &err);
  };
  const auto read = [&](const QString& path) { return QJsonDocument::fromJson(readAll(path)).object(); };
  ASSERT_EQ(plot({}, dir.filePath("default.json")), 0) << err.toStdString();
  ASSERT_EQ(plot({"--scaled"}, dir.filePath("scaled.json")), 0) << err.toStdString();
  ASSERT_EQ(plot({"--unscaled"}, dir.filePath("unscaled.json")), 0) << err.toStdString();
  EXPECT_EQ(plot({"--scaled", "--unscaled"}, dir.filePath("both.json")), 2);
  EXPECT_TRUE(err.contains("exclude")) << err.toStdString();

  const QJsonObject byDefault = read(dir.filePath("default.json"));
  const QJsonObject scaled = read(dir.filePath("scaled.json"));
  const QJsonObject unscaled = read(dir.filePath("unscaled.json"));
  const double scale = scaled["lossScale"].toDouble();
  ASSERT_GT(scale, 1.0) << "fp16-mixed scales the loss";
  EXPECT_EQ(byDefault["shown"].toString(), "scaled");
  EXPECT_EQ(scaled["shown"].toString(), "scaled");
  EXPECT_EQ(unscaled["shown"].toString(), "unscaled");
  EXPECT_TRUE(scaled["chart"].toString().contains("scaled values, as stored"));
  EXPECT_TRUE(unscaled["chart"].toString().contains("unscaled values"));
  const auto subnormal = [](const QJsonObject& chart) {
    for (const QJsonValue& r : chart["regions"].toArray())
      if (r["label"].toString() == "FP16 subnormal")
        return std::pair{r["fromLog2"].toDouble(), r["toLog2"].toDouble()};
    return std::pair{0.0, 0.0};
  };
  EXPECT_EQ(subnormal(scaled), std::make_pair(-24.0, -14.0));
  const double shift = -std::log2(scale);
  EXPECT_DOUBLE_EQ(unscaled["regionShiftLog2"].toDouble(), shift);
  EXPECT_DOUBLE_EQ(subnormal(unscaled).first, -24.0 + shift);
  EXPECT_DOUBLE_EQ(subnormal(unscaled).second, -14.0 + shift);

  ASSERT_EQ(cli({"report", log, "--out", dir.filePath("r.html"), "--unscaled"}, &err), 0)
      << err.toStdString();
  EXPECT_TRUE(readAll(dir.filePath("r.html")).contains("moved by the loss scale"));
  ASSERT_EQ(cli({"report", log, "--out", dir.filePath("s.html")}, &err), 0) << err.toStdString();
  EXPECT_TRUE(readAll(dir.filePath("s.html")).contains("as the run stores them"));
}

TEST(ReportGui, OpenRunShowsItOnTheTrainPageAndExportsLikeTheCli) {
  QTemporaryDir dir;
  const QString log = dir.filePath("run.jsonl");
  const QString cliExport = dir.filePath("cli_export");
  QString err;
  ASSERT_EQ(cli(trainArgs("fp16-mixed", log) << "--export" << cliExport, &err), 0)
      << err.toStdString();

  MainWindow window;
  // The default size on a desktop screen (the offscreen one is smaller): the
  // heat map below the loss curve, not a hidden tab (the Train page redraws
  // only the charts on screen).
  window.resize(1600, 1000);
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  auto* files = window.findChild<RunFiles*>();
  auto* train = window.findChild<TrainPanel*>();
  ASSERT_TRUE(files && train);
  RunController* c = train->controller();
  EXPECT_FALSE(files->saveAction()->isEnabled()) << "nothing to save before a step or a run";

  ASSERT_EQ(files->openRun(log), "");
  EXPECT_EQ(window.pages()->currentWidget(), train);
  ASSERT_EQ(c->runCount(), 1) << "the setup's runs, never started, give way to the loaded one";
  EXPECT_TRUE(c->isLoaded(0));
  EXPECT_EQ(c->state(), RunController::State::Finished);
  EXPECT_EQ(c->record(0).lastStep(), 29);
  EXPECT_EQ(c->record(0).frames().size(), 3u);
  // Views: loss curve (30 train points, 3 evals), heat map rows, op table, status.
  ASSERT_NE(train->lossChart()->trainSeries(c->runId(0)), nullptr);
  EXPECT_EQ(train->lossChart()->shownTrain(c->runId(0)).size(), 30);
  EXPECT_EQ(train->lossChart()->shownTest(c->runId(0)).size(), 3);
  EXPECT_EQ(train->heatmap()->rowCount(), 3);
  EXPECT_GT(train->opTable()->precisionTable()->rowCount(), 0);
  // The status line may be redrawn after the next paint: wait for it.
  EXPECT_TRUE(QTest::qWaitFor([&] { return train->statusText().contains("loaded"); }, 5000))
      << train->statusText().toStdString();
  EXPECT_TRUE(train->statusText().contains("30/30")) << train->statusText().toStdString();
  EXPECT_TRUE(train->findChild<QLabel*>("trainBanner")->text().contains("run.jsonl"));
  EXPECT_FALSE(train->stepAction()->isEnabled());
  EXPECT_FALSE(train->pauseAction()->isEnabled());
  EXPECT_TRUE(files->saveAction()->isEnabled());

  // Export Run Charts… writes what `train --export` wrote, byte for byte.
  const QString guiExport = dir.filePath("gui_export");
  QStringList written;
  ASSERT_EQ(files->exportCharts(guiExport, &written), "");
  const QStringList names = QDir(cliExport).entryList(QDir::Files, QDir::Name);
  EXPECT_EQ(QDir(guiExport).entryList(QDir::Files, QDir::Name), names);
  EXPECT_EQ(written.size(), names.size());
  EXPECT_TRUE(names.contains("report.html") && names.contains("histogram_layer1_step20.svg"));
  for (const QString& name : names)
    EXPECT_EQ(readAll(guiExport + "/" + name), readAll(cliExport + "/" + name)) << name.toStdString();

  // Save Run… writes the log and its config; the report matches the CLI's.
  const QString saved = dir.filePath("saved.jsonl");
  ASSERT_EQ(files->saveRun(saved), "");
  EXPECT_EQ(readAll(saved), readAll(log));
  EXPECT_TRUE(QFile::exists(dir.filePath("saved.config.json")));
  ASSERT_EQ(files->exportReport(dir.filePath("gui.pdf")), "");
  EXPECT_TRUE(readAll(dir.filePath("gui.pdf")).startsWith("%PDF"));
  ASSERT_EQ(files->exportReport(dir.filePath("gui.html")), "");
  ASSERT_EQ(cli({"report", log, "--out", dir.filePath("cli.html")}, &err), 0) << err.toStdString();
  EXPECT_EQ(readAll(dir.filePath("gui.html")), readAll(dir.filePath("cli.html")));
  EXPECT_NE(files->exportReport("/proc/mantissa-none/r.html"), "");
}

TEST(ReportGui, SeveralRunsSideBySideAndABadLogLeavesThemAsTheyWere) {
  QTemporaryDir dir;
  const QString a = dir.filePath("a.jsonl");
  const QString b = dir.filePath("b.jsonl");
  QString err;
  ASSERT_EQ(cli(trainArgs("fp32", a), &err), 0) << err.toStdString();
  ASSERT_EQ(cli(trainArgs("bf16-mixed", b), &err), 0) << err.toStdString();

  MainWindow window;
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  auto* files = window.findChild<RunFiles*>();
  auto* train = window.findChild<TrainPanel*>();
  RunController* c = train->controller();
  ASSERT_EQ(files->openRun(a), "");
  ASSERT_EQ(files->openRun(b), "");
  ASSERT_EQ(c->runCount(), 2);
  EXPECT_NE(c->runName(0), c->runName(1));
  EXPECT_TRUE(c->runName(1).contains("bf16-mixed")) << c->runName(1).toStdString();
  for (int r = 0; r < 2; ++r) {
    ASSERT_NE(train->lossChart()->trainSeries(c->runId(r)), nullptr);
    EXPECT_EQ(train->lossChart()->shownTrain(c->runId(r)).size(), 30);
  }
  EXPECT_EQ(train->selectedRun(), 1) << "the run just opened is the one inspected";

  // Export Run Charts… covers every run, not only the inspected one: the
  // loss and accuracy charts name both (legend, data), and each run's own
  // charts and report go to a folder named after it.
  const QString both = dir.filePath("both");
  QStringList written;
  ASSERT_EQ(files->exportCharts(both, &written), "");
  for (const char* chart : {"loss.svg", "accuracy.svg", "loss.csv", "accuracy.csv"})
    for (int r = 0; r < 2; ++r)
      EXPECT_TRUE(readAll(both + "/" + chart).contains(c->runName(r).toUtf8()))
          << chart << " lacks " << c->runName(r).toStdString();
  EXPECT_EQ(QDir(both).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name),
            (QStringList{"bf16-mixed-b", "fp32-a"}));
  EXPECT_TRUE(QFile::exists(both + "/fp32-a/report.html"));
  EXPECT_TRUE(QFile::exists(both + "/bf16-mixed-b/loss_scale.svg"));
  EXPECT_TRUE(written.contains(both + "/accuracy.svg"));

  // Line 3 broken: the error names the file and the line; nothing changes.
  QByteArray lines = readAll(a);
  const qsizetype second = lines.indexOf('\n', lines.indexOf('\n') + 1);
  lines.insert(second + 1, "{\"step\": 1, \"loss\": \"high\"}\n");
  const QString bad = dir.filePath("bad.jsonl");
  {
    QFile f(bad);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(lines);
  }
  const QString error = files->openRun(bad);
  EXPECT_TRUE(error.contains("bad.jsonl:3")) << error.toStdString();
  EXPECT_TRUE(error.contains("loss")) << error.toStdString();
  EXPECT_NE(files->openRun(dir.filePath("missing.jsonl")), "");
  EXPECT_EQ(c->runCount(), 2);
  EXPECT_EQ(c->record(0).lastStep(), 29);
  EXPECT_EQ(c->record(1).lastStep(), 29);
}

TEST(ReportGui, StartAsksBeforeReplacingLoadedRuns) {
  QTemporaryDir dir;
  const QString log = dir.filePath("run.jsonl");
  QString err;
  ASSERT_EQ(cli(trainArgs("fp32", log), &err), 0) << err.toStdString();

  MainWindow window;
  auto* files = window.findChild<RunFiles*>();
  auto* train = window.findChild<TrainPanel*>();
  RunController* c = train->controller();
  train::RunConfig small;
  small.data = "spirals";
  small.model = "mlp:2-8-2:tanh";
  small.steps = 5;
  train->setup()->setConfigs({small});
  ASSERT_EQ(files->openRun(log), "");
  ASSERT_TRUE(train->startAction()->isEnabled());

  answerNextQuestion(QMessageBox::Cancel);
  train->startAction()->trigger();
  EXPECT_EQ(c->runCount(), 1);
  EXPECT_TRUE(c->isLoaded(0)) << "cancelled: the loaded run stays";

  answerNextQuestion(QMessageBox::Ok);
  train->startAction()->trigger();
  ASSERT_EQ(c->runCount(), 1);
  EXPECT_FALSE(c->isLoaded(0)) << "confirmed: the setup's run replaced it";
  EXPECT_EQ(c->loadedCount(), 0);
  c->shutdown();
}

} // namespace
