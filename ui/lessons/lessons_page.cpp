// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "lessons_page.h"

#include "ui/app_shell/theme.h"
#include "ui/charts/lesson_chart.h"
#include "ui/lessons/flow_layout.h"

#include <mantissa/numeric/format.h>

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QMessageBox>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTimer>
#include <QTextFragment>
#include <QTextCharFormat>
#include <QTextCursor>
#include <QTextBlock>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>
#include <vector>
#include <cstdlib>
#include <memory>

namespace mantissa::ui {

namespace {

// Presenter text sizes tried from the largest down (x the presenter font):
// the largest at which the slide fits without scrolling wins.
constexpr double kSlideFontFactors[] = {1.6, 1.45, 1.3, 1.2, 1.1, 1.0, 0.9, 0.8};
// Presenter mode: the largest that fits; never below the page's own text
// size (a longer result scrolls rather than shrinking out of a projector's reach).
constexpr double kResultFontFactors[] = {1.3, 1.15, 1.0};
constexpr double kLandscape = 1.2; // width / height from which text sits beside the demo
constexpr int kTextShare = 42;         // % of a landscape presenter page for the slide text
constexpr int kNarrowestTextShare = 30; // ... down to this when a short slide fits at the same size

QString qs(const std::string& s) { return QString::fromStdString(s); }

} // namespace

LessonsPage::LessonsPage(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("LessonsPage"));
  m_openFolder = new QAction(tr("Open &Lesson Folder…"), this);
  m_openFolder->setToolTip(tr("Show the lessons of a folder holding lessons.json (a teacher's own)"));
  connect(m_openFolder, &QAction::triggered, this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open Lesson Folder"));
    if (dir.isEmpty()) return;
    if (const QString error = openFolder(dir); !error.isEmpty())
      QMessageBox::warning(this, tr("Open Lesson Folder"), error);
  });
  m_nextStep = new QAction(tr("Next Demo &Step"), this);
  m_nextStep->setShortcut(QKeySequence(Qt::Key_F7));
  m_nextStep->setToolTip(tr("Advance the lesson's demo one step (the first press runs it)"));
  connect(m_nextStep, &QAction::triggered, this, &LessonsPage::nextDemoStep);
  addAction(m_nextStep); // its key works wherever the page's window has focus
  m_list = new QListWidget;
  m_list->setObjectName(QStringLiteral("lessonList"));
  m_text = new QTextBrowser;
  m_text->setObjectName(QStringLiteral("lessonText"));
  m_text->setOpenExternalLinks(true);
  m_slideInfo = new QLabel;
  m_slideInfo->setObjectName(QStringLiteral("slideInfo"));
  // One line, elided to the text column (fitText): its full width must not
  // hold the column open, nor may wrapping change the slide's height.
  m_slideInfo->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  auto* textColumn = new QWidget;
  auto* textLayout = new QVBoxLayout(textColumn);
  textLayout->setContentsMargins(0, 0, 0, 0);
  textLayout->addWidget(m_text, 1);
  textLayout->addWidget(m_slideInfo);

  m_demoChoice = new QComboBox;
  m_run = new QPushButton(tr("Run it"));
  m_run->setObjectName(QStringLiteral("runDemo"));
  m_status = new QLabel;
  m_status->setWordWrap(true);
  m_results = new QPlainTextEdit;
  m_results->setReadOnly(true);
  m_results->setLineWrapMode(QPlainTextEdit::WidgetWidth);
  m_results->setPlaceholderText(tr("Press \"Run it\": the results are computed now, on this machine."));
  m_chart = new LessonChart;

  auto* runRow = new QHBoxLayout;
  runRow->addWidget(new QLabel(tr("Demo:")));
  runRow->addWidget(m_demoChoice, 1);
  runRow->addWidget(m_run);
  auto* linksBox = new QWidget;
  m_links = new FlowLayout(linksBox);
  m_outputs = new QSplitter(Qt::Horizontal);
  m_outputs->addWidget(m_results);
  m_outputs->addWidget(m_chart);
  m_outputs->setChildrenCollapsible(false);

  m_runArea = new QWidget;
  auto* runLayout = new QVBoxLayout(m_runArea);
  runLayout->setContentsMargins(0, 0, 0, 0);
  runLayout->addLayout(runRow);
  runLayout->addWidget(m_status);
  runLayout->addWidget(linksBox);
  runLayout->addWidget(m_outputs, 1);

  m_content = new QSplitter(Qt::Vertical);
  m_content->addWidget(textColumn);
  m_content->addWidget(m_runArea);
  m_content->setChildrenCollapsible(false);
  auto* main = new QSplitter(Qt::Horizontal);
  main->addWidget(m_list);
  main->addWidget(m_content);
  main->setStretchFactor(0, 1);
  main->setStretchFactor(1, 6);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(main);

  connect(m_list, &QListWidget::currentRowChanged, this, &LessonsPage::showLesson);
  connect(m_run, &QPushButton::clicked, this, &LessonsPage::runSelectedDemo);
  connect(&Theme::instance(), &Theme::changed, this, &LessonsPage::applyTheme);
  for (QWidget* w : std::initializer_list<QWidget*>{m_list, m_text, m_text->viewport(), m_results,
                                                    m_results->viewport(), m_demoChoice, m_run})
    w->installEventFilter(this);

  applyLayout(true);
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
    auto* item = new QListWidgetItem(qs(l.title));
    if (!l.ok()) item->setText(item->text() + tr(" (error)"));
    m_list->addItem(item);
  }
  // Wide enough for the longest title at the current font (presenter mode too).
  m_list->setMinimumWidth(m_list->sizeHintForColumn(0) + 2 * m_list->frameWidth() + 12);
  if (!m_set.error.empty()) {
    m_slides.clear();
    m_text->setPlainText(tr("The lessons could not be loaded:\n%1").arg(qs(m_set.error)));
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
  m_shownDemo = {};
  m_demoStep = 0;
  m_chart->clearDemo();
  m_results->clear();
  m_status->clear();
  m_demoChoice->clear();
  m_slides = lessons::lessonSlides(lesson);
  m_slide = 0;
  showText();
  if (!lesson.ok()) {
    m_runArea->setEnabled(false);
    buildLinks({});
    return;
  }
  // The title a student reads; the id (what the lesson names) as the item's data.
  for (const auto& d : lesson.demos) {
    const std::string_view title = lessons::demoTitle(d);
    m_demoChoice->addItem(title.empty() ? qs(d) : qs(std::string(title)), qs(d));
  }
  m_runArea->setEnabled(!lesson.demos.empty() && !m_running);
  buildLinks(lesson);
}

void LessonsPage::showText() {
  const int index = m_list->currentRow();
  if (index < 0 || index >= static_cast<int>(m_set.lessons.size())) return;
  const auto& lesson = m_set.lessons[static_cast<std::size_t>(index)];
  if (!lesson.ok()) {
    m_text->setHtml(QStringLiteral("<h1>%1</h1><p style=\"color:#D55E00; font-weight:bold\">%2</p>"
                                   "<p>%3</p>")
                        .arg(qs(lesson.title).toHtmlEscaped(), qs(lesson.error).toHtmlEscaped(),
                             tr("Fix the file and restart Mantissa; the other lessons are unaffected.")));
  } else {
    const bool slide = m_presenterLayout && !m_slides.empty();
    const auto text = qs(slide ? m_slides[static_cast<std::size_t>(m_slide)] : lesson.text);
    if (lesson.format == lessons::LessonFormat::Markdown) m_text->setMarkdown(text);
    else m_text->setHtml(text);
    // Code (a formula, a value) takes the lesson text's size: the fixed-pitch
    // font came with the system's own small size, unreadable on a projector.
    struct Span {
      int position, length;
      QTextCharFormat format;
    };
    std::vector<Span> code;
    for (QTextBlock block = m_text->document()->begin(); block.isValid(); block = block.next())
      for (auto it = block.begin(); !it.atEnd(); ++it) {
        const QTextFragment fragment = it.fragment();
        QTextCharFormat format = fragment.charFormat();
        if (!format.fontFixedPitch() && !format.hasProperty(QTextFormat::FontFamilies))
          continue;
        if (!format.hasProperty(QTextFormat::FontPointSize) && !format.hasProperty(QTextFormat::FontPixelSize))
          continue;
        format.clearProperty(QTextFormat::FontPointSize);
        format.clearProperty(QTextFormat::FontPixelSize);
        code.push_back({fragment.position(), fragment.length(), format});
      }
    for (const Span& span : code) {
      QTextCursor cursor(m_text->document());
      cursor.setPosition(span.position);
      cursor.setPosition(span.position + span.length, QTextCursor::KeepAnchor);
      cursor.setCharFormat(span.format);
    }
  }
  const int slides = std::max(1, slideCount());
  m_slideText = tr("%1   ·   slide %2 of %3   ·   lesson %4 of %5   ·   Page Down: next")
                    .arg(qs(lesson.title)).arg(m_slide + 1).arg(slides)
                    .arg(index + 1).arg(m_list->count());
  m_slideInfo->setText(m_slideText);
  m_slideInfo->setToolTip(m_slideText);
  scheduleFit();
}

void LessonsPage::nextLesson(int direction) {
  const int n = m_list->count();
  if (n == 0) return;
  showLesson(std::clamp(m_list->currentRow() + direction, 0, n - 1));
}

void LessonsPage::advance(int direction) {
  if (m_presenterLayout) {
    const int slide = m_slide + direction;
    if (slide >= 0 && slide < slideCount()) {
      m_slide = slide;
      showText();
      return;
    }
  }
  const int before = m_list->currentRow();
  const int target = std::clamp(before + direction, 0, std::max(0, m_list->count() - 1));
  if (target == before) return; // the first or last slide of all: stay
  nextLesson(direction);
  // Back into the previous lesson lands on its last slide.
  if (m_presenterLayout && direction < 0 && m_list->currentRow() != before && slideCount() > 1) {
    m_slide = slideCount() - 1;
    showText();
  }
}

void LessonsPage::buildLinks(const lessons::Lesson& lesson) {
  m_sweepLink = nullptr;
  while (auto* item = m_links->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  if (!lesson.explorer.empty()) m_links->addWidget(new QLabel(tr("Open in the Explorer:")));
  int n = 0;
  for (const auto& link : lesson.explorer) {
    const auto value = qs(link.value);
    const auto format = qs(link.format);
    auto* b = new QPushButton(value);
    if (const auto id = numeric::parseFormatName(link.format)) {
      const auto name = numeric::formatInfo(*id).displayName;
      b->setText(tr("%1 in %2").arg(value, QString::fromUtf8(name.data(), qsizetype(name.size()))));
    }
    b->setObjectName(QStringLiteral("explorerLink%1").arg(n++));
    b->setToolTip(tr("Open %1 in the Float Explorer").arg(b->text()));
    connect(b, &QPushButton::clicked, this, [this, value, format] { emit explorerRequested(value, format); });
    m_links->addWidget(b);
  }
  if (!lesson.preset.empty()) {
    auto* b = new QPushButton(tr("Dashboard preset: %1").arg(qs(lesson.preset)));
    b->setObjectName(QStringLiteral("presetLink"));
    b->setToolTip(tr("Set up the Train page with this preset"));
    const auto p = qs(lesson.preset);
    connect(b, &QPushButton::clicked, this, [this, p] { emit presetRequested(p); });
    m_links->addWidget(b);
  }
  if (lesson.sweep) {
    const lessons::LessonSweep sweep = *lesson.sweep;
    const QString id = qs(lesson.id);
    m_sweepLink = new QPushButton(tr("Precision sweep: %1 steps, %2").arg(sweep.steps).arg(qs(sweep.model)));
    m_sweepLink->setToolTip(tr("Open the Sweep dock on the Train page with this lesson's sweep filled in"));
    connect(m_sweepLink, &QPushButton::clicked, this, [this, id, sweep] { emit sweepRequested(id, sweep); });
    m_links->addWidget(m_sweepLink);
  }
  for (const lessons::SheetSpec& spec : lesson.exercises) {
    const auto& f = numeric::formatInfo(spec.format);
    auto* b = new QPushButton(tr("Practise: %1, %2 (%3)")
                                  .arg(qs(std::string(f.displayName)), qs(std::string(lessons::exerciseKindTitle(spec.kind))))
                                  .arg(spec.count));
    b->setToolTip(tr("Open these exercises on the Exercises page"));
    connect(b, &QPushButton::clicked, this, [this, spec] { emit exercisesRequested(spec); });
    m_links->addWidget(b);
  }
}

QString LessonsPage::openFolder(const QString& dir) {
  lessons::LessonSet set = lessons::loadLessons(dir.toStdString());
  if (!set.error.empty())
    return qs(set.error);
  setLessons(std::move(set));
  return {};
}

void LessonsPage::runSelectedDemo() {
  if (m_running || m_demoChoice->currentIndex() < 0) return;
  const std::string id = m_demoChoice->currentData().toString().toStdString();
  m_running = true;
  m_runArea->setEnabled(false);
  m_status->setText(tr("Running %1…").arg(qs(id)));
  m_demoStep = 0;
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
    // (the destructor joins this thread before m_handoff goes away).
    m_handoff.post([this, out = std::move(out), error] { showDemo(out, error); });
  });
}

void LessonsPage::showDemo(const lessons::DemoOutput& out, const QString& error) {
  m_running = false;
  m_runArea->setEnabled(true);
  if (!error.isEmpty()) {
    m_status->setText(tr("The demo failed: %1").arg(error));
    return;
  }
  m_shownDemo = out;
  m_demoStep = 0;
  const bool step = std::exchange(m_stepAfterRun, false) && lessons::demoStepCount(out) > 0;
  if (step) {
    m_demoStep = 1;
    showStep();
  } else {
    QStringList lines;
    for (const auto& l : out.lines) lines << qs(l);
    m_results->setPlainText(lines.join(QLatin1Char('\n')));
    m_chart->setDemo(out);
    m_status->setText(tr("Computed just now on this machine."));
  }
  scheduleFit();
  emit demoFinished(qs(out.id));
}

int LessonsPage::demoStepCount() const {
  if (m_shownDemo.id.empty() || m_demoChoice->currentData().toString() != qs(m_shownDemo.id))
    return 0;
  return lessons::demoStepCount(m_shownDemo);
}

void LessonsPage::nextDemoStep() {
  if (m_running || m_demoChoice->currentIndex() < 0 || !m_runArea->isEnabled())
    return;
  if (m_shownDemo.id.empty() || m_demoChoice->currentData().toString() != qs(m_shownDemo.id)) {
    m_stepAfterRun = true; // its first step once it has run
    runSelectedDemo();
    return;
  }
  const int steps = lessons::demoStepCount(m_shownDemo);
  if (steps == 0) {
    m_status->setText(tr("This demo has no steps: its results are shown whole."));
    return;
  }
  if (m_demoStep >= steps) {
    m_status->setText(tr("Step %1 of %1: the demo is complete. \"Run it\" runs it again.").arg(steps));
    return;
  }
  ++m_demoStep;
  showStep();
}

void LessonsPage::showStep() {
  const lessons::DemoOutput at = lessons::demoAtStep(m_shownDemo, m_demoStep);
  QStringList lines;
  for (const auto& l : at.lines) lines << qs(l);
  m_results->setPlainText(lines.join(QLatin1Char('\n')));
  m_results->moveCursor(QTextCursor::End); // the newest step in view
  m_chart->setDemo(at);
  const int steps = lessons::demoStepCount(m_shownDemo);
  m_status->setText(m_demoStep < steps ? tr("Step %1 of %2 · %3: next step")
                                             .arg(m_demoStep).arg(steps)
                                             .arg(m_nextStep->shortcut().toString(QKeySequence::NativeText))
                                       : tr("Step %1 of %1: the demo is complete.").arg(steps));
  scheduleFit();
}

Qt::Orientation LessonsPage::textOrientation() const {
  // The splitter's orientation is the direction its panes are laid along.
  return m_content->orientation() == Qt::Horizontal ? Qt::Horizontal : Qt::Vertical;
}

void LessonsPage::applyLayout(bool force) {
  const bool presenter = Theme::instance().presenter();
  const bool landscape = width() >= kLandscape * height();
  const auto orientation = presenter && landscape ? Qt::Horizontal : Qt::Vertical;
  if (!force && presenter == m_presenterLayout && orientation == m_content->orientation()) return;
  const bool slidesChanged = presenter != m_presenterLayout;
  m_presenterLayout = presenter;
  m_list->setVisible(!presenter);
  m_slideInfo->setVisible(presenter);
  m_content->setOrientation(orientation);
  // Beside the text the run area is narrow: results above the figure.
  m_outputs->setOrientation(orientation == Qt::Horizontal ? Qt::Vertical : Qt::Horizontal);
  const int along = orientation == Qt::Horizontal ? std::max(1, width()) : std::max(1, height());
  if (orientation == Qt::Horizontal) {
    m_content->setSizes({along * kTextShare / 100, along - along * kTextShare / 100});
    m_outputs->setSizes({height() * 26 / 100, height() * 74 / 100});
  } else {
    m_content->setSizes({along * 40 / 100, along * 60 / 100});
    m_outputs->setSizes({width() * 40 / 100, width() * 60 / 100});
  }
  if (slidesChanged) {
    m_slide = 0;
    showText();
  }
  scheduleFit();
}

void LessonsPage::scheduleFit() {
  if (m_fitPending) return;
  m_fitPending = true;
  // After the layout has given the text its final size.
  QTimer::singleShot(0, this, [this] {
    m_fitPending = false;
    fitText();
    fitResults();
  });
}

void LessonsPage::fitText() {
  const auto& theme = Theme::instance();
  if (!m_presenterLayout) {
    m_text->setFont(theme.uiFont(1.25)); // lesson text one step larger than the UI
    m_text->setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    return;
  }
  // The type is sized for the text's standard share of a landscape page (42 %);
  // a slide that fits in a narrower column at that size gives the rest to the
  // figure. Worked out from the page width, not the current split, so the
  // split it sets does not change the next answer.
  const bool beside = m_content->orientation() == Qt::Horizontal;
  const int along = std::max(1, m_content->width());
  // What the column takes beside the text's own width: its margins and the
  // text's frame, never the scroll bar (a slide that fits shows none). With
  // the scroll bar counted whenever it showed, the next answer differed and
  // the column swung between two widths at every resize.
  const int overhead = m_content->sizes().value(0) - m_text->width() + 2 * m_text->frameWidth();
  const int standard = (beside ? along * kTextShare / 100 : m_content->width()) - overhead;
  const int height = m_text->viewport()->height();
  std::unique_ptr<QTextDocument> probe(m_text->document()->clone());
  const auto fits = [&](const QFont& font, int width) {
    probe->setDefaultFont(font);
    probe->setTextWidth(width);
    return probe->size().height() <= height;
  };
  QFont chosen = theme.uiFont(kSlideFontFactors[std::size(kSlideFontFactors) - 1]);
  bool fitted = false;
  for (double factor : kSlideFontFactors)
    if (const QFont font = theme.uiFont(factor); fits(font, standard)) {
      chosen = font;
      fitted = true;
      break;
    }
  // A slide that fits has no scroll bar. Left as needed, a bar shown for the
  // previous, larger type narrowed the text, which then overflowed at the
  // smaller size too, and the bar stayed.
  m_text->setVerticalScrollBarPolicy(fitted ? Qt::ScrollBarAlwaysOff : Qt::ScrollBarAsNeeded);
  if (m_text->font() != chosen) m_text->setFont(chosen);
  if (!beside || m_content->sizes().size() != 2) return;
  int share = kTextShare;
  for (int narrower = kNarrowestTextShare; narrower < kTextShare; narrower += 2)
    if (fits(chosen, along * narrower / 100 - overhead)) {
      share = narrower;
      break;
    }
  const QList<int> sizes{along * share / 100, along - along * share / 100};
  if (std::abs(m_content->sizes()[0] - sizes[0]) > 2) m_content->setSizes(sizes);
  // The slide line drops its last parts ("Page Down: next", then the lesson
  // count) before it is elided.
  const QString separator = QStringLiteral("   ·   ");
  QStringList parts = m_slideText.split(separator);
  while (parts.size() > 2 && m_slideInfo->fontMetrics().horizontalAdvance(parts.join(separator)) > sizes[0] - 8)
    parts.removeLast();
  const QString info = m_slideInfo->fontMetrics().elidedText(parts.join(separator), Qt::ElideRight, sizes[0] - 8);
  if (m_slideInfo->text() != info) m_slideInfo->setText(info);
}

void LessonsPage::fitResults() {
  const auto& theme = Theme::instance();
  const QStringList lines = m_results->toPlainText().split(QLatin1Char('\n'));
  const QSize room = m_results->viewport()->size();
  QFont chosen = theme.monospaceFont(1.0);
  if (m_presenterLayout) {
    chosen = theme.monospaceFont(kResultFontFactors[std::size(kResultFontFactors) - 1]);
    for (double factor : kResultFontFactors) {
      const QFont font = theme.monospaceFont(factor);
      const QFontMetricsF metrics(font);
      // Monospace: a line wraps every `perLine` characters.
      const double perLine =
          std::max(1.0, std::floor((room.width() - 8) / metrics.horizontalAdvance(QLatin1Char('0'))));
      double rows = 0;
      for (const auto& line : lines) rows += std::max(1.0, std::ceil(static_cast<double>(line.size()) / perLine));
      if (rows * metrics.lineSpacing() + 8 <= room.height()) {
        chosen = font;
        break;
      }
    }
  }
  if (m_results->font() != chosen) m_results->setFont(chosen);
}

bool LessonsPage::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::KeyPress || event->type() == QEvent::ShortcutOverride) {
    auto* key = static_cast<QKeyEvent*>(event);
    if (key->key() == Qt::Key_PageUp || key->key() == Qt::Key_PageDown) {
      if (event->type() == QEvent::KeyPress) advance(key->key() == Qt::Key_PageDown ? 1 : -1);
      event->accept();
      return true;
    }
  }
  if (event->type() == QEvent::Resize && (watched == m_text->viewport() || watched == m_results->viewport()))
    scheduleFit();
  return QWidget::eventFilter(watched, event);
}

void LessonsPage::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_PageUp || event->key() == Qt::Key_PageDown) {
    advance(event->key() == Qt::Key_PageDown ? 1 : -1);
    return;
  }
  QWidget::keyPressEvent(event);
}

void LessonsPage::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  applyLayout(false);
}

void LessonsPage::applyTheme() {
  const auto& theme = Theme::instance();
  m_list->setFont(theme.uiFont(1.1, true));
  m_slideInfo->setFont(theme.uiFont(0.8));
  if (m_list->count() > 0)
    m_list->setMinimumWidth(m_list->sizeHintForColumn(0) + 2 * m_list->frameWidth() + 12);
  applyLayout(true);
  fitText();
  fitResults();
}

} // namespace mantissa::ui
