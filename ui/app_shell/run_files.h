// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The run items of the File menu, acting on the Train page:
//   Open Run…           a saved log (Save Run, or `mantissa-cli train --log`)
//                       joins the Train page's runs, read-only, no training;
//                       A log of one rank of a distributed run (run.rank0.jsonl)
//                       opens every rank's log beside it, side by side;
//   Follow Run…         a log another process is still writing (a PyTorch
//                       tap, a running `mantissa-cli train --log`): its steps
//                       appear as they are written (every rank's log, as
//                       Open Run);
//   Save Run…           the selected run's full JSONL log + config, any time;
//   Save Checkpoint…    a live run's weights and state (safetensors), to
//                       resume with `mantissa-cli train --resume` or load in
//                       PyTorch, running, paused or finished;
//   Open Checkpoint…    a checkpoint (Save Checkpoint, the autosave, `mantissa-cli
//                       train --checkpoint`): after its metadata is read, resume
//                       training to a chosen total, or generate text from a GPT in
//                       the Generate dock (OpenCheckpointDialog);
//   Autosave Runs       whether each run's log and checkpoint are kept in a folder
//                       of its own when it stops (Settings::runsFolder, the newest
//                       Settings::kKeptRuns); Show Saved Runs… opens that folder;
//   Compare Runs…       two run logs side by side: where they first differ
//                       (CompareRunsDialog, as `mantissa-cli diff`);
//   Export Report…      its report (PDF or HTML), as `mantissa-cli report`;
//   Export Run Charts…  every chart (SVG, PNG, CSV) into a folder, as
//                       `mantissa-cli train --export`; with several runs,
//                       their loss and accuracy curves side by side, and
//                       each run's export in a folder named after it.
// Save and exports work on live runs too (mid-run: the steps so far).

#include "ui/bridge/run_controller.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <functional>
#include <optional>

class QAction;
class QMenu;
class QMessageBox;
class QWidget;

namespace mantissa::ui {

class CompareRunsDialog;
class OpenCheckpointDialog;
class TrainPanel;

class RunFiles : public QObject {
  Q_OBJECT
public:
  // Adds the actions at the top of `fileMenu`; dialogs are parented to `window`.
  RunFiles(QMenu* fileMenu, TrainPanel* train, QWidget* window);

  // The menu items' work without dialogs; each returns "" or the error.
  QString openRun(const QString& path);
  QString followRun(const QString& path);
  // run.rank1.jsonl -> every run.rank<R>.jsonl beside it, by rank; {path} otherwise.
  static QStringList rankLogs(const QString& path);
  QString saveRun(const QString& path) const;
  QString exportReport(const QString& path) const;
  QString exportCharts(const QString& dir, QStringList* written = nullptr) const;
  // Asynchronous: the run's own thread writes the file; `done` gets "" or
  // the error. False (no call) when the selected run is not live.
  bool saveCheckpoint(const QString& path, std::function<void(const QString&)> done);

  QAction* openAction() const { return m_open; }
  QAction* followAction() const { return m_follow; }
  QAction* saveAction() const { return m_save; }
  QAction* reportAction() const { return m_report; }
  QAction* chartsAction() const { return m_charts; }
  QAction* checkpointAction() const { return m_checkpoint; }
  QAction* openCheckpointAction() const { return m_openCheckpoint; }
  QAction* autosaveAction() const { return m_autosave; }
  QAction* showRunsAction() const { return m_showRuns; }
  QAction* compareAction() const { return m_compare; }
  // The open Compare Runs dialog (the action opens one), or nullptr.
  CompareRunsDialog* compareDialog() const;

  // Opens a checkpoint as one more run (RunController::openCheckpoint, on a
  // worker thread); once it has joined, it is selected and runOpened()
  // follows. `done` gets "" or the problem. False (no call) while another
  // checkpoint is being opened.
  bool openCheckpoint(const QString& path, RunController::CheckpointUse use,
                      std::int64_t totalSteps, std::function<void(const QString&)> done);
  // The Open Checkpoint flow after the file dialog: the metadata read off
  // the GUI thread, then OpenCheckpointDialog (window-modal), then
  // openCheckpoint(); a problem in a message box (problemBox()).
  void askToOpenCheckpoint(const QString& path);
  OpenCheckpointDialog* checkpointDialog() const; // while it is shown
  QMessageBox* problemBox() const;                // the last one, while shown

signals:
  void runOpened(const QString& path);

private:
  void updateActions();
  void openWithDialog();
  void followWithDialog();
  void saveWithDialog();
  void reportWithDialog();
  void chartsWithDialog();
  void checkpointWithDialog();
  void openCheckpointWithDialog();
  void setAutosave(bool on);
  void showProblem(const QString& title, const QString& text);
  void showStatus(const QString& text, int ms = 0);
  void checkpointOpened(const QString& path, RunController::CheckpointUse use, const QString& error);
  void checkpointInspected(const QString& path, const std::optional<train::CheckpointInfo>& info,
                           const QString& error);
  QString selectedName() const;
  static QString fileNameFor(QString runName);

  TrainPanel* m_train;
  QWidget* m_window;
  QAction* m_open = nullptr;
  QAction* m_follow = nullptr;
  QAction* m_save = nullptr;
  QAction* m_report = nullptr;
  QAction* m_charts = nullptr;
  QAction* m_checkpoint = nullptr;
  QAction* m_openCheckpoint = nullptr;
  QAction* m_autosave = nullptr;
  QAction* m_showRuns = nullptr;
  QAction* m_compare = nullptr;
  QPointer<OpenCheckpointDialog> m_dialog;
  QPointer<CompareRunsDialog> m_compareDialog;
  QPointer<QMessageBox> m_problemBox;
};

} // namespace mantissa::ui
