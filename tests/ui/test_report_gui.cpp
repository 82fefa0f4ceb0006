// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// File -> Open Run… / Save Run… / Export Report… in the main window: a log
// written by `mantissa-cli train` opens with no training, and exporting its
// charts from the window gives the same SVG and CSV as `mantissa-cli plot`.
#include "ui/app_shell/main_window.h"
#include "ui/charts/chart_widget.h"
#include "ui/report/run_browser.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTabWidget>
#include <QTemporaryDir>

#include <gtest/gtest.h>

namespace {

using namespace mantissa::ui;

QByteArray readAll(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Runs mantissa-cli; returns its exit code (stderr into *err).
int cli(const QStringList& args, QString* err = nullptr) {
  QProcess process;
  // The CLI as a user runs it: its own platform choice (offscreen), whatever
  // this GUI test runs on (offscreen under ctest, xcb under xvfb-run).
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.remove(QStringLiteral("QT_QPA_PLATFORM"));
  process.setProcessEnvironment(env);
  process.start(QStringLiteral(MANTISSA_CLI), args);
  if (!process.waitForFinished(120000))
    return -1;
  if (err)
    *err = QString::fromUtf8(process.readAllStandardError());
  return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
}

QAction* fileAction(MainWindow& window, const QString& text) {
  for (QAction* menu : window.menuBar()->actions())
    if (menu->menu() && menu->text() == QStringLiteral("&File"))
      for (QAction* a : menu->menu()->actions())
        if (a->text() == text)
          return a;
  return nullptr;
}

TEST(ReportGui, OpenRunThenExportMatchesTheCli) {
  QTemporaryDir dir;
  const QString log = dir.filePath("run.jsonl");
  QString err;
  ASSERT_EQ(cli({"train", "--data", "spirals", "--model", "mlp:2-16-2:tanh", "--recipe",
                 "fp16-mixed", "--steps", "30", "--batch", "32", "--eval-every", "10",
                 "--telemetry-every", "10", "--log", log, "--quiet"},
                &err),
            0)
      << err.toStdString();

  MainWindow window;
  auto* browser = window.findChild<RunBrowser*>();
  ASSERT_NE(browser, nullptr);
  QAction* save = fileAction(window, "&Save Run…");
  QAction* report = fileAction(window, "Export &Report…");
  ASSERT_NE(fileAction(window, "&Open Run…"), nullptr);
  ASSERT_TRUE(save && report);
  EXPECT_FALSE(save->isEnabled()) << "nothing to save before a run is open";
  EXPECT_NE(browser->openRun(dir.filePath("none.jsonl")), "");

  ASSERT_EQ(browser->openRun(log), "");
  EXPECT_TRUE(save->isEnabled());
  EXPECT_TRUE(report->isEnabled());
  const QWidget* view = browser->view();
  ASSERT_NE(view, nullptr);
  EXPECT_TRUE(view != nullptr && view->isVisible());
  EXPECT_EQ(browser->run()->steps.size(), 30u);
  // loss, accuracy, loss scale, and 2 layers at telemetry steps 0, 10, 20.
  EXPECT_EQ(browser->tabs()->count(), 3 + 2 * 3);

  for (const auto& [chart, stem] : std::vector<std::pair<QString, QString>>{
           {"loss", "loss"}, {"loss-scale", "loss_scale"}, {"histogram:1:10", "histogram_layer1_step10"}}) {
    ChartWidget* shown = browser->chart(stem);
    ASSERT_NE(shown, nullptr) << stem.toStdString();
    browser->tabs()->setCurrentWidget(shown);
    for (const char* ext : {".svg", ".csv"}) {
      const QString fromGui = dir.filePath("gui_" + stem + ext);
      const QString fromCli = dir.filePath("cli_" + stem + ext);
      ASSERT_EQ(exportChart(*shown, fromGui), "");
      ASSERT_EQ(cli({"plot", log, "--chart", chart, "--out", fromCli}, &err), 0) << err.toStdString();
      const QByteArray gui = readAll(fromGui);
      EXPECT_FALSE(gui.isEmpty());
      EXPECT_EQ(gui, readAll(fromCli)) << stem.toStdString() << ext;
    }
  }

  // Save Run… writes the log and its config; the report matches the CLI's.
  const QString saved = dir.filePath("saved.jsonl");
  ASSERT_EQ(browser->saveRun(saved), "");
  EXPECT_EQ(readAll(saved), readAll(log));
  EXPECT_TRUE(QFile::exists(dir.filePath("saved.config.json")));
  ASSERT_EQ(browser->exportReport(dir.filePath("gui.html")), "");
  ASSERT_EQ(cli({"report", log, "--out", dir.filePath("cli.html")}, &err), 0) << err.toStdString();
  EXPECT_EQ(readAll(dir.filePath("gui.html")), readAll(dir.filePath("cli.html")));
  EXPECT_NE(browser->exportReport("/proc/mantissa-none/r.html"), "");
}

} // namespace
