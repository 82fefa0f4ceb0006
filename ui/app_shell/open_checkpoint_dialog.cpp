// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/app_shell/open_checkpoint_dialog.h"

#include "ui/app_shell/palette.h"

#include <mantissa/model/model_registry.h>

#include <QButtonGroup>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>

namespace mantissa::ui {

OpenCheckpointDialog::OpenCheckpointDialog(const QString& path, const train::CheckpointInfo& info,
                                           QWidget* parent)
    : QDialog(parent), m_step(info.step) {
  setWindowTitle(tr("Open Checkpoint"));
  const train::RunConfig& config = info.config;
  const bool gpt = model::readsTokens(config.model);

  auto* facts = new QFormLayout;
  auto* file = new QLabel(QFileInfo(path).fileName());
  file->setToolTip(path);
  facts->addRow(tr("File:"), file);
  facts->addRow(tr("Model:"), new QLabel(QString::fromStdString(config.model)));
  facts->addRow(tr("Recipe:"), new QLabel(QString::fromStdString(
                                   config.policy.empty() ? config.recipe : config.policy)));
  facts->addRow(tr("Data:"), new QLabel(QString::fromStdString(config.data)));
  const QString stopped =
      config.steps > 0 ? tr("%1 of %2").arg(info.step).arg(config.steps) : QString::number(info.step);
  facts->addRow(tr("Saved at step:"), new QLabel(stopped));

  m_resume = new QRadioButton(tr("&Resume training on the Train page, to step"));
  m_total = new QSpinBox;
  // A spin box holds an int: totals beyond it are the CLI's (--steps).
  const int saved = int(std::min<std::int64_t>(info.step, INT_MAX - 1));
  m_total->setRange(1, INT_MAX);
  m_total->setValue(config.steps > info.step && config.steps <= INT_MAX ? int(config.steps)
                                                                        : std::max(saved * 2, saved + 1));
  m_total->setToolTip(tr("The run's total number of steps, as in the first run: it continues from "
                         "step %1 up to this one").arg(info.step));
  auto* resumeRow = new QHBoxLayout;
  resumeRow->addWidget(m_resume);
  resumeRow->addWidget(m_total);
  resumeRow->addStretch(1);
  m_sample = new QRadioButton(tr("&Generate text from it in the Generate dock"));
  auto* group = new QButtonGroup(this);
  group->addButton(m_resume);
  group->addButton(m_sample);

  auto* note = new QLabel;
  note->setWordWrap(true);
  QStringList notes;
  if (!info.resumable) {
    m_resume->setEnabled(false);
    m_total->setEnabled(false);
    notes << tr("It holds weights only (no optimizer or data state): it cannot resume a run.");
  }
  if (!gpt) {
    m_sample->setEnabled(false);
    notes << tr("Only a GPT generates text.");
  }
  note->setText(notes.join(u' '));
  note->setVisible(!notes.isEmpty());

  m_problem = new QLabel;
  m_problem->setWordWrap(true);
  m_problem->setStyleSheet(QStringLiteral("color: %1").arg(palette::kWarning.name()));

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel);
  m_open = buttons->button(QDialogButtonBox::Open);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(facts);
  layout->addSpacing(8);
  layout->addLayout(resumeRow);
  layout->addWidget(m_sample);
  layout->addWidget(note);
  layout->addWidget(m_problem);
  layout->addStretch(1);
  layout->addWidget(buttons);

  (info.resumable ? m_resume : m_sample)->setChecked(true);
  connect(m_resume, &QRadioButton::toggled, this, &OpenCheckpointDialog::check);
  connect(m_total, &QSpinBox::valueChanged, this, &OpenCheckpointDialog::check);
  check();
}

RunController::CheckpointUse OpenCheckpointDialog::use() const {
  return m_sample->isChecked() ? RunController::CheckpointUse::Sample
                               : RunController::CheckpointUse::Resume;
}

std::int64_t OpenCheckpointDialog::totalSteps() const {
  return m_total->value();
}

void OpenCheckpointDialog::check() {
  const bool resume = m_resume->isChecked();
  m_total->setEnabled(resume && m_resume->isEnabled());
  QString problem;
  if (!m_resume->isEnabled() && !m_sample->isEnabled())
    problem = tr("This checkpoint can neither resume (weights only) nor generate text (not a GPT).");
  else if (resume && totalSteps() <= m_step)
    problem = tr("The run stopped at step %1: give a total above %1 to train on.").arg(m_step);
  m_problem->setText(problem);
  m_problem->setVisible(!problem.isEmpty());
  m_open->setEnabled(problem.isEmpty());
}

} // namespace mantissa::ui
