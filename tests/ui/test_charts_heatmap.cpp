// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The histogram heat map: one image row per recorded step, one column per
// binade; clicking, dragging and the arrow keys scrub to a recorded step.

#include "ui/charts/histogram_heatmap.h"

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

} // namespace
} // namespace mantissa::ui
