// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/panels/scaling_view.h"

#include "ui/charts/scaling_chart.h"

#include <mantissa/io/atomic_file.h>
#include <mantissa/io/json_text.h>
#include <mantissa/io/regular_file.h>

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace mantissa::ui {

namespace {
constexpr std::uintmax_t kMaxResultBytes = std::uintmax_t{16} << 20;

QString mib(std::int64_t bytes) { return QString::number(double(bytes) / 1048576.0, 'f', 0); }

// A scaling result file, read and checked as all outside JSON is.
bench::GptScaling readScaling(const QString& path) {
  return bench::gptScalingFromJson(io::parseJsonText(
      io::readRegularFile(QFile::encodeName(path).toStdString(), kMaxResultBytes, "scaling result")));
}
} // namespace

ScalingView::ScalingView(QWidget* parent) : QWidget(parent) {
  m_open = new QPushButton(tr("Open Scaling Result…"));
  m_open->setToolTip(tr("A GPT scaling result: the JSON file the scaling benchmark writes"));
  m_status = new QLabel(tr("No scaling result yet: open the JSON file the GPT scaling benchmark "
                           "writes (step time, MFU and memory from shakespeare-char to nanoGPT's "
                           "full model, beside PyTorch)."));
  m_status->setWordWrap(true);
  m_status->setObjectName(QStringLiteral("scalingStatus"));
  m_chart = new ScalingChart;
  m_table = new QTableWidget(0, 9);
  m_table->setObjectName(QStringLiteral("scalingTable"));
  m_table->setHorizontalHeaderLabels({tr("model"), tr("params"), tr("GFLOP/step"), tr("step ms"),
                                      tr("MFU step"), tr("MFU products"), tr("RSS MiB"),
                                      tr("PyTorch ms"), tr("PyTorch RSS MiB")});
  m_table->verticalHeader()->hide();
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setStretchLastSection(true);
  auto* top = new QHBoxLayout;
  top->addWidget(m_open);
  top->addWidget(m_status, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(top);
  // The chart and the figures one at a time: side by side or stacked, on a
  // projector either would squeeze the chart's labels to nothing.
  auto* views = new QTabWidget;
  views->setTabPosition(QTabWidget::South);
  views->addTab(m_chart, tr("Chart"));
  views->addTab(m_table, tr("Figures"));
  layout->addWidget(views, 1);
  connect(m_open, &QPushButton::clicked, this, &ScalingView::openWithDialog);

  if (QFileInfo::exists(rememberedPath())) {
    try {
      showScaling(readScaling(rememberedPath()));
    } catch (const std::exception& e) {
      m_status->setText(tr("Ignoring the remembered scaling result in %1: %2")
                            .arg(rememberedPath(), QString::fromStdString(e.what())));
    }
  }
}

QString ScalingView::rememberedPath() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
         QStringLiteral("/speed/gpt_scaling.json");
}

QString ScalingView::open(const QString& path) {
  bench::GptScaling scaling;
  try {
    scaling = readScaling(path);
  } catch (const std::exception& e) {
    const QString message = tr("%1: %2").arg(QFileInfo(path).fileName(), QString::fromStdString(e.what()));
    m_status->setText(message);
    return message;
  }
  showScaling(scaling);
  const QString kept = rememberedPath();
  QDir().mkpath(QFileInfo(kept).absolutePath());
  try {
    io::writeFileAtomically(QFile::encodeName(kept).toStdString(),
                            bench::gptScalingToJson(scaling).dump(2) + "\n");
  } catch (const std::exception& e) {
    m_status->setText(m_status->text() + u' ' +
                      tr("(not remembered: %1)").arg(QString::fromStdString(e.what())));
  }
  emit resultOpened();
  return {};
}

void ScalingView::openWithDialog() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open Scaling Result"), QString(),
                                                    tr("Scaling results (*.json);;All files (*)"));
  if (!path.isEmpty())
    open(path);
}

void ScalingView::showScaling(const bench::GptScaling& s) {
  m_scaling = s;
  m_chart->setData(s);
  QString threads;
  if (s.threadsScaling.size() >= 2) {
    QStringList parts;
    for (const bench::ThreadsStep& t : s.threadsScaling)
      parts << tr("%1 thread(s) %2 ms").arg(t.threads).arg(t.stepMs, 0, 'f', 1);
    threads = tr("; smallest model: %1, speed-up %2×")
                  .arg(parts.join(QStringLiteral(", ")))
                  .arg(s.threadsScaling.front().stepMs / s.threadsScaling.back().stepMs, 0, 'f', 2);
  }
  m_status->setText(tr("%1 · %2 · %3 thread(s) · peak %4 GFLOP/s (%5)%6")
                        .arg(QString::fromStdString(s.cpuModel), QString::fromStdString(s.recipe))
                        .arg(s.threads)
                        .arg(s.peakGflops, 0, 'f', 0)
                        .arg(QString::fromStdString(s.peakSource), threads));
  m_table->setRowCount(int(s.rows.size()));
  for (int i = 0; i < int(s.rows.size()); ++i) {
    const bench::GptScalingRow& r = s.rows[std::size_t(i)];
    const QStringList cells{
        QString::fromStdString(r.size.label()),
        tr("%1 M").arg(double(r.params) / 1e6, 0, 'f', 2),
        QString::number(r.flopsPerStep / 1e9, 'f', 1),
        QString::number(r.stepMs, 'f', 1),
        tr("%1 %").arg(100 * s.mfu(r.stepGflops()), 0, 'f', 0),
        tr("%1 %").arg(100 * s.mfu(r.matmulGflops()), 0, 'f', 0),
        mib(r.peakRssBytes),
        r.torch ? QString::number(r.torch->stepMs, 'f', 1) : QString::fromStdString(r.torchError),
        r.torch ? mib(r.torch->peakRssBytes) : QString()};
    for (int c = 0; c < cells.size(); ++c)
      m_table->setItem(i, c, new QTableWidgetItem(cells[c]));
  }
}

} // namespace mantissa::ui
