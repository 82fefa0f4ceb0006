// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/model/model_format_table.h"

#include "ui/app_shell/palette.h"
#include "ui/charts/export_menu.h"
#include "ui/model/text_table.h"
#include "ui/panels/whatif_table.h"

#include <QContextMenuEvent>
#include <QResizeEvent>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonObject>
#include <QLocale>
#include <QScrollBar>

#include <cmath>

namespace mantissa::ui {

namespace {

using inspect::Target;

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

QStringList headers() {
  return {QObject::tr("format"),    QObject::tr("overflow"), QObject::tr("lost to zero"),
          QObject::tr("subnormal"), QObject::tr("SQNR"),     QObject::tr("clipped"),
          QObject::tr("Inf/NaN")};
}

QStringList headerTips() {
  return {QString(),
          QObject::tr("Share of the finite values past the format's largest finite value; in a block "
                      "scheme, the elements saturated at the element format's largest value"),
          QObject::tr("Share of the finite values, not zero, that would be stored as zero"),
          QObject::tr("Share of the finite values stored as subnormals of the (element) format"),
          QObject::tr("Signal to quantization noise ratio; higher is better, exact when nothing changes"),
          QObject::tr("Blocks whose largest value was clipped by the block's power-of-two scale"),
          QObject::tr("Blocks holding Inf or NaN: in these schemes the whole block decodes as NaN")};
}

QString g17(double v) { return QString::number(v, 'g', 17); }

} // namespace

ModelFormatTable::ModelFormatTable(QWidget* parent) : QTableWidget(0, ColumnCount, parent) {
  setObjectName(QStringLiteral("modelFormats"));
  setHorizontalHeaderLabels(headers());
  for (int c = 0; c < ColumnCount; ++c)
    horizontalHeaderItem(c)->setToolTip(headerTips()[c]);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Maximum);
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  setSelectionMode(QAbstractItemView::NoSelection);
  verticalHeader()->setVisible(false);
  verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  horizontalHeader()->setStretchLastSection(true);
  setToolTip(tr("The selected tensor in every format, over its finite values. Overflow: past the largest "
                "finite value (block schemes: saturated at the element's largest); lost to zero: non-zero "
                "values stored as 0; SQNR: signal to quantization noise, higher is better. Right click to "
                "export."));
}

QStringList ModelFormatTable::cells(Target t) const {
  const inspect::TensorStats& s = *m_stats;
  const inspect::TargetStats& ts = s.at(t);
  const QLocale locale;
  const bool block = inspect::targetIsBlock(t);
  return {qs(inspect::targetDisplayName(t)),
          WhatIfTable::percent(s.fraction(ts.overflow)),
          WhatIfTable::percent(s.fraction(ts.lostToZero)),
          WhatIfTable::percent(s.fraction(ts.subnormal)),
          WhatIfTable::decibels(ts.sqnrDb()),
          block ? tr("%1 of %2").arg(locale.toString(qulonglong(ts.clippedBlocks)),
                                    locale.toString(qulonglong(ts.blocks)))
                : QStringLiteral("–"),
          block ? locale.toString(qulonglong(ts.poisonedBlocks)) : QStringLiteral("–")};
}

void ModelFormatTable::clearTensor() {
  m_stats.reset();
  m_name.clear();
  setRowCount(0);
}

void ModelFormatTable::setTensor(const inspect::TensorStats& stats, const QString& name) {
  m_stats = stats;
  m_name = name;
  if (!stats.scanned) {
    setRowCount(0);
    return;
  }
  setRowCount(inspect::kTargetCount);
  const QColor base = palette().color(QPalette::Base);
  for (int r = 0; r < inspect::kTargetCount; ++r) {
    const Target t = inspect::kTargets[std::size_t(r)];
    const QStringList text = cells(t);
    const inspect::TargetStats& ts = stats.at(t);
    for (int c = 0; c < ColumnCount; ++c) {
      auto* item = new QTableWidgetItem(text[c]);
      item->setTextAlignment(c == Format ? (Qt::AlignLeft | Qt::AlignVCenter) : (Qt::AlignRight | Qt::AlignVCenter));
      if ((c == Overflow && ts.overflow > 0) || (c == Clipped && ts.clippedBlocks > 0) ||
          (c == Poisoned && ts.poisonedBlocks > 0))
        item->setBackground(palette::blend(palette::kWarning, base, 0.7));
      else if (c == LostToZero && ts.lostToZero > 0)
        item->setBackground(palette::blend(palette::kSkyBlue, base, 0.7));
      setItem(r, c, item);
    }
  }
  resizeColumnsToContents();
  updateGeometry();
}

void ModelFormatTable::resizeEvent(QResizeEvent* event) {
  QTableWidget::resizeEvent(event);
  updateGeometry(); // a horizontal scroll bar comes or goes
}

QSize ModelFormatTable::sizeHint() const {
  // Every row whole, no more: the histogram above takes the rest.
  int h = horizontalHeader()->sizeHint().height() + 2 * frameWidth();
  // Before the first tensor: as tall as its rows will be.
  if (rowCount() == 0)
    h += inspect::kTargetCount * verticalHeader()->defaultSectionSize();
  for (int r = 0; r < rowCount(); ++r)
    h += rowHeight(r);
  if (horizontalHeader()->length() + 2 * frameWidth() > width())
    h += horizontalScrollBar()->sizeHint().height();
  return {QTableWidget::sizeHint().width(), h + 2};
}

int ModelFormatTable::wholeWidth() const {
  return horizontalHeader()->length() + 2 * frameWidth() + verticalScrollBar()->sizeHint().width() + 4;
}

QString ModelFormatTable::title() const {
  if (!m_stats)
    return tr("Every format");
  if (!m_stats->scanned)
    return tr("%1: not decoded").arg(m_name);
  return tr("%1 in every format (outlier ratio absmax / RMS %2)")
      .arg(m_name, QString::number(m_stats->outlierRatio(), 'g', 4));
}

void ModelFormatTable::render(QPainter& painter, const QRectF& target, const ExportStyle& style) const {
  std::vector<QStringList> rows;
  if (m_stats && m_stats->scanned)
    for (Target t : inspect::kTargets)
      rows.push_back(cells(t));
  renderTextTable(painter, target, style, title(), headers(), rows, 1);
}

QString ModelFormatTable::csv() const {
  QString out = QStringLiteral("tensor,format,finite,overflow,lost_to_zero,subnormal,sqnr_db,blocks,"
                               "clipped_blocks,poisoned_blocks,outlier_ratio\n");
  if (!m_stats || !m_stats->scanned)
    return out;
  for (Target t : inspect::kTargets) {
    const inspect::TargetStats& ts = m_stats->at(t);
    out += QStringList{csvField(m_name), qs(inspect::targetName(t)), QString::number(m_stats->finite),
                       QString::number(ts.overflow), QString::number(ts.lostToZero),
                       QString::number(ts.subnormal), g17(ts.sqnrDb()), QString::number(ts.blocks),
                       QString::number(ts.clippedBlocks), QString::number(ts.poisonedBlocks),
                       g17(m_stats->outlierRatio())}
               .join(u',') +
           u'\n';
  }
  return out;
}

QJsonDocument ModelFormatTable::json() const {
  QJsonObject root;
  root[QStringLiteral("title")] = title();
  root[QStringLiteral("tensor")] = m_name;
  QJsonArray rows;
  if (m_stats && m_stats->scanned) {
    root[QStringLiteral("outlier_ratio")] = m_stats->outlierRatio();
    for (Target t : inspect::kTargets) {
      const inspect::TargetStats& ts = m_stats->at(t);
      QJsonObject o;
      o[QStringLiteral("format")] = qs(inspect::targetName(t));
      o[QStringLiteral("overflow")] = double(ts.overflow);
      o[QStringLiteral("lost_to_zero")] = double(ts.lostToZero);
      o[QStringLiteral("subnormal")] = double(ts.subnormal);
      const double q = ts.sqnrDb();
      o[QStringLiteral("sqnr_db")] = std::isfinite(q) ? QJsonValue(q) : QJsonValue();
      o[QStringLiteral("blocks")] = double(ts.blocks);
      o[QStringLiteral("clipped_blocks")] = double(ts.clippedBlocks);
      o[QStringLiteral("poisoned_blocks")] = double(ts.poisonedBlocks);
      rows.append(o);
    }
  }
  root[QStringLiteral("formats")] = rows;
  return QJsonDocument(root);
}

void ModelFormatTable::contextMenuEvent(QContextMenuEvent* event) { popupExportMenu(this, *this, event->globalPos()); }

} // namespace mantissa::ui
