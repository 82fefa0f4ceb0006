// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/panels/generate_panel.h"

#include "ui/bridge/run_controller.h"

#include <QDoubleSpinBox>
#include <QFontDatabase>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <cmath>

namespace mantissa::ui {

namespace {

// A run's name as rich text that breaks only after a comma: a policy run's
// spec ("autocast-cpu-bf16,softmax=fp16") wraps between its items, never
// inside "norm-stats" at the hyphen.
QString wrappable(const QString& name) {
  return name.toHtmlEscaped()
      .replace(u'-', QStringLiteral("&#8209;"))
      .replace(u',', QStringLiteral(",&#8203;"));
}

} // namespace

GeneratePanel::GeneratePanel(RunController* controller, QWidget* parent)
    : QWidget(parent), m_controller(controller) {
  auto* layout = new QVBoxLayout(this);
  // Controls in two short rows: the dock stays as narrow as its neighbours.
  auto* bar = new QGridLayout;
  bar->addWidget(new QLabel(tr("Characters")), 0, 0);
  m_characters = new QSpinBox;
  m_characters->setObjectName(QStringLiteral("generateCharacters"));
  m_characters->setRange(1, 5000);
  m_characters->setValue(200);
  bar->addWidget(m_characters, 0, 1);
  bar->addWidget(new QLabel(tr("Temperature")), 0, 2);
  m_temperature = new QDoubleSpinBox;
  m_temperature->setObjectName(QStringLiteral("generateTemperature"));
  m_temperature->setRange(0.05, 5.0);
  m_temperature->setSingleStep(0.1);
  m_temperature->setValue(0.8);
  bar->addWidget(m_temperature, 0, 3);
  bar->addWidget(new QLabel(tr("Seed")), 1, 0);
  m_seed = new QSpinBox;
  m_seed->setRange(0, 1 << 30);
  m_seed->setValue(1);
  bar->addWidget(m_seed, 1, 1);
  m_generate = new QPushButton(tr("Generate"));
  m_generate->setObjectName(QStringLiteral("generateButton"));
  m_generate->setToolTip(tr("Sample from every paused or finished GPT run, the same seed for each"));
  bar->addWidget(m_generate, 1, 2, 1, 2);
  bar->setColumnStretch(4, 1);
  layout->addLayout(bar);
  m_hint = new QLabel;
  m_hint->setWordWrap(true);
  layout->addWidget(m_hint);
  m_columns = new QGridLayout;
  layout->addLayout(m_columns, 1);
  connect(m_generate, &QPushButton::clicked, this, [this] { generate(); });
  connect(m_controller, &RunController::runsChanged, this, &GeneratePanel::rebuild);
  connect(m_controller, &RunController::stateChanged, this, &GeneratePanel::refreshTitles);
  rebuild();
}

void GeneratePanel::rebuild() {
  for (const Column& c : m_cols) {
    delete c.title;
    delete c.text;
  }
  m_cols.clear();
  ++m_generation;
  m_pending = 0;
  QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  mono.setPointSizeF(font().pointSizeF());
  int col = 0;
  for (int i = 0; i < m_controller->runCount(); ++i) {
    if (!m_controller->isGpt(i))
      continue;
    auto* title = new QLabel;
    title->setWordWrap(true);
    auto* text = new QPlainTextEdit;
    text->setObjectName(QStringLiteral("generated_%1").arg(i));
    text->setReadOnly(true);
    text->setFont(mono);
    text->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_columns->addWidget(title, 0, col);
    m_columns->addWidget(text, 1, col);
    m_columns->setColumnStretch(col, 1);
    m_cols.push_back({i, title, text});
    ++col;
  }
  refreshTitles();
}

void GeneratePanel::refreshTitles() {
  int ready = 0;
  for (const Column& c : m_cols) {
    const auto s = m_controller->trainerState(c.run);
    const auto& rec = m_controller->record(c.run);
    QString state;
    switch (s) {
    case train::TrainerState::Ready:
      state = tr("not started");
      break;
    case train::TrainerState::Running:
      state = tr("training: pause it to sample");
      break;
    case train::TrainerState::Paused:
      state = tr("paused");
      ++ready;
      break;
    case train::TrainerState::Finished:
      state = tr("finished");
      ++ready;
      break;
    }
    QString loss;
    if (!rec.testLoss().empty() && std::isfinite(rec.testLoss().back().y))
      loss = tr(" · val_loss %1").arg(rec.testLoss().back().y, 0, 'f', 3);
    c.title->setText(tr("<b><span style='color:%1'>■</span> %2</b><br>%3 · %4 steps%5")
                         .arg(m_controller->runColor(c.run).name(),
                              wrappable(m_controller->runName(c.run)), state)
                         .arg(rec.lastStep() + 1)
                         .arg(loss));
  }
  m_generate->setEnabled(ready > 0);
  m_hint->setText(m_cols.empty()
                      ? tr("Set up GPT runs (the shakespeare-char preset of the setup) to generate text from them.")
                      : ready == 0 ? tr("Pause the runs, or let them finish, to sample from them.")
                                   : QString());
  m_hint->setVisible(!m_hint->text().isEmpty());
}

int GeneratePanel::generate() {
  const int generation = ++m_generation;
  m_pending = 0;
  for (const Column& c : m_cols) {
    const auto s = m_controller->trainerState(c.run);
    if (s != train::TrainerState::Paused && s != train::TrainerState::Finished)
      continue;
    QPlainTextEdit* text = c.text;
    const int run = c.run;
    QPointer<GeneratePanel> self(this);
    if (!m_controller->sampleGpt(c.run, m_characters->value(), m_temperature->value(),
                                 std::uint64_t(m_seed->value()),
                                 [this, self, generation, text, run](const QString& t) {
                                   if (!self || generation != m_generation)
                                     return;
                                   text->setPlainText(
                                       t.isEmpty() ? tr("(no text: the run diverged)") : t);
                                   --m_pending;
                                   emit generated(run);
                                 }))
      continue;
    text->setPlainText(tr("generating…"));
    ++m_pending;
  }
  return m_pending;
}

QString GeneratePanel::text(int run) const {
  for (const Column& c : m_cols)
    if (c.run == run)
      return c.text->toPlainText();
  return {};
}

} // namespace mantissa::ui
