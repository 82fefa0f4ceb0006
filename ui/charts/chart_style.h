// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <QColor>
#include <QFont>

namespace mantissa::ui {

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

// Okabe-Ito colour-blind-safe colours, in the order runs and series take them.
// Black is replaced by a mid grey so every entry reads on light and dark.
QColor seriesColor(int index);

namespace okabe_ito {
inline const QColor kOrange{0xE6, 0x9F, 0x00};
inline const QColor kSkyBlue{0x56, 0xB4, 0xE9};
inline const QColor kBluishGreen{0x00, 0x9E, 0x73};
inline const QColor kYellow{0xF0, 0xE4, 0x42};
inline const QColor kBlue{0x00, 0x72, 0xB2};
inline const QColor kVermillion{0xD5, 0x5E, 0x00};
inline const QColor kReddishPurple{0xCC, 0x79, 0xA7};
inline const QColor kGrey{0x88, 0x88, 0x88};
} // namespace okabe_ito

} // namespace mantissa::ui
