// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The Train page: its actions drive the trainers, a published snapshot
// reaches every chart's series, the histogram's format regions sit at the
// spec exponents, and scrubbing the heat map shows the step recorded there.

#include "drain_wait.h"
#include "settled_value.h"
#include "ui/app_shell/theme.h"
#include "ui/bridge/run_controller.h"
#include "ui/charts/histogram_chart.h"
#include "ui/charts/histogram_heatmap.h"
#include "ui/charts/loss_chart.h"
#include "ui/charts/loss_scale_chart.h"
#include "ui/charts/steady_label.h"
#include "ui/formats/bit_cells.h"
#include "ui/panels/op_table_panel.h"
#include "ui/panels/train_panel.h"
#include "ui/panels/train_panel_setup.h"
#include "ui/panels/watch_panel.h"

#include <mantissa/kernels/matmul_path.h>
#include <mantissa/model/model_registry.h>

#include <QAbstractButton>
#include <QAction>
#include <QScrollArea>
#include <QAreaSeries>
#include <QComboBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QLineSeries>
#include <QPushButton>
#include <QToolBar>
#include <QScatterSeries>
#include <QSet>
#include <QSettings>
#include <QTabBar>
#include <QTableWidget>
#include <QTest>
#include <QVBoxLayout>

#include <array>
#include <bit>
#include <cmath>

#include <gtest/gtest.h>

namespace mantissa::ui {
namespace {

// Installed as an event filter: counts the layout requests a widget receives.
struct LayoutRequests : QObject {
  int count = 0;
  bool eventFilter(QObject*, QEvent* e) override {
    count += e->type() == QEvent::LayoutRequest ? 1 : 0;
    return false;
  }
};

train::RunConfig tiny(const std::string& recipe, std::int64_t steps) {
  train::RunConfig c;
  c.data = "spirals";
  c.model = "mlp:2-32-2:tanh";
  c.recipe = recipe;
  c.batch = 32;
  c.steps = steps;
  c.telemetryEvery = 1;
  c.evalEvery = 10;
  return c;
}

struct Page {
  Page(std::vector<train::RunConfig> runs) {
    QSettings().clear();
    panel.resize(1400, 1000); // histograms below the loss curve; accuracy tabbed with the loss scale
    panel.show();
    panel.setup()->setConfigs(runs);
    EXPECT_EQ(panel.applySetup(), QString());
  }
  bool waitFor(const std::function<bool()>& pred) {
    return waitDrained(*panel.controller(), pred, 20000);
  }
  const RunRecord& record(int i) const { return panel.controller()->record(i); }
  TrainPanel panel;
};

TEST(DashboardPanel, ActionsDriveTheTrainers) {
  Page p({tiny("fp32", 1000000)});
  p.panel.stepAction()->trigger();
  ASSERT_TRUE(p.waitFor([&] { return p.record(0).lastStep() == 0; }));
  p.panel.stepAction()->trigger();
  ASSERT_TRUE(p.waitFor([&] { return p.record(0).lastStep() == 1; }));
  EXPECT_EQ(p.panel.pauseAction()->text(), QStringLiteral("Resume"));
  p.panel.pauseAction()->trigger(); // resume
  ASSERT_TRUE(p.waitFor([&] { return p.record(0).lastStep() > 10; }));
  EXPECT_FALSE(p.panel.setup()->isEnabled()); // no edits while a run is live
  p.panel.pauseAction()->trigger(); // pause
  ASSERT_TRUE(p.waitFor([&] {
    return p.panel.controller()->state() == RunController::State::Paused;
  }));
  p.panel.stopAction()->trigger();
  ASSERT_TRUE(p.waitFor([&] {
    return p.panel.controller()->state() == RunController::State::Finished;
  }));
  EXPECT_TRUE(p.panel.setup()->isEnabled());
  p.panel.resetAction()->trigger();
  EXPECT_EQ(p.panel.controller()->state(), RunController::State::Ready);
  EXPECT_EQ(p.record(0).lastStep(), -1);
}

// The banner under the toolbar says what the runs do: paused while they are
// paused (not "Training"), training again once they resume.
TEST(DashboardPanel, TheBannerSaysPausedWhileThePausedRunsWait) {
  Page p({tiny("fp32", 1000000)});
  const QLabel* banner = p.panel.findChild<QLabel*>("trainBanner");
  ASSERT_NE(banner, nullptr);
  const auto state = [&] { return p.panel.controller()->state(); };
  p.panel.startAction()->trigger();
  ASSERT_TRUE(p.waitFor([&] { return p.record(0).lastStep() >= 1; }));
  EXPECT_TRUE(banner->text().startsWith("Training.")) << banner->text().toStdString();
  p.panel.pauseAction()->trigger();
  ASSERT_TRUE(p.waitFor([&] { return state() == RunController::State::Paused; }));
  EXPECT_TRUE(banner->text().contains("Paused.")) << banner->text().toStdString();
  EXPECT_FALSE(banner->text().contains("Training")) << banner->text().toStdString();
  p.panel.stepAction()->trigger(); // a step taken while paused: still paused
  const std::int64_t paused = p.record(0).lastStep();
  ASSERT_TRUE(p.waitFor([&] { return p.record(0).lastStep() > paused; }));
  EXPECT_TRUE(banner->text().contains("Paused.")) << banner->text().toStdString();
  p.panel.pauseAction()->trigger(); // resume
  ASSERT_TRUE(p.waitFor([&] { return state() == RunController::State::Running; }));
  EXPECT_TRUE(banner->text().startsWith("Training.")) << banner->text().toStdString();
  p.panel.resetAction()->trigger(); // back to step 0: ready, neither training nor paused
  ASSERT_TRUE(p.waitFor([&] { return state() == RunController::State::Ready; }));
  EXPECT_TRUE(banner->text().startsWith("Ready")) << banner->text().toStdString();
}

// The toolbar's progress gives the runs' pace while they train; paused, it
// says so instead of keeping the last pace, and the pace returns on resuming.
TEST(DashboardPanel, TheProgressDropsThePaceWhilePaused) {
  Page p({tiny("fp32", 1000000)});
  const auto status = [&] { return p.panel.statusText(); };
  p.panel.startAction()->trigger();
  ASSERT_TRUE(p.waitFor([&] { return status().contains("steps/s"); })) << status().toStdString();
  EXPECT_FALSE(status().contains("paused")) << status().toStdString();
  p.panel.pauseAction()->trigger();
  ASSERT_TRUE(
      p.waitFor([&] { return p.panel.controller()->state() == RunController::State::Paused; }));
  ASSERT_TRUE(p.waitFor([&] { return !status().contains("steps/s"); })) << status().toStdString();
  EXPECT_TRUE(status().contains(" · paused")) << status().toStdString();
  p.panel.pauseAction()->trigger(); // resume
  ASSERT_TRUE(p.waitFor([&] { return status().contains("steps/s"); })) << status().toStdString();
  EXPECT_FALSE(status().contains("paused")) << status().toStdString();
  p.panel.stopAction()->trigger();
  ASSERT_TRUE(
      p.waitFor([&] { return p.panel.controller()->state() == RunController::State::Finished; }));
}

// The op table names every matmul of the selected run (each layer's forward,
// dX and dW) with its shape, the path that runs it and why.
TEST(DashboardPanel, OpTableNamesEachMatmulsPathAndWhy) {
  kernels::setMatmulPath(kernels::MatmulPath::Fp32Compute); // a path whose reason is known
  auto c = tiny("bf16-mixed", 5);
  c.model = "mlp:2-32-24-2:tanh";
  auto f32 = c;
  f32.recipe = "fp32";
  Page p({c, f32});
  kernels::setMatmulPath(kernels::MatmulPath::Native);
  p.panel.setSelectedRun(0);
  const OpTablePanel* ops = p.panel.opTable();
  const QTableWidget* table = ops->precisionTable();
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return ops->recipeRows() > 0 && table->rowCount() == ops->recipeRows() + 8; }, 5000))
      << table->rowCount();
  for (int r = 0; r < ops->recipeRows(); ++r) // an MLP has no BatchNorm (a CNN's class)
    EXPECT_NE(table->item(r, 0)->text(), QStringLiteral("BatchNorm statistics"));
  // forward [B,O] = [B,I].[I,O]; dX [B,I] = [B,O].[O,I]; dW [I,O] = [I,B].[B,O]; B = 32.
  const QStringList products{"layer 0 forward", "layer 0 dW",      "layer 1 forward",
                             "layer 1 dX",      "layer 1 dW",      "layer 2 forward",
                             "layer 2 dX",      "layer 2 dW"};
  const QStringList shapes{"32×32, K 2",  "2×32, K 32",  "32×24, K 32", "32×32, K 24",
                           "32×24, K 32", "32×2, K 24",  "32×24, K 2",  "24×2, K 32"};
  for (int i = 0; i < 8; ++i) {
    const int row = ops->recipeRows() + i;
    EXPECT_EQ(table->item(row, 0)->text(), "matmul: " + products[i]);
    EXPECT_EQ(table->item(row, 1)->text(), "FP32 compute on BF16 data");
    const QString how = table->item(row, 2)->text();
    EXPECT_TRUE(how.startsWith(shapes[i] + "; ")) << how.toStdString();
    EXPECT_TRUE(how.contains("FP32 compute forced")) << how.toStdString();
    // FP32 compute: every result is rounded to BF16 after the product (forward
    // after the bias too: bf16-mixed stores BF16 activations).
    EXPECT_TRUE(how.endsWith(i == 0 || i == 2 || i == 5
                                 ? "result FP32, bias added, then rounded to BF16"
                                 : "result FP32, then rounded to BF16"))
        << how.toStdString();
  }
  // An FP32 run: one path, no reason to give ("<shape>; <kernel>; result FP32").
  p.panel.setSelectedRun(1);
  ASSERT_TRUE(QTest::qWaitFor(
      [&] { return table->item(ops->recipeRows(), 1)->text() == "FP32"; }, 5000));
  EXPECT_EQ(table->rowCount(), ops->recipeRows() + 8);
  for (int i = 0; i < 8; ++i) {
    const QString how = table->item(ops->recipeRows() + i, 2)->text();
    EXPECT_EQ(how.count(';'), 2) << how.toStdString();
  }
}

TEST(DashboardPanel, EverySnapshotReachesEveryChart) {
  Page p({tiny("fp32", 30), tiny("fp16-mixed", 30)});
  p.panel.startAction()->trigger();
  ASSERT_TRUE(p.waitFor([&] {
    return p.panel.controller()->state() == RunController::State::Finished && p.record(0).snapshot() &&
           p.record(0).snapshot()->finished && p.record(1).snapshot() && p.record(1).snapshot()->finished;
  }));
  p.panel.refresh();
  for (const char* id : {"run1", "run2"}) {
    const QString run = QString::fromLatin1(id);
    ASSERT_NE(p.panel.lossChart()->trainSeries(run), nullptr);
    EXPECT_EQ(p.panel.lossChart()->shownTrain(run).size(), 30); // below 2 points / pixel
    EXPECT_EQ(p.panel.lossChart()->shownTrain(run).value(29).x(), 29.0);
    EXPECT_GE(p.panel.lossChart()->shownTest(run).size(), 3);   // every 10 steps and the end
  }
  // The loss chart's last point is the run's last training loss.
  const auto loss = p.record(1).history().series(RunRecord::Loss);
  EXPECT_EQ(p.panel.lossChart()->shownTrain(QStringLiteral("run2")).value(29).y(), loss.back().y);

  p.panel.setSelectedRun(1); // fp16-mixed: the loss-scale trace and the op table
  EXPECT_GT(p.panel.lossScaleChart()->scaleSeries()->count(), 0);
  EXPECT_EQ(p.panel.lossScaleChart()->scaleSeries()->at(0).y(), 16.0); // log2 65536
  EXPECT_EQ(p.panel.opTable()->precisionTable()->item(0, 1)->text(), QStringLiteral("f16"));
  EXPECT_GT(p.panel.opTable()->timeTable()->rowCount(), 0);
  EXPECT_GT(p.panel.histogramChart()->barSeries()->upperSeries()->count(), 0);
  EXPECT_EQ(p.panel.heatmap()->rowCount(), 30);
  EXPECT_EQ(p.panel.heatmap()->stepOfRow(29), 29);
  EXPECT_TRUE(p.panel.watchPanel()->swampText().contains(QStringLiteral("so far")));
  // The accuracy chart (a hidden tab beside the loss scale) is drawn once it shows.
  p.panel.findChild<QDockWidget*>(QStringLiteral("accuracyDock"))->raise();
  for (const char* id : {"run1", "run2"})
    EXPECT_TRUE(QTest::qWaitFor(
        [&] { return p.panel.accuracyChart()->shownTrain(QString::fromLatin1(id)).size() == 30; },
        5000))
        << id;
}

// A chart in a hidden dock tab is not redrawn while hidden (frame budget), and
// is up to date as soon as its tab is shown.
TEST(DashboardPanel, AHiddenChartCatchesUpWhenItsTabShows) {
  Page p({tiny("fp16-mixed", 20)});
  auto* scaleDock = p.panel.findChild<QDockWidget*>(QStringLiteral("lossScaleDock"));
  auto* watchDock = p.panel.findChild<QDockWidget*>(QStringLiteral("watchDock"));
  ASSERT_NE(scaleDock, nullptr);
  ASSERT_NE(watchDock, nullptr);
  ASSERT_TRUE(p.panel.tabifiedDockWidgets(scaleDock).contains(watchDock));
  watchDock->raise(); // the loss scale shares its tab group
  const auto watchTabCurrent = [&] {
    for (const QTabBar* bar : p.panel.findChildren<QTabBar*>())
      for (int i = 0; i < bar->count(); ++i)
        if (bar->tabText(i) == QStringLiteral("Watch"))
          return bar->currentIndex() == i;
    return false;
  };
  ASSERT_TRUE(QTest::qWaitFor(watchTabCurrent, 5000)) << "the tab switch is laid out";
  p.panel.startAction()->trigger();
  ASSERT_TRUE(p.waitFor([&] {
    return p.panel.controller()->state() == RunController::State::Finished &&
           p.record(0).lastStep() == 19;
  }));
  p.panel.refresh();
  EXPECT_EQ(p.panel.lossScaleChart()->scaleSeries()->count(), 0);
  EXPECT_EQ(p.panel.lossChart()->shownTrain(QStringLiteral("run1")).size(), 20); // shown: drawn
  scaleDock->raise();
  ASSERT_TRUE(QTest::qWaitFor([&] { return p.panel.lossScaleChart()->scaleSeries()->count() > 0; },
                              5000));
  EXPECT_EQ(p.panel.lossScaleChart()->scaleSeries()->at(0).y(), 16.0); // log2 of 2^16
}

// Where a region is drawn, from its upper edge.
std::pair<double, double> drawnSpan(const HistogramChart& chart, numeric::FormatId f, RegionKind k) {
  const QAreaSeries* area = chart.regionSeries(f, k);
  const auto points = area->upperSeries()->points();
  return {points.front().x(), points.back().x()};
}

TEST(DashboardPanel, HistogramRegionsSitAtTheFp16Exponents) {
  train::RunConfig run = tiny("fp16-mixed", 3);
  Page p({run});
  p.panel.startAction()->trigger();
  ASSERT_TRUE(p.waitFor([&] { return p.record(0).lastStep() == 2; }));
  p.panel.setHistogramSelection(0, telemetry::TensorClass::WeightGrads);
  p.panel.refresh();
  const HistogramChart& h = *p.panel.histogramChart();
  ASSERT_GT(h.barSeries()->upperSeries()->count(), 0);
  // IEEE 754 binary16: smallest subnormal 2^-24, smallest normal 2^-14,
  // largest finite 65504; values at or below 2^-25 round to zero.
  const auto sub = drawnSpan(h, numeric::FormatId::Fp16, RegionKind::Subnormal);
  if (h.xMin() < -24.0) {
    EXPECT_EQ(sub.first, -24.0);
    EXPECT_EQ(drawnSpan(h, numeric::FormatId::Fp16, RegionKind::FlushToZero).second, -25.0);
  }
  EXPECT_EQ(sub.second, -14.0);
  EXPECT_LT(h.xMin(), -14.0); // dW of a fresh tanh net reaches below FP16's normal range
}

// A loss-scaled run: the histogram and the heat map show the gradients as
// FP16 stores them (times the loss scale) unless the Scaled box is cleared;
// then both show the unscaled ones, with the FP16 limits moved by the scale.
TEST(DashboardPanel, HeatMapFollowsTheScaledBox) {
  Page p({tiny("fp16-mixed", 4)});
  p.panel.startAction()->trigger();
  ASSERT_TRUE(p.waitFor([&] {
    return p.panel.controller()->state() == RunController::State::Finished &&
           p.record(0).frames().size() == 4;
  }));
  p.panel.setHistogramSelection(0, telemetry::TensorClass::WeightGrads);
  p.panel.refresh();
  HistogramChart& h = *p.panel.histogramChart();
  HistogramHeatmap& map = *p.panel.heatmap();
  const auto& frames = p.record(0).frames();
  const auto* stored = frames.front()->find(0, telemetry::TensorClass::WeightGrads, true);
  const auto* unscaled = frames.front()->find(0, telemetry::TensorClass::WeightGrads, false);
  ASSERT_NE(stored, nullptr) << "fp16-mixed has a loss scaler";
  ASSERT_NE(unscaled, nullptr);
  ASSERT_GT(stored->lossScale, 1.0);
  ASSERT_NE(stored->hist, unscaled->hist);
  EXPECT_TRUE(h.showScaled());
  ASSERT_EQ(map.rowCount(), 4);
  EXPECT_EQ(map.rowHistogram(0), stored->hist);
  EXPECT_EQ(map.regionShiftOfRow(0), 0.0);
  EXPECT_TRUE(map.title().contains("scaled values, as stored")) << map.title().toStdString();

  h.setShowScaled(false);
  ASSERT_EQ(map.rowCount(), 4);
  EXPECT_EQ(map.rowHistogram(0), unscaled->hist);
  EXPECT_DOUBLE_EQ(map.regionShiftOfRow(0), -std::log2(stored->lossScale));
  EXPECT_TRUE(map.title().contains("unscaled values")) << map.title().toStdString();
  h.setShowScaled(true);
  EXPECT_EQ(map.rowHistogram(0), stored->hist);
}

// A loss multiplier is in every stored gradient the chart draws: its title
// says so, once (the run's name carries it).
TEST(DashboardPanel, AHistogramOfAMultipliedLossSaysSo) {
  train::RunConfig run = tiny("fp16-mixed-noscale", 2);
  run.lossMultiplier = 1.0 / 16384.0;
  Page p({run});
  p.panel.startAction()->trigger();
  ASSERT_TRUE(p.waitFor([&] {
    return p.panel.controller()->state() == RunController::State::Finished &&
           p.record(0).frames().size() == 2;
  }));
  p.panel.setHistogramSelection(0, telemetry::TensorClass::WeightGrads);
  p.panel.refresh();
  const QString title = p.panel.histogramChart()->title();
  EXPECT_EQ(title.count(QStringLiteral("loss × 2^-14")), 1) << title.toStdString();
}

// When the runs end, the Ops dock keeps where the step time went (the mean
// over the whole run) and the message line stops saying "Training."
TEST(DashboardPanel, TheEndOfARunKeepsItsTimingsAndSaysItFinished) {
  Page p({tiny("fp32", 30)});
  const QLabel* banner = p.panel.findChild<QLabel*>("trainBanner");
  ASSERT_NE(banner, nullptr);
  p.panel.startAction()->trigger();
  EXPECT_TRUE(banner->text().startsWith("Training.")) << banner->text().toStdString();
  ASSERT_TRUE(p.waitFor([&] {
    return p.panel.controller()->state() == RunController::State::Finished &&
           p.record(0).snapshot() && p.record(0).snapshot()->finished;
  }));
  p.panel.refresh();
  const QTableWidget* times = p.panel.findChild<OpTablePanel*>()->timeTable();
  ASSERT_EQ(times->rowCount(), 9);
  const int whole = times->rowCount() - 1;
  ASSERT_EQ(times->item(whole, 0)->text(), "whole step");
  EXPECT_GT(times->item(whole, 1)->text().toDouble(), 0.0);
  double shares = 0.0;
  for (int row = 0; row < whole; ++row) {
    const QString share = times->item(row, 2)->text();
    ASSERT_TRUE(share.endsWith(" %")) << "row " << row << ": '" << share.toStdString() << "'";
    shares += share.chopped(2).toDouble();
  }
  EXPECT_NEAR(shares, 100.0, 1.0);
  EXPECT_FALSE(banner->text().contains("Training.")) << banner->text().toStdString();
  EXPECT_TRUE(banner->text().contains("Finished")) << banner->text().toStdString();
}

// The Pace box caps the steps per second on the trainer threads (the GUI
// thread never waits); the status line gives the rate at full speed beside
// it. Presenter mode starts at a pace a class can follow.
TEST(DashboardPanel, PaceCapsTheRunAndPresenterModeStartsPaced) {
  constexpr double kPace = 2.0;
  static_assert(kPace != TrainPanel::kPresenterPace);
  Page p({tiny("fp32", 100000)});
  QComboBox* pace = p.panel.pacePicker();
  ASSERT_NE(pace, nullptr);
  EXPECT_EQ(pace->currentData().toDouble(), 0.0) << "full speed outside presenter mode";
  pace->setCurrentIndex(pace->findData(kPace));
  ASSERT_EQ(p.panel.controller()->pace(), kPace);
  QElapsedTimer clock;
  clock.start();
  p.panel.startAction()->trigger();
  ASSERT_TRUE(p.waitFor([&] { return p.record(0).lastStep() >= 5; }));
  // Step 5 starts at least five slots of 1/2 s after step 0.
  EXPECT_GE(clock.elapsed(), 5 * 1000 / kPace);
  ASSERT_TRUE(p.waitFor([&] {
    const auto& snap = p.record(0).snapshot();
    return snap && snap->stepsDone > 6 && snap->pace == kPace;
  }));
  const auto snap = p.record(0).snapshot();
  // Over one publication interval (a step or two at this pace).
  EXPECT_LE(snap->stepsPerSecond, kPace * 1.5) << "(a step slower than the next shortens one interval)";
  // A 2-32-2 step takes far less than the 500 ms slot: timed without the wait it runs above the cap.
  EXPECT_GT(snap->fullSpeedStepsPerSecond, 2.0 * kPace);
  p.panel.refresh();
  const QString status = p.panel.findChild<SteadyTextLine*>("trainProgress")->fullText();
  EXPECT_TRUE(status.contains("paced")) << status.toStdString();
  EXPECT_TRUE(status.contains("at full speed")) << status.toStdString();
  // Stop ends a wait for a slot 1000 s away (the trainer core tests pause, step and stop).
  p.panel.controller()->setPace(0.001);
  p.panel.controller()->stop();
  ASSERT_TRUE(p.waitFor([&] { return p.panel.controller()->state() == RunController::State::Finished; }));

  Theme::instance().setPresenter(true);
  EXPECT_EQ(pace->currentData().toDouble(), TrainPanel::kPresenterPace);
  EXPECT_EQ(p.panel.controller()->pace(), TrainPanel::kPresenterPace);
  Theme::instance().setPresenter(false);
  EXPECT_EQ(pace->currentData().toDouble(), 0.0);
}

// The toolbar stays where the pointer left it while the message above it
// changes between one, three and two lines.
TEST(DashboardPanel, TheToolbarStaysPutAsTheMessageChanges) {
  Page p({tiny("fp32", 5)});
  auto* banner = p.panel.findChild<QLabel*>("trainBanner");
  auto* bar = p.panel.findChild<QToolBar*>("trainToolBar");
  ASSERT_TRUE(banner != nullptr && bar != nullptr);
  const QString sentence = QStringLiteral("A message that wraps on a narrow page. ");
  std::vector<int> tops;
  std::vector<int> lines;
  for (int repeats : {1, 3 * 1400 / 330, 2 * 1400 / 330}) {
    banner->setText(sentence.repeated(repeats).trimmed());
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
    (void)QTest::qWaitFor([&] { return banner->height() >= banner->sizeHint().height(); }, 2000);
    tops.push_back(bar->mapTo(&p.panel, QPoint(0, 0)).y());
    const QRect text = banner->fontMetrics().boundingRect(
        QRect(0, 0, banner->contentsRect().width(), 100000), Qt::TextWordWrap, banner->text());
    lines.push_back(text.height() / banner->fontMetrics().lineSpacing());
  }
  EXPECT_EQ(lines[0], 1);
  EXPECT_GE(lines[1], 2);
  EXPECT_EQ(tops[1], tops[0]);
  EXPECT_EQ(tops[2], tops[0]);
}

// A checked recipe toggle is filled and ticked: unmistakable beside an unchecked one.
TEST(DashboardPanel, CheckedRecipeTogglesStandOut) {
  Page p({tiny("fp32", 5)});
  auto* on = p.panel.findChild<QPushButton*>("recipe_fp32");
  auto* off = p.panel.findChild<QPushButton*>("recipe_bf16-pure");
  ASSERT_TRUE(on != nullptr && off != nullptr);
  ASSERT_TRUE(on->isChecked());
  ASSERT_FALSE(off->isChecked());
  EXPECT_TRUE(on->text().startsWith(QStringLiteral("✓"))) << on->text().toStdString();
  EXPECT_FALSE(off->text().startsWith(QStringLiteral("✓")));
  const auto mean = [](QWidget* w) {
    const QImage image = w->grab().toImage().convertToFormat(QImage::Format_RGB32);
    double r = 0, g = 0, b = 0;
    for (int y = 0; y < image.height(); ++y)
      for (int x = 0; x < image.width(); ++x) {
        const QRgb c = image.pixel(x, y);
        r += qRed(c);
        g += qGreen(c);
        b += qBlue(c);
      }
    const double n = double(image.width()) * image.height();
    return std::array<double, 3>{r / n, g / n, b / n};
  };
  const auto a = mean(on);
  const auto b = mean(off);
  const double distance = std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                                    (a[2] - b[2]) * (a[2] - b[2]));
  EXPECT_GT(distance, 80.0) << "mean colours of checked and unchecked toggles";
}

// Leaving presenter mode gives the Setup panel back its own sizes: every
// button and box as large as before presenter mode, and the setup as wide.
TEST(DashboardPanel, LeavingPresenterModeRestoresTheSetupSizes) {
  Page p({tiny("fp32", 5)});
  const auto hints = [&] {
    std::vector<QSize> out;
    for (const QWidget* w : p.panel.setup()->findChildren<QAbstractButton*>())
      out.push_back(w->sizeHint());
    for (const QWidget* w : p.panel.setup()->findChildren<QComboBox*>()) {
      out.push_back(w->sizeHint());
      out.push_back(w->minimumSizeHint());
    }
    return out;
  };
  const std::vector<QSize> before = hints();
  ASSERT_FALSE(before.empty());
  const auto setupWidth = [&] { return settledValue([&] { return p.panel.setup()->minimumSizeHint().width(); }); };
  const int widthBefore = setupWidth();
  Theme::instance().setPresenter(true);
  QCoreApplication::processEvents();
  ASSERT_NE(hints(), before) << "presenter mode enlarges the setup";
  Theme::instance().setPresenter(false);
  QCoreApplication::processEvents();
  EXPECT_EQ(hints(), before);
  EXPECT_EQ(setupWidth(), widthBefore);
}

// The Watch panel shows every bit of the watched weight inside its dock: its
// long values wrap instead of pushing the bit cells past the right edge.
TEST(DashboardPanel, TheWatchedBitsAreNotCutOff) {
  Page p({tiny("fp16-mixed", 3)});
  p.panel.startAction()->trigger();
  ASSERT_TRUE(p.waitFor([&] { return p.panel.controller()->state() == RunController::State::Finished; }));
  auto* watchDock = p.panel.findChild<QDockWidget*>(QStringLiteral("watchDock"));
  ASSERT_NE(watchDock, nullptr);
  watchDock->raise();
  p.panel.refresh();
  const auto* scroll = p.panel.findChild<QScrollArea*>(QStringLiteral("watchScroll"));
  ASSERT_NE(scroll, nullptr);
  const QWidget* viewport = scroll->viewport();
  for (const char* name : {"watchMasterBits", "watchWorkingBits"}) {
    for (const BitCells* bits : p.panel.watchPanel()->findChildren<BitCells*>(QLatin1String(name))) {
      if (!bits->isVisible())
        continue;
      const auto inside = [&] {
        const int right = bits->mapTo(viewport, bits->cellRect(0).topRight()).x();
        const int left = bits->mapTo(viewport, bits->cellRect(bits->format().totalBits() - 1).topLeft()).x();
        return left >= 0 && right < viewport->width();
      };
      EXPECT_TRUE(QTest::qWaitFor(inside, 5000)) << name << ": cells beyond the dock's "
                                                  << viewport->width() << " px";
    }
  }
}

TEST(DashboardPanel, ScrubbingShowsTheRecordedStep) {
  Page p({tiny("fp32", 12)});
  p.panel.startAction()->trigger();
  // The run can report Finished before the GUI has drained its last frames
  // (the drain timer runs up to 33 ms later): wait for all twelve.
  ASSERT_TRUE(p.waitFor([&] {
    return p.panel.controller()->state() == RunController::State::Finished &&
           p.record(0).frames().size() == 12;
  }));
  p.panel.setHistogramSelection(1, telemetry::TensorClass::WeightGrads);
  p.panel.refresh();
  ASSERT_EQ(p.panel.heatmap()->rowCount(), 12);
  p.panel.heatmap()->selectStep(4);
  ASSERT_EQ(p.panel.scrubStep(), std::optional<std::int64_t>(4));
  const auto* recorded = p.record(0).frameAt(4)->find(1, telemetry::TensorClass::WeightGrads);
  ASSERT_NE(recorded, nullptr);
  const HistogramChart& h = *p.panel.histogramChart();
  EXPECT_TRUE(h.title().contains(QStringLiteral("step 4"))) << h.title().toStdString();
  // Every exponent's count in the chart's data equals the frame recorded at step 4.
  const QStringList lines = h.csv().split(u'\n', Qt::SkipEmptyParts);
  int checked = 0;
  for (const QString& line : lines.mid(1)) {
    const QStringList cells = line.split(u',');
    bool ok = false;
    const int e = cells[0].toInt(&ok);
    if (!ok)
      continue;
    EXPECT_EQ(cells[2].toULongLong(), recorded->hist.count(e)) << "exponent " << e;
    ++checked;
  }
  EXPECT_GT(checked, 0);
  // The step-4 histogram differs from the last one, so the check above means something.
  const auto* last = p.record(0).frames().back()->find(1, telemetry::TensorClass::WeightGrads);
  EXPECT_NE(last->hist, recorded->hist);
}

// The setup shows the bytes its runs need as the user edits, and the
// refusal a run past the memory available would meet.
TEST(DashboardPanel, SetupShowsTheMemoryTheRunsNeed) {
  QSettings().clear();
  TrainSetup setup;
  auto* memory = setup.findChild<QLabel*>(QStringLiteral("setupMemory"));
  ASSERT_NE(memory, nullptr);
  EXPECT_TRUE(memory->isVisibleTo(&setup));
  EXPECT_TRUE(memory->text().startsWith(QStringLiteral("Memory: the runs need "))) << memory->text().toStdString();
  auto* model = setup.findChild<QLineEdit*>(QStringLiteral("modelSpec"));
  auto* batch = setup.findChild<QSpinBox*>(QStringLiteral("batch"));
  ASSERT_NE(model, nullptr);
  ASSERT_NE(batch, nullptr);
  // Three runs of 105 GB each: past any machine's memory.
  model->setText(QStringLiteral("cnn:c1024k3-c1024k3"));
  batch->setValue(4096);
  const std::string text = memory->text().toStdString();
  EXPECT_EQ(text.rfind("memory: the runs need ", 0), 0u) << text;
  EXPECT_NE(text.find(" GB) but "), std::string::npos) << text;
  EXPECT_NE(text.find("(gradients "), std::string::npos) << text;
  EXPECT_NE(text.find(" is available"), std::string::npos) << text;
  // Back to a small model: the figure again, no refusal.
  model->setText(QStringLiteral("mlp:784-64-10"));
  EXPECT_TRUE(memory->text().startsWith(QStringLiteral("Memory: the runs need ")))
      << memory->text().toStdString();
}

TEST(DashboardPanel, SetupShowsModelProblemsInline) {
  QSettings().clear();
  TrainSetup setup;
  EXPECT_EQ(setup.checkedRecipes(),
            QStringList({QStringLiteral("fp32"), QStringLiteral("bf16-mixed"),
                         QStringLiteral("fp16-mixed")}));
  EXPECT_EQ(setup.configs().front().model, "mlp:784-256-256-10:relu");
  EXPECT_EQ(setup.configs().front().data, "mnist");
  auto* model = setup.findChild<QLineEdit*>(QStringLiteral("modelSpec"));
  ASSERT_NE(model, nullptr);
  // A field narrower than the spec shows its start ("mlp:784-…"), not "-10:relu".
  EXPECT_EQ(model->cursorPosition(), 0);
  model->setText(QStringLiteral("mlp:784-0-10"));
  EXPECT_FALSE(setup.problems().isEmpty());
  EXPECT_TRUE(setup.findChild<QLabel*>(QStringLiteral("modelError"))->isVisibleTo(&setup));
  setup.applyPreset(QStringLiteral("swamping"));
  EXPECT_EQ(setup.checkedRecipes(),
            QStringList({QStringLiteral("bf16-mixed"), QStringLiteral("bf16-pure"),
                         QStringLiteral("bf16-pure-sr")}));
  EXPECT_EQ(setup.problems(), QString());
  EXPECT_EQ(setup.configs().front().momentum, 0.0); // the preset's hidden fields survive
}

// At a projector the loss curve gets the width: the run setup joins the
// right-hand tab group in presenter mode, and leaving it gives back the
// arrangement the user had.
TEST(DashboardPanel, PresenterModeGivesTheLossCurveTheWidthAndLeavingRestoresTheLayout) {
  Page p({tiny("fp32", 5)});
  auto* setupDock = p.panel.findChild<QDockWidget*>(QStringLiteral("setupDock"));
  auto* scaleDock = p.panel.findChild<QDockWidget*>(QStringLiteral("lossScaleDock"));
  ASSERT_NE(setupDock, nullptr);
  ASSERT_NE(scaleDock, nullptr);
  ASSERT_EQ(p.panel.dockWidgetArea(setupDock), Qt::LeftDockWidgetArea);
  // Widths are read once the layout holds still: under load the first show
  // and each theme change take several event-loop turns to settle.
  const auto settledLossWidth = [&] { return settledValue([&] { return p.panel.lossChart()->width(); }); };
  const int lossWidth = settledLossWidth();

  Theme::instance().setPresenter(true);
  const int presenterWidth = settledLossWidth();
  EXPECT_TRUE(p.panel.tabifiedDockWidgets(scaleDock).contains(setupDock));
  EXPECT_EQ(p.panel.dockWidgetArea(setupDock), Qt::RightDockWidgetArea);
  EXPECT_GT(presenterWidth, lossWidth);

  Theme::instance().setPresenter(false);
  const int restoredWidth = settledLossWidth();
  EXPECT_EQ(p.panel.dockWidgetArea(setupDock), Qt::LeftDockWidgetArea);
  EXPECT_FALSE(p.panel.tabifiedDockWidgets(scaleDock).contains(setupDock));
  EXPECT_EQ(restoredWidth, lossWidth);
}

// The toolbar's progress text changes at every live frame: a new step count
// must not re-lay out the page (QLabel::setText invalidates the parent layout
// unless the label's size is fixed), and the text must still show in full.
TEST(DashboardPanel, ProgressTextChangesWithoutRelayingOutThePage) {
  LayoutRequests requests;
  QWidget page;
  auto* row = new QHBoxLayout(&page);
  auto* label = new QLabel;
  row->addWidget(label);
  row->addStretch();
  page.resize(900, 60);
  page.show();
  const auto fits = [&] {
    return label->width() >= label->fontMetrics().horizontalAdvance(label->text()) +
                                 label->contentsMargins().left() + label->contentsMargins().right();
  };
  setSteadyText(label, QStringLiteral("fp32 1/1000 · 5210 steps/s   bf16-mixed 1/1000"));
  QCoreApplication::sendPostedEvents();
  ASSERT_TRUE(fits());
  page.installEventFilter(&requests);
  for (int step = 2; step < 1000; step += 37) {
    setSteadyText(label, QStringLiteral("fp32 %1/1000 · 5210 steps/s   bf16-mixed %1/1000").arg(step));
    QCoreApplication::sendPostedEvents();
    EXPECT_TRUE(fits()) << "step " << step;
  }
  EXPECT_EQ(requests.count, 0) << "a new step count re-laid out the page";
  // A much longer text (a third run) widens the label; a much shorter one narrows it.
  setSteadyText(label, QStringLiteral("fp32 999/1000   bf16-mixed 999/1000   fp16-mixed 999/1000 · "
                                      "test 97.50 % · diverged"));
  QCoreApplication::sendPostedEvents();
  EXPECT_TRUE(fits());
  const int wide = label->width();
  setSteadyText(label, QStringLiteral("fp32 1/10"));
  QCoreApplication::sendPostedEvents();
  EXPECT_TRUE(fits());
  EXPECT_LT(label->width(), wide / 2) << label->minimumWidth() << " " << label->maximumWidth();
}

// The watch panel's texts change at every step (value, rounding error, step,
// gradient): a new sample repaints its labels, it does not re-lay out the
// dock and the page around it (which repainted the whole window per drain).
TEST(DashboardPanel, AWatchedValueChangesWithoutRelayingOutTheDock) {
  LayoutRequests requests;
  QWidget page;
  auto* column = new QVBoxLayout(&page);
  auto* watch = new WatchPanel;
  column->addWidget(watch);
  page.resize(700, 500);
  page.show();
  watch->setModelWidths({784, 256, 10});
  WatchSample s;
  s.layer = 0;
  s.index = 0;
  s.working = DType::BF16;
  const auto sample = [&](std::int64_t step) {
    s.master = 0.0123f + 1e-5f * float(step % 17);
    s.workingBits = std::bit_cast<std::uint32_t>(s.master) >> 16;
    s.gradient = -3.5e-4f * float(step % 5 + 1);
    watch->setSample(s, step);
    QCoreApplication::sendPostedEvents();
  };
  sample(1000);
  // Deliver what the first sample posted (its layout requests) before counting.
  QCoreApplication::sendPostedEvents();
  QCoreApplication::processEvents();
  page.installEventFilter(&requests);
  watch->installEventFilter(&requests);
  for (std::int64_t step = 1001; step < 1040; ++step)
    sample(step);
  EXPECT_EQ(requests.count, 0) << "a new watched value re-laid out the panel's parent";
  EXPECT_TRUE(watch->findChild<QLabel*>(QStringLiteral("watchLive"))->text().contains(QStringLiteral("1039")));
}

} // namespace
} // namespace mantissa::ui

namespace mantissa::ui {
namespace {

// For image data the model chooser offers the CNNs, and picking one fills the
// model field; for data without an image shape it offers none.
TEST(DashboardPanel, ModelChooserOffersTheCnnsForImageData) {
  QSettings().clear();
  TrainSetup setup;
  auto* choice = setup.findChild<QComboBox*>(QStringLiteral("modelChoice"));
  auto* model = setup.findChild<QLineEdit*>(QStringLiteral("modelSpec"));
  ASSERT_NE(choice, nullptr);
  ASSERT_NE(model, nullptr);
  ASSERT_EQ(setup.configs().front().data, "mnist");
  const int lenet = choice->findData(QStringLiteral("cnn:lenet"));
  ASSERT_GE(lenet, 0);
  EXPECT_GE(choice->findData(QStringLiteral("cnn:lenet-bn")), 0);
  choice->setCurrentIndex(lenet);
  emit choice->activated(lenet);
  EXPECT_EQ(model->text(), QStringLiteral("cnn:lenet"));
  EXPECT_EQ(setup.configs().front().model, "cnn:lenet");
  EXPECT_EQ(setup.problems(), QString());
  model->setText(QStringLiteral("cnn:c32k7"));
  EXPECT_TRUE(setup.findChild<QLabel*>(QStringLiteral("modelError"))->isVisibleTo(&setup));
  auto runs = setup.configs();
  runs.front().data = "spirals";
  setup.setConfigs(runs);
  EXPECT_LT(choice->findData(QStringLiteral("cnn:lenet")), 0);
  EXPECT_FALSE(choice->isEnabled());
}

// Every registered image family (model/model_registry.h) is offered for
// MNIST, and each offer, once picked, is a run configuration Setup accepts.
TEST(DashboardPanel, ModelChooserOffersEveryRegisteredImageFamily) {
  QSettings().clear();
  TrainSetup setup;
  auto* choice = setup.findChild<QComboBox*>(QStringLiteral("modelChoice"));
  ASSERT_NE(choice, nullptr);
  int offers = 0;
  for (const model::ModelKind* kind : model::modelKinds()) {
    if (kind->input != model::ModelInput::Images)
      continue;
    for (const model::ModelOffer& offer : kind->offered) {
      const int at = choice->findData(QString::fromUtf8(offer.spec));
      ASSERT_GE(at, 0) << offer.spec;
      EXPECT_FALSE(choice->itemData(at, Qt::ToolTipRole).toString().isEmpty()) << offer.spec;
      choice->setCurrentIndex(at);
      emit choice->activated(at);
      EXPECT_EQ(setup.configs().front().model, offer.spec);
      EXPECT_EQ(setup.problems(), QString()) << offer.spec;
      ++offers;
    }
  }
  EXPECT_GE(offers, 3);
}

// A CNN runs on the Train page like any model: the layer picker names each
// conv block, the histogram and heat map show a conv layer's weight
// gradients, and the op table lists the convolutions with their kernel and
// their time apart from the matmuls'.
TEST(DashboardPanel, ACnnRunShowsItsConvLayersAndConvolutionOps) {
  train::RunConfig c;
  c.data = "mnist";
  c.model = "cnn:c4k3b-p2-f8";
  c.recipe = "bf16-mixed";
  c.batch = 16;
  c.steps = 6;
  c.telemetryEvery = 1;
  Page p({c});
  p.panel.startAction()->trigger();
  ASSERT_TRUE(p.waitFor([&] { return p.record(0).lastStep() == 5; }));
  p.panel.setSelectedRun(0);
  p.panel.refresh();
  auto* layers = p.panel.findChild<QComboBox*>(QStringLiteral("histogramLayer"));
  ASSERT_NE(layers, nullptr);
  ASSERT_EQ(layers->count(), 3);
  EXPECT_TRUE(layers->itemText(0).contains(QStringLiteral("conv 3×3 1→4 +BN +pool")))
      << layers->itemText(0).toStdString();
  EXPECT_TRUE(layers->itemText(1).contains(QStringLiteral("linear 784→8")))
      << layers->itemText(1).toStdString();
  EXPECT_GT(p.panel.histogramChart()->barSeries()->upperSeries()->count(), 0);
  EXPECT_EQ(p.panel.heatmap()->rowCount(), 6);
  const QTableWidget* ops = p.panel.opTable()->precisionTable();
  QStringList opNames;
  for (int r = 0; r < ops->rowCount(); ++r)
    opNames << ops->item(r, 0)->text();
  const int conv = int(opNames.indexOf(QStringLiteral("convolution inputs")));
  ASSERT_GE(conv, 0) << opNames.join(", ").toStdString();
  EXPECT_EQ(ops->item(conv, 1)->text(), QStringLiteral("bf16"));
  EXPECT_TRUE(ops->item(conv, 2)
                  ->text()
                  .remove(QChar(0x200B))
                  .contains(QStringLiteral("oneDNN kernels: forward")));
  EXPECT_TRUE(opNames.contains(QStringLiteral("BatchNorm statistics")));
  const QTableWidget* times = p.panel.opTable()->timeTable();
  QStringList kinds;
  for (int r = 0; r < times->rowCount(); ++r)
    kinds << times->item(r, 0)->text();
  EXPECT_TRUE(kinds.contains(QStringLiteral("convolution forward"))) << kinds.join(", ").toStdString();
  EXPECT_TRUE(kinds.contains(QStringLiteral("convolution backward")));
  EXPECT_TRUE(kinds.contains(QStringLiteral("matmul forward")));
}

} // namespace
} // namespace mantissa::ui

namespace mantissa::ui {
namespace {

// Runs of one recipe are told apart by what differs between them, in the
// Inspect-run box and the legends; the box's selection stays on the run it
// was on when the runs change (here a preset replaces them), not on the index.
TEST(DashboardPanel, RunsOfOneRecipeHaveDistinctNamesAndTheInspectedRunStaysSelected) {
  Page p({tiny("fp32", 10), tiny("bf16-mixed", 10), tiny("fp16-mixed", 10)});
  RunController* c = p.panel.controller();
  auto* picker = p.panel.findChild<QComboBox*>(QStringLiteral("runPicker"));
  ASSERT_NE(picker, nullptr);

  train::RunConfig scaled = tiny("fp16-mixed", 10);
  scaled.scaler = "pytorch";
  train::RunConfig unscaled = tiny("fp16-mixed", 10);
  unscaled.scaler = "none";
  ASSERT_EQ(c->setRuns({scaled, unscaled, tiny("fp32", 10)}), QString());
  ASSERT_EQ(c->runCount(), 3);
  EXPECT_EQ(c->runName(0), QStringLiteral("fp16-mixed · scaler pytorch"));
  EXPECT_EQ(c->runName(1), QStringLiteral("fp16-mixed · no scaler"));
  EXPECT_EQ(c->runName(2), QStringLiteral("fp32"));
  ASSERT_EQ(picker->count(), 3);
  QStringList items;
  for (int i = 0; i < picker->count(); ++i)
    items << picker->itemText(i);
  EXPECT_EQ(items.size(), QSet<QString>(items.begin(), items.end()).size()) << items.join(" | ").toStdString();
  EXPECT_EQ(p.panel.lossChart()->trainSeries(c->runId(1))->name(), c->runName(1));

  // The default runs again, bf16-mixed inspected (the second run); the
  // swamping preset's runs are bf16-pure, bf16-pure-sr, bf16-mixed.
  ASSERT_EQ(c->setRuns({tiny("fp32", 10), tiny("bf16-mixed", 10), tiny("fp16-mixed", 10)}), QString());
  p.panel.setSelectedRun(1);
  ASSERT_EQ(picker->currentText(), QStringLiteral("bf16-mixed"));
  p.panel.setup()->applyPreset(QStringLiteral("swamping"));
  ASSERT_EQ(c->runCount(), 3);
  // Their plain SGD (momentum 0) has no field in Setup: the names carry it.
  ASSERT_EQ(c->runName(1), QStringLiteral("bf16-pure-sr · momentum 0"));
  ASSERT_GE(p.panel.selectedRun(), 0);
  EXPECT_EQ(c->runName(p.panel.selectedRun()), QStringLiteral("bf16-mixed · momentum 0"));
  EXPECT_EQ(picker->currentText(), QStringLiteral("bf16-mixed · momentum 0"));
}

} // namespace
} // namespace mantissa::ui
