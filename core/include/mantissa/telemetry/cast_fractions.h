// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// What casting an FP32 tensor to a narrower format would do to it, and how
// many weight updates the working precision swallows.
//
// Cast rule (round to nearest, ties to even, the numeric core's rules):
//   fp16      numeric::f32ToF16 / codec encode: gradual underflow, overflow -> inf
//   bf16      numeric::f32ToBf16 (what the trainer stores): FP32 subnormal
//             inputs are treated as zero (DAZ), so no BF16 subnormal ever
//             results; overflow -> inf
//   fp8-e4m3  codec encode (OCP E4M3FN): gradual underflow; no inf, values that
//             round past 448 overflow (NaN, or 448 when saturating)
//   fp8-e5m2  codec encode: gradual underflow, overflow -> inf
// Because rounding is monotone, each outcome is a range of |x|, so the counts
// are exact comparisons against three thresholds per format (castThresholds).

#include <mantissa/numeric/format.h>
#include <mantissa/tensor/dtype.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace mantissa::telemetry {

enum class CastTarget : std::uint8_t { Fp16, Bf16, Fp8E4M3, Fp8E5M2 };
inline constexpr int kCastTargetCount = 4;
inline constexpr std::array<CastTarget, kCastTargetCount> kCastTargets{
    CastTarget::Fp16, CastTarget::Bf16, CastTarget::Fp8E4M3, CastTarget::Fp8E5M2};

numeric::FormatId formatIdOf(CastTarget target);
std::string_view castTargetName(CastTarget target); // "fp16", "bf16", "fp8-e4m3", "fp8-e5m2"

// The rule as FP32 bit patterns of |x| (exact; bit order = value order for |x|):
//   becomes zero       iff bits(|x|) <  zeroBelow
//   becomes subnormal  iff zeroBelow <= bits(|x|) < normalBelow
//   overflows          iff overflowFrom <= bits(|x|) (inf inputs included; NaN excluded)
struct CastThresholds {
  std::uint32_t zeroBelow;
  std::uint32_t normalBelow;
  std::uint32_t overflowFrom;
};
CastThresholds castThresholds(CastTarget target);
// Any other format, by the same rule as fp16 and the fp8 formats (nearest,
// ties to even; without subnormals, |x| up to half the min normal becomes
// zero and the rest of the range below it the min normal). castFormatError
// says why a format cannot be a cast target ("" when it can): it needs a sign
// bit, at most 16 bits, and its min subnormal / 2 and max finite + half an
// ULP inside FP32's range, so that the thresholds are exact FP32 values.
CastThresholds castThresholds(const numeric::FloatFormat& format);
std::string castFormatError(const numeric::FloatFormat& format);

// Exact integer counts behind CastFractions.
struct CastCounts {
  std::uint64_t total = 0;       // every value, specials included
  std::uint64_t zeros = 0;       // exact zeros in the input
  std::uint64_t nan = 0;         // NaN inputs (stay NaN, in no other count)
  std::uint64_t toZero = 0;      // results that are zero (exact zeros included)
  std::uint64_t toSubnormal = 0; // non-zero subnormal results
  std::uint64_t overflow =
      0; // results past max finite (inf, NaN or saturated); inf inputs included
  std::uint64_t lostToZero() const { return toZero - zeros; }   // non-zero inputs that became zero
  std::uint64_t nonZero() const { return total - zeros - nan; } // non-zero, non-NaN inputs
  bool operator==(const CastCounts&) const = default;
};

struct CastFractions {
  double toZero = 0.0;            // toZero / total
  double toSubnormal = 0.0;       // toSubnormal / total
  double overflow = 0.0;          // overflow / total
  double nonzeroLostToZero = 0.0; // lostToZero / nonZero (0 when there are no non-zero inputs)
  bool operator==(const CastFractions&) const = default;
};

CastFractions toFractions(const CastCounts& counts);

// Counts and fractions for each CastTarget (indexed as kCastTargets), of the
// values multiplied by `scale` in FP32 first (x * scale, one FP32 rounding).
std::array<CastCounts, kCastTargetCount> castCounts(std::span<const float> values,
                                                    float scale = 1.0f);
std::array<CastFractions, kCastTargetCount> castFractions(std::span<const float> values,
                                                          float scale = 1.0f);

// Update swamping in the working precision. For each pair (w, u) with u a
// non-zero finite update and w finite: w is first rounded to `working` (a
// no-op when the trainer passes its stored weights), then the exact sum w + u
// is rounded once to `working` (nearest, ties to even, gradual underflow).
// The update is swamped when that result equals w: |u| below half the gap to
// w's neighbour in u's direction, or exactly half with w's last mantissa bit
// even. Returns swamped / (non-zero finite updates with finite w); 0 if none.
// Throws std::invalid_argument when the spans differ in size.
struct SwampCounts {
  std::uint64_t eligible = 0; // pairs with finite w and non-zero finite u
  std::uint64_t swamped = 0;
};
SwampCounts swampCounts(std::span<const float> weights, std::span<const float> updates,
                        DType working);
double swampedFraction(std::span<const float> weights, std::span<const float> updates,
                       DType working);

} // namespace mantissa::telemetry
