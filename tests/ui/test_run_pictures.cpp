// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// What the Train page's pictures say agrees with the run: the histogram and
// the heat map shade the limits of the format the run holds each tensor in
// (BF16 for a bf16 run, FP8 E5M2 for an fp8-delayed run's dY), and another
// format only when asked, said as "as it would be in".

#include "drain_wait.h"
#include "ui/bridge/run_controller.h"
#include "ui/bridge/run_loader.h"
#include "ui/charts/histogram_chart.h"
#include "ui/charts/chart_widget.h"
#include "ui/charts/curve_layer.h"
#include "ui/charts/histogram_heatmap.h"
#include "ui/charts/lesson_chart.h"
#include "ui/charts/loss_chart.h"
#include "ui/panels/op_table_panel.h"
#include "ui/panels/train_panel.h"
#include "ui/panels/train_panel_setup.h"
#include "ui/report/run_charts.h"

#include <mantissa/amp/policy.h>
#include <mantissa/amp/recipe.h>
#include <mantissa/lessons/demo_registry.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/run_log.h>

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QTemporaryDir>
#include <QSettings>
#include <QTableWidget>
#include <QTextDocumentFragment>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mantissa::ui {
namespace {

using numeric::FormatId;
using telemetry::TensorClass;

train::RunConfig tiny(const std::string& recipe, std::int64_t steps) {
  train::RunConfig c;
  c.data = "spirals";
  c.model = "mlp:2-32-32-2:tanh";
  c.recipe = recipe;
  c.batch = 32;
  c.steps = steps;
  c.telemetryEvery = 2;
  c.evalEvery = 10;
  return c;
}

struct Page {
  explicit Page(std::vector<train::RunConfig> runs) {
    QSettings().clear();
    panel.resize(1400, 1000);
    panel.show();
    panel.setup()->setConfigs(runs);
    EXPECT_EQ(panel.applySetup(), QString());
  }
  bool trainToTheEnd() {
    panel.startAction()->trigger();
    RunController& c = *panel.controller();
    return waitDrained(c, [&] { return c.state() == RunController::State::Finished; }, 60000);
  }
  TrainPanel panel;
};

TEST(RunPictures, HistogramAndHeatMapShadeTheRunsOwnFormat) {
  Page p({tiny("bf16-mixed", 12), tiny("fp8-delayed", 12)});
  ASSERT_TRUE(p.trainToTheEnd());
  HistogramChart& hist = *p.panel.histogramChart();
  HistogramHeatmap& heat = *p.panel.heatmap();

  // bf16-mixed: weight gradients are BF16; nothing is said of FP16.
  p.panel.setSelectedRun(0);
  p.panel.setHistogramSelection(1, TensorClass::WeightGrads);
  p.panel.redrawAll();
  EXPECT_EQ(hist.runFormat(), FormatId::Bf16);
  EXPECT_TRUE(hist.isFormatVisible(FormatId::Bf16));
  EXPECT_FALSE(hist.isFormatVisible(FormatId::Fp16));
  EXPECT_EQ(hist.regionBounds(FormatId::Bf16, RegionKind::FlushToZero).second, -126.0);
  EXPECT_EQ(heat.limitsFormat(), FormatId::Bf16);
  for (const QString& label : heat.regionLabelTexts())
    EXPECT_FALSE(label.contains(QStringLiteral("FP16"))) << label.toStdString();
  // FP16 only when asked, and then as a format the run is not in.
  hist.setFormatVisible(FormatId::Fp16, true);
  EXPECT_EQ(hist.regionLabel(FormatId::Fp16, RegionKind::FlushToZero), QStringLiteral("if FP16: → 0"));
  EXPECT_TRUE(hist.title().contains(QStringLiteral("shaded as it would be in FP16")))
      << hist.title().toStdString();

  // fp8-delayed: dY is quantized to E5M2 (weight gradients stay BF16).
  p.panel.setSelectedRun(1);
  p.panel.setHistogramSelection(1, TensorClass::WeightGrads);
  p.panel.redrawAll();
  EXPECT_EQ(hist.runFormat(), FormatId::Bf16);
  EXPECT_EQ(heat.limitsFormat(), FormatId::Bf16);
  p.panel.setHistogramSelection(1, TensorClass::ActivationGrads);
  p.panel.redrawAll();
  EXPECT_EQ(hist.runFormat(), FormatId::Fp8E5M2);
  EXPECT_TRUE(hist.isFormatVisible(FormatId::Fp8E5M2));
  EXPECT_FALSE(hist.isFormatVisible(FormatId::Fp16));
  EXPECT_FALSE(hist.isFormatVisible(FormatId::Bf16));
  EXPECT_EQ(heat.limitsFormat(), FormatId::Fp8E5M2);
  // E5M2 holds dY times its delayed scale: the limits sit -log2(scale)
  // binades from the format's own (smallest subnormal 2^-16, zero below 2^-17),
  // with the scale the log recorded for that step.
  const auto log = p.panel.controller()->runLog(1, nullptr);
  ASSERT_TRUE(log.has_value());
  const std::int64_t shown = p.panel.controller()->record(1).frames().back()->step;
  const telemetry::ScaledTensorStats* dy = nullptr;
  for (const auto& frame : log->scaling)
    if (frame.step == shown)
      dy = frame.find("layer1.dy");
  ASSERT_NE(dy, nullptr) << "no scale of layer1.dy at step " << shown;
  ASSERT_NE(dy->scale, 1.0) << "a scale that moves nothing tests nothing";
  EXPECT_DOUBLE_EQ(hist.regionBounds(FormatId::Fp8E5M2, RegionKind::FlushToZero).second,
                   -17.0 - std::log2(dy->scale));
  EXPECT_DOUBLE_EQ(heat.regionShiftOfRow(heat.rowCount() - 1), -std::log2(dy->scale));
  p.panel.setHistogramSelection(1, TensorClass::Weights);
  p.panel.redrawAll();
  EXPECT_EQ(hist.runFormat(), FormatId::Fp8E4M3);
  EXPECT_EQ(heat.limitsFormat(), FormatId::Fp8E4M3);
  EXPECT_TRUE(hist.regionLabel(FormatId::Fp8E4M3, RegionKind::FlushToZero)
                  .startsWith(QStringLiteral("FP8 E4M3")))
      << hist.regionLabel(FormatId::Fp8E4M3, RegionKind::FlushToZero).toStdString();
}

// A GPT's FP8 operands: E4M3 holds W times the scale the log recorded for
// the linear layer's weight ("h0.qkv.w"), so E4M3's limits (smallest
// subnormal 2^-9, zero below 2^-10) sit -log2(scale) binades away; so for
// an activation that is a product's X.
TEST(RunPictures, AGptsFp8OperandsAreShadedWithTheirScale) {
  QSettings().clear();
  TrainPanel panel;
  panel.resize(1400, 1000);
  panel.show();
  train::RunConfig g = train::findPreset("shakespeare-char")->runs.front();
  g.model = "gpt:layers=1,heads=2,embd=32,ctx=16";
  g.recipe = "fp8-delayed";
  g.batch = 4;
  g.steps = 6;
  g.warmupSteps = 0;
  g.evalEvery = 0;
  g.evalBatches = 1;
  g.telemetryEvery = 2;
  RunController& c = *panel.controller();
  ASSERT_EQ(c.setRuns({g}), QString());
  c.start(); // the controller's runs (Start trains what the setup dock shows)
  ASSERT_TRUE(waitDrained(c, [&] { return c.state() == RunController::State::Finished; }, 60000));
  const auto& names = c.facts(0).layerNames;
  const auto it = std::find(names.begin(), names.end(), QStringLiteral("h0.qkv.w"));
  ASSERT_NE(it, names.end());
  panel.setSelectedRun(0);
  panel.setHistogramSelection(int(it - names.begin()), TensorClass::Weights);
  panel.redrawAll();
  HistogramChart& hist = *panel.histogramChart();
  EXPECT_EQ(hist.runFormat(), FormatId::Fp8E4M3);
  const auto log = c.runLog(0, nullptr);
  ASSERT_TRUE(log.has_value());
  const std::int64_t shown = c.record(0).frames().back()->step;
  const telemetry::ScaledTensorStats* w = nullptr;
  for (const auto& frame : log->scaling)
    if (frame.step == shown)
      w = frame.find("h0.qkv.w");
  ASSERT_NE(w, nullptr) << "no scale of h0.qkv.w at step " << shown;
  ASSERT_NE(w->scale, 1.0) << "a scale that moves nothing tests nothing";
  EXPECT_DOUBLE_EQ(hist.regionBounds(FormatId::Fp8E4M3, RegionKind::FlushToZero).second,
                   -10.0 - std::log2(w->scale));
  EXPECT_DOUBLE_EQ(panel.heatmap()->regionShiftOfRow(panel.heatmap()->rowCount() - 1),
                   -std::log2(w->scale));

  // The GELU output is the X of the fcproj product: E4M3 times that
  // product's scale. The LayerNorm input enters no FP8 product: BF16, as
  // the rest of fp8-delayed, and unscaled.
  const auto layerOf = [&](const char* name) {
    const auto at = std::find(names.begin(), names.end(), QString::fromLatin1(name));
    return at == names.end() ? -1 : int(at - names.begin());
  };
  ASSERT_GE(layerOf("h0.gelu output"), 0);
  panel.setHistogramSelection(layerOf("h0.gelu output"), TensorClass::Activations);
  panel.redrawAll();
  EXPECT_EQ(hist.runFormat(), FormatId::Fp8E4M3);
  const telemetry::ScaledTensorStats* x = nullptr;
  for (const auto& frame : log->scaling)
    if (frame.step == shown)
      x = frame.find("h0.fcproj.x");
  ASSERT_NE(x, nullptr) << "no scale of h0.fcproj.x at step " << shown;
  ASSERT_NE(x->scale, 1.0);
  EXPECT_DOUBLE_EQ(hist.regionBounds(FormatId::Fp8E4M3, RegionKind::FlushToZero).second,
                   -10.0 - std::log2(x->scale));
  EXPECT_DOUBLE_EQ(panel.heatmap()->regionShiftOfRow(panel.heatmap()->rowCount() - 1),
                   -std::log2(x->scale));
  ASSERT_GE(layerOf("h0.ln1 input"), 0);
  panel.setHistogramSelection(layerOf("h0.ln1 input"), TensorClass::Activations);
  panel.redrawAll();
  EXPECT_EQ(hist.runFormat(), FormatId::Bf16);
  EXPECT_EQ(panel.heatmap()->limitsFormat(), FormatId::Bf16);
  EXPECT_DOUBLE_EQ(panel.heatmap()->regionShiftOfRow(panel.heatmap()->rowCount() - 1), 0.0);
}

// A PyTorch tap's log records neither a test accuracy nor per-op times:
// both read "—", with a tooltip saying what the log lacks, not 0.00 % and 0.000 ms.
TEST(RunPictures, WhatTheLogDoesNotRecordIsADashNotAZero) {
  QSettings().clear();
  TrainPanel panel;
  panel.resize(1400, 1000);
  panel.show();
  ASSERT_EQ(panel.controller()->loadRun(QStringLiteral(MANTISSA_TAP_FIXTURE)), QString());
  panel.setSelectedRun(0);
  panel.redrawAll();
  const QString status = panel.statusText();
  EXPECT_TRUE(status.contains(QStringLiteral("test —"))) << status.toStdString();
  EXPECT_FALSE(status.contains(QStringLiteral("test 0.00 %"))) << status.toStdString();
  const QTableWidget* times = panel.opTable()->timeTable();
  ASSERT_GT(times->rowCount(), 0);
  for (int row = 0; row < times->rowCount(); ++row) {
    ASSERT_NE(times->item(row, 1), nullptr);
    EXPECT_EQ(times->item(row, 1)->text(), QStringLiteral("—")) << "row " << row;
    EXPECT_TRUE(times->item(row, 1)->toolTip().contains(QStringLiteral("records no per-op times")));
  }
}

// A GPT fp16-mixed run trains with PyTorch's GradScaler (fp16-mixed's; here
// an older log, whose header holds the configuration as "gpt_config"): the
// loss-scale chart names that scaler, on the Train page and in exports, never
// "no scaler".
TEST(RunPictures, LossScaleChartOfAGptRunNamesItsScaler) {
  const amp::Policy policy = amp::policyForRecipe(amp::recipeByName("fp16-mixed"));
  train::RunLogBuilder builder;
  builder.add({{"header", true},
               {"name", "fp16-mixed"},
               {"model", "gpt:layers=1,heads=1,embd=16,ctx=8"},
               {"gpt_config", {{"recipe", "fp16-mixed"}}},
               {"policy", policy.toSpec()}});
  builder.add({{"step", 0}, {"loss", 4.2}, {"loss_scale", 65536.0}});
  const train::RunLog log = builder.take();
  EXPECT_EQ(runFacts(log).scalerPreset, QStringLiteral("pytorch"));
  QString error;
  const auto chart = makeRunChart(log, {RunChartKind::LossScale}, &error);
  ASSERT_NE(chart, nullptr) << error.toStdString();
  EXPECT_TRUE(chart->title().contains(QStringLiteral("pytorch scaler"))) << chart->title().toStdString();
}

// A diverged run's log: steps 0-19 with a loss growing to about 6600, steps
// 20-29 with "loss": null, the divergence recorded at step 20.
std::vector<nlohmann::json> divergedLog() {
  const nlohmann::json divergence = {{"step", 20},      {"layer", 1},
                                     {"op", "linear"},  {"pass", "forward"},
                                     {"reason", "non-finite loss"},
                                     {"message", "step 20: the loss is not finite"}};
  std::vector<nlohmann::json> lines;
  lines.push_back({{"header", true},
                   {"config", {{"data", "spirals"}, {"model", "mlp:2-8-2"}, {"recipe", "fp16-mixed-noscale"}}}});
  double loss = 2.3;
  for (int step = 0; step < 30; ++step) {
    nlohmann::json row = {{"step", step}, {"lr", 0.1}, {"loss_scale", 1.0}};
    row["loss"] = step < 20 ? nlohmann::json(loss) : nlohmann::json(nullptr);
    if (step == 20)
      row["divergence"] = divergence;
    lines.push_back(row);
    loss *= 1.52;
  }
  lines.push_back({{"summary", true}, {"steps", 30}, {"divergence", divergence}});
  return lines;
}

// Missing losses are a gap, not a plateau; the axis reaches the last logged
// step; the divergence step is a labelled line. On the Train page (the log
// opened) and in exports (plot, report) alike.
TEST(RunPictures, DivergenceIsDrawnWithItsGapAndItsStep) {
  train::RunLogBuilder builder;
  for (const auto& line : divergedLog())
    builder.add(line);
  const train::RunLog log = builder.take();
  QString error;
  const auto exported = makeRunChart(log, {RunChartKind::Loss}, &error);
  ASSERT_NE(exported, nullptr) << error.toStdString();
  auto* chart = dynamic_cast<CurveChart*>(exported.get());
  ASSERT_NE(chart, nullptr);
  const QString id = QStringLiteral("run1");
  EXPECT_GE(chart->xAxisMax(), 29.0);
  const auto segments = chart->shownTrainSegments(id);
  ASSERT_EQ(segments.size(), 1);
  EXPECT_EQ(segments.front().back().x(), 19.0) << "nothing drawn where the loss is missing";
  EXPECT_EQ(chart->divergenceLabel(id), QStringLiteral("diverged at step 20: non-finite loss"));
  ASSERT_NE(chart->divergenceSeries(id), nullptr);
  ASSERT_EQ(chart->divergenceSeries(id)->count(), 2);
  EXPECT_EQ(chart->divergenceSeries(id)->at(0).x(), 20.0);
  EXPECT_TRUE(chart->divergenceSeries(id)->isVisible());
  for (QLegendMarker* marker : chart->chart()->legend()->markers(chart->divergenceSeries(id)))
    EXPECT_FALSE(marker->isVisible()) << "one legend entry per run; the line has its label";

  // The same log opened on the Train page.
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("diverged.jsonl"));
  {
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    for (const auto& line : divergedLog())
      file.write(QByteArray::fromStdString(line.dump() + "\n"));
  }
  QSettings().clear();
  TrainPanel panel;
  panel.resize(1400, 1000);
  panel.show();
  ASSERT_EQ(panel.controller()->loadRun(path), QString());
  panel.redrawAll();
  CurveChart& loss = *panel.lossChart();
  const QString run = panel.controller()->runId(0);
  EXPECT_GE(loss.xAxisMax(), 29.0);
  for (const auto& piece : loss.shownTrainSegments(run))
    for (const QPointF& p : piece)
      EXPECT_LE(p.x(), 19.0) << "a point drawn at step " << p.x() << ", y " << p.y();
  EXPECT_EQ(loss.divergenceLabel(run), QStringLiteral("diverged at step 20: non-finite loss"));
  EXPECT_TRUE(panel.divergenceText().contains(QStringLiteral("step 20")));
}

// An FP16 run without a scaler whose loss turned NaN at step 20, as
// mantissa-cli writes it: the step row holds the sentence, the summary the facts.
std::vector<nlohmann::json> fp16DivergedLog(bool withSentence) {
  nlohmann::json divergence = {{"step", 20}, {"layer", 1}, {"op", "linear"},
                               {"pass", "forward"}, {"reason", "non-finite loss"}};
  nlohmann::json row20 = divergence;
  if (withSentence)
    row20["message"] = "non-finite loss at step 20: first in layer 1, op linear (forward)";
  std::vector<nlohmann::json> lines;
  lines.push_back({{"header", true},
                   {"config", {{"data", "spirals"}, {"model", "mlp:2-8-2"}, {"recipe", "fp16-mixed-noscale"}}}});
  for (int step = 0; step <= 20; ++step) {
    nlohmann::json row = {{"step", step}, {"lr", 25.0}, {"loss_scale", 1.0}};
    row["loss"] = step < 20 ? nlohmann::json(0.7 + step) : nlohmann::json(nullptr);
    if (step == 20)
      row["divergence"] = row20;
    lines.push_back(row);
  }
  lines.push_back({{"summary", true}, {"steps", 21}, {"diverged", true}, {"divergence", divergence}});
  return lines;
}

// The banner says once that the run diverged, and once where: the step, the
// reason, the layer and the op (it said "diverged at step 20: layer 1, op
// linear (forward). non-finite loss at step 20: first in layer 1, op linear
// (forward)"). The same when the log keeps only the facts, no sentence.
TEST(RunPictures, DivergenceBannerSaysItOnce) {
  for (const bool withSentence : {true, false}) {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("lr25.jsonl"));
    {
      QFile file(path);
      ASSERT_TRUE(file.open(QIODevice::WriteOnly));
      for (const auto& line : fp16DivergedLog(withSentence))
        file.write(QByteArray::fromStdString(line.dump() + "\n"));
    }
    QSettings().clear();
    TrainPanel panel;
    panel.resize(1400, 1000);
    panel.show();
    ASSERT_EQ(panel.controller()->loadRun(path), QString());
    panel.refresh();
    const QString name = panel.controller()->runName(0);
    const QString banner = QTextDocumentFragment::fromHtml(panel.bannerText()).toPlainText();
    EXPECT_EQ(banner, name + QStringLiteral(" diverged \u2014 non-finite loss at step 20: first in "
                                            "layer 1, op linear (forward).\nThe run stopped there; "
                                            "its charts stay inspectable."))
        << "with the sentence: " << withSentence;
    for (const char* once : {"diverged", "step 20", "layer 1", "linear", "forward", "non-finite loss"})
      EXPECT_EQ(banner.count(QLatin1String(once)) - name.count(QLatin1String(once)), 1)
          << once << " in: " << banner.toStdString();
    EXPECT_EQ(panel.lossChart()->divergenceLabel(panel.controller()->runId(0)),
              QStringLiteral("diverged at step 20: non-finite loss"));
  }
}

// A loss missing in the middle of a run splits its curve in two.
TEST(RunPictures, AMissingLossInTheMiddleIsAGap) {
  LossChart chart;
  chart.setRuns({ChartRun{QStringLiteral("a"), QStringLiteral("a"), QColor()}});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  QList<QPointF> points;
  for (int step = 0; step < 12; ++step)
    points.append(QPointF(step, step >= 5 && step <= 7 ? nan : 1.0 + step));
  chart.updateRun(QStringLiteral("a"), points, {});
  const auto segments = chart.shownTrainSegments(QStringLiteral("a"));
  ASSERT_EQ(segments.size(), 2);
  EXPECT_EQ(segments[0].back().x(), 4.0);
  EXPECT_EQ(segments[1].front().x(), 8.0);
  EXPECT_EQ(chart.curveLayer()->curves().size(), 3u) << "two train pieces and the test curve";
}

// Accuracy cannot pass 100 %: its axis stops there (it ran to 150 %).
TEST(RunPictures, AccuracyAxisStopsAtOneHundredPercent) {
  AccuracyChart chart;
  chart.setRuns({ChartRun{QStringLiteral("a"), QStringLiteral("a"), QColor()}});
  chart.updateRun(QStringLiteral("a"), {QPointF(0, 12.0), QPointF(1, 80.0), QPointF(2, 100.0)}, {});
  EXPECT_EQ(chart.yAxisMax(), 100.0);
  chart.updateRun(QStringLiteral("a"), {QPointF(0, 12.0), QPointF(1, 55.0)}, {});
  EXPECT_LE(chart.yAxisMax(), 100.0);
  EXPECT_GE(chart.yAxisMax(), 55.0);
}

// Lesson 7's headline case, FP16 softmax without max subtraction, has a NaN
// loss: its bar slot says "NaN" (in red) instead of standing empty.
TEST(RunPictures, LessonSevenShowsItsNaNBar) {
  LessonChart chart;
  chart.resize(1000, 600);
  chart.show();
  chart.setDemo(lessons::runDemo("fp32-islands"));
  const auto marks = chart.nonFiniteBars();
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_EQ(marks.front().second, QStringLiteral("NaN"));
}

// Choosing anything by hand ends a preset: its banner goes, and the values
// Setup does not show (the loss multiplier 2^-14, the scaler's 2^32 initial
// scale and 50-step growth interval) go back to the defaults.
TEST(RunPictures, ChoosingByHandEndsThePreset) {
  QSettings().clear();
  TrainPanel panel;
  panel.show();
  auto* banner = panel.findChild<QLabel*>(QStringLiteral("trainBanner"));
  ASSERT_NE(banner, nullptr);
  RunController& c = *panel.controller();

  panel.setup()->applyPreset(QStringLiteral("underflow"));
  ASSERT_GT(c.runCount(), 0);
  EXPECT_EQ(c.config(0).lossMultiplier, 1.0 / 16384.0);
  EXPECT_TRUE(banner->text().contains(QStringLiteral("small gradients become zero")));
  panel.setup()->setRecipeChecked(QStringLiteral("bf16-mixed"), true); // a click on its chip
  ASSERT_GT(c.runCount(), 0);
  for (int i = 0; i < c.runCount(); ++i)
    EXPECT_EQ(c.config(i).lossMultiplier, 1.0) << c.config(i).recipe;
  EXPECT_FALSE(banner->text().contains(QStringLiteral("small gradients become zero")))
      << banner->text().toStdString();

  panel.setup()->applyPreset(QStringLiteral("scaling"));
  ASSERT_TRUE(c.config(0).scalerInitScale.has_value());
  panel.setup()->setRecipeChecked(QStringLiteral("bf16-pure"), true); // not in the preset
  for (int i = 0; i < c.runCount(); ++i) {
    EXPECT_FALSE(c.config(i).scalerInitScale.has_value()) << c.config(i).recipe;
    EXPECT_FALSE(c.config(i).scalerGrowthInterval.has_value()) << c.config(i).recipe;
    EXPECT_EQ(c.config(i).lossMultiplier, 1.0) << c.config(i).recipe;
  }
}

// Every setting a run uses is visible: the values the underflow and scaling
// presets set that Setup has no field for are listed in Setup while the
// preset holds, and they are in the run's name (its title in every legend and
// picker), its tooltip, and the titles of its exported charts.
TEST(RunPictures, SettingsWithoutAFieldAreShownWhereverTheRunIs) {
  QSettings().clear();
  TrainPanel panel;
  panel.show();
  auto* beyond = panel.findChild<QLabel*>(QStringLiteral("setupBeyondFields"));
  auto* picker = panel.findChild<QComboBox*>(QStringLiteral("runPicker"));
  ASSERT_NE(beyond, nullptr);
  ASSERT_NE(picker, nullptr);
  RunController& c = *panel.controller();
  EXPECT_FALSE(beyond->isVisibleTo(&panel)) << beyond->text().toStdString();

  panel.setup()->applyPreset(QStringLiteral("underflow"));
  ASSERT_GT(c.runCount(), 0);
  ASSERT_EQ(c.config(0).lossMultiplier, 1.0 / 16384.0);
  EXPECT_TRUE(beyond->isVisibleTo(&panel));
  EXPECT_TRUE(beyond->text().contains(QStringLiteral("loss × 2^-14"))) << beyond->text().toStdString();
  EXPECT_TRUE(c.runName(0).contains(QStringLiteral("loss × 2^-14"))) << c.runName(0).toStdString();
  EXPECT_TRUE(picker->itemText(0).contains(QStringLiteral("loss × 2^-14")));
  const QString tip = picker->itemData(0, Qt::ToolTipRole).toString();
  EXPECT_TRUE(tip.contains(QStringLiteral("loss_multiplier: 6.10352e-05"))) << tip.toStdString();
  EXPECT_TRUE(tip.contains(QStringLiteral("lr: "))) << tip.toStdString();

  panel.setup()->applyPreset(QStringLiteral("scaling"));
  ASSERT_GT(c.runCount(), 0);
  int scaled = -1;
  for (int i = 0; i < c.runCount(); ++i)
    if (c.config(i).scalerInitScale)
      scaled = i;
  ASSERT_GE(scaled, 0);
  const double init = *c.config(scaled).scalerInitScale;
  int e = 0;
  ASSERT_EQ(std::frexp(init, &e), 0.5);
  const QString initText = QStringLiteral("scaler initial scale 2^%1").arg(e - 1);
  EXPECT_TRUE(beyond->text().contains(initText)) << beyond->text().toStdString();
  EXPECT_TRUE(c.runName(scaled).contains(initText)) << c.runName(scaled).toStdString();

  // Chosen by hand: nothing beyond the fields, nothing extra in the names.
  panel.setup()->setRecipeChecked(QStringLiteral("bf16-pure"), true);
  EXPECT_FALSE(beyond->isVisibleTo(&panel)) << beyond->text().toStdString();
  for (int i = 0; i < c.runCount(); ++i)
    EXPECT_FALSE(c.runName(i).contains(QStringLiteral(" · "))) << c.runName(i).toStdString();
}

// Exported charts of a log whose run had a loss multiplier name it in their
// titles, as the Train page does.
TEST(RunPictures, ExportedChartsNameTheSettingsWithoutAField) {
  train::RunConfig config = tiny("fp16-mixed", 4);
  config.lossMultiplier = 1.0 / 16384.0;
  config.scalerGrowthInterval = 50;
  train::RunLog log;
  log.config = config;
  for (int i = 0; i < 4; ++i) {
    train::RunStepRow row;
    row.step = i;
    row.loss = 2.0 - 0.1 * i;
    row.lossScale = 65536.0;
    log.steps.push_back(row);
  }
  QString error;
  const auto loss = makeRunChart(log, {RunChartKind::Loss}, &error);
  ASSERT_NE(loss, nullptr) << error.toStdString();
  QStringList names;
  for (auto* s : loss->chart()->series())
    names << s->name();
  EXPECT_TRUE(names.join(u'|').contains(QStringLiteral("fp16-mixed · loss × 2^-14"))) << names.join(u'|').toStdString();
  const auto scale = makeRunChart(log, {RunChartKind::LossScale}, &error);
  ASSERT_NE(scale, nullptr) << error.toStdString();
  EXPECT_TRUE(scale->title().contains(QStringLiteral("loss × 2^-14"))) << scale->title().toStdString();
  EXPECT_TRUE(scale->title().contains(QStringLiteral("scaler growth every 50 steps")))
      << scale->title().toStdString();
}

} // namespace
} // namespace mantissa::ui
