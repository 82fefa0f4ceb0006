// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "chart_widget.h"

#include <QStringList>

#include <vector>

class QBarCategoryAxis;
class QBarSet;
class QStackedBarSeries;
class QValueAxis;

namespace mantissa::ui {

// Stacked bars: one bar per category (a recipe), one segment per part
// (an op kind, a tensor class). Base of StepTimeChart and MemoryChart.
class StackedBarChart : public ChartWidget {
  Q_OBJECT
public:
  explicit StackedBarChart(QWidget* parent = nullptr);

  QStackedBarSeries* series() const { return m_series; }
  QBarSet* partSet(int part) const;
  int partCount() const { return static_cast<int>(m_parts.size()); }

  QString csv() const override;
  QJsonDocument json() const override;

protected:
  // values[part][category], in the unit named by unit.
  void setBars(const QStringList& categories, const QStringList& parts,
               const std::vector<std::vector<double>>& values, const QString& yTitle,
               const QString& unit);
  void restyleSeries(const ChartStyle& style) override;

private:
  QStringList m_categories;
  QStringList m_parts;
  std::vector<std::vector<double>> m_values;
  QString m_unit;
  QStackedBarSeries* m_series = nullptr;
  QBarCategoryAxis* m_x = nullptr;
  QValueAxis* m_y = nullptr;
};

} // namespace mantissa::ui
