// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <mantissa/train/run_config.h>
#include <mantissa/train/shadow.h>

#include <QWidget>

#include <map>
#include <vector>

class QAbstractButton;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QFormLayout;
class QSize;
class QSpinBox;

namespace mantissa::ui {

class PolicyEditor;

// The run setup form for every model: data set, model (an MLP, a CNN or a
// GPT, validated inline), one or more recipes as checkable chips, scaler
// preset, optimizer, lr, batch, steps or epochs, seed, telemetry cadence, a
// GPT's evaluation cadence and batches, one more run in a precision policy
// of the user's (the policy editor), and the presets as one click each.
// configs() gives one RunConfig per checked recipe, then the policy run.
class TrainSetup : public QWidget {
  Q_OBJECT
public:
  explicit TrainSetup(QWidget* parent = nullptr);

  std::vector<train::RunConfig> configs() const;
  // Fills the form from runs (the first run's fields, every run's recipe).
  void setConfigs(const std::vector<train::RunConfig>& runs);
  void applyPreset(const QString& name);
  // Every problem of the current form, one per line; "" when it can run.
  QString problems() const;

  QStringList checkedRecipes() const;
  void setRecipeChecked(const QString& recipe, bool on);
  void setPolicyRun(bool on);
  PolicyEditor* policyEditor() const { return m_policy; }
  // The shadow pass (train/shadow.h): Off / FP32 / FP64 (item data: "", "fp32",
  // "fp64", RunConfig::shadow) and the threshold in percent (RunConfig::shadowThreshold x 100).
  QComboBox* shadowPicker() const { return m_shadow; }
  QDoubleSpinBox* shadowThresholdField() const { return m_shadowThreshold; }
  // The reference a check on demand uses: the chosen one, FP32 when Off.
  train::ShadowPrecision onDemandShadow() const;

  static std::vector<train::RunConfig> defaultConfigs();

  // As wide as two columns of recipe buttons need (the fields stretch to
  // any width above the minimum); as tall as the whole form.
  QSize sizeHint() const override;

signals:
  void changed();
  void presetApplied(const QString& name, const QString& explanation);
  // A field was changed by hand after a preset: the preset no longer applies.
  void presetEnded();

protected:
  void changeEvent(QEvent* event) override;

private:
  void validate();
  void editedByHand();
  void offerModels(); // fills m_modelChoice for the data named
  void showBeyondFields(); // m_beyond: the runs' settings that have no field (the preset's)
  void showMemory();  // m_memory: the bytes the runs need (train::MemoryNeed) and what is available
  void showModelFields(bool gpt); // a GPT's evaluation rows
  train::RunConfig baseFor(const std::string& recipe) const;

  QComboBox* m_data = nullptr;
  QLineEdit* m_model = nullptr;
  QComboBox* m_modelChoice = nullptr; // models that fit the data: MLP, and CNNs for image sets
  QLabel* m_modelError = nullptr;
  std::map<QString, QPushButton*> m_recipeChips;
  QComboBox* m_scaler = nullptr;
  QComboBox* m_optimizer = nullptr;
  QDoubleSpinBox* m_lr = nullptr;
  QSpinBox* m_batch = nullptr;
  QComboBox* m_lengthUnit = nullptr;
  QSpinBox* m_length = nullptr;
  QSpinBox* m_seed = nullptr;
  QSpinBox* m_telemetry = nullptr;
  QFormLayout* m_form = nullptr;
  QWidget* m_recipes = nullptr; // the recipe buttons' box
  QComboBox* m_shadow = nullptr;
  QDoubleSpinBox* m_shadowThreshold = nullptr;
  QSpinBox* m_evalEvery = nullptr;   // a GPT's: train_loss and val_loss every N steps
  QSpinBox* m_evalBatches = nullptr; // a GPT's: fixed batches per evaluation
  QCheckBox* m_policyRun = nullptr;
  PolicyEditor* m_policy = nullptr;
  int m_vocabulary = 0; // of the GPT's text, read once when first needed
  QLabel* m_problems = nullptr;
  QLabel* m_beyond = nullptr;
  QLabel* m_memory = nullptr;
  std::vector<train::RunConfig> m_base; // the preset's runs (fields the form does not show)
  bool m_presetActive = false;          // m_base holds a preset's runs, untouched by hand
};

} // namespace mantissa::ui
