// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The exponent histogram: bars at the right binades, format regions at the
// exponents the format specifications give (IEEE 754 binary16, bfloat16, OCP
// FP8), counters, scaled / unscaled and log toggles.

#include "ui/charts/histogram_chart.h"

#include "chart_text.h"

#include <QAreaSeries>
#include <QLineSeries>
#include <QAction>
#include <QLogValueAxis>
#include <QMenu>
#include <QChart>
#include <QCoreApplication>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QImage>
#include <QJsonObject>
#include <QLabel>
#include <QPainter>
#include <QRegularExpression>
#include <QTest>
#include <QValueAxis>

#include <gtest/gtest.h>

#include <cmath>

namespace mantissa::ui {
namespace {

using numeric::FormatId;
using telemetry::ExponentHistogram;

struct Expected {
  FormatId format;
  double flushBelow;   // everything at or below 2^this rounds to zero
  double subnormalMin; // log2 of the smallest subnormal
  double normalMin;    // log2 of the smallest normal
  double maxFinite;    // the largest finite value
};

// From the specifications, typed here on purpose.
const Expected kSpec[] = {
    {FormatId::Fp16, -25.0, -24.0, -14.0, 65504.0},
    {FormatId::Bf16, -134.0, -133.0, -126.0, 3.3895313892515355e38},
    {FormatId::Fp8E4M3, -10.0, -9.0, -6.0, 448.0},
    {FormatId::Fp8E5M2, -17.0, -16.0, -14.0, 57344.0},
    {FormatId::Fp4E2M1, -2.0, -1.0, 0.0, 6.0},
};

// BF16 as the casts store it: VCVTNEPS2BF16 treats FP32 subnormal inputs as
// zero (DAZ; Intel SDM, VCVTNEPS2BF16), so everything below 2^-126 becomes 0
// and BF16's own subnormal range [2^-133, 2^-126) receives no value.
const Expected kBf16AsCast{FormatId::Bf16, -126.0, -126.0, -126.0, 3.3895313892515355e38};

TEST(ChartsHistogram, RegionsSitAtTheSpecExponents) {
  for (Expected e : kSpec) {
    if (e.format == FormatId::Bf16)
      e = kBf16AsCast;
    const std::vector<FormatRegion> regions = formatRegions(e.format);
    ASSERT_EQ(regions.size(), 3u);
    EXPECT_EQ(regions[0].kind, RegionKind::FlushToZero);
    EXPECT_EQ(regions[0].x1, e.flushBelow);
    EXPECT_TRUE(std::isinf(regions[0].x0));
    EXPECT_EQ(regions[1].kind, RegionKind::Subnormal);
    EXPECT_EQ(regions[1].x0, e.subnormalMin);
    EXPECT_EQ(regions[1].x1, e.normalMin);
    EXPECT_EQ(regions[2].kind, RegionKind::Overflow);
    EXPECT_DOUBLE_EQ(regions[2].x0, std::log2(e.maxFinite));
  }
  EXPECT_EQ(formatRegions(FormatId::Fp16)[1].label, "FP16 subnormal");
}

// The region series' corners, as drawn: [x0, x1] over the whole y range.
std::pair<double, double> drawnSpan(const HistogramChart& chart, FormatId f, RegionKind k) {
  const QAreaSeries* area = chart.regionSeries(f, k);
  const QList<QPointF> lower = area->lowerSeries()->points();
  return {lower.value(0).x(), lower.value(1).x()};
}

TEST(ChartsHistogram, ShadedRegionsAreDrawnAtTheSpecExponents) {
  HistogramChart chart;
  ExponentHistogram h;
  h.bins[h.index(-20)] = 100;
  chart.setRunFormat(FormatId::Fp16); // the run's format; the others are "as it would be"
  chart.setHistograms(h);
  ASSERT_TRUE(chart.isFormatVisible(FormatId::Fp16));
  EXPECT_TRUE(chart.regionSeries(FormatId::Fp16, RegionKind::Subnormal)->isVisible());
  EXPECT_EQ(drawnSpan(chart, FormatId::Fp16, RegionKind::Subnormal), std::make_pair(-24.0, -14.0));
  EXPECT_EQ(drawnSpan(chart, FormatId::Fp16, RegionKind::FlushToZero).second, -25.0);
  EXPECT_DOUBLE_EQ(drawnSpan(chart, FormatId::Fp16, RegionKind::Overflow).first, std::log2(65504.0));
  EXPECT_EQ(chart.regionLabel(FormatId::Fp16, RegionKind::Overflow), "FP16 → inf");

  EXPECT_FALSE(chart.regionSeries(FormatId::Bf16, RegionKind::Subnormal)->isVisible());
  EXPECT_EQ(chart.regionLabel(FormatId::Bf16, RegionKind::Subnormal), "");
  chart.setFormatVisible(FormatId::Bf16, true);
  // The casts flush BF16 subnormals: no subnormal band, zero below 2^-126.
  EXPECT_FALSE(chart.regionSeries(FormatId::Bf16, RegionKind::Subnormal)->isVisible());
  ASSERT_TRUE(chart.regionSeries(FormatId::Bf16, RegionKind::FlushToZero)->isVisible());
  EXPECT_EQ(drawnSpan(chart, FormatId::Bf16, RegionKind::FlushToZero).second, -126.0);
  EXPECT_LE(chart.xMin(), -127.0); // the axis grows to show BF16's limit
  EXPECT_EQ(chart.regionLabel(FormatId::Bf16, RegionKind::FlushToZero),
            "if BF16: → 0");

  chart.setFormatVisible(FormatId::Fp8E4M3, true);
  EXPECT_DOUBLE_EQ(drawnSpan(chart, FormatId::Fp8E4M3, RegionKind::Overflow).first, std::log2(448.0));
  EXPECT_EQ(chart.regionLabel(FormatId::Fp8E4M3, RegionKind::Overflow),
            "if E4M3: overflow");
  EXPECT_TRUE(chart.title().contains("shaded as it would be in BF16, FP8 E4M3"))
      << chart.title().toStdString();
  // A BF16 run: its own regions by default, named as its own; FP16 only when asked.
  chart.setRunFormat(FormatId::Bf16);
  EXPECT_TRUE(chart.isFormatVisible(FormatId::Bf16));
  EXPECT_FALSE(chart.isFormatVisible(FormatId::Fp16));
  EXPECT_FALSE(chart.isFormatVisible(FormatId::Fp8E4M3));
  EXPECT_EQ(chart.regionLabel(FormatId::Bf16, RegionKind::FlushToZero),
            "BF16 → 0 (casts flush subnormals)");
}

// FP4 (E2M1, the element of MXFP4 and NVFP4) is shaded on request, as it
// would be: zero at or below 2^-2, subnormal [2^-1, 2^0), overflow from 6
// (there was no way to show it).
TEST(ChartsHistogram, E2M1RegionsAreShadedOnRequest) {
  HistogramChart chart;
  ExponentHistogram h;
  for (int e = -6; e <= 3; ++e)
    h.bins[h.index(e)] = 100;
  chart.setHistograms(h);
  EXPECT_FALSE(chart.isFormatVisible(FormatId::Fp4E2M1));
  ASSERT_NE(chart.regionSeries(FormatId::Fp4E2M1, RegionKind::Subnormal), nullptr);
  EXPECT_FALSE(chart.regionSeries(FormatId::Fp4E2M1, RegionKind::Subnormal)->isVisible());
  // Asked for from the chart's context menu.
  QMenu menu;
  chart.addViewActions(menu);
  QAction* shadeFp4 = nullptr;
  for (QAction* action : menu.actions())
    if (action->text().contains(QStringLiteral("FP4 E2M1")))
      shadeFp4 = action;
  ASSERT_NE(shadeFp4, nullptr);
  EXPECT_TRUE(shadeFp4->isCheckable());
  EXPECT_FALSE(shadeFp4->isChecked());
  shadeFp4->trigger();
  EXPECT_TRUE(chart.isFormatVisible(FormatId::Fp4E2M1));
  EXPECT_TRUE(chart.regionSeries(FormatId::Fp4E2M1, RegionKind::Subnormal)->isVisible());
  EXPECT_EQ(drawnSpan(chart, FormatId::Fp4E2M1, RegionKind::FlushToZero).second, -2.0);
  EXPECT_EQ(drawnSpan(chart, FormatId::Fp4E2M1, RegionKind::Subnormal), std::make_pair(-1.0, 0.0));
  EXPECT_DOUBLE_EQ(drawnSpan(chart, FormatId::Fp4E2M1, RegionKind::Overflow).first, std::log2(6.0));
  // E2M1 has neither infinity nor NaN (OCP MX v1.0): what overflows saturates at 6.
  EXPECT_EQ(chart.regionLabel(FormatId::Fp4E2M1, RegionKind::Overflow), "if E2M1: saturates");
  EXPECT_TRUE(chart.title().contains("shaded as it would be in") && chart.title().endsWith("FP4 E2M1"))
      << chart.title().toStdString();
}

TEST(ChartsHistogram, BarsStandOnTheirBinades) {
  HistogramChart chart;
  ExponentHistogram h;
  h.bins[h.index(-20)] = 5;
  h.bins[h.index(-3)] = 12;
  h.total = 17;
  chart.setHistograms(h);
  const QList<QPointF> top = chart.barSeries()->upperSeries()->points();
  // Each binade e is a flat top from x = e to x = e + 1.
  const auto heightAt = [&](double x) {
    for (qsizetype i = 0; i + 1 < top.size(); i += 2)
      if (top[i].x() == x && top[i + 1].x() == x + 1.0 && top[i].y() == top[i + 1].y())
        return top[i].y();
    return -1.0;
  };
  EXPECT_EQ(heightAt(-20.0), 5.0);
  EXPECT_EQ(heightAt(-3.0), 12.0);
  EXPECT_EQ(heightAt(-10.0), 0.0);
}

// Counts are whole numbers, so every linear y tick is one: a histogram with
// no frame yet, or one value per binade, used to label its ticks 0, 0, 1, 2.
TEST(ChartsHistogram, LinearCountTicksAreWholeNumbers) {
  for (std::uint64_t peak : {0u, 1u, 2u, 3u, 7u, 12u, 1000u}) {
    SCOPED_TRACE(peak);
    HistogramChart chart;
    ExponentHistogram h;
    h.bins[h.index(-5)] = peak;
    h.total = peak;
    chart.setHistograms(h);
    auto* axis = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Vertical).value(0));
    ASSERT_NE(axis, nullptr);
    ASSERT_GE(axis->tickCount(), 2);
    EXPECT_GE(axis->max(), static_cast<double>(peak));
    const double step = (axis->max() - axis->min()) / (axis->tickCount() - 1);
    for (int i = 0; i < axis->tickCount(); ++i) {
      const double tick = axis->min() + i * step;
      EXPECT_EQ(tick, std::round(tick)) << "tick " << i << " of " << axis->tickCount();
    }
  }
}

// A new count range re-lays out the whole chart (new tick labels): a peak
// that flips between two counts keeps the axis where it is; bars above the
// axis grow it at once, and bars far below it (under a third) shrink it.
TEST(ChartsHistogram, CountAxisStaysPutWhileThePeakMovesWithinIt) {
  HistogramChart chart;
  auto* axis = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Vertical).value(0));
  ASSERT_NE(axis, nullptr);
  int rangeChanges = 0;
  QObject::connect(axis, &QValueAxis::rangeChanged, [&] { ++rangeChanges; });
  const auto show = [&](std::uint64_t peak) {
    ExponentHistogram h;
    h.bins[h.index(-5)] = peak;
    h.bins[h.index(-6)] = 3;
    h.total = peak + 3;
    chart.setHistograms(h);
  };
  show(16);
  const double top = axis->max();
  ASSERT_GE(top, 16.0);
  rangeChanges = 0;
  for (int frame = 0; frame < 10; ++frame)
    show(frame % 2 == 0 ? 8 : 16); // a binade whose count doubles and halves
  EXPECT_EQ(rangeChanges, 0);
  EXPECT_EQ(axis->max(), top);
  show(1000); // taller than the axis: grows at once, the bar fits
  EXPECT_GE(axis->max(), 1000.0);
  show(900); // within the range: kept
  EXPECT_GE(axis->max(), 1000.0);
  show(100); // under a third of it: shrinks to fit
  EXPECT_GE(axis->max(), 100.0);
  EXPECT_LT(axis->max(), 300.0);
}

TEST(ChartsHistogram, CountersShowZerosInfinitiesAndNan) {
  HistogramChart chart;
  ExponentHistogram h;
  h.bins[h.index(-20)] = 5;
  h.zeros = 42;
  h.posInf = 3;
  h.negInf = 1;
  h.nan = 7;
  h.total = 58;
  chart.setHistograms(h);
  const QString text = chart.countersText();
  EXPECT_TRUE(text.contains(QRegularExpression("zeros\\s+42"))) << text.toStdString();
  EXPECT_TRUE(text.contains(QRegularExpression("\\+inf\\s+3"))) << text.toStdString();
  EXPECT_TRUE(text.contains(QRegularExpression("−inf\\s+1"))) << text.toStdString();
  EXPECT_TRUE(text.contains(QRegularExpression("NaN\\s+7"))) << text.toStdString();
}

TEST(ChartsHistogram, ScaledToggleShowsTheOtherHistogram) {
  HistogramChart chart;
  ExponentHistogram unscaled;
  unscaled.bins[unscaled.index(-27)] = 9; // the values the optimizer uses
  ExponentHistogram scaled;
  scaled.bins[scaled.index(-11)] = 9; // the same values times 2^16
  chart.setHistograms(unscaled, &scaled, 65536.0);
  // The bar of binade e: the flat top from x = e to x = e + 1.
  const auto barAt = [&](double x) {
    const QList<QPointF> top = chart.barSeries()->upperSeries()->points();
    for (qsizetype i = 0; i + 1 < top.size(); i += 2)
      if (top[i].x() == x && top[i + 1].x() == x + 1.0)
        return top[i].y();
    return -1.0;
  };
  // A loss-scaled run shows the values as stored by default.
  EXPECT_TRUE(chart.showScaled());
  EXPECT_EQ(barAt(-11.0), 9.0);
  EXPECT_EQ(barAt(-27.0), 0.0);
  EXPECT_TRUE(chart.title().contains("scaled values, as stored")) << chart.title().toStdString();
  EXPECT_TRUE(chart.title().contains("loss scale ×2^16")) << chart.title().toStdString();
  chart.setShowScaled(false);
  EXPECT_FALSE(chart.showScaled());
  EXPECT_EQ(barAt(-27.0), 9.0);
  EXPECT_EQ(barAt(-11.0), 0.0);
  EXPECT_TRUE(chart.title().contains("unscaled values, format limits moved by the loss scale"))
      << chart.title().toStdString();
  EXPECT_TRUE(chart.csv().startsWith("binade,lower_bound,count,count_scaled\n"));
}

// What a loss-scaled run stores is what the 16-bit regions apply to. Values
// of 2^-30 (below FP16's smallest subnormal, 2^-24) scaled by 2^20 are stored
// as 2^-10, a normal FP16 number (smallest normal 2^-14, IEEE 754 binary16):
// no view of the chart may draw them inside "FP16 → 0" or the subnormals.
TEST(ChartsHistogram, LossScaledValuesFp16StoresAreNotDrawnWhereFp16LosesThem) {
  HistogramChart chart;
  chart.resize(900, 500);
  ExponentHistogram unscaled;
  unscaled.bins[unscaled.index(-30)] = 50;
  unscaled.total = 50;
  ExponentHistogram scaled;
  scaled.bins[scaled.index(-10)] = 50;
  scaled.total = 50;
  chart.setHistograms(unscaled, &scaled, std::ldexp(1.0, 20));

  const auto barsClearOfFp16Loss = [&] {
    const auto flush = drawnSpan(chart, FormatId::Fp16, RegionKind::FlushToZero);
    const auto sub = drawnSpan(chart, FormatId::Fp16, RegionKind::Subnormal);
    const QList<QPointF> top = chart.barSeries()->upperSeries()->points();
    int bars = 0;
    for (qsizetype i = 0; i + 1 < top.size(); i += 2) {
      if (top[i].y() < 1.0)
        continue;
      ++bars;
      const double e0 = top[i].x();
      const double e1 = top[i + 1].x();
      EXPECT_GE(e0, flush.second) << "bar [" << e0 << ", " << e1 << ") inside FP16 → 0";
      EXPECT_GE(e0, sub.second) << "bar [" << e0 << ", " << e1 << ") inside FP16 subnormal";
      // The stored value's distance above the smallest normal is the same on screen.
      EXPECT_EQ(e0 - sub.second, -10.0 - -14.0);
    }
    EXPECT_EQ(bars, 1);
  };
  SCOPED_TRACE("default view");
  barsClearOfFp16Loss();
  {
    SCOPED_TRACE("unscaled view");
    chart.setShowScaled(false);
    EXPECT_DOUBLE_EQ(chart.regionShift(), -20.0);
    barsClearOfFp16Loss();
    EXPECT_EQ(drawnSpan(chart, FormatId::Fp16, RegionKind::Subnormal), std::make_pair(-44.0, -34.0));
    const QJsonObject json = chart.json().object();
    EXPECT_EQ(json["shown"].toString(), "unscaled");
  }
  // Without a loss scale nothing moves.
  chart.setHistograms(unscaled);
  EXPECT_EQ(drawnSpan(chart, FormatId::Fp16, RegionKind::Subnormal), std::make_pair(-24.0, -14.0));
  EXPECT_FALSE(chart.title().contains("scaled")) << chart.title().toStdString();
}

// The step changes with every live frame; a new chart title re-lays out the
// whole chart, so the step is shown in a label beside the toggles instead,
// while title() (exports, JSON) still names it.
TEST(ChartsHistogram, TheStepIsShownBesideTheTogglesNotInTheChartTitle) {
  HistogramChart chart;
  chart.setRunFormat(FormatId::Fp16); // an fp16 run: FP16 is its own format, said nowhere else
  chart.resize(640, 400);
  chart.show();
  QCoreApplication::processEvents();
  const QString subject = QStringLiteral("fp32 · layer 0 weight gradients");
  chart.setSubject(subject, "step 100");
  const QString onScreen = chart.chart()->title();
  EXPECT_TRUE(onScreen.contains(subject)) << onScreen.toStdString();
  EXPECT_FALSE(onScreen.contains("step")) << onScreen.toStdString();
  const auto shownDetail = [&] {
    QStringList texts;
    for (const QLabel* label : chart.findChildren<QLabel*>())
      texts << label->text();
    return texts;
  };
  EXPECT_TRUE(shownDetail().contains("step 100"));

  chart.setSubject(subject, "step 200 · 1.5 % swamped");
  EXPECT_EQ(chart.chart()->title(), onScreen);
  EXPECT_TRUE(shownDetail().contains("step 200 · 1.5 % swamped"));
  EXPECT_FALSE(shownDetail().contains("step 100"));
  EXPECT_EQ(chart.title(),
            "Exponent histogram: fp32 · layer 0 weight gradients, step 200 · 1.5 % swamped");
  EXPECT_EQ(chart.json().object()["chart"].toString(), chart.title());

  // An export lays out the whole title and leaves the screen's as it was.
  QImage image(640, 400, QImage::Format_ARGB32);
  QPainter painter(&image);
  chart.render(painter, QRectF(0, 0, 640, 400), ExportStyle{});
  painter.end();
  EXPECT_EQ(chart.chart()->title(), onScreen);

  // A new subject (another run, layer or class) does change the title.
  chart.setSubject("bf16-mixed · layer 1 updates", "step 200");
  EXPECT_TRUE(chart.chart()->title().replace("<br>", " ").contains("bf16-mixed · layer 1 updates"))
      << chart.chart()->title().toStdString();
}

TEST(ChartsHistogram, LogScaleKeepsEveryPointPositive) {
  HistogramChart chart;
  ExponentHistogram h;
  h.bins[h.index(-20)] = 1000;
  h.bins[h.index(-19)] = 1;
  chart.setHistograms(h);
  chart.setLogScale(true);
  ASSERT_NE(qobject_cast<QLogValueAxis*>(chart.chart()->axes(Qt::Vertical).value(0)), nullptr);
  for (const QPointF& p : chart.barSeries()->upperSeries()->points())
    EXPECT_GT(p.y(), 0.0);
  for (const QPointF& p : chart.regionSeries(FormatId::Fp16, RegionKind::Subnormal)->lowerSeries()->points())
    EXPECT_GT(p.y(), 0.0);
}

TEST(ChartsHistogram, CsvHasOneRowPerShownBinade) {
  HistogramChart chart;
  ExponentHistogram h;
  h.bins[h.index(-20)] = 5;
  chart.setHistograms(h);
  const QStringList lines = chart.csv().split('\n', Qt::SkipEmptyParts);
  const int binades = static_cast<int>(chart.xMax() - chart.xMin());
  ASSERT_EQ(lines.size(), 1 + binades);
  EXPECT_TRUE(lines.contains(QStringLiteral("-20,%1,5").arg(std::ldexp(1.0, -20), 0, 'g', 17)));
}


// A region's edge line through its label cuts a letter ("FP16 → inf" read
// "FP16 → |nf" at 1920x1080 presenter, where FP16's overflow region is
// narrower than its label). Every label of every format, at screen and
// presenter sizes, stays clear of every edge, which is placed here from the
// specification's exponents.
TEST(ChartsHistogram, RegionLabelsAreNotCrossedByRegionEdges) {
  for (const bool presenter : {false, true})
    for (const QSize size : {QSize(960, 420), QSize(730, 420), QSize(1200, 600)})
      for (const bool allFormats : {false, true}) {
        HistogramChart chart;
        chart.setChartStyle(presenter ? ChartStyle::presenter(false) : ChartStyle::screen(false));
        chart.resize(size);
        chart.show();
        ExponentHistogram h;
        for (int e = -30; e <= -6; ++e)
          h.bins[h.index(e)] = 100 + 10 * (e + 30);
        chart.setHistograms(h);
        for (FormatId f : {FormatId::Bf16, FormatId::Fp8E5M2, FormatId::Fp8E4M3})
          chart.setFormatVisible(f, allFormats);
        QCoreApplication::processEvents();
        chart.setHistograms(h); // placed with the laid-out plot
        std::vector<double> specEdges; // log2 positions of every shown vertical edge
        for (Expected e : kSpec) {
          if (e.format == FormatId::Bf16)
            e = kBf16AsCast;
          if (allFormats || e.format == FormatId::Fp16)
            for (double x : {e.flushBelow, e.subnormalMin, e.normalMin, std::log2(e.maxFinite)})
              specEdges.push_back(x);
        }
        const QRectF plot = chart.chart()->plotArea();
        const QAreaSeries* anchor = chart.barSeries();
        int labels = 0;
        for (const QGraphicsItem* item : chart.chart()->scene()->items()) {
          const auto* text = dynamic_cast<const QGraphicsSimpleTextItem*>(item);
          if (text == nullptr || !text->isVisible() || !(text->text().contains(QStringLiteral("FP")) || text->text().startsWith(QStringLiteral("if "))))
            continue;
          ++labels;
          const QRectF box = text->mapRectToItem(chart.chart(), text->boundingRect());
          EXPECT_GE(box.left(), plot.left()) << text->text().toStdString();
          EXPECT_LE(box.right(), plot.right()) << text->text().toStdString();
          for (double x : specEdges) {
            const double px = chart.chart()->mapToPosition(QPointF(x, 0.0), const_cast<QAreaSeries*>(anchor)).x();
            if (px <= plot.left() + 1.0 || px >= plot.right() - 1.0)
              continue; // off the axis: not drawn
            EXPECT_FALSE(px > box.left() && px < box.right())
                << text->text().toStdString() << " crossed by the edge at 2^" << x << " ("
                << px << " px in " << box.left() << ".." << box.right() << "), "
                << size.width() << "x" << size.height() << (presenter ? " presenter" : "")
                << (allFormats ? " all formats" : " FP16");
          }
        }
        EXPECT_GE(labels, allFormats ? 6 : 3);
      }
}

// A short histogram in presenter type (the dock at 1280x720 presenter) keeps
// its count axis' title whole, in fewer words: it read "values per binade (co...".
TEST(ChartsHistogram, CountAxisTitleIsNeverElided) {
  for (const int height : {300, 360, 500}) {
    HistogramChart chart;
    chart.setChartStyle(ChartStyle::presenter(false));
    chart.resize(560, height);
    chart.show();
    ExponentHistogram h;
    for (int e = -30; e <= -6; ++e)
      h.bins[h.index(e)] = 100 + 10 * (e + 30);
    chart.setHistograms(h);
    const auto yTitle = [&] { return chart.chart()->axes(Qt::Vertical).value(0)->titleText(); };
    QStringList unreadable;
    const bool readable = QTest::qWaitFor(
        [&] {
          unreadable = unreadableChartTexts(chart, Legends::Skip);
          return unreadable.isEmpty() && chart.chart()->plotArea().height() > 0;
        },
        5000);
    EXPECT_TRUE(readable) << height << " px: " << unreadable.join(u'\n').toStdString();
    EXPECT_TRUE(yTitle().contains(QStringLiteral("count")) || yTitle().contains(QStringLiteral("values")))
        << yTitle().toStdString();
    const QFontMetricsF title(chart.chart()->axes(Qt::Vertical).value(0)->titleFont());
    EXPECT_LE(title.horizontalAdvance(yTitle()), chart.chart()->plotArea().height()) << yTitle().toStdString();
  }
}
} // namespace
} // namespace mantissa::ui
