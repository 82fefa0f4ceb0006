// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The Exercises page: answers typed as hex, bits or decimals are graded at
// once, a wrong one opens the worked solution, the difficulty rises after
// three right answers, the results export as CSV, and a lesson's exercise
// set opens here.
#include "ui/lessons/exercises_page.h"
#include "ui/app_shell/theme.h"
#include "ui/formats/bit_cells.h"
#include "ui/lessons/lessons_page.h"

#include <mantissa/io/resource_paths.h>

#include <mantissa/numeric/codec.h>

#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>

namespace {

using mantissa::lessons::AnswerForm;
using mantissa::lessons::ExerciseKind;
using mantissa::numeric::FormatId;
namespace lessons = mantissa::lessons;
namespace numeric = mantissa::numeric;

// FP8 E4M3 0 1010 011 = 1.375 x 2^3 = 11: an exact value to encode.
lessons::Exercise encodeEleven() {
  lessons::Exercise ex;
  ex.kind = ExerciseKind::Encode;
  ex.format = FormatId::Fp8E4M3;
  ex.question = "Encode 11, in FP8 E4M3.";
  lessons::AnswerPart p;
  p.label = "bits";
  p.form = AnswerForm::Code;
  p.format = FormatId::Fp8E4M3;
  p.bits = 0x53;
  p.value = "11";
  p.keyText = "0 1010 011 = 0x53 = 11";
  ex.parts.push_back(p);
  ex.steps = {"11 is a value of FP8 E4M3."};
  ex.subjectBits = 0x53;
  return ex;
}

// Types the key of every part of the page's exercise.
void typeKey(mantissa::ui::ExercisesPage& page) {
  const auto& parts = page.exercise().parts;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto& p = parts[i];
    QString text;
    if (p.form == AnswerForm::Code || p.form == AnswerForm::Value)
      text = QString::fromStdString(numeric::formatBitsHex(numeric::formatInfo(p.format), p.bits));
    else if (p.form == AnswerForm::Indices)
      text = QString::fromStdString(p.keyText);
    else
      text = QString::fromStdString(p.digits);
    page.answerFields()[i]->setText(text);
  }
}

} // namespace

TEST(ExercisesPage, GradesBitsHexAndDecimalAndShowsTheSolutionWhenWrong) {
  mantissa::ui::ExercisesPage page;
  page.show();
  page.showExercise(encodeEleven());
  ASSERT_EQ(page.answerFields().size(), 1u);
  page.answerFields()[0]->setText(QStringLiteral("0101 0010")); // 10, not 11
  EXPECT_FALSE(page.check());
  EXPECT_TRUE(page.solution()->isVisible());
  for (const char* right : {"0x53", "0101 0011", "11"}) {
    page.answerFields()[0]->setText(QString::fromLatin1(right));
    EXPECT_TRUE(page.check()) << right;
    EXPECT_FALSE(page.solution()->isVisible()) << right;
  }
  // Only the first try of an item is recorded.
  ASSERT_EQ(page.results().size(), 1u);
  EXPECT_FALSE(page.results()[0].correct);
  EXPECT_EQ(page.results()[0].answer, QStringLiteral("0101 0010"));
}

TEST(ExercisesPage, DifficultyRisesAfterThreeRightAnswersAndKindsFitTheFormat) {
  mantissa::ui::ExercisesPage page;
  const int start = page.difficulty();
  for (int i = 0; i < 3; ++i) {
    page.newExercise();
    typeKey(page);
    EXPECT_TRUE(page.check());
  }
  EXPECT_EQ(page.difficulty(), std::min(start + 1, lessons::kMaxDifficulty));
  for (int i = 0; i < 2; ++i) {
    page.newExercise();
    for (QLineEdit* f : page.answerFields())
      f->setText(QStringLiteral("nonsense"));
    EXPECT_FALSE(page.check());
  }
  EXPECT_EQ(page.difficulty(), start);
  // E8M0 is an exponent alone: no mantissa to round, no zero to flush to.
  page.formatChoice()->setCurrentIndex(page.formatChoice()->findData(static_cast<int>(FormatId::E8M0)));
  QStringList kinds;
  for (int i = 0; i < page.kindChoice()->count(); ++i)
    kinds << page.kindChoice()->itemText(i);
  EXPECT_FALSE(kinds.contains(QString::fromStdString(std::string(lessons::exerciseKindTitle(ExerciseKind::Round)))));
  EXPECT_TRUE(kinds.contains(QString::fromStdString(std::string(lessons::exerciseKindTitle(ExerciseKind::Decode)))));
  EXPECT_EQ(page.exercise().format, FormatId::E8M0);
}

TEST(ExercisesPage, ResultsExportAsCsv) {
  mantissa::ui::ExercisesPage page;
  page.showExercise(encodeEleven());
  page.answerFields()[0]->setText(QStringLiteral("0x53"));
  ASSERT_TRUE(page.check());
  page.showExercise(encodeEleven());
  page.answerFields()[0]->setText(QStringLiteral("12"));
  ASSERT_FALSE(page.check());
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("results.csv"));
  ASSERT_TRUE(page.exportResults(path).isEmpty());
  QFile file(path);
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  const QStringList lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  ASSERT_EQ(lines.size(), 3);
  EXPECT_EQ(lines[0], QStringLiteral("question,answer,correct,time_s"));
  // The question holds a comma: quoted.
  EXPECT_TRUE(lines[1].startsWith(QStringLiteral("\"Encode 11, in FP8 E4M3.\",0x53,yes,")));
  EXPECT_TRUE(lines[2].startsWith(QStringLiteral("\"Encode 11, in FP8 E4M3.\",12,no,")));
  EXPECT_TRUE(page.exportResults(dir.filePath(QStringLiteral("missing/results.csv"))).contains(QStringLiteral("missing")));
}

// A teacher's folder (the shipped example, written only with the documented
// format) opens in the Lessons page; its exercise block becomes a button that
// asks for exactly that set, and the Exercises page then shows its items.
TEST(ExercisesPage, LessonFolderExerciseSetOpensOnTheExercisesPage) {
  mantissa::ui::LessonsPage lessonsPage;
  const QString dir = QString::fromStdString((mantissa::io::resourceDir() / "example-lessons").string());
  ASSERT_TRUE(lessonsPage.openFolder(dir).isEmpty());
  EXPECT_FALSE(lessonsPage.openFolder(dir + QStringLiteral("/missing")).isEmpty());
  std::vector<lessons::SheetSpec> asked;
  QObject::connect(&lessonsPage, &mantissa::ui::LessonsPage::exercisesRequested,
                   [&](const lessons::SheetSpec& spec) { asked.push_back(spec); });
  QPushButton* practise = nullptr;
  for (QPushButton* b : lessonsPage.findChildren<QPushButton*>())
    if (b->text().startsWith(QStringLiteral("Practise: FP8 E4M3")))
      practise = b;
  ASSERT_NE(practise, nullptr);
  practise->click();
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].kind, ExerciseKind::Round);
  EXPECT_EQ(asked[0].count, 10);
  EXPECT_EQ(asked[0].seed, 7u);
  mantissa::ui::ExercisesPage page;
  page.startSheet(asked[0]);
  const lessons::Sheet sheet = lessons::generateSheet(asked[0]);
  EXPECT_EQ(page.exercise().question, sheet.items[0].question);
  page.newExercise();
  EXPECT_EQ(page.exercise().question, sheet.items[1].question);
  EXPECT_EQ(page.kindChoice()->currentData().toInt(), static_cast<int>(ExerciseKind::Round));
}

// A wrong rounding answer animates the bit cells through the core's frames:
// Forward and Back show exactly the core's frames in order (cells, caption,
// cut-off bits), the last frame's cells hold the codec's encoding of the key
// value, and Replay starts again at the exact value.
TEST(ExercisesPage, WrongRoundingAnimatesTheCellsThroughTheCoresFrames) {
  mantissa::ui::ExercisesPage page;
  page.resize(1280, 720);
  page.show();
  for (FormatId id : {FormatId::Fp8E4M3, FormatId::Bf16, FormatId::Fp16, FormatId::Fp32}) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      const lessons::Exercise ex =
          lessons::generateExercise(id, ExerciseKind::Round, seed, 1 + static_cast<int>(seed % 3));
      ASSERT_EQ(ex.frames.size(), 4u);
      page.showExercise(ex);
      EXPECT_EQ(page.solutionCells(), nullptr);
      page.answerFields()[0]->setText(QStringLiteral("000"));
      page.answerFields()[1]->setText(QStringLiteral("nan"));
      ASSERT_FALSE(page.check());
      ASSERT_NE(page.solutionCells(), nullptr);
      EXPECT_TRUE(page.animating());
      EXPECT_EQ(page.solutionFrame(), 0);
      EXPECT_FALSE(page.backButton()->isEnabled());
      const auto expectFrame = [&](int i) {
        const lessons::SolutionFrame& f = ex.frames[static_cast<std::size_t>(i)];
        EXPECT_EQ(page.solutionFrame(), i);
        EXPECT_EQ(page.solutionCells()->bits(), f.bits) << "frame " << i;
        EXPECT_EQ(page.frameCaption()->text().toStdString(), f.caption);
        EXPECT_EQ(page.cutBits()->isVisibleTo(&page), !f.cut.empty()) << "frame " << i;
        if (!f.cut.empty()) {
          const QString cut = page.cutBits()->text();
          for (const lessons::CutBit& b : f.cut)
            EXPECT_TRUE(cut.contains(QStringLiteral(">%1<").arg(b.digit))) << cut.toStdString();
          if (!f.cut.front().label.empty())
            for (const char* name : {">G<", ">R<", ">S<"})
              EXPECT_TRUE(cut.contains(QString::fromLatin1(name))) << cut.toStdString();
        }
      };
      expectFrame(0);
      for (int i = 1; i < 4; ++i) {
        page.forwardButton()->click();
        EXPECT_FALSE(page.animating()) << "a step by hand stops the animation";
        expectFrame(i);
      }
      EXPECT_FALSE(page.forwardButton()->isEnabled());
      page.forwardButton()->click(); // disabled: stays at the end
      expectFrame(3);
      // The end: the codec's encoding of the key's value.
      const auto& f = numeric::formatInfo(id);
      const auto keyValue = numeric::parseNumber(ex.parts[1].value).value;
      ASSERT_TRUE(keyValue.has_value());
      EXPECT_EQ(page.solutionCells()->bits(), numeric::encode(f, *keyValue).bits);
      page.backButton()->click();
      expectFrame(2);
      page.replayButton()->click();
      expectFrame(0);
      EXPECT_TRUE(page.animating());
      if (::testing::Test::HasFailure())
        return;
    }
  }
  // An Encode item that rounds: the same frames, ending at the codec's encoding
  // of the key's value; more cut-off bits than shown end in an ellipsis.
  int encodes = 0;
  for (std::uint64_t seed = 1; seed < 200 && encodes < 5; ++seed) {
    const lessons::Exercise ex = lessons::generateExercise(FormatId::Bf16, ExerciseKind::Encode, seed, 2);
    if (ex.frames.empty())
      continue;
    ++encodes;
    page.showExercise(ex);
    page.answerFields()[0]->setText(QStringLiteral("nan"));
    ASSERT_FALSE(page.check());
    ASSERT_NE(page.solutionCells(), nullptr);
    EXPECT_EQ(page.solutionCells()->bits(), ex.frames[0].bits);
    EXPECT_EQ(page.cutBits()->text().contains(QStringLiteral("…")), ex.frames[0].moreCut);
    for (std::size_t i = 1; i < ex.frames.size(); ++i) {
      page.forwardButton()->click();
      EXPECT_EQ(page.solutionCells()->bits(), ex.frames[i].bits);
      EXPECT_EQ(page.frameCaption()->text().toStdString(), ex.frames[i].caption);
    }
    const auto key = numeric::parseNumber(ex.parts[0].value).value;
    ASSERT_TRUE(key.has_value());
    EXPECT_EQ(page.solutionCells()->bits(), numeric::encode(numeric::formatInfo(FormatId::Bf16), *key).bits);
  }
  EXPECT_EQ(encodes, 5);
  // A right answer hides the solution and stops the animation.
  page.showExercise(lessons::generateExercise(FormatId::Fp16, ExerciseKind::Round, 9, 2));
  typeKey(page);
  EXPECT_TRUE(page.check());
  EXPECT_FALSE(page.animating());
}

// The animation advances by itself, one frame per kFrameMs, and stops at the
// rounded result.
TEST(ExercisesPage, TheRoundingAnimationPlaysToTheEnd) {
  mantissa::ui::ExercisesPage page;
  page.show();
  page.showExercise(lessons::generateExercise(FormatId::Fp8E5M2, ExerciseKind::Round, 3, 2));
  page.answerFields()[0]->setText(QStringLiteral("000"));
  ASSERT_FALSE(page.check());
  ASSERT_TRUE(page.animating());
  EXPECT_TRUE(QTest::qWaitFor([&] { return !page.animating(); }, 20 * mantissa::ui::ExercisesPage::kFrameMs));
  EXPECT_EQ(page.solutionFrame(), 3);
  EXPECT_EQ(page.solutionCells()->bits(), page.exercise().frames.back().bits);
}

// At 1280x720, in presenter type too, the cut-off bits of an FP32 rounding
// (32 cells, which could take the whole width) stay inside the page.
TEST(ExercisesPage, CutOffBitsOfA32BitFormatStayOnScreen) {
  auto& theme = mantissa::ui::Theme::instance();
  const bool presenter = theme.presenter();
  for (bool large : {false, true}) {
    theme.setPresenter(large);
    mantissa::ui::ExercisesPage page;
    page.resize(1280, 720);
    page.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&page));
    page.showExercise(lessons::generateExercise(FormatId::Fp32, ExerciseKind::Round, 5, 3));
    page.answerFields()[0]->setText(QStringLiteral("000"));
    ASSERT_FALSE(page.check());
    for (int frame = 0; frame < 3; ++frame) {
      page.showFrame(frame);
      QApplication::processEvents();
      ASSERT_TRUE(page.cutBits()->isVisible());
      const QRect cut(page.cutBits()->mapTo(&page, QPoint(0, 0)), page.cutBits()->size());
      EXPECT_LE(cut.right(), page.width()) << (large ? "presenter" : "normal") << " frame " << frame;
      const QRect last = page.solutionCells()->cellRect(0).translated(page.solutionCells()->mapTo(&page, QPoint(0, 0)));
      EXPECT_GT(cut.left(), last.right()) << "right of the last cell";
    }
  }
  theme.setPresenter(presenter);
}
