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

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace mantissa::numeric {

enum class FormatId : std::uint8_t { Fp64, Fp32, Tf32, Fp16, Bf16, Fp8E4M3, Fp8E5M2 };

enum class NanEncoding : std::uint8_t {
  Ieee,        // exponent all ones, mantissa non-zero; has infinities
  AllOnesOnly, // only exponent and mantissa all ones (E4M3FN); no infinities
};

enum class FloatClass : std::uint8_t { Zero, Subnormal, Normal, Infinity, NaN };

struct FloatFormat {
  FormatId id;
  std::string_view name;        // "fp32", "fp8-e4m3", ... (the CLI's spelling)
  std::string_view displayName; // "FP32", "FP8 E4M3", ...
  int exponentBits;
  int mantissaBits; // stored fraction bits, without the implicit bit
  NanEncoding nan;

  constexpr int totalBits() const { return 1 + exponentBits + mantissaBits; }
  constexpr int bias() const { return (1 << (exponentBits - 1)) - 1; }
  constexpr bool hasInfinity() const { return nan == NanEncoding::Ieee; }
  constexpr int minNormalExponent() const { return 1 - bias(); }
  int maxFiniteExponent() const; // unbiased exponent of maxFinite()

  double maxFinite() const;    // 65504 for fp16, 448 for fp8-e4m3, 57344 for fp8-e5m2
  double minNormal() const;    // 2^(1-bias)
  double minSubnormal() const; // 2^(1-bias-mantissaBits)
  double epsilon() const;      // 2^-mantissaBits: the gap between 1 and the next value

  std::uint64_t signMask() const;
  std::uint64_t maxFiniteBits() const; // positive max finite
  std::uint64_t infinityBits() const;  // positive infinity; 0 if none
  std::uint64_t quietNanBits() const;  // positive canonical quiet NaN
};

const FloatFormat& formatInfo(FormatId id);

// The explorer's formats, widest first: fp32, tf32, fp16, bf16, fp8-e4m3, fp8-e5m2.
std::span<const FormatId> explorerFormats();

// "fp32", "FP32", "bf16", "fp8-e4m3" (also "e4m3"), ... ; nullopt if unknown.
std::optional<FormatId> parseFormatName(std::string_view name);

} // namespace mantissa::numeric
