// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/panels/sweep_panel.h"

#include "ui/charts/chart_export.h"
#include "ui/charts/sweep_pareto_chart.h"

#include <mantissa/train/presets.h>

#include <QCheckBox>
#include <QCoreApplication>
#include <QDir>
#include <QDoubleSpinBox>
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
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>
#include <thread>

namespace mantissa::ui {
namespace {

std::vector<std::string> listOf(const QString& text) {
  std::vector<std::string> out;
  for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
    out.push_back(part.trimmed().toStdString());
  return out;
}

QString shown(double v, int digits = 4) {
  if (std::isnan(v))
    return QStringLiteral("–");
  if (std::isinf(v))
    return v > 0 ? QStringLiteral("diverged") : QStringLiteral("-inf");
  return QString::number(v, 'g', digits);
}

} // namespace

SweepPanel::SweepPanel(QWidget* parent) : QWidget(parent) {
  const train::RunConfig preset = train::findPreset("shakespeare-char")->runs.front();
  m_model = new QLineEdit(QString::fromStdString(preset.model));
  m_steps = new QSpinBox;
  m_steps->setRange(1, 1000000);
  m_steps->setValue(300);
  m_formats = new QLineEdit(QStringLiteral("bf16,fp16,fp8-e4m3,mxfp4"));
  m_ops = new QLineEdit;
  m_ops->setPlaceholderText(tr("every class a GPT has"));
  m_seeds = new QSpinBox;
  m_seeds->setRange(1, 64);
  m_seeds->setValue(1);
  m_budget = new QDoubleSpinBox;
  m_budget->setRange(0.0, 10.0);
  m_budget->setDecimals(3);
  m_budget->setSingleStep(0.005);
  m_budget->setValue(0.02);
  m_base = new QLineEdit(QStringLiteral("fp32"));
  m_folder = new QLineEdit(QDir::home().filePath(QStringLiteral("mantissa-sweep")));
  auto* browse = new QPushButton(tr("Browse…"));
  m_resume = new QCheckBox(tr("Resume the runs saved in the folder"));

  auto* form = new QFormLayout;
  form->setRowWrapPolicy(QFormLayout::WrapLongRows);
  m_model->setToolTip(tr("The GPT of the shakespeare-char preset's run, as gpt:layers=L,heads=H,embd=C,ctx=T"));
  form->addRow(tr("Model:"), m_model);
  form->addRow(tr("Steps per run:"), m_steps);
  form->addRow(tr("Formats:"), m_formats);
  form->addRow(tr("Op classes:"), m_ops);
  form->addRow(tr("Seeds:"), m_seeds);
  form->addRow(tr("Budget (Δ val_loss):"), m_budget);
  form->addRow(tr("Base policy:"), m_base);
  auto* folderRow = new QHBoxLayout;
  folderRow->addWidget(m_folder, 1);
  folderRow->addWidget(browse);
  form->addRow(tr("Folder:"), folderRow);
  form->addRow(QString(), m_resume);

  m_start = new QPushButton(tr("Start"));
  m_cancelButton = new QPushButton(tr("Cancel"));
  m_cancelButton->setEnabled(false);
  m_export = new QPushButton(tr("Export…"));
  m_export->setToolTip(tr("Export the table as CSV"));
  m_export->setEnabled(false);
  m_progress = new QProgressBar;
  m_progress->setRange(0, 1);
  m_progress->setValue(0);
  // One row: the buttons around the progress bar (the dock shares its height
  // with other views; the chart gets what the controls leave).
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_start);
  buttons->addWidget(m_cancelButton);
  buttons->addWidget(m_progress, 1);
  buttons->addWidget(m_export);
  m_status = new QLabel(tr("Lowers one op class (of one layer) at a time and ranks the change "
                           "in validation loss."));
  m_status->setWordWrap(false);
  m_status->setMinimumWidth(1); // a long line is cut, not widening the dock
  m_chosen = new QLabel;
  m_chosen->setWordWrap(true);
  m_chosenSpec = new QLineEdit;
  m_chosenSpec->setReadOnly(true);
  m_chosenSpec->setPlaceholderText(tr("the chosen policy, once a sweep is done"));

  m_table = new QTableWidget(0, 6);
  m_table->setHorizontalHeaderLabels({tr("rank"), tr("probe"), tr("|Δ val_loss|"), tr("bytes saved"),
                                      tr("matmul time saved"), tr("bits/param")});
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
  m_table->verticalHeader()->setVisible(false);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_chart = new SweepParetoChart;
  m_chart->setMinimumHeight(200);
  auto* setupPage = new QWidget;
  auto* setupLayout = new QVBoxLayout(setupPage);
  setupLayout->addLayout(form);
  setupLayout->addStretch(1);
  auto* tablePage = new QWidget;
  auto* tableLayout = new QVBoxLayout(tablePage);
  tableLayout->setContentsMargins(0, 0, 0, 0);
  tableLayout->addWidget(m_table, 1);
  tableLayout->addWidget(m_chosen);
  tableLayout->addWidget(m_chosenSpec);
  m_tabs = new QTabWidget;
  m_tabs->addTab(setupPage, tr("Setup"));
  m_tabs->addTab(tablePage, tr("Table"));
  m_tabs->addTab(m_chart, tr("Pareto"));

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(buttons);
  layout->addWidget(m_status);
  layout->addWidget(m_tabs, 1);

  connect(m_start, &QPushButton::clicked, this, &SweepPanel::start);
  connect(m_cancelButton, &QPushButton::clicked, this, &SweepPanel::cancel);
  connect(m_export, &QPushButton::clicked, this, &SweepPanel::exportWithDialog);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Sweep folder"), m_folder->text());
    if (!dir.isEmpty())
      m_folder->setText(dir);
  });
}

SweepPanel::~SweepPanel() {
  if (m_cancel)
    m_cancel->store(true);
}

void SweepPanel::setModel(const QString& spec) { m_model->setText(spec); }
void SweepPanel::setSteps(int steps) { m_steps->setValue(steps); }
void SweepPanel::setFormats(const QString& list) { m_formats->setText(list); }
void SweepPanel::setOps(const QString& list) { m_ops->setText(list); }
void SweepPanel::setSeeds(int seeds) { m_seeds->setValue(seeds); }
void SweepPanel::setBudget(double budget) { m_budget->setValue(budget); }
void SweepPanel::setOutputFolder(const QString& dir) { m_folder->setText(dir); }
void SweepPanel::setResume(bool resume) { m_resume->setChecked(resume); }

QSize SweepPanel::sizeHint() const {
  return {240, QWidget::sizeHint().height()};
}

QSize SweepPanel::minimumSizeHint() const {
  return {200, QWidget::minimumSizeHint().height()};
}

QString SweepPanel::statusText() const {
  return m_status->text();
}

void SweepPanel::setRunning(bool running) {
  m_start->setEnabled(!running);
  m_cancelButton->setEnabled(running);
}

train::SweepOptions SweepPanel::formOptions() const {
  train::SweepOptions o;
  o.config = train::findPreset("shakespeare-char")->runs.front();
  o.config.model = m_model->text().trimmed().toStdString();
  o.config = train::sweepRun(o.config, m_steps->value());
  o.formats = listOf(m_formats->text());
  o.ops = listOf(m_ops->text());
  o.seeds = m_seeds->value();
  o.budget = m_budget->value();
  o.base = m_base->text().trimmed().toStdString();
  o.resume = m_resume->isChecked();
  return o;
}

QString SweepPanel::outputFolder() const { return m_folder->text(); }
bool SweepPanel::resume() const { return m_resume->isChecked(); }

void SweepPanel::start() {
  if (running())
    return;
  const train::SweepOptions o = formOptions();
  try {
    const auto probes = train::sweepProbes(o);
    m_progress->setRange(0, int(probes.size() + 1) * o.seeds);
  } catch (const std::exception& e) {
    const QString why = QString::fromStdString(e.what());
    m_status->setText(why);
    emit failed(why);
    return;
  }
  m_options = o;
  m_progress->setValue(0);
  m_status->setText(tr("Training the base and the probes…"));
  auto cancelFlag = std::make_shared<std::atomic<bool>>(false);
  m_cancel = cancelFlag;
  setRunning(true);
  QPointer<SweepPanel> self(this);
  const std::string dir = m_folder->text().toStdString();
  std::thread([self, cancelFlag, o, dir] {
    auto result = std::make_shared<train::SweepResult>();
    QString error;
    try {
      *result = train::runSweep(
          o, dir,
          [self, cancelFlag](const train::SweepProgress& p) {
            const QString what = QString::fromStdString(p.what);
            QMetaObject::invokeMethod(
                QCoreApplication::instance(),
                [self, flag = cancelFlag.get(), p, what] {
                  SweepPanel* panel = self.data();
                  if (panel != nullptr && panel->m_cancel.get() == flag)
                    panel->showProgress(p.done, p.total, what);
                },
                Qt::QueuedConnection);
          },
          cancelFlag.get());
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
    QMetaObject::invokeMethod(
        QCoreApplication::instance(),
        [self, flag = cancelFlag.get(), result, error] {
          SweepPanel* panel = self.data();
          if (panel != nullptr && panel->m_cancel.get() == flag)
            panel->showResult(result, error);
        },
        Qt::QueuedConnection);
  }).detach();
}

void SweepPanel::cancel() {
  if (!m_cancel)
    return;
  m_cancel->store(true);
  m_status->setText(tr("Stopping: the runs in flight end at their next step…"));
  m_cancelButton->setEnabled(false);
}

void SweepPanel::showProgress(int done, int total, const QString& what) {
  m_progress->setRange(0, std::max(1, total));
  m_progress->setValue(done);
  m_status->setText(tr("%1 of %2 runs: %3").arg(done).arg(total).arg(what));
  m_status->setToolTip(m_status->text());
  emit progressed(done, total);
}

void SweepPanel::showResult(std::shared_ptr<train::SweepResult> result, QString error) {
  m_cancel.reset();
  setRunning(false);
  if (!error.isEmpty()) {
    m_status->setText(error);
    emit failed(error);
    return;
  }
  if (!result->complete) {
    m_status->setText(tr("Cancelled: the finished runs are saved in %1; tick Resume and start "
                         "again to continue.")
                          .arg(m_folder->text()));
    m_resume->setChecked(true);
    emit stopped();
    return;
  }
  m_result = std::move(result);
  m_progress->setValue(m_progress->maximum());
  m_table->setRowCount(int(m_result->rows.size()));
  std::vector<SweepPoint> points;
  for (int i = 0; i < int(m_result->rows.size()); ++i) {
    const train::SweepRow& row = m_result->rows[std::size_t(i)];
    const QString name = QString::fromStdString(row.probe.name());
    const QString delta = row.divergedAt >= 0 ? tr("diverged at step %1").arg(row.divergedAt)
                                              : shown(row.meanAbsDelta);
    const QStringList cells{QString::number(row.rank), name, delta,
                            QString::number(row.probe.bytesSaved, 'f', 0),
                            QString::number(100.0 * row.probe.matmulTimeSaved, 'f', 2) +
                                QStringLiteral(" %"),
                            QString::number(row.probe.bitsPerParameter, 'f', 2)};
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c != 1)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (c == 1)
        item->setToolTip(QString::fromStdString(row.probe.policy));
      m_table->setItem(i, c, item);
    }
    points.push_back({name, row.probe.bitsPerParameter, row.probe.matmulTimeSaved, row.meanAbsDelta,
                      row.paretoBits, row.paretoTime});
  }
  m_chart->setPoints(std::move(points));
  m_tabs->setCurrentWidget(m_chart);
  m_export->setEnabled(true);
  m_status->setText(tr("Done: %1 probes ranked; %2 runs trained now, the rest read back.")
                        .arg(m_result->rows.size())
                        .arg(m_result->runsTrained));
  m_chosen->setText(tr("Chosen policy: %1 ops lowered, Δ val_loss %2 (budget %3); in policy.txt")
                        .arg(m_result->chosenProbes.size())
                        .arg(shown(m_result->chosenDelta))
                        .arg(m_options.budget));
  m_chosenSpec->setText(QString::fromStdString(m_result->chosenPolicy));
  m_chosenSpec->setCursorPosition(0);
  emit finished();
}

QString SweepPanel::exportTableCsv(const QString& path) const {
  if (!m_result)
    return tr("No sweep to export yet.");
  return writeFileAtomically(path, QByteArray::fromStdString(train::sweepCsv(*m_result)));
}

void SweepPanel::exportWithDialog() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export sweep table"),
                                                    QDir(m_folder->text()).filePath(QStringLiteral("sweep-table.csv")),
                                                    tr("CSV (*.csv)"));
  if (path.isEmpty())
    return;
  if (const QString error = exportTableCsv(path); !error.isEmpty())
    QMessageBox::warning(this, tr("Export sweep table"), error);
}

} // namespace mantissa::ui
