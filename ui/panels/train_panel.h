// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <mantissa/telemetry/histogram.h>

#include <QHash>
#include <QMainWindow>
#include <QSet>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QScrollArea;
class QToolButton;

namespace mantissa::telemetry {
struct TelemetryFrame;
}
namespace mantissa::train {
struct RunConfig;
}

namespace mantissa::ui {

class AccuracyChart;
class GeneratePanel;
class HistogramChart;
class HistogramHeatmap;
class FormatOverlayPicker;
class LossChart;
class LossScaleChart;
class OpTablePanel;
class SweepPanel;
class QuantPanel;
class TensorScaleView;
class RunController;
class ShadowErrorMap;
class SteadyTextLine;
class TrainSetup;
class WatchPanel;

// The "Train" page: run setup, Start / Pause / Step / Stop / Reset, and the
// live views as docks (loss, accuracy, gradient histogram, its heat map over
// steps, loss scale, watch a value, op precision table). Dock layout and the
// setup persist through QSettings. Every view is redrawn from the
// RunController's records after each drain.
class TrainPanel : public QMainWindow {
  Q_OBJECT
public:
  explicit TrainPanel(QWidget* parent = nullptr);
  ~TrainPanel() override;

  RunController* controller() const { return m_controller; }
  TrainSetup* setup() const { return m_setup; }
  LossChart* lossChart() const { return m_loss; }
  AccuracyChart* accuracyChart() const { return m_accuracy; }
  HistogramChart* histogramChart() const { return m_histogram; }
  HistogramHeatmap* heatmap() const { return m_heatmap; }
  FormatOverlayPicker* overlayPicker() const { return m_overlayPicker; }
  LossScaleChart* lossScaleChart() const { return m_lossScale; }
  WatchPanel* watchPanel() const { return m_watch; }
  OpTablePanel* opTable() const { return m_opTable; }
  SweepPanel* sweep() const { return m_sweep; }
  // Shows the Precision sweep dock (floating, over the page).
  void showSweep();
  GeneratePanel* generatePanel() const { return m_generate; }
  QuantPanel* quantPanel() const { return m_quant; }
  TensorScaleView* tensorScaleView() const { return m_tensorScales; }
  // The Error view: the selected run's shadow frames (train/shadow.h).
  ShadowErrorMap* shadowMap() const { return m_shadowMap; }
  // Check Against Reference Now: the next step of every training or paused
  // run runs the shadow pass (the Setup's reference, FP32 when Off).
  QAction* checkShadowAction() const { return m_checkShadow; }
  QAction* shadowViewAction() const; // shows or hides the Error view's dock
  // What the Error view says above the map: the request, or why a run refused it.
  QString shadowMessage() const;
  // Per run with shadow frames, its latest frame's sentence (the first tensor
  // over the threshold, named): "<b>bf16-mixed</b> — Shadow FP32, step 40: ...".
  QString shadowText() const;
  QAction* startAction() const { return m_start; }
  QAction* pauseAction() const { return m_pause; }
  QAction* stepAction() const { return m_step; }
  QAction* stopAction() const { return m_stopAction; }
  QAction* resetAction() const { return m_reset; }
  // Full speed, or a cap in steps per second (item data: the cap, 0 = none).
  QComboBox* pacePicker() const { return m_pace; }
  // The pace presenter mode starts at: a new histogram row about every
  // second with the default setup (telemetry every 5 steps), the default
  // three epochs (234 steps) lasting about 47 s.
  static constexpr double kPresenterPace = 5.0;
  void setPace(double stepsPerSecond); // picks the nearest offered pace

  // Applies the setup form to the controller (new runs, Ready). Returns the
  // problems ("" when the runs were built).
  QString applySetup();
  int selectedRun() const;
  void setSelectedRun(int run);
  void setHistogramSelection(int layer, telemetry::TensorClass cls);
  // The step the histogram shows when scrubbed; nullopt when following the latest frame.
  std::optional<std::int64_t> scrubStep() const { return m_scrubStep; }
  // Redraws every view from the controller's records (views whose data did
  // not change are skipped); redrawAll() redraws every view regardless.
  void refresh();
  void redrawAll();
  QString statusText() const { return m_statusText; }
  QString divergenceText() const;
  QString bannerText() const; // the banner above the page, as shown (rich text)
  // Each shown chart smaller than the legible minimum ("loss: 98x400"), and
  // the loss curve's ticks and titles that Qt Charts elided ("loss: \"0.0...\"");
  // empty when all read.
  QStringList illegibleCharts() const;

signals:
  void statusTextChanged(const QString& text);

protected:
  void showEvent(QShowEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  void buildActions();
  void buildDocks();
  QDockWidget* addDock(QWidget* widget, const QString& title, const QString& name,
                       Qt::DockWidgetArea area);
  QWidget* buildHistogramDock();
  // A dock addDock made, by its object name (the name saveState keys it by).
  QDockWidget* dockNamed(const char* name) const;
  void startOrResume();
  bool confirmReplaceLoadedRuns();
  void onRunsChanged();
  void onStateChanged();
  // The banner while the runs train, and while they are paused.
  QString trainingBanner() const;
  QString pausedBanner() const;
  void onSelectedRunChanged();
  void rememberSelectedRun(); // m_selectedKey and m_selectedName from the picker
  void onBinClicked(int exponent);
  void applyTheme();
  void fitDocks();
  void fitWatchWidth();
  void fitSetupWidth();
  int setupScrollChrome() const;
  int tabsWidth(const QDockWidget* dock) const;
  void arrangeForPresenter();
  void arrangeFirstShow();
  void joinTabs(QDockWidget* host, std::initializer_list<const char*> names);
  void joinScaleTabs(std::initializer_list<const char*> names);
  void showWholeTabTitles();
  bool shows(const QWidget* view) const; // visible, and not in a hidden dock tab
  int roomyHeight() const;
  int compactHeight() const;
  void saveLayout() const;
  // A restored layout in which a shown chart is too small to read (see
  // illegibleCharts()) gives way to the default arrangement for this window.
  void keepLegibleLayout();
  void restoreLayout();

  // train_panel_views.cpp: Generate, a tab beside the op table while GPT
  // runs are set up; the docks of what a GPT lacks give it their place.
  void buildGenerateDock(QDockWidget* opDock, std::vector<QDockWidget*> lackedByGpt);

  // train_panel_quant.cpp: the Block scales dock (what-if table, block scale heat map)
  void buildQuantDocks();
  void inspectQuant(bool again);

  // train_panel_shadow.cpp: the Error view's dock and Check Against Reference Now
  QDockWidget* buildShadowDock();
  void checkAgainstReference();
  void refreshShadow();
  void announceShadow(); // the banner names a new frame's first tensor over the threshold
  bool shadowWanted() const; // a run has the shadow pass set, or shadow frames
  void showShadowDock();     // shows the Error dock (where it was hidden) and brings it forward

  // train_panel_views.cpp
  void refreshCurves();
  void refreshHistogram();
  void refreshHeatmap();
  void refreshLossScale();
  void refreshWatch();
  void refreshStatus();
  const telemetry::TelemetryFrame* shownFrame() const;

  RunController* m_controller = nullptr;
  TrainSetup* m_setup = nullptr;
  QScrollArea* m_setupScroll = nullptr;
  QDockWidget* m_setupDock = nullptr;
  QScrollArea* m_watchScroll = nullptr;
  LossChart* m_loss = nullptr;
  AccuracyChart* m_accuracy = nullptr;
  HistogramChart* m_histogram = nullptr;
  HistogramHeatmap* m_heatmap = nullptr;
  LossScaleChart* m_lossScale = nullptr;
  WatchPanel* m_watch = nullptr;
  OpTablePanel* m_opTable = nullptr;
  SweepPanel* m_sweep = nullptr;
  QDockWidget* m_sweepDock = nullptr;
  GeneratePanel* m_generate = nullptr;
  QuantPanel* m_quant = nullptr;
  TensorScaleView* m_tensorScales = nullptr;
  ShadowErrorMap* m_shadowMap = nullptr;
  QDockWidget* m_shadowDock = nullptr;
  QLabel* m_shadowMessage = nullptr;
  QAction* m_checkShadow = nullptr;
  QString m_shadowKey;                  // what the Error view was drawn from
  std::int64_t m_shadowAnnounced = -1;  // frames (all runs) the banner has spoken of
  QComboBox* m_runPicker = nullptr;
  std::uint64_t m_selectedKey = 0; // RunController::runKey of the inspected run
  QString m_selectedName;          // its name (a rebuilt run has a new key)
  QComboBox* m_layerPicker = nullptr;
  QComboBox* m_classPicker = nullptr;
  FormatOverlayPicker* m_overlayPicker = nullptr;
  QToolButton* m_followLatest = nullptr;
  QLabel* m_banner = nullptr;
  SteadyTextLine* m_progress = nullptr; // run progress in the toolbar
  QAction* m_start = nullptr;
  QAction* m_pause = nullptr;
  QAction* m_step = nullptr;
  QAction* m_stopAction = nullptr;
  QAction* m_reset = nullptr;
  QComboBox* m_pace = nullptr;
  bool m_pacedForPresenter = false; // the pace presenter mode set, reset when it ends

  std::optional<std::int64_t> m_scrubStep;
  const telemetry::TelemetryFrame* m_histogramFrame = nullptr; // what the histogram shows
  QString m_histogramKey;
  QString m_heatmapKey;
  std::int64_t m_scaleDrawnStep = -2;
  std::vector<std::int64_t> m_curvesKey;   // what the loss curves were drawn from
  std::vector<std::int64_t> m_accuracyKey; // what the accuracy curves were drawn from
  QSet<const QDockWidget*> m_hiddenDocks; // docks whose tab is not the current one
  QHash<QString, QDockWidget*> m_docks;    // every dock addDock made, by object name
  QString m_statusText;
  QString m_presetNote;
  int m_bannerState = -1; // the RunController::State the banner last spoke of
  bool m_closeFilterInstalled = false;
  bool m_sized = false;
  bool m_layoutRestored = false; // a saved dock layout of this version was restored
  bool m_presenterCompact = false; // presenter mode arranged for a short screen
  QByteArray m_layoutBeforePresenter; // restored when presenter mode ends; empty outside it
  QByteArray m_defaultLayout;         // the docks as built, before any saved layout
};

} // namespace mantissa::ui
