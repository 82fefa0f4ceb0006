// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/app_shell/main_window.h"

#include "ui/app_shell/about_dialog.h"
#include "ui/app_shell/laser_pointer.h"
#include "ui/app_shell/run_files.h"
#include "ui/app_shell/settings.h"
#include "ui/app_shell/threads_menu.h"
#include "ui/app_shell/theme.h"
#include "ui/app_shell/view_export.h"
#include "ui/formats/float_explorer.h"
#include "ui/lessons/exercises_page.h"
#include "ui/lessons/lessons_page.h"
#include "ui/model/model_page.h"
#include "ui/panels/speed_panel.h"
#include "ui/panels/sweep_panel.h"
#include "ui/panels/train_panel.h"
#include "ui/panels/train_panel_setup.h"

#include <mantissa/kernels/threads.h>
#include <mantissa/numeric/cpu_features.h>
#include <mantissa/numeric/format.h>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QLineEdit>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QResizeEvent>
#include <QScreen>
#include <QSet>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace mantissa::ui {

namespace {

// The status line's run progress: on a narrow window (1280x720 in presenter
// mode) it takes the room the CPU facts leave and ends in "…" (the whole text
// in its tooltip) instead of being drawn over them.
class ElidingLabel : public QLabel {
public:
  void setFullText(const QString& text) {
    m_full = text;
    setToolTip(text);
    fit();
    updateGeometry();
  }
  QSize minimumSizeHint() const override { return {0, QLabel::minimumSizeHint().height()}; }
  QSize sizeHint() const override {
    return {fontMetrics().horizontalAdvance(m_full) + 8, QLabel::sizeHint().height()};
  }

protected:
  void resizeEvent(QResizeEvent* event) override {
    QLabel::resizeEvent(event);
    fit();
  }

private:
  void fit() { setText(fontMetrics().elidedText(m_full, Qt::ElideRight, std::max(0, width() - 4))); }
  QString m_full;
};

} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("Mantissa"));
  setObjectName(QStringLiteral("MainWindow"));
  setMinimumSize(minimumWindowSize());
  m_pages = new QTabWidget;
  m_pages->setDocumentMode(true);
  m_pages->setObjectName(QStringLiteral("pages"));
  setCentralWidget(m_pages);

  buildMenus();
  buildStatusBar();
  restoreSettings();

  // One line per big view, in tab order.
  auto* train = new TrainPanel;
  addPage(train, tr("Train"));
  connect(train, &TrainPanel::statusTextChanged, this, &MainWindow::setStatusDetail);
  // View > Precision Sweep…: the Train page's floating sweep dock.
  m_viewMenu->addSeparator();
  QAction* sweep = m_viewMenu->addAction(tr("Precision &Sweep…"));
  sweep->setToolTip(tr("Lower a GPT's op classes one at a time and rank what each costs"));
  connect(sweep, &QAction::triggered, this, [this, train] {
    m_pages->setCurrentWidget(train);
    train->showSweep();
  });
  // View > Check Against Reference Now: the Train page's shadow pass on demand.
  m_viewMenu->addAction(train->shadowViewAction());
  m_viewMenu->addAction(train->checkShadowAction());
  for (QAction* a : {train->shadowViewAction(), train->checkShadowAction()})
    connect(a, &QAction::triggered, this, [this, train] { m_pages->setCurrentWidget(train); });
  // Open Run… / Save Run… / Export Report… / Export Run Charts… at the top of File.
  m_runFiles = new RunFiles(m_fileMenu, train, this);
  connect(m_runFiles, &RunFiles::runOpened, this, [this, train] { m_pages->setCurrentWidget(train); });
  addPage(new FloatExplorer, tr("Explorer"));
  // Lessons link into the Explorer (a value) and the Train page (a preset).
  auto* lessons = new LessonsPage;
  addPage(lessons, tr("Lessons"));
  connect(lessons, &LessonsPage::explorerRequested, this, [this](const QString& value, const QString& format) {
    if (auto* explorer = qobject_cast<FloatExplorer*>(page(tr("Explorer")))) {
      m_pages->setCurrentWidget(explorer);
      if (const auto id = numeric::parseFormatName(format.toStdString()))
        explorer->selectFormat(*id);
      explorer->input()->setText(value);
      emit explorer->input()->returnPressed();
    }
  });
  connect(lessons, &LessonsPage::presetRequested, this, [this, train](const QString& preset) {
    train->setup()->applyPreset(preset);
    m_pages->setCurrentWidget(train);
  });
  // A lesson's sweep: the dock's form filled in, its own folder, not started
  // (a sweep already running keeps its form: the dock is only shown).
  connect(lessons, &LessonsPage::sweepRequested, this,
          [this, train](const QString& lessonId, const mantissa::lessons::LessonSweep& s) {
            m_pages->setCurrentWidget(train);
            SweepPanel* panel = train->sweep();
            if (panel->running()) {
              train->showSweep();
              return;
            }
            const auto joined = [](const std::vector<std::string>& list) {
              QStringList out;
              for (const auto& item : list) out << QString::fromStdString(item);
              return out.join(QLatin1Char(','));
            };
            panel->setModel(QString::fromStdString(s.model));
            panel->setSteps(s.steps);
            panel->setFormats(joined(s.formats));
            panel->setOps(joined(s.ops));
            panel->setSeeds(s.seeds);
            panel->setBudget(s.budget);
            panel->setResume(false);
            QString folder = lessonId;
            for (QChar& c : folder)
              if (!(c.isLetterOrNumber() && c.unicode() < 128) && c != QLatin1Char('-') && c != QLatin1Char('_'))
                c = QLatin1Char('-');
            panel->setOutputFolder(QDir::home().filePath(QStringLiteral("mantissa-sweep-") + folder));
            train->showSweep();
          });
  auto* exercises = new ExercisesPage;
  addPage(exercises, tr("Exercises"));
  m_fileMenu->insertAction(m_exportAction, lessons->openFolderAction());
  // Next Demo Step beside the other presenter keys; it brings the lesson to the screen.
  m_viewMenu->addAction(lessons->nextStepAction());
  connect(lessons->nextStepAction(), &QAction::triggered, this,
          [this, lessons] { m_pages->setCurrentWidget(lessons); });
  connect(lessons, &LessonsPage::exercisesRequested, this, [this, exercises](const mantissa::lessons::SheetSpec& spec) {
    exercises->startSheet(spec);
    m_pages->setCurrentWidget(exercises);
  });
  // File > Open Model… shows the Model page, then asks for the file.
  auto* model = new ModelPage;
  addPage(model, tr("Model"));
  m_fileMenu->insertAction(m_exportAction, model->openAction());
  connect(model->openAction(), &QAction::triggered, this, [this, model] { m_pages->setCurrentWidget(model); });
  connect(model, &ModelPage::explorerRequested, this, [this](const QString& value, const QString& format) {
    if (auto* explorer = qobject_cast<FloatExplorer*>(page(tr("Explorer")))) {
      m_pages->setCurrentWidget(explorer);
      if (const auto id = numeric::parseFormatName(format.toStdString()))
        explorer->selectFormat(*id);
      explorer->input()->setText(value);
      emit explorer->input()->returnPressed();
    }
  });
  addPage(new SpeedPanel, tr("Speed"));
}

// The pages are deleted by ~QWidget, after this class's part is gone: the
// Train page's last drain (in ~TrainPanel) emits statusTextChanged, which
// must not reach setStatusDetail on a half-destroyed window (UBSan: downcast
// of a QWidget to MainWindow). Cut every connection from a child to us first.
MainWindow::~MainWindow() {
  for (QObject* child : findChildren<QObject*>())
    disconnect(child, nullptr, this, nullptr);
}

int MainWindow::addPage(QWidget* page, const QString& title, const QIcon& icon) {
  const int index = m_pages->addTab(page, icon, title);
  if (title == m_pageToRestore)
    m_pages->setCurrentIndex(index);
  return index;
}

QWidget* MainWindow::page(const QString& title) const {
  for (int i = 0; i < m_pages->count(); ++i)
    if (m_pages->tabText(i) == title)
      return m_pages->widget(i);
  return nullptr;
}

void MainWindow::setStatusDetail(const QString& text) {
  static_cast<ElidingLabel*>(m_statusDetail)->setFullText(text);
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  m_fileMenu = file;
  m_exportAction = file->addAction(tr("&Export Current View…"));
  m_exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  m_exportAction->setToolTip(tr("Save the current view as PNG, SVG or PDF"));
  connect(m_exportAction, &QAction::triggered, this, &MainWindow::exportWithDialog);
  file->addSeparator();
  m_threadsMenu = new ThreadsMenu(this);
  file->addMenu(m_threadsMenu);
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"));
  quit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
  quit->setMenuRole(QAction::QuitRole);
  connect(quit, &QAction::triggered, this, &QWidget::close);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  m_viewMenu = view;
  auto* themes = new QActionGroup(this);
  m_lightAction = view->addAction(tr("&Light Theme"));
  m_darkAction = view->addAction(tr("&Dark Theme"));
  for (QAction* a : {m_lightAction, m_darkAction}) {
    a->setCheckable(true);
    themes->addAction(a);
  }
  m_lightAction->setChecked(true);
  m_lightAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
  m_darkAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
  connect(m_darkAction, &QAction::toggled, this, &MainWindow::setDarkTheme);
  view->addSeparator();
  m_presenterAction = view->addAction(tr("&Presenter Mode"));
  m_presenterAction->setCheckable(true);
  m_presenterAction->setShortcuts(
      {QKeySequence(Qt::Key_F5), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P)});
  m_presenterAction->setToolTip(
      tr("Full screen, large type, thick lines and high contrast for a projector"));
  connect(m_presenterAction, &QAction::toggled, this, &MainWindow::setPresenterMode);
  view->addAction((new LaserPointer(this))->action());
  QAction* leave = new QAction(this);
  leave->setShortcut(QKeySequence(Qt::Key_Escape));
  connect(leave, &QAction::triggered, this, [this] {
    if (m_presenterAction->isChecked())
      m_presenterAction->setChecked(false);
  });
  addAction(leave);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* keys = help->addAction(tr("&Keyboard Shortcuts"));
  keys->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
  connect(keys, &QAction::triggered, this, &MainWindow::showShortcuts);
  QAction* about = help->addAction(tr("&About Mantissa"));
  about->setMenuRole(QAction::AboutRole);
  connect(about, &QAction::triggered, this, [this] {
    AboutDialog dialog(this);
    dialog.exec();
  });
}

void MainWindow::buildStatusBar() {
  const auto& cpu = numeric::cpuFeatures();
  QStringList isa;
  if (cpu.avx512f)
    isa << QStringLiteral("AVX512F");
  if (cpu.avx2)
    isa << QStringLiteral("AVX2");
  if (cpu.fma)
    isa << QStringLiteral("FMA");
  if (cpu.f16c)
    isa << QStringLiteral("F16C");
  if (cpu.amxBf16 && cpu.amxTile)
    isa << QStringLiteral("AMX");
  const QString isaText = isa.isEmpty() ? tr("no vector ISA") : isa.join(u' ');
  const auto facts = [this, isaText] {
    const int threads = kernels::kernelThreads();
    return tr("CPU: %1  ·  %2  ·  %3")
        .arg(isaText, bf16SupportText(),
             threads == 1 ? tr("1 thread") : tr("%1 threads").arg(threads));
  };
  m_statusFacts = new QLabel(facts());
  connect(m_threadsMenu, &ThreadsMenu::threadsChosen, m_statusFacts,
          [this, facts] { m_statusFacts->setText(facts()); });
  m_statusFacts->setObjectName(QStringLiteral("statusFacts"));
  m_statusFacts->setToolTip(QString::fromStdString(numeric::describeIsa()));
  m_statusDetail = new ElidingLabel;
  m_statusDetail->setObjectName(QStringLiteral("statusDetail"));
  m_statusDetail->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  statusBar()->addWidget(m_statusFacts);
  statusBar()->addPermanentWidget(m_statusDetail, 1);
}

void MainWindow::setDarkTheme(bool dark) {
  if (m_darkAction->isChecked() != dark)
    (dark ? m_darkAction : m_lightAction)->setChecked(true);
  Theme::instance().setDark(dark);
  Settings().setDarkTheme(dark);
}

void MainWindow::setPresenterMode(bool on) {
  if (m_presenterAction->isChecked() != on) {
    m_presenterAction->setChecked(on); // re-enters through toggled()
    return;
  }
  if (Theme::instance().presenter() != on) {
    if (on && !isFullScreen()) {
      m_wasMaximized = isMaximized();
      m_geometryBeforePresenter = isMaximized() ? normalGeometry() : geometry();
    }
    Theme::instance().setPresenter(on);
    if (on) {
      showFullScreen();
    } else if (isFullScreen()) {
      m_wasMaximized ? showMaximized() : showNormal();
      // Once the normal type has reached every widget (Qt posts font
      // changes) and the pages have relaid out: shown normal under presenter
      // type, the window took the presenter minimum size (1312 px wide on a
      // 1280 px screen, its title bar off the screen) and kept it.
      QMetaObject::invokeMethod(this, [this] {
        QMetaObject::invokeMethod(this, &MainWindow::restoreNormalGeometry, Qt::QueuedConnection);
      }, Qt::QueuedConnection);
    }
  }
  Settings().setPresenterMode(on);
}

void MainWindow::restoreNormalGeometry() {
  if (Theme::instance().presenter() || isFullScreen() || isMaximized() ||
      !m_geometryBeforePresenter.isValid())
    return;
  setGeometry(m_geometryBeforePresenter);
  m_geometryBeforePresenter = QRect();
}

// A geometry saved on another screen (a 1080p desktop, then a 720p
// projector) is cut to this screen's available area, its title bar on it.
void MainWindow::fitToScreen() {
  if (isFullScreen() || isMaximized())
    return;
  const QRect available = screen()->availableGeometry();
  const QRect inner = geometry();
  const QRect outer = frameGeometry();
  const QMargins frame(inner.left() - outer.left(), inner.top() - outer.top(),
                       outer.right() - inner.right(), outer.bottom() - inner.bottom());
  const QSize size = inner.size().boundedTo(available.size().shrunkBy(frame));
  const QSize outerSize = size.grownBy(frame);
  const int x = std::clamp(outer.left(), available.left(),
                           std::max(available.left(), available.right() + 1 - outerSize.width()));
  const int y = std::clamp(outer.top(), available.top(),
                           std::max(available.top(), available.bottom() + 1 - outerSize.height()));
  if (size != inner.size())
    resize(size);
  if (QPoint(x, y) != outer.topLeft())
    move(x, y);
}

void MainWindow::restoreSettings() {
  Settings settings;
  m_pageToRestore = settings.lastPage();
  if (restoreGeometry(settings.windowGeometry())) {
    fitToScreen();
  } else {
    const QRect available = screen()->availableGeometry();
    resize(QSize(1600, 1000).boundedTo(available.size() * 0.92));
    move(available.center() - rect().center());
  }
  restoreState(settings.windowState());
  Theme::instance().apply();
  if (settings.darkTheme())
    m_darkAction->setChecked(true); // applies through setDarkTheme()
  if (settings.presenterMode())
    m_presenterAction->setChecked(true);
}

void MainWindow::saveSettings() {
  Settings settings;
  if (!isFullScreen())
    settings.setWindowGeometry(saveGeometry());
  settings.setWindowState(saveState());
  if (m_pages->currentIndex() >= 0)
    settings.setLastPage(m_pages->tabText(m_pages->currentIndex()));
  settings.setDarkTheme(m_darkAction->isChecked());
  settings.setPresenterMode(m_presenterAction->isChecked());
  settings.sync();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  saveSettings();
  QMainWindow::closeEvent(event);
}

QString MainWindow::exportCurrentPage(const QString& path) {
  QWidget* current = m_pages->currentWidget();
  if (!current)
    return tr("There is no view to export.");
  return exportWidget(current, path);
}

void MainWindow::exportWithDialog() {
  const int index = m_pages->currentIndex();
  const QString base = index >= 0 ? m_pages->tabText(index).toLower() : QStringLiteral("view");
  const QString dir = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
  QString selectedFilter;
  QString path = QFileDialog::getSaveFileName(this, tr("Export Current View"),
                                              dir + u'/' + base + QStringLiteral(".png"),
                                              exportFileFilter(), &selectedFilter);
  if (path.isEmpty())
    return;
  const QString problem = exportCurrentPage(path);
  if (!problem.isEmpty())
    QMessageBox::warning(this, tr("Export failed"), problem);
  else
    statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
}

void MainWindow::showShortcuts() {
  QString html = QStringLiteral("<table cellspacing=6>");
  QSet<const QAction*> listed; // an action both in a menu and on its page: once
  auto addRows = [&html, &listed](const QList<QAction*>& actions) {
    for (const QAction* a : actions) {
      if (a->shortcuts().isEmpty() || a->text().isEmpty() || listed.contains(a))
        continue;
      listed.insert(a);
      QStringList keys;
      for (const QKeySequence& k : a->shortcuts())
        keys << k.toString(QKeySequence::NativeText);
      QString text = a->text();
      text.remove(u'&');
      html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                  .arg(keys.join(QStringLiteral(", ")).toHtmlEscaped(), text.toHtmlEscaped());
    }
  };
  for (QAction* menu : menuBar()->actions())
    if (menu->menu())
      addRows(menu->menu()->actions());
  html += QStringLiteral("<tr><td><b>Esc</b></td><td>%1</td></tr>").arg(tr("Leave presenter mode"));
  for (int i = 0; i < m_pages->count(); ++i) {
    const QList<QAction*> pageActions = m_pages->widget(i)->actions();
    if (pageActions.isEmpty())
      continue;
    html += QStringLiteral("<tr><td colspan=2><br><b><i>%1</i></b></td></tr>")
                .arg(m_pages->tabText(i).toHtmlEscaped());
    addRows(pageActions);
  }
  html += QStringLiteral("</table>");

  QDialog dialog(this);
  dialog.setWindowTitle(tr("Keyboard Shortcuts"));
  auto* layout = new QVBoxLayout(&dialog);
  auto* label = new QLabel(html);
  label->setTextFormat(Qt::RichText);
  layout->addWidget(label);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  layout->addWidget(buttons);
  dialog.exec();
}

} // namespace mantissa::ui
