// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// A lesson's links, clicked in the application window: an Explorer link opens
// the Float Explorer with the value typed and its format selected; a preset
// link opens the Train page set up with that preset's runs; a sweep link
// opens the Sweep dock filled in.
#include "ui/app_shell/main_window.h"
#include "ui/app_shell/theme.h"
#include "ui/formats/explorer_model.h"
#include "ui/formats/float_explorer.h"
#include "ui/lessons/lessons_page.h"
#include "ui/panels/sweep_panel.h"
#include "ui/panels/train_panel.h"
#include "ui/panels/train_panel_setup.h"

#include <mantissa/lessons/lesson_set.h>
#include <mantissa/model/gpt.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/sweep.h>

#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QTabWidget>
#include <QTest>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace mantissa;
using namespace mantissa::ui;

namespace {

class LessonLinks : public ::testing::Test {
protected:
  void SetUp() override {
    QSettings().clear();
    Theme::instance().setDark(false);
    Theme::instance().setPresenter(false);
    window.resize(1280, 720);
    window.show();
    lessonsPage = qobject_cast<LessonsPage*>(window.page(QStringLiteral("Lessons")));
    explorer = qobject_cast<FloatExplorer*>(window.page(QStringLiteral("Explorer")));
    train = qobject_cast<TrainPanel*>(window.page(QStringLiteral("Train")));
    ASSERT_NE(lessonsPage, nullptr);
    ASSERT_NE(explorer, nullptr);
    ASSERT_NE(train, nullptr);
  }
  void TearDown() override { QSettings().clear(); }

  // Shows lesson `index` on the Lessons tab and returns its link button `name`.
  QPushButton* link(int index, const QString& name) {
    window.pages()->setCurrentWidget(lessonsPage);
    lessonsPage->showLesson(index);
    return lessonsPage->findChild<QPushButton*>(name);
  }

  MainWindow window;
  LessonsPage* lessonsPage = nullptr;
  FloatExplorer* explorer = nullptr;
  TrainPanel* train = nullptr;
};

TEST_F(LessonLinks, ExplorerLinkOpensTheExplorerWithTheValueAndFormat) {
  // Lesson 1: "65504 in FP16", the largest finite binary16 (IEEE 754: 0x7BFF).
  QPushButton* button = link(0, QStringLiteral("explorerLink3"));
  ASSERT_NE(button, nullptr);
  EXPECT_EQ(button->text(), QStringLiteral("65504 in FP16"));
  explorer->selectFormat(numeric::FormatId::Fp32);
  QTest::mouseClick(button, Qt::LeftButton);
  EXPECT_EQ(window.pages()->currentWidget(), explorer);
  EXPECT_EQ(explorer->input()->text(), QStringLiteral("65504"));
  EXPECT_EQ(explorer->selectedFormat(), numeric::FormatId::Fp16);
  EXPECT_EQ(explorer->model().reading(numeric::FormatId::Fp16).bits, 0x7BFFu);
  EXPECT_FALSE(explorer->model().reading(numeric::FormatId::Fp16).inexact);

  // "1000 in BF16": 1000 = 1.953125 x 2^9 -> exponent 136, mantissa 0b1111010: 0x447A.
  button = link(0, QStringLiteral("explorerLink2"));
  ASSERT_NE(button, nullptr);
  QTest::mouseClick(button, Qt::LeftButton);
  EXPECT_EQ(window.pages()->currentWidget(), explorer);
  EXPECT_EQ(explorer->input()->text(), QStringLiteral("1000"));
  EXPECT_EQ(explorer->selectedFormat(), numeric::FormatId::Bf16);
  EXPECT_EQ(explorer->model().reading(numeric::FormatId::Bf16).bits, 0x447Au);

  // A link without a format keeps the selected card and loads the value.
  button = link(0, QStringLiteral("explorerLink0"));
  ASSERT_NE(button, nullptr);
  QTest::mouseClick(button, Qt::LeftButton);
  EXPECT_EQ(explorer->input()->text(), QStringLiteral("1"));
  EXPECT_EQ(explorer->selectedFormat(), numeric::FormatId::Bf16);
  EXPECT_EQ(explorer->model().reading(numeric::FormatId::Fp32).bits, 0x3F800000u);
}

TEST_F(LessonLinks, EveryShippedExplorerLinkLoadsWithoutAnError) {
  const auto set = lessons::loadInstalledLessons();
  ASSERT_TRUE(set.error.empty()) << set.error;
  int clicked = 0;
  for (int i = 0; i < static_cast<int>(set.lessons.size()); ++i) {
    const auto& links = set.lessons[static_cast<std::size_t>(i)].explorer;
    for (int k = 0; k < static_cast<int>(links.size()); ++k) {
      SCOPED_TRACE(links[static_cast<std::size_t>(k)].value);
      QPushButton* button = link(i, QStringLiteral("explorerLink%1").arg(k));
      ASSERT_NE(button, nullptr);
      QTest::mouseClick(button, Qt::LeftButton);
      ++clicked;
      EXPECT_EQ(window.pages()->currentWidget(), explorer);
      const auto value = QString::fromStdString(links[static_cast<std::size_t>(k)].value);
      EXPECT_EQ(explorer->input()->text(), value);
      EXPECT_TRUE(parseExplorerInput(value, std::nullopt).error.isEmpty());
      if (const auto id = numeric::parseFormatName(links[static_cast<std::size_t>(k)].format)) {
        EXPECT_EQ(explorer->selectedFormat(), *id);
      }
    }
  }
  EXPECT_GE(clicked, 8);
}

TEST_F(LessonLinks, PresetLinkOpensTheTrainPageWithThePresetsRuns) {
  struct Case {
    int lesson;
    const char* preset;
    QStringList recipes; // what presets.h says each phenomenon compares
    double lossMultiplier;
  };
  const Case cases[] = {
      {1, "swamping", {"bf16-pure", "bf16-pure-sr", "bf16-mixed"}, std::nan("")},
      {2, "underflow", {"fp16-mixed-noscale", "fp16-mixed"}, 1.0 / 16384},
      {3, "bf16-no-scaler", {"bf16-mixed", "fp32"}, 1.0 / 16384},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.preset);
    // Start from a form the preset must change: fp32 alone, default loss.
    train->setup()->setConfigs({train::referenceRun("fp32")});
    ASSERT_EQ(train->setup()->checkedRecipes(), QStringList{QStringLiteral("fp32")});
    QPushButton* button = link(c.lesson, QStringLiteral("presetLink"));
    ASSERT_NE(button, nullptr);
    EXPECT_TRUE(button->text().contains(QLatin1String(c.preset)));
    QTest::mouseClick(button, Qt::LeftButton);
    EXPECT_EQ(window.pages()->currentWidget(), train);
    QStringList checked = train->setup()->checkedRecipes();
    QStringList expected = c.recipes;
    checked.sort();
    expected.sort();
    EXPECT_EQ(checked, expected);
    const auto configs = train->setup()->configs();
    const auto* preset = train::findPreset(c.preset);
    ASSERT_NE(preset, nullptr);
    ASSERT_EQ(configs.size(), preset->runs.size());
    for (const auto& run : preset->runs) {
      const auto it = std::find_if(configs.begin(), configs.end(),
                                   [&](const auto& r) { return r.recipe == run.recipe; });
      ASSERT_NE(it, configs.end()) << run.recipe;
      EXPECT_EQ(it->scaler, run.scaler) << run.recipe;
      EXPECT_EQ(it->scalerInitScale, run.scalerInitScale) << run.recipe;
      EXPECT_EQ(it->lossMultiplier, run.lossMultiplier) << run.recipe;
      if (!std::isnan(c.lossMultiplier)) {
        EXPECT_EQ(it->lossMultiplier, c.lossMultiplier) << run.recipe;
      }
    }
  }
}

} // namespace

// Lesson 9 opens the Train page with the error-map preset: a bf16-mixed GPT
// whose telemetry steps run the FP32 shadow pass.
TEST_F(LessonLinks, ErrorMapPresetSetsUpAShadowedBf16Gpt) {
  const auto set = lessons::loadInstalledLessons();
  int index = -1;
  for (int i = 0; i < static_cast<int>(set.lessons.size()); ++i)
    if (set.lessons[static_cast<std::size_t>(i)].preset == "error-map") index = i;
  ASSERT_GE(index, 0);
  QPushButton* button = link(index, QStringLiteral("presetLink"));
  ASSERT_NE(button, nullptr);
  QTest::mouseClick(button, Qt::LeftButton);
  EXPECT_EQ(window.pages()->currentWidget(), train);
  const auto configs = train->setup()->configs();
  ASSERT_EQ(configs.size(), 1u);
  EXPECT_EQ(configs[0].recipe, "bf16-mixed");
  EXPECT_EQ(configs[0].shadow, "fp32");
  EXPECT_EQ(configs[0].telemetryEvery, 10);
  EXPECT_TRUE(model::isGptSpec(configs[0].model));
  EXPECT_TRUE(configs[0].problems().empty());
}

// A lesson's "sweep" opens the Sweep dock on the Train page with the form
// filled in from the manifest, not started.
TEST_F(LessonLinks, SweepLinkOpensTheSweepDockFilledIn) {
  const auto set = lessons::loadInstalledLessons();
  int index = -1;
  for (int i = 0; i < static_cast<int>(set.lessons.size()); ++i)
    if (set.lessons[static_cast<std::size_t>(i)].sweep) index = i;
  ASSERT_GE(index, 0);
  const lessons::LessonSweep& expected = *set.lessons[static_cast<std::size_t>(index)].sweep;
  window.pages()->setCurrentWidget(lessonsPage);
  lessonsPage->showLesson(0);
  EXPECT_EQ(lessonsPage->sweepLink(), nullptr); // lesson 1 has none
  lessonsPage->showLesson(index);
  QPushButton* button = lessonsPage->sweepLink();
  ASSERT_NE(button, nullptr);
  SweepPanel* panel = train->sweep();
  ASSERT_NE(panel, nullptr);
  EXPECT_FALSE(panel->isVisible());
  QTest::mouseClick(button, Qt::LeftButton);
  EXPECT_EQ(window.pages()->currentWidget(), train);
  QTRY_VERIFY(panel->isVisible());
  EXPECT_FALSE(panel->running());
  const train::SweepOptions o = panel->formOptions();
  EXPECT_EQ(o.config.model, expected.model);
  EXPECT_EQ(o.config.steps, expected.steps);
  EXPECT_EQ(o.formats, expected.formats);
  EXPECT_EQ(o.ops, expected.ops);
  EXPECT_EQ(o.seeds, expected.seeds);
  EXPECT_DOUBLE_EQ(o.budget, expected.budget);
  EXPECT_FALSE(o.resume);
  EXPECT_TRUE(panel->outputFolder().endsWith(QStringLiteral("mantissa-sweep-precision-map")));
  // The form is one the sweep accepts as it stands.
  EXPECT_NO_THROW(train::sweepProbes(o));
}
