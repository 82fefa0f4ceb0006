// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/app_shell/compare_runs_dialog.h"

#include <mantissa/io/atomic_file.h>
#include <mantissa/train/run_log.h>

#include <QCoreApplication>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>
#include <thread>

namespace mantissa::ui {

namespace {

QString number(double v) {
  if (std::isnan(v))
    return QStringLiteral("–");
  return QString::number(v, 'g', 6);
}

} // namespace

CompareRunsDialog::CompareRunsDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Compare Runs"));
  m_pathA = new QLineEdit(this);
  m_pathB = new QLineEdit(this);
  m_tolerance = new QSpinBox(this);
  m_tolerance->setRange(0, 1000000000);
  m_tolerance->setSuffix(tr(" ULPs"));
  m_tolerance->setToolTip(tr("Losses and fractions within this many ULPs of double count as equal"));
  const auto browse = [this](QLineEdit* field) {
    auto* b = new QPushButton(tr("Browse…"), this);
    connect(b, &QPushButton::clicked, this, [this, field] {
      const QString path = QFileDialog::getOpenFileName(this, tr("Run log"), field->text(),
                                                        tr("Run logs (*.jsonl);;All files (*)"));
      if (!path.isEmpty())
        field->setText(path);
    });
    auto* row = new QHBoxLayout;
    row->addWidget(field, 1);
    row->addWidget(b);
    return row;
  };
  auto* form = new QFormLayout;
  form->addRow(tr("Run A:"), browse(m_pathA));
  form->addRow(tr("Run B:"), browse(m_pathB));
  form->addRow(tr("Tolerance:"), m_tolerance);
  m_compare = new QPushButton(tr("Compare"), this);
  m_cancel = new QPushButton(tr("Cancel"), this);
  m_cancel->setEnabled(false);
  m_export = new QPushButton(tr("Export CSV…"), this);
  m_export->setEnabled(false);
  m_busy = new QProgressBar(this);
  m_busy->setRange(0, 0);
  m_busy->setVisible(false);
  m_first = new QLabel(tr("Choose two run logs."), this);
  m_first->setWordWrap(true);
  m_first->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_notes = new QLabel(this);
  m_notes->setWordWrap(true);
  m_table = new QTableWidget(0, 8, this);
  m_table->setHorizontalHeaderLabels(
      {tr("Step"), tr("Pass"), tr("Tensor"), tr("Measure"), tr("A"), tr("B"), tr("EMD"), tr("Detail")});
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->verticalHeader()->setVisible(false);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_compare);
  buttons->addWidget(m_cancel);
  buttons->addWidget(m_busy, 1);
  buttons->addWidget(m_export);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addLayout(buttons);
  layout->addWidget(m_first);
  layout->addWidget(m_notes);
  layout->addWidget(m_table, 1);
  connect(m_compare, &QPushButton::clicked, this, &CompareRunsDialog::start);
  connect(m_cancel, &QPushButton::clicked, this, &CompareRunsDialog::cancel);
  connect(m_export, &QPushButton::clicked, this, &CompareRunsDialog::exportWithDialog);
  resize(900, 520);
}

CompareRunsDialog::~CompareRunsDialog() { cancel(); }

void CompareRunsDialog::start() {
  compare(m_pathA->text(), m_pathB->text(), m_tolerance->value());
}

void CompareRunsDialog::compare(const QString& pathA, const QString& pathB, int toleranceUlps) {
  cancel();
  m_pathA->setText(pathA);
  m_pathB->setText(pathB);
  m_tolerance->setValue(toleranceUlps);
  auto dropped = std::make_shared<std::atomic<bool>>(false);
  m_dropped = dropped;
  m_busy->setVisible(true);
  m_cancel->setEnabled(true);
  m_first->setText(tr("Reading and comparing the two logs…"));
  QPointer<CompareRunsDialog> self(this);
  const std::string a = pathA.toStdString(), b = pathB.toStdString();
  train::RunDiffOptions options;
  options.toleranceUlps = static_cast<std::uint64_t>(std::max(0, toleranceUlps));
  std::thread([self, dropped, a, b, options] {
    std::shared_ptr<train::RunDiff> diff;
    QString error;
    try {
      const train::RunLog la = train::loadRunLog(a);
      if (dropped->load())
        return;
      const train::RunLog lb = train::loadRunLog(b);
      if (dropped->load())
        return;
      diff = std::make_shared<train::RunDiff>(train::diffRuns(la, lb, options));
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
    if (dropped->load())
      return;
    QMetaObject::invokeMethod(
        QCoreApplication::instance(),
        [self, dropped, diff, error] {
          if (self && !dropped->load())
            self->showResult(diff, error);
        },
        Qt::QueuedConnection);
  }).detach();
}

void CompareRunsDialog::cancel() {
  if (m_dropped)
    m_dropped->store(true);
  m_dropped.reset();
  m_busy->setVisible(false);
  m_cancel->setEnabled(false);
}

void CompareRunsDialog::showResult(std::shared_ptr<train::RunDiff> diff, QString error) {
  m_dropped.reset();
  m_busy->setVisible(false);
  m_cancel->setEnabled(false);
  m_result = std::move(diff);
  m_table->setRowCount(0);
  m_export->setEnabled(m_result && m_result->differ());
  if (!m_result) {
    m_first->setText(error);
    m_notes->clear();
    emit failed(error);
    emit compared();
    return;
  }
  m_first->setText(firstDivergenceText());
  QStringList notes;
  for (const auto& n : m_result->notes)
    notes << QString::fromStdString(n);
  m_notes->setText(notes.join(QStringLiteral("\n")));
  m_table->setRowCount(static_cast<int>(m_result->rows.size()));
  int row = 0;
  for (const auto& r : m_result->rows) {
    const QStringList cells = {QString::number(r.step),
                               QString::fromLatin1(train::diffPassName(r.pass)),
                               QString::fromStdString(r.tensor),
                               QString::fromStdString(r.measure),
                               number(r.a),
                               number(r.b),
                               r.emd > 0 ? number(r.emd) : QStringLiteral("–"),
                               QString::fromStdString(r.detail)};
    for (int c = 0; c < cells.size(); ++c)
      m_table->setItem(row, c, new QTableWidgetItem(cells[c]));
    ++row;
  }
  m_table->resizeColumnsToContents();
  emit compared();
}

QString CompareRunsDialog::firstDivergenceText() const {
  if (!m_result)
    return {};
  if (!m_result->differ())
    return tr("The runs differ nowhere (%1 steps, %2 telemetry frames compared).")
        .arg(m_result->stepsCompared)
        .arg(m_result->framesCompared);
  const auto& r = m_result->rows.front();
  return tr("First divergence: step %1, %2, %3 (%4)")
      .arg(r.step)
      .arg(QString::fromStdString(r.tensor), QString::fromLatin1(train::diffPassName(r.pass)),
           QString::fromStdString(r.detail));
}

QString CompareRunsDialog::exportCsv(const QString& path) const {
  if (!m_result)
    return tr("Nothing compared yet");
  try {
    io::writeFileAtomically(path.toStdString(), train::runDiffCsv(*m_result));
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

void CompareRunsDialog::exportWithDialog() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export Comparison"),
                                                    QStringLiteral("run-diff.csv"),
                                                    tr("CSV (*.csv)"));
  if (path.isEmpty())
    return;
  if (const QString error = exportCsv(path); !error.isEmpty())
    QMessageBox::warning(this, tr("Export Comparison"), error);
}

} // namespace mantissa::ui
