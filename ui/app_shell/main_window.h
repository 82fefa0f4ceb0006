// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <QIcon>
#include <QMainWindow>

class QAction;
class QLabel;
class QMenu;
class QTabWidget;

namespace mantissa::ui {

class RunFiles;
class ThreadsMenu;

// The application window: one tab per big view, menus, status line. Wiring
// only; every view is its own widget added with addPage().
class MainWindow : public QMainWindow {
  Q_OBJECT
public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // The smallest window at which every chart of every page reads in full
  // (ticks, titles, legends), and which fits the work area of a 1280x720
  // screen with a panel: the window cannot be made smaller.
  static QSize minimumWindowSize() { return {1024, 640}; }

  // Adds a view as a tab and returns its index. A page whose title was current
  // when the application last closed becomes current again.
  int addPage(QWidget* page, const QString& title, const QIcon& icon = {});
  QWidget* page(const QString& title) const;
  QTabWidget* pages() const { return m_pages; }

  // Permanent status-bar text after the CPU/BF16/threads facts (e.g. steps/s).
  void setStatusDetail(const QString& text);

  void setDarkTheme(bool dark);
  void setPresenterMode(bool on);

  QAction* darkThemeAction() const { return m_darkAction; }
  QAction* presenterAction() const { return m_presenterAction; }
  QAction* exportAction() const { return m_exportAction; }
  ThreadsMenu* threadsMenu() const { return m_threadsMenu; }
  // Open Run, Save Run and the other run files of the File menu.
  RunFiles* runFiles() const { return m_runFiles; }

  // Writes the current page to `path` (.png, .svg or .pdf); empty string on
  // success, else the error message.
  QString exportCurrentPage(const QString& path);

protected:
  void closeEvent(QCloseEvent* event) override;

private:
  void buildMenus();
  void buildStatusBar();
  void restoreSettings();
  void fitToScreen();           // the normal window within the screen's available area
  void restoreNormalGeometry(); // after presenter mode: the geometry it found
  void saveSettings();
  void exportWithDialog();
  void showShortcuts();

  QTabWidget* m_pages = nullptr;
  QMenu* m_fileMenu = nullptr;
  ThreadsMenu* m_threadsMenu = nullptr;
  QMenu* m_viewMenu = nullptr;
  RunFiles* m_runFiles = nullptr;
  QAction* m_exportAction = nullptr;
  QAction* m_lightAction = nullptr;
  QAction* m_darkAction = nullptr;
  QAction* m_presenterAction = nullptr;
  QLabel* m_statusFacts = nullptr;
  QLabel* m_statusDetail = nullptr;
  QString m_pageToRestore;
  bool m_wasMaximized = false;
  QRect m_geometryBeforePresenter; // the normal geometry presenter mode found; null outside it
};

} // namespace mantissa::ui
