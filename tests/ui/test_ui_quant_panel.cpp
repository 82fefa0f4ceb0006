// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The Train page's Block scales view: the what-if table and the block-scale
// heat map, read as a user sees them, against blocks worked by hand from the
// OCP MX rules and against a plain double reference of E4M3 rounding on a
// live run's real weights.

#include "drain_wait.h"
#include "ui/app_shell/main_window.h"
#include "ui/app_shell/palette.h"
#include "ui/bridge/run_controller.h"
#include "ui/charts/block_scale_map.h"
#include "ui/charts/chart_export.h"
#include "ui/charts/colour_map.h"
#include "ui/charts/tensor_scale_chart.h"
#include "ui/formats/block_view.h"
#include "ui/panels/quant_panel.h"
#include "ui/panels/tensor_scale_view.h"
#include "ui/panels/train_panel.h"
#include "ui/panels/whatif_table.h"

#include <QAbstractScrollArea>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocument>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

namespace mantissa::ui {
namespace {

using numeric::BlockScheme;

// W [inputs = 64, outputs = 2]; the panel shows it transposed, so output o's
// row holds inputs 0..63: two MXFP4 blocks of 32 per output.
//   output 0, inputs  0..31: 7, then 31 x 1.0. amax 7: X = 2^(floor(log2 7) - 2) = 2^0;
//                            7 / 1 = 7 > 6 (E2M1's max): clipped to 6.
//   output 0, inputs 32..63: 0.75, then 31 x 0.01. X = 2^(-1 - 2) = 2^-3; 0.75 / X = 6
//                            exactly; 0.01 / X = 0.08 < 0.25 (half of E2M1's 0.5): lost to zero.
//   output 1, inputs  0..31: 32 x 1.0. X = 2^(0 - 2) = 2^-2; 1 / X = 4: exact.
//   output 1, inputs 32..63: 3, 0.2, then 30 x 1.5. X = 2^(1 - 2) = 2^-1; 3 / X = 6,
//                            1.5 / X = 3: exact; 0.2 / X = 0.4 -> 0.5, E2M1's subnormal.
std::vector<double> handRow(int output) {
  std::vector<double> row;
  if (output == 0) {
    row.push_back(7.0);
    row.insert(row.end(), 31, 1.0);
    row.push_back(0.75);
    row.insert(row.end(), 31, 0.01);
  } else {
    row.insert(row.end(), 32, 1.0);
    row.push_back(3.0);
    row.push_back(0.2);
    row.insert(row.end(), 30, 1.5);
  }
  return row;
}

// What MXFP4 stores for each value above, by hand.
double handStored(double v) {
  if (v == 7.0) return 6.0;
  if (v == 0.01) return 0.0;
  if (v == 0.2) return 0.25;
  return v;
}

TensorSnapshot handTensor() {
  TensorSnapshot t;
  t.subject = QStringLiteral("hand-worked");
  t.rows = 64; // inputs
  t.cols = 2;  // outputs
  t.values.resize(128);
  for (int o = 0; o < 2; ++o) {
    const std::vector<double> row = handRow(o);
    for (int i = 0; i < 64; ++i)
      t.values[std::size_t(i * 2 + o)] = row[std::size_t(i)];
  }
  return t;
}

QString cell(const WhatIfTable* table, int row, int column) {
  const QTableWidgetItem* item = table->item(row, column);
  return item ? item->text() : QStringLiteral("<empty>");
}

class QuantPanelTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_panel.resize(1300, 520);
    m_panel.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&m_panel));
    QComboBox* scheme = m_panel.schemeBox();
    scheme->setCurrentIndex(scheme->findText(QStringLiteral("mxfp4")));
    m_panel.setTensor(handTensor());
    QTRY_VERIFY_WITH_TIMEOUT(!m_panel.busy() && m_panel.mapQuantized().has_value(), 20000);
  }
  QuantPanel m_panel;
};

TEST_F(QuantPanelTest, WhatIfRowOfAHandWorkedTensorShowsItsFractions) {
  const WhatIfTable* table = m_panel.whatIfTable();
  ASSERT_EQ(table->rowCount(), 9); // every scheme
  const int row = table->rowOf(BlockScheme::Mxfp4);
  ASSERT_GE(row, 0);
  EXPECT_EQ(cell(table, row, WhatIfTable::Scheme), QStringLiteral("mxfp4"));
  // 128 values: one clipped (7), 31 lost (0.01), one subnormal (0.2 -> 0.5 x 2^-1).
  EXPECT_EQ(cell(table, row, WhatIfTable::Saturated), QStringLiteral("0.781 %"));   // 1/128
  EXPECT_EQ(cell(table, row, WhatIfTable::LostToZero), QStringLiteral("24.2 %"));   // 31/128
  EXPECT_EQ(cell(table, row, WhatIfTable::Subnormal), QStringLiteral("0.781 %"));   // 1/128
  EXPECT_EQ(cell(table, row, WhatIfTable::Clipped), QStringLiteral("1 of 4"));
  // SQNR from the hand-stored values, in double.
  double signal = 0, noise = 0;
  for (int o = 0; o < 2; ++o)
    for (double v : handRow(o)) {
      signal += v * v;
      noise += (v - handStored(v)) * (v - handStored(v));
    }
  const double sqnr = 10.0 * std::log10(signal / noise);
  const auto& stats = table->stats()[std::size_t(row)].stats;
  EXPECT_NEAR(stats.sqnrDb, sqnr, 1e-9);
  EXPECT_EQ(cell(table, row, WhatIfTable::Sqnr), QStringLiteral("%1 dB").arg(sqnr, 0, 'f', 1));

  // Every scheme quantized the same 128 values.
  for (const auto& r : table->stats())
    EXPECT_EQ(r.stats.count, 128u) << numeric::schemeInfo(r.scheme).name;
  // A 128-value tensor is one 128 x 128 fp8-block block, and one fp8-tensor
  // scale amax / 448 = 7 / 448: nothing in it is clipped or lost.
  const int tensorRow = table->rowOf(BlockScheme::Fp8Tensor);
  EXPECT_EQ(cell(table, tensorRow, WhatIfTable::Saturated), QStringLiteral("0"));
  EXPECT_EQ(cell(table, tensorRow, WhatIfTable::Clipped), QStringLiteral("0 of 1"));
}

TEST_F(QuantPanelTest, HeatMapCellsShowTheHandWorkedScalesAndTheClippedBlock) {
  BlockScaleMap* map = m_panel.blockMap();
  ASSERT_EQ(map->gridRows(), 2);
  ASSERT_EQ(map->gridCols(), 2);
  const double expected[2][2] = {{0.0, -3.0}, {-2.0, -1.0}};
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 2; ++c) {
      const int b = map->blockAt(r, c);
      ASSERT_GE(b, 0);
      EXPECT_EQ(map->log2Scale(b), expected[r][c]) << r << "," << c;
      EXPECT_EQ(map->block(b).maxClipped, r == 0 && c == 0) << r << "," << c;
    }
  EXPECT_EQ(map->clippedCount(), 1u);
  EXPECT_EQ(map->countText(), QStringLiteral("1 of 4 blocks clipped their maximum (25 %)"));

  // On screen: the clipped block in the warning colour, the others in
  // viridis over the scales' range 2^-3 .. 2^0.
  const QImage shot = map->grab().toImage();
  const auto pixel = [&](int r, int c) {
    const QPointF centre = map->cellRect(r, c).center() * map->devicePixelRatioF();
    return QColor(shot.pixel(centre.toPoint()));
  };
  EXPECT_EQ(pixel(0, 0), palette::kWarning);
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 2; ++c) {
      if (r != 0 || c != 0) {
        EXPECT_EQ(pixel(r, c), QColor(viridis((expected[r][c] + 3.0) / 3.0))) << r << "," << c;
      }
    }
  // Unmarked, the clipped block shows its own scale's colour (2^0: the top).
  map->setMarkClipped(false);
  EXPECT_EQ(QColor(map->grab().toImage().pixel((map->cellRect(0, 0).center() * map->devicePixelRatioF()).toPoint())),
            QColor(viridis(1.0)));
}

TEST_F(QuantPanelTest, ClickingABlockOpensItInTheBlockView) {
  BlockScaleMap* map = m_panel.blockMap();
  QTest::mouseClick(map, Qt::LeftButton, {}, map->cellRect(0, 1).center().toPoint());
  BlockView* view = m_panel.blockView();
  ASSERT_NE(view, nullptr);
  QTRY_VERIFY(view->isVisible());
  EXPECT_EQ(view->schemeBox()->currentText(), QStringLiteral("mxfp4"));
  EXPECT_TRUE(view->valuesInput()->text().startsWith(QStringLiteral("0.75, 0.01, 0.01")))
      << view->valuesInput()->text().toStdString();
  EXPECT_TRUE(view->scaleLabel()->text().contains(QStringLiteral("= 2^-3"))) << view->scaleLabel()->text().toStdString();
  EXPECT_TRUE(view->sourceLabel()->text().contains(QStringLiteral("output 0, inputs 32–63")))
      << view->sourceLabel()->text().toStdString();
  ASSERT_TRUE(view->result().has_value());
  EXPECT_EQ(view->result()->dequantized[1], 0.0); // 0.01: lost to zero
}

TEST_F(QuantPanelTest, TableAndHeatMapExportTheirNumbers) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString csvPath = dir.filePath(QStringLiteral("whatif.csv"));
  ASSERT_EQ(exportChart(*m_panel.whatIfTable(), csvPath), QString());
  QFile csv(csvPath);
  ASSERT_TRUE(csv.open(QIODevice::ReadOnly));
  const QStringList lines = QString::fromUtf8(csv.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  ASSERT_EQ(lines.size(), 10); // header + 9 schemes
  EXPECT_TRUE(lines.contains(QStringLiteral("mxfp4,128,0.0078125,0.2421875,0.0078125,%1,4,1,0")
                                 .arg(m_panel.whatIfTable()->stats()[4].stats.sqnrDb, 0, 'g', 17)))
      << lines.join(QLatin1Char('\n')).toStdString();
  const QString mapCsv = m_panel.blockMap()->csv();
  EXPECT_TRUE(mapCsv.contains(QStringLiteral("\n0,0,1,32,7,1,0,0x7f,1\n"))) << mapCsv.toStdString();
  EXPECT_TRUE(mapCsv.contains(QStringLiteral("\n0,32,1,32,0.75,0.125,-3,0x7c,0\n"))) << mapCsv.toStdString();
  for (const char* ext : {"png", "svg", "pdf"}) {
    const QString path = dir.filePath(QStringLiteral("map.") + QLatin1String(ext));
    EXPECT_EQ(exportChart(*m_panel.blockMap(), path), QString());
    EXPECT_GT(QFileInfo(path).size(), 1000) << ext;
    const QString table = dir.filePath(QStringLiteral("table.") + QLatin1String(ext));
    EXPECT_EQ(exportChart(*m_panel.whatIfTable(), table), QString());
    EXPECT_GT(QFileInfo(table).size(), 1000) << ext;
  }
}

// E4M3 (bias 7, 3 fraction bits, max 448, min subnormal 2^-9) rounding to
// nearest even, by hand in double: the reference for fp8-tensor.
double e4m3(double x) {
  const double a = std::fabs(x);
  if (a == 0.0)
    return 0.0;
  const int e = std::max(int(std::floor(std::log2(a))), -6);
  const double quantum = std::ldexp(1.0, e - 3);
  const double q = std::min(std::nearbyint(a / quantum) * quantum, 448.0);
  return std::copysign(q, x);
}

TEST(QuantPanelLive, ARunsWeightsTakenBetweenStepsAgreeWithAnE4M3Reference) {
  RunController c;
  train::RunConfig config;
  config.model = "mlp:784-32-10";
  config.recipe = "fp32";
  config.batch = 32;
  config.steps = 100000;
  config.seed = 3;
  config.telemetryEvery = 0;
  ASSERT_EQ(c.setRuns({config}), QString());
  c.start();
  ASSERT_TRUE(waitDrained(c, [&] { return c.record(0).lastStep() >= 5; }, 60000));
  c.pause();
  ASSERT_TRUE(waitDrained(c, [&] { return c.state() == RunController::State::Paused; }, 60000));

  QuantPanel panel;
  panel.resize(1300, 520);
  panel.show();
  panel.setSource(&c, 0, 0, telemetry::TensorClass::Weights);
  QTRY_VERIFY_WITH_TIMEOUT(panel.tensor().has_value() && !panel.busy() && panel.mapQuantized(), 60000);
  const TensorSnapshot shown = *panel.tensor();
  EXPECT_GE(shown.stepsDone, 6);
  EXPECT_EQ(shown.rows, 784);
  EXPECT_EQ(shown.cols, 32);

  // Stopping a paused run takes no further step: its final weights are the ones taken.
  c.stop();
  ASSERT_TRUE(waitDrained(c, [&] { return c.state() == RunController::State::Finished; }, 60000));
  c.shutdown();
  const auto w = c.session(0).model().params()[0].w.f32();
  ASSERT_EQ(w.size(), shown.values.size());
  for (std::size_t i = 0; i < w.size(); ++i)
    ASSERT_EQ(double(w[i]), shown.values[i]) << i;
  EXPECT_EQ(c.session(0).stepsDone(), shown.stepsDone);

  // fp8-tensor on these weights: the FP32 scale amax / 448, each value / scale
  // in FP32 rounded to E4M3 (nearest even, saturating at 448).
  double amax = 0;
  for (double v : shown.values)
    amax = std::max(amax, std::fabs(v));
  const float scale = float(amax) / 448.0f;
  std::size_t lost = 0, subnormal = 0, saturated = 0;
  double signal = 0, noise = 0;
  for (double v : shown.values) {
    const double x = double(float(v) / scale);
    const double q = e4m3(x);
    // Clamped: what rounds past E4M3's largest finite value, 448, i.e. above
    // 464 (halfway to the next step, 480; 464 itself ties to 448). The
    // largest weight divided by the FP32 scale can land a rounding error
    // above 448 and still round to 448 like any value.
    saturated += std::fabs(x) > 464.0 ? 1 : 0;
    if (v != 0 && q == 0)
      ++lost;
    else if (q != 0 && std::fabs(q) < std::ldexp(1.0, -6))
      ++subnormal;
    signal += v * v;
    noise += (v - q * double(scale)) * (v - q * double(scale));
  }
  const int row = panel.whatIfTable()->rowOf(BlockScheme::Fp8Tensor);
  const numeric::QuantStats& s = panel.whatIfTable()->stats()[std::size_t(row)].stats;
  const double n = double(shown.values.size());
  EXPECT_EQ(s.count, shown.values.size());
  EXPECT_EQ(s.fractionLostToZero, double(lost) / n);
  EXPECT_EQ(s.fractionSubnormal, double(subnormal) / n);
  EXPECT_EQ(s.fractionSaturated, double(saturated) / n);
  EXPECT_NEAR(s.sqnrDb, 10 * std::log10(signal / noise), 1e-6);
  EXPECT_EQ(cell(panel.whatIfTable(), row, WhatIfTable::LostToZero), WhatIfTable::percent(double(lost) / n));
  EXPECT_EQ(cell(panel.whatIfTable(), row, WhatIfTable::Subnormal), WhatIfTable::percent(double(subnormal) / n));
  // 32 outputs x 784 inputs in MXFP4's 1 x 32 blocks: 25 per output (the last one 16 wide).
  EXPECT_EQ(panel.blockMap()->gridRows(), 32);
  EXPECT_EQ(panel.blockMap()->gridCols(), 25);
}

// The Train page holds the view as a dock beside the heat map, following the
// histogram's choosers.
TEST(QuantPanelLive, TheTrainPageInspectsTheChosenLayer) {
  TrainPanel page;
  page.resize(1600, 1000);
  page.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&page));
  train::RunConfig config;
  config.model = "mlp:784-32-16-10";
  config.recipe = "fp32";
  config.batch = 32;
  config.steps = 4;
  config.telemetryEvery = 1;
  ASSERT_EQ(page.controller()->setRuns({config}), QString());
  page.controller()->start();
  ASSERT_TRUE(waitDrained(*page.controller(),
                          [&] { return page.controller()->state() == RunController::State::Finished; }, 60000));
  auto* dock = page.findChild<QDockWidget*>(QStringLiteral("fp8Dock"));
  ASSERT_NE(dock, nullptr);
  dock->raise();
  page.findChild<QTabWidget*>(QStringLiteral("fp8Pages"))->setCurrentIndex(0);
  page.setHistogramSelection(1, telemetry::TensorClass::WeightGrads);
  QuantPanel* panel = page.quantPanel();
  QTRY_VERIFY_WITH_TIMEOUT(panel->tensor() && panel->tensor()->layer == 1 && !panel->busy(), 60000);
  EXPECT_EQ(panel->tensor()->cls, telemetry::TensorClass::WeightGrads);
  EXPECT_EQ(panel->tensor()->rows, 32);
  EXPECT_EQ(panel->tensor()->cols, 16);
  EXPECT_TRUE(panel->subjectLabel()->text().contains(QStringLiteral("layer 1 weight gradients")));
  // Activations are not kept between steps: the view says what to pick.
  page.setHistogramSelection(1, telemetry::TensorClass::Activations);
  QTRY_VERIFY(panel->message()->isVisible());
  EXPECT_TRUE(panel->message()->text().contains(QStringLiteral("weights or weight gradients")));
  // ...and shows nothing of the tensor before.
  EXPECT_EQ(panel->whatIfTable()->rowCount(), 0);
  EXPECT_FALSE(panel->blockMap()->hasData());
  EXPECT_FALSE(panel->tensor().has_value());
}

// A saved FP8 run's log with hand-made scaling frames, as delayed scaling
// writes them: layer0.w's amax halves every step and its scale is
// 448 / (the largest amax of the steps before), so log2 scale lags log2 amax.
TEST(TensorScaleTrace, ASavedRunsScalesAndAmaxesAreDrawnPerTensorAndRole) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString path = dir.filePath(QStringLiteral("fp8.jsonl"));
  std::vector<double> amax, scale;
  {
    std::ofstream out(path.toStdString());
    double history = 0;
    for (int step = 0; step < 10; ++step) {
      telemetry::ScalingFrame f;
      f.step = step;
      telemetry::ScaledTensorStats w;
      w.name = "layer0.w";
      w.role = telemetry::ScaledRole::Weight;
      w.format = "fp8-e4m3";
      w.amax = std::ldexp(1.0, 2 - step);
      w.scale = history > 0 ? 448.0 / history : 1.0;
      w.scaleMin = w.scaleMax = w.scale;
      w.amaxHistory = history;
      w.count = 100;
      amax.push_back(w.amax);
      scale.push_back(w.scale);
      history = std::max(history, w.amax);
      telemetry::ScaledTensorStats x = w;
      x.name = "layer0.x";
      x.role = telemetry::ScaledRole::Input;
      x.scale = 2.0;
      f.tensors = {x, w};
      nlohmann::json row{{"step", step}, {"loss", 1.0},         {"lr", 0.1},       {"loss_scale", 1.0},
                         {"found_inf", false}, {"skipped", false}, {"step_ms", 1.0}, {"grad_norm", 0.1},
                         {"scaling", telemetry::toJson(f)}};
      out << row.dump() << "\n";
    }
  }
  TrainPanel page;
  page.resize(1600, 1000);
  page.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&page));
  ASSERT_EQ(page.controller()->loadRun(path), QString());
  page.setSelectedRun(0);
  auto* dock = page.findChild<QDockWidget*>(QStringLiteral("fp8Dock"));
  ASSERT_NE(dock, nullptr);
  dock->raise();
  page.findChild<QTabWidget*>(QStringLiteral("fp8Pages"))->setCurrentIndex(1);
  TensorScaleView* view = page.tensorScaleView();
  QTRY_COMPARE(view->chart()->tensorNames(), QStringList{QStringLiteral("layer0.w")});
  const QList<QPointF> shownScale = view->chart()->shownTrain(QStringLiteral("layer0.w"));
  const QList<QPointF> shownAmax = view->chart()->shownTest(QStringLiteral("layer0.w"));
  ASSERT_EQ(shownScale.size(), 10);
  ASSERT_EQ(shownAmax.size(), 10);
  for (int s = 0; s < 10; ++s) {
    EXPECT_EQ(shownScale[s], QPointF(s, std::log2(scale[std::size_t(s)])));
    EXPECT_EQ(shownAmax[s], QPointF(s, 2.0 - s));
  }
  // Delayed scaling: from step 1 on, scale x amax of the step before is 448 (log2 448 = 8.807...).
  for (int s = 1; s < 10; ++s)
    EXPECT_DOUBLE_EQ(shownScale[s].y() + shownAmax[0].y(), std::log2(448.0)) << s;
  EXPECT_TRUE(view->message()->text().isEmpty());

  view->roleBox()->setCurrentIndex(view->roleBox()->findData(int(telemetry::ScaledRole::Input)));
  QTRY_COMPARE(view->chart()->tensorNames(), QStringList{QStringLiteral("layer0.x")});
  EXPECT_EQ(view->chart()->shownTrain(QStringLiteral("layer0.x")).front(), QPointF(0, 1.0));
  EXPECT_TRUE(view->chart()->csv().contains(QStringLiteral("layer0.x")));

  // A recipe that scales nothing says so.
  view->setFrames({}, QStringLiteral("fp32"));
  EXPECT_TRUE(view->message()->text().contains(QStringLiteral("scales no tensors")));
  EXPECT_TRUE(view->chart()->tensorNames().isEmpty());
}

// Rows of the what-if table a user sees whole: inside the table's viewport
// and inside the scrolled page and the dock that hold it.
int whatIfRowsInSight(const QuantPanel& panel) {
  const WhatIfTable* table = panel.whatIfTable();
  QRect sight(table->viewport()->mapToGlobal(QPoint(0, 0)), table->viewport()->size());
  for (const QWidget* up = table->parentWidget(); up != nullptr; up = up->parentWidget())
    if (const auto* scroll = qobject_cast<const QAbstractScrollArea*>(up))
      sight &= QRect(scroll->viewport()->mapToGlobal(QPoint(0, 0)), scroll->viewport()->size());
  int shown = 0;
  for (int r = 0; r < table->rowCount(); ++r) {
    const QRect cell = table->visualRect(table->model()->index(r, 0));
    shown +=
        sight.contains(QRect(table->viewport()->mapToGlobal(cell.topLeft()), cell.size())) ? 1 : 0;
  }
  return shown;
}

// The window opens at 1600 x 1000 (and a projector shows 1280 x 720): there
// the Block scales dock, which shares the short bottom row with the
// histograms, shows every scheme's row of the what-if table without
// scrolling, and the heat map beside it, left the width the table does not
// take, reads its title, axis title and count line in full (they wrap), in
// normal and in presenter type.
TEST(QuantPanelLive, TheBlockScalesDockReadsInFullAtTheUsualWindowSizes) {
  for (const QSize size : {QSize(1600, 1000), QSize(1920, 1080), QSize(1280, 720)})
    for (const bool presenter : {false, true}) {
      SCOPED_TRACE(QStringLiteral("%1x%2%3")
                       .arg(size.width())
                       .arg(size.height())
                       .arg(presenter ? " presenter" : "")
                       .toStdString());
      QSettings().clear();
      MainWindow window;
      window.resize(size);
      window.show();
      ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
      window.setPresenterMode(presenter);
      auto* page = window.findChild<TrainPanel*>();
      ASSERT_NE(page, nullptr);
      window.pages()->setCurrentWidget(page);
      train::RunConfig config;
      config.model = "mlp:784-64-10";
      config.recipe = "fp32";
      config.batch = 32;
      config.steps = 3;
      config.telemetryEvery = 1;
      ASSERT_EQ(page->controller()->setRuns({config}), QString());
      page->controller()->start();
      ASSERT_TRUE(waitDrained(
          *page->controller(),
          [&] { return page->controller()->state() == RunController::State::Finished; }, 60000));
      auto* dock = page->findChild<QDockWidget*>(QStringLiteral("fp8Dock"));
      ASSERT_NE(dock, nullptr);
      dock->raise();
      page->findChild<QTabWidget*>(QStringLiteral("fp8Pages"))->setCurrentIndex(0);
      page->setHistogramSelection(0, telemetry::TensorClass::Weights);
      QuantPanel* panel = page->quantPanel();
      QTRY_VERIFY_WITH_TIMEOUT(
          panel->tensor() && panel->whatIfTable()->rowCount() > 0 && !panel->busy(), 60000);
      const int rows = panel->whatIfTable()->rowCount();
      EXPECT_EQ(rows, 9);
      int shown = 0;
      (void)QTest::qWaitFor([&] { return (shown = whatIfRowsInSight(*panel)) == rows; }, 3000);
      EXPECT_EQ(shown, rows) << "dock " << dock->height() << " px high, table "
                             << panel->whatIfTable()->height();
      QTRY_VERIFY_WITH_TIMEOUT(panel->blockMap()->hasData(), 60000);
      // The line naming the tensor shows a form that fits (the full one in
      // its tooltip), not a text cut at the edge: in normal type the
      // tensor's name whole; in a projector's narrow row it may end in "…".
      const QLabel* subject = panel->subjectLabel();
      QTextDocument doc;
      doc.setDefaultFont(subject->font());
      doc.setDocumentMargin(0);
      doc.setHtml(subject->text());
      EXPECT_LE(doc.idealWidth(), subject->contentsRect().width()) << subject->text().toStdString();
      if (!presenter && size.width() >= 1600)
        EXPECT_TRUE(subject->text().contains(QStringLiteral("layer 0 weights")))
            << subject->text().toStdString();
      EXPECT_TRUE(subject->toolTip().contains(QStringLiteral("(outputs × inputs)")));
      EXPECT_EQ(panel->blockMap()->cutTexts().join(u'\n').toStdString(), "")
          << "map " << panel->blockMap()->width() << " px wide";
      window.setPresenterMode(false);
    }
}

} // namespace
} // namespace mantissa::ui
