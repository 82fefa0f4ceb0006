// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <QString>
#include <QWidget>

#include <array>
#include <optional>
#include <vector>

#include <mantissa/amp/policy.h>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace mantissa::ui {

// The precision policy of a GPT run as a table: one row per op class a GPT
// has (BatchNorm's row, a CNN's, is hidden) with its precision (FP32 / BF16 /
// FP16), started from a preset and changed row by row (changed rows in
// bold), plus promote-every N_C for 16-bit accumulation, softmax max
// subtraction and loss scaling. It writes the spec the CLI's --policy takes
// ("autocast-cpu-bf16,softmax=fp16") and reads it back with the same parser
// (amp::parsePolicy): a combination that parser refuses shows its message
// inline and spec() is then empty.
// Per-layer rows of a loaded spec ("h1.fc.matmul-inputs=mxfp8", what a
// precision sweep writes) have no box of their own: they are listed under the
// table and kept in the spec while the class rows change, until a preset is
// chosen or they are cleared.
class PolicyEditor : public QWidget {
  Q_OBJECT
public:
  explicit PolicyEditor(QWidget* parent = nullptr);

  // The current spec when valid, else "".
  QString spec() const;
  // The spec as edited, valid or not.
  QString editedSpec() const;
  QString error() const; // "" when valid
  std::optional<amp::Policy> policy() const;

  // Loads a preset (every row from it, overrides cleared).
  void setPreset(const QString& name);
  // Loads a spec (through amp::parsePolicy); false, and nothing changed, when it is refused.
  bool setSpec(const QString& spec);
  // Row of op class c: its precision ("fp32", "bf16", "fp16").
  void setPrecision(amp::OpClass c, const QString& precision);
  QString precision(amp::OpClass c) const;
  void setPromoteEvery(int n); // 0: never promoted
  void setSoftmaxMax(bool on);

  QTableWidget* table() const { return m_table; }
  QLabel* errorLabel() const { return m_error; }
  QLabel* layerRowsLabel() const { return m_layerRows; }
  QPushButton* clearLayerRowsButton() const { return m_clearLayers; }
  void clearLayerRows();
  QComboBox* presetPicker() const { return m_preset; }

signals:
  void changed();

protected:
  void changeEvent(QEvent* event) override; // a new font (presenter mode) refits the table

private:
  void fitTable(); // every row in sight, no inner scrolling
  void load(const amp::Policy& p); // every control from p (signals blocked)
  void update();                   // spec, error and bold rows from the controls

  QComboBox* m_preset = nullptr;
  QTableWidget* m_table = nullptr;
  std::array<QComboBox*, amp::kOpClassCount> m_rows{};
  QSpinBox* m_promote = nullptr;
  QCheckBox* m_softmaxMax = nullptr;
  QCheckBox* m_lossScaling = nullptr;
  QLabel* m_spec = nullptr; // the spec, wrapped after its commas
  QLabel* m_error = nullptr;
  QLabel* m_summary = nullptr;
  QString m_editedSpec;
  QString m_errorText;
  amp::ScalingOptions m_loadedScaling; // the FP8 options of the policy last loaded
  amp::UpdateRounding m_loadedUpdate = amp::UpdateRounding::Nearest; // and its update rounding
  std::vector<amp::LayerPolicy> m_loadedLayers; // and its per-layer rows
  QLabel* m_layerRows = nullptr;      // those rows, one a line
  QPushButton* m_clearLayers = nullptr;
  QWidget* m_layerBox = nullptr;      // both, hidden without rows
  bool m_loading = false;
};

} // namespace mantissa::ui
