// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Loss and accuracy curves: data given to updateRun() reaches the curves the
// chart paints, each point lands where the axes say (linear and log y, as Qt
// Charts maps a point of a series), a dense curve is a band of pixel columns,
// the skipped steps sit on the train curve, log y drops what a log axis cannot
// show, the legend names every run, and the CSV / JSON hold every point.

#include "chart_text.h"
#include "loss_fixtures.h"
#include "ui/app_shell/theme.h"
#include "ui/charts/chart_export.h"
#include "ui/charts/curve_layer.h"
#include "ui/charts/loss_chart.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QLegend>
#include <QLegendMarker>
#include <QImage>
#include <QTest>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace mantissa::ui {
namespace {

TEST(ChartsCurves, UpdateRunReachesTheRunsSeries) {
  LossChart chart;
  chart.setRuns({{"a", "fp32", {}}, {"b", "bf16-mixed", {}}});
  const QList<QPointF> test{{0.0, 2.1}, {500.0, 1.6}, {1000.0, 1.1}};
  ASSERT_TRUE(chart.updateRun("b", straightLoss(), test));
  EXPECT_EQ(chart.shownTrain("b").size(), 101);
  EXPECT_EQ(chart.shownTest("b"), test);
  EXPECT_EQ(chart.shownTrain("a").size(), 0);
  EXPECT_EQ(chart.shownTrain("b").value(50), QPointF(500.0, 1.5));
  EXPECT_EQ(chart.trainSeries("b")->name(), "bf16-mixed");
  // The layer paints each run's train then test curve, with the run's pens.
  const std::vector<CurveLayer::Curve>& curves = chart.curveLayer()->curves();
  ASSERT_EQ(curves.size(), 4u);
  EXPECT_EQ(curves[2].points, straightLoss());
  EXPECT_EQ(curves[3].points, test);
  EXPECT_EQ(curves[2].pen.color(), chart.trainSeries("b")->pen().color());
  EXPECT_EQ(curves[3].pen.style(), Qt::DashLine);
  EXPECT_TRUE(curves[0].points.isEmpty());
  EXPECT_FALSE(chart.updateRun("nope", straightLoss(), {}));
}

TEST(ChartsCurves, DecimatedCoreSeriesFeedTheChart) {
  std::vector<telemetry::SeriesPoint> history;
  for (int step = 0; step < 100000; ++step)
    history.push_back({double(step), 1.0 + 0.01 * (step % 7) + (step % 1000 == 0 ? 1.0 : 0.0)});
  const auto decimated = telemetry::decimateMinMax(history, 1000);
  LossChart chart;
  chart.resize(1400, 500);
  chart.show();
  chart.setRuns({{"a", "fp32", {}}});
  chart.updateRun("a", toChartPoints(decimated), {});
  ASSERT_GT(decimated.size(), 1900u);
  // The series: at most one min/max pair per pen width across the chart.
  const double columns = chart.chart()->size().width() / chart.trainSeries("a")->pen().widthF();
  EXPECT_LE(chart.shownTrain("a").size(), 2 * qsizetype(columns) + 2);
  double peak = 0.0;
  double low = 10.0;
  for (const QPointF& p : chart.shownTrain("a")) {
    peak = std::max(peak, p.y());
    low = std::min(low, p.y());
  }
  EXPECT_DOUBLE_EQ(peak, 2.06); // min/max decimation keeps the spikes (step 1000: 1 + 0.06 + 1)
  EXPECT_EQ(low, 1.0);
  EXPECT_EQ(chart.shownTrain("a").front().x(), 0.0);
  EXPECT_EQ(chart.shownTrain("a").back().x(), decimated.back().x);
  // Export keeps every point it was given.
  EXPECT_EQ(chart.json().object()["runs"].toArray()[0].toObject()["train"].toArray().size(),
            qsizetype(decimated.size()));
}

// A thick line cannot show finer detail than its width: wider pens (presenter
// mode) and narrower charts hold fewer points; a wider chart gets them back.
TEST(ChartsCurves, DenseCurvesFollowPenWidthAndChartWidth) {
  std::vector<telemetry::SeriesPoint> history;
  for (int step = 0; step < 20000; ++step)
    history.push_back({double(step), 1.0 + 0.5 * std::sin(step * 0.37)});
  const QList<QPointF> points = toChartPoints(telemetry::decimateMinMax(history, 2000));
  LossChart chart;
  chart.resize(1400, 500);
  chart.show();
  chart.setRuns({{"a", "fp32", {}}});
  chart.updateRun("a", points, {});
  const qsizetype normal = chart.shownTrain("a").size();
  EXPECT_LT(normal, points.size());
  EXPECT_TRUE(chart.shownAsBand("a")); // a dense envelope
  EXPECT_FALSE(chart.curveLayer()->curves()[0].band.isEmpty());

  Theme::instance().setPresenter(true);
  const qsizetype presenter = chart.shownTrain("a").size();
  Theme::instance().setPresenter(false);
  EXPECT_LT(presenter, normal);
  EXPECT_EQ(chart.shownTrain("a").size(), normal);

  chart.resize(700, 500);
  QApplication::processEvents();
  const qsizetype narrow = chart.shownTrain("a").size();
  EXPECT_LT(narrow, normal);
  chart.resize(1400, 500);
  QApplication::processEvents();
  EXPECT_EQ(chart.shownTrain("a").size(), normal);

  chart.updateRun("a", straightLoss(), {}); // sparse: every point, as a line
  EXPECT_EQ(chart.shownTrain("a").size(), 101);
  EXPECT_FALSE(chart.shownAsBand("a"));
  EXPECT_TRUE(chart.curveLayer()->curves()[0].band.isEmpty());
}

// A dense noisy curve is a band of min/max pairs: each column's pair starts
// at the end nearer the previous column, so the band is painted with one
// stroke across it per column and short joins, not two full-height strokes
// (which doubled the pixels of the most expensive part of a frame).
TEST(ChartsCurves, ADenseBandIsOneStrokeAcrossItPerColumn) {
  std::vector<telemetry::SeriesPoint> history;
  for (int step = 0; step < 50000; ++step) // noise between 1 and 2, no trend
    history.push_back({double(step), 1.0 + double((step * 7919) % 1000) / 999.0});
  LossChart chart;
  chart.resize(1400, 500);
  chart.show();
  chart.setRuns({{"a", "fp32", {}}});
  chart.updateRun("a", toChartPoints(history), {});
  const QList<QPointF> points = chart.shownTrain("a");
  ASSERT_GT(points.size(), 100);
  int across = 0; // segments spanning more than half the band
  double low = 10.0;
  double high = 0.0;
  for (qsizetype i = 0; i < points.size(); ++i) {
    low = std::min(low, points[i].y());
    high = std::max(high, points[i].y());
    if (i > 0 && std::abs(points[i].y() - points[i - 1].y()) > 0.5)
      ++across;
  }
  EXPECT_EQ(low, 1.0); // the extremes are kept
  EXPECT_EQ(high, 2.0);
  EXPECT_LE(across, points.size() / 2 + 2); // time order would give ~ every segment
  EXPECT_GE(across, points.size() / 2 - 2); // and every column still spans the band
}

TEST(ChartsCurves, EachRunHasItsOwnColour) {
  LossChart chart;
  chart.setRuns({{"a", "fp32", {}}, {"b", "bf16-mixed", {}}, {"c", "fp16-mixed", QColor(Qt::red)}});
  const QColor a = chart.trainSeries("a")->pen().color();
  const QColor b = chart.trainSeries("b")->pen().color();
  EXPECT_NE(a, b);
  EXPECT_EQ(chart.trainSeries("c")->pen().color(), QColor(Qt::red));
  EXPECT_EQ(chart.testPen("a").color(), a); // same run, same colour
  EXPECT_EQ(chart.testPen("a").style(), Qt::DashLine);
}

TEST(ChartsCurves, ChartsFollowTheThemeAndPresenterMode) {
  LossChart chart;
  chart.setRuns({{"a", "fp32", {}}});
  const auto trainWidth = [&] { return chart.curveLayer()->curves().at(0).pen.widthF(); };
  const double normalWidth = trainWidth();
  const QColor lightBackground = chart.chart()->backgroundBrush().color();
  Theme::instance().setPresenter(true);
  Theme::instance().setDark(true);
  EXPECT_DOUBLE_EQ(trainWidth(), normalWidth * Theme::instance().penWidthFactor());
  EXPECT_LT(chart.chart()->backgroundBrush().color().lightness(), lightBackground.lightness());
  EXPECT_GT(chart.chart()->titleFont().pointSizeF(), ChartStyle::screen(false).titleFont().pointSizeF());
  Theme::instance().setPresenter(false);
  Theme::instance().setDark(false);
  EXPECT_DOUBLE_EQ(trainWidth(), normalWidth);
}

TEST(ChartsCurves, SkippedStepsAreMarkedOnTheTrainCurve) {
  LossChart chart;
  chart.setRuns({{"a", "fp16-mixed", {}}});
  chart.updateRun("a", straightLoss(), {}, {250.0, 505.0});
  QScatterSeries* marks = chart.skippedSeries("a");
  ASSERT_EQ(marks->count(), 2);
  // On the line loss = 2 - step / 1000 (505 lies between two recorded points).
  EXPECT_DOUBLE_EQ(marks->at(0).x(), 250.0);
  EXPECT_NEAR(marks->at(0).y(), 1.75, 1e-12);
  EXPECT_DOUBLE_EQ(marks->at(1).x(), 505.0);
  EXPECT_NEAR(marks->at(1).y(), 1.495, 1e-12);
}

TEST(ChartsCurves, SkipMarksThinToOnePerPixelColumn) {
  // Four columns of 250 steps over [0, 1000]: the first skipped step of each occupied column.
  EXPECT_EQ(onePerColumn({5, 6, 7, 500, 501, 999}, 0.0, 1000.0, 4), (QList<double>{5, 500, 999}));
  EXPECT_EQ(onePerColumn({1, 2}, 0.0, 1000.0, 4), (QList<double>{1, 2})); // few: all of them
}

// Coinciding curves stay visible: earlier runs are drawn wider, under the later ones.
TEST(ChartsCurves, CoincidingRunsNestByWidth) {
  LossChart chart;
  chart.setRuns({{"a", "fp32", {}}, {"b", "bf16-mixed", {}}, {"c", "fp16-mixed", {}}});
  const std::vector<CurveLayer::Curve>& curves = chart.curveLayer()->curves(); // train, test per run
  ASSERT_EQ(curves.size(), 6u);
  const double a = curves[0].pen.widthF();
  const double b = curves[2].pen.widthF();
  const double c = curves[4].pen.widthF();
  EXPECT_GT(a, b);
  EXPECT_GT(b, c);
  EXPECT_GE(a - b, 1.5); // at least ~0.75 px of each colour on either side of the next line
  EXPECT_GE(b - c, 1.5);
}

TEST(ChartsCurves, LogScaleSwapsTheAxisAndDropsValuesItCannotShow) {
  LossChart chart;
  chart.setRuns({{"a", "fp32", {}}});
  QList<QPointF> train = straightLoss();
  train.append({1010.0, 0.0});
  train.append({1020.0, std::numeric_limits<double>::quiet_NaN()});
  train.append({1030.0, std::numeric_limits<double>::infinity()});
  chart.updateRun("a", train, {});
  EXPECT_EQ(chart.shownTrain("a").size(), 102); // NaN and inf left out; 0 kept
  EXPECT_NE(qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Vertical).value(0)), nullptr);

  chart.setLogScale(true);
  EXPECT_TRUE(chart.logScale());
  auto* axis = qobject_cast<QLogValueAxis*>(chart.chart()->axes(Qt::Vertical).value(0));
  ASSERT_NE(axis, nullptr);
  EXPECT_EQ(chart.shownTrain("a").size(), 101); // 0 cannot be shown on a log axis
  EXPECT_LE(axis->min(), 1.0);
  EXPECT_GE(axis->max(), 2.0);

  chart.setLogScale(false);
  EXPECT_EQ(chart.shownTrain("a").size(), 102);
}

TEST(ChartsCurves, AxisRangeCoversEveryRun) {
  AccuracyChart chart;
  chart.setRuns({{"a", "fp32", {}}, {"b", "bf16", {}}});
  chart.updateRun("a", {{0.0, 10.0}, {300.0, 90.0}}, {});
  chart.updateRun("b", {{0.0, 12.0}, {800.0, 97.0}}, {});
  auto* x = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Horizontal).value(0));
  auto* y = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Vertical).value(0));
  ASSERT_NE(x, nullptr);
  ASSERT_NE(y, nullptr);
  EXPECT_LE(x->min(), 0.0);
  EXPECT_GE(x->max(), 800.0);
  EXPECT_LE(y->min(), 10.0);
  EXPECT_GE(y->max(), 97.0);
}

TEST(ChartsCurves, CsvHasAHeaderAndOneRowPerPoint) {
  LossChart chart;
  chart.setRuns({{"a", "fp32, lr 0.1", {}}});
  chart.updateRun("a", straightLoss(), {{0.0, 2.1}, {1000.0, 1.1}});
  const QStringList lines = chart.csv().split('\n', Qt::SkipEmptyParts);
  ASSERT_EQ(lines.size(), 1 + 101 + 2);
  EXPECT_EQ(lines[0], "run,curve,step,value");
  EXPECT_EQ(lines[1], "\"fp32, lr 0.1\",train,0,2"); // a comma in a name is quoted
  EXPECT_EQ(lines.last(), "\"fp32, lr 0.1\",test,1000,1.1");
}

TEST(ChartsCurves, JsonHoldsTheRunsAndTheirSkippedSteps) {
  LossChart chart;
  chart.setRuns({{"a", "fp16-mixed", {}}});
  chart.updateRun("a", straightLoss(), {}, {250.0});
  const QJsonObject root = chart.json().object();
  const QJsonArray runs = root["runs"].toArray();
  ASSERT_EQ(runs.size(), 1);
  EXPECT_EQ(runs[0].toObject()["name"].toString(), "fp16-mixed");
  EXPECT_EQ(runs[0].toObject()["train"].toArray().size(), 101);
  EXPECT_EQ(runs[0].toObject()["skippedSteps"].toArray().at(0).toDouble(), 250.0);
}

} // namespace
} // namespace mantissa::ui

namespace mantissa::ui {
namespace {

// A run named at length (100 characters) keeps the chart readable: its
// legend entry is elided in the middle to at most a third of the chart's
// width, the whole name in the entry's tooltip, and no axis tick or title
// is elided (the whole name beside the plot took 40 % of it and every tick
// became "...").
TEST(ChartsCurves, ALongRunNameIsElidedInTheLegendNeverOnTheAxes) {
  const QString longName = QStringLiteral("fp16-mixed · ") + QString(87, u'x');
  ASSERT_EQ(longName.size(), 100);
  LossChart chart;
  chart.resize(700, 450);
  chart.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&chart));
  chart.setRuns({{"a", longName, {}}, {"b", "fp32", {}}});
  ASSERT_TRUE(chart.updateRun("a", straightLoss(), {}));
  ASSERT_TRUE(chart.updateRun("b", straightLoss(), {}));
  QLegendMarker* marker = chart.chart()->legend()->markers(chart.trainSeries("a")).value(0);
  ASSERT_NE(marker, nullptr);
  ASSERT_TRUE(QTest::qWaitFor([&] { return marker->label() != longName; }, 5000)) << "not elided";
  EXPECT_TRUE(marker->label().contains(QChar(0x2026))) << marker->label().toStdString();
  EXPECT_TRUE(marker->label().startsWith(QStringLiteral("fp16-mixed"))) << marker->label().toStdString();
  EXPECT_LE(QFontMetricsF(chart.chart()->legend()->font()).horizontalAdvance(marker->label()),
            chart.chart()->size().width() / 3.0 + 1.0);
  EXPECT_EQ(chart.wholeLegendName(marker->label()), longName);
  EXPECT_EQ(chart.chart()->legend()->markers(chart.trainSeries("b")).value(0)->label(), "fp32");
  QStringList cut;
  (void)QTest::qWaitFor([&] { return (cut = unreadableChartTexts(chart, Legends::Skip)).isEmpty(); }, 3000);
  EXPECT_TRUE(cut.isEmpty()) << cut.join(u'\n').toStdString();
  EXPECT_GT(chart.chart()->plotArea().width(), chart.chart()->size().width() * 0.6);
}

} // namespace
} // namespace mantissa::ui
