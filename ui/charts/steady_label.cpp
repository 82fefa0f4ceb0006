// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/charts/steady_label.h"

#include <QEvent>
#include <QPainter>
#include <QResizeEvent>

namespace mantissa::ui {

SteadyTextLine::SteadyTextLine(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void SteadyTextLine::setForms(const QStringList& forms) {
  if (forms == m_forms)
    return;
  m_forms = forms;
  setToolTip(fullText());
  fit();
}

void SteadyTextLine::fit() {
  const QFontMetrics fm = fontMetrics();
  const int room = contentsRect().width();
  QString shown;
  for (const QString& form : m_forms)
    if (fm.horizontalAdvance(form) <= room) {
      shown = form;
      break;
    }
  if (shown.isEmpty() && !m_forms.isEmpty())
    shown = fm.elidedText(m_forms.back(), Qt::ElideRight, room);
  if (shown != m_shown) {
    m_shown = shown;
    update();
  }
}

QSize SteadyTextLine::sizeHint() const {
  const QMargins m = contentsMargins();
  return {fontMetrics().averageCharWidth() * 40 + m.left() + m.right(),
          fontMetrics().height() + m.top() + m.bottom()};
}

QSize SteadyTextLine::minimumSizeHint() const {
  const QMargins m = contentsMargins();
  return {fontMetrics().averageCharWidth() * 12 + m.left() + m.right(),
          fontMetrics().height() + m.top() + m.bottom()};
}

void SteadyTextLine::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setPen(palette().color(foregroundRole()));
  painter.drawText(contentsRect(), Qt::AlignLeft | Qt::AlignVCenter, m_shown);
}

void SteadyTextLine::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fit();
}

void SteadyTextLine::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::FontChange) {
    updateGeometry();
    fit();
  }
}

} // namespace mantissa::ui
