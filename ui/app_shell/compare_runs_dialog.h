// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// File > Compare Runs…: two run logs (Mantissa's or a PyTorch tap's) compared
// by core (train/run_diff.h, as `mantissa-cli diff`), on a thread of their
// own: the first (step, tensor, pass) where they differ named at the top, the
// table of every tensor and pass that differs below it, sorted by where its
// divergence starts, exportable as CSV. Reading large logs takes a while: a
// busy bar shows it and Cancel drops the comparison.

#include <mantissa/train/run_diff.h>

#include <QDialog>
#include <QString>

#include <atomic>
#include <memory>

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace mantissa::ui {

class CompareRunsDialog : public QDialog {
  Q_OBJECT
public:
  explicit CompareRunsDialog(QWidget* parent = nullptr);
  ~CompareRunsDialog() override;

  // Starts comparing the two logs (the fields' paths, then the tolerance).
  void compare(const QString& pathA, const QString& pathB, int toleranceUlps = 0);
  void cancel();
  // The last result's table as CSV; "" or the error.
  QString exportCsv(const QString& path) const;

  const train::RunDiff* result() const { return m_result.get(); }
  QString firstDivergenceText() const;
  QTableWidget* table() const { return m_table; }

signals:
  void compared();          // a result (or an error) is shown
  void failed(QString why); // a log could not be read

private:
  void start();
  void showResult(std::shared_ptr<train::RunDiff> diff, QString error);
  void exportWithDialog();

  QLineEdit* m_pathA;
  QLineEdit* m_pathB;
  QSpinBox* m_tolerance;
  QPushButton* m_compare;
  QPushButton* m_cancel;
  QPushButton* m_export;
  QProgressBar* m_busy;
  QLabel* m_first;
  QLabel* m_notes;
  QTableWidget* m_table;
  std::shared_ptr<train::RunDiff> m_result;
  // The job in flight: its own flag, set when it is dropped (cancel, a new
  // comparison, the dialog closed).
  std::shared_ptr<std::atomic<bool>> m_dropped;
};

} // namespace mantissa::ui
