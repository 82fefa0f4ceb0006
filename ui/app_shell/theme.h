// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <QFont>
#include <QObject>

namespace mantissa::ui {

// The application's look: Fusion style with a light or dark palette, and a
// presenter mode for projectors (larger type, thicker lines, higher contrast).
// Custom-painted widgets read fonts and pen widths from here and repaint on
// changed().
class Theme : public QObject {
  Q_OBJECT
public:
  static Theme& instance();

  bool dark() const { return m_dark; }
  bool presenter() const { return m_presenter; }
  void setDark(bool dark);
  void setPresenter(bool presenter);

  // 1 normally; larger in presenter mode. Multiply every cosmetic pen width by it.
  double penWidthFactor() const { return m_presenter ? 2.5 : 1.0; }
  // Multiplier applied to the application font in presenter mode.
  double fontScale() const { return m_presenter ? 1.5 : 1.0; }

  // The application font and a fixed-pitch font, scaled by `factor` and fontScale().
  QFont uiFont(double factor = 1.0, bool bold = false) const;
  QFont monospaceFont(double factor = 1.0, bool bold = false) const;

  // Applies style, palette and font to the running QApplication.
  void apply();

signals:
  void changed();

private:
  Theme() = default;

  bool m_dark = false;
  bool m_presenter = false;
  QFont m_baseFont;
  bool m_baseFontKnown = false;
};

} // namespace mantissa::ui
