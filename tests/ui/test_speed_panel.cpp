// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The Speed panel on the tiny benchmark configuration, offscreen: a run
// moves the progress bar and fills the charts and tables from the report,
// the report is remembered for this machine and the next run is compared
// with it; cancel stops a run and remembers nothing. Never timings.
#include "ui/charts/memory_chart.h"
#include "ui/charts/scaling_chart.h"
#include "ui/charts/step_time_chart.h"
#include "ui/charts/throughput_chart.h"
#include "ui/panels/scaling_view.h"
#include "ui/panels/speed_panel.h"

#include "chart_text.h"

#include "ui/app_shell/theme.h"

#include <mantissa/amp/recipe.h>
#include <mantissa/bench/bench_report.h>
#include <mantissa/kernels/matmul_path.h>

#include <nlohmann/json.hpp>

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QTabWidget>
#include <QFile>
#include <QLabel>
#include <QLineSeries>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>

namespace mantissa::ui {
namespace {

bool waitFinished(SpeedPanel& panel, QSignalSpy& spy, int& maxProgress) {
  for (int i = 0; i < 1200 && spy.isEmpty(); ++i) { // up to 120 s on a loaded machine
    QTest::qWait(100);
    maxProgress = std::max(maxProgress, panel.progressBar()->value());
  }
  return !spy.isEmpty();
}

TEST(SpeedPanel, RunShowsRemembersAndCompares) {
  QFile::remove(SpeedPanel(bench::BenchOptions::tiny()).rememberedPath());
  SpeedPanel panel(bench::BenchOptions::tiny());
  panel.resize(1200, 800);
  panel.show();
  EXPECT_FALSE(panel.previous().has_value());
  QSignalSpy spy(&panel, &SpeedPanel::finished);
  QTest::mouseClick(panel.runButton(), Qt::LeftButton);
  EXPECT_TRUE(panel.running());
  EXPECT_FALSE(panel.runButton()->isEnabled());
  EXPECT_TRUE(panel.cancelButton()->isEnabled());
  int maxProgress = 0;
  ASSERT_TRUE(waitFinished(panel, spy, maxProgress));
  EXPECT_FALSE(panel.running());
  EXPECT_EQ(panel.progressBar()->value(), panel.progressBar()->maximum());
  ASSERT_TRUE(panel.current().has_value());
  const bench::BenchReport r = *panel.current(); // a copy: the next run replaces current()
  ASSERT_EQ(r.steps.size(), 2u);

  // Charts and tables carry the report's numbers.
  EXPECT_EQ(panel.stepChart()->partSet(0)->count(), 2);
  EXPECT_DOUBLE_EQ(panel.stepChart()->barValue(0, 1), bench::matmulMs(r.steps[1]));
  EXPECT_EQ(panel.throughputChart()->peakSeries()->at(0).y(), r.peak.fp32Gflops);
  // What this CPU can do: one row per probe path, absent ones say so.
  ASSERT_EQ(panel.probeTable()->rowCount(), int(r.probe.paths.size()));
  for (int i = 0; i < int(r.probe.paths.size()); ++i) {
    const auto& p = r.probe.paths[std::size_t(i)];
    EXPECT_EQ(panel.probeTable()->item(i, 2)->text(),
              p.present ? QString::number(p.gflopsPerCore, 'f', 1) : QStringLiteral("absent"));
  }
  // Each recipe against fp32, with its reason; no targets anywhere.
  ASSERT_EQ(panel.versusTable()->rowCount(), 2);
  EXPECT_EQ(panel.versusTable()->item(1, 1)->text(),
            QString::number(r.steps[1].medianMs / r.steps[0].medianMs, 'f', 2) + "x");
  EXPECT_FALSE(panel.versusTable()->item(1, 2)->text().isEmpty());
  EXPECT_EQ(panel.stepsTable()->rowCount(), 2);
  EXPECT_EQ(panel.stepsTable()->item(0, 1)->text(), QString::number(r.steps[0].medianMs, 'f', 2));
  const bool bf16Emulated = r.steps[1].matmulEmulated;
  EXPECT_EQ(panel.stepsTable()->item(1, 0)->text().contains("(emulated)"), bf16Emulated);
  EXPECT_EQ(panel.stepsTable()->item(1, 3)->text(), "-"); // nothing remembered before
  // Which path each 16-bit product took and why: bf16-mixed's five products
  // of mlp:784-32-10 at batch 16 (fp32's have one path and are not listed).
  const QTableWidget* paths = panel.matmulPathTable();
  ASSERT_EQ(paths->rowCount(), 5);
  const QStringList products{"layer 0 forward", "layer 0 dW", "layer 1 forward", "layer 1 dX",
                             "layer 1 dW"};
  const QStringList shapes{"16×32, K 784", "784×32, K 16", "16×10, K 32", "16×32, K 10",
                           "32×10, K 16"};
  ASSERT_EQ(r.steps[1].matmuls.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    const auto& use = r.steps[1].matmuls[std::size_t(i)];
    EXPECT_EQ(paths->item(i, 0)->text(), "bf16-mixed");
    EXPECT_EQ(paths->item(i, 1)->text(), products[i]);
    EXPECT_EQ(paths->item(i, 2)->text(), shapes[i]);
    EXPECT_EQ(paths->item(i, 3)->text(), use.path == kernels::MatmulPath::Native
                                             ? "native BF16"
                                             : "FP32 compute on BF16 data");
    EXPECT_TRUE(paths->item(i, 4)->text().startsWith(QString::fromStdString(use.kernel)))
        << paths->item(i, 4)->text().toStdString();
  }

  // Remembered, and read back as the report shown.
  QFile f(panel.rememberedPath());
  ASSERT_TRUE(f.open(QIODevice::ReadOnly)) << panel.rememberedPath().toStdString();
  const auto saved = nlohmann::json::parse(f.readAll().toStdString());
  EXPECT_EQ(saved, bench::toJson(r));

  // A second run is compared with the first.
  spy.clear();
  QTest::mouseClick(panel.runButton(), Qt::LeftButton);
  ASSERT_TRUE(waitFinished(panel, spy, maxProgress));
  EXPECT_EQ(panel.stepsTable()->item(0, 3)->text(), QString::number(r.steps[0].medianMs, 'f', 2));
  EXPECT_NE(panel.stepsTable()->item(0, 4)->text(), "-");

  // A new panel starts from the remembered run.
  SpeedPanel again(bench::BenchOptions::tiny());
  ASSERT_TRUE(again.previous().has_value());
  EXPECT_EQ(bench::toJson(*again.previous()), bench::toJson(*panel.current()));
  QFile::remove(panel.rememberedPath());
}

// The CNN's steps: a bar each beside the MLP's with convolution as its own
// part (matmul apart), and a row each in the step table.
TEST(SpeedPanel, CnnStepsShowConvolutionApartFromMatmul) {
  auto options = bench::BenchOptions::tiny();
  options.cnnSteps = bench::BenchOptions::defaultCnnSteps();
  options.cnnSteps.model = "cnn:c4k3-p2-f8"; // small: the plumbing, not the figures
  options.cnnSteps.batch = 8;
  options.cnnSteps.warmup = 1;
  options.cnnSteps.repetitions = 2;
  options.cnnSteps.recipes = {"fp32", "bf16-mixed"};
  SpeedPanel panel(options);
  QFile::remove(panel.rememberedPath());
  QSignalSpy spy(&panel, &SpeedPanel::finished);
  panel.start();
  int maxProgress = 0;
  ASSERT_TRUE(waitFinished(panel, spy, maxProgress));
  ASSERT_TRUE(panel.current().has_value());
  const bench::BenchReport r = *panel.current();
  ASSERT_EQ(r.steps.size(), 2u);
  ASSERT_EQ(r.cnnSteps.size(), 2u);
  // Parts: matmul, convolution, conversion, ...; bars: the MLP's two, then the CNN's.
  const StepTimeChart* chart = panel.stepChart();
  ASSERT_EQ(chart->partSet(1)->label(), QStringLiteral("convolution"));
  ASSERT_EQ(chart->partSet(1)->count(), 4);
  EXPECT_EQ(chart->barValue(1, 0), 0.0);
  for (int i = 0; i < 2; ++i) {
    const auto& b = r.cnnSteps[std::size_t(i)].breakdownMs;
    EXPECT_GT(chart->barValue(1, 2 + i), 0.0);
    EXPECT_DOUBLE_EQ(chart->barValue(1, 2 + i), b.convForward + b.convBackward);
    EXPECT_DOUBLE_EQ(chart->barValue(0, 2 + i), b.matmulForward + b.matmulBackward);
  }
  ASSERT_EQ(panel.stepsTable()->rowCount(), 4);
  EXPECT_TRUE(panel.stepsTable()->item(2, 0)->text().startsWith("cnn:c4k3-p2-f8 fp32"))
      << panel.stepsTable()->item(2, 0)->text().toStdString();
  EXPECT_EQ(panel.stepsTable()->item(3, 1)->text(),
            QString::number(r.cnnSteps[1].medianMs, 'f', 2));
  QFile::remove(panel.rememberedPath());
}

TEST(SpeedPanel, CancelStopsAndRemembersNothing) {
  auto options = bench::BenchOptions::tiny();
  options.matmul.squareSizes = {32, 64, 96, 128, 160, 192}; // enough boundaries to cancel at
  SpeedPanel panel(options);
  QFile::remove(panel.rememberedPath());
  QSignalSpy spy(&panel, &SpeedPanel::finished);
  panel.start();
  QTest::mouseClick(panel.cancelButton(), Qt::LeftButton);
  int maxProgress = 0;
  ASSERT_TRUE(waitFinished(panel, spy, maxProgress));
  ASSERT_TRUE(panel.current().has_value());
  EXPECT_TRUE(panel.current()->cancelled);
  EXPECT_TRUE(panel.current()->steps.empty());
  EXPECT_FALSE(QFile::exists(panel.rememberedPath()));
  EXPECT_TRUE(panel.runButton()->isEnabled());
}

// A projector at 1280x720 in presenter mode leaves the page about 1180x590:
// the 2 x 2 grid squeezed every chart until its ticks, categories and legend
// entries were "..." (screenshot). There the charts and the tables go one per
// tab, each reads in full, and the category names keep the presenter size; on
// a 1920x1080 desktop (the window opens at 1600x1000: a page of about
// 1580x880) they stay side by side, also in full.
TEST(SpeedPanel, EveryChartReadsInFullOnAProjectorAndOnADesktop) {
  SpeedPanel panel(bench::BenchOptions::tiny());
  QFile::remove(panel.rememberedPath());
  QSignalSpy spy(&panel, &SpeedPanel::finished);
  panel.start();
  int maxProgress = 0;
  ASSERT_TRUE(waitFinished(panel, spy, maxProgress));
  QFile::remove(panel.rememberedPath());
  const auto readable = [&](QWidget& root) {
    QStringList unreadable;
    (void)QTest::qWaitFor(
        [&] {
          unreadable = unreadableChartTexts(root);
          return unreadable.isEmpty();
        },
        3000);
    return unreadable.join(u'\n').toStdString();
  };
  {
    Theme::instance().setPresenter(true);
    panel.resize(1180, 590);
    panel.show();
    ASSERT_TRUE(QTest::qWaitFor([&] { return panel.tabbed(); }, 5000)); // once laid out
    ASSERT_EQ(panel.tabs()->count(), 5);
    for (int i = 0; i < panel.tabs()->count(); ++i) {
      SCOPED_TRACE(panel.tabs()->tabText(i).toStdString());
      panel.tabs()->setCurrentIndex(i);
      EXPECT_EQ(readable(*panel.tabs()->currentWidget()), "");
    }
    auto* categories =
        qobject_cast<QBarCategoryAxis*>(panel.stepChart()->chart()->axes(Qt::Vertical).value(0));
    ASSERT_NE(categories, nullptr);
    EXPECT_GE(categories->labelsFont().pointSizeF(), ChartStyle::presenter(false).labelFont().pointSizeF());
    Theme::instance().setPresenter(false);
  }
  panel.resize(1580, 880);
  EXPECT_TRUE(QTest::qWaitFor([&] { return !panel.tabbed(); }, 5000)); // once laid out
  EXPECT_TRUE(panel.stepChart()->isVisible() && panel.memoryChart()->isVisible() &&
              panel.throughputChart()->isVisible() && panel.probeTable()->isVisible());
  EXPECT_EQ(readable(panel), "");
}

// Every recipe benchmarked (twelve MLP bars, the FP8 ones among them, and the
// CNN's three): each recipe's name reads in full on the step-time and memory
// charts, with "(FP32 compute)" where the 16-bit products ran as FP32 and the
// CNN's model before its recipe, on a desktop (the 2 x 2 grid of a
// 1600 x 1000 window) and on a projector (one chart per tab, presenter type).
// Side by side on a category axis under the bars they were "fp8-...",
// "bf16-m..." (screenshot).
// The category names of a bar chart that Qt Charts hid (it hides a name
// that would overlap the next one), as "name, name" ("" when all show).
std::string hiddenCategories(const StackedBarChart& chart) {
  QStringList hidden = chart.shownCategories();
  for (QGraphicsItem* item : chart.chart()->scene()->items())
    if (const auto* text = dynamic_cast<QGraphicsTextItem*>(item); text != nullptr && text->isVisible())
      hidden.removeAll(text->toPlainText());
  return hidden.join(QStringLiteral(", ")).toStdString();
}

TEST(SpeedPanel, EveryRecipeNameReadsInFullWithEveryRecipeBenchmarked) {
  auto options = bench::BenchOptions::tiny();
  options.steps.recipes = amp::recipeNames();
  options.steps.repetitions = 2;
  options.cnnSteps = bench::BenchOptions::defaultCnnSteps();
  options.cnnSteps.model = "cnn:c4k3-p2-f8"; // small: the labels, not the figures
  options.cnnSteps.batch = 8;
  options.cnnSteps.warmup = 1;
  options.cnnSteps.repetitions = 2;
  const kernels::MatmulPath path = kernels::matmulPath();
  kernels::setMatmulPath(kernels::MatmulPath::Fp32Compute); // every 16-bit bar says so
  SpeedPanel panel(options);
  QFile::remove(panel.rememberedPath());
  QSignalSpy spy(&panel, &SpeedPanel::finished);
  panel.start();
  int maxProgress = 0;
  const bool finished = waitFinished(panel, spy, maxProgress);
  kernels::setMatmulPath(path);
  ASSERT_TRUE(finished);
  QFile::remove(panel.rememberedPath());
  ASSERT_EQ(panel.current()->steps.size(), amp::recipeNames().size());
  ASSERT_EQ(panel.current()->cnnSteps.size(), 3u);
  const auto readable = [&](QWidget& root) {
    QStringList unreadable;
    (void)QTest::qWaitFor(
        [&] {
          unreadable = unreadableChartTexts(root);
          return unreadable.isEmpty();
        },
        3000);
    return unreadable.join(u'\n').toStdString();
  };
  panel.resize(1580, 880);
  panel.show();
  ASSERT_TRUE(QTest::qWaitFor([&] { return !panel.tabbed() && panel.stepChart()->isVisible(); }, 5000));
  for (const StackedBarChart* chart : {static_cast<const StackedBarChart*>(panel.stepChart()),
                                       static_cast<const StackedBarChart*>(panel.memoryChart())}) {
    EXPECT_EQ(readable(*const_cast<StackedBarChart*>(chart)), "");
    EXPECT_EQ(hiddenCategories(*chart), "");
  }
  EXPECT_EQ(panel.stepChart()->shownCategories().size(), 15);
  EXPECT_TRUE(panel.stepChart()->shownCategories().contains("bf16-mixed *"));
  EXPECT_TRUE(panel.stepChart()->shownCategories().contains("cnn:c4k3-p2-f8 fp16-mixed *"));
  Theme::instance().setPresenter(true);
  panel.resize(1180, 590);
  ASSERT_TRUE(QTest::qWaitFor([&] { return panel.tabbed(); }, 5000));
  for (StackedBarChart* chart : {static_cast<StackedBarChart*>(panel.stepChart()),
                                 static_cast<StackedBarChart*>(panel.memoryChart())}) {
    panel.tabs()->setCurrentIndex(panel.tabs()->indexOf(chart));
    EXPECT_EQ(readable(*chart), "");
    std::string hidden;
    (void)QTest::qWaitFor([&] { return (hidden = hiddenCategories(*chart)).empty(); }, 3000);
    EXPECT_EQ(hidden, "");
  }
  Theme::instance().setPresenter(false);
}

} // namespace

// The Model size view reads a scaling result written here by hand (two
// sizes; PyTorch measured for the first only): MFU = FLOPs per step / step
// time / peak, worked out below; the table and the CSV hold every size; a
// damaged file is refused with the field named and the shown result kept;
// the last result opened comes back in a new view.
TEST(SpeedPanel, ModelSizeViewShowsAScalingResult) {
  QFile::remove(ScalingView::rememberedPath());
  QTemporaryDir dir;
  const QString good = dir.filePath("scaling.json");
  {
    QFile f(good);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(R"json({"schema": 1, "cpu_model": "Test CPU", "isa": "AVX512_BF16", "recipe": "bf16-mixed",
      "threads": 2, "peak_gflops": 400, "peak_source": "vdpbf16ps zmm, 2 thread(s)",
      "torch_version": "1.13.0",
      "sizes": [
        {"layers": 4, "heads": 4, "embd": 128, "ctx": 64, "batch": 12, "vocab": 65,
         "params": 808704, "flops_per_step": 4.0e9, "steps": 15, "step_ms": 50, "step_min_ms": 48,
         "step_max_ms": 55, "matmul_ms": 25, "peak_rss_bytes": 125829120,
         "torch": {"step_ms": 100, "step_min_ms": 90, "step_max_ms": 120,
                   "peak_rss_bytes": 314572800}, "torch_error": ""},
        {"layers": 6, "heads": 6, "embd": 384, "ctx": 256, "batch": 64, "vocab": 65,
         "params": 10770000, "flops_per_step": 1.2e12, "steps": 3, "step_ms": 6000,
         "step_min_ms": 5900, "step_max_ms": 6100, "matmul_ms": 5000, "peak_rss_bytes": 1073741824,
         "torch": null, "torch_error": "python3 failed"}],
      "threads_scaling": [{"threads": 1, "step_ms": 90}, {"threads": 2, "step_ms": 50}]})json");
  }
  ScalingView view;
  view.resize(1000, 700);
  view.show();
  EXPECT_EQ(view.open(good), "");
  ASSERT_TRUE(view.scaling().has_value());
  // 4e9 FLOP / 50 ms = 80 GFLOP/s = 20 % of 400; products: 4e9 / 25 ms = 40 %;
  // PyTorch 4e9 / 100 ms = 10 %. 1.2e12 / 6 s = 200 GFLOP/s = 50 %; / 5 s = 60 %.
  const QLineSeries* step = view.chart()->stepSeries();
  ASSERT_EQ(step->count(), 2);
  EXPECT_DOUBLE_EQ(step->at(0).x(), 4.0);
  EXPECT_NEAR(step->at(0).y(), 20.0, 1e-9);
  EXPECT_NEAR(step->at(1).y(), 50.0, 1e-9);
  ASSERT_EQ(view.chart()->matmulSeries()->count(), 2);
  EXPECT_NEAR(view.chart()->matmulSeries()->at(0).y(), 40.0, 1e-9);
  EXPECT_NEAR(view.chart()->matmulSeries()->at(1).y(), 60.0, 1e-9);
  ASSERT_EQ(view.chart()->torchSeries()->count(), 1);
  EXPECT_NEAR(view.chart()->torchSeries()->at(0).y(), 10.0, 1e-9);
  EXPECT_TRUE(view.chart()->torchSeries()->name().contains("1.13.0"));
  ASSERT_EQ(view.table()->rowCount(), 2);
  EXPECT_EQ(view.table()->item(1, 0)->text(), "6x384 ctx 256 b 64");
  EXPECT_EQ(view.table()->item(0, 4)->text(), "20 %");
  EXPECT_EQ(view.table()->item(1, 7)->text(), "python3 failed");
  EXPECT_TRUE(view.statusLabel()->text().contains("speed-up 1.80")) << view.statusLabel()->text().toStdString();
  const QStringList csv = view.chart()->csv().split(u'\n', Qt::SkipEmptyParts);
  ASSERT_EQ(csv.size(), 3);
  EXPECT_TRUE(csv[1].startsWith("4x128 ctx 64 b 12,4,4,128,64,12,808704,4,15,50,48,55,25,0.2,0.4,125829120,100,0.1,314572800,0.5"))
      << csv[1].toStdString();

  const QString bad = dir.filePath("bad.json");
  {
    QFile f(bad);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    QFile in(good);
    ASSERT_TRUE(in.open(QIODevice::ReadOnly));
    const QByteArray text = in.readAll().replace("\"step_ms\": 6000", "\"step_ms\": \"slow\"");
    f.write(text);
  }
  const QString message = view.open(bad);
  EXPECT_TRUE(message.contains("bad.json") && message.contains("sizes[1].step_ms")) << message.toStdString();
  EXPECT_EQ(view.chart()->stepSeries()->count(), 2) << "the result shown stays";

  ScalingView again;
  ASSERT_TRUE(again.scaling().has_value());
  EXPECT_EQ(again.table()->rowCount(), 2);
  QFile::remove(ScalingView::rememberedPath());
}

} // namespace mantissa::ui
