// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/panels/train_panel.h"
#include "ui/panels/sweep_panel.h"

#include "ui/app_shell/theme.h"
#include "ui/bridge/run_controller.h"
#include "ui/bridge/run_names.h"
#include "ui/charts/histogram_chart.h"
#include "ui/charts/format_overlay_picker.h"
#include "ui/charts/histogram_heatmap.h"
#include "ui/charts/loss_chart.h"
#include "ui/charts/loss_scale_chart.h"
#include "ui/charts/shadow_error_map.h"
#include "ui/charts/steady_label.h"
#include "ui/panels/op_table_panel.h"
#include "ui/panels/train_panel_setup.h"
#include "ui/panels/watch_panel.h"

#include <mantissa/io/json_text.h>
#include <mantissa/telemetry/tensor_scan.h>
#include <mantissa/train/run_config.h>

#include <nlohmann/json.hpp>

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QResizeEvent>
#include <QMessageBox>
#include <QScrollArea>
#include <QSettings>
#include <QScrollBar>
#include <QTabBar>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace mantissa::ui {

namespace {

const QString kDockStateKey = QStringLiteral("train/dockState");
const QString kRunsKey = QStringLiteral("train/runs");
constexpr int kCompactNormalHeight = 800; // compactHeight() outside presenter mode
// 2: accuracy tabbed with the loss scale on small pages; 3: watch and ops
// behind the setup on short pages (an older layout is replaced by the new one).
// 4: the Error view (shadow pass) as a tab beside the heat map.
constexpr int kLayoutVersion = 4;
// A restored layout that gives a shown chart less than this is not kept:
// its axes' ticks end in "…" (the loss curve came back 100 px wide).
constexpr int kLegibleChartWidth = 240;
constexpr int kLegibleChartHeight = 120;

// The message line above the toolbar: as tall as its wrapped text at the
// page's width (a plain word-wrapped QLabel asks for the height of a narrow
// column, leaving blank lines under a one-line message).
// The message line above the toolbar keeps room for three lines, so the
// toolbar under it stays put while messages of one, two or three lines come
// and go (it moved under the pointer); a longer message still gets its height.
class BannerLabel : public QLabel {
public:
  static constexpr int kReservedLines = 3;
  int heightForWidth(int width) const override {
    const QMargins m = contentsMargins();
    const int reserved = kReservedLines * fontMetrics().lineSpacing() + m.top() + m.bottom();
    return std::max(QLabel::heightForWidth(width), reserved);
  }
  QSize sizeHint() const override {
    const int w = parentWidget() != nullptr ? parentWidget()->width() : QLabel::sizeHint().width();
    return {w, heightForWidth(w)};
  }
  QSize minimumSizeHint() const override { return sizeHint(); }

protected:
  void resizeEvent(QResizeEvent* event) override {
    QLabel::resizeEvent(event);
    if (event->size().width() != event->oldSize().width())
      updateGeometry(); // a new width wraps the text to another height
  }
};

} // namespace

TrainPanel::TrainPanel(QWidget* parent) : QMainWindow(parent) {
  setObjectName(QStringLiteral("trainPanel"));
  setWindowFlags(Qt::Widget); // a page inside the application's window
  setDockNestingEnabled(true);
  setDockOptions(AnimatedDocks | AllowNestedDocks | AllowTabbedDocks);
  m_controller = new RunController(this);
  buildActions();
  buildDocks();
  m_defaultLayout = saveState(kLayoutVersion); // arrangeFirstShow() sizes it

  // All on the GUI thread: the controller emits after draining its mailboxes.
  connect(m_controller, &RunController::updated, this, &TrainPanel::refresh);
  connect(m_controller, &RunController::runsChanged, this, &TrainPanel::onRunsChanged);
  connect(m_controller, &RunController::stateChanged, this, &TrainPanel::onStateChanged);
  connect(&Theme::instance(), &Theme::changed, this, &TrainPanel::applyTheme);
  connect(m_setup, &TrainSetup::presetApplied, this,
          [this](const QString& title, const QString& explanation) {
            m_presetNote = QStringLiteral("<b>%1</b> — %2").arg(title.toHtmlEscaped(),
                                                                explanation.toHtmlEscaped());
            m_banner->setText(m_presetNote + tr("<br>Press Start (Ctrl+R)."));
            applySetup();
          });
  connect(m_setup, &TrainSetup::presetEnded, this, [this] {
    m_presetNote.clear();
    if (applySetup().isEmpty())
      m_banner->setText(tr("Ready: %1 runs side by side. Press Start (Ctrl+R), or Step (N) to go "
                           "one step at a time.")
                            .arg(m_controller->runCount()));
  });

  restoreLayout();
  applyTheme();
  const QString problems = applySetup();
  if (problems.isEmpty() && m_presetNote.isEmpty())
    m_banner->setText(tr("Ready: %1 runs side by side. Press Start (Ctrl+R), or Step (N) to go "
                         "one step at a time.")
                          .arg(m_controller->runCount()));
}

TrainPanel::~TrainPanel() {
  for (QDockWidget* dock : findChildren<QDockWidget*>()) // they hide while QWidget deletes them
    disconnect(dock, nullptr, this, nullptr);
  saveLayout();
  m_controller->shutdown();
}

void TrainPanel::buildActions() {
  auto* bar = addToolBar(tr("Training"));
  bar->setObjectName(QStringLiteral("trainToolBar"));
  bar->setMovable(false);
  bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
  auto make = [this, bar](const QString& text, const QKeySequence& key, const QString& tip) {
    auto* a = new QAction(text, this);
    a->setShortcut(key);
    a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    a->setToolTip(QStringLiteral("%1 (%2)").arg(tip, key.toString(QKeySequence::NativeText)));
    addAction(a);
    bar->addAction(a);
    return a;
  };
  m_start = make(tr("Start"), QKeySequence(Qt::CTRL | Qt::Key_R), tr("Build the runs and train"));
  m_pause = make(tr("Pause"), QKeySequence(Qt::Key_Space), tr("Pause or resume every run"));
  m_step = make(tr("Step"), QKeySequence(Qt::Key_N), tr("One optimizer step of every run"));
  m_stopAction = make(tr("Stop"), QKeySequence(Qt::CTRL | Qt::Key_Period),
                      tr("Finish after the current step (the runs stay inspectable)"));
  m_reset = make(tr("Reset"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R),
                 tr("Stop and rebuild the runs from the setup"));
  connect(m_start, &QAction::triggered, this, &TrainPanel::startOrResume);
  connect(m_pause, &QAction::triggered, m_controller, &RunController::togglePause);
  connect(m_step, &QAction::triggered, m_controller, &RunController::stepOnce);
  connect(m_stopAction, &QAction::triggered, m_controller, &RunController::stop);
  connect(m_reset, &QAction::triggered, this, [this] {
    if (!confirmReplaceLoadedRuns())
      return;
    m_controller->shutdown();
    applySetup();
  });
  bar->addSeparator();
  bar->addWidget(new QLabel(tr(" Pace: ")));
  m_pace = new QComboBox;
  m_pace->setObjectName(QStringLiteral("pacePicker"));
  m_pace->setToolTip(tr("How fast the runs train: full speed, or at most this many steps per "
                        "second, slow enough to watch the histograms change. The step times "
                        "and the throughput stay those of full speed."));
  m_pace->addItem(tr("Full speed"), 0.0);
  for (const double pace : {1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0})
    m_pace->addItem(pace == 1.0 ? tr("1 step/s") : tr("%1 steps/s").arg(pace), pace);
  connect(m_pace, &QComboBox::currentIndexChanged, this,
          [this] { m_controller->setPace(m_pace->currentData().toDouble()); });
  bar->addWidget(m_pace);
  bar->addSeparator();
  bar->addWidget(new QLabel(tr(" Inspect run: ")));
  m_runPicker = new QComboBox;
  m_runPicker->setObjectName(QStringLiteral("runPicker"));
  // As wide as the longest name, up to a bound (a longer one is elided, its
  // item's tooltip whole).
  m_runPicker->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_runPicker->setMaximumWidth(m_runPicker->fontMetrics().averageCharWidth() * 48);
  connect(m_runPicker, &QComboBox::currentIndexChanged, this, &TrainPanel::onSelectedRunChanged);
  bar->addWidget(m_runPicker);
  // The rest of the toolbar's width (never in its "»" overflow); a new text
  // repaints the line alone.
  m_progress = new SteadyTextLine;
  m_progress->setObjectName(QStringLiteral("trainProgress"));
  m_progress->setContentsMargins(12, 0, 6, 0);
  bar->addWidget(m_progress);

  m_banner = new BannerLabel;
  m_banner->setObjectName(QStringLiteral("trainBanner"));
  m_banner->setWordWrap(true);
  m_banner->setTextFormat(Qt::RichText);
  m_banner->setContentsMargins(10, 4, 10, 4);
  m_banner->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  m_banner->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
  // The page's full width, above the toolbar: a toolbar would give the
  // word-wrapped message only its narrow size hint.
  setMenuWidget(m_banner);
}

QDockWidget* TrainPanel::addDock(QWidget* widget, const QString& title, const QString& name,
                                 Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, this);
  dock->setObjectName(name);
  m_docks.insert(name, dock);
  dock->setWidget(widget);
  dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  addDockWidget(area, dock);
  // Hidden views are not redrawn (refresh()): bring one up to date when its tab
  // shows. A dock in a tab group that is not the current tab stays isVisible();
  // this signal is what tells.
  connect(dock, &QDockWidget::visibilityChanged, this, [this, dock](bool visible) {
    if (!visible) {
      m_hiddenDocks.insert(dock);
      return;
    }
    m_hiddenDocks.remove(dock);
    QMetaObject::invokeMethod(this, &TrainPanel::refresh, Qt::QueuedConnection);
  });
  return dock;
}

QDockWidget* TrainPanel::dockNamed(const char* name) const {
  return m_docks.value(QLatin1String(name), nullptr);
}

void TrainPanel::buildDocks() {
  m_loss = new LossChart;
  m_loss->setObjectName(QStringLiteral("lossChart"));
  setCentralWidget(m_loss);

  m_setup = new TrainSetup;
  m_setupScroll = new QScrollArea;
  m_setupScroll->setWidget(m_setup);
  m_setupScroll->setWidgetResizable(true);
  m_setupScroll->setObjectName(QStringLiteral("setupScroll"));
  m_setupDock = addDock(m_setupScroll, tr("Setup"), QStringLiteral("setupDock"), Qt::LeftDockWidgetArea);
  // Its rows change width with the font (presenter mode, after the theme's
  // change has reached every widget) and with what they show.
  m_setup->installEventFilter(this);

  m_accuracy = new AccuracyChart;
  m_accuracy->setObjectName(QStringLiteral("accuracyChart"));
  auto* accDock = addDock(m_accuracy, tr("Accuracy"), QStringLiteral("accuracyDock"),
                          Qt::RightDockWidgetArea);
  m_lossScale = new LossScaleChart;
  m_lossScale->setObjectName(QStringLiteral("lossScaleChart"));
  auto* scaleDock = addDock(m_lossScale, tr("Loss scale"), QStringLiteral("lossScaleDock"),
                            Qt::RightDockWidgetArea);
  // Accuracy starts as a tab beside the loss scale, so the page fits 1280x720;
  // fitDocks() gives it its own place when the window is tall enough.
  tabifyDockWidget(scaleDock, accDock);

  auto* histDock = addDock(buildHistogramDock(), tr("Histogram"),
                           QStringLiteral("histogramDock"), Qt::BottomDockWidgetArea);
  m_heatmap = new HistogramHeatmap;
  m_heatmap->setObjectName(QStringLiteral("histogramHeatmap"));
  auto* heatDock = addDock(m_heatmap, tr("Heat map"), QStringLiteral("heatmapDock"),
                           Qt::BottomDockWidgetArea);
  splitDockWidget(histDock, heatDock, Qt::Horizontal);
  tabifyDockWidget(heatDock, buildShadowDock());
  heatDock->raise();

  m_watch = new WatchPanel;
  // On a short normal page it scrolls rather than widening the tab group
  // beside the loss curve (fitWatchWidth()); elsewhere it holds the group open.
  m_watchScroll = new QScrollArea;
  m_watchScroll->setObjectName(QStringLiteral("watchScroll"));
  m_watchScroll->setWidget(m_watch);
  m_watchScroll->setWidgetResizable(true);
  m_watchScroll->setFrameShape(QFrame::NoFrame);
  auto* watchDock = addDock(m_watchScroll, tr("Watch"), QStringLiteral("watchDock"),
                            Qt::RightDockWidgetArea);
  m_opTable = new OpTablePanel;
  auto* opDock = addDock(m_opTable, tr("Ops"), QStringLiteral("opTableDock"),
                         Qt::RightDockWidgetArea);
  tabifyDockWidget(accDock, watchDock);
  tabifyDockWidget(watchDock, opDock);
  // The precision sweep trains runs of its own (train/sweep.h): a floating
  // dock that View > Precision Sweep… opens (showSweep()), hidden until then.
  // As a tab of the right-hand group its tab alone widened the group past
  // the loss curve on small pages; floating, its chart has room.
  m_sweep = new SweepPanel;
  auto* sweepScroll = new QScrollArea;
  sweepScroll->setObjectName(QStringLiteral("sweepScroll"));
  sweepScroll->setWidget(m_sweep);
  sweepScroll->setWidgetResizable(true);
  sweepScroll->setFrameShape(QFrame::NoFrame);
  m_sweepDock = addDock(sweepScroll, tr("Precision sweep"), QStringLiteral("sweepDock"),
                        Qt::RightDockWidgetArea);
  m_sweepDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                           QDockWidget::DockWidgetClosable);
  m_sweepDock->setFloating(true);
  m_sweepDock->hide();
  buildGenerateDock(opDock, {accDock, watchDock});
  buildQuantDocks();
  scaleDock->raise();
  m_histogram->setMinimumHeight(150);
  m_accuracy->setMinimumHeight(160);
  m_heatmap->setMinimumSize(300, 150);

  connect(m_heatmap, &HistogramHeatmap::stepSelected, this, [this](std::int64_t step) {
    m_scrubStep = step;
    m_followLatest->setChecked(false);
    refreshHistogram();
  });
  connect(m_histogram, &HistogramChart::binClicked, this, &TrainPanel::onBinClicked);
  connect(m_histogram, &HistogramChart::showScaledChanged, this, [this] {
    m_heatmapKey.clear(); // the heat map follows the Scaled box
    if (shows(m_heatmap))
      refreshHeatmap();
  });
  connect(m_watch, &WatchPanel::watchRequested, this, [this](int layer, std::int64_t index) {
    if (selectedRun() >= 0)
      m_controller->setWatch(selectedRun(), layer, index);
  });
}

QWidget* TrainPanel::buildHistogramDock() {
  auto* box = new QWidget;
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* row = new QHBoxLayout;
  m_layerPicker = new QComboBox;
  m_layerPicker->setObjectName(QStringLiteral("histogramLayer"));
  // Named layers ("layer 54: h0.attention probs") read whole.
  m_layerPicker->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_classPicker = new QComboBox;
  m_classPicker->setObjectName(QStringLiteral("histogramClass"));
  const std::pair<telemetry::TensorClass, QString> classes[] = {
      {telemetry::TensorClass::WeightGrads, tr("weight gradients")},
      {telemetry::TensorClass::ActivationGrads, tr("activation gradients")},
      {telemetry::TensorClass::Weights, tr("weights")},
      {telemetry::TensorClass::Activations, tr("activations")},
      {telemetry::TensorClass::Updates, tr("weight updates")}};
  for (const auto& [cls, name] : classes)
    m_classPicker->addItem(name, int(cls));
  m_followLatest = new QToolButton;
  m_followLatest->setText(tr("Follow latest"));
  m_followLatest->setCheckable(true);
  m_followLatest->setChecked(true);
  m_followLatest->setToolTip(tr("Show the newest frame; scrub the heat map to look back"));
  connect(m_followLatest, &QToolButton::toggled, this, [this](bool on) {
    if (on)
      m_scrubStep.reset();
    refreshHistogram();
  });
  row->addWidget(m_layerPicker);
  row->addWidget(m_classPicker);
  row->addStretch(1);
  row->addWidget(m_followLatest);
  layout->addLayout(row);
  m_histogram = new HistogramChart;
  m_histogram->setObjectName(QStringLiteral("histogramChart"));
  layout->addWidget(m_histogram, 1);
  // Any other format's regions over the histogram and the heat map: a
  // named one, one the run recorded (--telemetry-formats), or a spec, from
  // the histogram's context menu. Its box opens where the menu was; the
  // picker itself is in no row (each row holds the dock's width at 1280x720).
  m_overlayPicker = new FormatOverlayPicker(this);
  m_overlayPicker->setObjectName(QStringLiteral("formatOverlayPicker"));
  m_overlayPicker->hide();
  connect(m_histogram, &HistogramChart::otherFormatRequested, m_overlayPicker,
          &FormatOverlayPicker::showPopupAt);
  connect(m_overlayPicker, &FormatOverlayPicker::formatChosen, this,
          [this](const std::optional<numeric::FloatFormat>& format) {
            m_histogram->setOverlayFormat(format);
            m_heatmap->setOverlayFormat(format);
          });
  for (QComboBox* c : {m_layerPicker, m_classPicker})
    connect(c, &QComboBox::currentIndexChanged, this, [this] {
      refreshHistogram();
      refreshHeatmap();
    });
  return box;
}

QString TrainPanel::applySetup() {
  QString problems = m_setup->problems();
  if (problems.isEmpty())
    problems = m_controller->setRuns(m_setup->configs());
  if (!problems.isEmpty())
    m_banner->setText(QStringLiteral("<b>%1</b><br>%2")
                          .arg(tr("Cannot build the runs:"),
                               problems.toHtmlEscaped().replace(u'\n', QStringLiteral("<br>"))));
  return problems;
}

void TrainPanel::startOrResume() {
  switch (m_controller->state()) {
  case RunController::State::Paused:
    m_controller->resume();
    return;
  case RunController::State::Running:
    return;
  default:
    break;
  }
  if (!confirmReplaceLoadedRuns())
    return;
  if (applySetup().isEmpty()) {
    m_controller->start();
    m_banner->setText(trainingBanner());
  }
}

QString TrainPanel::trainingBanner() const {
  if (m_controller->hasGptRuns())
    return tr("Training the GPT runs. Space pauses; Generate samples from paused or finished "
              "runs.");
  return m_presetNote.isEmpty()
             ? tr("Training. Space pauses, N steps, Ctrl+. stops; pick the run to inspect above, "
                  "click a histogram bar to watch a weight from it.")
             : m_presetNote;
}

QString TrainPanel::pausedBanner() const {
  const QString note = m_presetNote.isEmpty() || m_controller->hasGptRuns()
                           ? QString()
                           : m_presetNote + QStringLiteral("<br>");
  return note + (m_controller->hasGptRuns()
                     ? tr("<b>Paused.</b> Space resumes, N takes one step, Ctrl+. stops; "
                          "Generate samples from the paused runs.")
                     : tr("<b>Paused.</b> Space resumes, N takes one step, Ctrl+. stops; the "
                          "charts hold still for inspection."));
}

// Loaded runs are read-only: training replaces them, after asking.
bool TrainPanel::confirmReplaceLoadedRuns() {
  if (m_controller->loadedCount() == 0)
    return true;
  return QMessageBox::question(this, tr("Replace the loaded runs?"),
                               tr("Training builds the runs of the setup and closes the %n loaded "
                                  "run(s) on this page (their files stay as they are).",
                                  nullptr, m_controller->loadedCount()),
                               QMessageBox::Ok | QMessageBox::Cancel) == QMessageBox::Ok;
}

void TrainPanel::onRunsChanged() {
  QList<ChartRun> runs;
  {
    // The selection stays on the run it was on (its key), or on a run of the
    // same name (the runs rebuilt), or of the same recipe (a preset's runs
    // carry its settings in their names); else the first run.
    const QSignalBlocker block(m_runPicker);
    m_runPicker->clear();
    int keep = -1, sameRecipe = -1;
    // The recipe part of a name, before the settings that tell runs apart.
    const auto recipeOf = [](const QString& name) { return name.section(QStringLiteral(" · "), 0, 0); };
    for (int i = 0; i < m_controller->runCount(); ++i) {
      const QString name = m_controller->runName(i);
      runs.append({m_controller->runId(i), name, m_controller->runColor(i)});
      m_runPicker->addItem(name, QVariant::fromValue(quint64(m_controller->runKey(i))));
      // Whole, when the box elides it, with every setting of the run.
      m_runPicker->setItemData(i, name + QStringLiteral("\n\n") + m_controller->runSettings(i),
                               Qt::ToolTipRole);
      if (m_controller->runKey(i) == m_selectedKey || (keep < 0 && name == m_selectedName))
        keep = i;
      if (sameRecipe < 0 && !m_selectedName.isEmpty() && recipeOf(name) == recipeOf(m_selectedName))
        sameRecipe = i;
    }
    m_runPicker->setCurrentIndex(keep >= 0 ? keep : sameRecipe >= 0 ? sameRecipe : 0);
  }
  m_loss->setRuns(runs);
  m_accuracy->setRuns(runs);
  m_scrubStep.reset();
  m_followLatest->setChecked(true);
  if (shadowWanted() && m_shadowDock->isHidden())
    showShadowDock();
  m_histogramKey.clear();
  m_heatmapKey.clear();
  m_heatmap->setHistory({}, {});
  m_scaleDrawnStep = -2;
  if (m_controller->loadedCount() > 0) {
    QStringList files;
    QStringList followed;
    for (int i = 0; i < m_controller->runCount(); ++i)
      if (m_controller->follower(i))
        followed << m_controller->runSource(i).toHtmlEscaped();
      else if (m_controller->isLoaded(i))
        files << m_controller->runSource(i).toHtmlEscaped();
    if (followed.isEmpty())
      m_banner->setText(tr("<b>Loaded run(s)</b>, read-only (no training): %1<br>Export from the "
                           "charts or the File menu; Start trains the setup's runs instead.")
                            .arg(files.join(QStringLiteral(", "))));
    else
      m_banner->setText(tr("<b>Following</b> (steps appear as they are written): %1%2<br>Export "
                           "from the charts or the File menu at any time.")
                            .arg(followed.join(QStringLiteral(", ")),
                                 files.isEmpty() ? QString()
                                                 : tr("; loaded: %1").arg(files.join(QStringLiteral(", ")))));
  }
  onSelectedRunChanged();
}

void TrainPanel::rememberSelectedRun() {
  const int run = selectedRun();
  m_selectedKey = run >= 0 ? m_controller->runKey(run) : 0;
  m_selectedName = run >= 0 ? m_controller->runName(run) : QString();
}

void TrainPanel::onSelectedRunChanged() {
  rememberSelectedRun();
  const int run = selectedRun();
  m_runPicker->setToolTip(
      (m_selectedName.isEmpty() ? QString() : m_selectedName + QStringLiteral("\n")) +
      tr("The run the histogram, heat map, loss scale, watch and op table show") +
      (run < 0 ? QString() : QStringLiteral("\n\n") + m_controller->runSettings(run)));
  if (run < 0)
    return;
  const RunFacts& facts = m_controller->facts(run);
  const auto& widths = facts.widths;
  {
    const QSignalBlocker block(m_layerPicker);
    const int previous = m_layerPicker->currentIndex();
    m_layerPicker->clear();
    for (std::size_t l = 0; l + 1 < widths.size(); ++l)
      if (l < facts.layerNames.size()) // a tap's log: the module's name
        m_layerPicker->addItem(tr("layer %1: %2").arg(l).arg(facts.layerNames[l]));
      else
        m_layerPicker->addItem(
            tr("layer %1 (%2→%3)").arg(l).arg(widths[l]).arg(widths[l + 1]));
    if (m_layerPicker->count() > 0) // a GPT's saved log has no layer widths
      m_layerPicker->setCurrentIndex(std::clamp(previous, 0, m_layerPicker->count() - 1));
  }
  {
    // The formats the run records cast fractions for: offered first.
    QStringList offered;
    std::string error;
    if (const auto formats =
            telemetry::parseCastFormatList(m_controller->config(run).telemetryFormats, error))
      for (const numeric::FloatFormat& f : *formats)
        offered << QString::fromStdString(f.name);
    const auto& frames = m_controller->record(run).frames();
    if (offered.isEmpty() && !frames.empty()) // a loaded log: its frames name them
      for (const std::string& name : frames.back()->castFormats)
        offered << QString::fromStdString(name);
    m_overlayPicker->setOfferedFormats(offered);
  }
  m_watch->setModelWidths(widths);
  m_controller->setWatch(run, m_watch->layer(), m_watch->flatIndex());
  QString backend =
      facts.matmuls.empty()
          ? facts.matmul + (facts.matmulEmulated ? tr(" (16-bit emulated: FP32 compute)") : QString())
          : tr("each product's path and why in the rows \"matmul: ...\" below");
  if (!facts.conv.isEmpty())
    backend += tr("; convolution: %1%2")
                   .arg(facts.conv, facts.convEmulated && !facts.conv.contains(tr("emulated"))
                                        ? tr(" (16-bit emulated: FP32 compute)")
                                        : QString());
  if (facts.recipe) {
    m_opTable->setRun(*facts.recipe, backend, facts.scalerDescription, facts.modelOpRows);
  } else if (!facts.opRows.empty()) {
    std::vector<std::array<QString, 3>> rows;
    for (const auto& r : facts.opRows)
      rows.push_back({r.op, r.precision, r.note});
    m_opTable->setRun(m_controller->runName(run), rows, backend, facts.scalerDescription);
  }
  m_opTable->setMatmuls(facts.matmuls);
  m_lossScale->setPreset(facts.scalerPreset.isEmpty() ? tr("no") : facts.scalerPreset,
                         settingsBeyondSetupText(m_controller->config(run)));
  m_histogramKey.clear();
  m_heatmapKey.clear();
  m_shadowKey.clear();
  m_scaleDrawnStep = -2;
  refresh();
}

int TrainPanel::selectedRun() const {
  const int i = m_runPicker->currentIndex();
  return i >= 0 && i < m_controller->runCount() ? i : -1;
}

void TrainPanel::setSelectedRun(int run) { m_runPicker->setCurrentIndex(run); }

void TrainPanel::setHistogramSelection(int layer, telemetry::TensorClass cls) {
  m_layerPicker->setCurrentIndex(layer);
  m_classPicker->setCurrentIndex(m_classPicker->findData(int(cls)));
}

void TrainPanel::onBinClicked(int exponent) {
  const int run = selectedRun();
  if (run < 0)
    return;
  auto cls = telemetry::TensorClass(m_classPicker->currentData().toInt());
  if (cls != telemetry::TensorClass::WeightGrads)
    cls = telemetry::TensorClass::Weights; // only W and dW index a weight
  m_controller->watchInBinade(run, std::max(0, m_layerPicker->currentIndex()), cls, exponent);
  m_watch->showSearching(cls == telemetry::TensorClass::WeightGrads ? tr("gradient") : tr("value"),
                         exponent);
  if (m_controller->state() == RunController::State::Paused)
    m_banner->setText(tr("The watched weight is picked at the next step (press N)."));
}

void TrainPanel::onStateChanged() {
  using S = RunController::State;
  const S s = m_controller->state();
  m_pause->setText(s == S::Paused ? tr("Resume") : tr("Pause"));
  m_pause->setEnabled(s == S::Running || s == S::Paused || s == S::Ready);
  m_step->setEnabled(s == S::Ready || s == S::Running || s == S::Paused);
  m_stopAction->setEnabled(s == S::Running || s == S::Paused);
  m_checkShadow->setEnabled(s == S::Running || s == S::Paused);
  m_start->setEnabled(s != S::Running);
  m_setup->setEnabled(s != S::Running && s != S::Paused);
  // Pausing says so; resuming says training again; runs rebuilt after
  // training (Reset) say they are ready. Only on a change: a step taken while paused leaves what
  // the banner says then (e.g. about the watched weight) in place.
  const auto before = S(m_bannerState);
  m_bannerState = int(s);
  if (s == S::Paused && before != S::Paused)
    m_banner->setText(pausedBanner());
  else if (s == S::Running && before == S::Paused)
    m_banner->setText(trainingBanner());
  else if (s == S::Ready && (before == S::Running || before == S::Paused || before == S::Finished))
    m_banner->setText((m_presetNote.isEmpty() ? QString() : m_presetNote + QStringLiteral("<br>")) +
                      tr("Ready: %n run(s) from step 0. Press Start (Ctrl+R), or Step (N) to go "
                         "one step at a time.",
                         nullptr, m_controller->runCount()));
  // Every run has ended: the message says so (a divergence, which
  // refreshStatus() reports, takes its place).
  if (s == S::Finished && m_controller->loadedCount() < m_controller->runCount()) {
    // The last shadow frames' first tensors over the threshold stay named.
    const QString shadow = shadowText();
    m_banner->setText((m_presetNote.isEmpty() ? QString() : m_presetNote + QStringLiteral("<br>")) +
                      tr("Finished. The charts stay as the runs left them: pick a run above, "
                         "scrub the heat map, or press Start (Ctrl+R) to train again.") +
                      (shadow.isEmpty() ? QString() : QStringLiteral("<br>") + shadow));
  }
  refreshStatus();
}

// Window heights (the window's, not the page's: at first show the page may
// not have its final size yet). At or above roomyHeight() the accuracy chart
// gets its own place under the loss scale; below compactHeight() the page is
// too short for charts above and below each other, and the histograms join the
// right-hand tab group: every chart then has the page's height, enough for its
// axis titles and tick labels. Measured on screenshots of 300 MNIST steps:
// split at 1080 px, accuracy and loss scale each came out too short for their
// y-axis labels; stacked at 720 px, every chart's y title was elided, and at
// 1080 px in presenter mode the histogram's or (given more height) the loss
// curve's.
int TrainPanel::roomyHeight() const { return Theme::instance().presenter() ? 1800 : 1300; }
int TrainPanel::compactHeight() const {
  return Theme::instance().presenter() ? 1100 : kCompactNormalHeight;
}

// Presenter mode enlarges every font: a split that fitted may no longer.
void TrainPanel::fitDocks() {
  auto* accDock = dockNamed("accuracyDock");
  auto* scaleDock = dockNamed("lossScaleDock");
  if (!m_sized || window()->height() >= roomyHeight() ||
      tabifiedDockWidgets(scaleDock).contains(accDock))
    return;
  tabifyDockWidget(scaleDock, accDock);
  scaleDock->raise();
}

// Moves the named docks into `host`'s tab group.
void TrainPanel::joinTabs(QDockWidget* host, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    auto* d = dockNamed(name);
    if (d == nullptr || d == host || tabifiedDockWidgets(host).contains(d))
      continue;
    removeDockWidget(d); // (a dock must leave its place before it can join a tab group)
    d->setFloating(false);
    tabifyDockWidget(host, d);
    d->show();
  }
}

void TrainPanel::joinScaleTabs(std::initializer_list<const char*> names) {
  joinTabs(dockNamed("lossScaleDock"), names);
}

// Dock tab titles in full: with seven tabs in one group (presenter mode at
// 1280x720) the tab bar scrolls instead of cutting every title to "Ac…".
// QMainWindow makes its tab bars as groups form, so this runs after each
// arrangement.
void TrainPanel::showWholeTabTitles() {
  for (QTabBar* bar : findChildren<QTabBar*>(Qt::FindDirectChildrenOnly)) {
    bar->setElideMode(Qt::ElideNone);
    bar->setUsesScrollButtons(true);
  }
}

// The width the tab bar holding `dock` needs to show every tab whole (0 when
// the dock is not in a tab group).
int TrainPanel::tabsWidth(const QDockWidget* dock) const {
  for (const QTabBar* bar : findChildren<QTabBar*>(Qt::FindDirectChildrenOnly))
    for (int i = 0; i < bar->count(); ++i)
      if (bar->isVisible() && bar->tabText(i) == dock->windowTitle())
        return bar->sizeHint().width() + 8;
  return 0;
}

// A projector is usually 1280x720 or 1920x1080 at presenter font sizes: side
// by side, five docks leave the loss curve a stamp in the middle. Presenter
// mode gives the loss curve the page's width above one tab group of the
// other right-hand views, the histograms below; the run setup joins that
// group (a class watches, the teacher set the run up before). On a screen
// below compactHeight() (1280x720, 1920x1080) the histograms join the group
// too: the loss curve and one chart at a time, side by side, each the page's
// height.
// Leaving presenter mode restores the arrangement it found; a resize across
// compactHeight() re-arranges from it.
void TrainPanel::arrangeForPresenter() {
  const bool presenter = Theme::instance().presenter();
  const bool compact = window()->height() < compactHeight();
  if (!m_sized || (presenter == !m_layoutBeforePresenter.isEmpty() &&
                   (!presenter || compact == m_presenterCompact)))
    return;
  if (!m_layoutBeforePresenter.isEmpty()) {
    if (!presenter) {
      // Once the normal type has reached every widget (Qt posts font
      // changes): restored under presenter type, each dock would keep its
      // presenter minimum width (the loss curve came back at 277 of 472 px
      // on a 1178x662 window).
      QMetaObject::invokeMethod(this, [this] {
        if (Theme::instance().presenter() || m_layoutBeforePresenter.isEmpty())
          return; // presenter mode again, or restored already
        restoreState(m_layoutBeforePresenter, kLayoutVersion);
        m_layoutBeforePresenter.clear();
        QMetaObject::invokeMethod(this, &TrainPanel::keepLegibleLayout, Qt::QueuedConnection);
      }, Qt::QueuedConnection);
      return;
    }
    restoreState(m_layoutBeforePresenter, kLayoutVersion);
  } else {
    m_layoutBeforePresenter = saveState(kLayoutVersion);
  }
  m_presenterCompact = compact;
  auto dock = [this](const char* name) { return dockNamed(name); };
  QDockWidget* scale = dock("lossScaleDock");
  QDockWidget* hist = dock("histogramDock");
  joinScaleTabs({"accuracyDock", "watchDock", "opTableDock", "setupDock"});
  if (compact) {
    joinScaleTabs({"histogramDock", "heatmapDock", "shadowDock", "fp8Dock"});
    hist->raise(); // the gradients are what a class has come to see
  } else {
    scale->raise();
  }
  // After the layout has taken the new arrangement in.
  QMetaObject::invokeMethod(this, [this, scale, hist, compact] {
    showWholeTabTitles();
    resizeDocks({scale}, {std::max(width() * (compact ? 1 : 2) / (compact ? 2 : 5), tabsWidth(scale))},
                Qt::Horizontal);
    if (!compact)
      resizeDocks({hist}, {height() * 2 / 5}, Qt::Vertical);
  }, Qt::QueuedConnection);
}

// On a 720-line screen the watch panel's width would leave the loss curve the
// smaller share; there it scrolls. Elsewhere its full width keeps the group
// wide enough for the other views' legends and tables. Set once, at first
// show: presenter mode's arrangement is undone by restoring the saved state,
// which must meet the same minimum widths.
void TrainPanel::showSweep() {
  if (m_sweepDock->isHidden()) {
    m_sweepDock->setFloating(true);
    const QRect page = geometry();
    m_sweepDock->resize(std::min(960, std::max(640, page.width() - 80)),
                        std::min(680, std::max(480, page.height() - 60)));
    m_sweepDock->move(mapToGlobal(QPoint(40, 30)));
  }
  m_sweepDock->show();
  m_sweepDock->raise();
  m_sweepDock->activateWindow();
}

void TrainPanel::fitWatchWidth() {
  const bool narrow = window()->height() < kCompactNormalHeight;
  m_watchScroll->setMinimumWidth(narrow ? 0 : m_watch->minimumSizeHint().width());
}

// The run setup is never cut at its right edge. On the page its dock is at
// least as wide as its widest row (a field beside its label; the recipe
// buttons take as many columns as fit) and the vertical scroll bar. In
// presenter mode it is a tab of the right-hand group, whose width the charts
// decide: there a narrow group scrolls it sideways. A dock that its old
// minimum held (as wide as a presenter-size font needed) follows the new one.
// What the setup's scroll area adds to its width: the frame and the
// vertical scroll bar.
int TrainPanel::setupScrollChrome() const {
  return 2 * m_setupScroll->frameWidth() + m_setupScroll->verticalScrollBar()->sizeHint().width();
}

void TrainPanel::fitSetupWidth() {
  const bool presenter = Theme::instance().presenter();
  const int needed = presenter ? 0 : m_setup->minimumSizeHint().width() + setupScrollChrome();
  const int old = m_setupScroll->minimumWidth();
  m_setupScroll->setHorizontalScrollBarPolicy(presenter ? Qt::ScrollBarAsNeeded : Qt::ScrollBarAlwaysOff);
  if (needed == old)
    return;
  const bool held = !presenter && m_sized && m_setupScroll->width() <= old;
  m_setupScroll->setMinimumWidth(needed);
  if (held && needed < old && dockWidgetArea(m_setupDock) == Qt::LeftDockWidgetArea)
    resizeDocks({m_setupDock}, {needed}, Qt::Horizontal);
}

void TrainPanel::setPace(double stepsPerSecond) {
  int best = 0;
  for (int i = 1; i < m_pace->count(); ++i)
    if (std::abs(m_pace->itemData(i).toDouble() - stepsPerSecond) <
        std::abs(m_pace->itemData(best).toDouble() - stepsPerSecond))
      best = i;
  m_pace->setCurrentIndex(stepsPerSecond > 0.0 ? best : 0);
  m_controller->setPace(m_pace->currentData().toDouble()); // also when the index stayed
}

void TrainPanel::applyTheme() {
  // Presenter mode starts at a pace a class can follow; leaving it returns to
  // full speed unless the pace was changed meanwhile.
  const bool presenter = Theme::instance().presenter();
  if (presenter && !m_pacedForPresenter) {
    setPace(kPresenterPace);
    m_pacedForPresenter = true;
  } else if (!presenter && m_pacedForPresenter) {
    if (m_pace->currentData().toDouble() == kPresenterPace)
      setPace(0.0);
    m_pacedForPresenter = false;
  }
  fitSetupWidth();
  arrangeForPresenter();
  fitDocks();
  const Theme& t = Theme::instance();
  const ChartStyle style = t.presenter() ? ChartStyle::presenter(t.dark()) : ChartStyle::screen(t.dark());
  m_loss->setChartStyle(style);
  m_accuracy->setChartStyle(style);
  m_histogram->setChartStyle(style);
  m_heatmap->setChartStyle(style);
  m_lossScale->setChartStyle(style);
  m_shadowMap->setChartStyle(style);
}

// The arrangement for a page with no saved layout, from the window's size.
// On a short page (below compactHeight()) every view shares the page's
// height: the charts but the loss curve in the right-hand tab group, the
// watch and op tables as tabs behind the run setup on the left. The right
// group then holds four titles, not six (whose tab bar, ~450 px, was wider
// than the loss curve at 1178x662, the first window on a 1280x720 screen),
// and the loss curve, always in sight, gets the larger share down to a
// 1024 px wide window.
void TrainPanel::arrangeFirstShow() {
  auto dock = [this](const char* name) { return dockNamed(name); };
  QDockWidget* setupDock = dock("setupDock");
  QDockWidget* accDock = dock("accuracyDock");
  QDockWidget* scaleDock = dock("lossScaleDock");
  QDockWidget* histDock = dock("histogramDock");
  QDockWidget* heatDock = dock("heatmapDock");
  const bool compact = window()->height() < compactHeight();
  if (window()->height() >= roomyHeight()) { // accuracy under the loss scale, each tall enough
    removeDockWidget(accDock); // (splitting a tabbed dock would only add a tab)
    addDockWidget(Qt::RightDockWidgetArea, accDock, Qt::Vertical);
    accDock->show();
    scaleDock->raise();
  } else if (compact) {
    joinTabs(scaleDock, {"histogramDock", "heatmapDock", "shadowDock", "fp8Dock"});
    joinTabs(setupDock, {"watchDock", "opTableDock"});
    if (!shadowWanted())
      dock("shadowDock")->hide(); // until wanted (showShadowDock())
    scaleDock->raise();
    setupDock->raise();
  }
  const auto shares = [this, setupDock, scaleDock, compact] {
    // The setup's preferred width (two columns of recipe buttons) where a
    // fifth of the page holds it; else its minimum (one column).
    const int preferred = m_setup->sizeHint().width() + setupScrollChrome();
    const int setup = std::max(m_setupScroll->minimumWidth(), std::min(preferred, width() / 5));
    const int charts = compact ? (width() - setup) * 4 / 9 : width() * 2 / 7;
    resizeDocks({setupDock, scaleDock}, {setup, std::max(charts, tabsWidth(scaleDock))},
                Qt::Horizontal);
  };
  shares();
  // Again once the page has its final width and the tab bars exist.
  QMetaObject::invokeMethod(this, shares, Qt::QueuedConnection);
  if (!compact) {
    resizeDocks({histDock}, {height() * 2 / 5}, Qt::Vertical);
    resizeDocks({histDock, heatDock}, {width() / 2, width() / 2}, Qt::Horizontal);
  }
  showWholeTabTitles();
}

// The shown charts that a restored layout (saved on another screen, or
// found by presenter mode at another size) leaves too small to read.
QStringList TrainPanel::illegibleCharts() const {
  QStringList out;
  const std::pair<const ChartWidget*, const char*> charts[] = {
      {m_loss, "loss"}, {m_accuracy, "accuracy"}, {m_lossScale, "loss scale"}, {m_histogram, "histogram"}};
  for (const auto& [chart, name] : charts) {
    if (!shows(chart))
      continue;
    if (chart->width() < kLegibleChartWidth || chart->height() < kLegibleChartHeight)
      out << QStringLiteral("%1: %2x%3").arg(QLatin1String(name)).arg(chart->width()).arg(chart->height());
    if (chart == m_loss) // the chart always in sight; the others may be read in a tab of their own
      for (const QString& text : chart->elidedTexts())
        out << QStringLiteral("%1: \"%2\"").arg(QLatin1String(name), text);
  }
  if (shows(m_heatmap) &&
      (m_heatmap->width() < kLegibleChartWidth || m_heatmap->height() < kLegibleChartHeight))
    out << QStringLiteral("heat map: %1x%2").arg(m_heatmap->width()).arg(m_heatmap->height());
  return out;
}

void TrainPanel::keepLegibleLayout() {
  if (Theme::instance().presenter() || !isVisible())
    return; // presenter mode arranges its own
  if (!illegibleCharts().isEmpty()) {
    restoreState(m_defaultLayout, kLayoutVersion);
    arrangeFirstShow();
  }
  showWholeTabTitles(); // the restored tab bars too
}

void TrainPanel::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  QMetaObject::invokeMethod(this, &TrainPanel::refresh, Qt::QueuedConnection); // skipped while hidden
  if (!m_sized) { // first show, once the window has its size: split the space
    m_sized = true;
    fitWatchWidth();
    fitSetupWidth();
    if (!m_layoutRestored)
      arrangeFirstShow();
    else // once the restored layout has the window's size
      QMetaObject::invokeMethod(this, &TrainPanel::keepLegibleLayout, Qt::QueuedConnection);
    arrangeForPresenter(); // started in presenter mode
  }
  if (!m_closeFilterInstalled && window() != this) {
    window()->installEventFilter(this);
    m_closeFilterInstalled = true;
  }
}

// Closing the application's window stops and joins every trainer at once.
bool TrainPanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == window() && event->type() == QEvent::Close) {
    saveLayout();
    m_controller->shutdown();
  }
  // A presenter window resized across compactHeight() (full screen on another
  // projector) is re-arranged once the resize is done.
  if (watched == window() && event->type() == QEvent::Resize && m_sized &&
      Theme::instance().presenter() &&
      (window()->height() < compactHeight()) != m_presenterCompact)
    QMetaObject::invokeMethod(this, &TrainPanel::arrangeForPresenter, Qt::QueuedConnection);
  if (watched == m_setup && (event->type() == QEvent::LayoutRequest || event->type() == QEvent::FontChange))
    QMetaObject::invokeMethod(this, &TrainPanel::fitSetupWidth, Qt::QueuedConnection);
  return QMainWindow::eventFilter(watched, event);
}

void TrainPanel::saveLayout() const {
  QSettings settings;
  // In presenter mode, the arrangement the user made outside it.
  settings.setValue(kDockStateKey, m_layoutBeforePresenter.isEmpty() ? saveState(kLayoutVersion)
                                                                      : m_layoutBeforePresenter);
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& c : m_setup->configs())
    runs.push_back(train::toJson(c));
  settings.setValue(kRunsKey, QString::fromStdString(runs.dump()));
}

void TrainPanel::restoreLayout() {
  QSettings settings;
  m_layoutRestored = restoreState(settings.value(kDockStateKey).toByteArray(), kLayoutVersion);
  const QString saved = settings.value(kRunsKey).toString();
  if (saved.isEmpty())
    return;
  try {
    std::vector<train::RunConfig> runs;
    for (const auto& j : io::parseJsonText(saved.toStdString()))
      runs.push_back(train::runConfigFromJson(j));
    if (!runs.empty())
      m_setup->setConfigs(runs);
  } catch (const std::exception&) {
    // A setup saved by another version: keep the defaults.
  }
}

} // namespace mantissa::ui
