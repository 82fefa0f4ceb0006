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

#include <mantissa/numeric/format.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::telemetry {

// The formats a run's telemetry casts to: the four CastTargets, then up to
// kMaxCastFormats more (--telemetry-formats), and their thresholds, 3 per
// format (zeroBelow, normalBelow, overflowFrom) in that order.
inline constexpr std::size_t kMaxCastFormats = 4;
inline constexpr std::size_t kMaxViewThresholds = 3 * (kCastTargetCount + kMaxCastFormats);
struct CastView {
  std::vector<numeric::FloatFormat> formats; // beyond kCastTargets
  std::vector<std::uint32_t> thresholds;
};
// The four targets alone.
const std::shared_ptr<const CastView>& builtinCastView();
// The four targets and `formats` (those among the four, by encoding, left
// out; duplicates once). Throws std::invalid_argument naming a format that
// castFormatError refuses, or more than kMaxCastFormats others.
std::shared_ptr<const CastView> makeCastView(std::span<const numeric::FloatFormat> formats);

// A comma-separated list of format names or specs ("fp16,bf16,fp8-e4m3fnuz,
// e3m4"; a spec's own fields after its colon stay with it: "e4m3:bias=9,
// special=fnuz") as formats for makeCastView; on a bad item, nullopt and
// `error` naming it.
std::optional<std::vector<numeric::FloatFormat>> parseCastFormatList(std::string_view list,
                                                                     std::string& error);

struct TensorScan {
  ExponentHistogram hist;
  // below[3k + i]: #{bits(|x|) < the view's thresholds[3k + i]}: for k <
  // kCastTargetCount castThresholds(kCastTargets[k]), then the view's formats;
  // i = 0 zeroBelow, 1 normalBelow, 2 overflowFrom.
  std::array<std::uint64_t, kMaxViewThresholds> below{};
  std::shared_ptr<const CastView> view; // null: builtinCastView()
  std::uint64_t bits = 0; // sum of the values' FP32 bit patterns, mod 2^64 (TensorTelemetry::bits)

  const CastView& castView() const { return view ? *view : *builtinCastView(); }
  // Counts of two disjoint parts of a tensor (same view) add up to the tensor's.
  TensorScan& operator+=(const TensorScan& other);
};

// scan += the counts of `values` (the collector's one pass, on the calling
// thread) against scan's view: what TelemetryCollector::observe(layer, cls,
// values) counts.
void scanInto(std::span<const float> values, TensorScan& scan);

} // namespace mantissa::telemetry
