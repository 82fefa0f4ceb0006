// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The loss and accuracy curves' own painter (CurveLayer): a point lands on the
// pixel Qt Charts maps it to for a series on the same axes (linear and log y),
// the pixels there are painted in the run's colour on screen and in an
// exported PNG, a dense curve is a connected band of whole-pixel columns,
// coinciding bands keep every run's colour, and the legend lists each run.

#include "loss_fixtures.h"
#include "ui/charts/chart_export.h"
#include "ui/charts/curve_layer.h"
#include "ui/charts/loss_chart.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QImage>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPaintEvent>
#include <QRegion>
#include <QScatterSeries>
#include <QTest>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace mantissa::ui {
namespace {

// Noise between 1 and 2 over 50,000 steps: a dense band.
QList<QPointF> noisyLoss() {
  QList<QPointF> points;
  for (int step = 0; step < 50000; ++step)
    points.append({double(step), 1.0 + double((step * 7919) % 1000) / 999.0});
  return points;
}

void shownAndLaidOut(LossChart& chart) {
  chart.resize(900, 500);
  chart.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&chart));
  QApplication::processEvents();
}

// The view pixel of a point in chart coordinates.
QPoint viewPixel(const LossChart& chart, const QPointF& at) {
  return chart.view()->mapFromScene(chart.chart()->mapToScene(at));
}

int colourDistance(QColor a, QColor b) {
  return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue());
}

// The colour nearest to `colour` within a pixel of `at` (an antialiased
// line of 1.75 px covers a pixel of its centre line only partly).
QColor nearestAround(const QImage& image, QPoint at, QColor colour) {
  QColor best = image.pixelColor(at);
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      const QColor c = image.pixelColor(at + QPoint(dx, dy));
      if (colourDistance(c, colour) < colourDistance(best, colour))
        best = c;
    }
  return best;
}

// Qt Charts maps a value of a series attached to the chart's axes: the layer
// must put the same value on the same spot, or the curve and its skip marks,
// grid and ticks disagree.
void expectMappedAsQtCharts(LossChart& chart) {
  const QPolygonF& mapped = chart.curveLayer()->mapped(0);
  const QList<QPointF> shown = chart.shownTrain("a");
  ASSERT_EQ(mapped.size(), shown.size());
  for (qsizetype i : {qsizetype(0), shown.size() / 3, shown.size() - 1}) {
    const QPointF qt = chart.chart()->mapToPosition(shown[i], chart.skippedSeries("a"));
    EXPECT_NEAR(mapped[i].x(), qt.x(), 1e-6) << i;
    EXPECT_NEAR(mapped[i].y(), qt.y(), 1e-6) << i;
  }
}

TEST(ChartsCurveLayer, APointLandsWhereTheAxesSay) {
  LossChart chart;
  chart.setRuns({{"a", "fp32", {}}});
  chart.updateRun("a", straightLoss(), {});
  shownAndLaidOut(chart);
  expectMappedAsQtCharts(chart);
  // And by the axes' own numbers: step 500, loss 1.5 in the plot rectangle.
  const PlotFrame& frame = chart.curveLayer()->frame();
  const QRectF plot = chart.chart()->plotArea();
  EXPECT_EQ(frame.plot, plot);
  const QPointF at = chart.curveLayer()->mapped(0)[50];
  EXPECT_NEAR(at.x(), plot.left() + (500.0 - frame.xMin) / (frame.xMax - frame.xMin) * plot.width(), 1e-9);
  EXPECT_NEAR(at.y(), plot.bottom() - (1.5 - frame.yMin) / (frame.yMax - frame.yMin) * plot.height(), 1e-9);
}

TEST(ChartsCurveLayer, LogYMapsAsALogAxis) {
  LossChart chart;
  chart.setRuns({{"a", "fp32", {}}});
  QList<QPointF> decades;
  for (int i = 0; i <= 40; ++i)
    decades.append({i * 25.0, std::pow(10.0, -2.0 + i * 0.05)}); // 0.01 .. 1
  chart.updateRun("a", decades, {});
  chart.setLogScale(true);
  shownAndLaidOut(chart);
  expectMappedAsQtCharts(chart);
  // 0.1 is one decade of the axis's two (0.01 .. 1) above the bottom.
  const QRectF plot = chart.chart()->plotArea();
  ASSERT_EQ(chart.curveLayer()->frame().yMin, 0.01);
  ASSERT_EQ(chart.curveLayer()->frame().yMax, 1.0);
  EXPECT_NEAR(chart.curveLayer()->mapped(0)[20].y(), plot.bottom() - 0.5 * plot.height(), 1e-6);
}

// The screen shows the curve: the view's own rendering (not the layer asked
// about itself) has the run's colour where the curve passes.
TEST(ChartsCurveLayer, TheViewPaintsTheCurveInTheRunsColour) {
  LossChart chart;
  const QColor red(220, 0, 0);
  chart.setRuns({{"a", "fp32", red}});
  chart.updateRun("a", straightLoss(), {});
  shownAndLaidOut(chart);
  const QImage image = chart.view()->grab().toImage();
  const QPoint mid = viewPixel(chart, chart.curveLayer()->mapped(0)[50]);
  EXPECT_LT(colourDistance(nearestAround(image, mid, red), red), 40);
  // Far from the line (a quarter of the plot above it): background.
  const QPoint off = mid - QPoint(0, int(0.25 * chart.chart()->plotArea().height()));
  EXPECT_GT(colourDistance(image.pixelColor(off), red), 300);
}

TEST(ChartsCurveLayer, ADenseCurveIsAConnectedBandOfPixelColumns) {
  LossChart chart;
  const QColor blue(0, 60, 220);
  chart.setRuns({{"a", "fp32", blue}});
  chart.updateRun("a", noisyLoss(), {});
  shownAndLaidOut(chart);
  ASSERT_TRUE(chart.shownAsBand("a"));
  const std::vector<QRect>& columns = chart.curveLayer()->columns(0);
  const QRectF plot = chart.chart()->plotArea();
  const QPointF top = chart.curveLayer()->frame().toPosition({0.0, 2.0});
  const QPointF bottom = chart.curveLayer()->frame().toPosition({0.0, 1.0});
  // Every column spans the noise (1 .. 2) give or take a pen width, they
  // follow each other without gaps across the data's x range, inside the plot.
  const double pen = chart.curveLayer()->curves()[0].pen.widthF();
  ASSERT_GT(columns.size(), 50u);
  const double slack = 0.1 * (bottom.y() - top.y()); // a column's extremes of ~100 noise values
  for (std::size_t i = 0; i < columns.size(); ++i) {
    EXPECT_LE(columns[i].top(), top.y() + slack) << i;
    EXPECT_GE(columns[i].bottom(), bottom.y() - slack) << i;
    EXPECT_TRUE(plot.adjusted(-1, -1, 1, 1).contains(QRectF(columns[i]))) << i;
    if (i > 0) {
      EXPECT_EQ(columns[i].left(), columns[i - 1].right() + 1) << i;
    }
  }
  const QPointF last = chart.curveLayer()->frame().toPosition({49999.0, 1.5});
  EXPECT_NEAR(columns.back().right(), last.x(), pen + 1.0);
  // The view paints the band: a pixel in the middle of a column is the run's colour.
  const QImage image = chart.view()->grab().toImage();
  const QRect c = columns[columns.size() / 2];
  EXPECT_EQ(image.pixelColor(viewPixel(chart, QPointF(c.center()))), blue);
}

// The band's column at pixel column x (null if nothing is painted there).
const QRect* columnAt(const std::vector<QRect>& columns, int x) {
  for (const QRect& c : columns)
    if (c.left() <= x && x <= c.right())
      return &c;
  return nullptr;
}

// The pens a band is painted with: normal, presenter (x2.5) and the widest
// nested presenter pen of three runs.
constexpr double kPens[] = {1.75, 4.375, 12.25};

// A flat line is as thick as the pen, centred on the line, over its whole length.
TEST(ChartsCurveLayer, AFlatBandIsOnePenThick) {
  const QRectF plot(0.0, 0.0, 200.0, 100.0);
  for (const double pen : kPens) {
    const std::vector<QRect> columns = bandColumns(QPolygonF{{20.0, 50.3}, {180.0, 50.3}}, 0.5 * pen, plot);
    for (int x = 21; x < 180; ++x) {
      const QRect* c = columnAt(columns, x);
      ASSERT_NE(c, nullptr) << pen << " " << x;
      EXPECT_NEAR(c->height(), pen, 1.0) << pen << " " << x;
      EXPECT_NEAR(0.5 * (c->top() + c->bottom() + 1), 50.3, 1.0) << pen << " " << x;
    }
  }
}

// The edges of a sloped line follow it pixel by pixel, where a thick pen puts
// them: r * sqrt(1 + m^2) above and below the centre line for slope m. Bands
// cut into pen-wide columns drew this as a staircase (steps of m * pen).
TEST(ChartsCurveLayer, ASlopedBandsEdgesFollowTheLineWithoutSteps) {
  const QRectF plot(0.0, 0.0, 200.0, 200.0);
  const double m = 0.5;
  for (const double pen : kPens) {
    const double r = 0.5 * pen;
    // y = 40 + m (x - 20) from x = 20 to 180, through points every 0.5 px.
    QPolygonF line;
    for (double x = 20.0; x <= 180.0; x += 0.5)
      line.append({x, 40.0 + m * (x - 20.0)});
    const std::vector<QRect> columns = bandColumns(line, r, plot);
    const double half = r * std::sqrt(1.0 + m * m);
    for (int x = 30; x < 170; ++x) {
      const QRect* c = columnAt(columns, x);
      ASSERT_NE(c, nullptr) << pen << " " << x;
      const double centre = 40.0 + m * (x + 0.5 - 20.0);
      EXPECT_NEAR(c->top(), centre - half, 1.5) << pen << " " << x;
      EXPECT_NEAR(c->bottom() + 1, centre + half, 1.5) << pen << " " << x;
    }
  }
}

// A steep line is at least a pen wide across, and not much more.
TEST(ChartsCurveLayer, ASteepBandIsAtLeastOnePenWide) {
  const QRectF plot(0.0, 0.0, 200.0, 200.0);
  for (const double pen : kPens) {
    for (const double x : {100.1, 100.5, 100.9}) {
      const std::vector<QRect> columns =
          bandColumns(QPolygonF{{x, 20.0}, {x + 0.05, 180.0}}, 0.5 * pen, plot);
      int across = 0; // pixels painted on row 100
      for (const QRect& c : columns)
        across += c.top() <= 100 && 100 <= c.bottom() ? c.width() : 0;
      EXPECT_GE(across, pen) << pen << " " << x;
      EXPECT_LE(across, pen + 2.0) << pen << " " << x;
    }
  }
}

// A one-point spike keeps its height plus half a pen above its peak (the
// pen's round cap), and its flanks are as thick as the pen.
TEST(ChartsCurveLayer, ASpikeReachesHalfAPenAboveItsPeak) {
  const QRectF plot(0.0, 0.0, 200.0, 200.0);
  for (const double pen : kPens) {
    const QPolygonF spiked{{20.0, 150.0}, {99.5, 150.0}, {100.5, 30.0}, {101.5, 150.0}, {180.0, 150.0}};
    const std::vector<QRect> columns = bandColumns(spiked, 0.5 * pen, plot);
    int top = 200;
    for (const QRect& c : columns)
      top = std::min(top, c.top());
    EXPECT_NEAR(top, 30.0 - 0.5 * pen, 1.0) << pen;
    int across = 0; // pixels painted on row 90, half way up the spike
    for (const QRect& c : columns)
      across += c.top() <= 90 && 90 <= c.bottom() ? c.width() : 0;
    EXPECT_GE(across, pen) << pen;
  }
}

// Neighbouring columns always touch, however far apart the points and
// however the line jumps; a point outside the plot is clipped.
TEST(ChartsCurveLayer, BandColumnsLeaveNoGaps) {
  const QRectF plot(10.0, 10.0, 300.0, 100.0);
  QPolygonF zigzag;
  for (int i = 0; i < 40; ++i) // jumps of up to 90 px every 7.5 px, some beyond the plot
    zigzag.append({12.0 + 7.5 * i, i % 2 == 0 ? 15.0 + (i * 37) % 90 : 105.0 - (i * 53) % 110});
  for (const double pen : kPens) {
    const std::vector<QRect> columns = bandColumns(zigzag, 0.5 * pen, plot);
    ASSERT_FALSE(columns.empty());
    for (std::size_t i = 0; i < columns.size(); ++i) {
      EXPECT_EQ(columns[i].width(), 1) << pen << " " << i;
      EXPECT_TRUE(QRect(10, 10, 300, 100).contains(columns[i])) << pen << " " << i;
      if (i > 0) {
        EXPECT_EQ(columns[i].left(), columns[i - 1].left() + 1) << pen << " " << i;
        EXPECT_LE(columns[i].top(), columns[i - 1].bottom() + 1) << pen << " " << i;
        EXPECT_GE(columns[i].bottom() + 1, columns[i - 1].top()) << pen << " " << i;
      }
    }
  }
  const std::vector<QRect> high = bandColumns(QPolygonF{{50.0, -40.0}, {51.0, 20.0}}, 1.0, plot);
  ASSERT_FALSE(high.empty());
  EXPECT_EQ(high[0].top(), 10);
}

// Runs whose dense bands coincide all stay visible, each in its legend
// colour, unmixed: the later run on top, each earlier one a fringe wider on
// either side. Down a pixel column from above the band: the first run's
// colour, then the second's, then the third's in the middle, and nothing else.
TEST(ChartsCurveLayer, CoincidingBandsShowEveryRunsOwnColour) {
  LossChart chart;
  const QColor a(240, 0, 0);
  const QColor b(0, 240, 0);
  const QColor c(0, 0, 240);
  chart.setRuns({{"a", "fp32", a}, {"b", "bf16-mixed", b}, {"c", "fp16-mixed", c}});
  for (const char* id : {"a", "b", "c"})
    chart.updateRun(id, noisyLoss(), {});
  shownAndLaidOut(chart);
  const QImage image = chart.view()->grab().toImage();
  const QRectF plot = chart.chart()->plotArea();
  const QPointF centre = chart.curveLayer()->frame().toPosition({25000.0, 1.5});
  ASSERT_TRUE(plot.contains(centre));
  for (const double dx : {-200.0, -77.0, 0.0, 31.0, 150.0}) {
    const QPointF at(centre.x() + dx, centre.y());
    EXPECT_EQ(image.pixelColor(viewPixel(chart, at)), c) << dx;
    QList<QColor> seen; // colours met going down the column, each once
    const QPoint from = viewPixel(chart, {at.x(), plot.top() + 1.0});
    const QPoint to = viewPixel(chart, at);
    int rows[3] = {0, 0, 0};
    for (int y = from.y(); y <= to.y(); ++y) {
      const QColor p = image.pixelColor(from.x(), y);
      const int run = p == a ? 0 : p == b ? 1 : p == c ? 2 : -1;
      if (run < 0) {
        EXPECT_TRUE(seen.isEmpty()) << dx << " y " << y << ": " << p.name().toStdString() << " inside the band";
        continue;
      }
      ++rows[run];
      if (seen.isEmpty() || seen.back() != p)
        seen.append(p);
    }
    EXPECT_EQ(seen, (QList<QColor>{a, b, c})) << dx;
    EXPECT_GE(rows[0], 1) << dx;
    EXPECT_GE(rows[1], 1) << dx;
  }
}

// Later runs stay on top when their bands lie apart: an earlier run's band
// spanning both shows between them and nowhere over them.
TEST(ChartsCurveLayer, AnEarlierBandShowsOnlyBetweenLaterOnesApart) {
  const auto noise = [](double lo, double hi) {
    QList<QPointF> points;
    for (int step = 0; step < 50000; ++step)
      points.append({double(step), lo + (hi - lo) * double((step * 7919) % 1000) / 999.0});
    return points;
  };
  LossChart chart;
  const QColor a(240, 0, 0);
  const QColor b(0, 240, 0);
  const QColor c(0, 0, 240);
  chart.setRuns({{"a", "fp32", a}, {"b", "bf16-mixed", b}, {"c", "fp16-mixed", c}});
  chart.updateRun("a", noise(1.0, 3.0), {});
  chart.updateRun("b", noise(2.6, 3.0), {});
  chart.updateRun("c", noise(1.0, 1.4), {});
  shownAndLaidOut(chart);
  const QImage image = chart.view()->grab().toImage();
  const PlotFrame& frame = chart.curveLayer()->frame();
  for (const double step : {10000.0, 25000.0, 40000.0}) {
    EXPECT_EQ(image.pixelColor(viewPixel(chart, frame.toPosition({step, 2.8}))), b) << step;
    EXPECT_EQ(image.pixelColor(viewPixel(chart, frame.toPosition({step, 2.0}))), a) << step;
    EXPECT_EQ(image.pixelColor(viewPixel(chart, frame.toPosition({step, 1.2}))), c) << step;
  }
}

TEST(ChartsCurveLayer, TheLegendNamesEachRunInItsColour) {
  LossChart chart;
  chart.setRuns({{"a", "fp32", QColor(200, 0, 0)}, {"b", "bf16-mixed", QColor(0, 0, 200)}});
  chart.updateRun("a", noisyLoss(), {}, {100.0});
  chart.updateRun("b", straightLoss(), {});
  shownAndLaidOut(chart);
  QStringList shown;
  for (QLegendMarker* marker : chart.chart()->legend()->markers())
    if (marker->isVisible())
      shown << marker->label();
  EXPECT_EQ(shown, (QStringList{"skipped step", "fp32", "bf16-mixed"}));
  for (const char* id : {"a", "b"}) {
    const QList<QLegendMarker*> markers = chart.chart()->legend()->markers(chart.trainSeries(id));
    ASSERT_EQ(markers.size(), 1);
    EXPECT_EQ(markers[0]->brush().color(), chart.curveLayer()->curves()[id[0] == 'a' ? 0 : 2].pen.color());
  }
}

// An exported PNG has the curve: the red pixels of a one-run chart are its
// legend marker alone when the run has no data, and many more with a curve.
TEST(ChartsCurveLayer, ExportedPngsHoldTheCurve) {
  const auto redPixels = [](const QList<QPointF>& points) {
    LossChart chart;
    chart.setRuns({{"a", "fp32", QColor(230, 0, 0)}});
    chart.updateRun("a", points, {});
    ExportOptions options;
    options.size = QSize(800, 500);
    QImage image;
    image.loadFromData(renderPng(chart, options));
    int red = 0;
    for (int y = 0; y < image.height(); ++y)
      for (int x = 0; x < image.width(); ++x) {
        const QColor p = image.pixelColor(x, y);
        red += p.red() > 180 && p.green() < 90 && p.blue() < 90 ? 1 : 0;
      }
    return red;
  };
  const int legendOnly = redPixels({});
  EXPECT_GT(redPixels(straightLoss()), legendOnly + 400); // a line across ~600 px of plot
  EXPECT_GT(redPixels(noisyLoss()), legendOnly + 400);
}

// A chart view repaints one rectangle around everything that changed: under
// a clip region of many rectangles Qt draws each grid line and area edge
// through its slow clipped-span path (two thirds of a live frame).
TEST(ChartsCurveLayer, AnUpdateRepaintsOneRectangle) {
  class PaintRegions : public QObject {
  public:
    QList<QRegion> regions;
    bool eventFilter(QObject*, QEvent* event) override {
      if (event->type() == QEvent::Paint)
        regions.append(static_cast<QPaintEvent*>(event)->region());
      return false;
    }
  } paints;
  LossChart chart;
  chart.setRuns({{"a", "fp32", {}}});
  chart.updateRun("a", straightLoss(), {});
  shownAndLaidOut(chart);
  chart.view()->viewport()->installEventFilter(&paints);
  QList<QPointF> higher = straightLoss();
  for (QPointF& p : higher)
    p.ry() *= 10.0; // new y range: the axis labels and the plot change
  chart.updateRun("a", higher, {}, {500.0});
  ASSERT_TRUE(QTest::qWaitFor([&] { return !paints.regions.isEmpty(); }, 2000));
  QApplication::processEvents();
  for (const QRegion& region : paints.regions)
    EXPECT_EQ(region.rectCount(), 1);
}

} // namespace
} // namespace mantissa::ui

