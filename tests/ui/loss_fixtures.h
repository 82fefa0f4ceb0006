// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <QList>
#include <QPointF>

namespace mantissa::ui {

// loss = 2 - step / 1000 for steps 0, 10, ..., 1000: 101 points.
inline QList<QPointF> straightLoss() {
  QList<QPointF> points;
  for (int step = 0; step <= 1000; step += 10)
    points.append({double(step), 2.0 - step / 1000.0});
  return points;
}

} // namespace mantissa::ui
