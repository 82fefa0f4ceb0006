// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// File -> Open Run… / Save Run… / Export Report… of the main window: opens a
// saved run (or a `mantissa-cli train --log` file) for browsing and exporting
// with no training: one window with a tab per chart (loss, accuracy, loss
// scale, weight-gradient histograms), each with the usual export context menu,
// built by the same makeRunChart() as `mantissa-cli plot`.

#pragma push_macro("slots")
#undef slots
#include <mantissa/train/run_log.h>
#pragma pop_macro("slots")

#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>

class QAction;
class QMenu;
class QTabWidget;
class QWidget;

namespace mantissa::ui {

class ChartWidget;

class RunBrowser : public QObject {
  Q_OBJECT
public:
  // Adds the three actions to `fileMenu` (at its top); dialogs are parented to `window`.
  RunBrowser(QMenu* fileMenu, QWidget* window);
  ~RunBrowser() override;

  // The same steps as the menu items, without dialogs; "" or the error.
  QString openRun(const QString& path);
  QString saveRun(const QString& path) const;     // JSONL + .config.json
  QString exportReport(const QString& path) const; // .pdf or .html

  const train::RunLog* run() const { return m_log.get(); }
  QWidget* view() const { return m_view; }   // the browsing window, once a run is open
  QTabWidget* tabs() const { return m_tabs; }
  ChartWidget* chart(const QString& stem) const; // by runChartStem(): "loss", ...

signals:
  void runOpened(const QString& path);

private:
  void openWithDialog();
  void saveWithDialog();
  void reportWithDialog();
  void rebuildView();

  QWidget* m_window;
  std::unique_ptr<train::RunLog> m_log;
  QPointer<QWidget> m_view;
  QTabWidget* m_tabs = nullptr;
  QAction* m_saveAction = nullptr;
  QAction* m_reportAction = nullptr;
};

} // namespace mantissa::ui
