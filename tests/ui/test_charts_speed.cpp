// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The Speed panel's charts: step time by op, throughput against size with
// the peak line and emulated backends, memory per tensor class.

#include "ui/charts/memory_chart.h"
#include "ui/charts/step_time_chart.h"
#include "ui/charts/throughput_chart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QLineSeries>
#include <QStackedBarSeries>
#include <QValueAxis>

#include <gtest/gtest.h>

namespace mantissa::ui {
namespace {

TEST(ChartsSpeed, StepTimeStacksEveryOpKindPerRecipe) {
  StepTimeChart chart;
  model::OpTimes fp32{1.0, 2.0, 0.0, 0.5, 0.25, 0.125, 0.0625, 0.5};
  model::OpTimes bf16{1.5, 3.0, 0.75, 0.5, 0.25, 0.125, 0.0625, 0.5};
  chart.setData({{"fp32", fp32, false, false}, {"bf16-mixed", bf16, true, false}});
  ASSERT_EQ(chart.partCount(), 7);
  EXPECT_EQ(chart.partSet(0)->label(), "matmul");
  EXPECT_EQ(chart.barValue(0, 0), 3.0); // forward + backward products
  EXPECT_EQ(chart.barValue(0, 1), 4.5);
  EXPECT_EQ(chart.partSet(1)->label(), "conversion");
  EXPECT_EQ(chart.barValue(1, 1), 0.75);
  EXPECT_EQ(chart.partSet(6)->label(), "data");
  // Bars lie horizontally, named at the left, the first recipe on top (Qt
  // counts a category axis from the bottom up); the one whose 16-bit products
  // ran as FP32 is marked "*", which the title explains.
  auto* axis = qobject_cast<QBarCategoryAxis*>(chart.chart()->axes(Qt::Vertical).value(0));
  ASSERT_NE(axis, nullptr);
  EXPECT_EQ(axis->categories(), QStringList({"bf16-mixed *", "fp32"}));
  EXPECT_EQ(chart.shownCategories(), QStringList({"fp32", "bf16-mixed *"}));
  EXPECT_TRUE(chart.title().contains("* emulated: products run wider than the data"))
      << chart.title().toStdString();
  EXPECT_EQ(chart.partSet(0)->at(1), 3.0); // the top bar: fp32's
  const QStringList csv = chart.csv().split('\n', Qt::SkipEmptyParts);
  EXPECT_EQ(csv.size(), 1 + 2 * 7);
  EXPECT_EQ(csv[0], "category,part,value_ms");
  EXPECT_EQ(csv[8], "bf16-mixed (FP32 compute),matmul,4.5");

  // An FP8 recipe is emulated too (its operands quantized and dequantized),
  // whether or not its BF16 product is native: marked, and said so.
  chart.setData({{"fp32", fp32, false, false}, {"fp8-delayed", bf16, false, true}});
  EXPECT_EQ(chart.shownCategories(), QStringList({"fp32", "fp8-delayed *"}));
  EXPECT_TRUE(chart.title().contains("* emulated")) << chart.title().toStdString();
  EXPECT_TRUE(chart.csv().contains("fp8-delayed (quantized),matmul,4.5")) << chart.csv().toStdString();
}

// A model with convolutions gets a convolution part beside the matmuls'.
TEST(ChartsSpeed, StepTimeShowsConvolutionApartFromMatmul) {
  StepTimeChart chart;
  model::OpTimes cnn{1.0, 2.0, 0.5, 0.25, 0.125, 0.0625, 0.0, 0.5};
  cnn.convForward = 4.0;
  cnn.convBackward = 8.0;
  chart.setData({{"fp32", cnn, false}});
  ASSERT_EQ(chart.partCount(), 8);
  EXPECT_EQ(chart.partSet(0)->label(), "matmul");
  EXPECT_EQ(chart.barValue(0, 0), 3.0);
  EXPECT_EQ(chart.partSet(1)->label(), "convolution");
  EXPECT_EQ(chart.barValue(1, 0), 12.0);
  EXPECT_EQ(chart.partSet(2)->label(), "conversion");
  EXPECT_EQ(chart.barValue(2, 0), 0.5);
  // Eight parts, eight colours: "data" does not repeat the matmuls' colour.
  for (int a = 0; a < chart.partCount(); ++a)
    for (int b = a + 1; b < chart.partCount(); ++b)
      EXPECT_NE(chart.partSet(a)->color(), chart.partSet(b)->color())
          << chart.partSet(a)->label().toStdString() << " and "
          << chart.partSet(b)->label().toStdString();
}

TEST(ChartsSpeed, ThroughputMarksEmulatedBackendsAndThePeak) {
  ThroughputChart chart;
  std::vector<ThroughputCurve> curves(2);
  curves[0].backend = "oneDNN fp32";
  curves[0].points = {{64, 10}, {256, 40}, {1024, 60}};
  curves[1].backend = "bf16 via fp32";
  curves[1].emulated = true;
  curves[1].points = {{64, 6}, {256, 25}, {1024, 35}};
  chart.setData(curves, 76.8, "FP32 peak");
  ASSERT_NE(chart.curveSeries(1), nullptr);
  EXPECT_EQ(chart.curveSeries(0)->count(), 3);
  EXPECT_EQ(chart.curveSeries(0)->pen().style(), Qt::SolidLine);
  EXPECT_EQ(chart.curveSeries(1)->pen().style(), Qt::DashLine);
  EXPECT_EQ(chart.curveSeries(1)->name(), "bf16 via fp32 (FP32 compute)");
  const QList<QPointF> peak = chart.peakSeries()->points();
  ASSERT_EQ(peak.size(), 2);
  EXPECT_EQ(peak[0].y(), 76.8);
  EXPECT_EQ(peak[1].y(), 76.8);
  EXPECT_LE(peak[0].x(), 64.0);
  EXPECT_GE(peak[1].x(), 1024.0);
  EXPECT_TRUE(chart.peakSeries()->name().contains("77")) << chart.peakSeries()->name().toStdString();
  EXPECT_EQ(chart.csv().split('\n', Qt::SkipEmptyParts).size(), 1 + 6);

  chart.setData(curves, 0.0);
  EXPECT_FALSE(chart.peakSeries()->isVisible());
}

TEST(ChartsSpeed, MemoryPicksAReadableUnit) {
  MemoryChart chart;
  const QStringList classes{"weights", "gradients"};
  ASSERT_TRUE(chart.setData(classes, {{"fp32", {2.0 * 1048576, 1048576}}, {"bf16", {1048576, 524288}}}));
  EXPECT_EQ(chart.barValue(0, 0), 2.0); // MiB
  EXPECT_EQ(chart.barValue(1, 1), 0.5);
  auto* y = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Horizontal).value(0));
  ASSERT_NE(y, nullptr);
  EXPECT_TRUE(y->titleText().contains("MiB"));
  ASSERT_TRUE(chart.setData(classes, {{"tiny", {2048, 1024}}}));
  EXPECT_EQ(chart.barValue(0, 0), 2.0); // KiB
  EXPECT_FALSE(chart.setData(classes, {{"bad", {1.0}}}));
}

} // namespace
} // namespace mantissa::ui
