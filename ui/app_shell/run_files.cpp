// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/app_shell/run_files.h"

#include "ui/app_shell/compare_runs_dialog.h"
#include "ui/app_shell/open_checkpoint_dialog.h"
#include "ui/app_shell/settings.h"
#include "ui/bridge/run_controller.h"
#include "ui/panels/train_panel.h"
#include "ui/charts/chart_export.h"
#include "ui/charts/chart_widget.h"
#include "ui/report/run_charts.h"
#include "ui/report/run_report.h"

#include <QAction>
#include <QDesktopServices>
#include <QDir>
#include <QUrl>
#include <QRegularExpression>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QStatusBar>
#include <QMessageBox>
#include <QPointer>

#include <algorithm>
#include <utility>
#include <vector>

namespace mantissa::ui {

RunFiles::RunFiles(QMenu* fileMenu, TrainPanel* train, QWidget* window)
    : QObject(window), m_train(train), m_window(window) {
  QAction* first = fileMenu->actions().isEmpty() ? nullptr : fileMenu->actions().front();
  m_open = new QAction(tr("&Open Run…"), this);
  m_open->setShortcut(QKeySequence::Open);
  m_open->setToolTip(tr("Open a saved run (or a mantissa-cli train log) on the Train page"));
  m_follow = new QAction(tr("&Follow Run…"), this);
  m_follow->setToolTip(tr("Watch a run log that is still being written (a PyTorch tap's log, a "
                          "running mantissa-cli train --log): new steps appear live"));
  m_save = new QAction(tr("&Save Run…"), this);
  m_save->setShortcut(QKeySequence::Save);
  m_save->setToolTip(tr("Save the selected run's full log (JSONL) and configuration"));
  m_report = new QAction(tr("Export &Report…"), this);
  m_charts = new QAction(tr("Export Run &Charts…"), this);
  m_checkpoint = new QAction(tr("Save C&heckpoint…"), this);
  m_checkpoint->setToolTip(tr("Save the selected live run's weights and state (safetensors): "
                              "resume it with mantissa-cli train --resume, or load it in PyTorch"));
  m_openCheckpoint = new QAction(tr("Open Chec&kpoint…"), this);
  m_openCheckpoint->setToolTip(tr("Open a checkpoint (safetensors): resume its training on the "
                                  "Train page, or generate text from a GPT"));
  m_autosave = new QAction(tr("&Autosave Runs on Stop"), this);
  m_autosave->setCheckable(true);
  m_autosave->setToolTip(tr("When a run stops, keep its log and checkpoint in a folder of its own "
                            "(the newest %1 runs; from the next runs built)")
                             .arg(Settings::kKeptRuns));
  m_showRuns = new QAction(tr("Show Saved Ru&ns…"), this);
  m_showRuns->setToolTip(tr("Open the folder of the autosaved runs: %1").arg(Settings::runsFolder()));
  m_compare = new QAction(tr("Com&pare Runs…"), this);
  m_compare->setToolTip(tr("Compare two run logs: the first step, tensor and pass where they "
                           "differ, and every tensor that does (as mantissa-cli diff)"));
  fileMenu->insertActions(first, {m_open, m_follow, m_save, m_openCheckpoint, m_checkpoint,
                                  m_compare, m_report, m_charts});
  fileMenu->insertSeparator(first);
  fileMenu->insertActions(first, {m_autosave, m_showRuns});
  fileMenu->insertSeparator(first);
  connect(m_open, &QAction::triggered, this, &RunFiles::openWithDialog);
  connect(m_follow, &QAction::triggered, this, &RunFiles::followWithDialog);
  connect(m_save, &QAction::triggered, this, &RunFiles::saveWithDialog);
  connect(m_report, &QAction::triggered, this, &RunFiles::reportWithDialog);
  connect(m_charts, &QAction::triggered, this, &RunFiles::chartsWithDialog);
  connect(m_checkpoint, &QAction::triggered, this, &RunFiles::checkpointWithDialog);
  connect(m_openCheckpoint, &QAction::triggered, this, &RunFiles::openCheckpointWithDialog);
  connect(m_compare, &QAction::triggered, this, [this] {
    if (!m_compareDialog) {
      m_compareDialog = new CompareRunsDialog(m_window);
      m_compareDialog->setAttribute(Qt::WA_DeleteOnClose);
    }
    m_compareDialog->show();
    m_compareDialog->raise();
  });
  connect(m_showRuns, &QAction::triggered, this, [] {
    const QString folder = Settings::runsFolder();
    QDir().mkpath(folder);
    QDesktopServices::openUrl(QUrl::fromLocalFile(folder));
  });
  RunController* c = train->controller();
  m_autosave->setChecked(Settings().autosaveRuns());
  setAutosave(m_autosave->isChecked());
  connect(m_autosave, &QAction::toggled, this, [this](bool on) {
    Settings().setAutosaveRuns(on);
    setAutosave(on);
  });
  connect(c, &RunController::autosaved, this,
          [this](int run, const QString& checkpoint, const QString& error) {
            const QString name = m_train->controller()->runName(run);
            showStatus(error.isEmpty() ? tr("%1 saved in %2").arg(name, QFileInfo(checkpoint).absolutePath())
                                       : tr("%1 could not be saved: %2").arg(name, error),
                       15000);
          });
  connect(c, &RunController::runsChanged, this, &RunFiles::updateActions);
  connect(c, &RunController::stateChanged, this, &RunFiles::updateActions);
  connect(c, &RunController::followStopped, this, [this](int, const QString& message) {
    if (auto* main = qobject_cast<QMainWindow*>(m_window))
      main->statusBar()->showMessage(message);
  });
  updateActions();
}

// Something to save once the selected run has a step.
void RunFiles::updateActions() {
  const int run = m_train->selectedRun();
  const bool any = run >= 0 && m_train->controller()->record(run).lastStep() >= 0;
  for (QAction* a : {m_save, m_report, m_charts})
    a->setEnabled(any);
  RunController* c = m_train->controller();
  m_checkpoint->setEnabled(any && !c->isLoaded(run) && !c->isFollowing(run));
}

bool RunFiles::saveCheckpoint(const QString& path, std::function<void(const QString&)> done) {
  const int run = m_train->selectedRun();
  return run >= 0 && m_train->controller()->saveCheckpoint(run, path, std::move(done));
}

void RunFiles::checkpointWithDialog() {
  const QString path = QFileDialog::getSaveFileName(
      m_window, tr("Save Checkpoint"), selectedName() + QStringLiteral(".safetensors"),
      tr("Checkpoints (*.safetensors)"));
  if (path.isEmpty())
    return;
  QPointer<QWidget> window(m_window);
  const bool started = saveCheckpoint(path, [window, path](const QString& error) {
    if (!window)
      return;
    if (!error.isEmpty())
      QMessageBox::warning(window, tr("Save Checkpoint"), error);
    else if (auto* main = qobject_cast<QMainWindow*>(window.data()))
      main->statusBar()->showMessage(tr("Checkpoint saved: %1").arg(path), 5000);
  });
  if (!started)
    QMessageBox::warning(m_window, tr("Save Checkpoint"),
                         tr("Only a run trained here can be saved as a checkpoint; a loaded or "
                            "followed run has its log only."));
}

CompareRunsDialog* RunFiles::compareDialog() const {
  return m_compareDialog.data();
}

OpenCheckpointDialog* RunFiles::checkpointDialog() const {
  return m_dialog.data();
}
QMessageBox* RunFiles::problemBox() const {
  return m_problemBox.data();
}

void RunFiles::setAutosave(bool on) {
  m_train->controller()->setAutosaveFolder(on ? Settings::runsFolder() : QString(),
                                           Settings::kKeptRuns);
}

void RunFiles::showStatus(const QString& text, int ms) {
  if (auto* main = qobject_cast<QMainWindow*>(m_window))
    main->statusBar()->showMessage(text, ms);
}

// Window-modal, without blocking the caller (tests and the event loop go on).
void RunFiles::showProblem(const QString& title, const QString& text) {
  auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, m_window);
  box->setAttribute(Qt::WA_DeleteOnClose);
  m_problemBox = box;
  box->open();
}

bool RunFiles::openCheckpoint(const QString& path, RunController::CheckpointUse use,
                              std::int64_t totalSteps, std::function<void(const QString&)> done) {
  QPointer<RunFiles> self(this);
  const bool started = m_train->controller()->openCheckpoint(
      path, use, totalSteps, [self, path, use, done = std::move(done)](const QString& error) {
        if (RunFiles* f = self.data())
          f->checkpointOpened(path, use, error);
        if (done)
          done(error);
      });
  if (started)
    showStatus(tr("Opening %1…").arg(QFileInfo(path).fileName()));
  return started;
}

void RunFiles::checkpointOpened(const QString& path, RunController::CheckpointUse use,
                                const QString& error) {
  if (!error.isEmpty()) {
    showStatus(QString());
    return;
  }
  RunController* c = m_train->controller();
  const int run = c->runCount() - 1;
  m_train->setSelectedRun(run);
  updateActions();
  const QString file = QFileInfo(path).fileName();
  showStatus(use == RunController::CheckpointUse::Sample
                 ? tr("Opened %1: generate text from it in the Generate dock").arg(file)
                 : tr("Opened %1 at step %2 of %3: press Resume (Space) to train on")
                       .arg(file)
                       .arg(c->session(run).stepsDone())
                       .arg(c->session(run).totalSteps()),
             15000);
  emit runOpened(path);
}

void RunFiles::askToOpenCheckpoint(const QString& path) {
  QPointer<RunFiles> self(this);
  const bool started = m_train->controller()->inspectCheckpoint(
      path, [self, path](const std::optional<train::CheckpointInfo>& info, const QString& error) {
        if (RunFiles* f = self.data())
          f->checkpointInspected(path, info, error);
      });
  if (started)
    showStatus(tr("Reading %1…").arg(QFileInfo(path).fileName()));
  else
    showProblem(tr("Open Checkpoint"), tr("Another checkpoint is being opened."));
}

void RunFiles::checkpointInspected(const QString& path,
                                   const std::optional<train::CheckpointInfo>& info,
                                   const QString& error) {
  showStatus(QString());
  const QString unchanged =
      tr("Cannot open this checkpoint; the runs on the Train page are unchanged.\n\n%1");
  if (!info) {
    showProblem(tr("Open Checkpoint"), unchanged.arg(error));
    return;
  }
  auto* dialog = new OpenCheckpointDialog(path, *info, m_window);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  m_dialog = dialog;
  connect(dialog, &QDialog::accepted, this, [this, dialog, path, unchanged] {
    QPointer<RunFiles> self(this);
    const bool opening =
        openCheckpoint(path, dialog->use(), dialog->totalSteps(), [self, unchanged](const QString& problem) {
          if (RunFiles* f = self.data(); f && !problem.isEmpty())
            f->showProblem(tr("Open Checkpoint"), unchanged.arg(problem));
        });
    if (!opening)
      showProblem(tr("Open Checkpoint"), tr("Another checkpoint is being opened."));
  });
  dialog->open();
}

void RunFiles::openCheckpointWithDialog() {
  const QString path = QFileDialog::getOpenFileName(
      m_window, tr("Open Checkpoint"), QString(),
      tr("Checkpoints (*.safetensors);;All files (*)"));
  if (!path.isEmpty())
    askToOpenCheckpoint(path);
}

QStringList RunFiles::rankLogs(const QString& path) {
  const QFileInfo info(path);
  static const QRegularExpression rank(QStringLiteral("^(.*)\\.rank(\\d+)\\.jsonl$"));
  const QRegularExpressionMatch m = rank.match(info.fileName());
  if (!m.hasMatch())
    return {path};
  const QString prefix = m.captured(1);
  std::vector<std::pair<long long, QString>> found;
  const QDir dir = info.absoluteDir();
  for (const QString& name : dir.entryList({prefix + QStringLiteral(".rank*.jsonl")}, QDir::Files)) {
    const QRegularExpressionMatch n = rank.match(name);
    if (n.hasMatch() && n.captured(1) == prefix)
      found.emplace_back(n.captured(2).toLongLong(), dir.filePath(name));
  }
  std::sort(found.begin(), found.end());
  QStringList paths;
  for (const auto& f : found)
    paths << f.second;
  return paths.isEmpty() ? QStringList{path} : paths;
}

QString RunFiles::openRun(const QString& path) {
  RunController* c = m_train->controller();
  const QStringList paths = rankLogs(path);
  QStringList errors;
  int opened = 0;
  for (const QString& p : paths) {
    if (const QString error = c->loadRun(p); !error.isEmpty())
      errors << error;
    else
      ++opened;
  }
  if (opened == 0)
    return errors.join(QLatin1Char('\n'));
  m_train->setSelectedRun(c->runCount() - 1);
  updateActions();
  emit runOpened(path);
  return errors.join(QLatin1Char('\n')); // the ranks that could not be read, if any
}

QString RunFiles::followRun(const QString& path) {
  RunController* c = m_train->controller();
  QStringList errors;
  int followed = 0;
  for (const QString& p : rankLogs(path)) { // every rank of a distributed run
    if (const QString error = c->followRun(p); !error.isEmpty())
      errors << error;
    else
      ++followed;
  }
  if (followed == 0)
    return errors.join(QLatin1Char('\n'));
  m_train->setSelectedRun(c->runCount() - 1);
  updateActions();
  emit runOpened(path);
  return errors.join(QLatin1Char('\n'));
}

QString RunFiles::saveRun(const QString& path) const {
  const int run = m_train->selectedRun();
  if (run < 0)
    return tr("There is no run to save.");
  return m_train->controller()->saveRun(run, path);
}

QString RunFiles::exportReport(const QString& path) const {
  const int run = m_train->selectedRun();
  if (run < 0)
    return tr("There is no run to report on.");
  QString error;
  const auto log = m_train->controller()->runLog(run, &error);
  return log ? RunReport(*log).write(path) : error;
}

QString RunFiles::exportCharts(const QString& dir, QStringList* written) const {
  const RunController* c = m_train->controller();
  const int selected = m_train->selectedRun();
  if (selected < 0)
    return tr("There is no run to export.");
  // Every run with a step, as the Train page shows them.
  std::vector<int> runs;
  for (int i = 0; i < c->runCount(); ++i)
    if (c->record(i).lastStep() >= 0)
      runs.push_back(i);
  if (runs.size() <= 1) { // what `mantissa-cli train --export` writes, byte for byte
    QString error;
    const auto log = c->runLog(selected, &error);
    return log ? exportRun(*log, dir, written) : error;
  }
  // Several runs: their loss and accuracy curves side by side (names and
  // colours as on the Train page), then each run's own export in a folder
  // named after it.
  std::vector<train::RunLog> logs;
  logs.reserve(runs.size());
  std::vector<NamedRunLog> named;
  for (const int run : runs) {
    QString error;
    auto log = c->runLog(run, &error);
    if (!log)
      return error;
    logs.push_back(std::move(*log));
  }
  for (std::size_t i = 0; i < runs.size(); ++i)
    named.push_back({&logs[i], c->runName(runs[i]), c->runColor(runs[i])});
  if (!QDir().mkpath(dir))
    return tr("cannot create directory %1").arg(dir);
  for (const bool accuracy : {false, true}) {
    const auto chart = makeRunsCurveChart(named, accuracy);
    for (const char* extension : {"svg", "png", "csv"}) {
      const QString path = QDir(dir).filePath((accuracy ? QStringLiteral("accuracy.")
                                                        : QStringLiteral("loss.")) +
                                              QLatin1String(extension));
      if (const QString failure = exportChart(*chart, path); !failure.isEmpty())
        return failure;
      if (written)
        written->append(path);
    }
  }
  QStringList folders;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    QString folder = fileNameFor(c->runName(runs[i]));
    for (int n = 2; folders.contains(folder); ++n)
      folder = fileNameFor(c->runName(runs[i])) + QStringLiteral("_%1").arg(n);
    folders << folder;
    if (QString error = exportRun(logs[i], QDir(dir).filePath(folder), written); !error.isEmpty())
      return error;
  }
  return {};
}

// A run's name as a file or folder name: "fp16-mixed · scaler pytorch" ->
// "fp16-mixed-scaler_pytorch".
QString RunFiles::fileNameFor(QString name) {
  name.replace(QStringLiteral(" · "), QStringLiteral("-"));
  static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9._+-]+"));
  name.replace(unsafe, QStringLiteral("_"));
  return name.isEmpty() || name.startsWith(u'.') ? QStringLiteral("run") + name : name;
}

QString RunFiles::selectedName() const {
  const int run = m_train->selectedRun();
  return fileNameFor(run >= 0 ? m_train->controller()->runName(run) : QStringLiteral("run"));
}

void RunFiles::openWithDialog() {
  const QString path = QFileDialog::getOpenFileName(
      m_window, tr("Open Run"), QString(), tr("Run logs (*.jsonl);;All files (*)"));
  if (path.isEmpty())
    return;
  if (const QString error = openRun(path); !error.isEmpty())
    QMessageBox::warning(m_window, tr("Open Run"),
                         tr("Cannot open this run; the runs on the Train page are unchanged.\n\n%1")
                             .arg(error));
}

void RunFiles::followWithDialog() {
  const QString path = QFileDialog::getOpenFileName(
      m_window, tr("Follow Run"), QString(), tr("Run logs (*.jsonl);;All files (*)"));
  if (path.isEmpty())
    return;
  if (const QString error = followRun(path); !error.isEmpty())
    QMessageBox::warning(m_window, tr("Follow Run"), error);
}

void RunFiles::saveWithDialog() {
  const QString path = QFileDialog::getSaveFileName(m_window, tr("Save Run"),
                                                    selectedName() + QStringLiteral(".jsonl"),
                                                    tr("Run logs (*.jsonl)"));
  if (path.isEmpty())
    return;
  if (const QString error = saveRun(path); !error.isEmpty())
    QMessageBox::warning(m_window, tr("Save Run"), error);
}

void RunFiles::reportWithDialog() {
  const QString path = QFileDialog::getSaveFileName(m_window, tr("Export Report"),
                                                    selectedName() + QStringLiteral(".pdf"),
                                                    tr("PDF (*.pdf);;HTML with SVG (*.html)"));
  if (path.isEmpty())
    return;
  if (const QString error = exportReport(path); !error.isEmpty())
    QMessageBox::warning(m_window, tr("Export Report"), error);
}

void RunFiles::chartsWithDialog() {
  const QString dir = QFileDialog::getExistingDirectory(m_window, tr("Export Run Charts to"));
  if (dir.isEmpty())
    return;
  if (const QString error = exportCharts(dir); !error.isEmpty())
    QMessageBox::warning(m_window, tr("Export Run Charts"), error);
}

} // namespace mantissa::ui
