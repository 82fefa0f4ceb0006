// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "stacked_bar_chart.h"

namespace mantissa::ui {

struct RecipeMemory {
  QString recipe;
  std::vector<double> bytes; // per tensor class, in the order given to setData
};

// Bytes per tensor class (weights, master weights, gradients, activations,
// optimizer state, ...), one stacked bar per recipe, in KiB or MiB.
class MemoryChart : public StackedBarChart {
  Q_OBJECT
public:
  explicit MemoryChart(QWidget* parent = nullptr);
  // Returns false if a recipe has a different number of classes.
  bool setData(const QStringList& tensorClasses, const std::vector<RecipeMemory>& recipes);
};

} // namespace mantissa::ui
