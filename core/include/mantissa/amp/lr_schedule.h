// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Learning-rate schedules, as in llm.c's get_learning_rate (train_gpt2.cu):
//   constant:        lr(s) = base
//   warmup + cosine: lr(s) = base * (s + 1) / W                       for s < W
//                    lr(s) = floor + (base - floor) * (1 + cos(pi r)) / 2,
//                            r = (s - W) / (T - W)                      for W <= s < T
//                    lr(s) = floor                                      for s >= T
// with s the 0-based optimizer step, W warm-up steps, T total steps.

#include <cstdint>
#include <string>

namespace mantissa::amp {

enum class LrScheduleKind { Constant, WarmupCosine };

struct LrScheduleConfig {
  LrScheduleKind kind = LrScheduleKind::Constant;
  double baseLr = 0.05;
  std::int64_t warmupSteps = 0; // W
  std::int64_t totalSteps = 0;  // T (WarmupCosine: must exceed W)
  double floorLr = 0.0;         // the cosine's end value, in [0, baseLr]
};

class LrSchedule {
public:
  // Throws std::invalid_argument on a negative rate, a floor above the base, or
  // (WarmupCosine) W < 0 or T <= W.
  explicit LrSchedule(LrScheduleConfig config);

  double lrAt(std::int64_t step) const;

  const LrScheduleConfig& config() const { return m_config; }

  // "constant 0.05" or "warm-up 100 + cosine to 0.005 at 3000".
  std::string describe() const;

private:
  LrScheduleConfig m_config;
};

} // namespace mantissa::amp
