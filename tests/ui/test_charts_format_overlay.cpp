// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Regions of any format over the histogram and the heat map: a run whose
// policy names a custom element format (a spec) shades that format's limits;
// a spec typed into the Train page's "Shade:" box adds its regions to
// both charts; a bad spec shows the parser's error, naming the field, under
// the box and changes nothing. The bounds are the formats' definitions,
// worked out here by hand:
//   e5m2:bias=13,special=fn   smallest subnormal 2^(1-13-2) = 2^-14 (zero at or
//                             below 2^-15), smallest normal 2^-12, largest
//                             1.5 x 2^(31-13) = 393216 (S.11111.11 is the NaN)
//   e4m3:bias=9,special=fnuz  smallest subnormal 2^(1-9-3) = 2^-11, smallest
//                             normal 2^-8, largest 1.875 x 2^(15-9) = 120
//   e4m3:subnormals=no        no subnormal range; zero at or below 2^-7

#include "drain_wait.h"
#include "ui/bridge/run_controller.h"
#include "ui/charts/format_overlay_picker.h"
#include "ui/charts/histogram_chart.h"
#include "ui/charts/histogram_heatmap.h"
#include "ui/panels/train_panel.h"

#include <mantissa/numeric/format_spec.h>
#include <mantissa/train/presets.h>

#include <QAreaSeries>
#include <QComboBox>
#include <QImage>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QSettings>
#include <QTest>
#include <QAction>
#include <QMenu>
#include <QToolButton>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace mantissa::ui {
namespace {

using telemetry::TensorClass;

numeric::FloatFormat spec(const char* text) {
  const numeric::FormatParse p = numeric::parseFormatSpec(text);
  EXPECT_TRUE(p.format.has_value()) << p.error;
  return *p.format;
}

// Opens the box from the histogram's context menu, as a user does.
void openFromMenu(HistogramChart& chart) {
  QMenu menu;
  chart.addViewActions(menu);
  QAction* other = nullptr;
  for (QAction* action : menu.actions())
    if (action->text().startsWith(QStringLiteral("Shade another format")))
      other = action;
  ASSERT_NE(other, nullptr);
  other->trigger();
}

void typeSpec(FormatOverlayPicker& picker, HistogramChart& chart, const QString& text) {
  if (!picker.popupShown())
    openFromMenu(chart);
  EXPECT_TRUE(picker.popupShown());
  QLineEdit* edit = picker.box()->lineEdit();
  edit->setFocus();
  edit->selectAll();
  QTest::keyClick(edit, Qt::Key_Backspace);
  QTest::keyClicks(edit, text);
  QTest::keyClick(edit, Qt::Key_Return);
}

TEST(FormatOverlay, ACustomElementFormatRunAndATypedSpecShadeTheirRegions) {
  QSettings().clear();
  TrainPanel panel;
  panel.resize(1400, 1000);
  panel.show();
  train::RunConfig g = train::findPreset("shakespeare-char")->runs.front();
  g.model = "gpt:layers=1,heads=2,embd=32,ctx=16";
  g.policy = "bf16-mixed,matmul-inputs=e5m2:bias=13,special=fn";
  g.telemetryFormats = "fp8-e4m3fnuz,e3m4";
  g.batch = 4;
  g.steps = 4;
  g.warmupSteps = 0;
  g.evalEvery = 0;
  g.evalBatches = 1;
  g.telemetryEvery = 2;
  RunController& c = *panel.controller();
  ASSERT_EQ(c.setRuns({g}), QString()) << c.setRuns({g}).toStdString();
  c.start();
  ASSERT_TRUE(waitDrained(c, [&] { return c.state() == RunController::State::Finished; }, 60000));
  const auto& names = c.facts(0).layerNames;
  const auto it = std::find(names.begin(), names.end(), QStringLiteral("h0.qkv.w"));
  ASSERT_NE(it, names.end());
  panel.setSelectedRun(0);
  panel.setHistogramSelection(int(it - names.begin()), TensorClass::Weights);
  panel.redrawAll();

  // The run's own element format, a spec: shaded by default, as its own.
  const numeric::FloatFormat run = spec("e5m2:bias=13,special=fn");
  ASSERT_EQ(run.id, numeric::FormatId::Custom);
  HistogramChart& hist = *panel.histogramChart();
  HistogramHeatmap& heat = *panel.heatmap();
  ASSERT_TRUE(hist.runFloatFormat().has_value());
  EXPECT_EQ(hist.runFloatFormat()->name, run.name);
  EXPECT_TRUE(hist.isFormatVisible(run));
  EXPECT_FALSE(hist.isFormatVisible(numeric::FormatId::Fp16));
  EXPECT_EQ(hist.regionBounds(run, RegionKind::FlushToZero).second, -15.0);
  EXPECT_EQ(hist.regionBounds(run, RegionKind::Subnormal), std::make_pair(-14.0, -12.0));
  EXPECT_DOUBLE_EQ(hist.regionBounds(run, RegionKind::Overflow).first, std::log2(393216.0));
  ASSERT_NE(hist.regionSeries(run, RegionKind::Subnormal), nullptr);
  EXPECT_TRUE(hist.regionSeries(run, RegionKind::Subnormal)->isVisible());
  EXPECT_EQ(hist.regionLabel(run, RegionKind::FlushToZero), QStringLiteral("E5M2 b13 fn → 0"));
  EXPECT_EQ(heat.limitsFloatFormat().name, run.name);
  EXPECT_TRUE(heat.regionLabelTexts().join(u'|').contains(QStringLiteral("E5M2 b13 fn")))
      << heat.regionLabelTexts().join(u'|').toStdString();

  // The formats the run recorded are offered first.
  FormatOverlayPicker& picker = *panel.overlayPicker();
  EXPECT_NE(picker.box()->findText(QStringLiteral("FP8 E4M3FNUZ (the run's telemetry)")), -1);
  EXPECT_NE(picker.box()->findText(QStringLiteral("FP8 E3M4 (the run's telemetry)")), -1);

  // A spec typed in: its regions on both charts, said as "if".
  typeSpec(picker, hist, QStringLiteral("e4m3:bias=9,special=fnuz"));
  EXPECT_EQ(picker.errorText(), QString());
  const numeric::FloatFormat typed = spec("e4m3:bias=9,special=fnuz");
  EXPECT_EQ(picker.box()->currentText(), QStringLiteral("E4M3 b9 fnuz")); // shown by its short name
  EXPECT_EQ(picker.button()->text(), QStringLiteral("Shade: E4M3 b9 fnuz"));
  EXPECT_FALSE(picker.popupShown()); // closed once chosen
  ASSERT_TRUE(hist.overlayFormat().has_value());
  EXPECT_TRUE(hist.isFormatVisible(typed));
  EXPECT_TRUE(hist.isFormatVisible(run)); // the run's stays
  EXPECT_EQ(hist.regionBounds(typed, RegionKind::FlushToZero).second, -12.0);
  EXPECT_EQ(hist.regionBounds(typed, RegionKind::Subnormal), std::make_pair(-11.0, -8.0));
  EXPECT_DOUBLE_EQ(hist.regionBounds(typed, RegionKind::Overflow).first, std::log2(120.0));
  EXPECT_EQ(hist.regionLabel(typed, RegionKind::FlushToZero), QStringLiteral("if E4M3 b9 fnuz: → 0"));
  EXPECT_TRUE(hist.title().contains(QStringLiteral("shaded as it would be in E4M3 b9 fnuz")))
      << hist.title().toStdString();
  EXPECT_EQ(heat.limitsFloatFormat().name, typed.name);
  EXPECT_TRUE(heat.title().contains(QStringLiteral("limits as they would be in E4M3 b9 fnuz")))
      << heat.title().toStdString();
  EXPECT_TRUE(heat.regionLabelTexts().join(u'|').contains(QStringLiteral("if E4M3 b9 fnuz: → 0")))
      << heat.regionLabelTexts().join(u'|').toStdString();

  // Exports carry the typed format's regions.
  const QJsonArray regions = hist.json().object().value(QStringLiteral("regions")).toArray();
  const bool exported = std::any_of(regions.begin(), regions.end(), [&](const QJsonValue& r) {
    return r.toObject().value(QStringLiteral("format")).toString() == QString::fromStdString(typed.spec()) &&
           r.toObject().value(QStringLiteral("toLog2")).toDouble() == -12.0;
  });
  EXPECT_TRUE(exported);
  EXPECT_FALSE(hist.csv().isEmpty());
  QImage image(800, 500, QImage::Format_ARGB32);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    heat.render(painter, QRectF(0, 0, 800, 500), ExportStyle{});
  }
  EXPECT_NE(image.pixel(400, 250), QColor(Qt::white).rgb());

  // A bad spec: the error names the field, and nothing changes.
  typeSpec(picker, hist, QStringLiteral("e4m3:bias=x"));
  EXPECT_FALSE(picker.errorLabel()->isHidden());
  EXPECT_TRUE(picker.errorText().startsWith(QStringLiteral("bias"))) << picker.errorText().toStdString();
  EXPECT_TRUE(picker.popupShown()); // open, with its error, until the text is a format
  EXPECT_EQ(hist.overlayFormat()->name, typed.name);
  EXPECT_EQ(heat.limitsFloatFormat().name, typed.name);
  typeSpec(picker, hist, QStringLiteral("e4m3:special=foo"));
  EXPECT_TRUE(picker.errorText().startsWith(QStringLiteral("special"))) << picker.errorText().toStdString();
  // Fixing it clears the error; "none" takes the typed format away.
  typeSpec(picker, hist, QStringLiteral("none"));
  EXPECT_TRUE(picker.errorLabel()->isHidden());
  EXPECT_FALSE(hist.overlayFormat().has_value());
  EXPECT_EQ(picker.button()->text(), QStringLiteral("Shade…"));
  EXPECT_FALSE(hist.isFormatVisible(typed));
  EXPECT_EQ(heat.limitsFloatFormat().name, run.name);
}

// A spec format without subnormals: an empty subnormal band (nothing drawn),
// zero at or below half its smallest normal.
TEST(FormatOverlay, AFormatWithoutSubnormalsHasNoSubnormalBand) {
  HistogramChart chart;
  telemetry::ExponentHistogram h;
  h.bins[h.index(-5)] = 100;
  chart.setHistograms(h);
  const numeric::FloatFormat f = spec("e4m3:subnormals=no");
  chart.setOverlayFormat(f);
  ASSERT_TRUE(chart.isFormatVisible(f));
  EXPECT_EQ(chart.regionBounds(f, RegionKind::FlushToZero).second, -7.0);
  const auto sub = chart.regionBounds(f, RegionKind::Subnormal);
  EXPECT_EQ(sub.first, sub.second);
  EXPECT_FALSE(chart.regionSeries(f, RegionKind::Subnormal)->isVisible());
  EXPECT_TRUE(chart.regionSeries(f, RegionKind::FlushToZero)->isVisible());
  EXPECT_EQ(chart.regionLabel(f, RegionKind::Subnormal), QString());
}

// FP32's limits (zero below 2^-150, overflow past 2^128) lie outside the
// histogram's binades: an FP32 run shades nothing and keeps the axis on its
// values (shading stretched it to 2^-152..2^130 and elided every tick label).
TEST(FormatOverlay, AnFp32RunShadesNothing) {
  HistogramChart chart;
  telemetry::ExponentHistogram h;
  h.bins[h.index(-10)] = 100;
  chart.setHistograms(h);
  chart.setRunFormat(numeric::FormatId::Fp32);
  EXPECT_FALSE(chart.isFormatVisible(numeric::FormatId::Fp32));
  EXPECT_FALSE(chart.isFormatVisible(numeric::FormatId::Fp16));
  EXPECT_GT(chart.xMin(), -40.0);
  EXPECT_LT(chart.xMax(), 30.0);
}

} // namespace
} // namespace mantissa::ui
