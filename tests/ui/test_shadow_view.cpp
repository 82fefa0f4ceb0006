// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The Error view (ShadowErrorMap) from frames made by hand: one cell per
// tensor and shadow step, in the frames' order; exact zeros and infinite
// errors in colours of their own, named in the legend; the first tensor
// over the threshold named; every statistic in the cell's tooltip; every
// cell in the CSV and JSON exports; the op table's Error column.

#include "ui/bridge/run_record.h"
#include "ui/charts/chart_export.h"
#include "ui/charts/colour_map.h"
#include "ui/charts/shadow_error_map.h"
#include "ui/panels/op_table_panel.h"

#include <mantissa/amp/recipe.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonObject>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace mantissa::ui {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

train::ShadowError error(const std::string& name, bool backward, double tensorRel, DType format = DType::BF16) {
  train::ShadowError e;
  e.tensor = name;
  e.backward = backward;
  e.format = format;
  e.count = 4096;
  e.maxRelative = 3.0 * tensorRel;
  e.medianRelative = tensorRel / 2.0;
  e.tensorRelative = tensorRel;
  e.maxUlps = 12.0;
  e.sqnrDb = tensorRel == 0.0 ? kInf : -20.0 * std::log10(tensorRel);
  e.flips = 7;
  return e;
}

// Step 20: all under 1%; step 40: "h0.attention probs" (index 2) is the first over it.
std::vector<std::shared_ptr<const train::ShadowFrame>> frames() {
  train::ShadowFrame a;
  a.step = 20;
  a.reference = train::ShadowPrecision::F64;
  a.tensors = {error("embedding output", false, 0.0), error("h0.qkv output", false, 1e-3),
               error("h0.attention probs", false, 2e-3), error("logits", false, 4e-3),
               error("h0.qkv.w gradient", true, 5e-3), error("wte gradient", true, 0.0)};
  train::ShadowFrame b = a;
  b.step = 40;
  b.tensors[2].tensorRelative = 3.2;
  b.tensors[3].tensorRelative = kInf;
  b.tensors[5].tensorRelative = 1e-6;
  b.firstOver = 2;
  return {std::make_shared<const train::ShadowFrame>(a), std::make_shared<const train::ShadowFrame>(b)};
}

TEST(ShadowView, OneCellPerTensorAndStepInTheFramesOrder) {
  ShadowErrorMap map;
  map.resize(900, 500);
  map.setFrames(frames());
  ASSERT_EQ(map.rowCount(), 6);
  ASSERT_EQ(map.columnCount(), 2);
  EXPECT_EQ(map.tensorOfRow(0), QStringLiteral("embedding output"));
  EXPECT_EQ(map.tensorOfRow(3), QStringLiteral("logits"));
  EXPECT_EQ(map.tensorOfRow(4), QStringLiteral("h0.qkv.w gradient"));
  EXPECT_FALSE(map.rowIsBackward(3));
  EXPECT_TRUE(map.rowIsBackward(4));
  EXPECT_EQ(map.stepOfColumn(1), 40);
  int cells = 0;
  for (int r = 0; r < map.rowCount(); ++r)
    for (int c = 0; c < map.columnCount(); ++c)
      cells += map.cell(r, c) != nullptr ? 1 : 0;
  EXPECT_EQ(cells, 12);
  EXPECT_DOUBLE_EQ(map.cell(2, 1)->tensorRelative, 3.2);

  // Painted: each cell's centre in its colour.
  const QImage shot = map.grab().toImage();
  for (int r = 0; r < map.rowCount(); ++r)
    for (int c = 0; c < map.columnCount(); ++c) {
      const QRect box = map.cellRect(r, c).toAlignedRect();
      // (away from the outline of the first tensor over the threshold)
      const QPoint at(box.left() + box.width() / 4, box.center().y());
      EXPECT_EQ(shot.pixel(at) & 0xffffff, map.cellColour(r, c) & 0xffffff) << "row " << r << " column " << c;
    }
}

TEST(ShadowView, ZeroAndInfiniteErrorsHaveColoursOfTheirOwnInTheLegend) {
  ShadowErrorMap map;
  map.resize(900, 500);
  map.setFrames(frames());
  // Exactly 0: the colour under the bar's bottom; inf: a colour viridis never takes.
  EXPECT_EQ(map.cellColour(0, 0), map.zeroColour());
  EXPECT_EQ(map.cellColour(3, 1), map.infiniteColour());
  for (int i = 0; i <= 100; ++i)
    EXPECT_NE(viridis(i / 100.0) & 0xffffff, map.infiniteColour() & 0xffffff);
  // A small non-zero error is not drawn as an exact zero.
  EXPECT_NE(map.cellColour(5, 1), map.zeroColour());
  const QStringList legend = map.legendTexts();
  EXPECT_TRUE(legend.contains(QStringLiteral("0 (exact)"))) << legend.join(", ").toStdString();
  EXPECT_TRUE(legend.contains(QStringLiteral("inf"))) << legend.join(", ").toStdString();
  // Larger errors, lighter colours (viridis grows lighter); the top of the
  // bar is matplotlib's viridis(1), #fde725.
  EXPECT_LT(qGray(map.colourOfError(1e-6)), qGray(map.colourOfError(1e-3)));
  EXPECT_LT(qGray(map.colourOfError(1e-3)), qGray(map.colourOfError(0.5)));
  EXPECT_EQ(map.colourOfError(std::pow(10.0, map.lastDecade())) & 0xffffff, 0xfde725u);
  // The bar spans at least 1e-8 .. 1, and reaches the largest finite error (3.2 -> 10).
  EXPECT_LE(map.firstDecade(), -8);
  EXPECT_EQ(map.lastDecade(), 1);
}

TEST(ShadowView, TheFirstTensorOverTheThresholdIsNamed) {
  const auto f = frames();
  EXPECT_EQ(ShadowErrorMap::firstOverSentence(*f[1]),
            QStringLiteral("Shadow FP64, step 40: first tensor over 1% error: h0.attention probs "
                           "(tensor error 3.2e+00)"));
  EXPECT_EQ(ShadowErrorMap::firstOverSentence(*f[0]),
            QStringLiteral("Shadow FP64, step 20: no tensor over 1% error (largest: h0.qkv.w "
                           "gradient, 5.0e-03)"));
  ShadowErrorMap map;
  map.setFrames(f);
  EXPECT_EQ(map.latestSentence(), ShadowErrorMap::firstOverSentence(*f[1]));
}

TEST(ShadowView, ACellsTooltipGivesEveryStatistic) {
  ShadowErrorMap map;
  map.setFrames(frames());
  const QString tip = map.cellToolTip(2, 1);
  for (const char* part : {"h0.attention probs", "forward", "BF16", "step 40", "FP64", "3.2e+00",
                           "over the 1% threshold", "max relative error: 6.0e-03",
                           "median relative error: 1.0e-03", "max ULPs (in BF16): 12", "SQNR: 54.0 dB",
                           "flips (sign or binade differs): 7", "values compared: 4"})
    EXPECT_TRUE(tip.contains(QString::fromUtf8(part))) << part << " in " << tip.toStdString();
  EXPECT_TRUE(map.cellToolTip(3, 1).contains(QStringLiteral("<b>inf</b>")));
}

TEST(ShadowView, TheExportsHoldEveryCell) {
  ShadowErrorMap map;
  map.resize(900, 500);
  map.setFrames(frames());
  const QStringList lines = map.csv().trimmed().split(u'\n');
  ASSERT_EQ(lines.size(), 1 + 12);
  const QStringList header = lines[0].split(u',');
  const int step = int(header.indexOf(QStringLiteral("step")));
  const int tensor = int(header.indexOf(QStringLiteral("tensor")));
  const int rel = int(header.indexOf(QStringLiteral("tensor_rel")));
  const int first = int(header.indexOf(QStringLiteral("first_over")));
  ASSERT_GE(step, 0);
  ASSERT_GE(rel, 0);
  const auto f = frames();
  int seen = 0;
  for (int i = 1; i < lines.size(); ++i) {
    const QStringList cells = lines[i].split(u',');
    const auto& frame = *f[cells[step] == QStringLiteral("20") ? 0 : 1];
    for (std::size_t t = 0; t < frame.tensors.size(); ++t)
      if (QString::fromStdString(frame.tensors[t].tensor) == cells[tensor]) {
        const double expected = frame.tensors[t].tensorRelative;
        if (std::isinf(expected))
          EXPECT_EQ(cells[rel], QStringLiteral("inf"));
        else
          EXPECT_EQ(cells[rel].toDouble(), expected) << lines[i].toStdString();
        EXPECT_EQ(cells[first], frame.firstOver == t ? QStringLiteral("1") : QStringLiteral("0"));
        ++seen;
      }
  }
  EXPECT_EQ(seen, 12);

  const QJsonObject json = map.json().object();
  const QJsonArray steps = json.value(QStringLiteral("steps")).toArray();
  ASSERT_EQ(steps.size(), 2);
  EXPECT_EQ(steps[1].toObject().value(QStringLiteral("first_over")).toString(),
            QStringLiteral("h0.attention probs"));
  int jsonCells = 0;
  for (const auto& s : steps)
    jsonCells += int(s.toObject().value(QStringLiteral("tensors")).toArray().size());
  EXPECT_EQ(jsonCells, 12);

  QTemporaryDir dir;
  for (const char* name : {"error.png", "error.svg", "error.csv", "error.json"}) {
    const QString path = dir.filePath(QLatin1String(name));
    EXPECT_EQ(exportChart(map, path), QString()) << name;
    EXPECT_GT(QFileInfo(path).size(), 100) << name;
  }
  QImage png(dir.filePath(QStringLiteral("error.png")));
  EXPECT_EQ(png.size(), ExportOptions{}.size);
}

TEST(ShadowView, WithoutFramesItSaysHowToTurnTheShadowPassOn) {
  ShadowErrorMap map;
  map.resize(700, 400);
  map.setFrames({});
  EXPECT_EQ(map.rowCount(), 0);
  EXPECT_TRUE(ShadowErrorMap::emptyText().contains(QStringLiteral("Shadow reference")));
  EXPECT_TRUE(ShadowErrorMap::emptyText().contains(QStringLiteral("Check Against Reference Now")));
  EXPECT_EQ(map.latestSentence(), QString());
  // It paints (no frames to index) and exports.
  EXPECT_FALSE(map.grab().isNull());
  EXPECT_TRUE(map.csv().startsWith(QStringLiteral("step,")));
}

// A GPT's long list: labels every k-th row when the rows are shorter than a
// label, every row when there is room; the map asks for a height that keeps
// the rows at least half a label high (its scroll area scrolls the rest).
TEST(ShadowView, ALongTensorListThinsItsLabelsAndAsksForHeight) {
  train::ShadowFrame f;
  f.step = 5;
  for (int i = 0; i < 120; ++i)
    f.tensors.push_back(error("h" + std::to_string(i / 10) + ".t" + std::to_string(i), i >= 60, 1e-3));
  ShadowErrorMap map;
  map.setFrames({std::make_shared<const train::ShadowFrame>(f)});
  ASSERT_EQ(map.rowCount(), 120);
  const QFontMetricsF label(ChartStyle::fromTheme().labelFont(), &map);
  EXPECT_GE(map.minimumSizeHint().height(), int(120 * 0.5 * label.height()));
  map.resize(900, 400);
  EXPECT_GT(map.rowLabelEvery(), 1);
  map.resize(900, int(200 + 120 * 1.5 * label.height()));
  EXPECT_EQ(map.rowLabelEvery(), 1);
}

// The op table's Error column: a matmul's forward row shows its layer's
// output, its dW row the weight's gradient; a row no tensor maps to, "—".
TEST(ShadowView, TheOpTableShowsTheErrorOfTheTensorAnOpWrites) {
  OpTablePanel ops;
  ops.resize(900, 600);
  ops.setRun(*amp::findRecipe("bf16-mixed"), QStringLiteral("gemm"), QString());
  std::vector<nn::MatmulUse> uses(3);
  uses[0].layer = 1;
  uses[0].product = "forward";
  uses[1].layer = 1;
  uses[1].product = "dW";
  uses[2].layer = 1;
  uses[2].product = "dX";
  ops.setMatmuls(uses);
  const QTableWidget* table = ops.precisionTable();
  const int forward = ops.recipeRows();
  ASSERT_EQ(table->item(forward, 0)->text(), QStringLiteral("matmul: layer 1 forward"));
  for (int r = 0; r < table->rowCount(); ++r)
    EXPECT_EQ(ops.errorOf(r), QStringLiteral("—")) << r; // no frame yet

  train::ShadowFrame f;
  f.step = 9;
  f.tensors = {error("layer0 output", false, 1e-4), error("layer1 output", false, 2.5e-3),
               error("layer0 output gradient", true, 7e-2), error("layer1.W gradient", true, 4e-2)};
  ops.setShadowFrame(std::make_shared<const train::ShadowFrame>(f));
  EXPECT_EQ(ops.errorOf(forward), QStringLiteral("2.5e-03"));
  EXPECT_EQ(ops.errorOf(forward + 1), QStringLiteral("4.0e-02"));
  EXPECT_EQ(ops.errorOf(forward + 2), QStringLiteral("7.0e-02"));
  for (int r = 0; r < ops.recipeRows(); ++r) {
    const QString op = table->item(r, 0)->text();
    if (op == QStringLiteral("matmul inputs")) {
      EXPECT_EQ(ops.errorOf(r), QStringLiteral("—"));
    }
    if (op == QStringLiteral("gradients")) { // the worst backward tensor
      EXPECT_EQ(ops.errorOf(r), QStringLiteral("7.0e-02"));
    }
  }
  EXPECT_TRUE(table->horizontalHeaderItem(3)->toolTip().contains(QStringLiteral("shadow")));
}


// The run data the GUI keeps: every shadow frame up to
// RunRecord::kMaxShadowFrames, then every other one (the newest always
// kept, steps increasing); rows the mailbox coalesced keep theirs.
TEST(ShadowView, TheRunRecordKeepsItsShadowFramesInBoundedMemory) {
  RunRecord record;
  const int frames = int(RunRecord::kMaxShadowFrames) * 2 + 7;
  for (int s = 0; s < frames; ++s) {
    RunMailbox::Drained drained;
    StepRow row;
    row.step = s;
    auto f = std::make_shared<train::ShadowFrame>();
    f->step = s;
    row.shadow = f;
    drained.rows.push_back(std::move(row));
    record.apply(std::move(drained));
  }
  EXPECT_EQ(record.shadowTotal(), frames);
  const auto& kept = record.shadowFrames();
  EXPECT_LE(kept.size(), RunRecord::kMaxShadowFrames);
  EXPECT_GE(kept.size(), RunRecord::kMaxShadowFrames / 2);
  EXPECT_EQ(kept.back()->step, frames - 1);
  for (std::size_t i = 1; i < kept.size(); ++i)
    EXPECT_LT(kept[i - 1]->step, kept[i]->step);

  // A full mailbox coalesces rows: the shadow frames of the rows it merged arrive.
  RunMailbox box(4);
  for (int s = 0; s < 40; ++s) {
    StepRow row;
    row.step = s;
    if (s % 10 == 3) {
      auto f = std::make_shared<train::ShadowFrame>();
      f->step = s;
      row.shadow = f;
    }
    box.push(std::move(row));
  }
  RunRecord merged;
  merged.apply(box.drain());
  ASSERT_EQ(merged.shadowFrames().size(), 4u);
  EXPECT_EQ(merged.shadowFrames()[0]->step, 3);
  EXPECT_EQ(merged.shadowFrames()[3]->step, 33);
}

} // namespace
} // namespace mantissa::ui
