// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/panels/whatif_table.h"

#include "ui/app_shell/palette.h"
#include "ui/charts/chart_style.h"
#include "ui/charts/export_menu.h"

#include <QContextMenuEvent>
#include <QFontMetricsF>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonObject>
#include <QLocale>
#include <QPainter>
#include <QScrollBar>

#include <cmath>

namespace mantissa::ui {

namespace {

using namespace numeric;

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

QStringList headers() {
  return {QObject::tr("scheme"),    QObject::tr("saturated"), QObject::tr("lost to zero"),
          QObject::tr("subnormal"), QObject::tr("SQNR"),      QObject::tr("clipped blocks")};
}

QString clippedText(const QuantStats& s) {
  const QLocale locale;
  return QObject::tr("%1 of %2").arg(locale.toString(qulonglong(s.blocksMaxClipped)),
                                    locale.toString(qulonglong(s.blocks)));
}

QStringList cells(const SchemeStats& r) {
  return {qs(schemeInfo(r.scheme).name), WhatIfTable::percent(r.stats.fractionSaturated),
          WhatIfTable::percent(r.stats.fractionLostToZero), WhatIfTable::percent(r.stats.fractionSubnormal),
          WhatIfTable::decibels(r.stats.sqnrDb), clippedText(r.stats)};
}

} // namespace

WhatIfTable::WhatIfTable(QWidget* parent) : QTableWidget(0, ColumnCount, parent) {
  setObjectName(QStringLiteral("whatIfTable"));
  setHorizontalHeaderLabels(headers());
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  verticalHeader()->setVisible(false);
  verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents); // tight rows: all nine in a short dock
  horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  horizontalHeader()->setStretchLastSection(true);
  setToolTip(tr("Every scheme on the same values. Saturated: clamped at the element's largest value; "
                "lost to zero: non-zero values stored as 0; SQNR: signal to quantization noise, higher is "
                "better. Right click to export."));
}

QString WhatIfTable::percent(double fraction) {
  if (std::isnan(fraction))
    return QStringLiteral("–");
  if (fraction == 0.0)
    return QStringLiteral("0");
  return QStringLiteral("%1 %").arg(100.0 * fraction, 0, 'g', 3);
}

QString WhatIfTable::decibels(double db) {
  if (std::isnan(db))
    return QStringLiteral("–");
  if (std::isinf(db))
    return tr("exact");
  return QStringLiteral("%1 dB").arg(db, 0, 'f', 1);
}

void WhatIfTable::clearStats() {
  m_rows.clear();
  m_subject.clear();
  setRowCount(0);
}

void WhatIfTable::setStats(const std::vector<SchemeStats>& rows, const QString& subject) {
  m_rows = rows;
  m_subject = subject;
  setRowCount(int(rows.size()));
  const QColor base = palette().color(QPalette::Base);
  for (int r = 0; r < int(rows.size()); ++r) {
    const QStringList text = cells(rows[std::size_t(r)]);
    const QuantStats& s = rows[std::size_t(r)].stats;
    for (int c = 0; c < ColumnCount; ++c) {
      auto* item = new QTableWidgetItem(text[c]);
      item->setTextAlignment(c == Scheme ? (Qt::AlignLeft | Qt::AlignVCenter) : (Qt::AlignRight | Qt::AlignVCenter));
      if ((c == Saturated && s.fractionSaturated > 0) || (c == Clipped && s.blocksMaxClipped > 0))
        item->setBackground(palette::blend(palette::kWarning, base, 0.75));
      else if (c == LostToZero && s.fractionLostToZero > 0)
        item->setBackground(palette::blend(palette::kSkyBlue, base, 0.7));
      setItem(r, c, item);
    }
  }
  resizeColumnsToContents();
}

int WhatIfTable::wholeWidth() const {
  return horizontalHeader()->length() + 2 * frameWidth() + verticalScrollBar()->sizeHint().width() + 4;
}

int WhatIfTable::rowOf(BlockScheme scheme) const {
  for (std::size_t i = 0; i < m_rows.size(); ++i)
    if (m_rows[i].scheme == scheme)
      return int(i);
  return -1;
}

QString WhatIfTable::title() const {
  return m_subject.isEmpty() ? tr("What if: every scheme on the same values")
                             : tr("What if: every scheme on %1").arg(m_subject);
}

void WhatIfTable::render(QPainter& painter, const QRectF& target, const ExportStyle& style) const {
  ChartStyle cs = style.presenter ? ChartStyle::presenter(false) : ChartStyle::screen(false);
  cs.transparentBackground = style.background == ExportStyle::Background::Transparent;
  painter.save();
  painter.setRenderHint(QPainter::TextAntialiasing, true);
  if (!cs.transparentBackground)
    painter.fillRect(target, cs.background());
  const QFontMetricsF tm(cs.titleFont()), lm(cs.labelFont());
  const double pad = 10.0 * cs.fontScale;
  painter.setPen(cs.text());
  painter.setFont(cs.titleFont());
  const QRectF titleRect(target.left() + pad, target.top() + pad, target.width() - 2 * pad, tm.height() * 2.2);
  painter.drawText(titleRect, Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, title());
  const QStringList head = headers();
  std::vector<QStringList> body;
  for (const SchemeStats& r : m_rows)
    body.push_back(cells(r));
  // Column widths from their widest text, spread over the target width.
  std::vector<double> widths(ColumnCount, 0.0);
  for (int c = 0; c < ColumnCount; ++c) {
    widths[std::size_t(c)] = lm.horizontalAdvance(head[c]);
    for (const QStringList& row : body)
      widths[std::size_t(c)] = std::max(widths[std::size_t(c)], lm.horizontalAdvance(row[c]));
  }
  double total = 0;
  for (double w : widths)
    total += w;
  const double room = target.width() - 2 * pad;
  const double gap = std::max(pad, (room - total) / double(int(ColumnCount)));
  const double rowH = lm.height() * 1.6;
  double y = titleRect.bottom() + pad;
  const auto drawRow = [&](const QStringList& text, bool header) {
    double x = target.left() + pad;
    QFont f = cs.labelFont();
    f.setBold(header);
    painter.setFont(f);
    for (int c = 0; c < ColumnCount; ++c) {
      const double w = widths[std::size_t(c)] + gap;
      painter.drawText(QRectF(x + gap / 2, y, widths[std::size_t(c)], rowH),
                       (c == Scheme ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter, text[c]);
      x += w;
    }
    y += rowH;
  };
  drawRow(head, true);
  painter.setPen(QPen(cs.grid(), 1.0));
  painter.drawLine(QPointF(target.left() + pad, y), QPointF(target.right() - pad, y));
  painter.setPen(cs.text());
  for (const QStringList& row : body)
    drawRow(row, false);
  painter.restore();
}

QString WhatIfTable::csv() const {
  QString out = QStringLiteral(
      "scheme,values,saturated,lost_to_zero,subnormal,sqnr_db,blocks,blocks_max_clipped,non_finite\n");
  for (const SchemeStats& r : m_rows)
    out += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9\n")
               .arg(qs(schemeInfo(r.scheme).name))
               .arg(r.stats.count)
               .arg(r.stats.fractionSaturated, 0, 'g', 17)
               .arg(r.stats.fractionLostToZero, 0, 'g', 17)
               .arg(r.stats.fractionSubnormal, 0, 'g', 17)
               .arg(r.stats.sqnrDb, 0, 'g', 17)
               .arg(r.stats.blocks)
               .arg(r.stats.blocksMaxClipped)
               .arg(r.stats.nonFinite);
  return out;
}

QJsonDocument WhatIfTable::json() const {
  QJsonObject root;
  root[QStringLiteral("title")] = title();
  QJsonArray rows;
  for (const SchemeStats& r : m_rows) {
    QJsonObject o;
    o[QStringLiteral("scheme")] = qs(schemeInfo(r.scheme).name);
    o[QStringLiteral("values")] = double(r.stats.count);
    o[QStringLiteral("saturated")] = r.stats.fractionSaturated;
    o[QStringLiteral("lost_to_zero")] = r.stats.fractionLostToZero;
    o[QStringLiteral("subnormal")] = r.stats.fractionSubnormal;
    // JSON has no infinity: an exact result has no SQNR number.
    o[QStringLiteral("sqnr_db")] = std::isfinite(r.stats.sqnrDb) ? QJsonValue(r.stats.sqnrDb) : QJsonValue();
    o[QStringLiteral("blocks")] = double(r.stats.blocks);
    o[QStringLiteral("blocks_max_clipped")] = double(r.stats.blocksMaxClipped);
    rows.append(o);
  }
  root[QStringLiteral("schemes")] = rows;
  return QJsonDocument(root);
}

void WhatIfTable::contextMenuEvent(QContextMenuEvent* event) { popupExportMenu(this, *this, event->globalPos()); }

} // namespace mantissa::ui
