// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "ui/bridge/run_controller.h"

#include <QTest>

namespace mantissa::ui {

// Runs the event loop (queued trainer events, the drain timer) and drains the
// controller's mailbox at every poll, until pred holds or ms have passed.
template <class Pred> bool waitDrained(RunController& controller, Pred pred, int ms) {
  return QTest::qWaitFor(
      [&] {
        controller.drainNow();
        return pred();
      },
      ms);
}

} // namespace mantissa::ui
