// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Binary floating-point formats as data: sign, widths, bias, special values,
// subnormals. A format is one FloatFormat value; the named ones (fp32, bf16,
// fp8-e4m3fnuz, ...) are entries of a table, and any other is built from a
// spec string or a JSON object (format_spec.h).
//
// A sign/exponent/mantissa format stores (-1)^s x 1.m x 2^(e - bias) for
// normal numbers and (-1)^s x 0.m x 2^(1 - bias) for subnormals. The bias is
// any integer (by default 2^(eb-1) - 1). What the all-ones exponent holds is
// the special-value rule (NanEncoding, spelt as in spec strings):
//   Ieee   (ieee): exponent all ones = inf (mantissa 0) or NaN (mantissa != 0)
//   AllOnesOnly (fn, OCP "E4M3FN"): no infinities; only S.1111.111 is NaN, so
//            the all-ones exponent holds normal values up to 448.
//   Fnuz   (fnuz, AMD/Graphcore "E4M3FNUZ", "E5M2FNUZ"): no infinities and no
//            negative zero; the pattern of -0 (sign set, all else zero, 0x80)
//            is the single NaN. Every other pattern is a number.
//   None   (none, OCP MX FP6 E2M3/E3M2, FP4 E2M1): no infinities and no NaN;
//            every pattern is a number, and conversion saturates at max normal.
// A format without subnormals (subnormals=no) reads the exponent field 0 as
// zero whatever the mantissa (its smallest positive value is 2^(1 - bias)),
// and rounds values below that to 0 or 2^(1 - bias). A format without a sign
// bit (ue4m3) has only +0 and positive numbers; negative values have no
// encoding. Saturation or overflow to inf is the conversion's choice
// (codec.h's OverflowMode), not the format's.
//
// Two layouts are not sign/exponent/mantissa:
//   E8M0 / UE8M0 (Layout::UnsignedExponent): OCP MX's shared block scale, 8
//            exponent bits, no sign, no mantissa, bias 127: code c is
//            2^(c - 127) for c = 0..254 (so there is no zero), 0xFF is NaN.
//   INT8, INT4 (Layout::TwosComplement): MX-style integer elements, a
//            two's-complement integer i with an implicit scale 2^-(bits - 2):
//            INT8 (MXINT8) is i / 64 in -2 .. 127/64, INT4 is i / 4 in
//            -2 .. 7/4, so that both share the MX scale rule.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace mantissa::numeric {

enum class FormatId : std::uint8_t {
  Fp64, Fp32, Tf32, Fp16, Bf16, Fp8E4M3, Fp8E5M2,
  Fp6E2M3, Fp6E3M2, Fp4E2M1, E8M0, Int8, // OCP MX v1.0 element and scale formats
  Fp8E4M3Fnuz, Fp8E5M2Fnuz, Fp8E4M3B11Fnuz, // AMD MI300 / Graphcore FNUZ formats
  Fp8E3M4,                                  // ml_dtypes float8_e3m4 (bias 3, IEEE rule)
  Ue4m3,                                    // unsigned E4M3: NVFP4's block scale
  Int4,                                     // MX-style INT4 element
  Custom, // a format built from a spec string or JSON: no table entry
};

enum class NanEncoding : std::uint8_t {
  Ieee,        // "ieee": exponent all ones, mantissa non-zero; has infinities
  AllOnesOnly, // "fn": only exponent and mantissa all ones (E4M3FN, E8M0); no infinities
  None,        // "none": no infinities, no NaN (FP6, FP4, INT8)
  Fnuz,        // "fnuz": no infinities, no -0; the -0 pattern is the one NaN
};

enum class Layout : std::uint8_t {
  SignExponentMantissa, // every IEEE-like format
  UnsignedExponent,     // E8M0: exponent bits only
  TwosComplement,       // INT8 with a fixed exponent: value = int x 2^-mantissaBits
};

enum class FloatClass : std::uint8_t { Zero, Subnormal, Normal, Infinity, NaN };

struct FloatFormat {
  static constexpr int kDefaultBias = -0x7fffffff; // bias() is 2^(exponentBits-1) - 1

  FormatId id;
  std::string name;        // "fp32", "fp8-e4m3", ... (the CLI's spelling); a spec for Custom
  std::string displayName; // "FP32", "FP8 E4M3", ...
  int exponentBits;
  int mantissaBits; // stored fraction bits, without the implicit bit
  NanEncoding nan;
  Layout layout = Layout::SignExponentMantissa;
  int exponentBias = kDefaultBias; // any integer; kDefaultBias: 2^(exponentBits-1) - 1
  bool subnormals = true;          // false: the exponent field 0 is zero (see above)
  bool signBit = true;             // false: unsigned (ue4m3); E8M0 is unsigned by layout

  constexpr bool hasSign() const { return layout != Layout::UnsignedExponent && signBit; }
  constexpr int totalBits() const {
    switch (layout) {
    case Layout::UnsignedExponent: return exponentBits;
    case Layout::TwosComplement: return 1 + 1 + mantissaBits; // sign, integer bit, fraction
    case Layout::SignExponentMantissa: break;
    }
    return (signBit ? 1 : 0) + exponentBits + mantissaBits;
  }
  constexpr int bias() const {
    if (exponentBias != kDefaultBias)
      return exponentBias;
    return exponentBits > 0 ? (1 << (exponentBits - 1)) - 1 : 0;
  }
  constexpr bool hasInfinity() const { return nan == NanEncoding::Ieee; }
  constexpr bool hasNan() const { return nan != NanEncoding::None; }
  constexpr bool hasNegativeZero() const { return hasSign() && nan != NanEncoding::Fnuz; }
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

  // 65504 for fp16, 448 for fp8-e4m3, 57344 for fp8-e5m2, 240 for
  // fp8-e4m3fnuz, 7.5 / 28 / 6 for fp6-e2m3 / fp6-e3m2 / fp4-e2m1, 2^127 for
  // e8m0, 127/64 for int8.
  double maxFinite() const;
  double minNormal() const;    // 2^(1-bias); e8m0 2^-127; int8 2^-6
  double minSubnormal() const; // 2^(1-bias-mantissaBits), or min normal without subnormals
  double epsilon() const;      // 2^-mantissaBits: the gap between 1 and the next value

  std::uint64_t signMask() const;      // 0 for e8m0 and ue4m3 (no sign)
  std::uint64_t maxFiniteBits() const; // positive max finite
  std::uint64_t minPositiveBits() const; // smallest positive value (subnormal or normal)
  std::uint64_t infinityBits() const;  // positive infinity; 0 if none
  std::uint64_t quietNanBits() const;  // positive canonical quiet NaN (fnuz: 0x80); 0 if none

  // The spec string that rebuilds this format, every field spelt out:
  // "e4m3:bias=8,special=fnuz,subnormals=yes"; "ue4m3:bias=7,special=fn,...";
  // E8M0 and the integer layouts answer with their names.
  std::string spec() const;
  // Same widths, bias, rule, subnormals, sign and layout (names and id aside).
  bool sameEncoding(const FloatFormat& other) const;
};

// Spec strings name the special rules "ieee", "fn", "fnuz" and "none".
std::string_view specialRuleName(NanEncoding rule);

// The table entry of a named format. FormatId::Custom has no entry: it
// throws std::invalid_argument (a custom format travels as a FloatFormat).
const FloatFormat& formatInfo(FormatId id);

// Every named format, in FormatId order (FormatId::Custom excluded).
std::span<const FormatId> namedFormats();

// The explorer's formats, widest first: fp32, tf32, fp16, bf16, fp8-e4m3, fp8-e5m2.
std::span<const FormatId> explorerFormats();

// The OCP MX v1.0 formats below 8-bit floats: fp6-e2m3, fp6-e3m2, fp4-e2m1
// (elements), e8m0 (the shared scale) and int8 (MXINT8's element).
std::span<const FormatId> microscalingFormats();

// "fp32", "FP32", "bf16", "fp8-e4m3" (also "e4m3"), "fp4-e2m1" (also "e2m1",
// "fp4"), "e8m0" (also "ue8m0"), "int8", "fp8-e4m3fnuz" (also "e4m3fnuz"),
// "fp8-e5m2fnuz", "fp8-e4m3b11fnuz", "fp8-e3m4" (also "e3m4"), "ue4m3",
// "int4", ... ; nullopt if unknown. Spec strings: format_spec.h.
std::optional<FormatId> parseFormatName(std::string_view name);

} // namespace mantissa::numeric
