// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The shadow pass on the Train page: the Setup's choice reaches the runs'
// configuration and is remembered; tiny runs trained with it fill the Error
// view (FP32 against an FP32 reference: every tensor exactly equal; BF16
// mixed: errors); Check Against Reference Now shadows the next step of a
// paused run, and a run that cannot be shadowed says why in the view.

#include "drain_wait.h"
#include "ui/bridge/run_controller.h"
#include "ui/charts/shadow_error_map.h"
#include "ui/panels/op_table_panel.h"
#include "ui/panels/train_panel.h"
#include "ui/panels/train_panel_setup.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QSettings>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>
#include <QFile>

#include <cmath>

#include <gtest/gtest.h>

namespace mantissa::ui {
namespace {

train::RunConfig tiny(const std::string& recipe, std::int64_t steps, const std::string& shadow) {
  train::RunConfig c;
  c.data = "spirals";
  c.model = "mlp:2-32-2:tanh";
  c.recipe = recipe;
  c.batch = 32;
  c.steps = steps;
  c.telemetryEvery = 4;
  c.evalEvery = 0;
  c.shadow = shadow;
  return c;
}

QDockWidget* dockOf(QWidget* view) {
  for (QWidget* w = view; w != nullptr; w = w->parentWidget())
    if (auto* dock = qobject_cast<QDockWidget*>(w))
      return dock;
  return nullptr;
}

struct Page {
  explicit Page(const std::vector<train::RunConfig>& runs) {
    QSettings().clear();
    panel.resize(1400, 1000);
    panel.show();
    panel.setup()->setConfigs(runs);
    EXPECT_EQ(panel.applySetup(), QString());
    dockOf(panel.shadowMap())->raise();
  }
  bool waitFor(const std::function<bool()>& pred, int ms = 30000) {
    return waitDrained(*panel.controller(), pred, ms);
  }
  const RunRecord& record(int i) const { return panel.controller()->record(i); }
  TrainPanel panel;
};

TEST(ShadowGui, TheSetupsChoiceReachesTheRunsAndIsRemembered) {
  QSettings().clear();
  {
    TrainPanel panel;
    panel.setup()->setConfigs({tiny("fp32", 10, "")});
    QComboBox* picker = panel.setup()->shadowPicker();
    EXPECT_EQ(panel.setup()->configs().front().shadow, "");
    picker->setCurrentIndex(picker->findData(QStringLiteral("fp64")));
    panel.setup()->shadowThresholdField()->setValue(5.0); // percent
    const auto runs = panel.setup()->configs();
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs.front().shadow, "fp64");
    EXPECT_DOUBLE_EQ(runs.front().shadowThreshold, 0.05);
    EXPECT_EQ(panel.setup()->onDemandShadow(), train::ShadowPrecision::F64);
    EXPECT_TRUE(picker->toolTip().contains(QStringLiteral("histogram steps")));
  } // saves the setup
  {
    TrainPanel panel; // restores it
    EXPECT_EQ(panel.setup()->shadowPicker()->currentData().toString(), QStringLiteral("fp64"));
    EXPECT_DOUBLE_EQ(panel.setup()->shadowThresholdField()->value(), 5.0);
    // Off: a check on demand uses FP32.
    panel.setup()->setConfigs({tiny("fp32", 10, "")});
    EXPECT_EQ(panel.setup()->onDemandShadow(), train::ShadowPrecision::F32);
  }
  QSettings().clear();
}

TEST(ShadowGui, WithoutFramesTheErrorViewSaysHowToTurnItOn) {
  Page p({tiny("fp32", 10, "")});
  EXPECT_EQ(p.panel.shadowMap()->rowCount(), 0);
  EXPECT_FALSE(p.panel.checkShadowAction()->isEnabled()); // nothing trains yet
}

// On a short page the Error view waits, hidden, until it is wanted:
// choosing a reference in the setup brings it forward.
TEST(ShadowGui, OnAShortPageTheErrorViewComesWhenAReferenceIsChosen) {
  QSettings().clear();
  TrainPanel panel;
  panel.resize(1178, 662);
  panel.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
  QDockWidget* dock = dockOf(panel.shadowMap());
  ASSERT_TRUE(QTest::qWaitFor([&] { return dock->isHidden(); }, 5000));
  EXPECT_FALSE(panel.shadowViewAction()->isChecked());
  QComboBox* picker = panel.setup()->shadowPicker();
  picker->setCurrentIndex(picker->findData(QStringLiteral("fp32")));
  ASSERT_TRUE(QTest::qWaitFor([&] { return panel.shadowMap()->isVisible(); }, 5000));
  EXPECT_TRUE(panel.shadowViewAction()->isChecked());
  QSettings().clear();
}

// FP32 against an FP32 reference of the same weights and batch: every
// tensor equals its reference, every cell shows exact zero.
TEST(ShadowGui, AnFp32RunAgainstAnFp32ReferenceIsExactEverywhere) {
  Page p({tiny("fp32", 12, "fp32")});
  p.panel.startAction()->trigger();
  ASSERT_TRUE(p.waitFor([&] {
    return p.panel.controller()->state() == RunController::State::Finished &&
           p.panel.shadowMap()->columnCount() == int(p.record(0).shadowFrames().size()) &&
           p.panel.shadowMap()->columnCount() >= 3;
  })) << p.record(0).shadowFrames().size();
  const ShadowErrorMap& map = *p.panel.shadowMap();
  ASSERT_GT(map.rowCount(), 4); // outputs, activations, gradients of three layers
  for (int c = 0; c < map.columnCount(); ++c) {
    EXPECT_EQ(map.stepOfColumn(c) % 4, 0) << "shadow steps are the telemetry steps";
    for (int r = 0; r < map.rowCount(); ++r) {
      const train::ShadowError* e = map.cell(r, c);
      ASSERT_NE(e, nullptr) << r << "," << c;
      EXPECT_EQ(e->tensorRelative, 0.0) << e->tensor;
      EXPECT_EQ(e->flips, 0) << e->tensor;
      EXPECT_EQ(map.cellColour(r, c), ShadowErrorMap::zeroColour()) << e->tensor;
    }
  }
  EXPECT_TRUE(map.legendTexts().contains(QStringLiteral("0 (exact)")));
  EXPECT_TRUE(map.latestSentence().contains(QStringLiteral("equals the reference exactly")))
      << map.latestSentence().toStdString();
}

// BF16 mixed precision against FP32: the products read BF16 inputs, so
// some tensor differs. With a threshold of 1e-6 the first tensor (in the
// frame's order) whose error exceeds it is named on the banner.
TEST(ShadowGui, ABf16MixedRunShowsErrors) {
  train::RunConfig c = tiny("bf16-mixed", 12, "fp32");
  c.shadowThreshold = 1e-6;
  Page p({c});
  EXPECT_DOUBLE_EQ(p.panel.setup()->configs().front().shadowThreshold, 1e-6);
  p.panel.startAction()->trigger();
  ASSERT_TRUE(p.waitFor([&] {
    return p.panel.controller()->state() == RunController::State::Finished &&
           p.panel.shadowMap()->columnCount() == int(p.record(0).shadowFrames().size()) &&
           p.panel.shadowMap()->columnCount() >= 3;
  }));
  const ShadowErrorMap& map = *p.panel.shadowMap();
  int nonZero = 0;
  for (int col = 0; col < map.columnCount(); ++col)
    for (int r = 0; r < map.rowCount(); ++r)
      if (const train::ShadowError* e = map.cell(r, col); e && e->tensorRelative > 0.0) {
        ++nonZero;
        EXPECT_NE(map.cellColour(r, col), ShadowErrorMap::zeroColour()) << e->tensor;
        // BF16 keeps 8 significant bits: after a dozen steps no tensor is off by a quarter.
        EXPECT_LT(e->tensorRelative, 0.25) << e->tensor;
      }
  EXPECT_GT(nonZero, 0);
  {
    const auto& last = *p.record(0).shadowFrames().back();
    std::string firstOver;
    for (const auto& e : last.tensors)
      if (e.tensorRelative > 1e-6) {
        firstOver = e.tensor;
        break;
      }
    ASSERT_FALSE(firstOver.empty());
    const QString named = QStringLiteral("first tensor over 0.0001% error: %1 (tensor error")
                              .arg(QString::fromStdString(firstOver));
    EXPECT_TRUE(p.panel.bannerText().contains(named)) << p.panel.bannerText().toStdString();
    EXPECT_TRUE(map.latestSentence().contains(named)) << map.latestSentence().toStdString();
  }
  // The op table's Error column: the first layer's forward product shows its output's error.
  dockOf(p.panel.opTable())->raise();
  const auto& frame = *p.record(0).shadowFrames().back();
  const QTableWidget* table = p.panel.opTable()->precisionTable();
  ASSERT_TRUE(QTest::qWaitFor([&] {
    for (int r = 0; r < table->rowCount(); ++r)
      if (table->item(r, 0)->text() == QStringLiteral("matmul: layer 0 forward"))
        return p.panel.opTable()->errorOf(r) != QStringLiteral("—");
    return false;
  }, 5000));
  for (int r = 0; r < table->rowCount(); ++r) {
    if (table->item(r, 0)->text() != QStringLiteral("matmul: layer 0 forward"))
      continue;
    for (const auto& e : frame.tensors)
      if (e.tensor == "layer0 output")
        EXPECT_EQ(p.panel.opTable()->errorOf(r), QString::number(e.tensorRelative, 'e', 1));
  }
}

// On demand: a paused run without the shadow pass checks its next step.
TEST(ShadowGui, CheckAgainstReferenceNowShadowsThePausedRunsNextStep) {
  Page p({tiny("bf16-mixed", 1000, "")});
  p.panel.stepAction()->trigger(); // starts paused, one step
  ASSERT_TRUE(p.waitFor([&] { return p.record(0).lastStep() == 0; }));
  ASSERT_TRUE(p.panel.checkShadowAction()->isEnabled());
  p.panel.checkShadowAction()->trigger();
  EXPECT_TRUE(p.panel.shadowMessage().contains(QStringLiteral("FP32"))) << p.panel.shadowMessage().toStdString();
  EXPECT_TRUE(p.panel.shadowMessage().contains(QStringLiteral("Step"))) << p.panel.shadowMessage().toStdString();
  EXPECT_TRUE(p.record(0).shadowFrames().empty());
  p.panel.stepAction()->trigger();
  ASSERT_TRUE(p.waitFor([&] { return p.record(0).lastStep() == 1 && p.panel.shadowMap()->columnCount() == 1; }));
  EXPECT_EQ(p.record(0).shadowFrames().back()->step, 1);
  EXPECT_EQ(p.record(0).shadowFrames().back()->reference, train::ShadowPrecision::F32);
  // Only that step.
  p.panel.stepAction()->trigger();
  ASSERT_TRUE(p.waitFor([&] { return p.record(0).lastStep() == 2; }));
  EXPECT_EQ(p.record(0).shadowFrames().size(), 1u);
  p.panel.stopAction()->trigger();
}

// FP64 chosen in the setup: the check on demand is against FP64, and an
// FP32 run's tensors then differ from it by FP32's rounding only (unit
// roundoff 2^-24 = 6e-8, grown over a few products and sums: far under 1e-4).
TEST(ShadowGui, CheckAgainstReferenceNowUsesTheSetupsFp64) {
  Page p({tiny("fp32", 1000, "")});
  p.panel.stepAction()->trigger();
  ASSERT_TRUE(p.waitFor([&] { return p.record(0).lastStep() == 0; }));
  QComboBox* picker = p.panel.setup()->shadowPicker();
  picker->setCurrentIndex(picker->findData(QStringLiteral("fp64")));
  p.panel.checkShadowAction()->trigger();
  EXPECT_TRUE(p.panel.shadowMessage().contains(QStringLiteral("FP64"))) << p.panel.shadowMessage().toStdString();
  p.panel.stepAction()->trigger();
  ASSERT_TRUE(p.waitFor([&] { return p.panel.shadowMap()->columnCount() == 1; }));
  const auto& frame = *p.record(0).shadowFrames().back();
  EXPECT_EQ(frame.reference, train::ShadowPrecision::F64);
  double worst = 0.0;
  for (const auto& e : frame.tensors) {
    EXPECT_LT(e.tensorRelative, 1e-4) << e.tensor;
    worst = std::max(worst, e.tensorRelative);
  }
  EXPECT_GT(worst, 0.0);
  EXPECT_TRUE(p.panel.shadowMap()->title().contains(QStringLiteral("FP64")));
  p.panel.stopAction()->trigger();
}

// A run the shadow pass cannot follow (gradient accumulation) refuses, and
// the Error view says why, naming the run.
TEST(ShadowGui, ARefusalIsShownInTheErrorView) {
  train::RunConfig c = tiny("fp32", 1000, "");
  c.gradAccumulation = 2;
  Page p({c});
  p.panel.stepAction()->trigger();
  ASSERT_TRUE(p.waitFor([&] { return p.record(0).lastStep() == 0; }));
  p.panel.checkShadowAction()->trigger();
  const QString asked = p.panel.shadowMessage();
  p.panel.stepAction()->trigger(); // (whether the run refuses at once or at its next step)
  ASSERT_TRUE(p.waitFor([&] { return p.panel.shadowMessage() != asked; }, 10000))
      << asked.toStdString();
  EXPECT_TRUE(p.panel.shadowMessage().contains(p.panel.controller()->runName(0)))
      << p.panel.shadowMessage().toStdString();
  p.panel.stopAction()->trigger();
}

// A saved log's step rows carry their frames ("shadow", train/shadow.h):
// opened, the run's Error view shows them, an "inf" error in its colour.
TEST(ShadowGui, ASavedRunsFramesAreShownWhenItIsOpened) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("shadowed.jsonl"));
  std::string out = "{\"header\": true, \"name\": \"fixture\"}\n";
  const auto tensor = [](const char* name, const char* pass, const nlohmann::json& rel) {
    return nlohmann::json{{"tensor", name},    {"pass", pass},      {"format", "bf16"},
                          {"count", 64},       {"max_rel", rel},    {"median_rel", rel},
                          {"tensor_rel", rel}, {"max_ulps", 2.0},   {"sqnr_db", 40.0},
                          {"flips", 1}};
  };
  for (int s = 0; s < 6; ++s) {
    nlohmann::json row{{"step", s}, {"loss", 1.0 - 0.1 * s}};
    if (s % 2 == 0)
      row["shadow"] = {{"step", s},
                       {"reference", "fp64"},
                       {"threshold", 0.01},
                       {"ms", 1.5},
                       {"first_over", s == 4 ? nlohmann::json(1) : nlohmann::json(nullptr)},
                       {"tensors", {tensor("layer0 output", "forward", 1e-3),
                                    tensor("layer1 output", "forward",
                                           s == 4 ? nlohmann::json("inf") : nlohmann::json(2e-3)),
                                    tensor("layer0.W gradient", "backward", 0.0)}}};
    out += row.dump() + "\n";
  }
  {
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(out.data(), qint64(out.size()));
  }
  QSettings().clear();
  TrainPanel panel;
  panel.resize(1400, 1000);
  panel.show();
  const QString problem = panel.controller()->loadRun(path);
  ASSERT_TRUE(problem.isEmpty()) << problem.toStdString();
  const int run = panel.controller()->runCount() - 1;
  panel.setSelectedRun(run);
  dockOf(panel.shadowMap())->raise();
  ASSERT_TRUE(QTest::qWaitFor([&] { return panel.shadowMap()->columnCount() == 3; }, 5000))
      << panel.controller()->record(run).shadowFrames().size();
  const ShadowErrorMap& map = *panel.shadowMap();
  ASSERT_EQ(map.rowCount(), 3);
  EXPECT_EQ(map.stepOfColumn(2), 4);
  EXPECT_TRUE(map.rowIsBackward(2));
  EXPECT_DOUBLE_EQ(map.cell(0, 0)->tensorRelative, 1e-3);
  EXPECT_TRUE(std::isinf(map.cell(1, 2)->tensorRelative));
  EXPECT_EQ(map.cellColour(1, 2), ShadowErrorMap::infiniteColour());
  EXPECT_EQ(map.cellColour(2, 0), ShadowErrorMap::zeroColour());
  EXPECT_TRUE(map.latestSentence().contains(QStringLiteral("first tensor over 1% error: layer1 output (tensor error inf)")))
      << map.latestSentence().toStdString();
}

} // namespace
} // namespace mantissa::ui
