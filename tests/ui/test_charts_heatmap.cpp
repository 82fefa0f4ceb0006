// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The histogram heat map: one image row per recorded step, one column per
// binade; clicking, dragging and the arrow keys scrub to a recorded step.

#include "ui/charts/histogram_heatmap.h"
#include "ui/charts/chart_style.h"

#include <QImage>
#include <QPainter>
#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

namespace mantissa::ui {
namespace {

using telemetry::ExponentHistogram;

ExponentHistogram single(int exponent, std::uint64_t count) {
  ExponentHistogram h;
  h.bins[h.index(exponent)] = count;
  h.total = count;
  return h;
}

const std::vector<std::int64_t> kSteps{0, 50, 100, 150, 200};

std::vector<ExponentHistogram> rows() {
  return {single(-10, 1), single(-11, 10), single(-12, 100), single(-13, 1000), single(-14, 10000)};
}

QPoint centreOfRow(const HistogramHeatmap& map, int row) {
  const QRectF plot = map.plotRect();
  return QPointF(plot.center().x(), plot.top() + (row + 0.5) * plot.height() / map.rowCount()).toPoint();
}

TEST(ChartsHeatmap, OneImageRowPerStepOneColumnPerBinade) {
  HistogramHeatmap map;
  ASSERT_TRUE(map.setHistory(kSteps, rows()));
  EXPECT_EQ(map.rowCount(), 5);
  const QImage& image = map.image();
  EXPECT_EQ(image.height(), 5);
  EXPECT_EQ(image.width(), map.lastExponent() - map.firstExponent() + 1);
  const auto column = [&](int exponent) { return exponent - map.firstExponent(); };
  // Row 2 holds only binade -12: that cell is coloured, its neighbours empty.
  EXPECT_EQ(qAlpha(image.pixel(column(-12), 2)), 255);
  EXPECT_EQ(qAlpha(image.pixel(column(-11), 2)), 0);
  EXPECT_EQ(qAlpha(image.pixel(column(-13), 2)), 0);
  // More values, brighter colour (viridis grows lighter).
  EXPECT_LT(qGray(image.pixel(column(-10), 0)), qGray(image.pixel(column(-14), 4)));
  // FP16's subnormal range stays in view even when the data does not reach it.
  EXPECT_LE(map.firstExponent(), -25);
}

// Rows of unscaled values of a loss-scaled run carry a shift of
// -log2(scale): the FP16 limits (smallest subnormal 2^-24, smallest normal
// 2^-14) are drawn that many binades lower, and stay in view.
TEST(ChartsHeatmap, ShiftedRowsMoveTheFp16LimitsIntoView) {
  HistogramHeatmap map;
  map.resize(900, 400);
  ASSERT_TRUE(map.setHistory({0, 10}, {single(-40, 5), single(-41, 5)}, {-20.0, -20.0}));
  EXPECT_LE(map.firstExponent(), -24 - 20 - 1);
  EXPECT_DOUBLE_EQ(map.regionShiftOfRow(1), -20.0);
  const QRectF plot = map.plotRect();
  const int cols = map.lastExponent() - map.firstExponent() + 1;
  const auto xOf = [&](double e) { return plot.left() + (e - map.firstExponent()) / cols * plot.width(); };
  const auto labels = map.regionLabelRects();
  ASSERT_GE(labels.size(), 2u);
  // "FP16 subnormal" is centred over [2^-44, 2^-34), not over [2^-24, 2^-14).
  EXPECT_NEAR(labels[1].center().x(), (xOf(-44.0) + xOf(-34.0)) / 2.0, 1.0);
  map.setValuesNote("unscaled values, FP16 limits moved by the loss scale");
  EXPECT_TRUE(map.title().endsWith("(unscaled values, FP16 limits moved by the loss scale)"));
  // Without shifts the limits are where the format puts them.
  ASSERT_TRUE(map.setHistory({0, 10}, {single(-20, 5), single(-21, 5)}));
  EXPECT_DOUBLE_EQ(map.regionShiftOfRow(0), 0.0);
  const QRectF plot2 = map.plotRect();
  const int cols2 = map.lastExponent() - map.firstExponent() + 1;
  const auto xOf2 = [&](double e) { return plot2.left() + (e - map.firstExponent()) / cols2 * plot2.width(); };
  EXPECT_NEAR(map.regionLabelRects()[1].center().x(), (xOf2(-24.0) + xOf2(-14.0)) / 2.0, 1.0);
  EXPECT_FALSE(map.setHistory({0, 10}, {single(-20, 5), single(-21, 5)}, {0.0}));
}

// A BF16 run's weight gradients, 2^-40 to 2^-5: the columns hold the values,
// not the 80-odd empty binades down to BF16's flush edge at 2^-126 (three
// quarters of the width stood empty); that edge is named at the plot's left
// side instead, and a live row keeps the columns.
TEST(ChartsHeatmap, Bf16RowsFillTheWidth) {
  HistogramHeatmap map;
  map.resize(900, 400);
  map.setRunFormat(numeric::FormatId::Bf16);
  ExponentHistogram h;
  for (int e = -40; e <= -5; ++e) {
    h.bins[h.index(e)] = 10;
    h.total += 10;
  }
  ASSERT_TRUE(map.setHistory(kSteps, std::vector<ExponentHistogram>(kSteps.size(), h)));
  EXPECT_LE(map.firstExponent(), -40);
  EXPECT_GE(map.lastExponent(), -5);
  const int valueColumns = -5 - (-40) + 1;
  const int columns = map.lastExponent() - map.firstExponent() + 1;
  EXPECT_GE(double(valueColumns) / columns, 0.9) << "columns " << map.firstExponent() << " to " << map.lastExponent();
  const QStringList labels = map.regionLabelTexts();
  ASSERT_EQ(labels.size(), 1) << labels.join(u'|').toStdString();
  EXPECT_TRUE(labels.front().startsWith(QStringLiteral("\u2190 BF16 \u2192 0"))) << labels.front().toStdString();
  EXPECT_TRUE(labels.front().endsWith(QStringLiteral("2^-126"))) << labels.front().toStdString();
  EXPECT_LE(map.regionLabelRects().front().right(), map.plotRect().right());
  ASSERT_TRUE(map.appendRow(250, h));
  EXPECT_EQ(map.lastExponent() - map.firstExponent() + 1, columns);
}

// The selected step's label stays inside the plot, for the last row too (it
// hung below the plot over the x axis' last tick, cut to "step 18" at the
// figure's edge at 1920x1080 presenter), for the first row and in between.
TEST(ChartsHeatmap, SelectedStepLabelStaysInsideThePlot) {
  for (const bool presenter : {false, true}) {
    HistogramHeatmap map;
    map.setChartStyle(presenter ? ChartStyle::presenter(false) : ChartStyle::screen(false));
    map.resize(950, 560);
    std::vector<std::int64_t> steps;
    for (int s = 0; s <= 180; s += 10)
      steps.push_back(s);
    ASSERT_TRUE(map.setHistory(steps, std::vector<ExponentHistogram>(steps.size(), single(-12, 10))));
    for (const std::int64_t step : {std::int64_t(180), std::int64_t(0), std::int64_t(90)}) {
      map.selectStep(step);
      const QRectF label = map.selectedStepLabelRect();
      const QRectF plot = map.plotRect();
      ASSERT_FALSE(label.isEmpty());
      EXPECT_TRUE(plot.contains(label)) << "step " << step << (presenter ? " presenter" : "") << ": label "
                                        << label.top() << ".." << label.bottom() << " in a plot "
                                        << plot.top() << ".." << plot.bottom();
    }
  }
}

// Live rows colour one more scanline when they fit the columns and the colour
// scale, and rebuild when they do not: either way the picture is the one a
// rebuild from the whole history gives.
TEST(ChartsHeatmap, AppendedRowsPaintAsTheWholeHistoryDoes) {
  std::vector<std::int64_t> steps;
  std::vector<ExponentHistogram> hists;
  HistogramHeatmap live;
  const int exponents[] = {-12, -11, -12, -13, -2, -12, -30, -11, -12};
  const std::uint64_t counts[] = {500, 20, 3, 499, 7, 9000, 1, 60, 8999};
  for (int i = 0; i < 9; ++i) {
    ExponentHistogram h = single(exponents[i], counts[i]);
    h.bins[h.index(-12)] += 1; // every row also shares one binade
    steps.push_back(10 * i);
    hists.push_back(h);
    ASSERT_TRUE(live.appendRow(10 * i, h));
  }
  HistogramHeatmap whole;
  ASSERT_TRUE(whole.setHistory(steps, hists));
  EXPECT_EQ(live.firstExponent(), whole.firstExponent());
  EXPECT_EQ(live.lastExponent(), whole.lastExponent());
  ASSERT_EQ(live.image().size(), whole.image().size());
  EXPECT_TRUE(live.image() == whole.image());
}

TEST(ChartsHeatmap, RejectsMismatchedOrUnorderedHistory) {
  HistogramHeatmap map;
  EXPECT_FALSE(map.setHistory({0, 1}, rows()));
  EXPECT_FALSE(map.setHistory({0, 50, 50, 150, 200}, rows()));
  EXPECT_EQ(map.rowCount(), 0);
  ASSERT_TRUE(map.setHistory(kSteps, rows()));
  EXPECT_FALSE(map.appendRow(200, single(-5, 1)));
  EXPECT_TRUE(map.appendRow(250, single(-5, 1)));
  EXPECT_EQ(map.rowCount(), 6);
}

TEST(ChartsHeatmap, ClickingARowSelectsItsRecordedStep) {
  HistogramHeatmap map;
  map.resize(600, 400);
  map.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&map));
  ASSERT_TRUE(map.setHistory(kSteps, rows()));
  QSignalSpy spy(&map, &HistogramHeatmap::stepSelected);
  QTest::mouseClick(&map, Qt::LeftButton, {}, centreOfRow(map, 3));
  ASSERT_EQ(spy.count(), 1);
  EXPECT_EQ(spy.at(0).at(0).value<std::int64_t>(), 150);
  EXPECT_EQ(map.selectedStep(), 150);
}

TEST(ChartsHeatmap, DraggingAndKeysScrubThroughTheSteps) {
  HistogramHeatmap map;
  map.resize(600, 400);
  map.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&map));
  ASSERT_TRUE(map.setHistory(kSteps, rows()));
  QSignalSpy spy(&map, &HistogramHeatmap::stepSelected);
  QTest::mousePress(&map, Qt::LeftButton, {}, centreOfRow(map, 0));
  QTest::mouseMove(&map, centreOfRow(map, 4));
  QTest::mouseRelease(&map, Qt::LeftButton, {}, centreOfRow(map, 4));
  ASSERT_GE(spy.count(), 2);
  EXPECT_EQ(spy.first().at(0).value<std::int64_t>(), 0);
  EXPECT_EQ(spy.last().at(0).value<std::int64_t>(), 200);

  QTest::keyClick(&map, Qt::Key_Up);
  EXPECT_EQ(spy.last().at(0).value<std::int64_t>(), 150);
  QTest::keyClick(&map, Qt::Key_Home);
  EXPECT_EQ(map.selectedStep(), 0);
}

TEST(ChartsHeatmap, SelectStepPicksTheNearestRecordedStep) {
  HistogramHeatmap map;
  ASSERT_TRUE(map.setHistory(kSteps, rows()));
  QSignalSpy spy(&map, &HistogramHeatmap::stepSelected);
  map.selectStep(118);
  EXPECT_EQ(map.selectedStep(), 100);
  map.selectStep(132);
  EXPECT_EQ(map.selectedStep(), 150);
  map.selectStep(9999);
  EXPECT_EQ(map.selectedStep(), 200);
  EXPECT_EQ(spy.count(), 3);
}

TEST(ChartsHeatmap, CsvHasOneRowPerNonEmptyCell) {
  HistogramHeatmap map;
  ASSERT_TRUE(map.setHistory(kSteps, rows()));
  const QStringList lines = map.csv().split('\n', Qt::SkipEmptyParts);
  ASSERT_EQ(lines.size(), 1 + 5);
  EXPECT_EQ(lines[0], "step,binade,count");
  EXPECT_EQ(lines[4], "150,-13,1000");
}

// A heat map in a narrow dock at a projector (1280x720, presenter fonts):
// the x-axis title "log2 |value| (column e counts ...)" is wider than the
// figure. It must wrap inside it, not run off both edges (where the old
// centred one-line title was cut). Checked on the painted pixels: below the
// plot no text touches the left or right edge or the bottom, and the title is
// there (dark pixels under the tick labels).
TEST(ChartsHeatmap, AxisTitlesStayInsideANarrowPresenterFigure) {
  for (const QSize size : {QSize(360, 300), QSize(480, 260), QSize(640, 320)}) {
    SCOPED_TRACE(testing::Message() << size.width() << "x" << size.height());
    HistogramHeatmap map;
    map.setChartStyle(ChartStyle::presenter(false));
    map.resize(size);
    ASSERT_TRUE(map.setHistory(kSteps, rows()));
    const QImage image = map.grab().toImage().convertToFormat(QImage::Format_RGB32);
    ASSERT_EQ(image.size(), size);
    const auto dark = [&](int x, int y) { return qGray(image.pixel(x, y)) < 110; };
    const int below = static_cast<int>(map.plotRect().bottom()) + 3;
    int edgeInk = 0, bottomInk = 0, titleInk = 0;
    for (int y = below; y < image.height(); ++y)
      for (int x = 0; x < image.width(); ++x) {
        if (!dark(x, y))
          continue;
        ++titleInk;
        edgeInk += x < 3 || x >= image.width() - 3;
        bottomInk += y >= image.height() - 2;
      }
    EXPECT_EQ(edgeInk, 0) << "text cut at the figure's left or right edge";
    EXPECT_EQ(bottomInk, 0) << "text cut at the figure's bottom";
    EXPECT_GT(titleInk, 200) << "no tick labels or title under the plot";
    // All of the title is painted: its ink under the tick labels matches the
    // same text painted on one line on a wide canvas (a title clipped to the
    // plot's width, as before, lost a third to two thirds of it).
    const ChartStyle style = ChartStyle::presenter(false);
    const int titleTop =
        static_cast<int>(map.plotRect().bottom() + 6.0 + QFontMetricsF(style.labelFont(), &map).height());
    int bandInk = 0;
    for (int y = titleTop; y < image.height(); ++y)
      for (int x = 0; x < image.width(); ++x)
        bandInk += dark(x, y);
    QImage reference(2000, 120, QImage::Format_RGB32);
    reference.fill(Qt::white);
    {
      QPainter painter(&reference);
      painter.setFont(style.axisTitleFont());
      painter.setPen(style.text());
      painter.drawText(QRectF(0, 0, 2000, 120), Qt::AlignLeft | Qt::AlignTop, HistogramHeatmap::xTitle());
    }
    int referenceInk = 0;
    for (int y = 0; y < reference.height(); ++y)
      for (int x = 0; x < reference.width(); ++x)
        referenceInk += qGray(reference.pixel(x, y)) < 110;
    EXPECT_NEAR(bandInk, referenceInk, 0.1 * referenceInk);
    // The wrapped title's rectangle is inside the figure and tall enough for its lines.
    const QRectF title = map.xTitleRect();
    EXPECT_TRUE(QRectF(map.rect()).contains(title));
    const QFontMetricsF metrics(ChartStyle::presenter(false).axisTitleFont(), &map);
    const QRectF drawn = metrics.boundingRect(title, Qt::AlignHCenter | Qt::TextWordWrap, HistogramHeatmap::xTitle());
    EXPECT_LE(drawn.height(), title.height() + 0.5);
    EXPECT_TRUE(QRectF(map.rect()).contains(drawn));
    // The colour bar's title runs along the bar (as tall as the plot): each
    // of its lines fits it ("values per cell" was cut at both ends at 480x260).
    const QString colourTitle = map.colourBarTitleShown();
    ASSERT_FALSE(colourTitle.isEmpty());
    for (const QString& line : colourTitle.split(u'\n'))
      EXPECT_LE(metrics.horizontalAdvance(line), map.plotRect().height()) << line.toStdString();
    // Tick labels keep apart: "-25" and "-20" ran together at 360 px.
    const QFontMetricsF labels(style.labelFont(), &map);
    const double perColumn = map.plotRect().width() / (map.lastExponent() - map.firstExponent() + 1);
    EXPECT_GE(map.xTickEvery() * perColumn, labels.horizontalAdvance(QStringLiteral("-100")));
    // "FP16 → 0" and "FP16 subnormal" no longer overlap (they did at 640 px).
    const std::vector<QRectF> names = map.regionLabelRects();
    EXPECT_GE(names.size(), 2u);
    for (std::size_t i = 0; i < names.size(); ++i)
      for (std::size_t j = i + 1; j < names.size(); ++j)
        EXPECT_FALSE(names[i].intersects(names[j])) << i << " " << j;
  }
}

} // namespace
} // namespace mantissa::ui
