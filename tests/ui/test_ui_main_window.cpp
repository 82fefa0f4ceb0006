// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The application shell: tabs, theme and presenter toggles that persist
// through QSettings (test mode), and exporting the current view.

#include "ui/app_shell/about_dialog.h"
#include "ui/app_shell/main_window.h"
#include "ui/app_shell/settings.h"
#include "ui/app_shell/theme.h"
#include "ui/app_shell/threads_menu.h"
#include "ui/formats/float_explorer.h"
#include "ui/lessons/lessons_page.h"
#include "ui/panels/speed_panel.h"

#include <mantissa/kernels/matmul_path.h>
#include <mantissa/kernels/threads.h>
#include <mantissa/numeric/cpu_features.h>

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QImage>
#include <QHash>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QXmlStreamReader>

#include <gtest/gtest.h>

namespace mantissa::ui {
namespace {

class MainWindowTest : public ::testing::Test {
protected:
  void SetUp() override {
    QSettings().clear();
    Theme::instance().setDark(false);
    Theme::instance().setPresenter(false);
  }
  void TearDown() override { QSettings().clear(); }
};

TEST_F(MainWindowTest, OpensWithTheExplorerTabAndTheCpuStatus) {
  MainWindow window;
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  ASSERT_GE(window.pages()->count(), 1);
  QStringList titles;
  for (int i = 0; i < window.pages()->count(); ++i)
    titles << window.pages()->tabText(i);
  EXPECT_TRUE(titles.contains("Explorer")) << titles.join(", ").toStdString();
  EXPECT_NE(qobject_cast<FloatExplorer*>(window.page("Explorer")), nullptr);
  auto* facts = window.findChild<QLabel*>("statusFacts");
  ASSERT_NE(facts, nullptr);
  EXPECT_TRUE(facts->text().contains("BF16")) << facts->text().toStdString();
  EXPECT_TRUE(facts->text().contains("threads")) << facts->text().toStdString();
}

// One source for "Native BF16": the About dialog, the status bar and the
// Speed page show the very label kernels::bf16Support() decides (CPUID and
// oneDNN's chosen kernel); --version and the run log are checked in the CLI
// tests.
TEST_F(MainWindowTest, Bf16LabelIsTheSameInAboutStatusBarAndSpeedPage) {
  const QString label = QString::fromStdString(kernels::bf16Support().label);
  ASSERT_FALSE(label.isEmpty());
  MainWindow window;
  auto* facts = window.findChild<QLabel*>("statusFacts");
  ASSERT_NE(facts, nullptr);
  EXPECT_TRUE(facts->text().contains(label)) << facts->text().toStdString();
  AboutDialog about;
  auto* body = about.findChild<QTextBrowser*>();
  ASSERT_NE(body, nullptr);
  EXPECT_TRUE(body->toPlainText().contains(label)) << body->toPlainText().toStdString();
  SpeedPanel speed(bench::BenchOptions::tiny());
  auto* machine = speed.findChild<QLabel*>("speedMachine");
  ASSERT_NE(machine, nullptr);
  EXPECT_TRUE(machine->text().contains(label)) << machine->text().toStdString();
  // Native only where the CPU has BF16 arithmetic.
  if (!numeric::cpuFeatures().avx512bf16 && !numeric::cpuFeatures().amxBf16) {
    EXPECT_FALSE(label.contains("Native"));
  }
}

TEST_F(MainWindowTest, AddPageIsOneCallAndTheLastPageIsRestored) {
  {
    MainWindow window;
    auto* extra = new QWidget;
    const int index = window.addPage(extra, "Second");
    EXPECT_EQ(window.pages()->widget(index), extra);
    window.pages()->setCurrentIndex(index);
    window.close();
  }
  EXPECT_EQ(Settings().lastPage(), "Second");
  MainWindow again;
  EXPECT_EQ(again.pages()->currentIndex(), 0);
  const int index = again.addPage(new QWidget, "Second");
  EXPECT_EQ(again.pages()->currentIndex(), index);
}

TEST_F(MainWindowTest, DarkThemePersistsThroughSettings) {
  {
    MainWindow window;
    EXPECT_FALSE(window.darkThemeAction()->isChecked());
    window.darkThemeAction()->trigger();
    EXPECT_TRUE(Theme::instance().dark());
    EXPECT_LT(QApplication::palette().color(QPalette::Window).lightness(), 100);
    window.close();
  }
  EXPECT_TRUE(Settings().darkTheme());
  Theme::instance().setDark(false);
  MainWindow again;
  EXPECT_TRUE(again.darkThemeAction()->isChecked());
  EXPECT_TRUE(Theme::instance().dark());
  again.setDarkTheme(false);
  EXPECT_FALSE(Settings().darkTheme());
  EXPECT_GT(QApplication::palette().color(QPalette::Window).lightness(), 200);
}

TEST_F(MainWindowTest, PresenterModeEnlargesTypeThickensLinesAndPersists) {
  const qreal normalSize = QApplication::font().pointSizeF();
  {
    MainWindow window;
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    QTest::keyClick(&window, Qt::Key_F5);
    EXPECT_TRUE(window.presenterAction()->isChecked());
    EXPECT_TRUE(Theme::instance().presenter());
    EXPECT_GT(Theme::instance().penWidthFactor(), 1.0);
    EXPECT_GT(QApplication::font().pointSizeF(), normalSize * 1.2);
    window.close();
  }
  EXPECT_TRUE(Settings().presenterMode());
  MainWindow again;
  EXPECT_TRUE(again.presenterAction()->isChecked());
  again.presenterAction()->trigger();
  EXPECT_FALSE(Theme::instance().presenter());
  EXPECT_DOUBLE_EQ(QApplication::font().pointSizeF(), normalSize);
  EXPECT_FALSE(Settings().presenterMode());
}

// View > Next Demo Step shows its key (F7), no other action of the window
// is bound to a key of another (the Explorer's, the Train page's, the menus'),
// and pressing F7 on another page brings the Lessons page forward a step on.
TEST_F(MainWindowTest, NextDemoStepIsInTheViewMenuWithAKeyOfItsOwn) {
  MainWindow window;
  window.show();
  window.activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
  QAction* step = nullptr;
  for (QAction* menu : window.menuBar()->actions())
    if (menu->menu() && menu->text().remove(u'&') == QStringLiteral("View"))
      for (QAction* a : menu->menu()->actions())
        if (a->text().remove(u'&') == QStringLiteral("Next Demo Step"))
          step = a;
  ASSERT_NE(step, nullptr) << "View > Next Demo Step";
  EXPECT_EQ(step->shortcut(), QKeySequence(Qt::Key_F7));
  QHash<QKeySequence, QString> owner;
  for (QAction* a : window.findChildren<QAction*>())
    for (const QKeySequence& k : a->shortcuts()) {
      const QString name = a->text().remove(u'&');
      EXPECT_FALSE(owner.contains(k)) << k.toString().toStdString() << ": " << owner.value(k).toStdString()
                                      << " and " << name.toStdString();
      owner.insert(k, name);
    }
  auto* lessons = qobject_cast<LessonsPage*>(window.page(QStringLiteral("Lessons")));
  ASSERT_NE(lessons, nullptr);
  window.pages()->setCurrentWidget(window.page(QStringLiteral("Explorer")));
  QSignalSpy done(lessons, &LessonsPage::demoFinished);
  QTest::keyClick(&window, Qt::Key_F7);
  EXPECT_EQ(window.pages()->currentWidget(), lessons);
  ASSERT_TRUE(done.wait(60000));
  EXPECT_EQ(lessons->demoStep(), lessons->demoStepCount() > 0 ? 1 : 0);
}

TEST_F(MainWindowTest, ExportsTheCurrentViewAsPngSvgAndPdf) {
  MainWindow window;
  window.resize(1280, 800);
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QWidget* page = window.pages()->currentWidget();

  const QString png = dir.filePath("view.png");
  EXPECT_EQ(window.exportCurrentPage(png), "");
  QImage image(png);
  ASSERT_FALSE(image.isNull());
  EXPECT_EQ(image.size(), page->size() * 2);

  const QString svg = dir.filePath("view.svg");
  EXPECT_EQ(window.exportCurrentPage(svg), "");
  QFile svgFile(svg);
  ASSERT_TRUE(svgFile.open(QIODevice::ReadOnly));
  QXmlStreamReader xml(&svgFile);
  bool sawSvg = false;
  while (!xml.atEnd())
    if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == u"svg")
      sawSvg = true;
  EXPECT_FALSE(xml.hasError()) << xml.errorString().toStdString();
  EXPECT_TRUE(sawSvg);

  const QString pdf = dir.filePath("view.pdf");
  EXPECT_EQ(window.exportCurrentPage(pdf), "");
  QFile pdfFile(pdf);
  ASSERT_TRUE(pdfFile.open(QIODevice::ReadOnly));
  EXPECT_EQ(pdfFile.read(5), QByteArray("%PDF-"));

  const QString bad = window.exportCurrentPage(dir.filePath("view.bmp"));
  EXPECT_TRUE(bad.contains("view.bmp")) << bad.toStdString();
  const QString unwritable = window.exportCurrentPage("/nonexistent-dir/view.png");
  EXPECT_TRUE(unwritable.contains("/nonexistent-dir/view.png")) << unwritable.toStdString();
  EXPECT_FALSE(QFile::exists("/nonexistent-dir/view.png"));
}

TEST_F(MainWindowTest, AboutNamesVersionsIsaLicencesAndDataAttribution) {
  AboutDialog about;
  auto* body = about.findChild<QTextBrowser*>();
  ASSERT_NE(body, nullptr);
  const QString text = body->toPlainText();
  for (const QString& needle :
       {QStringLiteral("GPL-3.0-or-later"), QStringLiteral("CC BY-SA 3.0"), QStringLiteral("LeCun"),
        QStringLiteral("Cortes"), QStringLiteral("Burges"), QStringLiteral("Juan Cazala"),
        QStringLiteral("Zalando Research"), QString::fromStdString(numeric::onednnVersion()),
        QString::fromStdString(numeric::describeIsa())})
    EXPECT_TRUE(text.contains(needle)) << needle.toStdString();
}

} // namespace
} // namespace mantissa::ui

// File > Compute Threads: choosing a count sets the kernels' thread count,
// is remembered, and comes back in the next window; "Every CPU" returns to
// OpenMP's default.
TEST(MainWindowMenus, ComputeThreadsAreChosenAndRemembered) {
  {
    mantissa::ui::ThreadsMenu menu;
    ASSERT_NE(menu.actionFor(0), nullptr);
    ASSERT_NE(menu.actionFor(1), nullptr);
    EXPECT_EQ(menu.actionFor(mantissa::kernels::availableCpus() + 1), nullptr);
    QSignalSpy chosen(&menu, &mantissa::ui::ThreadsMenu::threadsChosen);
    menu.actionFor(1)->trigger();
    ASSERT_EQ(chosen.count(), 1);
    EXPECT_EQ(chosen.at(0).at(0).toInt(), 1);
    EXPECT_EQ(mantissa::kernels::kernelThreadsSetting(), 1);
    EXPECT_EQ(mantissa::kernels::kernelThreads(), 1);
  }
  mantissa::kernels::setKernelThreads(0);
  mantissa::ui::MainWindow window;
  ASSERT_NE(window.threadsMenu(), nullptr);
  EXPECT_EQ(window.threadsMenu()->chosen(), 1);
  EXPECT_EQ(mantissa::kernels::kernelThreadsSetting(), 1) << "the remembered count is applied";
  EXPECT_TRUE(window.threadsMenu()->actionFor(1)->isChecked());
  auto* facts = window.findChild<QLabel*>("statusFacts");
  ASSERT_NE(facts, nullptr);
  EXPECT_TRUE(facts->text().endsWith("1 thread")) << facts->text().toStdString();
  window.threadsMenu()->actionFor(0)->trigger();
  EXPECT_EQ(mantissa::kernels::kernelThreadsSetting(), 0);
  EXPECT_TRUE(facts->text().endsWith(QString("%1 threads").arg(mantissa::kernels::kernelThreads())) ||
              mantissa::kernels::kernelThreads() == 1)
      << facts->text().toStdString();
  EXPECT_EQ(mantissa::ui::Settings().computeThreads(), 0);
}
