// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "ui/bridge/tensor_snapshot.h"

#include <mantissa/numeric/block_quant.h>

#include <QPointer>
#include <QWidget>

#include <cstdint>
#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSplitter;
class QTimer;

namespace mantissa::ui {

class BlockScaleMap;
class BlockView;
class RunController;
class WhatIfTable;

// FP8 and microscaling for the tensor being inspected on the Train page (the
// run and layer of the histogram's choosers, its weights or weight
// gradients): the what-if table of every block scheme on its values, and a
// heat map of one scheme's block scales over the matrix with the blocks
// whose maximum was clipped. Clicking a block opens it in the block view.
//
// The matrix is W transposed, [outputs, inputs]: blocks run along the
// inputs, the dimension a matmul sums over (K), as the MX and NVFP4 recipes
// cut them. Quantizing runs on a worker thread, never the GUI thread.
class QuantPanel : public QWidget {
  Q_OBJECT
public:
  explicit QuantPanel(QWidget* parent = nullptr);
  ~QuantPanel() override;

  // What to inspect; takes it now when `take` (and the panel's Follow box
  // re-takes it every two seconds while the run trains).
  void setSource(RunController* controller, int run, int layer, telemetry::TensorClass cls, bool take = true);
  // Asks the controller for the source tensor (answered later, or now when
  // the run is not training). False, with the reason shown, when it has none.
  bool take();
  // Shows this tensor: quantizes it with every scheme (on a worker thread).
  void setTensor(const TensorSnapshot& tensor);

  // Drops the tensor shown (its run is gone).
  void forget();

  bool busy() const { return m_pending > 0; }
  const std::optional<TensorSnapshot>& tensor() const { return m_tensor; }
  // The matrix quantized: the tensor transposed, [outputs, inputs].
  const std::vector<double>& matrix() const { return m_matrix; }
  std::size_t matrixRows() const { return m_rows; }
  std::size_t matrixCols() const { return m_cols; }
  numeric::QuantizeOptions options() const; // what the table and the map use
  const std::optional<numeric::QuantizedTensor>& mapQuantized() const { return m_mapQuantized; }

  WhatIfTable* whatIfTable() const { return m_table; }
  BlockScaleMap* blockMap() const { return m_map; }
  QComboBox* schemeBox() const { return m_scheme; }
  QComboBox* scaleRoundingBox() const { return m_scaleRounding; }
  QCheckBox* followBox() const { return m_follow; }
  QPushButton* takeButton() const { return m_take; }
  QLabel* subjectLabel() const { return m_subject; }
  QLabel* message() const { return m_message; }
  BlockView* blockView() const { return m_blockView; } // nullptr until a block was opened
  // Opens block `index` of the map's quantization in the block view (its
  // first 32 values when the block is larger).
  BlockView* openBlock(int index);

signals:
  void computed(); // the table and the map show the current tensor

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  void fitSubject(); // the longest of m_subjectForms that fits the line
  void recompute();
  void showMessage(const QString& text, bool warning);
  void clearShown(const QString& why);
  void fitTable();

  QPointer<RunController> m_controller;
  int m_run = -1;
  int m_layer = 0;
  telemetry::TensorClass m_cls = telemetry::TensorClass::Weights;

  std::optional<TensorSnapshot> m_tensor;
  std::vector<double> m_matrix;
  std::size_t m_rows = 0, m_cols = 0;
  std::optional<numeric::QuantizedTensor> m_mapQuantized;
  std::uint64_t m_generation = 0; // drops results of an older tensor or setting
  int m_pending = 0;              // requests and computations in flight

  QLabel* m_subject = nullptr;
  QStringList m_subjectForms; // rich text, most detailed first
  QString m_subjectName;      // the last form's text, elided when even it does not fit
  QLabel* m_message = nullptr;
  QComboBox* m_scheme = nullptr;
  QComboBox* m_scaleRounding = nullptr;
  QCheckBox* m_follow = nullptr;
  QPushButton* m_take = nullptr;
  QTimer* m_followTimer = nullptr;
  QSplitter* m_split = nullptr;
  WhatIfTable* m_table = nullptr;
  BlockScaleMap* m_map = nullptr;
  BlockView* m_blockView = nullptr;
};

} // namespace mantissa::ui
