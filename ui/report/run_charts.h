// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The charts of one saved (or live) run, built from its RunLog without a
// window on screen: what `mantissa-cli plot`, `train --export`, the run report
// and File -> Open run all draw, so every one of them gives the same picture.

#include <mantissa/numeric/format.h>
#include <mantissa/telemetry/histogram.h>
#include <mantissa/train/run_log.h>

#include "ui/charts/chart_export.h"

#include <QColor>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace mantissa::ui {

class ChartWidget;

// Error: the shadow pass's error map (tensors by shadow steps), for runs
// trained with --shadow.
enum class RunChartKind : std::uint8_t { Loss, Accuracy, LossScale, Histogram, Error };

struct RunChartSpec {
  RunChartKind kind = RunChartKind::Loss;
  int layer = 0;          // Histogram: layer index
  std::int64_t step = -1; // Histogram: a telemetry step; -1 = the last frame
  // Histogram of a loss-scaled run: true shows the values as stored (times the
  // loss scale), which the 16-bit format's regions apply to; false shows the
  // unscaled values with the regions moved by -log2(loss scale).
  bool scaled = true;
};

// "loss", "accuracy", "loss-scale", "histogram", "histogram:LAYER:STEP", "error".
// nullopt with *error set ("--chart: unknown chart 'x' ...") when malformed.
std::optional<RunChartSpec> parseRunChartSpec(const QString& text, QString* error);

// File name stem: "loss", "accuracy", "loss_scale", "histogram_layer1_step200",
// "shadow_error".
QString runChartStem(const RunChartSpec& spec);

// The format the run holds one class of tensor in (amp::tensorFormat of
// train::runPolicy(log)): a named format or a custom element format from a
// spec; nullopt when the log does not say.
std::optional<numeric::FloatFormat> runTensorFormat(const train::RunLog& log,
                                                    telemetry::TensorClass cls);

// A run's log with the name and colour it has on the Train page (an invalid
// colour: the next Okabe-Ito colour by position).
struct NamedRunLog {
  const train::RunLog* log = nullptr;
  QString name;
  QColor color;
};

// The loss (or, with `accuracy`, the accuracy) curves of several runs side by
// side, one legend entry each.
std::unique_ptr<ChartWidget> makeRunsCurveChart(const std::vector<NamedRunLog>& runs,
                                                bool accuracy);

// Builds the chart; nullptr with *error set when the log lacks what it needs
// (no telemetry frame at that step, no such layer).
std::unique_ptr<ChartWidget> makeRunChart(const train::RunLog& log, const RunChartSpec& spec,
                                          QString* error);

// Any chart of the run, the error map included (which is not a curve chart):
// what exports, the report and `mantissa-cli plot` draw.
std::unique_ptr<ExportableChart> makeRunFigure(const train::RunLog& log, const RunChartSpec& spec,
                                               QString* error);

// Histogram steps a report shows: the first, middle and last telemetry frames
// (fewer when the log has fewer); empty when the run logged no telemetry.
std::vector<std::int64_t> defaultHistogramSteps(const train::RunLog& log);
// Layers with a weight-gradient histogram in the frame of `step`.
std::vector<int> histogramLayers(const train::RunLog& log, std::int64_t step);

// Every chart of the run: loss, accuracy, loss scale, and the weight-gradient
// histogram of each layer at defaultHistogramSteps().
std::vector<RunChartSpec> allRunCharts(const train::RunLog& log);

// Writes every chart as SVG and PNG and its data as CSV into `dir` (created
// if missing), each file atomically. Returns "" or the first error; the
// paths written go to *written.
QString exportRunCharts(const train::RunLog& log, const QString& dir, const ExportOptions& options,
                        QStringList* written = nullptr);

} // namespace mantissa::ui
