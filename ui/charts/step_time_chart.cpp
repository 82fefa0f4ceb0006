// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "step_time_chart.h"

namespace mantissa::ui {

StepTimeChart::StepTimeChart(QWidget* parent) : StackedBarChart(parent) {
  setTitle(tr("Where the step's time goes"));
  setData({});
  applyStyle(chartStyle());
}

QStringList StepTimeChart::phaseNames() {
  return {tr("matmul"), tr("conversion"), tr("elementwise"), tr("loss"),
          tr("optimizer"), tr("telemetry"), tr("data")};
}

void StepTimeChart::setData(const std::vector<RecipeStepTime>& recipes) {
  // Convolution gets its own part when some recipe ran convolutions.
  bool conv = false;
  for (const RecipeStepTime& r : recipes)
    conv = conv || r.times.convForward > 0.0 || r.times.convBackward > 0.0;
  QStringList names = phaseNames();
  if (conv)
    names.insert(1, tr("convolution"));
  // On the axis an emulated recipe is marked "*", explained in the title: a
  // dozen recipes' names then fit beside their bars whole. Both kinds run
  // their products in a wider format than their data: 16-bit data in FP32,
  // FP8 / MX operands (quantized, then dequantized) in FP32 or BF16.
  QStringList categories, shown;
  bool emulated = false;
  std::vector<std::vector<double>> values(std::size_t(names.size()));
  for (const RecipeStepTime& r : recipes) {
    categories.append(r.quantized  ? tr("%1\n(quantized)").arg(r.recipe)
                      : r.emulated ? tr("%1\n(FP32 compute)").arg(r.recipe)
                                   : r.recipe);
    const bool marked = r.emulated || r.quantized;
    shown.append(QString(r.recipe).replace(u'\n', u' ') + (marked ? QStringLiteral(" *") : QString()));
    emulated = emulated || marked;
    const model::OpTimes& t = r.times;
    std::vector<double> parts{t.matmulForward + t.matmulBackward, t.conversion, t.elementwise,
                              t.loss, t.optimizer, t.telemetry, t.data};
    if (conv)
      parts.insert(parts.begin() + 1, t.convForward + t.convBackward);
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i].push_back(parts[i]);
  }
  setTitle(emulated ? tr("Where the step's time goes (* emulated: products run wider than the data)")
                    : tr("Where the step's time goes"));
  setBars(categories, names, values, tr("time per step (ms)"), QStringLiteral("ms"), shown);
}

} // namespace mantissa::ui
