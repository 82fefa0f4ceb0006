// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The one pass over a tensor that telemetry makes (private to telemetry).
//
// For values x[0..n) (optionally multiplied by `scale` in FP32 first) it
// fills an ExponentHistogram and, in the same pass, counts for each
// threshold T (an FP32 bit pattern of a non-negative magnitude, at most
// +inf = 0x7f800000) how many |x| have bits(|x|) < T. For non-negative
// floats, bit-pattern order is value order, so this is an exact comparison;
// NaN (bits > 0x7f800000) is never below any threshold.
//
// Cost model: the histogram is a count over the biased exponent byte
// (byte_histogram.h): with AVX2, 32 values at a time against a window of 16
// bins chosen from the data (training tensors fit it), else a scalar
// byte-indexed count. A threshold only needs value-level work in
// chunks that actually hold values of the threshold's own binade; everything
// below that binade is read off the histogram. That within-binade count, the
// zero count and the cast's scaling are branch-free loops compiled for AVX2
// (dispatched at run time) and for baseline x86-64.

#include <mantissa/telemetry/histogram.h>

#include <cstdint>
#include <span>

namespace mantissa::telemetry::detail {

inline constexpr std::size_t kMaxThresholds = 32;

// The CPU has AVX2 and the portable path is not forced (setForcePortableTelemetry).
bool useAvx2() noexcept;

// hist += histogram of (x * scale); below[j] += #{x : bits(|x * scale|) < thresholds[j]}.
// below.size() must equal thresholds.size() <= kMaxThresholds.
void scan(std::span<const float> values, float scale, std::span<const std::uint32_t> thresholds,
          ExponentHistogram& hist, std::span<std::uint64_t> below);

// #{x : (bits(|x|) - lo) mod 2^32 < width}: values whose magnitude bits lie in [lo, lo + width).
std::uint64_t countInRange(std::span<const float> values, std::uint32_t lo, std::uint32_t width);

} // namespace mantissa::telemetry::detail
