// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/amp/lr_schedule.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <stdexcept>

namespace mantissa::amp {

LrSchedule::LrSchedule(LrScheduleConfig config) : m_config(config) {
  const auto& c = m_config;
  if (!std::isfinite(c.baseLr) || c.baseLr < 0)
    throw std::invalid_argument("learning rate must be a non-negative number");
  if (c.kind == LrScheduleKind::WarmupCosine) {
    if (c.warmupSteps < 0 || c.totalSteps <= c.warmupSteps)
      throw std::invalid_argument("warm-up + cosine schedule needs 0 <= warm-up steps < total steps (" +
                                  std::to_string(c.warmupSteps) + ", " + std::to_string(c.totalSteps) +
                                  ")");
    if (!std::isfinite(c.floorLr) || c.floorLr < 0 || c.floorLr > c.baseLr)
      throw std::invalid_argument("cosine floor must be in [0, learning rate]");
  }
}

double LrSchedule::lrAt(std::int64_t step) const {
  const auto& c = m_config;
  if (c.kind == LrScheduleKind::Constant)
    return c.baseLr;
  if (step < c.warmupSteps)
    return c.baseLr * static_cast<double>(std::max<std::int64_t>(step, 0) + 1) /
           static_cast<double>(c.warmupSteps);
  if (step >= c.totalSteps)
    return c.floorLr;
  const double r = static_cast<double>(step - c.warmupSteps) /
                   static_cast<double>(c.totalSteps - c.warmupSteps); // in [0, 1)
  return c.floorLr + (c.baseLr - c.floorLr) * 0.5 * (1.0 + std::cos(std::numbers::pi * r));
}

std::string LrSchedule::describe() const {
  char buf[128];
  const auto& c = m_config;
  if (c.kind == LrScheduleKind::Constant)
    std::snprintf(buf, sizeof buf, "constant %g", c.baseLr);
  else
    std::snprintf(buf, sizeof buf, "warm-up %lld to %g + cosine to %g at step %lld",
                  static_cast<long long>(c.warmupSteps), c.baseLr, c.floorLr,
                  static_cast<long long>(c.totalSteps));
  return buf;
}

} // namespace mantissa::amp
