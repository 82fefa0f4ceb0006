// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <QCursor>
#include <QObject>

class QAction;

namespace mantissa::ui {

// View > Laser Pointer (F6): in presenter mode the mouse pointer becomes
// a glowing red dot that a class can follow on a projector, over every
// widget (an application override cursor). Outside presenter mode, or
// unchecked, the normal pointers are back.
class LaserPointer : public QObject {
  Q_OBJECT
public:
  explicit LaserPointer(QObject* parent = nullptr);
  ~LaserPointer() override;

  QAction* action() const { return m_action; }
  bool active() const { return m_overriding; } // the red dot is showing
  // The dot, `diameter` logical pixels across, its hot spot in the middle.
  static QCursor cursor(int diameter);

private:
  void apply();

  QAction* m_action = nullptr;
  bool m_overriding = false;
};

} // namespace mantissa::ui
