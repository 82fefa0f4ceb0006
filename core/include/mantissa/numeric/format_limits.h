// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Where a format stops holding |x| faithfully, on a log2 |x| axis (the
// exponent histogram's): the values that round to zero, the subnormal range
// (fewer significant bits) and the values beyond the largest finite one.
// Any FloatFormat: a named one or one built from a spec string. The charts
// draw and label these bounds; they compute none of their own.
//
// Round to nearest, ties to even, as every cast in Mantissa rounds:
//   flush to zero   |x| <= minPositive / 2 (the tie goes to the even 0), where
//                   minPositive is the smallest subnormal, or the smallest
//                   normal for a format without subnormals (subnormals=no,
//                   mantissa 0, the integer layouts). BF16: |x| < 2^-126,
//                   since the FP32 -> BF16 casts flush subnormals (DAZ, as
//                   VCVTNEPS2BF16 does), so its subnormal range stays empty.
//                   E8M0 has no zero: nothing flushes (its bound is -inf).
//   subnormal       minSubnormal <= |x| < minNormal; empty (both bounds at the
//                   smallest normal) when the format has none.
//   overflow        |x| > maxFinite: to infinity (ieee), to NaN or the largest
//                   finite value, as the conversion chooses (fn, fnuz), or
//                   saturated (none: the format has neither inf nor NaN).

#include <mantissa/numeric/format.h>

#include <cstdint>

namespace mantissa::numeric {

enum class OverflowTo : std::uint8_t {
  Infinity, // ieee
  NanOrMax, // fn, fnuz: no infinity; the conversion saturates or gives NaN
  Max,      // none: no inf, no NaN; the conversion saturates
};

struct FormatLimits {
  double flushToZeroLog2;  // |x| <= 2^this rounds to zero (-inf: the format has no zero)
  double subnormalLoLog2;  // [2^lo, 2^hi): subnormal; lo == hi when there is none
  double subnormalHiLog2;  // the smallest normal
  double overflowLog2;     // log2 of the largest finite value: larger |x| overflow
  OverflowTo overflow;
  bool castsFlushSubnormals = false; // BF16: the casts send subnormals to zero

  bool hasSubnormalRange() const { return subnormalLoLog2 < subnormalHiLog2; }
};

FormatLimits formatLimits(const FloatFormat& format);

} // namespace mantissa::numeric
