// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/app_shell/theme.h"

#include <QApplication>
#include <QFontDatabase>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>
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

QFont Theme::uiFont(double factor, bool bold) const {
  QFont f = m_baseFontKnown ? m_baseFont : QApplication::font();
  f.setPointSizeF(f.pointSizeF() * factor * fontScale());
  f.setBold(bold);
  return f;
}

QFont Theme::monospaceFont(double factor, bool bold) const {
  QFont f = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  const QFont ui = m_baseFontKnown ? m_baseFont : QApplication::font();
  f.setPointSizeF(ui.pointSizeF() * factor * fontScale());
  f.setStyleHint(QFont::Monospace);
  f.setBold(bold);
  return f;
}

void Theme::apply() {
  if (!m_baseFontKnown) {
    m_baseFont = QApplication::font();
    m_baseFontKnown = true;
  }
  QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
  QApplication::setPalette(m_dark ? darkPalette(m_presenter) : lightPalette(m_presenter));
  QFont f = m_baseFont;
  f.setPointSizeF(m_baseFont.pointSizeF() * fontScale());
  QApplication::setFont(f);
  emit changed();
}

} // namespace mantissa::ui
