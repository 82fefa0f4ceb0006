// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/app_shell/theme.h"

#include <QApplication>
#include <QComboBox>
#include <QEvent>
#include <QFontDatabase>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

#include <algorithm>
#include <cmath>
#include <memory>

namespace mantissa::ui {
namespace {

QPalette lightPalette(bool highContrast) {
  // Owned here: QStyleFactory::create() hands over a new style (LSan: leaked per call).
  const std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
  QPalette p = fusion->standardPalette();
  const QColor text = highContrast ? Qt::black : QColor(0x20, 0x20, 0x20);
  p.setColor(QPalette::Window, highContrast ? Qt::white : QColor(0xF4, 0xF4, 0xF4));
  p.setColor(QPalette::Base, Qt::white);
  p.setColor(QPalette::AlternateBase, QColor(0xEC, 0xEC, 0xEC));
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::Button, QColor(0xE8, 0xE8, 0xE8));
  p.setColor(QPalette::Highlight, QColor(0x00, 0x72, 0xB2));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::ToolTipBase, QColor(0xFF, 0xFF, 0xE8));
  p.setColor(QPalette::ToolTipText, Qt::black);
  p.setColor(QPalette::PlaceholderText, QColor(0x70, 0x70, 0x70));
  p.setColor(QPalette::Link, QColor(0x00, 0x5A, 0x8E));
  return p;
}

QPalette darkPalette(bool highContrast) {
  QPalette p;
  const QColor window = highContrast ? QColor(0x00, 0x00, 0x00) : QColor(0x2A, 0x2C, 0x30);
  const QColor base = highContrast ? QColor(0x10, 0x10, 0x10) : QColor(0x1E, 0x1F, 0x22);
  const QColor text = highContrast ? Qt::white : QColor(0xE8, 0xE8, 0xE8);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, QColor(0x33, 0x35, 0x3A));
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, QColor(0x3A, 0x3C, 0x42));
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, Qt::white);
  p.setColor(QPalette::Highlight, QColor(0x56, 0xB4, 0xE9));
  p.setColor(QPalette::HighlightedText, Qt::black);
  p.setColor(QPalette::ToolTipBase, QColor(0x3A, 0x3C, 0x42));
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::PlaceholderText, QColor(0x9A, 0x9A, 0x9A));
  p.setColor(QPalette::Link, QColor(0x56, 0xB4, 0xE9));
  p.setColor(QPalette::Mid, QColor(0x50, 0x52, 0x58));
  p.setColor(QPalette::Dark, QColor(0x18, 0x18, 0x1A));
  p.setColor(QPalette::Light, QColor(0x5A, 0x5C, 0x62));
  const QColor disabled(0x80, 0x80, 0x80);
  p.setColor(QPalette::Disabled, QPalette::WindowText, disabled);
  p.setColor(QPalette::Disabled, QPalette::Text, disabled);
  p.setColor(QPalette::Disabled, QPalette::ButtonText, disabled);
  return p;
}

// The widget classes a desktop can give fonts of their own (Qt's platform
// theme font types, under the names QApplication keeps them by).
constexpr const char* kFontClasses[] = {
    "QMenu",          "QMenuBar",       "QMenuItem",         "QMessageBox",    "QLabel",
    "QTipLabel",      "QTitleBar",      "QStatusBar",        "QMdiSubWindowTitleBar",
    "QDockWidgetTitle", "QPushButton",  "QCheckBox",         "QRadioButton",   "QToolButton",
    "QAbstractItemView", "QListView",   "QHeaderView",       "QListBox",       "QComboMenuItem",
    "QComboLineEdit", "QSmallFont",     "QMiniFont"};

} // namespace

Theme& Theme::instance() {
  static Theme* theme = new Theme; // lives as long as the process, like qApp's style
  return *theme;
}

void Theme::setDark(bool dark) {
  if (dark == m_dark)
    return;
  m_dark = dark;
  apply();
}

void Theme::setPresenter(bool presenter) {
  if (presenter == m_presenter)
    return;
  m_presenter = presenter;
  apply();
}

// A desktop may size its fonts in pixels (pointSizeF() is then -1, and
// scaling the point size would leave the font as it was).
QFont Theme::scaled(QFont font, double factor) {
  if (font.pointSizeF() > 0)
    font.setPointSizeF(font.pointSizeF() * factor);
  else if (font.pixelSize() > 0)
    font.setPixelSize(std::max(1, static_cast<int>(std::lround(font.pixelSize() * factor))));
  return font;
}

QFont Theme::uiFont(double factor, bool bold) const {
  QFont f = scaled(m_baseFontKnown ? m_baseFont : QApplication::font(), factor * fontScale());
  f.setBold(bold);
  return f;
}

QFont Theme::monospaceFont(double factor, bool bold) const {
  QFont f = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  const QFont ui = scaled(m_baseFontKnown ? m_baseFont : QApplication::font(), factor * fontScale());
  if (ui.pointSizeF() > 0)
    f.setPointSizeF(ui.pointSizeF());
  else
    f.setPixelSize(ui.pixelSize());
  f.setStyleHint(QFont::Monospace);
  f.setBold(bold);
  return f;
}

Theme::ClassFonts Theme::currentClassFonts() {
  ClassFonts fonts;
  const QFont general = QApplication::font();
  for (const char* cls : kFontClasses)
    if (const QFont f = QApplication::font(cls); f != general)
      fonts.emplace_back(cls, f);
  return fonts;
}

void Theme::adoptCurrentFonts() {
  m_baseFont = QApplication::font();
  m_baseClassFonts = currentClassFonts();
  m_baseFontKnown = true;
}

namespace {

// A combo box keeps the minimum size it worked out with its font before (Qt
// resets only its size hint on a font change, both on a style change):
// leaving presenter mode left every box at presenter size, clipped in the
// Setup panel. Each font change of a combo box is followed by a style change
// event, which makes it work both out again with the new font.
class ComboFontChange : public QObject {
public:
  using QObject::QObject;
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::FontChange && qobject_cast<QComboBox*>(watched) != nullptr)
      QCoreApplication::postEvent(watched, new QEvent(QEvent::StyleChange));
    return false;
  }
};

} // namespace

void Theme::apply() {
  static ComboFontChange* comboFix = [] {
    auto* fix = new ComboFontChange(qApp);
    qApp->installEventFilter(fix);
    return fix;
  }();
  (void)comboFix;
  // QApplication::setFont() without a class drops every per-class font: they
  // are set again below, scaled like the rest.
  if (!m_baseFontKnown || QApplication::font() != m_appliedFont ||
      currentClassFonts() != m_appliedClassFonts)
    adoptCurrentFonts();
  QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
  QApplication::setPalette(m_dark ? darkPalette(m_presenter) : lightPalette(m_presenter));
  QApplication::setFont(scaled(m_baseFont, fontScale()));
  for (const auto& [cls, font] : m_baseClassFonts)
    QApplication::setFont(scaled(font, fontScale()), cls);
  m_appliedFont = QApplication::font();
  m_appliedClassFonts = currentClassFonts();
  emit changed();
}

} // namespace mantissa::ui
