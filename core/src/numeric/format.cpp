// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/numeric/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace mantissa::numeric {
namespace {

// Indexed by FormatId. Widths from IEEE 754-2019 (binary64/32/16), Google's
// bfloat16, NVIDIA's TF32 (FP32 range, FP16 precision), the OCP 8-bit
// floating point specification (E4M3 "fn": no inf, max 448; E5M2 IEEE-like),
// the OCP MX v1.0 formats, and the FNUZ formats as AMD (MI300) and Graphcore
// define them and ml_dtypes implements them: E4M3FNUZ bias 8 (max 240, min
// subnormal 2^-10), E5M2FNUZ bias 16 (max 57344, min subnormal 2^-17),
// E4M3B11FNUZ bias 11 (max 30, min subnormal 2^-13); ml_dtypes' E3M4 (bias 3,
// IEEE rule, max 15.5); UE4M3, NVFP4's scale (E4M3 without its sign bit).
const std::vector<FloatFormat>& table() {
  using N = NanEncoding;
  static const std::vector<FloatFormat> formats{
      FloatFormat{FormatId::Fp64, "fp64", "FP64", 11, 52, N::Ieee},
      FloatFormat{FormatId::Fp32, "fp32", "FP32", 8, 23, N::Ieee},
      FloatFormat{FormatId::Tf32, "tf32", "TF32", 8, 10, N::Ieee},
      FloatFormat{FormatId::Fp16, "fp16", "FP16", 5, 10, N::Ieee},
      FloatFormat{FormatId::Bf16, "bf16", "BF16", 8, 7, N::Ieee},
      FloatFormat{FormatId::Fp8E4M3, "fp8-e4m3", "FP8 E4M3", 4, 3, N::AllOnesOnly},
      FloatFormat{FormatId::Fp8E5M2, "fp8-e5m2", "FP8 E5M2", 5, 2, N::Ieee},
      FloatFormat{FormatId::Fp6E2M3, "fp6-e2m3", "FP6 E2M3", 2, 3, N::None},
      FloatFormat{FormatId::Fp6E3M2, "fp6-e3m2", "FP6 E3M2", 3, 2, N::None},
      FloatFormat{FormatId::Fp4E2M1, "fp4-e2m1", "FP4 E2M1", 2, 1, N::None},
      FloatFormat{FormatId::E8M0, "e8m0", "E8M0 scale", 8, 0, N::AllOnesOnly, Layout::UnsignedExponent},
      FloatFormat{FormatId::Int8, "int8", "INT8 (MX)", 0, 6, N::None, Layout::TwosComplement},
      FloatFormat{FormatId::Fp8E4M3Fnuz, "fp8-e4m3fnuz", "FP8 E4M3FNUZ", 4, 3, N::Fnuz,
                  Layout::SignExponentMantissa, 8},
      FloatFormat{FormatId::Fp8E5M2Fnuz, "fp8-e5m2fnuz", "FP8 E5M2FNUZ", 5, 2, N::Fnuz,
                  Layout::SignExponentMantissa, 16},
      FloatFormat{FormatId::Fp8E4M3B11Fnuz, "fp8-e4m3b11fnuz", "FP8 E4M3B11FNUZ", 4, 3, N::Fnuz,
                  Layout::SignExponentMantissa, 11},
      FloatFormat{FormatId::Fp8E3M4, "fp8-e3m4", "FP8 E3M4", 3, 4, N::Ieee},
      FloatFormat{FormatId::Ue4m3, "ue4m3", "UE4M3 scale", 4, 3, N::AllOnesOnly,
                  Layout::SignExponentMantissa, FloatFormat::kDefaultBias, true, false},
      FloatFormat{FormatId::Int4, "int4", "INT4 (MX)", 0, 2, N::None, Layout::TwosComplement},
  };
  return formats;
}

constexpr std::array kNamedFormats{
    FormatId::Fp64,        FormatId::Fp32,        FormatId::Tf32,           FormatId::Fp16,
    FormatId::Bf16,        FormatId::Fp8E4M3,     FormatId::Fp8E5M2,        FormatId::Fp6E2M3,
    FormatId::Fp6E3M2,     FormatId::Fp4E2M1,     FormatId::E8M0,           FormatId::Int8,
    FormatId::Fp8E4M3Fnuz, FormatId::Fp8E5M2Fnuz, FormatId::Fp8E4M3B11Fnuz, FormatId::Fp8E3M4,
    FormatId::Ue4m3,       FormatId::Int4};
static_assert(kNamedFormats.size() == static_cast<std::size_t>(FormatId::Custom));

constexpr std::array kExplorerFormats{FormatId::Fp32, FormatId::Tf32,    FormatId::Fp16,
                                      FormatId::Bf16, FormatId::Fp8E4M3, FormatId::Fp8E5M2};

constexpr std::array kMicroscalingFormats{FormatId::Fp6E2M3, FormatId::Fp6E3M2, FormatId::Fp4E2M1,
                                          FormatId::E8M0, FormatId::Int8};

std::uint64_t lowMask(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

} // namespace

int FloatFormat::maxFiniteExponent() const {
  if (layout == Layout::UnsignedExponent)
    return (1 << exponentBits) - 2 - bias(); // 0xFE: 2^127
  if (layout == Layout::TwosComplement)
    return 0; // 127/64 = 1.984375 x 2^0
  const int biased = static_cast<int>(maxFiniteBits() >> mantissaBits);
  if (biased == 0) // only subnormals (no exponent bits): below 2^(1 - bias)
    return minNormalExponent() - 1;
  return biased - bias();
}

double FloatFormat::maxFinite() const {
  if (layout == Layout::UnsignedExponent)
    return std::ldexp(1.0, maxFiniteExponent());
  if (layout == Layout::TwosComplement)
    return std::ldexp(static_cast<double>(maxFiniteBits()), -mantissaBits);
  // Largest significand: all ones (Ieee, Fnuz, None) or all ones but the last bit (fn).
  const std::uint64_t bits = maxFiniteBits();
  const auto biased = static_cast<int>(bits >> mantissaBits);
  const auto field = static_cast<double>(bits & lowMask(mantissaBits));
  if (biased == 0)
    return std::ldexp(field, minNormalExponent() - mantissaBits);
  return std::ldexp(1.0 + field / std::ldexp(1.0, mantissaBits), biased - bias());
}

double FloatFormat::minNormal() const { return std::ldexp(1.0, minNormalExponent()); }

double FloatFormat::minSubnormal() const {
  if (layout != Layout::SignExponentMantissa || !subnormals || mantissaBits == 0)
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
  switch (nan) {
  case NanEncoding::Ieee: // the all-ones exponent is reserved
    return ((lowMask(exponentBits) - 1) << mantissaBits) | lowMask(mantissaBits);
  case NanEncoding::AllOnesOnly: // only the all-ones magnitude is NaN
    return lowMask(exponentBits + mantissaBits) - 1;
  case NanEncoding::Fnuz: // the NaN is the pattern of -0: every magnitude is a number
  case NanEncoding::None: break;
  }
  return lowMask(exponentBits + mantissaBits);
}

std::uint64_t FloatFormat::minPositiveBits() const {
  if (layout == Layout::UnsignedExponent)
    return 0; // 2^-127
  if (layout == Layout::TwosComplement || subnormals || exponentBits == 0)
    return 1;
  return 1ull << mantissaBits; // min normal
}

std::uint64_t FloatFormat::infinityBits() const {
  return hasInfinity() ? lowMask(exponentBits) << mantissaBits : 0;
}

std::uint64_t FloatFormat::quietNanBits() const {
  switch (nan) {
  case NanEncoding::None: return 0;
  case NanEncoding::Fnuz: return signMask();
  case NanEncoding::AllOnesOnly:
    if (layout == Layout::UnsignedExponent)
      return lowMask(exponentBits); // 0xFF
    return lowMask(exponentBits + mantissaBits);
  case NanEncoding::Ieee: break;
  }
  return (lowMask(exponentBits) << mantissaBits) | (1ull << (mantissaBits - 1));
}

std::string_view specialRuleName(NanEncoding rule) {
  switch (rule) {
  case NanEncoding::Ieee: return "ieee";
  case NanEncoding::AllOnesOnly: return "fn";
  case NanEncoding::Fnuz: return "fnuz";
  case NanEncoding::None: return "none";
  }
  return "ieee";
}

std::string FloatFormat::spec() const {
  if (layout != Layout::SignExponentMantissa)
    return name;
  std::string s = hasSign() ? "e" : "ue";
  s += std::to_string(exponentBits) + "m" + std::to_string(mantissaBits);
  s += ":bias=" + std::to_string(bias());
  s += ",special=" + std::string(specialRuleName(nan));
  s += subnormals ? ",subnormals=yes" : ",subnormals=no";
  return s;
}

bool FloatFormat::sameEncoding(const FloatFormat& o) const {
  return layout == o.layout && exponentBits == o.exponentBits && mantissaBits == o.mantissaBits &&
         nan == o.nan && bias() == o.bias() && subnormals == o.subnormals && hasSign() == o.hasSign();
}

const FloatFormat& formatInfo(FormatId id) {
  const auto& formats = table();
  const auto index = static_cast<std::size_t>(id);
  if (index >= formats.size())
    throw std::invalid_argument("formatInfo: a custom format has no table entry");
  return formats[index];
}

std::span<const FormatId> namedFormats() { return kNamedFormats; }

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
      Alias{"ue8m0", FormatId::E8M0},       Alias{"e8m0fnu", FormatId::E8M0},
      Alias{"fp8-e4m3fnuz", FormatId::Fp8E4M3Fnuz}, Alias{"e4m3fnuz", FormatId::Fp8E4M3Fnuz},
      Alias{"fp8-e5m2fnuz", FormatId::Fp8E5M2Fnuz}, Alias{"e5m2fnuz", FormatId::Fp8E5M2Fnuz},
      Alias{"fp8-e4m3b11fnuz", FormatId::Fp8E4M3B11Fnuz},
      Alias{"e4m3b11fnuz", FormatId::Fp8E4M3B11Fnuz},
      Alias{"fp8-e3m4", FormatId::Fp8E3M4}, Alias{"e3m4", FormatId::Fp8E3M4},
      Alias{"ue4m3", FormatId::Ue4m3},      Alias{"int4", FormatId::Int4},
  };
  for (const auto& alias : kAliases)
    if (alias.name == lower)
      return alias.id;
  return std::nullopt;
}

} // namespace mantissa::numeric
