// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "ui/charts/chart_export.h"
#include "ui/model/model_scan_job.h"

#include <QTreeView>

#include <optional>
#include <vector>

class QSortFilterProxyModel;

namespace mantissa::ui {

class ModelTensorModel;

// The tensor table of the Model page: a tree grouped by layer, sortable by
// any column (click a header), filtered by name (setNameFilter: the text
// anywhere in the full name, any case; a layer whose name matches shows all
// its tensors). Exports like a chart (right click): the rows shown, in the
// order shown, as CSV / JSON with core's numbers, or as a picture.
class ModelTensorView : public QTreeView, public ExportableChart {
  Q_OBJECT
public:
  explicit ModelTensorView(QWidget* parent = nullptr);

  void setScan(std::shared_ptr<const ModelScan> scan);
  void setNameFilter(const QString& text);
  ModelTensorModel* tensorModel() const { return m_model; }
  QSortFilterProxyModel* proxy() const { return m_proxy; }
  // The tensors shown (after the filter), in the order shown.
  std::vector<std::size_t> shownTensors() const;
  std::optional<std::size_t> currentTensor() const;
  // Selects (and scrolls to) tensor `index`; false if the filter hides it.
  bool selectTensor(std::size_t index);

  QString title() const override;
  void render(QPainter& painter, const QRectF& target, const ExportStyle& style) const override;
  QString csv() const override;
  QJsonDocument json() const override;

signals:
  void tensorSelected(std::size_t index);
  // Double click or Enter on a tensor's row.
  void tensorActivated(std::size_t index);

protected:
  void contextMenuEvent(QContextMenuEvent* event) override;

private:
  ModelTensorModel* m_model = nullptr;
  QSortFilterProxyModel* m_proxy = nullptr;
  QString m_filterText;
};

} // namespace mantissa::ui
