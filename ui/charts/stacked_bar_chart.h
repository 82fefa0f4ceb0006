// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "chart_widget.h"

#include <QStringList>

#include <vector>

class QAbstractBarSeries;
class QBarCategoryAxis;
class QBarSet;
class QHorizontalStackedBarSeries;
class QValueAxis;

namespace mantissa::ui {

// Stacked bars: one bar per category (a recipe), one segment per part
// (an op kind, a tensor class). Base of StepTimeChart and MemoryChart. The
// bars lie horizontally, the first category on top, so that each category's
// name reads in full on one line at the left however many there are (under
// upright bars, a dozen recipes left each name a bar's width: "fp8-...").
class StackedBarChart : public ChartWidget {
  Q_OBJECT
public:
  explicit StackedBarChart(QWidget* parent = nullptr);

  QAbstractBarSeries* series() const;
  QBarSet* partSet(int part) const; // its values from the bottom bar up
  int partCount() const { return static_cast<int>(m_parts.size()); }
  // The segment of `part` drawn in category `category`'s bar (in the order
  // the categories were given, the first drawn on top).
  double barValue(int part, int category) const;
  // The category names as the axis shows them, top to bottom.
  QStringList shownCategories() const { return m_shown; }

  QString csv() const override;
  QJsonDocument json() const override;

protected:
  // values[part][category], in the unit named by unit. shown: the names on
  // the axis, one line each (default: the categories, a line break read as a
  // space); the CSV and JSON keep the categories.
  void setBars(const QStringList& categories, const QStringList& parts,
               const std::vector<std::vector<double>>& values, const QString& yTitle,
               const QString& unit, const QStringList& shown = {});
  void restyleSeries(const ChartStyle& style) override;

private:
  void fitCategoryFont(); // every category's name shows (see the .cpp)

  QStringList m_categories;
  QStringList m_shown;
  QStringList m_parts;
  std::vector<std::vector<double>> m_values;
  QString m_unit;
  QHorizontalStackedBarSeries* m_series = nullptr;
  QBarCategoryAxis* m_x = nullptr;
  QValueAxis* m_y = nullptr;
};

} // namespace mantissa::ui
