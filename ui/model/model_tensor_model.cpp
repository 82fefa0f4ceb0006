// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/model/model_tensor_model.h"

#include "ui/app_shell/palette.h"

#include <QApplication>
#include <QLocale>
#include <QPalette>

#include <cmath>
#include <map>

namespace mantissa::ui {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

// Four significant digits on screen; the CSV and JSON exports hold every digit.
QString number(double v) { return QString::number(v, 'g', 4); }

} // namespace

ModelTensorModel::ModelTensorModel(QObject* parent) : QAbstractItemModel(parent) {}

QString ModelTensorModel::headerText(int column) {
  switch (column) {
  case Name: return tr("name");
  case DType: return tr("dtype");
  case Shape: return tr("shape");
  case Bytes: return tr("bytes");
  case Min: return tr("min");
  case Max: return tr("max");
  case AbsMax: return tr("absmax");
  case Zeros: return tr("zeros");
  case NonFinite: return tr("non-finite");
  case Scale: return tr("scale");
  default: return {};
  }
}

void ModelTensorModel::setScan(std::shared_ptr<const ModelScan> scan) {
  beginResetModel();
  m_scan = std::move(scan);
  m_top.clear();
  m_groups.clear();
  m_groupRow.clear();
  m_scaleText.clear();
  m_orphan.clear();
  if (m_scan) {
    const auto& tensors = m_scan->model->tensors();
    std::map<std::string, int> groupOf;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      const std::string layer = inspect::layerOf(tensors[i].name);
      if (layer.empty()) {
        m_top.push_back({-1, i});
        continue;
      }
      auto [it, added] = groupOf.try_emplace(layer, int(m_groups.size()));
      if (added) {
        m_groups.push_back({qs(layer), {}, 0});
        m_groupRow.push_back(int(m_top.size()));
        m_top.push_back({it->second, 0});
      }
      Group& g = m_groups[std::size_t(it->second)];
      g.tensors.push_back(i);
      g.bytes += tensors[i].bytes;
    }
    m_scaleText.assign(tensors.size(), QString());
    m_orphan.assign(tensors.size(), false);
    for (const inspect::ScalePairing& p : m_scan->pairings) {
      const QString kind = QString::fromUtf8(inspect::scaleKindName(p.kind).data());
      if (p.kind == inspect::ScaleKind::Orphan) {
        m_orphan[p.tensor] = true;
        m_scaleText[p.tensor] = tr("orphan: %1").arg(qs(p.note));
      } else if (p.kind == inspect::ScaleKind::InputScale) {
        m_scaleText[p.tensor] = tr("input scale");
      } else {
        QString text = kind;
        if (p.scale) {
          text += QStringLiteral(": ") + qs(tensors[*p.scale].name);
          m_scaleText[*p.scale] = tr("scale of %1").arg(qs(tensors[p.tensor].name));
        }
        if (p.globalScale) {
          text += QStringLiteral(" + ") + qs(tensors[*p.globalScale].name);
          m_scaleText[*p.globalScale] = tr("global scale of %1").arg(qs(tensors[p.tensor].name));
        }
        if (!p.note.empty())
          text += QStringLiteral(" (") + qs(p.note) + u')';
        m_scaleText[p.tensor] = text;
      }
    }
  }
  endResetModel();
}

QString ModelTensorModel::scaleText(std::size_t index) const {
  return index < m_scaleText.size() ? m_scaleText[index] : QString();
}

bool ModelTensorModel::isOrphan(std::size_t index) const {
  return index < m_orphan.size() && m_orphan[index];
}

// A group's children carry the group's number + 1 as internal id; top-level rows 0.
QModelIndex ModelTensorModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= ColumnCount)
    return {};
  if (!parent.isValid())
    return row < int(m_top.size()) ? createIndex(row, column, quintptr(0)) : QModelIndex();
  if (parent.internalId() != 0 || parent.row() >= int(m_top.size()))
    return {};
  const int g = m_top[std::size_t(parent.row())].group;
  if (g < 0 || row >= int(m_groups[std::size_t(g)].tensors.size()))
    return {};
  return createIndex(row, column, quintptr(g + 1));
}

QModelIndex ModelTensorModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() == 0)
    return {};
  const int g = int(child.internalId()) - 1;
  return createIndex(m_groupRow[std::size_t(g)], 0, quintptr(0));
}

int ModelTensorModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid())
    return int(m_top.size());
  if (parent.internalId() != 0 || parent.column() != 0)
    return 0;
  const int g = m_top[std::size_t(parent.row())].group;
  return g < 0 ? 0 : int(m_groups[std::size_t(g)].tensors.size());
}

int ModelTensorModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant ModelTensorModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal)
    return {};
  if (role == Qt::DisplayRole)
    return headerText(section);
  if (role == Qt::ToolTipRole) {
    switch (section) {
    case Min: case Max: case AbsMax: return tr("Over the finite values");
    case NonFinite: return tr("NaN and ±infinity");
    case Scale: return tr("The scale tensor paired with a low-precision tensor; an orphan has none");
    default: return {};
    }
  }
  return {};
}

QVariant ModelTensorModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !m_scan)
    return {};
  if (index.internalId() == 0) {
    const Top& top = m_top[std::size_t(index.row())];
    if (top.group >= 0)
      return groupData(m_groups[std::size_t(top.group)], index.column(), role);
    return tensorData(top.tensor, index.column(), role);
  }
  const Group& g = m_groups[std::size_t(index.internalId() - 1)];
  return tensorData(g.tensors[std::size_t(index.row())], index.column(), role);
}

QVariant ModelTensorModel::groupData(const Group& group, int column, int role) const {
  switch (role) {
  case TensorRole: return -1;
  case NameRole: return group.layer;
  case Qt::DisplayRole:
    if (column == Name)
      return tr("%1  (%n tensors)", nullptr, int(group.tensors.size())).arg(group.layer);
    if (column == Bytes)
      return QLocale().formattedDataSize(qint64(group.bytes));
    return {};
  case SortRole: {
    // A layer sorts among the tensors by its children's most extreme key
    // (the smallest for Min, else the largest), so a sort by absmax brings
    // the layer holding the largest value up with them.
    if (column == Name || column == DType || column == Scale)
      return group.layer;
    if (column == Bytes)
      return double(group.bytes);
    double key = column == Min ? std::numeric_limits<double>::infinity()
                               : -std::numeric_limits<double>::infinity();
    for (std::size_t t : group.tensors) {
      const double v = tensorData(t, column, SortRole).toDouble();
      key = column == Min ? std::min(key, v) : std::max(key, v);
    }
    return key;
  }
  case Qt::TextAlignmentRole:
    return column == Name ? QVariant() : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
  case Qt::FontRole: {
    QFont f = QApplication::font();
    f.setBold(true);
    return f;
  }
  default: return {};
  }
}

QVariant ModelTensorModel::tensorData(std::size_t i, int column, int role) const {
  const inspect::ModelTensor& t = m_scan->model->tensors()[i];
  const inspect::TensorStats& s = m_scan->stats[i];
  const bool grouped = !inspect::layerOf(t.name).empty();
  switch (role) {
  case TensorRole: return qlonglong(i);
  case NameRole: return qs(t.name);
  case Qt::DisplayRole:
    switch (column) {
    case Name: {
      // Under its layer's row the layer is not repeated.
      const std::string layer = inspect::layerOf(t.name);
      return grouped && t.name.size() > layer.size() + 1 ? qs(t.name.substr(layer.size() + 1)) : qs(t.name);
    }
    case DType: return qs(t.dtype);
    case Shape: return qs(inspect::shapeText(t.shape));
    case Bytes: return QLocale().formattedDataSize(qint64(t.bytes));
    case Scale: return m_scaleText[i];
    default: break;
    }
    if (!s.scanned)
      return column == Min ? (t.decoded ? tr("not scanned") : tr("not decoded")) : QStringLiteral("–");
    switch (column) {
    case Min: return number(s.min);
    case Max: return number(s.max);
    case AbsMax: return number(s.absmax);
    case Zeros: return QLocale().toString(qulonglong(s.zeros));
    case NonFinite: return QLocale().toString(qulonglong(s.nonFinite()));
    default: return {};
    }
  case SortRole:
    switch (column) {
    case Name: return qs(t.name);
    case DType: return qs(t.dtype);
    case Shape: return double(t.elements);
    case Bytes: return double(t.bytes);
    case Scale: return m_scaleText[i];
    default: break;
    }
    if (!s.scanned) // below every scanned value
      return -std::numeric_limits<double>::infinity();
    switch (column) {
    case Min: return s.min;
    case Max: return s.max;
    case AbsMax: return s.absmax;
    case Zeros: return double(s.zeros);
    case NonFinite: return double(s.nonFinite());
    default: return {};
    }
  case Qt::ToolTipRole:
    if (column == Name)
      return qs(t.name);
    if (column == NonFinite && s.scanned)
      return tr("NaN %1, +inf %2, −inf %3").arg(s.nan).arg(s.posInf).arg(s.negInf);
    if (column == Scale && !m_scaleText[i].isEmpty())
      return m_scaleText[i];
    return {};
  case Qt::TextAlignmentRole:
    return column == Name || column == DType || column == Shape || column == Scale ? QVariant() : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
  case Qt::BackgroundRole: {
    const QColor base = QApplication::palette().color(QPalette::Base);
    if ((column == NonFinite && s.scanned && s.nonFinite() > 0) || (column == Scale && m_orphan[i]))
      return palette::blend(palette::kWarning, base, 0.6);
    return {};
  }
  default: return {};
  }
}

} // namespace mantissa::ui
