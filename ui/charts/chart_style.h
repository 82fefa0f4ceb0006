// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "ui/app_shell/palette.h"

#include <QColor>
#include <QFont>
#include <QString>

class QFontMetricsF;

namespace mantissa::ui {

struct ExportStyle; // chart_export.h

// How a chart looks: theme, presenter scaling, background. The app shell's
// Theme hands one of these to every chart; export builds its own.
struct ChartStyle {
  bool dark = false;
  bool transparentBackground = false;
  double fontScale = 1.0; // presenter mode: larger text
  double penScale = 1.0;  // presenter mode: thicker lines

  // The factors match Theme's presenter mode (fontScale 1.5, penWidthFactor 2.5).
  static ChartStyle screen(bool dark) { return {dark, false, 1.0, 1.0}; }
  static ChartStyle presenter(bool dark) { return {dark, false, 1.5, 2.5}; }
  // The application's current Theme (light / dark, presenter mode).
  static ChartStyle fromTheme();

  QColor background() const;
  QColor plotBackground() const;
  QColor text() const;
  QColor mutedText() const;
  QColor grid() const;
  QColor axisLine() const;

  QFont titleFont() const;     // chart title
  QFont axisTitleFont() const; // "step", "loss", "log2 |g|"
  QFont labelFont() const;     // tick labels, legend, annotations

  double linePenWidth() const { return 1.75 * penScale; }
  double markerSize() const { return 9.0 * (1.0 + 0.5 * (penScale - 1.0)); }
};

// Series colours come from the one palette the whole UI shares.
using palette::partColor;
using palette::seriesColor;

// `text` broken into lines at its spaces so that each line is at most `room`
// wide where a word allows it: lines HTML-escaped and joined by "<br>"
// (chart titles, legends and labels are rich text).
QString breakLines(const QString& text, const QFontMetricsF& metrics, double room);

// The chart style an export uses: white or transparent backgrounds force the
// light theme; presenter mode scales fonts and pens as on the projector.
ChartStyle exportChartStyle(const ChartStyle& screen, const ExportStyle& style);

} // namespace mantissa::ui
