// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "stacked_bar_chart.h"

#include <mantissa/model/op_times.h>

namespace mantissa::ui {

struct RecipeStepTime {
  QString recipe;        // "bf16-mixed"
  model::OpTimes times;  // mean milliseconds per step, by op kind
  bool emulated = false; // BF16/FP16 products run through FP32 (no native kernel)
  bool quantized = false; // FP8 / MX operands quantized and dequantized around a wider product
};

// Where a step's time goes, one stacked bar per recipe: matmul, conversion,
// elementwise, loss, optimizer, telemetry, data.
class StepTimeChart : public StackedBarChart {
  Q_OBJECT
public:
  explicit StepTimeChart(QWidget* parent = nullptr);
  void setData(const std::vector<RecipeStepTime>& recipes);
  static QStringList phaseNames();
};

} // namespace mantissa::ui
