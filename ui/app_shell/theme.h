// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <QFont>
#include <QObject>

#include <utility>
#include <vector>

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

  // Applies style, palette and fonts to the running QApplication: the
  // application font and every per-widget-class font the desktop set (menu
  // bar, menus, tool buttons, status bar, dock titles...), each scaled by
  // fontScale(), so presenter mode enlarges the window's chrome too and
  // leaving it gives back exactly the desktop's fonts. Fonts changed by
  // someone else since the last apply() (the desktop, a test) are taken as
  // the new normal ones.
  void apply();

  // `font` scaled by `factor`, in points or in pixels, whichever it is sized in.
  static QFont scaled(QFont font, double factor);

signals:
  void changed();

private:
  Theme() = default;

  using ClassFonts = std::vector<std::pair<const char*, QFont>>;
  static ClassFonts currentClassFonts();
  void adoptCurrentFonts();

  bool m_dark = false;
  bool m_presenter = false;
  QFont m_baseFont;                // the application font outside presenter mode
  ClassFonts m_baseClassFonts;     // the desktop's per-class fonts outside presenter mode
  QFont m_appliedFont;             // what apply() last set, to notice changes by others
  ClassFonts m_appliedClassFonts;
  bool m_baseFontKnown = false;
};

} // namespace mantissa::ui
