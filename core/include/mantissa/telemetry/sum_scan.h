// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A sum of squares that observes its values on the way (telemetry of the
// weight gradients inside the gradient norm).
//
// The global gradient norm sums x * x in FP32 in order (amp::sumOfSquares):
// one serial chain of additions, each waiting for the last (~3 cycles per
// value), which leaves most of the core idle. sumOfSquaresScanned runs that
// same chain, bit for bit, and in its shadow counts what
// TelemetryCollector::observe(values) (loss scale 1) counts: the exponent
// histogram (a byte-indexed count) and, per cast target, how many |x| lie
// below each threshold (one vector compare per 8 values and threshold).
// Exact counts; the AVX2 kernel and the portable one count the same.

#include <mantissa/telemetry/cast_fractions.h>
#include <mantissa/telemetry/histogram.h>

#include <array>
#include <cstdint>
#include <span>

namespace mantissa::telemetry {

// One tensor's counts taken apart from a collector (on any thread), recorded
// later with TelemetryCollector::record().
struct TensorScan {
  ExponentHistogram hist;
  // below[3k + i]: #{bits(|x|) < castThresholds(kCastTargets[k])} for i = 0
  // zeroBelow, 1 normalBelow, 2 overflowFrom.
  std::array<std::uint64_t, 3 * kCastTargetCount> below{};

  // Counts of two disjoint parts of a tensor add up to the tensor's.
  TensorScan& operator+=(const TensorScan& other);
};

// scan += the counts of `values` (the collector's one pass, on the calling
// thread): what TelemetryCollector::observe(layer, cls, values) counts.
void scanInto(std::span<const float> values, TensorScan& scan);

// float s = 0; for (float x : values) s += x * x; return s; -- bit-identical
// to that loop (no reassociation, no fused multiply-add) whenever the result
// is not NaN (a NaN's sign and payload depend on the operand order the
// compiler picks, as in the loop itself) -- and scan += the counts of
// `values` (so one scan may take several spans).
float sumOfSquaresScanned(std::span<const float> values, TensorScan& scan);

} // namespace mantissa::telemetry
