// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/model/model_tensor_view.h"

#include "ui/charts/export_menu.h"
#include "ui/model/model_tensor_model.h"
#include "ui/model/text_table.h"

#include <QContextMenuEvent>
#include <QFileInfo>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonObject>
#include <QSortFilterProxyModel>

#include <cmath>
#include <functional>

namespace mantissa::ui {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

QString g17(double v) { return QString::number(v, 'g', 17); }

QJsonValue jsonNumber(double v) { return std::isfinite(v) ? QJsonValue(v) : QJsonValue(); }

} // namespace

ModelTensorView::ModelTensorView(QWidget* parent) : QTreeView(parent) {
  setObjectName(QStringLiteral("modelTensors"));
  m_model = new ModelTensorModel(this);
  m_proxy = new QSortFilterProxyModel(this);
  m_proxy->setSourceModel(m_model);
  m_proxy->setSortRole(ModelTensorModel::SortRole);
  m_proxy->setFilterRole(ModelTensorModel::NameRole);
  m_proxy->setFilterKeyColumn(ModelTensorModel::Name);
  m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
  m_proxy->setRecursiveFilteringEnabled(true);
  m_proxy->setAutoAcceptChildRows(true);
  setModel(m_proxy);
  setSortingEnabled(true);
  sortByColumn(-1, Qt::AscendingOrder); // file order until a header is clicked
  setUniformRowHeights(true);
  setAlternatingRowColors(true);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setSelectionMode(QAbstractItemView::SingleSelection);
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  header()->setStretchLastSection(true);
  header()->setSectionsMovable(false);
  setToolTip(tr("Every tensor, grouped by layer. Click a header to sort; right click to export."));
  connect(selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            const qlonglong t = current.siblingAtColumn(0).data(ModelTensorModel::TensorRole).toLongLong();
            if (current.isValid() && t >= 0)
              emit tensorSelected(std::size_t(t));
          });
  connect(this, &QAbstractItemView::activated, this, [this](const QModelIndex& index) {
    const qlonglong t = index.siblingAtColumn(0).data(ModelTensorModel::TensorRole).toLongLong();
    if (index.isValid() && t >= 0)
      emit tensorActivated(std::size_t(t));
  });
}

void ModelTensorView::setScan(std::shared_ptr<const ModelScan> scan) {
  m_model->setScan(std::move(scan));
  expandAll();
  for (int c = 0; c < ModelTensorModel::ColumnCount - 1; ++c)
    resizeColumnToContents(c);
  // A long name is cut, not the numbers: the full name is in its tooltip.
  setColumnWidth(ModelTensorModel::Name,
                 std::min(columnWidth(ModelTensorModel::Name), fontMetrics().horizontalAdvance(QLatin1Char('m')) * 28));
}

void ModelTensorView::setNameFilter(const QString& text) {
  m_filterText = text;
  m_proxy->setFilterFixedString(text);
  expandAll();
}

std::vector<std::size_t> ModelTensorView::shownTensors() const {
  std::vector<std::size_t> out;
  std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
    for (int r = 0; r < m_proxy->rowCount(parent); ++r) {
      const QModelIndex i = m_proxy->index(r, 0, parent);
      const qlonglong t = i.data(ModelTensorModel::TensorRole).toLongLong();
      if (t >= 0)
        out.push_back(std::size_t(t));
      walk(i);
    }
  };
  walk({});
  return out;
}

std::optional<std::size_t> ModelTensorView::currentTensor() const {
  const qlonglong t = currentIndex().siblingAtColumn(0).data(ModelTensorModel::TensorRole).toLongLong();
  if (!currentIndex().isValid() || t < 0)
    return std::nullopt;
  return std::size_t(t);
}

bool ModelTensorView::selectTensor(std::size_t index) {
  std::function<QModelIndex(const QModelIndex&)> find = [&](const QModelIndex& parent) -> QModelIndex {
    for (int r = 0; r < m_proxy->rowCount(parent); ++r) {
      const QModelIndex i = m_proxy->index(r, 0, parent);
      if (i.data(ModelTensorModel::TensorRole).toLongLong() == qlonglong(index))
        return i;
      if (const QModelIndex c = find(i); c.isValid())
        return c;
    }
    return {};
  };
  const QModelIndex i = find({});
  if (!i.isValid())
    return false;
  setCurrentIndex(i);
  scrollTo(i);
  return true;
}

QString ModelTensorView::title() const {
  const auto& scan = m_model->scan();
  if (!scan)
    return tr("Tensors");
  const QString file = QFileInfo(scan->path).fileName();
  return m_filterText.isEmpty() ? tr("Tensors of %1").arg(file)
                               : tr("Tensors of %1 whose name holds “%2”").arg(file, m_filterText);
}

void ModelTensorView::render(QPainter& painter, const QRectF& target, const ExportStyle& style) const {
  QStringList head;
  for (int c = 0; c < ModelTensorModel::ColumnCount; ++c)
    head << ModelTensorModel::headerText(c);
  // The rows as shown, with full names (under a layer the tree shows the short one).
  std::vector<QStringList> rows;
  std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
    for (int r = 0; r < m_proxy->rowCount(parent); ++r) {
      const QModelIndex i = m_proxy->index(r, 0, parent);
      if (i.data(ModelTensorModel::TensorRole).toLongLong() >= 0) {
        QStringList row{i.data(ModelTensorModel::NameRole).toString()};
        for (int c = 1; c < ModelTensorModel::ColumnCount; ++c)
          row << i.siblingAtColumn(c).data().toString();
        rows.push_back(row);
      }
      walk(i);
    }
  };
  walk({});
  renderTextTable(painter, target, style, title(), head, rows, 3);
}

QString ModelTensorView::csv() const {
  QString out = QStringLiteral(
      "name,layer,dtype,shape,elements,bytes,scanned,min,max,absmax,zeros,nan,pos_inf,neg_inf,scale\n");
  const auto& scan = m_model->scan();
  if (!scan)
    return out;
  for (std::size_t t : shownTensors()) {
    const inspect::ModelTensor& m = scan->model->tensors()[t];
    const inspect::TensorStats& s = scan->stats[t];
    QStringList f{csvField(qs(m.name)), csvField(qs(inspect::layerOf(m.name))), csvField(qs(m.dtype)),
                  csvField(qs(inspect::shapeText(m.shape))), QString::number(m.elements),
                  QString::number(m.bytes), s.scanned ? QStringLiteral("1") : QStringLiteral("0")};
    if (s.scanned)
      f << g17(s.min) << g17(s.max) << g17(s.absmax) << QString::number(s.zeros) << QString::number(s.nan)
        << QString::number(s.posInf) << QString::number(s.negInf);
    else
      f << QString() << QString() << QString() << QString() << QString() << QString() << QString();
    f << csvField(m_model->scaleText(t));
    out += f.join(u',') + u'\n';
  }
  return out;
}

QJsonDocument ModelTensorView::json() const {
  QJsonObject root;
  root[QStringLiteral("title")] = title();
  QJsonArray rows;
  const auto& scan = m_model->scan();
  if (scan) {
    for (std::size_t t : shownTensors()) {
      const inspect::ModelTensor& m = scan->model->tensors()[t];
      const inspect::TensorStats& s = scan->stats[t];
      QJsonObject o;
      o[QStringLiteral("name")] = qs(m.name);
      o[QStringLiteral("layer")] = qs(inspect::layerOf(m.name));
      o[QStringLiteral("dtype")] = qs(m.dtype);
      QJsonArray shape;
      for (std::uint64_t d : m.shape)
        shape.append(double(d));
      o[QStringLiteral("shape")] = shape;
      o[QStringLiteral("bytes")] = double(m.bytes);
      o[QStringLiteral("scanned")] = s.scanned;
      if (s.scanned) {
        o[QStringLiteral("min")] = jsonNumber(s.min);
        o[QStringLiteral("max")] = jsonNumber(s.max);
        o[QStringLiteral("absmax")] = jsonNumber(s.absmax);
        o[QStringLiteral("zeros")] = double(s.zeros);
        o[QStringLiteral("non_finite")] = double(s.nonFinite());
      }
      o[QStringLiteral("scale")] = m_model->scaleText(t);
      rows.append(o);
    }
  }
  root[QStringLiteral("tensors")] = rows;
  return QJsonDocument(root);
}

void ModelTensorView::contextMenuEvent(QContextMenuEvent* event) { popupExportMenu(this, *this, event->globalPos()); }

} // namespace mantissa::ui
