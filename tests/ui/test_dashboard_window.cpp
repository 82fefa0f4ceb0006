// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The main window with the Train page first: after a few real MNIST steps it
// renders non-blank with the expected panels visible; closing it mid-run
// stops and joins every trainer. At the projector sizes (1280x720,
// 1920x1080, normal and presenter) the window keeps the screen's size and
// every chart's titles and tick labels show in full.

#include "chart_text.h"
#include "drain_wait.h"
#include "ui/app_shell/main_window.h"
#include "ui/app_shell/theme.h"
#include "ui/bridge/run_controller.h"
#include "ui/charts/chart_style.h"
#include "ui/charts/histogram_heatmap.h"
#include "ui/charts/loss_chart.h"
#include "ui/charts/steady_label.h"
#include "ui/panels/op_table_panel.h"
#include "ui/panels/train_panel.h"
#include "ui/panels/train_panel_setup.h"

#include <QAction>
#include <QDockWidget>
#include <QHeaderView>
#include <QTableWidget>
#include <QFontMetricsF>
#include <QLabel>
#include <QPushButton>
#include <QImage>
#include <QLineSeries>
#include <QSettings>
#include <QStatusBar>
#include <QTabBar>
#include <QToolButton>
#include <QTabWidget>
#include <QTest>

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace mantissa::ui {
namespace {

TrainPanel* trainPage(MainWindow& w) {
  return qobject_cast<TrainPanel*>(w.page(QStringLiteral("Train")));
}

bool waitFor(TrainPanel& panel, const std::function<bool()>& pred) {
  return waitDrained(*panel.controller(), pred, 60000);
}

TEST(DashboardWindow, TrainIsTheFirstTabAndExplorerStays) {
  QSettings().clear();
  MainWindow w;
  EXPECT_EQ(w.pages()->tabText(0), QStringLiteral("Train"));
  EXPECT_NE(w.page(QStringLiteral("Explorer")), nullptr);
  TrainPanel* train = trainPage(w);
  ASSERT_NE(train, nullptr);
  // First launch: the default, ready to start.
  EXPECT_EQ(train->controller()->state(), RunController::State::Ready);
  ASSERT_EQ(train->controller()->runCount(), 3);
  EXPECT_EQ(train->controller()->runName(0), QStringLiteral("fp32"));
  EXPECT_EQ(train->controller()->runName(1), QStringLiteral("bf16-mixed"));
  EXPECT_EQ(train->controller()->runName(2), QStringLiteral("fp16-mixed"));
  EXPECT_EQ(train->controller()->config(0).model, "mlp:784-256-256-10:relu");
}

TEST(DashboardWindow, RendersNonBlankWithThePanelsAfterAFewSteps) {
  QSettings().clear();
  MainWindow w;
  w.resize(1600, 1000);
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  TrainPanel* train = trainPage(w);
  ASSERT_NE(train, nullptr);
  for (int i = 0; i < 5; ++i)
    train->stepAction()->trigger();
  ASSERT_TRUE(waitFor(*train, [&] {
    for (int r = 0; r < 3; ++r)
      if (train->controller()->record(r).lastStep() < 4)
        return false;
    return true;
  }));
  train->refresh();
  (void)QTest::qWaitFor([&] { return train->lossChart()->shownTrain(QStringLiteral("run1")).size() == 5; }, 5000);
  EXPECT_EQ(train->lossChart()->shownTrain(QStringLiteral("run1")).size(), 5);

  for (const char* name : {"lossChart", "accuracyChart", "histogramChart", "histogramHeatmap",
                           "lossScaleChart", "trainSetup"}) {
    auto* child = train->findChild<QWidget*>(QString::fromLatin1(name));
    ASSERT_NE(child, nullptr) << name;
    EXPECT_TRUE(child->isVisible()) << name;
    EXPECT_GT(child->width(), 150) << name;
    EXPECT_GT(child->height(), 100) << name;
  }

  EXPECT_TRUE(train->findChild<QWidget*>(QStringLiteral("trainToolBar"))->isVisible());

  const QImage image = w.grab().toImage().convertToFormat(QImage::Format_RGB32);
  ASSERT_FALSE(image.isNull());
  double sum = 0, sumSq = 0;
  std::set<QRgb> colours;
  const int stepPx = 3;
  int n = 0;
  for (int y = 0; y < image.height(); y += stepPx)
    for (int x = 0; x < image.width(); x += stepPx) {
      const QRgb p = image.pixel(x, y);
      const double l = 0.299 * qRed(p) + 0.587 * qGreen(p) + 0.114 * qBlue(p);
      sum += l;
      sumSq += l * l;
      colours.insert(p);
      ++n;
    }
  const double mean = sum / n;
  const double stddev = std::sqrt(std::max(0.0, sumSq / n - mean * mean));
  EXPECT_GT(stddev, 20.0);     // text, lines and panels, not one flat fill
  EXPECT_GT(colours.size(), 50u); // three run colours, viridis heat map, text anti-aliasing
  // Each run's colour appears somewhere (its loss curve and legend).
  for (int r = 0; r < 3; ++r) {
    const QColor c = train->controller()->runColor(r);
    bool found = false;
    for (int y = 0; y < image.height() && !found; ++y)
      for (int x = 0; x < image.width() && !found; ++x)
        found = image.pixel(x, y) == c.rgb();
    EXPECT_TRUE(found) << "run " << r;
  }
}

TEST(DashboardWindow, ClosingMidRunStopsEveryTrainer) {
  QSettings().clear();
  MainWindow w;
  w.show();
  TrainPanel* train = trainPage(w);
  ASSERT_NE(train, nullptr);
  auto runs = train->setup()->configs();
  for (auto& r : runs) {
    r.epochs = 0;
    r.steps = 1000000; // far longer than the test
  }
  train->setup()->setConfigs(runs);
  train->startAction()->trigger();
  ASSERT_TRUE(waitFor(*train, [&] { return train->controller()->record(2).lastStep() >= 2; }));
  EXPECT_EQ(train->controller()->state(), RunController::State::Running);
  w.close(); // returns after the trainers have joined
  for (int r = 0; r < 3; ++r)
    EXPECT_EQ(train->controller()->trainerState(r), train::TrainerState::Finished);
  ASSERT_TRUE(train->controller()->record(0).snapshot());
  ASSERT_TRUE(train->controller()->record(0).snapshot()->summary);
  EXPECT_TRUE(train->controller()->record(0).snapshot()->summary->stoppedEarly);
}

QDockWidget* findDock(TrainPanel& train, const char* name) {
  return train.findChild<QDockWidget*>(QLatin1String(name));
}

// The screen sizes a class sees, after a few real steps of the default runs:
// the window is not taller or wider than the screen, and each view of the
// Train page, raised in turn, shows every chart text in full.
void expectReadableAt(QSize screen, bool presenter) {
  QSettings().clear();
  Theme::instance().setPresenter(false);
  MainWindow w;
  w.resize(screen);
  w.show();
  if (presenter) {
    w.setPresenterMode(true);
    w.showNormal(); // the offscreen screen is not the projector's size
    w.resize(screen);
  }
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  TrainPanel* train = trainPage(w);
  ASSERT_NE(train, nullptr);
  auto runs = train->setup()->configs();
  for (auto& r : runs) {
    r.epochs = 0;
    r.steps = 12;
    r.evalEvery = 6;
  }
  train->setup()->setConfigs(runs);
  train->startAction()->trigger();
  // Finished, and every run's summary drained: Finished is stored before the
  // summary is published, and a summary drained later (by the drain timer,
  // up to 500 ms on) lengthens the progress text while it is measured below.
  ASSERT_TRUE(waitFor(*train, [&] {
    RunController& c = *train->controller();
    if (c.state() != RunController::State::Finished || c.record(2).lastStep() != 11)
      return false;
    for (int r = 0; r < c.runCount(); ++r)
      if (!c.record(r).snapshot() || !c.record(r).snapshot()->summary)
        return false;
    return true;
  }));
  // The presenter arrangement and dock sizes settle.
  (void)QTest::qWaitFor([&] { return w.size() == screen; }, 5000);
  EXPECT_EQ(w.size(), screen) << "the window's minimum size does not fit the screen";

  // The toolbar's run progress shows on the toolbar (not in its "»" overflow,
  // where 1280x720 presenter put it), every run named, the text within its width.
  const auto* progress = train->findChild<SteadyTextLine*>(QStringLiteral("trainProgress"));
  ASSERT_NE(progress, nullptr);
  const QWidget* toolbar = progress->parentWidget();
  EXPECT_TRUE(progress->isVisible());
  EXPECT_GE(progress->width(), progress->minimumSizeHint().width());
  EXPECT_LE(progress->geometry().right(), toolbar->width());
  for (int i = 0; i < train->controller()->runCount(); ++i)
    EXPECT_TRUE(progress->text().contains(train->controller()->runName(i))) << progress->text().toStdString();
  EXPECT_LE(progress->fontMetrics().horizontalAdvance(progress->text()), progress->contentsRect().width());

  // As first shown (before a tab is raised, which can widen its group): dock
  // tabs show their whole titles, every tab within the bar's width: no
  // tab hidden behind the scroll arrows ("Histogra" at 1280x720 had to be
  // scrolled to).
  // A tab bar inside a dock behind another tab keeps the size its dock had
  // when last shown, off the page: it is not on screen to read.
  for (const QTabBar* bar : train->findChildren<QTabBar*>()) {
    if (!bar->isVisible() || bar->visibleRegion().isEmpty())
      continue;
    for (int i = 0; i < bar->count(); ++i) {
      const QRect tab = bar->tabRect(i);
      EXPECT_GE(tab.width(), bar->fontMetrics().horizontalAdvance(bar->tabText(i)))
          << bar->tabText(i).toStdString();
      EXPECT_TRUE(tab.left() >= 0 && tab.right() < bar->width())
          << "tab \"" << bar->tabText(i).toStdString() << "\" at " << tab.left() << ".."
          << tab.right() << " in a bar " << bar->width() << " px wide";
    }
    for (const QToolButton* arrow : bar->findChildren<QToolButton*>())
      EXPECT_FALSE(arrow->isVisible()) << "the tab bar scrolls";
  }
  // Every field and button of the run setup shows whole within its dock (the
  // second column of recipe buttons and the model picker were cut by 15-35 px
  // at both sizes: the dock kept a fixed width narrower than its contents).
  {
    const TrainSetup* setup = train->setup();
    findDock(*train, "setupDock")->raise();
    (void)QTest::qWaitFor([&] { return setup->isVisible(); }, 5000);
    const QWidget* viewport = setup->parentWidget();
    ASSERT_NE(viewport, nullptr);
    QStringList cut;
    const auto widerThanView = [&] {
      cut.clear();
      for (const QWidget* child : setup->findChildren<QWidget*>()) {
        if (!child->isVisible() || child->isWindow() || child->width() <= 0)
          continue;
        const int right = child->mapTo(viewport, QPoint(child->width(), 0)).x();
        if (right > viewport->width())
          cut << QStringLiteral("%1 \"%2\": right edge %3 in a view %4 px wide")
                     .arg(QLatin1String(child->metaObject()->className()), child->objectName())
                     .arg(right)
                     .arg(viewport->width());
      }
      return !cut.isEmpty();
    };
    (void)QTest::qWaitFor([&] { return !widerThanView(); }, 5000);
    EXPECT_TRUE(cut.isEmpty()) << cut.join(u'\n').toStdString();
    // On a wide page the recipes take two columns (not one tall list that
    // pushes the fields below out of sight); on a 1280 px page one column
    // leaves the loss curve its width.
    if (!presenter && screen.width() >= 1900) {
      const auto* fp32 = setup->findChild<QPushButton*>(QStringLiteral("recipe_fp32"));
      const auto* bf16 = setup->findChild<QPushButton*>(QStringLiteral("recipe_bf16-mixed"));
      ASSERT_TRUE(fp32 != nullptr && bf16 != nullptr);
      EXPECT_EQ(fp32->y(), bf16->y()) << "one column of recipes in a setup " << setup->width()
                                      << " px wide, on a page " << train->width() << " px wide";
    }
  }
  // On a short page the loss curve (always in sight) is wider than the tab
  // group beside it, which shows one chart at a time (at 1280x720 the loss
  // scale's flat "no scaler" line had the larger share). Not yet at 1024x700,
  // where the histogram dock's control rows hold the group at 394 px and the
  // loss curve gets 318.
  if (!presenter && screen.height() < 800 && screen.width() >= 1178) {
    EXPECT_GT(train->lossChart()->width(), findDock(*train, "lossScaleDock")->width());
  }

  QStringList unreadable = unreadableChartTexts(*train->lossChart());
  for (QDockWidget* dock : train->findChildren<QDockWidget*>()) {
    dock->raise();
    train->redrawAll();
    // Read once the raised view's layout has settled: on a loaded machine the
    // redraw used up a fixed 50 ms wait before the relayout ran (a histogram
    // dock read at 435 px, readable at 446 px 2 ms later). A text that stays
    // cut still fails, after 5 s.
    QStringList cut;
    (void)QTest::qWaitFor(
        [&] {
          cut = unreadableChartTexts(*dock);
          return cut.isEmpty();
        },
        5000);
    unreadable << cut;
    // The heat map paints its own title, wrapped at its spaces: every word
    // fits the width and the plot starts below the whole title.
    if (auto* heat = dock->findChild<HistogramHeatmap*>(); heat != nullptr && heat->isVisible()) {
      const QFontMetricsF title(ChartStyle::fromTheme().titleFont()); // the heat map follows the theme
      const QRectF needed = title.boundingRect(QRectF(0, 0, heat->width(), 1e6), Qt::TextWordWrap,
                                               heat->title());
      bool wordsFit = true;
      for (const QString& word : heat->title().split(u' '))
        wordsFit = wordsFit && title.horizontalAdvance(word) <= heat->width();
      if (!wordsFit || needed.height() > heat->plotRect().top())
        unreadable << QStringLiteral("heat map: cut title \"%1\"").arg(heat->title());
    }
  }
  EXPECT_TRUE(unreadable.isEmpty()) << unreadable.join(u'\n').toStdString();

  // The op table shows each op's precision and the whole time table without
  // a column cut by the edge (the "How" notes may scroll).
  findDock(*train, "opTableDock")->raise();
  const auto columnsFit = [&](const QTableWidget* table, int columns) {
    int right = 0;
    for (int c = 0; c < columns; ++c)
      right += table->horizontalHeader()->sectionSize(c);
    return right <= table->viewport()->width();
  };
  (void)QTest::qWaitFor(
      [&] {
        return train->opTable()->isVisible() && columnsFit(train->opTable()->precisionTable(), 2) &&
               columnsFit(train->opTable()->timeTable(), 3);
      },
      5000);
  for (auto [table, columns] : {std::pair{train->opTable()->precisionTable(), 2},
                                std::pair{train->opTable()->timeTable(), 3}}) {
    int right = 0;
    for (int c = 0; c < columns; ++c)
      right += table->horizontalHeader()->sectionSize(c);
    EXPECT_LE(right, table->viewport()->width()) << table->objectName().toStdString();
  }
  // Every op name shows whole: no word wider than its column.
  {
    const QTableWidget* table = train->opTable()->precisionTable();
    const int width = table->horizontalHeader()->sectionSize(0);
    for (int row = 0; row < table->rowCount(); ++row)
      for (const QString& word : table->item(row, 0)->text().split(u' ', Qt::SkipEmptyParts))
        EXPECT_LE(table->fontMetrics().horizontalAdvance(word), width - 8)
            << "row " << row << ": " << word.toStdString();
  }
  // Too narrow for the notes beside the ops: the selected op's note shows
  // below the table, whole.
  if (const QTableWidget* table = train->opTable()->precisionTable(); table->isColumnHidden(2)) {
    const QLabel* how = train->opTable()->howLabel();
    EXPECT_TRUE(how->isVisible());
    QWidget* cells = const_cast<QTableWidget*>(table)->viewport();
    QTest::mouseClick(cells, Qt::LeftButton, {}, table->visualItemRect(table->item(1, 0)).center());
    EXPECT_TRUE(how->text().contains(table->item(1, 2)->toolTip().toHtmlEscaped()))
        << how->text().toStdString();
  } else {
    // Every "How" note shows whole: wrapped within its column, its row tall enough.
    const int width = table->horizontalHeader()->sectionSize(2);
    const auto rowsFit = [&] {
      for (int row = 0; row < table->rowCount(); ++row)
        if (table->fontMetrics().boundingRect(QRect(0, 0, width - 8, 10000), Qt::TextWordWrap,
                                              table->item(row, 2)->text()).height() > table->rowHeight(row))
          return false;
      return true;
    };
    (void)QTest::qWaitFor(rowsFit, 5000);
    for (int row = 0; row < table->rowCount(); ++row) {
      const QTableWidgetItem* how = table->item(row, 2);
      ASSERT_NE(how, nullptr);
      const QRect needed = table->fontMetrics().boundingRect(QRect(0, 0, width - 8, 10000),
                                                             Qt::TextWordWrap, how->text());
      EXPECT_LE(needed.height(), table->rowHeight(row)) << "row " << row << ": " << how->text().toStdString();
    }
  }

  // The status line's two halves do not overlap, and the CPU facts show whole
  // (once a passing message, such as where a stopped run was saved, is gone).
  w.statusBar()->clearMessage();
  const auto* facts = w.statusBar()->findChild<QLabel*>(QStringLiteral("statusFacts"));
  const auto* detail = w.statusBar()->findChild<QLabel*>(QStringLiteral("statusDetail"));
  ASSERT_NE(facts, nullptr);
  ASSERT_NE(detail, nullptr);
  EXPECT_GE(facts->width(), facts->fontMetrics().horizontalAdvance(facts->text()));
  EXPECT_FALSE(facts->geometry().intersects(detail->geometry()));
  EXPECT_LE(detail->fontMetrics().horizontalAdvance(detail->text()), detail->width());
  w.setPresenterMode(false);
}

TEST(DashboardWindow, EveryChartReadsInFullAt1280x720) { expectReadableAt({1280, 720}, false); }
TEST(DashboardWindow, EveryChartReadsInFullAt1024x700) { expectReadableAt({1024, 700}, false); }
// The window refuses to be made smaller than a size at which every chart
// still reads in full (it had no minimum: dragged small, every tick was "...").
TEST(DashboardWindow, TheWindowsMinimumSizeIsOneWhereEveryChartReads) {
  const QSize minimum = MainWindow::minimumWindowSize();
  {
    MainWindow w;
    EXPECT_EQ(w.minimumSize(), minimum);
    w.show();
    w.resize(640, 400);
    EXPECT_TRUE(QTest::qWaitFor([&] { return w.size() == minimum; }, 5000)) << w.width() << " x " << w.height();
  }
  // A 1280x720 screen less a 48 px panel holds it.
  EXPECT_LE(minimum.width(), 1280);
  EXPECT_LE(minimum.height(), 720 - 48);
  expectReadableAt(minimum, false);
}
TEST(DashboardWindow, EveryChartReadsInFullAt1280x720Presenter) {
  expectReadableAt({1280, 720}, true);
}
TEST(DashboardWindow, EveryChartReadsInFullAtTheDefaultSize) { expectReadableAt({1600, 1000}, false); }
TEST(DashboardWindow, EveryChartReadsInFullAt1920x1080) { expectReadableAt({1920, 1080}, false); }
TEST(DashboardWindow, EveryChartReadsInFullAt1920x1080Presenter) {
  expectReadableAt({1920, 1080}, true);
}

// Full screen on another projector: a presenter window resized across the
// short-screen threshold is re-arranged (histograms below the loss curve on a
// tall screen, in the right-hand tab group on a short one), and leaving
// presenter mode gives back the normal arrangement.
TEST(DashboardWindow, APresenterWindowResizedToAShortScreenTabsTheHistograms) {
  QSettings().clear();
  Theme::instance().setPresenter(false);
  MainWindow w;
  w.resize(1600, 1000);
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  TrainPanel* train = trainPage(w);
  ASSERT_NE(train, nullptr);
  auto dock = [train](const char* name) { return train->findChild<QDockWidget*>(QLatin1String(name)); };
  QDockWidget* scale = dock("lossScaleDock");
  QDockWidget* hist = dock("histogramDock");
  QDockWidget* setup = dock("setupDock");
  ASSERT_TRUE(scale != nullptr && hist != nullptr && setup != nullptr);
  (void)QTest::qWaitFor([&] { return train->dockWidgetArea(hist) == Qt::BottomDockWidgetArea; }, 5000);
  ASSERT_EQ(train->dockWidgetArea(hist), Qt::BottomDockWidgetArea);
  const auto tabbed = [&](QDockWidget* a, QDockWidget* b) { return train->tabifiedDockWidgets(a).contains(b); };

  w.setPresenterMode(true);
  w.showNormal();
  w.resize(1920, 1200);
  (void)QTest::qWaitFor([&] { return w.size() == QSize(1920, 1200) && !tabbed(scale, hist) && tabbed(scale, setup); }, 5000);
  EXPECT_EQ(train->dockWidgetArea(hist), Qt::BottomDockWidgetArea);
  EXPECT_FALSE(tabbed(scale, hist));
  EXPECT_TRUE(tabbed(scale, setup));

  w.resize(1280, 720);
  (void)QTest::qWaitFor([&] { return tabbed(scale, hist) && tabbed(scale, setup); }, 5000);
  EXPECT_TRUE(tabbed(scale, hist));
  EXPECT_TRUE(tabbed(scale, setup));

  w.resize(1920, 1200);
  (void)QTest::qWaitFor([&] { return train->dockWidgetArea(hist) == Qt::BottomDockWidgetArea && !tabbed(scale, hist); }, 5000);
  EXPECT_EQ(train->dockWidgetArea(hist), Qt::BottomDockWidgetArea);
  EXPECT_FALSE(tabbed(scale, hist));

  w.setPresenterMode(false);
  (void)QTest::qWaitFor([&] { return train->dockWidgetArea(setup) == Qt::LeftDockWidgetArea && train->dockWidgetArea(hist) == Qt::BottomDockWidgetArea; }, 5000);
  EXPECT_EQ(train->dockWidgetArea(setup), Qt::LeftDockWidgetArea);
  EXPECT_EQ(train->dockWidgetArea(hist), Qt::BottomDockWidgetArea);
}

} // namespace
} // namespace mantissa::ui
