// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/io/safetensors_format.h>

#include <array>
#include <string>

namespace mantissa::io {
namespace {

using numeric::FormatId;

struct Pair {
  SafetensorsDType dtype;
  FormatId format;
};

constexpr std::array kPairs{
    Pair{SafetensorsDType::F16, FormatId::Fp16},
    Pair{SafetensorsDType::BF16, FormatId::Bf16},
    Pair{SafetensorsDType::F32, FormatId::Fp32},
    Pair{SafetensorsDType::F64, FormatId::Fp64},
    Pair{SafetensorsDType::F8E4M3, FormatId::Fp8E4M3},
    Pair{SafetensorsDType::F8E5M2, FormatId::Fp8E5M2},
    Pair{SafetensorsDType::F8E8M0, FormatId::E8M0},
    Pair{SafetensorsDType::F8E4M3Fnuz, FormatId::Fp8E4M3Fnuz},
    Pair{SafetensorsDType::F8E5M2Fnuz, FormatId::Fp8E5M2Fnuz},
    Pair{SafetensorsDType::F6E2M3, FormatId::Fp6E2M3},
    Pair{SafetensorsDType::F6E3M2, FormatId::Fp6E3M2},
    Pair{SafetensorsDType::F4, FormatId::Fp4E2M1},
};

// The format and its byte width, or a SafetensorsError naming the dtype.
std::pair<const numeric::FloatFormat*, std::size_t> byteFormat(SafetensorsDType dtype) {
  const auto id = safetensorsDTypeFormat(dtype);
  const int bits = safetensorsDTypeBits(dtype);
  if (!id || bits % 8 != 0)
    throw SafetensorsError(std::string(safetensorsDTypeName(dtype)) +
                           ": not a byte-aligned floating-point type");
  return {&numeric::formatInfo(*id), static_cast<std::size_t>(bits / 8)};
}

} // namespace

std::optional<FormatId> safetensorsDTypeFormat(SafetensorsDType dtype) {
  for (const Pair& p : kPairs)
    if (p.dtype == dtype)
      return p.format;
  return std::nullopt;
}

std::optional<SafetensorsDType> safetensorsDTypeOf(FormatId format) {
  for (const Pair& p : kPairs)
    if (p.format == format)
      return p.dtype;
  return std::nullopt;
}

std::vector<double> decodeSafetensorsElements(SafetensorsDType dtype, std::span<const std::byte> bytes) {
  const auto [format, width] = byteFormat(dtype);
  if (bytes.size() % width != 0)
    throw SafetensorsError(std::string(safetensorsDTypeName(dtype)) + ": " + std::to_string(bytes.size()) +
                           " bytes are not whole elements of " + std::to_string(width));
  std::vector<double> out(bytes.size() / width);
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::uint64_t bits = 0;
    for (std::size_t b = 0; b < width; ++b) // little-endian
      bits |= static_cast<std::uint64_t>(std::to_integer<unsigned>(bytes[i * width + b])) << (8 * b);
    out[i] = numeric::toDouble(*format, bits);
  }
  return out;
}

std::vector<std::byte> encodeSafetensorsElements(SafetensorsDType dtype, std::span<const double> values) {
  const auto [format, width] = byteFormat(dtype);
  numeric::EncodeOptions o;
  o.overflow = numeric::OverflowMode::Saturate;
  std::vector<std::byte> out(values.size() * width);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint64_t bits = numeric::encode(*format, values[i], o).bits;
    for (std::size_t b = 0; b < width; ++b)
      out[i * width + b] = static_cast<std::byte>((bits >> (8 * b)) & 0xffu);
  }
  return out;
}

} // namespace mantissa::io
