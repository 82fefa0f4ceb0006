// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "run_charts.h"

#include "ui/bridge/run_names.h"
#include "ui/charts/histogram_chart.h"
#include "ui/charts/loss_chart.h"
#include "ui/charts/loss_scale_chart.h"
#include "ui/charts/shadow_error_map.h"

#include <mantissa/amp/tensor_format.h>
#include <mantissa/train/run_precision.h>

#include <QDir>
#include <QObject>

#include <cmath>

namespace mantissa::ui {

namespace {

using telemetry::TensorClass;

// Draws the step the run diverged at, as its log records it (the step row's
// or the summary's), as a labelled line.
void markDivergence(CurveChart& chart, const QString& id, const train::RunLog& log) {
  const nlohmann::json* divergence = nullptr;
  for (const auto& row : log.steps)
    if (const auto it = row.raw.find("divergence"); it != row.raw.end() && it->is_object()) {
      divergence = &*it;
      break;
    }
  if (divergence == nullptr && log.summary.is_object())
    if (const auto it = log.summary.find("divergence"); it != log.summary.end() && it->is_object())
      divergence = &*it;
  if (divergence == nullptr)
    return;
  const auto step = divergence->find("step");
  if (step == divergence->end() || !step->is_number())
    return;
  chart.setDivergence(id, step->get<double>(),
                      CurveChart::divergenceLineLabel(
                          step->get<std::int64_t>(),
                          QString::fromStdString(divergence->value("reason", std::string()))));
}

std::unique_ptr<ChartWidget> curveChart(const std::vector<NamedRunLog>& runs, bool accuracy) {
  std::unique_ptr<CurveChart> chart;
  if (accuracy)
    chart = std::make_unique<AccuracyChart>();
  else
    chart = std::make_unique<LossChart>();
  QList<ChartRun> chartRuns;
  for (std::size_t i = 0; i < runs.size(); ++i)
    chartRuns.append(ChartRun{QStringLiteral("run%1").arg(i + 1), runs[i].name, runs[i].color});
  chart->setRuns(chartRuns);
  const double factor = accuracy ? 100.0 : 1.0; // accuracy in percent
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const train::RunLog& log = *runs[i].log;
    QList<QPointF> trainPoints;
    QList<QPointF> testPoints;
    QList<double> skipped;
    trainPoints.reserve(qsizetype(log.steps.size()));
    for (const auto& row : log.steps) {
      trainPoints.append(
          QPointF(double(row.step), (accuracy ? row.trainAccuracy : row.loss) * factor));
      if (row.skipped)
        skipped.append(double(row.step));
    }
    for (const auto& e : log.evals)
      testPoints.append(QPointF(double(e.step), (accuracy ? e.testAccuracy : e.testLoss) * factor));
    chart->updateRun(chartRuns[qsizetype(i)].id, trainPoints, testPoints, skipped);
    markDivergence(*chart, chartRuns[qsizetype(i)].id, log);
  }
  return chart;
}

// What the run's settings add to its name (the underflow preset's "loss ×
// 2^-14"), as the Train page titles it; none for a log without a config.
QStringList logSettings(const train::RunLog& log) {
  return log.config ? settingsBeyondSetupText(*log.config) : QStringList{};
}

std::unique_ptr<ChartWidget> curveChart(const train::RunLog& log, bool accuracy) {
  const QString name = QString::fromStdString(log.name());
  return curveChart({NamedRunLog{&log, log.config ? withSettingsBeyondSetup(name, *log.config) : name,
                                 QColor()}},
                    accuracy);
}

std::unique_ptr<ChartWidget> lossScaleChart(const train::RunLog& log) {
  auto chart = std::make_unique<LossScaleChart>();
  QString preset;
  try {
    preset = QString::fromStdString(train::runScalerPreset(log));
  } catch (const std::exception&) {
    if (log.config) // a recipe this version does not know: the scaler as logged
      preset = QString::fromStdString(log.config->scaler);
  }
  chart->setPreset(preset, logSettings(log));
  std::vector<telemetry::LossScaleRecord> records;
  std::vector<amp::ScalerEvent> events;
  records.reserve(log.steps.size());
  for (const auto& row : log.steps) {
    records.push_back({row.step, amp::ScalerState{row.lossScale, row.growthTracker, row.hysteresis},
                       row.foundInf, row.skipped});
    events.insert(events.end(), row.events.begin(), row.events.end());
  }
  chart->setTrace(records, events);
  return chart;
}

std::unique_ptr<ChartWidget> histogramChart(const train::RunLog& log, const RunChartSpec& spec,
                                            QString* error) {
  if (log.frames.empty()) {
    *error = QObject::tr("the run logged no telemetry (train with --telemetry-every K)");
    return nullptr;
  }
  const telemetry::TelemetryFrame* frame =
      spec.step < 0 ? &log.frames.back() : log.frameAt(spec.step);
  if (frame == nullptr) {
    QStringList steps;
    for (const auto& f : log.frames)
      steps.append(QString::number(f.step));
    if (steps.size() > 12)
      steps = steps.mid(0, 6) + QStringList{QStringLiteral("...")} + steps.mid(steps.size() - 6);
    *error = QObject::tr("no telemetry at step %1 (telemetry steps: %2)")
                 .arg(spec.step)
                 .arg(steps.join(QStringLiteral(", ")));
    return nullptr;
  }
  const auto* unscaled = frame->find(spec.layer, TensorClass::WeightGrads, false);
  if (unscaled == nullptr) {
    *error = QObject::tr("no weight-gradient histogram of layer %1 at step %2")
                 .arg(spec.layer)
                 .arg(frame->step);
    return nullptr;
  }
  const auto* scaled = frame->find(spec.layer, TensorClass::WeightGrads, true);
  auto chart = std::make_unique<HistogramChart>();
  if (const auto format = runTensorFormat(log, TensorClass::WeightGrads))
    chart->setRunFormat(*format);
  else
    chart->setRunFormat(std::nullopt);
  chart->setHistograms(unscaled->hist, scaled ? &scaled->hist : nullptr,
                       scaled ? scaled->lossScale : 1.0);
  chart->setShowScaled(spec.scaled);
  chart->setSubject((QStringList{QObject::tr("layer %1 weight gradients, step %2")
                                     .arg(spec.layer)
                                     .arg(frame->step)} +
                     logSettings(log))
                        .join(QStringLiteral(" · ")));
  return chart;
}

} // namespace

std::optional<numeric::FloatFormat> runTensorFormat(const train::RunLog& log, TensorClass cls) {
  const auto policy = train::runPolicy(log);
  if (!policy)
    return std::nullopt;
  try {
    return amp::floatFormat(amp::tensorFormat(*policy, cls));
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

std::optional<RunChartSpec> parseRunChartSpec(const QString& text, QString* error) {
  const QStringList parts = text.split(QLatin1Char(':'));
  const QString name = parts.front().toLower();
  RunChartSpec spec;
  if (name == QLatin1String("loss") && parts.size() == 1)
    spec.kind = RunChartKind::Loss;
  else if (name == QLatin1String("accuracy") && parts.size() == 1)
    spec.kind = RunChartKind::Accuracy;
  else if (name == QLatin1String("loss-scale") && parts.size() == 1)
    spec.kind = RunChartKind::LossScale;
  else if (name == QLatin1String("error") && parts.size() == 1)
    spec.kind = RunChartKind::Error;
  else if (name == QLatin1String("histogram") && (parts.size() == 1 || parts.size() == 3)) {
    spec.kind = RunChartKind::Histogram;
    spec.step = -1;
    if (parts.size() == 3) {
      bool layerOk = false;
      bool stepOk = false;
      spec.layer = parts[1].toInt(&layerOk);
      spec.step = parts[2].toLongLong(&stepOk);
      if (!layerOk || !stepOk || spec.layer < 0 || spec.step < 0) {
        *error = QObject::tr("--chart: '%1': LAYER and STEP must be non-negative integers "
                             "(histogram:LAYER:STEP)")
                     .arg(text);
        return std::nullopt;
      }
    }
  } else {
    *error = QObject::tr("--chart: unknown chart '%1' (expected loss, accuracy, loss-scale, "
                         "histogram, histogram:LAYER:STEP or error)")
                 .arg(text);
    return std::nullopt;
  }
  return spec;
}

QString runChartStem(const RunChartSpec& spec) {
  switch (spec.kind) {
  case RunChartKind::Loss: return QStringLiteral("loss");
  case RunChartKind::Accuracy: return QStringLiteral("accuracy");
  case RunChartKind::LossScale: return QStringLiteral("loss_scale");
  case RunChartKind::Histogram:
    return QStringLiteral("histogram_layer%1_step%2").arg(spec.layer).arg(spec.step);
  case RunChartKind::Error: return QStringLiteral("shadow_error");
  }
  return {};
}

std::unique_ptr<ChartWidget> makeRunChart(const train::RunLog& log, const RunChartSpec& spec,
                                          QString* error) {
  switch (spec.kind) {
  case RunChartKind::Loss: return curveChart(log, false);
  case RunChartKind::Accuracy: return curveChart(log, true);
  case RunChartKind::LossScale: return lossScaleChart(log);
  case RunChartKind::Histogram: return histogramChart(log, spec, error);
  case RunChartKind::Error:
    *error = QObject::tr("the error map is not a curve chart");
    return nullptr;
  }
  return nullptr;
}

std::unique_ptr<ExportableChart> makeRunFigure(const train::RunLog& log, const RunChartSpec& spec,
                                               QString* error) {
  if (spec.kind != RunChartKind::Error)
    return makeRunChart(log, spec, error);
  if (log.shadow.empty()) {
    *error = QObject::tr("the run has no shadow frames (train it with --shadow fp32 or "
                         "--shadow fp64, or the Setup's Shadow reference)");
    return nullptr;
  }
  std::vector<std::shared_ptr<const train::ShadowFrame>> frames;
  frames.reserve(log.shadow.size());
  for (const train::ShadowFrame& frame : log.shadow)
    frames.push_back(std::make_shared<const train::ShadowFrame>(frame));
  auto map = std::make_unique<ShadowErrorMap>();
  map->setSubject(QString::fromStdString(log.name()));
  map->setFrames(std::move(frames));
  return map;
}

std::vector<std::int64_t> defaultHistogramSteps(const train::RunLog& log) {
  std::vector<std::int64_t> steps;
  const std::size_t n = log.frames.size();
  for (std::size_t i : {std::size_t{0}, n / 2, n - 1})
    if (n > 0 && (steps.empty() || steps.back() != log.frames[i].step))
      steps.push_back(log.frames[i].step);
  return steps;
}

std::vector<int> histogramLayers(const train::RunLog& log, std::int64_t step) {
  std::vector<int> layers;
  if (const auto* frame = log.frameAt(step))
    for (const auto& t : frame->tensors)
      if (t.cls == TensorClass::WeightGrads && !t.scaled)
        layers.push_back(t.layer);
  return layers;
}

std::vector<RunChartSpec> allRunCharts(const train::RunLog& log) {
  std::vector<RunChartSpec> specs{{RunChartKind::Loss}, {RunChartKind::Accuracy},
                                  {RunChartKind::LossScale}};
  for (std::int64_t step : defaultHistogramSteps(log))
    for (int layer : histogramLayers(log, step))
      specs.push_back({RunChartKind::Histogram, layer, step});
  if (!log.shadow.empty())
    specs.push_back({RunChartKind::Error});
  return specs;
}

std::unique_ptr<ChartWidget> makeRunsCurveChart(const std::vector<NamedRunLog>& runs,
                                                bool accuracy) {
  return curveChart(runs, accuracy);
}

QString exportRunCharts(const train::RunLog& log, const QString& dir, const ExportOptions& options,
                        QStringList* written) {
  if (!QDir().mkpath(dir))
    return QObject::tr("cannot create directory %1").arg(dir);
  for (const RunChartSpec& spec : allRunCharts(log)) {
    QString error;
    const auto chart = makeRunFigure(log, spec, &error);
    if (!chart)
      return error;
    for (const char* extension : {"svg", "png", "csv"}) {
      const QString path =
          QDir(dir).filePath(runChartStem(spec) + QLatin1Char('.') + QLatin1String(extension));
      if (const QString failure = exportChart(*chart, path, options); !failure.isEmpty())
        return failure;
      if (written)
        written->append(path);
    }
  }
  return {};
}

} // namespace mantissa::ui
