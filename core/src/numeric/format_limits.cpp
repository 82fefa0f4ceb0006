// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/numeric/format_limits.h>

#include <cmath>
#include <limits>

namespace mantissa::numeric {

FormatLimits formatLimits(const FloatFormat& f) {
  FormatLimits out{};
  // Powers of two as integer exponents: exact, whatever the widths.
  const int minNormal = f.minNormalExponent();
  const bool subnormals = f.layout == Layout::SignExponentMantissa && f.subnormals && f.mantissaBits > 0;
  const int minPositive = subnormals ? minNormal - f.mantissaBits : minNormal;
  out.subnormalHiLog2 = minNormal;
  out.subnormalLoLog2 = subnormals ? minPositive : minNormal;
  out.flushToZeroLog2 = minPositive - 1;
  if (f.id == FormatId::Bf16) {
    out.castsFlushSubnormals = true;
    out.flushToZeroLog2 = minNormal; // everything below the smallest normal
    out.subnormalLoLog2 = minNormal;
  }
  if (f.layout == Layout::UnsignedExponent)
    out.flushToZeroLog2 = -std::numeric_limits<double>::infinity(); // no zero: 2^-127 at least
  out.overflowLog2 = std::log2(f.maxFinite());
  out.overflow = f.hasInfinity() ? OverflowTo::Infinity : f.hasNan() ? OverflowTo::NanOrMax : OverflowTo::Max;
  return out;
}

} // namespace mantissa::numeric
