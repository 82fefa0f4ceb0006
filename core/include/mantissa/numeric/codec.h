// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Encode values into any FloatFormat with a chosen rounding rule, and decode
// any bit pattern into its fields and exact value. This is the general,
// exact (not fast) path used by the explorer, the CLI and as the tests'
// oracle for the fast conversions in convert.h.

#include <mantissa/numeric/exact_value.h>
#include <mantissa/numeric/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mantissa::numeric {

enum class Rounding : std::uint8_t { NearestEven, TowardZero, Up, Down, Stochastic };
enum class OverflowMode : std::uint8_t { Infinity, Saturate };

struct EncodeOptions {
  Rounding rounding = Rounding::NearestEven;
  // Infinity: values past max finite round to inf as IEEE 754 says (per
  // rounding mode); formats without inf (E4M3, E8M0) then give NaN, formats
  // without NaN either (FP6, FP4, INT8) always saturate, as OCP MX says.
  // E8M0 has no zero: values below 2^-127 (and zero) give 2^-127, flagged
  // underflowed. INT8 (MXINT8) rounds to a multiple of 2^-6 in [-2, 127/64].
  // Saturate: clamp to +-max finite (infinities too, as OCP FP8 saturating mode).
  OverflowMode overflow = OverflowMode::Infinity;
  // FTZ on output and DAZ on input: any value whose magnitude is below the
  // format's min normal (tininess before rounding, as x86) becomes a signed zero.
  bool flushSubnormals = false;
  // Uniform bits for Rounding::Stochastic: rounds away from the truncated
  // value iff random < f x 2^32, f the fraction of the gap discarded, so the
  // probability of rounding up equals f (to 2^-32).
  std::uint32_t random = 0;
};

struct EncodeResult {
  std::uint64_t bits = 0;
  bool inexact = false;
  bool overflowed = false;  // rounded (with unbounded exponent) past max finite, or
                            // an infinity that became NaN (E4M3FN) or max (Saturate)
  bool underflowed = false; // non-zero value became zero
  bool flushed = false;     // |value| < min normal flushed to zero by FTZ/DAZ
  // The value has no encoding at all: NaN into a format without NaN (FP6,
  // FP4, INT8), which gives +0, or a negative value into E8M0, which gives NaN.
  bool invalid = false;
};

// Rounds the exact value `value` into `format`: exactly one rounding step,
// whatever the input's precision (no double rounding through double).
EncodeResult encode(const FloatFormat& format, const ExactValue& value, const EncodeOptions& options = {});
EncodeResult encode(const FloatFormat& format, double value, const EncodeOptions& options = {});

struct Decoded {
  bool negative = false;
  std::uint32_t biasedExponent = 0;
  int unbiasedExponent = 0; // 1 - bias for subnormals and zero
  std::uint64_t mantissa = 0;
  int implicitBit = 0;      // 1 for normals, 0 for zero/subnormal
  FloatClass cls = FloatClass::Zero;
  double value = 0.0;       // exact: every format here fits in a double
  std::string exactDecimal; // every digit: "0.100000001490116119384765625"
  std::string formula;      // "(-1)^0 x 1.1001100110011001100110 1 x 2^-4"-style
};

Decoded decode(const FloatFormat& format, std::uint64_t bits);
// Exact for every finite pattern (all formats here fit in a double); a NaN
// keeps its sign and payload (moved to the top, quiet bit set), as x86's
// widening conversions do.
double toDouble(const FloatFormat& format, std::uint64_t bits);
FloatClass classify(const FloatFormat& format, std::uint64_t bits);

// Neighbours in the format's own order, as IEEE 754 nextUp/nextDown:
// ... -min subnormal -> -0 -> +min subnormal ... (+0 is skipped going up from
// -0, as -0 == +0); max finite -> +inf -> +inf; E4M3FN stops at max finite;
// NaN stays NaN.
std::uint64_t nextUp(const FloatFormat& format, std::uint64_t bits);
std::uint64_t nextDown(const FloatFormat& format, std::uint64_t bits);

// ULP(x): the spacing of the format in x's binade, 2^(max(e, emin) - mantissaBits)
// (for max finite too: the gap it would have to a next value); inf/NaN -> NaN.
double ulp(const FloatFormat& format, std::uint64_t bits);

// How far the stored `bits` are from the exact `input`: |stored - input| as
// an exact decimal and as the nearest double, and relative to |input|.
// Stored inf or NaN for a finite input: inf / NaN errors; input inf stored
// as inf: 0; input NaN: NaN. A zero input that is stored as zero: 0.
struct RoundingError {
  ExactValue absolute;     // exact when both are finite
  double absoluteApprox;   // nearest double of `absolute` (or inf/NaN)
  double relative;         // absoluteApprox / |input|
};
RoundingError roundingError(const FloatFormat& format, std::uint64_t bits, const ExactValue& input);

// Rounding-mode names as the CLI spells them: "nearest-even", "toward-zero",
// "up", "down", "stochastic"; nullopt if unknown.
std::optional<Rounding> parseRoundingName(std::string_view name);
std::string_view roundingName(Rounding rounding);

// Zero-padded, 0x-prefixed hex of the format's width ("0x3dcccccd", "0x2e66").
std::string formatBitsHex(const FloatFormat& format, std::uint64_t bits);

} // namespace mantissa::numeric
