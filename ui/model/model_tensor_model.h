// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "ui/model/model_scan_job.h"

#include <QAbstractItemModel>

#include <memory>
#include <vector>

namespace mantissa::ui {

// The tensors of a scanned model as a tree: one group row per layer
// (inspect::layerOf: "model.layers.3"), its tensors under it; tensors outside
// any layer (embeddings, the head) at the top level. Every number is core's
// (ModelScan::stats); a group row shows its tensor count and bytes only.
//   DisplayRole: as shown ("1.5e+04", "12 MB", "–" for a tensor not decoded)
//   SortRole:    the raw value as a double (a layer: its children's extreme), or the full name
//   TensorRole:  the tensor's index into ModelFile::tensors(), -1 for a group
//   NameRole:    the full tensor name (a group: the layer), for the name filter
class ModelTensorModel : public QAbstractItemModel {
  Q_OBJECT
public:
  // What decides a format's fate first (absmax, non-finite values), the rest after.
  enum Column { Name, DType, Shape, AbsMax, NonFinite, Zeros, Min, Max, Bytes, Scale, ColumnCount };
  enum Role { SortRole = Qt::UserRole + 1, TensorRole, NameRole };

  explicit ModelTensorModel(QObject* parent = nullptr);

  void setScan(std::shared_ptr<const ModelScan> scan);
  const std::shared_ptr<const ModelScan>& scan() const { return m_scan; }
  // What the Scale column says of tensor `index`: "block-128: X.weight_scale_inv",
  // "scale of X.weight", "orphan: F8_E4M3 values with no scale tensor", or "".
  QString scaleText(std::size_t index) const;
  bool isOrphan(std::size_t index) const;
  static QString headerText(int column);

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  struct Group {
    QString layer;
    std::vector<std::size_t> tensors;
    unsigned long long bytes = 0;
  };
  // A top-level row: a group (group >= 0) or a tensor outside any layer.
  struct Top {
    int group = -1;
    std::size_t tensor = 0;
  };
  QVariant tensorData(std::size_t tensor, int column, int role) const;
  QVariant groupData(const Group& group, int column, int role) const;

  std::shared_ptr<const ModelScan> m_scan;
  std::vector<Top> m_top;
  std::vector<Group> m_groups;
  std::vector<int> m_groupRow;          // group -> its row in m_top
  std::vector<QString> m_scaleText;     // per tensor
  std::vector<bool> m_orphan;           // per tensor
};

} // namespace mantissa::ui
