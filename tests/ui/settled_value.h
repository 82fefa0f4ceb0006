// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <QElapsedTimer>
#include <QTest>

#include <functional>

namespace mantissa::ui {

// `value()` once it has held still for `stillMs` (at most `maxMs` in all),
// running the event loop meanwhile. Layouts, font changes and thread teardown
// take several event-loop turns, more under load, so a fixed wait before a
// reading races them; a value that never settles is read at the deadline.
inline int settledValue(const std::function<int()>& value, int stillMs = 250, int maxMs = 10000) {
  int last = value();
  QElapsedTimer total, still;
  total.start();
  still.start();
  while (still.elapsed() < stillMs && total.elapsed() < maxMs) {
    QTest::qWait(20);
    if (const int now = value(); now != last) {
      last = now;
      still.restart();
    }
  }
  return last;
}

} // namespace mantissa::ui
