// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The Lessons page: Page Up / Page Down move between lessons from the text,
// a demo's figure gets the core's data, a broken lesson shows its error in place.
#include "ui/charts/lesson_chart.h"
#include "ui/lessons/lessons_page.h"

#include "chart_text.h"

#include "ui/app_shell/theme.h"
#include "ui/charts/chart_export.h"
#include "ui/charts/chart_style.h"

#include <mantissa/lessons/demo_registry.h>

#include <QApplication>
#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QChart>
#include <QChartView>
#include <QBarSet>
#include <QComboBox>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QImage>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QValueAxis>
#include <QScrollBar>
#include <QTextDocument>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTextBrowser>

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <unistd.h>

using namespace mantissa;
using namespace mantissa::ui;
namespace fs = std::filesystem;

TEST(LessonsPage, PageUpDownNavigateFromTheText) {
  LessonsPage page;
  page.resize(1280, 720);
  page.show();
  ASSERT_EQ(page.lessonList()->count(), 9);
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
  EXPECT_EQ(page.currentLesson(), 8); // stops at the last lesson
  for (int i = 0; i < 10; ++i) QTest::keyClick(page.text(), Qt::Key_PageUp);
  EXPECT_EQ(page.currentLesson(), 0);
}

TEST(LessonsPage, RunItFillsTheChartWithTheDemo) {
  LessonsPage page;
  page.show();
  page.showLesson(1); // swamping
  ASSERT_EQ(page.demoChoice()->currentData().toString(), QStringLiteral("swamping"));
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
  std::ofstream(dir / "also-ok.md") << "# Fine lesson too\n\nMore text.\n";
  std::ofstream(dir / "lessons.json")
      << R"({"lessons": [{"title": "Fine", "file": "ok.md", "demos": ["accumulation"]},
                         {"title": "Broken", "file": "broken.md", "demos": ["accumulation"]},
                         {"title": "Also fine", "file": "also-ok.md"}]})";
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
  EXPECT_TRUE(page.text()->toPlainText().contains(QStringLiteral("Fine lesson too")));
  fs::remove_all(dir);
}

namespace {

// Presenter mode for the length of one test.
struct PresenterMode {
  PresenterMode() { Theme::instance().setPresenter(true); }
  ~PresenterMode() { Theme::instance().setPresenter(false); }
};

void settle() {
  for (int i = 0; i < 5; ++i) QApplication::processEvents();
}

} // namespace

// A projector at 1280x720: every slide of every lesson fits without scrolling,
// beside the run area; Page Down walks the slides, then the next lesson.
TEST(LessonsPage, PresenterSlidesFitAProjectorAt1280x720) {
  PresenterMode presenter;
  LessonsPage page;
  page.resize(1280, 720);
  page.show();
  settle();
  EXPECT_FALSE(page.lessonList()->isVisible());
  EXPECT_EQ(page.textOrientation(), Qt::Horizontal);
  const int lessons = page.lessonList()->count();
  ASSERT_EQ(lessons, 9);
  int slidesSeen = 0;
  for (int lesson = 0; lesson < lessons; ++lesson) {
    ASSERT_EQ(page.currentLesson(), lesson);
    const int slides = page.slideCount();
    ASSERT_GE(slides, 2) << "lesson " << lesson + 1;
    for (int slide = 0; slide < slides; ++slide) {
      SCOPED_TRACE(testing::Message() << "lesson " << lesson + 1 << " slide " << slide + 1);
      ASSERT_EQ(page.currentSlide(), slide);
      settle();
      EXPECT_EQ(page.text()->verticalScrollBar()->maximum(), 0)
          << page.text()->document()->size().height() << " > " << page.text()->viewport()->height();
      // Type stays large: at least the presenter UI font.
      EXPECT_GE(page.text()->font().pointSizeF(), Theme::instance().uiFont(1.0).pointSizeF() * 0.99);
      ++slidesSeen;
      QTest::keyClick(page.text(), Qt::Key_PageDown);
    }
  }
  EXPECT_GE(slidesSeen, 12);
  EXPECT_EQ(page.currentLesson(), lessons - 1); // stayed on the last lesson's last slide
  EXPECT_EQ(page.currentSlide(), page.slideCount() - 1);
  // A short slide ("Try it", lesson 1) leaves its column mostly empty at the
  // standard 42 %: the text narrows at the same type size and the demo's
  // figure gets the width (it had 58 %).
  page.showLesson(0);
  while (page.currentSlide() < page.slideCount() - 1) QTest::keyClick(page.text(), Qt::Key_PageDown);
  const double standardFont = [&] {
    settle();
    return page.text()->font().pointSizeF();
  }();
  settle();
  EXPECT_GT(page.runArea()->width(), 0.62 * page.width());
  EXPECT_EQ(page.text()->verticalScrollBar()->maximum(), 0);
  EXPECT_EQ(page.text()->font().pointSizeF(), standardFont);
  // Page Up from the first slide of a lesson lands on the previous lesson's last slide.
  page.showLesson(2);
  ASSERT_EQ(page.currentSlide(), 0);
  QTest::keyClick(page.text(), Qt::Key_PageUp);
  EXPECT_EQ(page.currentLesson(), 1);
  EXPECT_EQ(page.currentSlide(), page.slideCount() - 1);
}

// Every fit gives the same answer: a window manager's extra resize events (and
// the scroll bar that a too-narrow column briefly shows) must not swing the
// text column between two widths and type sizes, leaving a slide scrolled
// (lesson 3's "Run it" slide did, at 1280x720 under a real X server).
TEST(LessonsPage, PresenterSlideKeepsItsFitThroughResizes) {
  PresenterMode presenter;
  LessonsPage page;
  page.resize(1280, 720);
  page.show();
  settle();
  for (int lesson = 0; lesson < page.lessonList()->count(); ++lesson) {
    page.showLesson(lesson);
    for (int slide = 0; slide < page.slideCount(); ++slide) {
      SCOPED_TRACE(testing::Message() << "lesson " << lesson + 1 << " slide " << slide + 1);
      settle();
      const int column = page.text()->width();
      const double font = page.text()->font().pointSizeF();
      // A fit while the scroll bar shows (as it does for a moment when the
      // column was too narrow), then one without it.
      for (auto policy : {Qt::ScrollBarAlwaysOn, Qt::ScrollBarAsNeeded}) {
        page.text()->setVerticalScrollBarPolicy(policy);
        page.resize(1281, 720);
        settle();
        page.resize(1280, 720);
        settle();
      }
      EXPECT_EQ(page.text()->width(), column);
      EXPECT_EQ(page.text()->font().pointSizeF(), font);
      EXPECT_EQ(page.text()->verticalScrollBar()->maximum(), 0);
      QTest::keyClick(page.text(), Qt::Key_PageDown);
    }
  }
}

TEST(LessonsPage, PresenterStacksTextAboveTheDemoOnAPortraitScreen) {
  PresenterMode presenter;
  LessonsPage page;
  page.resize(720, 1280);
  page.show();
  settle();
  EXPECT_EQ(page.textOrientation(), Qt::Vertical);
  page.resize(1920, 1080);
  settle();
  EXPECT_EQ(page.textOrientation(), Qt::Horizontal);
}

TEST(LessonsPage, LeavingPresenterModeShowsTheWholeLessonAgain) {
  LessonsPage page;
  page.resize(1280, 720);
  page.show();
  page.showLesson(1);
  const QString whole = page.text()->toPlainText();
  {
    PresenterMode presenter;
    settle();
    EXPECT_LT(page.text()->toPlainText().size(), whole.size());
    EXPECT_TRUE(whole.startsWith(page.text()->toPlainText().left(20)));
  }
  settle();
  EXPECT_EQ(page.text()->toPlainText(), whole);
  EXPECT_TRUE(page.lessonList()->isVisible());
  EXPECT_EQ(page.textOrientation(), Qt::Vertical);
}

// Per-format and per-scale demos are drawn as bars with their values printed.
TEST(LessonsPage, BarDemosAreDrawnAsLabelledBars) {
  LessonsPage page;
  page.show();
  page.showLesson(0);
  page.demoChoice()->setCurrentIndex(page.demoChoice()->findData(QStringLiteral("format-table")));
  QSignalSpy done(&page, &LessonsPage::demoFinished);
  page.runSelectedDemo();
  ASSERT_TRUE(done.wait(60000));
  QBarSeries* bars = page.chart()->bars();
  ASSERT_NE(bars, nullptr);
  EXPECT_TRUE(bars->isLabelsVisible());
  ASSERT_EQ(bars->count(), 2); // exponent bits, mantissa bits
  // FP32, TF32, FP16, BF16, E4M3, E5M2 (IEEE 754 / OCP FP8 field widths).
  const QList<qreal> exponent{8, 8, 5, 8, 4, 5}, mantissa{23, 10, 10, 7, 3, 2};
  QList<qreal> e, m;
  for (int i = 0; i < bars->barSets()[0]->count(); ++i) {
    e << bars->barSets()[0]->at(i);
    m << bars->barSets()[1]->at(i);
  }
  EXPECT_EQ(e, exponent);
  EXPECT_EQ(m, mantissa);
  EXPECT_TRUE(page.chart()->series().empty()); // no lines joining the bars
  const QImage image = page.chart()->grab().toImage();
  EXPECT_FALSE(image.isNull());
}

// Messages Qt prints while a figure is built and painted.
struct QtMessages {
  QtMessages() {
    seen().clear();
    previous = qInstallMessageHandler([](QtMsgType, const QMessageLogContext&, const QString& text) {
      seen() << text;
    });
  }
  ~QtMessages() { qInstallMessageHandler(previous); }
  static QStringList& seen() {
    static QStringList list;
    return list;
  }
  QtMessageHandler previous = nullptr;
};

// Lesson 1's ruler on a log axis: every bar has a height to see (FP32's ULP
// at 1 is 2^-23 = 1.19e-7), a value out of a format's range has no bar and
// no "Logarithms of zero" warning, and E5M2's ULP at 1000 says which gap it
// is: 1000 rounds to 1024 (E5M2 has 2 mantissa bits: the neighbours are 896
// and 1024), whose gap is 256, while the gap in [512, 1024) is 128.
TEST(LessonsPage, UlpRulerBarsAllShowAndE5M2SaysWhichGap) {
  QtMessages messages;
  LessonChart chart;
  chart.resize(1100, 600);
  chart.show();
  const auto demo = lessons::runDemo("ulp-ruler");
  chart.setDemo(demo);
  settle();
  (void)chart.grab(); // painted: every bar's geometry computed
  settle();
  for (const QString& m : QtMessages::seen())
    EXPECT_FALSE(m.contains("Logarithm")) << m.toStdString();
  QBarSeries* bars = chart.bars();
  ASSERT_NE(bars, nullptr);
  const double floor = chart.yAxisMin();
  double smallest = 1e300;
  int present = 0;
  for (const QBarSet* set : bars->barSets())
    for (int i = 0; i < set->count(); ++i)
      if (set->at(i) > floor) {
        smallest = std::min(smallest, set->at(i));
        ++present;
      }
  EXPECT_NEAR(smallest, std::ldexp(1.0, -23), 1e-12);
  EXPECT_GE(std::log10(smallest / floor), 1.0 - 1e-9) << "the smallest bar is at least a decade tall";
  EXPECT_EQ(present, 6 * 3 - 3) << "E4M3 misses 1000 and 65504, E5M2 misses 65504";

  std::string e5m2;
  for (const auto& line : demo.lines)
    if (line.find("E5M2") != std::string::npos)
      e5m2 = line;
  ASSERT_FALSE(e5m2.empty());
  EXPECT_NE(e5m2.find("ULP at 1000: 256"), std::string::npos) << e5m2;
  EXPECT_NE(e5m2.find("1024"), std::string::npos) << e5m2;
  EXPECT_NE(e5m2.find("[512, 1024) the gap is 128"), std::string::npos) << e5m2;
}

// Lesson 2: BF16 and FP16 both stay at w = 1. A line drawn over another is
// thinner and the last one dashed, so the one below still shows.
TEST(LessonsPage, CoincidingLinesBothShow) {
  LessonChart chart;
  chart.setDemo(lessons::runDemo("swamping"));
  const auto lines = chart.series();
  ASSERT_EQ(lines.size(), 3u);
  for (std::size_t i = 1; i < lines.size(); ++i)
    EXPECT_LT(lines[i]->pen().widthF(), lines[i - 1]->pen().widthF()) << "line " << i;
  EXPECT_EQ(lines.back()->pen().style(), Qt::DashLine);
  EXPECT_EQ(lines.front()->pen().style(), Qt::SolidLine);
}

// The Demo box names each demo by its title, not by the id a lesson file uses.
TEST(LessonsPage, DemoChoiceShowsTitles) {
  LessonsPage page;
  page.showLesson(0);
  ASSERT_GT(page.demoChoice()->count(), 0);
  for (int i = 0; i < page.demoChoice()->count(); ++i) {
    const QString id = page.demoChoice()->itemData(i).toString();
    EXPECT_TRUE(lessons::isDemoId(id.toStdString())) << id.toStdString();
    EXPECT_NE(page.demoChoice()->itemText(i), id);
    EXPECT_EQ(page.demoChoice()->itemText(i).toStdString(), lessons::runDemo(id.toStdString()).title);
  }
}

// On a projector the demo's output stays large (it scrolls rather than
// shrinking): near the lesson text's size, never small print.
TEST(LessonsPage, PresenterDemoOutputStaysLarge) {
  PresenterMode presenter;
  LessonsPage page;
  page.resize(1280, 720);
  page.show();
  page.showLesson(0);
  page.demoChoice()->setCurrentIndex(page.demoChoice()->findData(QStringLiteral("ulp-ruler")));
  QSignalSpy done(&page, &LessonsPage::demoFinished);
  page.runSelectedDemo();
  ASSERT_TRUE(done.wait(60000));
  settle();
  const QFontInfo result(page.results()->font());
  const QFontInfo lesson(page.text()->font());
  EXPECT_GE(result.pixelSize(), 0.75 * lesson.pixelSize());
  EXPECT_GE(result.pixelSize(), 18) << "a projector's back row";
}

// The gradient histogram is filled bins, one per binade, under the lines that
// mark where FP16 loses them at each scale.
TEST(LessonsPage, HistogramDemoIsFilledBins) {
  lessons::DemoOutput demo;
  demo.id = "hist";
  demo.series.push_back({"counts", {-30, -29, -28, -26}, {5, 7, 2, 1}, true});
  demo.series.push_back({"edge", {-27.5, -27.5}, {0, 7}, false});
  LessonChart chart;
  chart.setDemo(demo);
  ASSERT_EQ(chart.bins().size(), 1u);
  EXPECT_EQ(chart.bars(), nullptr);
  ASSERT_EQ(chart.series().size(), 1u);
  const auto* upper = chart.bins()[0]->upperSeries();
  ASSERT_EQ(upper->count(), 16); // four corners per bin
  // Bin -26 spans [-26, -25) (width = smallest gap, 1) at height 1.
  EXPECT_EQ(upper->at(12), QPointF(-26, 0));
  EXPECT_EQ(upper->at(13), QPointF(-26, 1));
  EXPECT_EQ(upper->at(14), QPointF(-25, 1));
  EXPECT_EQ(upper->at(15), QPointF(-25, 0));
  EXPECT_EQ(chart.pointCount(), 4 + 2);
}

// Pairs of the chart's texts that overlap on screen (value labels of bars side
// by side, "0.0072" running into "0.0051"), as "a / b".
namespace {

QStringList overlappingTexts(const LessonChart& chart) {
  QList<const QGraphicsTextItem*> texts;
  for (QGraphicsItem* item : chart.view()->scene()->items())
    if (const auto* text = dynamic_cast<const QGraphicsTextItem*>(item);
        text != nullptr && text->isVisible() && !text->toPlainText().trimmed().isEmpty())
      texts << text;
  QStringList out;
  for (qsizetype i = 0; i < texts.size(); ++i)
    for (qsizetype j = i + 1; j < texts.size(); ++j) {
      // Less the text items' own margins: touching boxes are not overlapping ink.
      const QRectF a = texts[i]->sceneBoundingRect().adjusted(2, 2, -2, -2);
      const QRectF b = texts[j]->sceneBoundingRect().adjusted(2, 2, -2, -2);
      if (a.intersects(b))
        out << texts[i]->toPlainText() + QStringLiteral(" / ") + texts[j]->toPlainText();
    }
  return out;
}

} // namespace

// A few samples are marked where the markers stand apart; on an 870 px
// presenter figure (1280x720) 30 of them were a string of 16 px beads (bf16-run).
TEST(LessonsPage, MarkersOnlyWhereTheyStandApart) {
  PresenterMode presenter;
  lessons::DemoOutput demo;
  demo.id = "markers";
  demo.series.push_back({"few", {}, {}, false});
  demo.series.push_back({"many", {}, {}, false});
  for (int i = 0; i < 30; ++i) {
    if (i < 8) {
      demo.series[0].x.push_back(4.0 * i);
      demo.series[0].y.push_back(1.0);
    }
    demo.series[1].x.push_back(i);
    demo.series[1].y.push_back(2.0);
  }
  LessonChart chart;
  chart.resize(870, 400);
  chart.setDemo(demo);
  chart.show();
  ASSERT_EQ(chart.series().size(), 2u);
  EXPECT_TRUE(QTest::qWaitFor([&] { return !chart.series()[1]->pointsVisible(); }, 5000));
  EXPECT_TRUE(chart.series()[0]->pointsVisible());
  chart.resize(1800, 900);
  EXPECT_TRUE(QTest::qWaitFor([&] { return chart.series()[1]->pointsVisible(); }, 5000));
}

// At a 1280x720 projector the figure beside the slide is narrow: the format
// table's "FP8 E4M3" and "FP8 E5M2" break into two lines rather than being
// cut to "FP8...", and so do long titles, axis titles and legend entries
// ("BF16 copy of an FP32 master" was elided to "BF16 copy of an ..."); every
// title, axis title, tick label and legend entry of every lesson's figure
// reads in full, no two texts overlap, and category names keep the presenter
// size (they used to step down to the normal size: "(emulated)" now stands
// upright instead). On a wide screen the categories stay on one line.
TEST(LessonsPage, EveryFigureReadsInFullAt1280x720Presenter) {
  PresenterMode presenter;
  const double presenterLabels = ChartStyle::presenter(false).labelFont().pointSizeF();
  ASSERT_GT(presenterLabels, ChartStyle::screen(false).labelFont().pointSizeF());
  LessonsPage page;
  page.resize(1280, 720);
  page.show();
  for (int lesson = 0; lesson < page.lessonList()->count(); ++lesson) {
    page.showLesson(lesson);
    for (int demo = 0; demo < page.demoChoice()->count(); ++demo) {
      SCOPED_TRACE(testing::Message() << "lesson " << lesson + 1 << " demo "
                                      << page.demoChoice()->itemText(demo).toStdString());
      page.demoChoice()->setCurrentIndex(demo);
      QSignalSpy done(&page, &LessonsPage::demoFinished);
      page.runSelectedDemo();
      ASSERT_TRUE(done.wait(120000));
      // Laid out, texts fitted (queued), laid out again: slower under sanitizers.
      QStringList unreadable;
      const bool readable = QTest::qWaitFor(
          [&] {
            unreadable = unreadableChartTexts(*page.chart()) + overlappingTexts(*page.chart());
            return unreadable.isEmpty();
          },
          5000);
      EXPECT_TRUE(readable) << unreadable.join(u'\n').toStdString();
      const auto horizontal = page.chart()->chart()->axes(Qt::Horizontal);
      if (auto* categories = qobject_cast<QBarCategoryAxis*>(horizontal.value(0))) {
        EXPECT_GE(categories->labelsFont().pointSizeF(), presenterLabels)
            << categories->categories().join(u',').toStdString();
      }
    }
  }
  page.showLesson(0);
  page.demoChoice()->setCurrentIndex(page.demoChoice()->findData(QStringLiteral("format-table")));
  QSignalSpy done(&page, &LessonsPage::demoFinished);
  page.runSelectedDemo();
  ASSERT_TRUE(done.wait(60000));
  auto* axis = qobject_cast<QBarCategoryAxis*>(page.chart()->chart()->axes(Qt::Horizontal).value(0));
  ASSERT_NE(axis, nullptr);
  const auto hasCategory = [axis](const char* text) {
    return QTest::qWaitFor([&] { return axis->categories().contains(QLatin1String(text)); }, 5000);
  };
  EXPECT_TRUE(hasCategory("FP8<br>E4M3")) << axis->categories().join(u',').toStdString();
  page.resize(3840, 2160);
  EXPECT_TRUE(hasCategory("FP8 E4M3")) << axis->categories().join(u',').toStdString();
  EXPECT_TRUE(QTest::qWaitFor([&] { return unreadableChartTexts(*page.chart()).isEmpty(); }, 5000));
}

// A bar figure exports like every chart: the PNG is mostly filled bars of the
// first series colour (a line chart would paint a few hundred pixels), the SVG
// fills with it, the PDF is a PDF, CSV and JSON carry the values and categories.
TEST(LessonsPage, BarFigureExportsToEveryFormat) {
  lessons::DemoOutput demo;
  demo.id = "bars";
  demo.title = "Bars";
  demo.categories = {"x1", "x8", "x32768"};
  demo.series.push_back({"lost to zero", {0, 1, 2}, {75, 25, 0.02}, true});
  LessonChart chart;
  chart.resize(800, 500);
  chart.setDemo(demo);
  ExportOptions options;
  options.size = {1200, 750};
  const QImage png = QImage::fromData(exportBytes(chart, ExportFormat::Png, options), "PNG");
  ASSERT_FALSE(png.isNull());
  const QRgb bar = seriesColor(0).rgb();
  qsizetype filled = 0;
  for (int y = 0; y < png.height(); ++y)
    for (int x = 0; x < png.width(); ++x)
      filled += (png.pixel(x, y) & 0xFFFFFF) == (bar & 0xFFFFFF);
  EXPECT_GT(filled, 20000); // the x1 bar alone is ~100 x 400 px
  const QByteArray svg = exportBytes(chart, ExportFormat::Svg, options);
  EXPECT_TRUE(svg.contains(("fill=\"" + seriesColor(0).name() + "\"").toLatin1())) << svg.left(400).constData();
  EXPECT_TRUE(exportBytes(chart, ExportFormat::Pdf, options).startsWith("%PDF"));
  EXPECT_TRUE(chart.csv().contains(QStringLiteral("\"lost to zero\",0,75\n")));
  const QByteArray json = exportBytes(chart, ExportFormat::Json, options);
  EXPECT_TRUE(json.contains("\"categories\"") && json.contains("x32768")) << json.constData();
}

namespace {

// The [min, max] of a series' y axis and of the chart's x axis.
std::pair<double, double> rangeOf(const QAbstractAxis* axis) {
  if (const auto* log = qobject_cast<const QLogValueAxis*>(axis))
    return {log->min(), log->max()};
  if (const auto* linear = qobject_cast<const QValueAxis*>(axis))
    return {linear->min(), linear->max()};
  return {0.0, 0.0};
}

QAbstractAxis* axisOf(QXYSeries* series, Qt::Orientation orientation) {
  for (QAbstractAxis* axis : series->attachedAxes())
    if (axis->orientation() == orientation)
      return axis;
  return nullptr;
}

} // namespace

// Lesson 4: the loss (nats) and the loss scale (a power of two) each have
// their own axis, the scale's a log2 one, and every point of both stands
// inside the plot, the markers at the ends whole (they shared one axis and
// the last step's markers were cut in half on the plot's edge).
TEST(LessonsPage, LessonFourLossScaleHasItsOwnLog2Axis) {
  LessonChart chart;
  chart.resize(900, 560);
  chart.show();
  const auto demo = lessons::runDemo("bf16-run");
  chart.setDemo(demo);
  ASSERT_EQ(chart.series().size(), 2u);
  QXYSeries* loss = chart.series()[0];
  QXYSeries* scale = chart.series()[1];
  ASSERT_EQ(scale->name(), QStringLiteral("loss scale"));
  QAbstractAxis* lossAxis = axisOf(loss, Qt::Vertical);
  QAbstractAxis* scaleAxis = axisOf(scale, Qt::Vertical);
  ASSERT_NE(lossAxis, nullptr);
  ASSERT_NE(scaleAxis, nullptr);
  EXPECT_NE(lossAxis, scaleAxis);
  const auto* log2 = qobject_cast<const QLogValueAxis*>(scaleAxis);
  ASSERT_NE(log2, nullptr) << "the loss scale's axis is logarithmic";
  EXPECT_EQ(std::fmod(std::log2(log2->base()), 1.0), 0.0) << "ticks at powers of two, base " << log2->base();
  EXPECT_EQ(scaleAxis->alignment(), Qt::AlignRight);
  const auto [x0, x1] = rangeOf(axisOf(loss, Qt::Horizontal));
  for (QXYSeries* series : {loss, scale}) {
    const auto [y0, y1] = rangeOf(axisOf(series, Qt::Vertical));
    // Inside by more than half a marker's share of the plot: no point on an edge.
    const double xMargin = 0.01 * (x1 - x0);
    for (const QPointF& p : series->points()) {
      EXPECT_GT(p.x(), x0 + xMargin) << series->name().toStdString();
      EXPECT_LT(p.x(), x1 - xMargin) << series->name().toStdString();
      EXPECT_GT(p.y(), y0) << series->name().toStdString() << " at step " << p.x();
      EXPECT_LT(p.y(), y1) << series->name().toStdString() << " at step " << p.x();
    }
  }
}

// Lesson 5: sums of positive values are drawn on an axis from 0 up to the
// largest sum (it went down to -2000).
TEST(LessonsPage, LessonFiveSumAxisFitsPositiveSums) {
  LessonChart chart;
  chart.resize(900, 560);
  chart.show();
  const auto demo = lessons::runDemo("accumulation");
  chart.setDemo(demo);
  double largest = 0.0;
  for (const auto& s : demo.series)
    for (double y : s.y) {
      ASSERT_GE(y, 0.0);
      largest = std::max(largest, y);
    }
  ASSERT_FALSE(chart.series().empty());
  const auto [y0, y1] = rangeOf(axisOf(chart.series().front(), Qt::Vertical));
  EXPECT_EQ(y0, 0.0);
  EXPECT_GE(y1, largest);
  EXPECT_LE(y1, 1.5 * largest) << "the axis fits the sums, not far beyond them";
}

// Beside a slide at 1280x720 (an 840 x 440 figure in presenter mode), lesson
// 8's scheme names stand upright and read in full: "mxfp8-e4m3" breaks after
// its hyphen rather than being cut to "mxfp8-e4...".
TEST(LessonsPage, SchemeNamesReadInFullBesideA1280x720Slide) {
  PresenterMode presenter;
  Theme::instance().apply();
  LessonChart chart;
  chart.resize(840, 440);
  chart.show();
  chart.setDemo(lessons::runDemo("fp8-schemes"));
  // Laid out: the scheme names are on the scene (before, nothing is elided
  // because nothing is there).
  const auto drawnNames = [&] {
    int names = 0;
    for (QGraphicsItem* item : chart.view()->scene()->items())
      if (const auto* text = dynamic_cast<const QGraphicsTextItem*>(item);
          text != nullptr && text->isVisible() && text->toPlainText().startsWith(QLatin1String("mx")))
        ++names;
    return names;
  };
  ASSERT_TRUE(QTest::qWaitFor([&] { return drawnNames() >= 5; }, 5000));
  QStringList unreadable;
  const bool readable = QTest::qWaitFor(
      [&] {
        unreadable = unreadableChartTexts(chart) + overlappingTexts(chart);
        return unreadable.isEmpty();
      },
      5000);
  EXPECT_TRUE(readable) << unreadable.join(u'\n').toStdString();
  Theme::instance().setPresenter(false);
  Theme::instance().apply();
}

// Lesson 5's FP16 GEMM figure names eight series; beside a 1280x720 presenter
// slide their row is wider than the figure even broken at the spaces, and Qt
// cut every entry to "N_C ...": the legend goes beside the plot instead, one
// entry under the other, every name whole.
TEST(LessonsPage, ManySeriesLegendReadsInFullBesideA1280x720Slide) {
  PresenterMode presenter;
  Theme::instance().apply();
  LessonChart chart;
  chart.resize(840, 440);
  chart.show();
  chart.setDemo(lessons::runDemo("fp16-accumulation"));
  const auto legendTexts = [&] {
    int n = 0;
    for (QGraphicsItem* item : chart.chart()->legend()->childItems())
      for (QGraphicsItem* inner : item->childItems())
        for (QGraphicsItem* text : inner->childItems())
          if (const auto* t = dynamic_cast<const QGraphicsTextItem*>(text); t != nullptr && t->isVisible() &&
                                                                           !t->toPlainText().isEmpty())
            ++n;
    return n;
  };
  ASSERT_TRUE(QTest::qWaitFor([&] { return legendTexts() >= 8; }, 5000)) << legendTexts();
  QStringList unreadable;
  const bool readable = QTest::qWaitFor(
      [&] {
        unreadable = unreadableChartTexts(chart);
        return unreadable.isEmpty();
      },
      5000);
  EXPECT_TRUE(readable) << unreadable.join(u'\n').toStdString();
  Theme::instance().setPresenter(false);
  Theme::instance().apply();
}

// Next Demo Step (F7): the first press runs the selected demo and shows its
// first step; every press after that shows exactly one step more, the
// figure and the lines being the core's demoAtStep for that step; past the
// last step the demo stays complete.
TEST(LessonsPage, NextDemoStepKeyAdvancesTheDemoOneStepPerPress) {
  LessonsPage page;
  page.resize(1280, 720);
  page.show();
  page.activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(&page));
  int lesson = -1;
  for (int i = 0; i < page.lessonList()->count() && lesson < 0; ++i) {
    page.showLesson(i);
    if (page.demoChoice()->findData(QStringLiteral("scaler-walk")) >= 0)
      lesson = i;
  }
  ASSERT_GE(lesson, 0) << "no lesson has the scaler-walk demo";
  page.demoChoice()->setCurrentIndex(page.demoChoice()->findData(QStringLiteral("scaler-walk")));
  EXPECT_EQ(page.nextStepAction()->shortcut(), QKeySequence(Qt::Key_F7));
  EXPECT_EQ(page.demoStep(), 0);

  const lessons::DemoOutput full = lessons::runDemo("scaler-walk");
  const int steps = lessons::demoStepCount(full);
  ASSERT_GE(steps, 5);
  const auto shows = [&](int step) {
    const lessons::DemoOutput at = lessons::demoAtStep(full, step);
    EXPECT_EQ(page.demoStep(), step);
    EXPECT_EQ(page.results()->toPlainText().toStdString(), [&] {
      std::string text;
      for (const auto& l : at.lines) text += (text.empty() ? "" : "\n") + l;
      return text;
    }()) << "step " << step;
    ASSERT_EQ(page.chart()->series().size(), at.series.size());
    ASSERT_EQ(page.chart()->series()[0]->count(), qsizetype(at.series[0].x.size())) << "step " << step;
    EXPECT_EQ(page.chart()->series()[0]->count(), step) << "one scaler step per point";
    const QPointF last = page.chart()->series()[0]->at(step - 1);
    EXPECT_EQ(last.x(), at.series[0].x.back());
    EXPECT_EQ(last.y(), at.series[0].y.back());
  };

  page.text()->setFocus();
  QSignalSpy done(&page, &LessonsPage::demoFinished);
  QTest::keyClick(page.text(), Qt::Key_F7); // runs the demo, then its first step
  ASSERT_TRUE(done.wait(60000));
  shows(1);
  for (int step = 2; step <= steps; ++step) {
    QTest::keyClick(page.text(), Qt::Key_F7);
    shows(step);
    if (::testing::Test::HasFailure())
      return;
  }
  QTest::keyClick(page.text(), Qt::Key_F7); // past the end: still complete
  shows(steps);
  EXPECT_EQ(done.count(), 1) << "stepping never reruns the demo";

  // Run it shows the whole demo again; the next F7 starts over at step 1.
  QTest::mouseClick(page.runButton(), Qt::LeftButton);
  ASSERT_TRUE(done.wait(60000));
  EXPECT_EQ(page.demoStep(), 0);
  EXPECT_EQ(page.chart()->series()[0]->count(), qsizetype(full.series[0].x.size()));
  QTest::keyClick(page.text(), Qt::Key_F7);
  shows(1);
}

// A demo of categories (bars) has no steps: F7 runs it and shows it whole.
TEST(LessonsPage, NextDemoStepShowsABarDemoWhole) {
  LessonsPage page;
  page.show();
  page.showLesson(0);
  const int table = page.demoChoice()->findData(QStringLiteral("format-table"));
  ASSERT_GE(table, 0);
  page.demoChoice()->setCurrentIndex(table);
  QSignalSpy done(&page, &LessonsPage::demoFinished);
  page.nextStepAction()->trigger();
  ASSERT_TRUE(done.wait(60000));
  EXPECT_EQ(page.demoStep(), 0);
  EXPECT_EQ(page.demoStepCount(), 0);
  page.nextStepAction()->trigger();
  EXPECT_EQ(page.demoStep(), 0);
}
