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
  QStringList categories;
  std::vector<std::vector<double>> values(7);
  for (const RecipeStepTime& r : recipes) {
    categories.append(r.emulated ? tr("%1\n(FP32 compute)").arg(r.recipe) : r.recipe);
    const model::OpTimes& t = r.times;
    const double parts[] = {t.matmulForward + t.matmulBackward, t.conversion, t.elementwise,
                            t.loss, t.optimizer, t.telemetry, t.data};
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i].push_back(parts[i]);
  }
  setBars(categories, phaseNames(), values, tr("time per step (ms)"), QStringLiteral("ms"));
}

} // namespace mantissa::ui
