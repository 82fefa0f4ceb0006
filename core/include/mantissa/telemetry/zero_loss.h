// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// How many values a rounding to a storage dtype would turn into zero, counted
// BEFORE the rounding, in one read of the values (no copy, no second pass).
//
// The rounding is the trainer's (numeric::roundTripBf16 / roundTripF16):
// nearest, ties to even; BF16 treats FP32 subnormal inputs as zero (DAZ),
// FP16 underflows gradually. Rounding is monotone in |x|, so a non-zero x
// becomes zero exactly when bits(|x|) < castThresholds(target).zeroBelow.
// Counted as the model's GradUnderflow defines it: NaN and inf are non-zero
// and never lost; F32 loses nothing.

#include <mantissa/tensor/dtype.h>

#include <cstdint>
#include <span>

namespace mantissa::telemetry {

struct ZeroLossCounts {
  std::uint64_t nonzero = 0;    // values != 0 (NaN and inf included)
  std::uint64_t lostToZero = 0; // non-zero values that round to (signed) zero in the dtype
  bool operator==(const ZeroLossCounts&) const = default;
};

// Vectorised (AVX2 at run time, baseline x86-64 otherwise; identical counts).
ZeroLossCounts zeroLossCounts(std::span<const float> values, DType rounding);

} // namespace mantissa::telemetry
