// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Binary floating-point formats as data: widths, bias, infinities, NaN rule.
//
// Every format here is "IEEE-like": value = (-1)^s x 1.m x 2^(e - bias) for
// normal numbers, (-1)^s x 0.m x 2^(1 - bias) for subnormals. They differ in
// widths and in how the all-ones exponent is used:
//   Ieee   : exponent all ones = inf (mantissa 0) or NaN (mantissa != 0)
//   AllOnesOnly (OCP "E4M3FN"): no infinities; only S.1111.111 is NaN, so
//            the all-ones exponent holds normal values up to 448.
//   None   (OCP MX FP6 E2M3/E3M2, FP4 E2M1): no infinities and no NaN; every
//            pattern is a number, and conversion saturates at max normal.
//
// Two OCP Microscaling (MX v1.0) formats are not sign/exponent/mantissa:
//   E8M0 (Layout::UnsignedExponent): the shared block scale, 8 exponent bits,
//            no sign, no mantissa, bias 127: code c is 2^(c - 127) for
//            c = 0..254 (so there is no zero and no subnormal), 0xFF is NaN.
//   INT8 (Layout::TwosComplement): MXINT8's element, a two's-complement byte
//            i with an implicit scale 2^-6: value i / 64, -2 .. 127/64.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace mantissa::numeric {

enum class FormatId : std::uint8_t {
  Fp64, Fp32, Tf32, Fp16, Bf16, Fp8E4M3, Fp8E5M2,
  Fp6E2M3, Fp6E3M2, Fp4E2M1, E8M0, Int8, // OCP MX v1.0 element and scale formats
};

enum class NanEncoding : std::uint8_t {
  Ieee,        // exponent all ones, mantissa non-zero; has infinities
  AllOnesOnly, // only exponent and mantissa all ones (E4M3FN, E8M0); no infinities
  None,        // no infinities, no NaN (FP6, FP4, INT8)
};

enum class Layout : std::uint8_t {
  SignExponentMantissa, // every IEEE-like format
  UnsignedExponent,     // E8M0: exponent bits only
  TwosComplement,       // INT8 with a fixed exponent: value = int x 2^-mantissaBits
};

enum class FloatClass : std::uint8_t { Zero, Subnormal, Normal, Infinity, NaN };

struct FloatFormat {
  FormatId id;
  std::string_view name;        // "fp32", "fp8-e4m3", ... (the CLI's spelling)
  std::string_view displayName; // "FP32", "FP8 E4M3", ...
  int exponentBits;
  int mantissaBits; // stored fraction bits, without the implicit bit
  NanEncoding nan;
  Layout layout = Layout::SignExponentMantissa;

  constexpr int totalBits() const {
    switch (layout) {
    case Layout::UnsignedExponent: return exponentBits;
    case Layout::TwosComplement: return 1 + 1 + mantissaBits; // sign, integer bit, fraction
    case Layout::SignExponentMantissa: break;
    }
    return 1 + exponentBits + mantissaBits;
  }
  constexpr int bias() const { return exponentBits > 0 ? (1 << (exponentBits - 1)) - 1 : 0; }
  constexpr bool hasInfinity() const { return nan == NanEncoding::Ieee; }
  constexpr bool hasNan() const { return nan != NanEncoding::None; }
  constexpr bool hasSign() const { return layout != Layout::UnsignedExponent; }
  // Unbiased exponent of the smallest normal: E8M0's code 0 is 2^-127 (no
  // zero, no subnormals); INT8's one exponent is -mantissaBits.
  constexpr int minNormalExponent() const {
    switch (layout) {
    case Layout::UnsignedExponent: return -bias();
    case Layout::TwosComplement: return -mantissaBits;
    case Layout::SignExponentMantissa: break;
    }
    return 1 - bias();
  }
  int maxFiniteExponent() const; // unbiased exponent of maxFinite()

  // 65504 for fp16, 448 for fp8-e4m3, 57344 for fp8-e5m2, 7.5 / 28 / 6 for
  // fp6-e2m3 / fp6-e3m2 / fp4-e2m1, 2^127 for e8m0, 127/64 for int8.
  double maxFinite() const;
  double minNormal() const;    // 2^(1-bias); e8m0 2^-127; int8 2^-6
  double minSubnormal() const; // 2^(1-bias-mantissaBits); e8m0 2^-127; int8 2^-6
  double epsilon() const;      // 2^-mantissaBits: the gap between 1 and the next value

  std::uint64_t signMask() const;      // 0 for e8m0 (no sign)
  std::uint64_t maxFiniteBits() const; // positive max finite
  std::uint64_t infinityBits() const;  // positive infinity; 0 if none
  std::uint64_t quietNanBits() const;  // positive canonical quiet NaN; 0 if none
};

const FloatFormat& formatInfo(FormatId id);

// The explorer's formats, widest first: fp32, tf32, fp16, bf16, fp8-e4m3, fp8-e5m2.
std::span<const FormatId> explorerFormats();

// The OCP MX v1.0 formats below 8-bit floats: fp6-e2m3, fp6-e3m2, fp4-e2m1
// (elements), e8m0 (the shared scale) and int8 (MXINT8's element).
std::span<const FormatId> microscalingFormats();

// "fp32", "FP32", "bf16", "fp8-e4m3" (also "e4m3"), "fp4-e2m1" (also "e2m1",
// "fp4"), "e8m0", "int8", ... ; nullopt if unknown.
std::optional<FormatId> parseFormatName(std::string_view name);

} // namespace mantissa::numeric
