// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "run_browser.h"

#include "ui/charts/chart_widget.h"
#include "ui/report/run_charts.h"
#include "ui/report/run_report.h"

#pragma push_macro("slots")
#undef slots
#include <mantissa/io/atomic_file.h>
#pragma pop_macro("slots")

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QTabWidget>
#include <QVBoxLayout>

namespace mantissa::ui {

RunBrowser::RunBrowser(QMenu* fileMenu, QWidget* window) : QObject(window), m_window(window) {
  QAction* first = fileMenu->actions().isEmpty() ? nullptr : fileMenu->actions().front();
  auto* open = new QAction(tr("&Open Run…"), this);
  open->setShortcut(QKeySequence::Open);
  m_saveAction = new QAction(tr("&Save Run…"), this);
  m_saveAction->setShortcut(QKeySequence::Save);
  m_reportAction = new QAction(tr("Export &Report…"), this);
  m_saveAction->setEnabled(false);
  m_reportAction->setEnabled(false);
  fileMenu->insertActions(first, {open, m_saveAction, m_reportAction});
  fileMenu->insertSeparator(first);
  connect(open, &QAction::triggered, this, &RunBrowser::openWithDialog);
  connect(m_saveAction, &QAction::triggered, this, &RunBrowser::saveWithDialog);
  connect(m_reportAction, &QAction::triggered, this, &RunBrowser::reportWithDialog);
}

RunBrowser::~RunBrowser() {
  if (m_view)
    delete m_view;
}

QString RunBrowser::openRun(const QString& path) {
  try {
    m_log = std::make_unique<train::RunLog>(train::loadRunLog(path.toStdString()));
  } catch (const train::RunLogError& e) {
    return QString::fromStdString(e.what());
  }
  rebuildView();
  m_saveAction->setEnabled(true);
  m_reportAction->setEnabled(true);
  emit runOpened(path);
  return {};
}

QString RunBrowser::saveRun(const QString& path) const {
  if (!m_log)
    return tr("no run is open");
  try {
    train::saveRun(*m_log, path.toStdString());
  } catch (const io::AtomicFileError& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

QString RunBrowser::exportReport(const QString& path) const {
  if (!m_log)
    return tr("no run is open");
  return RunReport(*m_log).write(path);
}

ChartWidget* RunBrowser::chart(const QString& stem) const {
  if (!m_tabs)
    return nullptr;
  for (int i = 0; i < m_tabs->count(); ++i)
    if (m_tabs->widget(i)->objectName() == stem)
      return dynamic_cast<ChartWidget*>(m_tabs->widget(i));
  return nullptr;
}

void RunBrowser::rebuildView() {
  if (!m_view) {
    m_view = new QWidget(m_window, Qt::Window);
    m_view->setAttribute(Qt::WA_DeleteOnClose, false);
    auto* layout = new QVBoxLayout(m_view);
    m_tabs = new QTabWidget(m_view);
    layout->addWidget(m_tabs);
    m_view->resize(1000, 680);
  }
  while (m_tabs->count() > 0) {
    QWidget* old = m_tabs->widget(0);
    m_tabs->removeTab(0);
    delete old;
  }
  for (const RunChartSpec& spec : allRunCharts(*m_log)) {
    QString error;
    auto chart = makeRunChart(*m_log, spec, &error);
    if (!chart)
      continue;
    chart->setObjectName(runChartStem(spec));
    const QString label = spec.kind == RunChartKind::Histogram
                              ? tr("Layer %1, step %2").arg(spec.layer).arg(spec.step)
                              : chart->title();
    m_tabs->addTab(chart.release(), label);
  }
  const QString source = QFileInfo(QString::fromStdString(m_log->source)).fileName();
  m_view->setWindowTitle(tr("Run %1 (%2) — Mantissa")
                             .arg(source, QString::fromStdString(m_log->name())));
  m_view->show();
  m_view->raise();
}

void RunBrowser::openWithDialog() {
  const QString path = QFileDialog::getOpenFileName(
      m_window, tr("Open Run"), QString(), tr("Run logs (*.jsonl);;All files (*)"));
  if (path.isEmpty())
    return;
  if (const QString error = openRun(path); !error.isEmpty())
    QMessageBox::warning(m_window, tr("Open Run"), error);
}

void RunBrowser::saveWithDialog() {
  const QString path = QFileDialog::getSaveFileName(m_window, tr("Save Run"), QString(),
                                                    tr("Run logs (*.jsonl)"));
  if (path.isEmpty())
    return;
  if (const QString error = saveRun(path); !error.isEmpty())
    QMessageBox::warning(m_window, tr("Save Run"), error);
}

void RunBrowser::reportWithDialog() {
  const QString path = QFileDialog::getSaveFileName(m_window, tr("Export Report"), QString(),
                                                    tr("PDF (*.pdf);;HTML with SVG (*.html)"));
  if (path.isEmpty())
    return;
  if (const QString error = exportReport(path); !error.isEmpty())
    QMessageBox::warning(m_window, tr("Export Report"), error);
}

} // namespace mantissa::ui
