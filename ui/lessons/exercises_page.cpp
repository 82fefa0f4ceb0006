// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "exercises_page.h"

#include "ui/app_shell/theme.h"
#include "ui/charts/chart_export.h"
#include "ui/formats/bit_cells.h"

#include <mantissa/numeric/codec.h>

#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRandomGenerator>
#include <QScrollArea>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace mantissa::ui {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

constexpr int kRaiseAfter = 3; // right answers in a row before the difficulty rises
constexpr int kLowerAfter = 2; // wrong answers in a row before it falls

} // namespace

ExercisesPage::ExercisesPage(QWidget* parent) : QWidget(parent) {
  m_sessionSeed = QRandomGenerator::global()->generate64();
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  auto* scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  outer->addWidget(scroll);
  auto* content = new QWidget;
  scroll->setWidget(content);
  auto* root = new QVBoxLayout(content);

  auto* top = new QHBoxLayout;
  m_format = new QComboBox;
  for (numeric::FormatId id : lessons::exerciseFormats())
    m_format->addItem(qs(std::string(numeric::formatInfo(id).displayName)), static_cast<int>(id));
  m_format->setCurrentIndex(m_format->findData(static_cast<int>(numeric::FormatId::Fp8E4M3)));
  m_kind = new QComboBox;
  m_score = new QLabel;
  m_export = new QPushButton(tr("Export Results…"));
  m_export->setToolTip(tr("Save every graded answer as CSV: question, answer, correct, time"));
  top->addWidget(new QLabel(tr("Format")));
  top->addWidget(m_format);
  top->addSpacing(12);
  top->addWidget(new QLabel(tr("Practise")));
  top->addWidget(m_kind);
  top->addStretch(1);
  top->addWidget(m_score);
  top->addSpacing(12);
  top->addWidget(m_export);
  root->addLayout(top);

  m_question = new QLabel;
  m_question->setWordWrap(true);
  m_question->setTextInteractionFlags(Qt::TextSelectableByMouse);
  root->addWidget(m_question);
  m_items = new QLabel;
  m_items->setWordWrap(true);
  m_items->setTextInteractionFlags(Qt::TextSelectableByMouse);
  root->addWidget(m_items);

  m_form = new QFormLayout;
  root->addLayout(m_form);
  auto* rules = new QLabel(qs(std::string(lessons::exerciseAnswerRules())));
  rules->setWordWrap(true);
  rules->setForegroundRole(QPalette::PlaceholderText);
  root->addWidget(rules);

  auto* buttons = new QHBoxLayout;
  m_check = new QPushButton(tr("Check"));
  m_check->setDefault(true);
  m_next = new QPushButton(tr("Next Question"));
  buttons->addWidget(m_check);
  buttons->addWidget(m_next);
  buttons->addStretch(1);
  root->addLayout(buttons);

  m_feedback = new QLabel;
  m_feedback->setWordWrap(true);
  m_feedback->setTextFormat(Qt::RichText);
  root->addWidget(m_feedback);

  m_solution = new QWidget;
  auto* sol = new QVBoxLayout(m_solution);
  sol->setContentsMargins(0, 0, 0, 0);
  m_cellsCaption = new QLabel;
  sol->addWidget(m_cellsCaption);
  m_cellsBox = new QVBoxLayout;
  sol->addLayout(m_cellsBox);
  // The rounding, frame by frame: what the cells show now, and the controls.
  m_cut = new QLabel(m_solution); // placed beside the last cell (placeCutBits), over the layout
  m_solution->installEventFilter(this);
  m_cut->setObjectName(QStringLiteral("cutBits"));
  m_cut->hide();
  m_frameCaption = new QLabel;
  m_frameCaption->setObjectName(QStringLiteral("frameCaption"));
  m_frameCaption->setWordWrap(true);
  m_frameCaption->setTextInteractionFlags(Qt::TextSelectableByMouse);
  sol->addWidget(m_frameCaption);
  m_frameControls = new QWidget;
  auto* controls = new QHBoxLayout(m_frameControls);
  controls->setContentsMargins(0, 0, 0, 0);
  m_back = new QPushButton(tr("◀ Back"));
  m_back->setToolTip(tr("The previous step of the rounding"));
  m_forward = new QPushButton(tr("Forward ▶"));
  m_forward->setToolTip(tr("The next step of the rounding"));
  m_replay = new QPushButton(tr("Replay"));
  m_replay->setToolTip(tr("Play the rounding again from the exact value"));
  m_frameInfo = new QLabel;
  controls->addWidget(m_back);
  controls->addWidget(m_forward);
  controls->addWidget(m_replay);
  controls->addSpacing(12);
  controls->addWidget(m_frameInfo);
  controls->addStretch(1);
  sol->addWidget(m_frameControls);
  m_animation = new QTimer(this);
  m_animation->setInterval(kFrameMs);
  connect(m_animation, &QTimer::timeout, this, [this] {
    if (m_frame + 1 >= static_cast<int>(m_exercise.frames.size())) {
      m_animation->stop();
      setFrame(m_frame); // the controls' state at the end
      return;
    }
    setFrame(m_frame + 1);
  });
  connect(m_back, &QPushButton::clicked, this, [this] { showFrame(m_frame - 1); });
  connect(m_forward, &QPushButton::clicked, this, [this] { showFrame(m_frame + 1); });
  connect(m_replay, &QPushButton::clicked, this, [this] {
    setFrame(0);
    m_animation->start();
  });
  m_steps = new QLabel;
  m_steps->setWordWrap(true);
  m_steps->setTextFormat(Qt::RichText);
  m_steps->setTextInteractionFlags(Qt::TextSelectableByMouse);
  sol->addWidget(m_steps);
  root->addWidget(m_solution);
  root->addStretch(1);
  m_solution->hide();

  fillKinds();
  connect(m_format, &QComboBox::currentIndexChanged, this, [this] {
    fillKinds();
    newExercise();
  });
  connect(m_kind, &QComboBox::currentIndexChanged, this, [this] { newExercise(); });
  connect(m_check, &QPushButton::clicked, this, [this] { check(); });
  connect(m_next, &QPushButton::clicked, this, &ExercisesPage::newExercise);
  connect(m_export, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Results"), QStringLiteral("results.csv"),
                                                      tr("CSV files (*.csv)"));
    if (path.isEmpty())
      return;
    if (const QString error = exportResults(path); !error.isEmpty())
      QMessageBox::warning(this, tr("Export Results"), error);
  });
  connect(&Theme::instance(), &Theme::changed, this, &ExercisesPage::applyTheme);
  applyTheme();
  newExercise();
}

ExercisesPage::~ExercisesPage() = default;

void ExercisesPage::fillKinds() {
  const auto id = static_cast<numeric::FormatId>(m_format->currentData().toInt());
  const QString before = m_kind->currentText();
  const QSignalBlocker block(m_kind);
  m_kind->clear();
  for (lessons::ExerciseKind k : lessons::allExerciseKinds())
    if (lessons::kindAppliesTo(k, id))
      m_kind->addItem(qs(std::string(lessons::exerciseKindTitle(k))), static_cast<int>(k));
  const int again = m_kind->findText(before);
  m_kind->setCurrentIndex(again >= 0 ? again : 0);
}

void ExercisesPage::applyTheme() {
  const Theme& theme = Theme::instance();
  m_question->setFont(theme.uiFont(1.25));
  m_items->setFont(theme.monospaceFont(1.1));
  m_feedback->setFont(theme.uiFont(1.1));
  m_frameCaption->setFont(theme.uiFont(1.1));
  m_frameInfo->setFont(theme.uiFont(1.0, true));
  placeCutBits();
  for (QLineEdit* f : m_fields)
    f->setFont(theme.monospaceFont(1.15));
}

void ExercisesPage::startSheet(const lessons::SheetSpec& spec) {
  const lessons::Sheet sheet = lessons::generateSheet(spec);
  m_queue.assign(sheet.items.rbegin(), sheet.items.rend()); // popped from the back
  m_queueSize = m_queue.size();
  m_queued = 0;
  newExercise();
}

void ExercisesPage::newExercise() {
  if (!m_queue.empty()) {
    lessons::Exercise next = std::move(m_queue.back());
    m_queue.pop_back();
    ++m_queued;
    showExercise(next);
    return;
  }
  m_queueSize = 0;
  const auto id = static_cast<numeric::FormatId>(m_format->currentData().toInt());
  const auto kind = static_cast<lessons::ExerciseKind>(m_kind->currentData().toInt());
  showExercise(lessons::generateExercise(id, kind, lessons::sheetItemSeed(m_sessionSeed, id, kind, m_item++),
                                         m_difficulty));
}

void ExercisesPage::clearFields() {
  while (m_form->rowCount() > 0)
    m_form->removeRow(0);
  m_fields.clear();
}

void ExercisesPage::showExercise(const lessons::Exercise& exercise) {
  m_exercise = exercise;
  { // The choices name what is on screen (a lesson's set, or a test's item).
    const QSignalBlocker blockFormat(m_format), blockKind(m_kind);
    m_format->setCurrentIndex(m_format->findData(static_cast<int>(exercise.format)));
    fillKinds();
    m_kind->setCurrentIndex(m_kind->findData(static_cast<int>(exercise.kind)));
  }
  m_graded = false;
  m_question->setText(qs(exercise.question));
  QString items;
  for (std::size_t i = 0; i < exercise.items.size(); ++i)
    items += QStringLiteral("(%1) %2    ").arg(i + 1).arg(qs(exercise.items[i]));
  m_items->setText(items.trimmed());
  m_items->setVisible(!exercise.items.empty());
  clearFields();
  for (const lessons::AnswerPart& part : exercise.parts) {
    auto* field = new QLineEdit;
    field->setClearButtonEnabled(true);
    field->setPlaceholderText(part.form == lessons::AnswerForm::Indices ? tr("item numbers, or none")
                              : part.form == lessons::AnswerForm::Digits ? tr("three digits, e.g. 101")
                                                                         : tr("decimal, 0x hex, or bits"));
    connect(field, &QLineEdit::returnPressed, this, [this] { check(); });
    m_form->addRow(qs(part.label) + QLatin1Char(':'), field);
    m_fields.push_back(field);
  }
  applyTheme();
  m_feedback->clear();
  m_animation->stop();
  m_frame = -1;
  delete m_cells; // the last exercise's pattern goes with it
  m_cells = nullptr;
  m_cut->hide();
  m_solution->hide();
  m_score->setText(scoreText());
  if (!m_fields.empty())
    m_fields.front()->setFocus();
  m_clock.start();
}

bool ExercisesPage::check() {
  std::vector<std::string> answers;
  QStringList typed;
  for (QLineEdit* f : m_fields) {
    answers.push_back(f->text().toStdString());
    typed << f->text().trimmed();
  }
  const lessons::Grade grade = lessons::gradeAnswer(m_exercise, answers);
  const bool correct = grade.correct();
  if (!m_graded) { // the first try counts for the score and the difficulty
    m_graded = true;
    ++m_asked;
    m_right += correct ? 1 : 0;
    m_streak = correct ? std::max(m_streak, 0) + 1 : std::min(m_streak, 0) - 1;
    if (m_streak >= kRaiseAfter && m_difficulty < lessons::kMaxDifficulty) {
      ++m_difficulty;
      m_streak = 0;
    } else if (m_streak <= -kLowerAfter && m_difficulty > lessons::kMinDifficulty) {
      --m_difficulty;
      m_streak = 0;
    }
    m_results.push_back({qs(m_exercise.question), typed.join(QStringLiteral("; ")), correct,
                         static_cast<double>(m_clock.elapsed()) / 1000.0});
  }
  QString html;
  for (std::size_t i = 0; i < grade.parts.size(); ++i) {
    const bool ok = grade.parts[i].correct;
    html += QStringLiteral("<div><span style=\"color:%1\"><b>%2 %3:</b></span> %4</div>")
                .arg(ok ? QStringLiteral("#1a7f37") : QStringLiteral("#c62828"),
                     ok ? QStringLiteral("✓") : QStringLiteral("✗"),
                     qs(m_exercise.parts[i].label).toHtmlEscaped(), qs(grade.parts[i].feedback).toHtmlEscaped());
  }
  m_feedback->setText(html);
  m_score->setText(scoreText());
  if (!correct) {
    // The worked solution, with the pattern it is about in bit cells.
    delete m_cells;
    m_cells = nullptr;
    m_cut->hide();
    if (m_exercise.subjectBits) {
      const numeric::FloatFormat& f =
          m_exercise.kind == lessons::ExerciseKind::MxScale ? numeric::formatInfo(numeric::FormatId::E8M0)
                                                            : numeric::formatInfo(m_exercise.format);
      m_cells = new BitCells(f);
      m_cells->setBits(*m_exercise.subjectBits);
      m_cellsBox->addWidget(m_cells);
      m_cells->installEventFilter(this); // the cut-off bits follow the last cell
      const bool given = m_exercise.kind == lessons::ExerciseKind::Decode ||
                         m_exercise.kind == lessons::ExerciseKind::Neighbours;
      m_cellsCaption->setText(
          (given ? tr("The pattern x in %1: %2 = %3") : tr("The answer in %1: %2 = %3"))
              .arg(qs(std::string(f.displayName)), qs(numeric::formatBitsHex(f, *m_exercise.subjectBits)),
                   qs(numeric::decode(f, *m_exercise.subjectBits).exactDecimal)));
    }
    m_cellsCaption->setVisible(m_cells != nullptr);
    QString steps = QStringLiteral("<p><b>%1</b></p><ol>").arg(tr("Worked solution"));
    for (const std::string& s : m_exercise.steps)
      steps += QStringLiteral("<li>%1</li>").arg(qs(s).toHtmlEscaped());
    steps += QStringLiteral("</ol>");
    m_steps->setText(steps);
    const bool frames = m_cells && !m_exercise.frames.empty();
    m_frameCaption->setVisible(frames);
    m_frameControls->setVisible(frames);
    m_animation->stop();
    m_frame = -1;
    m_cutReserve = 0;
    if (frames) {
      // The cells start at the exact value and move through the rounding.
      m_cellsCaption->setText(tr("The rounding in %1, step by step:")
                                  .arg(qs(std::string(numeric::formatInfo(m_exercise.format).displayName))));
      setFrame(0);
      m_animation->start();
    }
    m_solution->show();
  } else {
    m_animation->stop();
    m_solution->hide();
  }
  emit graded(correct);
  return correct;
}

bool ExercisesPage::animating() const { return m_animation->isActive(); }

void ExercisesPage::showFrame(int index) {
  m_animation->stop();
  setFrame(index);
}

void ExercisesPage::setFrame(int index) {
  const int n = static_cast<int>(m_exercise.frames.size());
  if (!m_cells || n == 0)
    return;
  m_frame = std::clamp(index, 0, n - 1);
  const lessons::SolutionFrame& frame = m_exercise.frames[static_cast<std::size_t>(m_frame)];
  m_cells->setBits(frame.bits);
  m_frameCaption->setText(qs(frame.caption));
  // The cut-off bits: dashed boxes (not stored) right of the last cell, named G R S once named.
  QString digits, labels;
  for (const lessons::CutBit& b : frame.cut) {
    digits += QStringLiteral("<td align=center style=\"border:1px dashed #888; padding:2px 6px\">%1</td>").arg(b.digit);
    labels += QStringLiteral("<td align=center>%1</td>").arg(qs(b.label).toHtmlEscaped());
  }
  if (frame.moreCut) { // and more bits after these: they count only through the sticky bit
    digits += QStringLiteral("<td align=center style=\"padding:2px 6px\">…</td>");
    labels += QStringLiteral("<td></td>");
  }
  if (frame.cut.empty()) {
    m_cut->clear();
    m_cut->hide();
  } else {
    m_cut->setText(QStringLiteral("<table cellspacing=2><tr><td rowspan=2 valign=top>%1&nbsp;</td>%2</tr>"
                                  "<tr>%3</tr></table>")
                       .arg(tr("cut off:"), digits, labels));
    m_cut->show();
  }
  placeCutBits();
  m_frameInfo->setText(tr("Step %1 of %2").arg(m_frame + 1).arg(n));
  m_back->setEnabled(m_frame > 0);
  m_forward->setEnabled(m_frame < n - 1);
}

void ExercisesPage::placeCutBits() {
  if (!m_cells || !m_cut)
    return;
  m_cut->setFont(Theme::instance().monospaceFont(1.2, true));
  m_cut->adjustSize();
  // A 32-bit format's cells would take the whole width: they give up room
  // for the widest cut-off row seen (the first frame's) so it stays on screen.
  if (m_cut->isVisibleTo(m_solution))
    m_cutReserve = std::max(m_cutReserve, m_cut->width() + 16);
  const int cellsWidth = m_cutReserve > 0 ? std::max(m_cells->minimumSizeHint().width(), m_solution->width() - m_cutReserve)
                                          : QWIDGETSIZE_MAX;
  if (m_cells->maximumWidth() != cellsWidth)
    m_cells->setMaximumWidth(cellsWidth);
  const QRect last = m_cells->cellRect(0).translated(m_cells->mapTo(m_solution, QPoint(0, 0)));
  m_cut->move(last.right() + 10, std::max(0, last.top() - 2));
  m_cut->raise();
}

bool ExercisesPage::eventFilter(QObject* watched, QEvent* event) {
  if ((watched == m_cells && (event->type() == QEvent::Resize || event->type() == QEvent::Move)) ||
      (watched == m_solution && event->type() == QEvent::Resize))
    placeCutBits();
  return QWidget::eventFilter(watched, event);
}

QString ExercisesPage::scoreText() const {
  QString text = tr("Score %1 / %2 · difficulty %3").arg(m_right).arg(m_asked).arg(m_difficulty);
  if (m_queueSize > 0)
    text = tr("Lesson set: item %1 of %2 · ").arg(m_queued).arg(m_queueSize) + text;
  return text;
}

QString ExercisesPage::resultsCsv() const {
  QString csv = QStringLiteral("question,answer,correct,time_s\n");
  for (const Result& r : m_results)
    csv += csvField(r.question) + QLatin1Char(',') + csvField(r.answer) + QLatin1Char(',') +
           (r.correct ? QStringLiteral("yes") : QStringLiteral("no")) + QLatin1Char(',') +
           QString::number(r.seconds, 'f', 1) + QLatin1Char('\n');
  return csv;
}

QString ExercisesPage::exportResults(const QString& path) const {
  return writeFileAtomically(path, resultsCsv().toUtf8());
}

} // namespace mantissa::ui
