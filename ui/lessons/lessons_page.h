// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <mantissa/lessons/demo_registry.h>
#include <mantissa/lessons/lesson_set.h>

#include <QWidget>

#include <thread>

class QComboBox;
class QHBoxLayout;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QTextBrowser;

namespace mantissa::ui {

class LessonChart;

// Teaching mode: the lesson list, the lesson text (Markdown or HTML read at
// run time), a "Run it" area with the live demo's results and figure, and
// links into the Explorer and the dashboard presets. Page Up / Page Down go
// to the previous / next lesson from anywhere on the page.
class LessonsPage : public QWidget {
  Q_OBJECT
public:
  explicit LessonsPage(QWidget* parent = nullptr);
  // Shows `set` instead of the installed lessons (tests, a teacher's folder).
  void setLessons(lessons::LessonSet set);
  ~LessonsPage() override;

  int currentLesson() const;
  void showLesson(int index);
  void nextLesson(int direction);
  // Starts the demo picked in the combo box; demoFinished() when its figure is shown.
  void runSelectedDemo();
  bool demoRunning() const { return m_running; }

  QListWidget* lessonList() const { return m_list; }
  QTextBrowser* text() const { return m_text; }
  QComboBox* demoChoice() const { return m_demoChoice; }
  QPushButton* runButton() const { return m_run; }
  QPlainTextEdit* results() const { return m_results; }
  LessonChart* chart() const { return m_chart; }

signals:
  void explorerRequested(const QString& value);
  void presetRequested(const QString& preset);
  void demoFinished(const QString& id);

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

private:
  void buildLinks(const lessons::Lesson& lesson);
  void showDemo(const lessons::DemoOutput& out, const QString& error);
  void applyTheme();

  lessons::LessonSet m_set;
  QListWidget* m_list = nullptr;
  QTextBrowser* m_text = nullptr;
  QComboBox* m_demoChoice = nullptr;
  QPushButton* m_run = nullptr;
  QLabel* m_status = nullptr;
  QPlainTextEdit* m_results = nullptr;
  LessonChart* m_chart = nullptr;
  QWidget* m_runArea = nullptr;
  QHBoxLayout* m_links = nullptr;
  bool m_running = false;
  std::jthread m_worker; // last: joined first on destruction
};

} // namespace mantissa::ui
