// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The Sweep dock: core's precision sweep (train/sweep.h, as `mantissa-cli
// sweep`) on a thread of its own, with a progress bar and Cancel. Its tabs:
// Setup (the GPT preset's run and the sweep's options), Table (the ranked
// probes, the chosen policy below) and Pareto (the chart). Cancel
// keeps the finished runs in the output folder; Resume continues from them.

#include <mantissa/train/sweep.h>

#include <QString>
#include <QWidget>

#include <atomic>
#include <memory>

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTabWidget;

namespace mantissa::ui {

class SweepParetoChart;

class SweepPanel : public QWidget {
  Q_OBJECT
public:
  explicit SweepPanel(QWidget* parent = nullptr);
  ~SweepPanel() override;

  // The form's fields (tests and scripts set them as a user would).
  void setModel(const QString& spec);
  void setSteps(int steps);
  void setFormats(const QString& list);
  void setOps(const QString& list);
  void setSeeds(int seeds);
  void setBudget(double budget);
  void setOutputFolder(const QString& dir);
  void setResume(bool resume);

  // The sweep the form describes (not checked: start() reports a bad field).
  train::SweepOptions formOptions() const;
  QString outputFolder() const;
  bool resume() const;

  // Starts the sweep the form describes; a bad field is reported by failed().
  void start();
  // Stops it: the runs in flight are dropped, the finished ones stay saved.
  void cancel();
  bool running() const { return m_cancel != nullptr; }

  const train::SweepResult* result() const { return m_result.get(); }
  SweepParetoChart* chart() const { return m_chart; }
  QTableWidget* table() const { return m_table; }
  QString statusText() const;
  // The table as CSV (core's sweep.csv); "" or the error.
  QString exportTableCsv(const QString& path) const;

  // Narrow hints: in the right-hand tab group (in a scroll area) the panel
  // takes the width the charts leave rather than widening the group.
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

signals:
  void progressed(int done, int total);
  void finished();          // a complete sweep is shown
  void stopped();           // cancelled; the finished runs are saved
  void failed(QString why); // bad options, an unwritable folder

private:
  void showProgress(int done, int total, const QString& what);
  void showResult(std::shared_ptr<train::SweepResult> result, QString error);
  void exportWithDialog();
  void setRunning(bool running);

  QLineEdit* m_model;
  QSpinBox* m_steps;
  QLineEdit* m_formats;
  QLineEdit* m_ops;
  QSpinBox* m_seeds;
  QDoubleSpinBox* m_budget;
  QLineEdit* m_base;
  QLineEdit* m_folder;
  QCheckBox* m_resume;
  QPushButton* m_start;
  QPushButton* m_cancelButton;
  QPushButton* m_export;
  QProgressBar* m_progress;
  QLabel* m_status;
  QLabel* m_chosen;
  QLineEdit* m_chosenSpec;
  QTableWidget* m_table;
  QTabWidget* m_tabs;
  SweepParetoChart* m_chart;
  std::shared_ptr<train::SweepResult> m_result;
  train::SweepOptions m_options; // of the sweep shown or running
  // The sweep in flight: its cancel flag (also set when the panel goes away).
  std::shared_ptr<std::atomic<bool>> m_cancel;
};

} // namespace mantissa::ui
