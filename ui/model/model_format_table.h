// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "ui/charts/chart_export.h"

#include <mantissa/inspect/model_scan.h>

#include <QTableWidget>

#include <optional>

namespace mantissa::ui {

// One tensor against every target format (inspect::kTargets), one row per
// format, as core's scan counted it: the share of finite values that would
// overflow (elementwise casts) or saturate (block schemes), be lost to zero
// or stored as subnormals, the SQNR, and the blocks whose maximum was
// clipped or which hold Inf / NaN. Exports like a chart (right click).
class ModelFormatTable : public QTableWidget, public ExportableChart {
  Q_OBJECT
public:
  enum Column { Format, Overflow, LostToZero, Subnormal, Sqnr, Clipped, Poisoned, ColumnCount };

  explicit ModelFormatTable(QWidget* parent = nullptr);

  void setTensor(const inspect::TensorStats& stats, const QString& name);
  void clearTensor();
  const std::optional<inspect::TensorStats>& stats() const { return m_stats; }
  int wholeWidth() const;
  QSize sizeHint() const override;

  QString title() const override;
  void render(QPainter& painter, const QRectF& target, const ExportStyle& style) const override;
  QString csv() const override;
  QJsonDocument json() const override;

protected:
  void contextMenuEvent(QContextMenuEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

private:
  QStringList cells(inspect::Target target) const;

  std::optional<inspect::TensorStats> m_stats;
  QString m_name;
};

} // namespace mantissa::ui
