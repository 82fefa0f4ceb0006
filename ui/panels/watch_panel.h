// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "ui/bridge/run_data.h"

#include <QWidget>

#include <optional>

class QLabel;
class QSpinBox;
class QStackedWidget;

namespace mantissa::ui {

class BitCells;

// "Watch a value": one weight of the selected run, its FP32 bits (master
// copy) above its bits in the working precision the forward pass reads,
// updated live, with a mark when an update was swamped (its gradient was
// non-zero but the stored weight did not change).
class WatchPanel : public QWidget {
  Q_OBJECT
public:
  explicit WatchPanel(QWidget* parent = nullptr);

  // Layer shapes of the selected run's model: widths [I_0, O_0 = I_1, ...].
  void setModelWidths(const std::vector<int>& widths);
  void setSample(const std::optional<WatchSample>& sample, std::int64_t step);
  // After a histogram click: the trainer looks for a weight in binade e.
  void showSearching(const QString& what, int exponent);

  int layer() const;
  std::int64_t flatIndex() const;
  const BitCells* masterBits() const { return m_master; }
  const BitCells* workingBits() const;
  QString swampText() const;

signals:
  void watchRequested(int layer, std::int64_t index);

private:
  void emitRequest();

  QSpinBox* m_layer = nullptr;
  QSpinBox* m_row = nullptr;
  QSpinBox* m_col = nullptr;
  QLabel* m_masterTitle = nullptr;
  QLabel* m_masterValue = nullptr;
  BitCells* m_master = nullptr;
  QLabel* m_workingTitle = nullptr;
  QLabel* m_workingValue = nullptr;
  QStackedWidget* m_workingStack = nullptr;
  BitCells* m_working[3] = {}; // by DType: F32, BF16, F16
  QLabel* m_gradient = nullptr; // the tip, then the weight being searched for (wrapped)
  QLabel* m_live = nullptr;     // step, index and gradient of the watched weight
  QLabel* m_swamp = nullptr;
  std::vector<int> m_widths;
};

} // namespace mantissa::ui
