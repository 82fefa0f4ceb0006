// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "lessons_page.h"

#include "ui/app_shell/theme.h"
#include "ui/charts/lesson_chart.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>

namespace mantissa::ui {

LessonsPage::LessonsPage(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("LessonsPage"));
  m_list = new QListWidget;
  m_list->setObjectName(QStringLiteral("lessonList"));
  m_text = new QTextBrowser;
  m_text->setObjectName(QStringLiteral("lessonText"));
  m_text->setOpenExternalLinks(true);

  m_demoChoice = new QComboBox;
  m_run = new QPushButton(tr("Run it"));
  m_run->setObjectName(QStringLiteral("runDemo"));
  m_status = new QLabel;
  m_results = new QPlainTextEdit;
  m_results->setReadOnly(true);
  m_results->setLineWrapMode(QPlainTextEdit::WidgetWidth);
  m_results->setPlaceholderText(tr("Press \"Run it\": the results are computed now, on this machine."));
  m_chart = new LessonChart;

  auto* runRow = new QHBoxLayout;
  runRow->addWidget(new QLabel(tr("Demo:")));
  runRow->addWidget(m_demoChoice, 1);
  runRow->addWidget(m_run);
  runRow->addWidget(m_status, 2);
  m_links = new QHBoxLayout;
  auto* outputs = new QSplitter(Qt::Horizontal);
  outputs->addWidget(m_results);
  outputs->addWidget(m_chart);
  outputs->setStretchFactor(0, 2);
  outputs->setStretchFactor(1, 3);

  m_runArea = new QWidget;
  auto* runLayout = new QVBoxLayout(m_runArea);
  runLayout->setContentsMargins(0, 0, 0, 0);
  runLayout->addLayout(runRow);
  runLayout->addLayout(m_links);
  runLayout->addWidget(outputs, 1);

  auto* right = new QSplitter(Qt::Vertical);
  right->addWidget(m_text);
  right->addWidget(m_runArea);
  right->setStretchFactor(0, 2);
  right->setStretchFactor(1, 3);
  auto* main = new QSplitter(Qt::Horizontal);
  main->addWidget(m_list);
  main->addWidget(right);
  main->setStretchFactor(0, 1);
  main->setStretchFactor(1, 6);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(main);

  connect(m_list, &QListWidget::currentRowChanged, this, &LessonsPage::showLesson);
  connect(m_run, &QPushButton::clicked, this, &LessonsPage::runSelectedDemo);
  connect(&Theme::instance(), &Theme::changed, this, &LessonsPage::applyTheme);
  for (QWidget* w : std::initializer_list<QWidget*>{m_list, m_text, m_text->viewport(), m_results,
                                                    m_demoChoice, m_run})
    w->installEventFilter(this);

  setLessons(lessons::loadInstalledLessons());
  applyTheme();
}

LessonsPage::~LessonsPage() {
  if (m_worker.joinable()) m_worker.join();
}

void LessonsPage::setLessons(lessons::LessonSet set) {
  m_set = std::move(set);
  m_list->clear();
  for (const auto& l : m_set.lessons) {
    auto* item = new QListWidgetItem(QString::fromStdString(l.title));
    if (!l.ok()) item->setText(item->text() + tr(" (error)"));
    m_list->addItem(item);
  }
  // Wide enough for the longest title at the current font (presenter mode too).
  m_list->setMinimumWidth(m_list->sizeHintForColumn(0) + 2 * m_list->frameWidth() + 12);
  if (!m_set.error.empty()) {
    m_text->setPlainText(tr("The lessons could not be loaded:\n%1").arg(QString::fromStdString(m_set.error)));
    m_runArea->setEnabled(false);
    return;
  }
  if (!m_set.lessons.empty()) m_list->setCurrentRow(0);
}

int LessonsPage::currentLesson() const { return m_list->currentRow(); }

void LessonsPage::showLesson(int index) {
  if (index < 0 || index >= static_cast<int>(m_set.lessons.size())) return;
  if (m_list->currentRow() != index) {
    m_list->setCurrentRow(index); // re-enters through currentRowChanged
    return;
  }
  const auto& lesson = m_set.lessons[static_cast<std::size_t>(index)];
  m_chart->clearDemo();
  m_results->clear();
  m_status->clear();
  m_demoChoice->clear();
  if (!lesson.ok()) {
    m_text->setHtml(QStringLiteral("<h1>%1</h1><p style=\"color:#D55E00; font-weight:bold\">%2</p>"
                                   "<p>%3</p>")
                        .arg(QString::fromStdString(lesson.title).toHtmlEscaped(),
                             QString::fromStdString(lesson.error).toHtmlEscaped(),
                             tr("Fix the file and restart Mantissa; the other lessons are unaffected.")));
    m_runArea->setEnabled(false);
    buildLinks({});
    return;
  }
  const auto text = QString::fromStdString(lesson.text);
  if (lesson.format == lessons::LessonFormat::Markdown) m_text->setMarkdown(text);
  else m_text->setHtml(text);
  for (const auto& d : lesson.demos) m_demoChoice->addItem(QString::fromStdString(d));
  m_runArea->setEnabled(!lesson.demos.empty() && !m_running);
  buildLinks(lesson);
}

void LessonsPage::nextLesson(int direction) {
  const int n = m_list->count();
  if (n == 0) return;
  showLesson(std::clamp(m_list->currentRow() + direction, 0, n - 1));
}

void LessonsPage::buildLinks(const lessons::Lesson& lesson) {
  while (auto* item = m_links->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  if (!lesson.explorer.empty()) m_links->addWidget(new QLabel(tr("Open in the Explorer:")));
  for (const auto& v : lesson.explorer) {
    auto* b = new QPushButton(QString::fromStdString(v));
    connect(b, &QPushButton::clicked, this, [this, v] { emit explorerRequested(QString::fromStdString(v)); });
    m_links->addWidget(b);
  }
  if (!lesson.preset.empty()) {
    auto* b = new QPushButton(tr("Dashboard preset: %1").arg(QString::fromStdString(lesson.preset)));
    const auto p = QString::fromStdString(lesson.preset);
    connect(b, &QPushButton::clicked, this, [this, p] { emit presetRequested(p); });
    m_links->addWidget(b);
  }
  m_links->addStretch(1);
}

void LessonsPage::runSelectedDemo() {
  if (m_running || m_demoChoice->currentIndex() < 0) return;
  const std::string id = m_demoChoice->currentText().toStdString();
  m_running = true;
  m_runArea->setEnabled(false);
  m_status->setText(tr("Running %1…").arg(QString::fromStdString(id)));
  if (m_worker.joinable()) m_worker.join();
  m_worker = std::jthread([this, id] {
    lessons::DemoOutput out;
    QString error;
    try {
      out = lessons::runDemo(id);
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
    // Queued to the GUI thread; discarded if the page is destroyed first
    // (the destructor joins this thread before the QObject goes away).
    QMetaObject::invokeMethod(this, [this, out = std::move(out), error] { showDemo(out, error); },
                              Qt::QueuedConnection);
  });
}

void LessonsPage::showDemo(const lessons::DemoOutput& out, const QString& error) {
  m_running = false;
  m_runArea->setEnabled(true);
  if (!error.isEmpty()) {
    m_status->setText(tr("The demo failed: %1").arg(error));
    return;
  }
  QStringList lines;
  for (const auto& l : out.lines) lines << QString::fromStdString(l);
  m_results->setPlainText(lines.join(QLatin1Char('\n')));
  m_chart->setDemo(out);
  m_status->setText(tr("Computed just now on this machine."));
  emit demoFinished(QString::fromStdString(out.id));
}

bool LessonsPage::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::KeyPress || event->type() == QEvent::ShortcutOverride) {
    auto* key = static_cast<QKeyEvent*>(event);
    if (key->key() == Qt::Key_PageUp || key->key() == Qt::Key_PageDown) {
      if (event->type() == QEvent::KeyPress) nextLesson(key->key() == Qt::Key_PageDown ? 1 : -1);
      event->accept();
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

void LessonsPage::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_PageUp || event->key() == Qt::Key_PageDown) {
    nextLesson(event->key() == Qt::Key_PageDown ? 1 : -1);
    return;
  }
  QWidget::keyPressEvent(event);
}

void LessonsPage::applyTheme() {
  const auto& theme = Theme::instance();
  // Lesson text one step larger than the UI; presenter mode scales both.
  m_text->setFont(theme.uiFont(1.25));
  m_results->setFont(theme.monospaceFont(theme.presenter() ? 1.0 : 0.95));
  m_list->setFont(theme.uiFont(1.1, true));
  if (m_list->count() > 0)
    m_list->setMinimumWidth(m_list->sizeHintForColumn(0) + 2 * m_list->frameWidth() + 12);
}

} // namespace mantissa::ui
