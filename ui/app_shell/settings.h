// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <QByteArray>
#include <QSettings>
#include <QString>

namespace mantissa::ui {

// What the application remembers between sessions, through QSettings
// (organisation and application name "Mantissa"; tests run it in test mode).
class Settings {
public:
  bool darkTheme() const;
  void setDarkTheme(bool dark);

  bool presenterMode() const;
  void setPresenterMode(bool on);

  QByteArray windowGeometry() const;
  void setWindowGeometry(const QByteArray& geometry);
  QByteArray windowState() const;
  void setWindowState(const QByteArray& state);

  // Title of the tab that was current on exit (titles are stable, indices are not).
  QString lastPage() const;
  void setLastPage(const QString& title);

  // Whether each run's log and checkpoint are kept when it stops (on by default).
  bool autosaveRuns() const;
  void setAutosaveRuns(bool on);
  // Where they go: $MANTISSA_RUNS_DIR when set, else "runs" in the
  // application's data folder (~/.local/share/Mantissa/Mantissa/runs).
  static QString runsFolder();
  static constexpr int kKeptRuns = 20; // the newest run folders kept there

  // Threads of the training step's kernels (kernels::setKernelThreads): 0
  // for OpenMP's default (every CPU).
  int computeThreads() const;
  void setComputeThreads(int threads);

  void sync() { m_settings.sync(); }

private:
  QSettings m_settings;
};

} // namespace mantissa::ui
