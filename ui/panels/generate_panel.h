// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <QString>
#include <QWidget>

#include <vector>

class QDoubleSpinBox;
class QGridLayout;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

namespace mantissa::ui {

class RunController;

// Generate: N characters at temperature T from each GPT run that is paused
// or finished, side by side, so a class reads what each policy learned.
// Each text is made by its run's own training thread (RunController::
// sampleGpt), never on the GUI thread and never during a step; a run still
// training says to pause it first.
class GeneratePanel : public QWidget {
  Q_OBJECT
public:
  explicit GeneratePanel(RunController* controller, QWidget* parent = nullptr);

  // Asks every paused or finished GPT run for a text. Returns how many were asked.
  int generate();
  int pending() const { return m_pending; }
  // The text shown for run `run` ("" before any).
  QString text(int run) const;
  QPushButton* generateButton() const { return m_generate; }
  QSpinBox* charactersBox() const { return m_characters; }
  QDoubleSpinBox* temperatureBox() const { return m_temperature; }

signals:
  void generated(int run); // its text arrived

private:
  void rebuild();      // one column per GPT run
  void refreshTitles();

  RunController* m_controller;
  QSpinBox* m_characters = nullptr;
  QDoubleSpinBox* m_temperature = nullptr;
  QSpinBox* m_seed = nullptr;
  QPushButton* m_generate = nullptr;
  QLabel* m_hint = nullptr;
  QGridLayout* m_columns = nullptr;
  struct Column {
    int run;
    QLabel* title;
    QPlainTextEdit* text;
  };
  std::vector<Column> m_cols;
  int m_pending = 0;
  int m_generation = 0; // texts of an older request are dropped
};

} // namespace mantissa::ui
