// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The Lessons page: Page Up / Page Down move between lessons from the text,
// a demo's figure gets the core's data, a broken lesson shows its error in place.
#include "ui/charts/lesson_chart.h"
#include "ui/lessons/lessons_page.h"

#include <QComboBox>
#include <QLineSeries>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTextBrowser>

#include <gtest/gtest.h>

#include <fstream>
#include <unistd.h>

using namespace mantissa;
using namespace mantissa::ui;
namespace fs = std::filesystem;

TEST(LessonsPage, PageUpDownNavigateFromTheText) {
  LessonsPage page;
  page.resize(1280, 720);
  page.show();
  ASSERT_EQ(page.lessonList()->count(), 6);
  EXPECT_EQ(page.currentLesson(), 0);
  EXPECT_TRUE(page.text()->toPlainText().contains(QStringLiteral("Anatomy of a float")));
  page.text()->setFocus();
  QTest::keyClick(page.text(), Qt::Key_PageDown);
  EXPECT_EQ(page.currentLesson(), 1);
  EXPECT_TRUE(page.text()->toPlainText().contains(QStringLiteral("Update swamping")));
  QTest::keyClick(page.text()->viewport(), Qt::Key_PageDown);
  EXPECT_EQ(page.currentLesson(), 2);
  QTest::keyClick(page.lessonList(), Qt::Key_PageUp);
  EXPECT_EQ(page.currentLesson(), 1);
  for (int i = 0; i < 10; ++i) QTest::keyClick(page.text(), Qt::Key_PageDown);
  EXPECT_EQ(page.currentLesson(), 5); // stops at the last lesson
  for (int i = 0; i < 10; ++i) QTest::keyClick(page.text(), Qt::Key_PageUp);
  EXPECT_EQ(page.currentLesson(), 0);
}

TEST(LessonsPage, RunItFillsTheChartWithTheDemo) {
  LessonsPage page;
  page.show();
  page.showLesson(1); // swamping
  ASSERT_EQ(page.demoChoice()->currentText(), QStringLiteral("swamping"));
  EXPECT_EQ(page.chart()->pointCount(), 0);
  QSignalSpy done(&page, &LessonsPage::demoFinished);
  QTest::mouseClick(page.runButton(), Qt::LeftButton);
  ASSERT_TRUE(done.wait(60000));
  EXPECT_EQ(done.at(0).at(0).toString(), QStringLiteral("swamping"));
  ASSERT_EQ(page.chart()->series().size(), 3u);
  // FP32 walks down; BF16 and FP16 stay at 1.0 (the core's computation).
  const auto* fp32 = page.chart()->series()[0];
  ASSERT_GT(fp32->count(), 100);
  EXPECT_NEAR(fp32->at(fp32->count() - 1).y(), 0.0, 1e-3);
  const auto* bf16 = page.chart()->series()[1];
  EXPECT_EQ(bf16->at(bf16->count() - 1).y(), 1.0);
  EXPECT_TRUE(page.results()->toPlainText().contains(QStringLiteral("2^11")));
  EXPECT_TRUE(page.chart()->csv().startsWith(QStringLiteral("series,x,y\n\"FP32\",0,1\n")));
}

TEST(LessonsPage, BrokenLessonShowsItsErrorInPlace) {
  const fs::path dir = fs::temp_directory_path() / ("mantissa-ui-lessons-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "ok.md") << "# Fine lesson\n\nSome text.\n";
  std::ofstream(dir / "broken.md") << "no title\n";
  std::ofstream(dir / "lessons.json")
      << R"({"lessons": [{"title": "Fine", "file": "ok.md", "demos": ["accumulation"]},
                         {"title": "Broken", "file": "broken.md", "demos": ["accumulation"]},
                         {"title": "Also fine", "file": "ok.md"}]})";
  LessonsPage page;
  page.setLessons(lessons::loadLessons(dir));
  page.show();
  ASSERT_EQ(page.lessonList()->count(), 3);
  EXPECT_TRUE(page.text()->toPlainText().contains(QStringLiteral("Fine lesson")));
  EXPECT_TRUE(page.runButton()->isEnabled());
  QTest::keyClick(page.text(), Qt::Key_PageDown);
  EXPECT_EQ(page.currentLesson(), 1);
  EXPECT_TRUE(page.text()->toPlainText().contains(QStringLiteral("broken.md")));
  EXPECT_TRUE(page.text()->toPlainText().contains(QStringLiteral("must start with a title")));
  EXPECT_FALSE(page.runButton()->isEnabled());
  QTest::keyClick(page.text(), Qt::Key_PageDown);
  EXPECT_TRUE(page.text()->toPlainText().contains(QStringLiteral("Fine lesson")));
  fs::remove_all(dir);
}
