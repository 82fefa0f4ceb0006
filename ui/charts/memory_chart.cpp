// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "memory_chart.h"

#include <algorithm>

namespace mantissa::ui {

MemoryChart::MemoryChart(QWidget* parent) : StackedBarChart(parent) {
  setTitle(tr("Memory by tensor class"));
  setData({}, {});
  applyStyle(chartStyle());
}

bool MemoryChart::setData(const QStringList& tensorClasses,
                          const std::vector<RecipeMemory>& recipes) {
  double largest = 0.0;
  for (const RecipeMemory& r : recipes) {
    if (static_cast<qsizetype>(r.bytes.size()) != tensorClasses.size())
      return false;
    double total = 0.0;
    for (double b : r.bytes)
      total += std::max(0.0, b);
    largest = std::max(largest, total);
  }
  const bool mebibytes = largest >= 1024.0 * 1024.0;
  const double divisor = mebibytes ? 1024.0 * 1024.0 : 1024.0;
  const QString unit = mebibytes ? QStringLiteral("MiB") : QStringLiteral("KiB");
  QStringList categories;
  std::vector<std::vector<double>> values(static_cast<std::size_t>(tensorClasses.size()));
  for (const RecipeMemory& r : recipes) {
    categories.append(r.recipe);
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i].push_back(r.bytes[i] / divisor);
  }
  setBars(categories, tensorClasses, values, tr("memory (%1)").arg(unit), unit);
  return true;
}

} // namespace mantissa::ui
