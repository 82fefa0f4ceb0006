// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "ui/charts/chart_export.h"

#include <mantissa/numeric/block_quant.h>

#include <QTableWidget>

#include <vector>

namespace mantissa::ui {

// The what-if table: every block scheme's statistics on the same values
// (numeric::whatIf), one row per scheme: the share of values saturated, lost
// to zero and stored as subnormals, the SQNR, and the blocks whose maximum
// was clipped. Exports like a chart (right click): PNG / SVG / PDF of the
// table, its numbers as CSV / JSON.
class WhatIfTable : public QTableWidget, public ExportableChart {
  Q_OBJECT
public:
  enum Column { Scheme, Saturated, LostToZero, Subnormal, Sqnr, Clipped, ColumnCount };

  explicit WhatIfTable(QWidget* parent = nullptr);

  void setStats(const std::vector<numeric::SchemeStats>& rows, const QString& subject);
  void clearStats();
  const std::vector<numeric::SchemeStats>& stats() const { return m_rows; }
  // The width that shows every column whole.
  int wholeWidth() const;
  // The row of `scheme`, -1 if it is not shown.
  int rowOf(numeric::BlockScheme scheme) const;

  // As shown in a cell: "0.0312 %", "0", "31.4 dB", "12 of 6,272".
  static QString percent(double fraction);
  static QString decibels(double db);

  QString title() const override;
  void render(QPainter& painter, const QRectF& target, const ExportStyle& style) const override;
  QString csv() const override;
  QJsonDocument json() const override;

protected:
  void contextMenuEvent(QContextMenuEvent* event) override;

private:
  std::vector<numeric::SchemeStats> m_rows;
  QString m_subject;
};

} // namespace mantissa::ui
