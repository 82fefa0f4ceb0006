// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <mantissa/numeric/format.h>

#include <QWidget>

#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace mantissa::ui {

// A small form for a user-defined format: sign bit, exponent and mantissa
// bits, bias (empty: the default 2^(e-1) - 1), special-value rule and
// subnormals. Every edit is checked at once by core's spec parser
// (numeric::parseFormatSpec); its error, which names the field, shows
// beside the form and Add stays disabled until the format is valid.
class CustomFormatForm : public QWidget {
  Q_OBJECT
public:
  explicit CustomFormatForm(QWidget* parent = nullptr);

  // The spec the fields spell ("e4m3:bias=8,special=fnuz,subnormals=yes,sign=yes").
  QString spec() const;
  // The format when the fields are valid.
  const std::optional<numeric::FloatFormat>& format() const { return m_format; }

  QCheckBox* signBox() const { return m_sign; }
  QSpinBox* exponentBox() const { return m_exponent; }
  QSpinBox* mantissaBox() const { return m_mantissa; }
  QLineEdit* biasEdit() const { return m_bias; }
  QComboBox* specialBox() const { return m_special; }
  QCheckBox* subnormalsBox() const { return m_subnormals; }
  QLabel* errorLabel() const { return m_error; }
  QPushButton* addButton() const { return m_add; }

signals:
  void formatAdded(const mantissa::numeric::FloatFormat& format);

private:
  void validate();

  QCheckBox* m_sign = nullptr;
  QSpinBox* m_exponent = nullptr;
  QSpinBox* m_mantissa = nullptr;
  QLineEdit* m_bias = nullptr;
  QComboBox* m_special = nullptr;
  QCheckBox* m_subnormals = nullptr;
  QLabel* m_error = nullptr;
  QPushButton* m_add = nullptr;
  std::optional<numeric::FloatFormat> m_format;
};

} // namespace mantissa::ui
