// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// soak_driver: the real main window, driven by a script for a long session.
// Usage: soak_driver SECONDS EXPORT_DIR
// Repeats a cycle until SECONDS have passed: pick the next recipe set, apply
// the setup (new runs, a million steps each so they never finish on their
// own), Start, train ~6 s, Pause, export the loss and accuracy
// charts (PNG + CSV), Resume, train ~6 s, Stop. Prints one line per cycle to
// stdout; tests/soak/soak_gui.sh samples the process from outside.
// Exit status: 0 if every cycle applied, started and exported; 1 otherwise.

#include "ui/app_shell/main_window.h"
#include "ui/bridge/run_controller.h"
#include "ui/charts/chart_export.h"
#include "ui/charts/loss_chart.h"
#include "ui/panels/train_panel.h"
#include "ui/panels/train_panel_setup.h"

#include <mantissa/amp/recipe.h>

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QStandardPaths>
#include <QTimer>

#include <cstdio>
#include <string>
#include <vector>

namespace {

using mantissa::ui::TrainPanel;

struct Soak {
  TrainPanel* panel = nullptr;
  QString exportDir;
  qint64 seconds = 3600;
  QElapsedTimer clock;
  std::vector<std::string> recipes;
  int cycle = 0;
  int tick = 0; // seconds into the current cycle
  int failures = 0;
  int exports = 0;

  void fail(const QString& what) {
    ++failures;
    std::printf("cycle %d: FAILED: %s\n", cycle, qPrintable(what));
    std::fflush(stdout);
  }

  void beginCycle() {
    // Recipes: one, then two side by side, rotating through the table.
    const std::size_t n = recipes.size();
    const std::string& a = recipes[std::size_t(cycle) % n];
    const std::string& b = recipes[std::size_t(cycle + 1) % n];
    for (const auto& r : recipes)
      panel->setup()->setRecipeChecked(QString::fromStdString(r), r == a || (cycle % 2 == 1 && r == b));
    // Long enough that every run is still training when it is paused and
    // stopped: the hour is spent training, not waiting for the next cycle.
    auto runs = panel->setup()->configs();
    for (auto& run : runs) {
      run.steps = 1'000'000;
      run.epochs = 0;
    }
    panel->setup()->setConfigs(runs);
    const QString problems = panel->applySetup();
    if (!problems.isEmpty())
      fail("applySetup: " + problems);
    panel->startAction()->trigger();
  }

  void exportCharts() {
    const QString base = exportDir + QStringLiteral("/cycle%1").arg(cycle % 4);
    for (const QString& ext : {QStringLiteral("png"), QStringLiteral("csv")}) {
      for (const auto* chart : {static_cast<const mantissa::ui::ExportableChart*>(panel->lossChart()),
                                static_cast<const mantissa::ui::ExportableChart*>(panel->accuracyChart())}) {
        const QString path = base + (chart == panel->lossChart() ? "-loss." : "-accuracy.") + ext;
        const QString error = mantissa::ui::exportChart(*chart, path);
        if (error.isEmpty())
          ++exports;
        else
          fail("export " + path + ": " + error);
      }
    }
  }

  // Called once a second.
  void onTick() {
    if (tick == 0)
      beginCycle();
    else if (tick == 6)
      panel->pauseAction()->trigger();
    else if (tick == 7) {
      exportCharts();
      panel->startAction()->trigger(); // resumes
    } else if (tick == 13) {
      panel->stopAction()->trigger();
    } else if (tick == 14) {
      std::printf("cycle %d: t=%llds runs=%d state=%d status=%s\n", cycle,
                  static_cast<long long>(clock.elapsed() / 1000), panel->controller()->runCount(),
                  static_cast<int>(panel->controller()->state()), qPrintable(panel->statusText()));
      std::fflush(stdout);
      ++cycle;
      tick = -1;
      if (clock.elapsed() / 1000 >= seconds) {
        QApplication::quit();
        return;
      }
    }
    ++tick;
  }
};

} // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  if (argc < 3) {
    std::fprintf(stderr, "usage: soak_driver SECONDS EXPORT_DIR\n");
    return 2;
  }
  QStandardPaths::setTestModeEnabled(true); // no real settings touched
  Soak soak;
  soak.seconds = std::stoll(argv[1]);
  soak.exportDir = QString::fromLocal8Bit(argv[2]);
  QDir().mkpath(soak.exportDir);
  soak.recipes = mantissa::amp::recipeNames();

  mantissa::ui::MainWindow window;
  window.resize(1280, 800);
  window.show();
  soak.panel = window.findChild<TrainPanel*>();
  if (!soak.panel || soak.recipes.empty()) {
    std::fprintf(stderr, "soak_driver: no Train panel or no recipes in this build\n");
    return 2;
  }
  soak.clock.start();
  QTimer timer;
  QObject::connect(&timer, &QTimer::timeout, [&] { soak.onTick(); });
  timer.start(1000);
  app.exec();
  std::printf("soak_driver: %d cycles, %d exports, %d failures\n", soak.cycle, soak.exports,
              soak.failures);
  return soak.failures == 0 ? 0 : 1;
}
