// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <mantissa/numeric/block_quant.h>

#include <QWidget>

#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QTableWidget;

namespace mantissa::ui {

// One block of a block-scaled format: type or paste up to 32 values, pick a
// scheme (MXFP8/6/4, MXINT8, NVFP4, FP8 block or tensor) and its scale
// rounding, and see the shared scale's bits, each element's bits and stored
// value, and which elements were clipped or lost to zero.
class BlockView : public QWidget {
  Q_OBJECT
public:
  static constexpr std::size_t kMaxValues = 32;

  explicit BlockView(QWidget* parent = nullptr);

  // Shows a block picked from a tensor (at most kMaxValues values, each
  // written out exactly), with the scheme and scale rounding it was
  // quantized with; `source` says where it came from.
  void showBlock(const std::vector<double>& values, numeric::BlockScheme scheme,
                 numeric::ScaleRounding rounding, const QString& source);
  QLabel* sourceLabel() const { return m_source; }

  QLineEdit* valuesInput() const { return m_values; }
  QComboBox* schemeBox() const { return m_scheme; }
  QComboBox* scaleRoundingBox() const { return m_scaleRounding; }
  QLabel* scaleLabel() const { return m_scale; }
  QLabel* message() const { return m_message; }
  QTableWidget* table() const { return m_table; }
  // The last quantization shown; nullopt while the input has an error.
  const std::optional<numeric::QuantizedTensor>& result() const { return m_result; }

private:
  void refresh();

  QLineEdit* m_values = nullptr;
  QComboBox* m_scheme = nullptr;
  QComboBox* m_scaleRounding = nullptr;
  QLabel* m_scale = nullptr;
  QLabel* m_source = nullptr;
  QLabel* m_message = nullptr;
  QTableWidget* m_table = nullptr;
  std::optional<numeric::QuantizedTensor> m_result;
};

} // namespace mantissa::ui
