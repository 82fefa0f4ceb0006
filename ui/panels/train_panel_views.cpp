// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// TrainPanel: turning the controller's records into pictures. Long series are
// decimated to about two points per horizontal pixel (History::series) and
// handed to each series with one replace() inside the chart classes.
#include "ui/bridge/run_controller.h"
#include "ui/charts/histogram_chart.h"
#include "ui/charts/histogram_heatmap.h"
#include "ui/charts/loss_chart.h"
#include "ui/charts/loss_scale_chart.h"
#include "ui/charts/shadow_error_map.h"
#include "ui/charts/steady_label.h"
#include "ui/panels/generate_panel.h"
#include "ui/panels/op_table_panel.h"
#include "ui/panels/train_panel.h"
#include "ui/panels/watch_panel.h"

#include <mantissa/amp/tensor_format.h>
#include <mantissa/train/run_precision.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>

namespace mantissa::ui {

namespace {

// The format the run holds this tensor in, and the scaled operand whose scale
// moves its limits (train::layerFormat); nullopt when the run's log does not say.
std::optional<train::LayerFormat> runFormatOf(const RunFacts& facts, telemetry::TensorClass cls,
                                              int layer) {
  if (!facts.policy)
    return std::nullopt;
  const std::string name = std::size_t(layer) < facts.layerNames.size()
                               ? facts.layerNames[std::size_t(layer)].toStdString()
                               : std::string();
  return train::layerFormat(*facts.policy, cls, layer, name);
}

// The format itself (a custom element format's spec rebuilt); nullopt when
// the run does not say.
std::optional<numeric::FloatFormat> runFloatFormat(const std::optional<train::LayerFormat>& format) {
  if (!format)
    return std::nullopt;
  try {
    return amp::floatFormat(format->format);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

// The FP8 / MX scales a run recorded, read from its log; none while it
// trains (the log is read whole).
std::vector<telemetry::ScalingFrame> scalingFrames(const RunController& c, int run) {
  if (c.trainerState(run) == train::TrainerState::Running)
    return {};
  QString error;
  const auto log = c.runLog(run, &error);
  return log ? log->scaling : std::vector<telemetry::ScalingFrame>{};
}

QList<QPointF> toPoints(const std::vector<telemetry::SeriesPoint>& points) {
  QList<QPointF> out;
  out.reserve(qsizetype(points.size()));
  for (const auto& p : points)
    out.append(QPointF(p.x, p.y));
  return out;
}

QString duration(double seconds) {
  const int s = int(seconds);
  return s >= 60 ? QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'))
                 : QStringLiteral("%1 s").arg(seconds, 0, 'f', 1);
}

QString className(telemetry::TensorClass cls) {
  switch (cls) {
  case telemetry::TensorClass::Weights: return QObject::tr("weights");
  case telemetry::TensorClass::Activations: return QObject::tr("activations");
  case telemetry::TensorClass::ActivationGrads: return QObject::tr("activation gradients");
  case telemetry::TensorClass::WeightGrads: return QObject::tr("weight gradients");
  case telemetry::TensorClass::Updates: return QObject::tr("weight updates");
  }
  return {};
}

// The banner's sentence: the run's own (it names the step, the reason and
// where), else one made of the same facts. Each said once.
QString divergenceSentence(const train::Divergence& d) {
  QString why = QString::fromStdString(d.message).trimmed();
  if (why.isEmpty()) {
    why = d.reason.empty() ? QObject::tr("at step %1").arg(d.step)
                           : QObject::tr("%1 at step %2").arg(QString::fromStdString(d.reason)).arg(d.step);
    if (!d.op.empty())
      why += QObject::tr(": first in layer %1, op %2 (%3)")
                 .arg(d.layer)
                 .arg(QString::fromStdString(d.op),
                      d.backward ? QObject::tr("backward") : QObject::tr("forward"));
  } else if (!why.contains(QRegularExpression(QStringLiteral("\\bstep %1\\b").arg(d.step)))) {
    why = QObject::tr("at step %1: %2").arg(d.step).arg(why); // a log's own words without the step
  }
  if (!why.endsWith(u'.'))
    why += u'.';
  return why;
}

} // namespace

// Only what can be seen is redrawn: a chart in a hidden dock tab (or the
// whole page behind another tab) is skipped and redrawn when it shows again
// (TrainPanel::showEvent, QDockWidget::visibilityChanged). Each view also
// skips itself when its data did not change since it was drawn.
void TrainPanel::refresh() {
  refreshWatch(); // text only: cheap, and read by tests while its dock tab is hidden
  refreshStatus();
  announceShadow();
  if (!isVisible())
    return;
  if (shows(m_loss) || shows(m_accuracy))
    refreshCurves();
  if (shows(m_histogram))
    refreshHistogram();
  if (shows(m_heatmap))
    refreshHeatmap();
  if (shows(m_lossScale))
    refreshLossScale();
  if (shows(m_shadowMap) || shows(m_opTable))
    refreshShadow();
}

bool TrainPanel::shows(const QWidget* view) const {
  if (!view->isVisible())
    return false;
  for (const QWidget* w = view; w != nullptr && w != this; w = w->parentWidget())
    if (const auto* dock = qobject_cast<const QDockWidget*>(w))
      return !m_hiddenDocks.contains(dock);
  return true;
}

void TrainPanel::redrawAll() {
  m_histogramFrame = nullptr;
  m_histogramKey.clear();
  m_heatmapKey.clear();
  m_scaleDrawnStep = -2;
  m_curvesKey.clear();
  m_accuracyKey.clear();
  refresh();
}

// Each curve chart is redrawn only while it shows (the accuracy chart is
// usually a hidden tab): its key says what it was drawn from.
void TrainPanel::refreshCurves() {
  const auto refreshChart = [this](CurveChart* chart, RunRecord::Column column,
                                   const std::vector<telemetry::SeriesPoint>& (RunRecord::*test)()
                                       const,
                                   std::vector<std::int64_t>& drawnKey) {
    if (!shows(chart))
      return;
    const std::size_t pixels = std::size_t(std::max(200, chart->width()));
    std::vector<std::int64_t> key{std::int64_t(pixels)};
    for (int i = 0; i < m_controller->runCount(); ++i) {
      const RunRecord& r = m_controller->record(i);
      key.insert(key.end(), {r.lastStep(), std::int64_t((r.*test)().size()), r.skippedTotal()});
    }
    if (key == drawnKey)
      return;
    drawnKey = key;
    for (int i = 0; i < m_controller->runCount(); ++i) {
      const RunRecord& r = m_controller->record(i);
      // At most one skip mark per pixel column: thousands of markers cost more
      // to paint than the curves and show nothing more.
      const QList<double> skipped = onePerColumn(
          r.skippedSteps(), 0.0, double(std::max<std::int64_t>(1, r.lastStep())), pixels);
      chart->updateRun(m_controller->runId(i), toPoints(r.history().series(column, pixels)),
                       toPoints((r.*test)()), skipped);
      const auto& d = r.divergence();
      chart->setDivergence(m_controller->runId(i),
                           d ? std::optional<double>(double(d->step)) : std::nullopt,
                           d ? CurveChart::divergenceLineLabel(d->step, QString::fromStdString(d->reason)) : QString());
    }
  };
  refreshChart(m_loss, RunRecord::Loss, &RunRecord::testLoss, m_curvesKey);
  refreshChart(m_accuracy, RunRecord::Accuracy, &RunRecord::testAccuracy, m_accuracyKey);
}

const telemetry::TelemetryFrame* TrainPanel::shownFrame() const {
  const int run = selectedRun();
  if (run < 0)
    return nullptr;
  const RunRecord& r = m_controller->record(run);
  if (r.frames().empty())
    return nullptr;
  if (m_scrubStep)
    if (const auto* f = r.frameAt(*m_scrubStep))
      return f;
  return r.frames().back().get();
}

void TrainPanel::refreshHistogram() {
  const int run = selectedRun();
  const telemetry::TelemetryFrame* frame = shownFrame();
  const int layer = std::max(0, m_layerPicker->currentIndex());
  const auto cls = telemetry::TensorClass(m_classPicker->currentData().toInt());
  const QString key = QStringLiteral("%1/%2/%3").arg(run).arg(layer).arg(int(cls));
  if (frame == m_histogramFrame && key == m_histogramKey)
    return;
  m_histogramFrame = frame;
  m_histogramKey = key;
  if (run >= 0) {
    // An FP8 / MX operand meets its format times its scale: the limits move
    // by -log2(scale) of that step, and are not shaded when it is not at hand.
    const auto format = runFormatOf(m_controller->facts(run), cls, layer);
    std::optional<double> shift = 0.0;
    if (format && format->format.scaledOperand)
      shift = frame ? train::operandShift(scalingFrames(*m_controller, run), frame->step,
                                          format->operand)
                    : std::nullopt;
    if (const auto f = runFloatFormat(format))
      m_histogram->setRunFormat(*f, shift.value_or(0.0), shift.has_value());
    else
      m_histogram->setRunFormat(std::nullopt, shift.value_or(0.0), shift.has_value());
  }
  if (!frame) {
    m_histogram->setHistograms(telemetry::ExponentHistogram{});
    m_histogram->setSubject(run >= 0 && m_controller->config(run).telemetryEvery == 0
                                ? tr("histograms are off for this run (setup: Histograms every)")
                                : tr("no frame recorded yet"));
    return;
  }
  const auto* unscaled = frame->find(layer, cls, false);
  const auto* scaled = frame->find(layer, cls, true);
  if (!unscaled) {
    m_histogram->setHistograms(telemetry::ExponentHistogram{});
    m_histogram->setSubject(tr("layer %1 %2: not recorded").arg(layer).arg(className(cls)));
    return;
  }
  m_histogram->setHistograms(unscaled->hist, scaled ? &scaled->hist : nullptr,
                             scaled ? scaled->lossScale : 1.0);
  // The step (and the swamped share) change every frame: the chart shows them
  // beside its toggles, not in its title (a new title re-lays out the chart).
  // A log that names its layers (a GPT's tensors, a tap's modules): the name.
  const auto& names = m_controller->facts(run).layerNames;
  QString subject =
      std::size_t(layer) < names.size() && !names[std::size_t(layer)].isEmpty()
          ? tr("%1 · %2 %3")
                .arg(m_controller->runName(run), names[std::size_t(layer)], className(cls))
          : tr("%1 · layer %2 %3").arg(m_controller->runName(run)).arg(layer).arg(className(cls));
  // A loss multiplier (the underflow and scaling presets' 2^-14) is in every
  // gradient as stored: the run's name says so (settingsBeyondSetup).
  QString detail = tr("step %1").arg(frame->step);
  if (std::size_t(layer) < frame->swamped.size() &&
      !std::isnan(frame->swamped[std::size_t(layer)]) && cls == telemetry::TensorClass::Updates)
    detail += tr(" · %1 % swamped").arg(100.0 * frame->swamped[std::size_t(layer)], 0, 'f', 1);
  m_histogram->setSubject(subject, detail);
}

// The heat map shows what the histogram shows: with its Scaled box checked,
// a loss-scaled run's rows hold the values as stored (the FP16 limits stay
// put); unchecked, the unscaled values, each row's limits moved by that
// step's -log2(loss scale).
namespace {

struct HeatmapRow {
  const telemetry::TensorTelemetry* entry = nullptr;
  double shift = 0.0;
};

HeatmapRow heatmapRow(const telemetry::TelemetryFrame& frame, int layer, telemetry::TensorClass cls,
                      bool scaled) {
  const auto* unscaled = frame.find(layer, cls, false);
  const auto* stored = frame.find(layer, cls, true);
  if (stored == nullptr)
    return {unscaled, 0.0};
  if (scaled || unscaled == nullptr)
    return {stored, 0.0};
  return {unscaled, stored->lossScale > 0.0 ? -std::log2(stored->lossScale) : 0.0};
}

} // namespace

void TrainPanel::refreshHeatmap() {
  const int run = selectedRun();
  if (run < 0)
    return;
  const RunRecord& r = m_controller->record(run);
  const int layer = std::max(0, m_layerPicker->currentIndex());
  const auto cls = telemetry::TensorClass(m_classPicker->currentData().toInt());
  const bool scaled = m_histogram->showScaledChecked();
  const QString key =
      QStringLiteral("%1/%2/%3/%4").arg(run).arg(layer).arg(int(cls)).arg(scaled ? 1 : 0);
  const auto& frames = r.frames();
  // Rebuild when the subject changed or the record thinned its frames (it
  // keeps the first, so fewer frames than rows tells); else append.
  const bool rebuild =
      key != m_heatmapKey || (m_heatmap->rowCount() > 0 &&
                              (frames.empty() || frames.front()->step != m_heatmap->stepOfRow(0) ||
                               std::size_t(m_heatmap->rowCount()) > frames.size()));
  const auto note = [&](const telemetry::TelemetryFrame& f) {
    if (f.find(layer, cls, true) == nullptr)
      return QString();
    return scaled ? tr("scaled values, as stored")
                  : tr("unscaled values, format limits moved by the loss scale");
  };
  const auto format = runFormatOf(m_controller->facts(run), cls, layer);
  if (const auto f = runFloatFormat(format))
    m_heatmap->setRunFormat(*f);
  else
    m_heatmap->setRunFormat(std::nullopt);
  // An FP8 / MX operand's limits move row by row with its scale (NaN: not at hand).
  std::optional<std::vector<telemetry::ScalingFrame>> scales; // read when a row needs them
  const auto operandShiftAt = [&](std::int64_t step) {
    if (!format || !format->format.scaledOperand)
      return 0.0;
    if (!scales)
      scales = scalingFrames(*m_controller, run);
    return train::operandShift(*scales, step, format->operand)
        .value_or(std::numeric_limits<double>::quiet_NaN());
  };
  if (rebuild) {
    std::vector<std::int64_t> steps;
    std::vector<telemetry::ExponentHistogram> hists;
    std::vector<double> shifts;
    QString valuesNote;
    for (const auto& f : frames)
      if (const HeatmapRow row = heatmapRow(*f, layer, cls, scaled); row.entry != nullptr) {
        steps.push_back(f->step);
        hists.push_back(row.entry->hist);
        shifts.push_back(row.shift + operandShiftAt(f->step));
        if (valuesNote.isEmpty())
          valuesNote = note(*f);
      }
    m_heatmap->setHistory(steps, hists, shifts);
    const auto& names = m_controller->facts(run).layerNames;
    m_heatmap->setSubject(
        std::size_t(layer) < names.size() && !names[std::size_t(layer)].isEmpty()
            ? tr("%1 · %2 %3")
                  .arg(m_controller->runName(run), names[std::size_t(layer)], className(cls))
            : tr("%1 · layer %2 %3")
                  .arg(m_controller->runName(run))
                  .arg(layer)
                  .arg(className(cls)));
    m_heatmap->setValuesNote(valuesNote);
    m_heatmapKey = key;
    if (m_scrubStep)
      m_heatmap->selectStep(*m_scrubStep);
    return;
  }
  const std::int64_t last =
      m_heatmap->rowCount() > 0 ? m_heatmap->stepOfRow(m_heatmap->rowCount() - 1) : -1;
  auto it = std::upper_bound(frames.begin(), frames.end(), last,
                             [](std::int64_t s, const auto& f) { return s < f->step; });
  for (; it != frames.end(); ++it)
    if (const HeatmapRow row = heatmapRow(**it, layer, cls, scaled); row.entry != nullptr) {
      if (m_heatmap->rowCount() == 0)
        m_heatmap->setValuesNote(note(**it));
      m_heatmap->appendRow((*it)->step, row.entry->hist, row.shift + operandShiftAt((*it)->step));
    }
}

void TrainPanel::refreshLossScale() {
  const int run = selectedRun();
  if (run < 0)
    return;
  const RunRecord& r = m_controller->record(run);
  if (r.lastStep() == m_scaleDrawnStep)
    return;
  m_scaleDrawnStep = r.lastStep();
  m_lossScale->setTrace(r.scaleRecords(), r.scalerEvents());
}

void TrainPanel::refreshWatch() {
  const int run = selectedRun();
  if (run < 0)
    return;
  const RunRecord& r = m_controller->record(run);
  m_watch->setSample(r.watch(), r.lastStep());
  if (r.snapshot())
    m_opTable->setTimes(r.snapshot()->meanTimes, r.snapshot()->timesRecorded);
}

QString TrainPanel::bannerText() const { return m_banner->text(); }

QString TrainPanel::divergenceText() const {
  QStringList out;
  for (int i = 0; i < m_controller->runCount(); ++i)
    if (const auto& d = m_controller->record(i).divergence())
      out << tr("<b>%1 diverged</b> \u2014 %2")
                 .arg(m_controller->runName(i).toHtmlEscaped(), divergenceSentence(*d).toHtmlEscaped());
  return out.join(QStringLiteral("<br>"));
}

void TrainPanel::refreshStatus() {
  QStringList parts;
  QStringList progress;
  QStringList steps; // shorter forms for a narrow toolbar
  QStringList percents;
  QStringList absent; // what a run's log does not record, for the tooltip
  double elapsed = 0.0;
  const bool paused = m_controller->state() == RunController::State::Paused;
  for (int i = 0; i < m_controller->runCount(); ++i) {
    const RunRecord& r = m_controller->record(i);
    const auto& snap = r.snapshot();
    const std::int64_t done = r.lastStep() + 1;
    const std::int64_t total = snap ? snap->totalSteps : m_controller->facts(i).totalSteps;
    QString text = tr("%1 %2/%3").arg(m_controller->runName(i)).arg(done).arg(total);
    steps << text;
    percents << tr("%1 %2 %").arg(m_controller->runName(i)).arg(total > 0 ? 100 * done / total : 0);
    if (m_controller->isLoaded(i))
      text += tr(" · loaded");
    if (snap && !snap->finished && paused) {
      text += tr(" · paused"); // the last pace is no longer the runs' pace
    } else if (snap && !snap->finished && snap->stepsPerSecond > 0) {
      if (snap->pace > 0 && snap->fullSpeedStepsPerSecond > 0)
        text += tr(" · %1 steps/s paced (%2 at full speed)")
                    .arg(snap->stepsPerSecond, 0, 'f', snap->stepsPerSecond < 10 ? 1 : 0)
                    .arg(snap->fullSpeedStepsPerSecond, 0, 'f', 0);
      else
        text += tr(" · %1 steps/s").arg(snap->stepsPerSecond, 0, 'f', 0);
    }
    if (snap && snap->summary) {
      if (snap->summary->evalTrainLoss) // a GPT: its validation loss, no accuracy
        text += tr(" · val_loss %1").arg(snap->summary->testLoss, 0, 'f', 3);
      else if (std::isnan(snap->summary->testAccuracy)) { // the log records none
        text += tr(" · test —");
        absent << tr("%1: the log records no test accuracy").arg(m_controller->runName(i));
      }
      else
        text += tr(" · test %1 %").arg(100.0 * snap->summary->testAccuracy, 0, 'f', 2);
    }
    if (r.divergence())
      text += tr(" · diverged");
    progress << text;
    if (snap)
      elapsed = std::max(elapsed, snap->elapsedSeconds);
  }
  m_progress->setForms({progress.join(QStringLiteral("   ")), steps.join(QStringLiteral("   ")),
                        percents.join(QStringLiteral("   "))});
  m_progress->setToolTip(absent.join(QLatin1Char('\n')));
  if (elapsed > 0)
    parts << tr("elapsed %1").arg(duration(elapsed));
  const QString diverged = divergenceText();
  if (!diverged.isEmpty())
    m_banner->setText(diverged + tr("<br>The run stopped there; its charts stay inspectable."));
  QString status = progress.join(QStringLiteral(" | "));
  if (!parts.isEmpty())
    status += QStringLiteral("  ·  ") + parts.join(QStringLiteral("  ·  "));
  if (status != m_statusText) {
    m_statusText = status;
    emit statusTextChanged(status);
  }
}

void TrainPanel::buildGenerateDock(QDockWidget* opDock, std::vector<QDockWidget*> lackedByGpt) {
  m_generate = new GeneratePanel(m_controller);
  m_generate->setObjectName(QStringLiteral("generatePanel"));
  auto* genDock =
      addDock(m_generate, tr("Generate"), QStringLiteral("generateDock"), Qt::RightDockWidgetArea);
  tabifyDockWidget(opDock, genDock);
  genDock->hide();
  // GPT runs have no accuracy and no watched MLP weight: those docks give
  // their tabs to Generate while GPT runs are set up, and come back after.
  auto hiddenForGpt = std::make_shared<std::vector<QDockWidget*>>();
  connect(m_controller, &RunController::runsChanged, this,
          [this, genDock, hiddenForGpt, lackedByGpt] {
            const bool gpt = m_controller->hasGptRuns();
            if (gpt && hiddenForGpt->empty()) {
              for (QDockWidget* d : lackedByGpt)
                if (d->isVisible()) {
                  d->hide();
                  hiddenForGpt->push_back(d);
                }
            } else if (!gpt) {
              for (QDockWidget* d : *hiddenForGpt)
                d->show();
              hiddenForGpt->clear();
            }
            genDock->setVisible(gpt);
            if (gpt)
              genDock->raise();
          });
}

} // namespace mantissa::ui
