// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "laser_pointer.h"

#include "theme.h"

#include <QAction>
#include <QGuiApplication>
#include <QPainter>
#include <QPixmap>
#include <QRadialGradient>

namespace mantissa::ui {

LaserPointer::LaserPointer(QObject* parent) : QObject(parent) {
  m_action = new QAction(tr("&Laser Pointer"), this);
  m_action->setCheckable(true);
  m_action->setChecked(true);
  m_action->setShortcut(QKeySequence(Qt::Key_F6));
  m_action->setToolTip(tr("In presenter mode, show the mouse pointer as a red dot"));
  connect(m_action, &QAction::toggled, this, &LaserPointer::apply);
  connect(&Theme::instance(), &Theme::changed, this, &LaserPointer::apply);
  apply();
}

LaserPointer::~LaserPointer() {
  if (m_overriding)
    QGuiApplication::restoreOverrideCursor();
}

QCursor LaserPointer::cursor(int diameter) {
  const qreal dpr = qGuiApp ? qGuiApp->devicePixelRatio() : 1.0;
  QPixmap pixmap(QSize(diameter, diameter) * dpr);
  pixmap.setDevicePixelRatio(dpr);
  pixmap.fill(Qt::transparent);
  QPainter p(&pixmap);
  p.setRenderHint(QPainter::Antialiasing);
  const QPointF c(diameter / 2.0, diameter / 2.0);
  QRadialGradient glow(c, diameter / 2.0);
  glow.setColorAt(0.0, QColor(255, 40, 40, 255));
  glow.setColorAt(0.35, QColor(255, 0, 0, 230));
  glow.setColorAt(0.6, QColor(255, 0, 0, 90));
  glow.setColorAt(1.0, QColor(255, 0, 0, 0));
  p.setPen(Qt::NoPen);
  p.setBrush(glow);
  p.drawEllipse(c, diameter / 2.0, diameter / 2.0);
  p.setBrush(QColor(255, 235, 235));
  p.drawEllipse(c, diameter / 12.0, diameter / 12.0);
  p.end();
  return QCursor(pixmap, diameter / 2, diameter / 2);
}

void LaserPointer::apply() {
  const bool want = m_action->isChecked() && Theme::instance().presenter();
  if (want == m_overriding)
    return;
  m_overriding = want;
  if (want)
    QGuiApplication::setOverrideCursor(cursor(36));
  else
    QGuiApplication::restoreOverrideCursor();
}

} // namespace mantissa::ui
