// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The reference exponent histogram of the telemetry tests: each value
// classified by std::fpclassify and binned by std::ilogb, one at a time.

#include <mantissa/telemetry/histogram.h>

#include <cmath>
#include <cstddef>
#include <span>

namespace mantissa::telemetry::testing {

inline ExponentHistogram ilogbReference(std::span<const float> values) {
  ExponentHistogram h;
  for (float v : values) {
    ++h.total;
    switch (std::fpclassify(v)) {
    case FP_NAN: ++h.nan; break;
    case FP_INFINITE: ++(v > 0 ? h.posInf : h.negInf); break;
    case FP_ZERO: ++h.zeros; break;
    default: ++h.bins[static_cast<std::size_t>(ExponentHistogram::index(std::ilogb(v)))];
    }
  }
  return h;
}

} // namespace mantissa::telemetry::testing
