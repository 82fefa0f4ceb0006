// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "chart_style.h"

#include "chart_export.h"

#include "ui/app_shell/theme.h"

#include <QFontMetricsF>
#include <QStringList>

#include <array>

namespace mantissa::ui {

ChartStyle ChartStyle::fromTheme() {
  const Theme& theme = Theme::instance();
  return {theme.dark(), false, theme.fontScale(), theme.penWidthFactor()};
}

QColor ChartStyle::background() const {
  if (transparentBackground)
    return Qt::transparent;
  return dark ? QColor(0x1e, 0x1f, 0x22) : QColor(Qt::white);
}

QColor ChartStyle::plotBackground() const {
  if (transparentBackground)
    return Qt::transparent;
  return dark ? QColor(0x26, 0x27, 0x2b) : QColor(Qt::white);
}

QColor ChartStyle::text() const { return dark ? QColor(0xe8, 0xe8, 0xea) : QColor(0x1a, 0x1a, 0x1a); }

QColor ChartStyle::mutedText() const {
  return dark ? QColor(0xa8, 0xa8, 0xae) : QColor(0x55, 0x55, 0x5a);
}

QColor ChartStyle::grid() const { return dark ? QColor(0x3c, 0x3d, 0x43) : QColor(0xdd, 0xdd, 0xe0); }

QColor ChartStyle::axisLine() const {
  return dark ? QColor(0x80, 0x80, 0x88) : QColor(0x60, 0x60, 0x66);
}

namespace {
QFont scaledFont(double pointSize, double scale, bool bold) {
  QFont font;
  font.setPointSizeF(pointSize * scale);
  font.setBold(bold);
  return font;
}
} // namespace

QFont ChartStyle::titleFont() const { return scaledFont(11.0, fontScale, true); }
QFont ChartStyle::axisTitleFont() const { return scaledFont(9.5, fontScale, false); }
QFont ChartStyle::labelFont() const { return scaledFont(8.5, fontScale, false); }


QString breakLines(const QString& text, const QFontMetricsF& metrics, double room) {
  QStringList lines;
  QString line;
  for (const QString& word : text.split(u' ', Qt::SkipEmptyParts)) {
    const QString longer = line.isEmpty() ? word : line + u' ' + word;
    if (!line.isEmpty() && metrics.horizontalAdvance(longer) > room) {
      lines << line.toHtmlEscaped();
      line = word;
    } else {
      line = longer;
    }
  }
  lines << line.toHtmlEscaped();
  return lines.join(QStringLiteral("<br>"));
}

ChartStyle exportChartStyle(const ChartStyle& screen, const ExportStyle& style) {
  ChartStyle out = style.presenter ? ChartStyle::presenter(screen.dark) : ChartStyle::screen(screen.dark);
  if (style.background != ExportStyle::Background::Screen)
    out.dark = false;
  out.transparentBackground = style.background == ExportStyle::Background::Transparent;
  return out;
}

} // namespace mantissa::ui
