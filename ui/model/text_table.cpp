// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/model/text_table.h"

#include "ui/charts/chart_style.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>

namespace mantissa::ui {

void renderTextTable(QPainter& painter, const QRectF& target, const ExportStyle& style,
                     const QString& title, const QStringList& head,
                     const std::vector<QStringList>& rows, int leftColumns) {
  ChartStyle cs = style.presenter ? ChartStyle::presenter(false) : ChartStyle::screen(false);
  cs.transparentBackground = style.background == ExportStyle::Background::Transparent;
  painter.save();
  painter.setRenderHint(QPainter::TextAntialiasing, true);
  if (!cs.transparentBackground)
    painter.fillRect(target, cs.background());
  const QFontMetricsF tm(cs.titleFont());
  const double pad = 10.0 * cs.fontScale;
  painter.setPen(cs.text());
  painter.setFont(cs.titleFont());
  const QRectF titleRect(target.left() + pad, target.top() + pad, target.width() - 2 * pad,
                         tm.height() * 2.2);
  painter.drawText(titleRect, Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, title);

  // Column widths from their widest text; the font shrinks (to 60 %) when
  // the columns do not fit the width.
  const int columns = int(head.size());
  QFont font = cs.labelFont();
  std::vector<double> widths(std::size_t(columns), 0.0);
  double total = 0;
  for (int attempt = 0; attempt < 5; ++attempt) {
    QFont bold = font;
    bold.setBold(true);
    const QFontMetricsF lm(font), bm(bold);
    total = 0;
    for (int c = 0; c < columns; ++c) {
      double w = bm.horizontalAdvance(head[c]);
      for (const QStringList& row : rows)
        if (c < row.size())
          w = std::max(w, lm.horizontalAdvance(row[c]));
      widths[std::size_t(c)] = w;
      total += w + pad;
    }
    if (total <= target.width() - 2 * pad)
      break;
    font.setPointSizeF(font.pointSizeF() * 0.9);
  }
  const double gap = std::max(pad, (target.width() - 2 * pad - (total - pad * columns)) / std::max(1, columns));
  const double rowH = QFontMetricsF(font).height() * 1.45;
  double y = titleRect.bottom() + pad;
  const auto drawRow = [&](const QStringList& text, bool header) {
    double x = target.left() + pad;
    QFont f = font;
    f.setBold(header);
    painter.setFont(f);
    for (int c = 0; c < columns && c < text.size(); ++c) {
      painter.drawText(QRectF(x, y, widths[std::size_t(c)], rowH),
                       (c < leftColumns ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter, text[c]);
      x += widths[std::size_t(c)] + gap;
    }
    y += rowH;
  };
  drawRow(head, true);
  painter.setPen(QPen(cs.grid(), 1.0));
  painter.drawLine(QPointF(target.left() + pad, y), QPointF(target.right() - pad, y));
  painter.setPen(cs.text());
  const double bottom = target.bottom() - pad;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (y + 2 * rowH > bottom && i + 1 < rows.size()) {
      painter.setFont(font);
      painter.drawText(QRectF(target.left() + pad, y, target.width() - 2 * pad, rowH),
                       Qt::AlignLeft | Qt::AlignVCenter,
                       QObject::tr("… %1 more rows (export CSV for all)").arg(rows.size() - i));
      break;
    }
    drawRow(rows[i], false);
  }
  painter.restore();
}

} // namespace mantissa::ui
