// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// screenshot_driver: the real main window, set up for the README's and the
// AppStream screenshots; take.sh runs it under Xvfb and grabs the screen.
// Usage: screenshot_driver train|train-cnn|explorer SECONDS
//   train     the Train page with the "scaling" preset started, left to run
//             SECONDS (mid-run: curves, loss-scale trace, histograms)
//   train-cnn the Train page running cnn:lenet-bn on Fashion-MNIST in fp32
//             and bf16-mixed, left to run SECONDS
//   explorer  the Explorer page with its default value
// Prints "ready" on stdout when the window shows what was asked, then keeps
// it up until killed.
#include "ui/app_shell/main_window.h"
#include "ui/panels/train_panel.h"
#include "ui/panels/train_panel_setup.h"

#include <QAction>
#include <QApplication>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  if (argc < 3) {
    std::fprintf(stderr, "usage: screenshot_driver train|train-cnn|explorer SECONDS\n");
    return 2;
  }
  QStandardPaths::setTestModeEnabled(true); // fresh settings, none written
  const std::string what = argv[1];
  const bool train = what == "train" || what == "train-cnn";
  const int seconds = std::stoi(argv[2]);

  mantissa::ui::MainWindow window;
  window.resize(1280, 800);
  window.move(0, 0);
  window.show();
  QTabWidget* pages = window.pages();
  for (int i = 0; i < pages->count(); ++i)
    if (pages->tabText(i).remove('&') == (train ? "Train" : "Explorer"))
      pages->setCurrentIndex(i);

  if (train) {
    auto* panel = window.findChild<mantissa::ui::TrainPanel*>();
    if (!panel) {
      std::fprintf(stderr, "screenshot_driver: no Train panel\n");
      return 1;
    }
    std::vector<mantissa::train::RunConfig> runs;
    if (what == "train-cnn") {
      for (const char* recipe : {"bf16-mixed", "fp32"}) {
        mantissa::train::RunConfig run;
        run.data = "fashion";
        run.model = "cnn:lenet-bn";
        run.recipe = recipe;
        run.batch = 64;
        run.epochs = 30;
        run.telemetryEvery = 5;
        runs.push_back(run);
      }
    } else {
      panel->setup()->applyPreset(QStringLiteral("scaling"));
      runs = panel->setup()->configs(); // long enough to still be running at the grab
      for (auto& run : runs)
        run.epochs = 30;
    }
    panel->setup()->setConfigs(runs);
    const QString problems = panel->applySetup();
    if (!problems.isEmpty()) {
      std::fprintf(stderr, "screenshot_driver: %s\n", qPrintable(problems));
      return 1;
    }
    panel->startAction()->trigger();
    QTimer::singleShot(seconds * 1000, [panel, what] {
      panel->pauseAction()->trigger(); // hold the picture still for the grab
      if (what == "train-cnn") // the op table: convolution rows and kernels
        for (auto* tabs : panel->window()->findChildren<QTabBar*>())
          for (int i = 0; i < tabs->count(); ++i)
            if (tabs->tabText(i).remove('&') == QLatin1String("Ops"))
              tabs->setCurrentIndex(i);
      QTimer::singleShot(1500, [] {
        std::printf("ready\n");
        std::fflush(stdout);
      });
    });
  } else {
    QTimer::singleShot(seconds * 1000, [] {
      std::printf("ready\n");
      std::fflush(stdout);
    });
  }
  return app.exec();
}
