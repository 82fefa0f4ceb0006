// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/numeric/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <string>

namespace mantissa::numeric {
namespace {

// Indexed by FormatId. Widths from IEEE 754-2019 (binary64/32/16), Google's
// bfloat16, NVIDIA's TF32 (FP32 range, FP16 precision) and the OCP 8-bit
// floating point specification (E4M3 "fn": no inf, max 448; E5M2 IEEE-like).
constexpr std::array kFormats{
    FloatFormat{FormatId::Fp64, "fp64", "FP64", 11, 52, NanEncoding::Ieee},
    FloatFormat{FormatId::Fp32, "fp32", "FP32", 8, 23, NanEncoding::Ieee},
    FloatFormat{FormatId::Tf32, "tf32", "TF32", 8, 10, NanEncoding::Ieee},
    FloatFormat{FormatId::Fp16, "fp16", "FP16", 5, 10, NanEncoding::Ieee},
    FloatFormat{FormatId::Bf16, "bf16", "BF16", 8, 7, NanEncoding::Ieee},
    FloatFormat{FormatId::Fp8E4M3, "fp8-e4m3", "FP8 E4M3", 4, 3, NanEncoding::AllOnesOnly},
    FloatFormat{FormatId::Fp8E5M2, "fp8-e5m2", "FP8 E5M2", 5, 2, NanEncoding::Ieee},
    // OCP Microscaling Formats (MX) v1.0, section 5.
    FloatFormat{FormatId::Fp6E2M3, "fp6-e2m3", "FP6 E2M3", 2, 3, NanEncoding::None},
    FloatFormat{FormatId::Fp6E3M2, "fp6-e3m2", "FP6 E3M2", 3, 2, NanEncoding::None},
    FloatFormat{FormatId::Fp4E2M1, "fp4-e2m1", "FP4 E2M1", 2, 1, NanEncoding::None},
    FloatFormat{FormatId::E8M0, "e8m0", "E8M0 scale", 8, 0, NanEncoding::AllOnesOnly,
                Layout::UnsignedExponent},
    FloatFormat{FormatId::Int8, "int8", "INT8 (MX)", 0, 6, NanEncoding::None, Layout::TwosComplement},
};

constexpr std::array kExplorerFormats{FormatId::Fp32, FormatId::Tf32,    FormatId::Fp16,
                                      FormatId::Bf16, FormatId::Fp8E4M3, FormatId::Fp8E5M2};

constexpr std::array kMicroscalingFormats{FormatId::Fp6E2M3, FormatId::Fp6E3M2, FormatId::Fp4E2M1,
                                          FormatId::E8M0, FormatId::Int8};

// kFormats is indexed by FormatId.
static_assert([] {
  for (std::size_t i = 0; i < kFormats.size(); ++i)
    if (static_cast<std::size_t>(kFormats[i].id) != i)
      return false;
  return true;
}());

std::uint64_t lowMask(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

} // namespace

int FloatFormat::maxFiniteExponent() const {
  if (layout == Layout::UnsignedExponent)
    return (1 << exponentBits) - 2 - bias(); // 0xFE: 2^127
  if (layout == Layout::TwosComplement)
    return 0; // 127/64 = 1.984375 x 2^0
  if (nan == NanEncoding::None)
    return (1 << exponentBits) - 1 - bias(); // every exponent holds normals
  // Ieee: the all-ones exponent is reserved, so the largest is 2^eb - 2.
  // AllOnesOnly (E4M3FN): the all-ones exponent still holds normals.
  const int maxBiased = nan == NanEncoding::Ieee ? (1 << exponentBits) - 2 : (1 << exponentBits) - 1;
  return maxBiased - bias();
}

double FloatFormat::maxFinite() const {
  if (layout == Layout::UnsignedExponent)
    return std::ldexp(1.0, maxFiniteExponent());
  if (layout == Layout::TwosComplement)
    return std::ldexp(static_cast<double>(maxFiniteBits()), -mantissaBits);
  // Largest significand: all ones (Ieee) or all ones but the last bit (E4M3FN).
  const double top = static_cast<double>(maxFiniteBits() & lowMask(mantissaBits));
  return std::ldexp(1.0 + top / std::ldexp(1.0, mantissaBits), maxFiniteExponent());
}

double FloatFormat::minNormal() const { return std::ldexp(1.0, minNormalExponent()); }

double FloatFormat::minSubnormal() const {
  if (layout != Layout::SignExponentMantissa)
    return minNormal(); // no subnormals: the smallest positive value
  return std::ldexp(1.0, minNormalExponent() - mantissaBits);
}

double FloatFormat::epsilon() const { return std::ldexp(1.0, -mantissaBits); }

std::uint64_t FloatFormat::signMask() const {
  return hasSign() ? 1ull << (totalBits() - 1) : 0;
}

std::uint64_t FloatFormat::maxFiniteBits() const {
  if (layout == Layout::UnsignedExponent)
    return lowMask(exponentBits) - 1; // 0xFE
  if (layout == Layout::TwosComplement)
    return lowMask(totalBits() - 1); // 0x7F
  if (nan == NanEncoding::None)
    return lowMask(exponentBits + mantissaBits);
  const std::uint64_t biased = static_cast<std::uint64_t>(maxFiniteExponent() + bias());
  const std::uint64_t mant =
      nan == NanEncoding::Ieee ? lowMask(mantissaBits) : lowMask(mantissaBits) - 1;
  return (biased << mantissaBits) | mant;
}

std::uint64_t FloatFormat::infinityBits() const {
  return hasInfinity() ? lowMask(exponentBits) << mantissaBits : 0;
}

std::uint64_t FloatFormat::quietNanBits() const {
  if (nan == NanEncoding::None)
    return 0;
  if (layout == Layout::UnsignedExponent)
    return lowMask(exponentBits); // 0xFF
  if (nan == NanEncoding::AllOnesOnly)
    return lowMask(exponentBits + mantissaBits);
  return (lowMask(exponentBits) << mantissaBits) | (1ull << (mantissaBits - 1));
}

const FloatFormat& formatInfo(FormatId id) { return kFormats[static_cast<std::size_t>(id)]; }

std::span<const FormatId> explorerFormats() { return kExplorerFormats; }

std::span<const FormatId> microscalingFormats() { return kMicroscalingFormats; }

std::optional<FormatId> parseFormatName(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::replace(lower.begin(), lower.end(), '_', '-');
  struct Alias {
    std::string_view name;
    FormatId id;
  };
  static constexpr std::array kAliases{
      Alias{"fp64", FormatId::Fp64},        Alias{"float64", FormatId::Fp64},
      Alias{"double", FormatId::Fp64},      Alias{"fp32", FormatId::Fp32},
      Alias{"float32", FormatId::Fp32},     Alias{"float", FormatId::Fp32},
      Alias{"tf32", FormatId::Tf32},        Alias{"fp16", FormatId::Fp16},
      Alias{"float16", FormatId::Fp16},     Alias{"half", FormatId::Fp16},
      Alias{"bf16", FormatId::Bf16},        Alias{"bfloat16", FormatId::Bf16},
      Alias{"fp8-e4m3", FormatId::Fp8E4M3}, Alias{"e4m3", FormatId::Fp8E4M3},
      Alias{"fp8-e4m3fn", FormatId::Fp8E4M3}, Alias{"e4m3fn", FormatId::Fp8E4M3},
      Alias{"fp8-e5m2", FormatId::Fp8E5M2}, Alias{"e5m2", FormatId::Fp8E5M2},
      Alias{"fp6-e2m3", FormatId::Fp6E2M3}, Alias{"e2m3", FormatId::Fp6E2M3},
      Alias{"fp6-e3m2", FormatId::Fp6E3M2}, Alias{"e3m2", FormatId::Fp6E3M2},
      Alias{"fp4-e2m1", FormatId::Fp4E2M1}, Alias{"e2m1", FormatId::Fp4E2M1},
      Alias{"fp4", FormatId::Fp4E2M1},      Alias{"e8m0", FormatId::E8M0},
      Alias{"int8", FormatId::Int8},        Alias{"mxint8", FormatId::Int8},
  };
  for (const auto& alias : kAliases)
    if (alias.name == lower)
      return alias.id;
  return std::nullopt;
}

} // namespace mantissa::numeric
