// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// One tensor's telemetry counts taken apart from a collector, on any thread
// (Session's background counts), and recorded later with
// TelemetryCollector::record(): the exponent histogram and, per cast target,
// how many |x| lie below each threshold. Exact counts; the AVX-512, AVX2
// and portable kernels count the same.

#include <mantissa/telemetry/cast_fractions.h>
#include <mantissa/telemetry/histogram.h>

#include <array>
#include <cstdint>
#include <span>

namespace mantissa::telemetry {

struct TensorScan {
  ExponentHistogram hist;
  // below[3k + i]: #{bits(|x|) < castThresholds(kCastTargets[k])} for i = 0
  // zeroBelow, 1 normalBelow, 2 overflowFrom.
  std::array<std::uint64_t, 3 * kCastTargetCount> below{};
  std::uint64_t bits = 0; // sum of the values' FP32 bit patterns, mod 2^64 (TensorTelemetry::bits)

  // Counts of two disjoint parts of a tensor add up to the tensor's.
  TensorScan& operator+=(const TensorScan& other);
};

// scan += the counts of `values` (the collector's one pass, on the calling
// thread): what TelemetryCollector::observe(layer, cls, values) counts.
void scanInto(std::span<const float> values, TensorScan& scan);

} // namespace mantissa::telemetry
