// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The loss-scale trace driven by the real scaler: PyTorch's GradScaler starts
// at 2^16, halves on an overflow (skipping the step) and doubles after its
// growth interval of finite steps.

#include "chart_text.h"
#include "ui/charts/loss_scale_chart.h"

#include <QChart>
#include <QLineSeries>
#include <QScatterSeries>
#include <QTest>

#include <gtest/gtest.h>

namespace mantissa::ui {
namespace {

using amp::ScalerEventKind;

struct Trace {
  std::vector<telemetry::LossScaleRecord> records;
  std::vector<amp::ScalerEvent> events;
};

// 30 steps, overflows at steps 3 and 4, growth interval 10.
Trace pytorchTrace() {
  amp::ScalerConfig config = amp::scalerPreset("pytorch");
  config.growthInterval = 10;
  amp::LossScaler scaler(config);
  Trace trace;
  for (std::int64_t step = 0; step < 30; ++step) {
    const bool overflow = step == 3 || step == 4;
    const amp::ScalerUpdate update = scaler.update(step, overflow);
    for (const amp::ScalerEvent& event : scaler.lastEvents())
      trace.events.push_back(event);
    trace.records.push_back({step, update.state, overflow, update.skipped});
  }
  return trace;
}

TEST(ChartsLossScale, StepLineFollowsLog2OfTheScale) {
  LossScaleChart chart;
  const Trace trace = pytorchTrace();
  chart.setTrace(trace.records, trace.events);
  // 2^16 -> 2^15 at step 3 -> 2^14 at step 4 -> 2^15 at step 14 -> 2^16 at step 24.
  const QList<QPointF> expected{{0, 16}, {3, 16}, {3, 15}, {4, 15}, {4, 14}, {14, 14},
                                {14, 15}, {24, 15}, {24, 16}, {29, 16}};
  EXPECT_EQ(chart.scaleSeries()->points(), expected);
}

TEST(ChartsLossScale, EventsGetTheirOwnMarkers) {
  LossScaleChart chart;
  const Trace trace = pytorchTrace();
  chart.setTrace(trace.records, trace.events);
  const QList<QPointF> overflow = chart.markerSeries(ScalerEventKind::Overflow)->points();
  ASSERT_EQ(overflow.size(), 2);
  EXPECT_EQ(overflow[0], QPointF(3, 16)); // at the scale that overflowed
  EXPECT_EQ(overflow[1], QPointF(4, 15));
  const QList<QPointF> backoff = chart.markerSeries(ScalerEventKind::Backoff)->points();
  ASSERT_EQ(backoff.size(), 2);
  EXPECT_EQ(backoff[1], QPointF(4, 14)); // at the scale after the backoff
  const QList<QPointF> growth = chart.markerSeries(ScalerEventKind::Growth)->points();
  ASSERT_EQ(growth.size(), 2);
  EXPECT_EQ(growth[0], QPointF(14, 15));
  EXPECT_EQ(chart.markerSeries(ScalerEventKind::SkippedStep)->count(), 2);
  // Distinct shapes, so the legend tells them apart without colour.
  EXPECT_NE(chart.markerSeries(ScalerEventKind::Overflow)->markerShape(),
            chart.markerSeries(ScalerEventKind::Growth)->markerShape());
  EXPECT_NE(chart.markerSeries(ScalerEventKind::Backoff)->markerShape(),
            chart.markerSeries(ScalerEventKind::SkippedStep)->markerShape());
}

TEST(ChartsLossScale, GrowthTrackerIsOptionalAndExact) {
  LossScaleChart chart;
  const Trace trace = pytorchTrace();
  chart.setTrace(trace.records, trace.events);
  EXPECT_FALSE(chart.growthTrackerSeries()->isVisible());
  chart.setCountersVisible(true);
  EXPECT_TRUE(chart.growthTrackerSeries()->isVisible());
  // Its corners only: 0,1,2 then reset at 3 and 4, count to 9 at 13, reset at 14, ...
  const QList<QPointF> tracker = chart.growthTrackerSeries()->points();
  EXPECT_EQ(tracker.front(), QPointF(0, 1));
  EXPECT_TRUE(tracker.contains(QPointF(4, 0)));
  EXPECT_TRUE(tracker.contains(QPointF(13, 9)));
  EXPECT_TRUE(tracker.contains(QPointF(14, 0)));
  EXPECT_LT(tracker.size(), 30);
}

TEST(ChartsLossScale, PresetIsInTheTitleAndCsvHasARowPerStep) {
  LossScaleChart chart;
  chart.setPreset("pytorch");
  EXPECT_TRUE(chart.title().contains("pytorch"));
  const Trace trace = pytorchTrace();
  chart.setTrace(trace.records, trace.events);
  const QStringList lines = chart.csv().split('\n', Qt::SkipEmptyParts);
  ASSERT_EQ(lines.size(), 1 + 30);
  EXPECT_EQ(lines[0], "step,loss_scale,log2_loss_scale,growth_tracker,hysteresis_left,events");
  EXPECT_TRUE(lines[4].startsWith("3,32768,15,0,")) << lines[4].toStdString();
  EXPECT_TRUE(lines[4].endsWith("overflow;backoff;skipped")) << lines[4].toStdString();
}

// The legend's entries read in full at the widths a small window's dock
// gives the chart (394 px at 1024x700, 435 at 1280x720): Qt Charts elided
// every entry of a row that did not fit ("loss s..."). The markers' row stays
// under the plot; with the growth tracker and hysteresis shown it is too
// long for the row and stands beside the plot, whole.
TEST(ChartsLossScale, TheLegendReadsInFullInASmallWindowsDock) {
  for (const int width : {394, 435}) {
    for (const bool counters : {false, true}) {
      LossScaleChart chart;
      chart.setChartStyle(ChartStyle::screen(false));
      const Trace trace = pytorchTrace();
      chart.setTrace(trace.records, trace.events);
      chart.setCountersVisible(counters);
      chart.resize(width, 330);
      chart.show();
      ASSERT_TRUE(QTest::qWaitForWindowExposed(&chart));
      QStringList legend;
      ASSERT_TRUE(QTest::qWaitFor([&] {
        const QStringList others = unreadableChartTexts(chart, Legends::Skip);
        legend.clear();
        for (const QString& text : unreadableChartTexts(chart))
          if (!others.contains(text))
            legend << text;
        return legend.isEmpty();
      }, 2000)) << width << " " << counters << ": " << legend.join(u' ').toStdString();
      if (!counters) {
        EXPECT_GT(chart.chart()->plotArea().width(), 0.6 * width) << width;
      }
    }
  }
}

TEST(ChartsLossScale, DropCollinearKeepsTheShape) {
  const QList<QPointF> ramp{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 0}, {5, 0}, {6, 0}};
  EXPECT_EQ(dropCollinear(ramp), (QList<QPointF>{{0, 0}, {3, 3}, {4, 0}, {6, 0}}));
}

} // namespace
} // namespace mantissa::ui
