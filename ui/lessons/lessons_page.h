// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "ui/bridge/thread_handoff.h"

#include <mantissa/lessons/demo_registry.h>
#include <mantissa/lessons/lesson_set.h>

#include <QWidget>

#include <string>
#include <thread>
#include <vector>

class QAction;
class QComboBox;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QSplitter;
class QTextBrowser;

namespace mantissa::ui {

class FlowLayout;
class LessonChart;

// Teaching mode: the lesson list, the lesson text (Markdown or HTML read at
// run time), a "Run it" area with the live demo's results and figure, and
// links into the Explorer and the dashboard presets. Page Up / Page Down go
// to the previous / next lesson from anywhere on the page.
//
// Presenter mode turns a lesson into slides that fit the screen: the list is
// hidden, the text shows one section ("## " heading) at a time with its type
// sized to the height available, beside the demo and its figure on a
// landscape screen (above them on a portrait one). Page Down moves to the
// next slide, then to the next lesson; Page Up back.
//
// Next Demo Step (F7, in the View menu) advances the demo one step at a
// time: the first press runs the demo and shows its first step, each press
// after that the next one (lessons::demoAtStep: the figure drawn up to that
// step, the steps so far in words). "Run it" shows the whole demo again.
class LessonsPage : public QWidget {
  Q_OBJECT
public:
  explicit LessonsPage(QWidget* parent = nullptr);
  // Shows `set` instead of the installed lessons (tests, a teacher's folder).
  void setLessons(lessons::LessonSet set);
  // File > Open Lesson Folder…: asks for a folder holding lessons.json and
  // shows its lessons (a manifest error in a message box, the lessons kept).
  QAction* openFolderAction() const { return m_openFolder; }
  // View > Next Demo Step (F7).
  QAction* nextStepAction() const { return m_nextStep; }
  // Loads <dir>/lessons.json; the set's error, or empty when it is shown.
  QString openFolder(const QString& dir);
  ~LessonsPage() override;

  int currentLesson() const;
  void showLesson(int index);
  void nextLesson(int direction);
  // Page Down (+1) / Page Up (-1): the next slide in presenter mode, else the next lesson.
  void advance(int direction);
  int currentSlide() const { return m_slide; }
  int slideCount() const { return static_cast<int>(m_slides.size()); }
  // Starts the demo picked in the combo box; demoFinished() when its figure is shown.
  void runSelectedDemo();
  bool demoRunning() const { return m_running; }
  // One step of the selected demo (nextStepAction); runs it first when its
  // results are not on screen yet.
  void nextDemoStep();
  // The step shown: 0 when the whole demo (or nothing) is shown.
  int demoStep() const { return m_demoStep; }
  // The selected demo's steps (0 until it has run, or when it has none).
  int demoStepCount() const;

  QListWidget* lessonList() const { return m_list; }
  QTextBrowser* text() const { return m_text; }
  QComboBox* demoChoice() const { return m_demoChoice; }
  QPushButton* runButton() const { return m_run; }
  QPlainTextEdit* results() const { return m_results; }
  LessonChart* chart() const { return m_chart; }
  QWidget* runArea() const { return m_runArea; }
  // The current lesson's "Precision sweep: ..." button; nullptr when it has no "sweep".
  QPushButton* sweepLink() const { return m_sweepLink; }
  // Text beside (Horizontal) or above (Vertical) the run area.
  Qt::Orientation textOrientation() const;

signals:
  // `format`: empty, or a format name the Explorer should select (parseFormatName).
  void explorerRequested(const QString& value, const QString& format);
  void presetRequested(const QString& preset);
  // A lesson's embedded exercise set (its "Practise" button).
  void exercisesRequested(const mantissa::lessons::SheetSpec& spec);
  // The lesson's precision sweep (its "sweep" key), to open in the Sweep dock.
  void sweepRequested(const QString& lessonId, const mantissa::lessons::LessonSweep& sweep);
  void demoFinished(const QString& id);

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

private:
  void buildLinks(const lessons::Lesson& lesson);
  void showText();
  void showDemo(const lessons::DemoOutput& out, const QString& error);
  void showStep();
  void applyTheme();
  void applyLayout(bool force);
  void scheduleFit();
  void fitText();
  void fitResults();

  lessons::LessonSet m_set;
  std::vector<std::string> m_slides; // of the current lesson
  int m_slide = 0;
  QListWidget* m_list = nullptr;
  QTextBrowser* m_text = nullptr;
  QLabel* m_slideInfo = nullptr;
  QString m_slideText; // the slide line in full (shown elided to the text column)
  QComboBox* m_demoChoice = nullptr;
  QPushButton* m_run = nullptr;
  QLabel* m_status = nullptr;
  QPlainTextEdit* m_results = nullptr;
  LessonChart* m_chart = nullptr;
  QWidget* m_runArea = nullptr;
  FlowLayout* m_links = nullptr;
  QPushButton* m_sweepLink = nullptr; // in m_links, when the lesson has a sweep
  QAction* m_openFolder = nullptr;
  QAction* m_nextStep = nullptr;
  lessons::DemoOutput m_shownDemo; // the last demo run, in full (m_shownDemo.id empty: none)
  int m_demoStep = 0;
  bool m_stepAfterRun = false; // the run was started by Next Demo Step
  QSplitter* m_content = nullptr; // text | run area
  QSplitter* m_outputs = nullptr; // results | chart
  bool m_presenterLayout = false;
  bool m_fitPending = false;
  bool m_running = false;
  ThreadHandoff m_handoff; // the demo worker -> showDemo on the GUI thread
  std::jthread m_worker;   // last: joined first on destruction
};

} // namespace mantissa::ui
