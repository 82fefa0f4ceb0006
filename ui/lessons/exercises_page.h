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
class QVBoxLayout;

namespace mantissa::ui {

class BitCells;

// Practice: one generated exercise at a time (lessons/exercise.h) in a chosen
// format and kind. The student types each answer (decimal, hex or bits) and
// presses Enter; the codec's key grades it at once. A wrong answer opens the
// worked solution beside the key's bit pattern in the Explorer's bit cells.
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

signals:
  void graded(bool correct);

private:
  void fillKinds();
  void applyTheme();
  void clearFields();
  QString scoreText() const;

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
