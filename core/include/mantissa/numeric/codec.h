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
#include <string>

namespace mantissa::numeric {

enum class Rounding : std::uint8_t { NearestEven, TowardZero, Up, Down, Stochastic };
enum class OverflowMode : std::uint8_t { Infinity, Saturate };

struct EncodeOptions {
  Rounding rounding = Rounding::NearestEven;
  // Infinity: values past max finite round to inf as IEEE 754 says (per
  // rounding mode); formats without inf (E4M3) then give NaN.
  // Saturate: clamp to +-max finite.
  OverflowMode overflow = OverflowMode::Infinity;
  bool flushSubnormals = false; // FTZ on output and DAZ on input
  std::uint32_t random = 0;     // uniform bits for Rounding::Stochastic
};

struct EncodeResult {
  std::uint64_t bits = 0;
  bool inexact = false;
  bool overflowed = false;  // |value| > max finite (became inf, NaN or saturated)
  bool underflowed = false; // non-zero value became zero
  bool flushed = false;     // subnormal input or output flushed by FTZ/DAZ
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
double toDouble(const FloatFormat& format, std::uint64_t bits);
FloatClass classify(const FloatFormat& format, std::uint64_t bits);

// Neighbours in the format's own order (through signed zeros, up to +-inf or
// max finite, NaN stays NaN).
std::uint64_t nextUp(const FloatFormat& format, std::uint64_t bits);
std::uint64_t nextDown(const FloatFormat& format, std::uint64_t bits);

// Distance from |x| to the next value of larger magnitude (ULP(x)); inf/NaN -> NaN.
double ulp(const FloatFormat& format, std::uint64_t bits);

// Zero-padded, 0x-prefixed hex of the format's width ("0x3dcccccd", "0x2e66").
std::string formatBitsHex(const FloatFormat& format, std::uint64_t bits);

} // namespace mantissa::numeric
