// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <mantissa/train/run_config.h>

#include <QWidget>

#include <map>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace mantissa::ui {

class PolicyEditor;

// The setup of GPT runs on text: the preset (Tiny Shakespeare,
// shakespeare-char: nanoGPT's CPU configuration), its steps, histograms
// every K steps, the recipes to train side by side, and optionally one more
// run in a policy of the user's (the policy editor). configs() gives one
// RunConfig per run, the shakespeare-char preset's with the setup's choices;
// problems() says what keeps them from running.
class GptSetup : public QWidget {
  Q_OBJECT
public:
  explicit GptSetup(QWidget* parent = nullptr);

  std::vector<train::RunConfig> configs() const;
  QString problems() const; // "" when the runs can be built

  void setSteps(int steps);
  void setTelemetryEvery(int k);
  void setEvalEvery(int steps); // 0: only at the end
  void setRecipeChecked(const QString& recipe, bool on);
  void setPolicyRun(bool on);

  PolicyEditor* policyEditor() const { return m_policy; }
  QPushButton* setUpButton() const { return m_setUp; }
  QSpinBox* stepsBox() const { return m_steps; }

signals:
  // The user asked for these runs (Set up GPT runs).
  void runsRequested(const std::vector<train::RunConfig>& configs);

private:
  void validate();
  void showMemory(); // m_memory: the bytes the runs need and the memory available

  QComboBox* m_preset = nullptr;
  QSpinBox* m_steps = nullptr;
  QSpinBox* m_telemetry = nullptr;
  QSpinBox* m_evalEvery = nullptr;
  std::map<QString, QCheckBox*> m_recipes;
  QCheckBox* m_policyRun = nullptr;
  PolicyEditor* m_policy = nullptr;
  QLabel* m_problems = nullptr;
  QLabel* m_memory = nullptr;
  QPushButton* m_setUp = nullptr;
  int m_vocabulary = 0; // of the preset's text, read once when first needed
};

} // namespace mantissa::ui
