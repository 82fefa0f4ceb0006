// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <mantissa/lessons/exercise.h>

#include <QElapsedTimer>
#include <QWidget>

#include <memory>
#include <vector>

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QTimer;
class QVBoxLayout;

namespace mantissa::ui {

class BitCells;

// Practice: one generated exercise at a time (lessons/exercise.h) in a chosen
// format and kind. The student types each answer (decimal, hex or bits) and
// presses Enter; the codec's key grades it at once. A wrong answer opens the
// worked solution beside the key's bit pattern in the Explorer's bit cells.
// For a rounding, the cells are animated through the core's frames
// (Exercise::frames: the exact value's bits, guard/round/sticky, the
// decision, the rounded result), one frame every kFrameMs, with Back,
// Forward and Replay to go through them at the student's own pace.
// Three right answers in a row raise the difficulty (up to 3), two wrong in
// a row lower it. Every graded answer is kept for Export Results (CSV:
// question, answer, correct, time in seconds).
class ExercisesPage : public QWidget {
  Q_OBJECT
public:
  explicit ExercisesPage(QWidget* parent = nullptr);
  ~ExercisesPage() override;

  struct Result {
    QString question, answer;
    bool correct = false;
    double seconds = 0;
  };

  // Starts a new exercise of the chosen format and kind, seeded by the
  // session's seed and the item's number.
  void newExercise();
  void showExercise(const lessons::Exercise& exercise);
  // A lesson's exercise set: its items in order (then generated ones again).
  void startSheet(const lessons::SheetSpec& spec);
  // Grades what the fields hold; true when every part is right.
  bool check();
  const lessons::Exercise& exercise() const { return m_exercise; }
  int difficulty() const { return m_difficulty; }
  const std::vector<Result>& results() const { return m_results; }
  QString resultsCsv() const;
  // Writes resultsCsv() atomically; an error message, or empty.
  QString exportResults(const QString& path) const;

  QComboBox* formatChoice() const { return m_format; }
  QComboBox* kindChoice() const { return m_kind; }
  const std::vector<QLineEdit*>& answerFields() const { return m_fields; }
  QWidget* solution() const { return m_solution; }
  // The worked solution's bit cells (nullptr before a wrong answer, or when
  // the exercise has no pattern), the frame shown and the controls.
  BitCells* solutionCells() const { return m_cells; }
  int solutionFrame() const { return m_frame; }
  QLabel* frameCaption() const { return m_frameCaption; }
  QLabel* cutBits() const { return m_cut; }
  QPushButton* backButton() const { return m_back; }
  QPushButton* forwardButton() const { return m_forward; }
  QPushButton* replayButton() const { return m_replay; }
  bool animating() const;
  // Shows frame `index` of the exercise's frames (clamped); stops the animation.
  void showFrame(int index);

  static constexpr int kFrameMs = 1800; // a frame's time on screen while animating

signals:
  void graded(bool correct);

private:
  void fillKinds();
  void applyTheme();
  void clearFields();
  QString scoreText() const;
  void setFrame(int index);
  void placeCutBits();

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

private:

  QComboBox* m_format = nullptr;
  QComboBox* m_kind = nullptr;
  QLabel* m_score = nullptr;
  QLabel* m_question = nullptr;
  QLabel* m_items = nullptr;
  QFormLayout* m_form = nullptr;
  QPushButton* m_check = nullptr;
  QPushButton* m_next = nullptr;
  QPushButton* m_export = nullptr;
  QLabel* m_feedback = nullptr;
  QWidget* m_solution = nullptr;
  QVBoxLayout* m_cellsBox = nullptr;
  BitCells* m_cells = nullptr;
  QLabel* m_cellsCaption = nullptr;
  QLabel* m_steps = nullptr;
  QLabel* m_cut = nullptr;          // the cut-off bits, drawn just right of the cells
  QLabel* m_frameCaption = nullptr;
  QLabel* m_frameInfo = nullptr;
  QWidget* m_frameControls = nullptr;
  QPushButton* m_back = nullptr;
  QPushButton* m_forward = nullptr;
  QPushButton* m_replay = nullptr;
  QTimer* m_animation = nullptr;
  int m_frame = -1;
  int m_cutReserve = 0; // width kept free right of the cells for the cut-off bits
  std::vector<QLineEdit*> m_fields;

  lessons::Exercise m_exercise;
  std::uint64_t m_sessionSeed = 1;
  int m_item = 0;
  int m_difficulty = 1;
  int m_streak = 0; // > 0: right answers in a row; < 0: wrong ones
  int m_right = 0, m_asked = 0;
  bool m_graded = false;
  QElapsedTimer m_clock;
  std::vector<Result> m_results;
  std::vector<lessons::Exercise> m_queue; // a lesson's set, still to come
  std::size_t m_queued = 0, m_queueSize = 0;
};

} // namespace mantissa::ui
