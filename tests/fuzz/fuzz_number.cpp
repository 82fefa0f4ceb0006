// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The Explorer's and the CLI's number syntax: numeric::parseNumber, then every
// accepted value encoded into every format with every rounding mode, and the
// bits decoded back. Properties: a rejection carries a message; an accepted
// value encodes to bits that fit the format; in a format with infinities a
// number that is not NaN never encodes to NaN (E4M3 has none: overflow is NaN);
// the OCP MX formats (FP6, FP4, E8M0, INT8) are encoded too.

#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/exact_value.h>
#include <mantissa/numeric/format.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mantissa::numeric;
  if (size > 4096)
    return 0; // typed numbers are short; longer inputs only slow the search
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ParseResult parsed = parseNumber(text);
  if (!parsed.value) {
    if (parsed.error.empty())
      std::abort(); // a rejection must say why
    return 0;
  }
  const ExactValue& value = *parsed.value;
  std::vector<FormatId> formats(explorerFormats().begin(), explorerFormats().end());
  formats.insert(formats.end(), microscalingFormats().begin(), microscalingFormats().end());
  for (const FormatId id : formats) {
    const FloatFormat& format = formatInfo(id);
    for (const Rounding rounding : {Rounding::NearestEven, Rounding::TowardZero, Rounding::Up,
                                    Rounding::Down, Rounding::Stochastic}) {
      EncodeOptions options;
      options.rounding = rounding;
      options.random = 0x9e3779b9u;
      options.flushSubnormals = rounding == Rounding::Down;
      options.overflow = rounding == Rounding::Up ? OverflowMode::Saturate : OverflowMode::Infinity;
      const EncodeResult result = encode(format, value, options);
      if (format.totalBits() < 64 && (result.bits >> format.totalBits()) != 0)
        std::abort(); // bits wider than the format
      const FloatClass cls = classify(format, result.bits);
      if (format.hasInfinity() && value.kind() != ExactValue::Kind::NaN && cls == FloatClass::NaN)
        std::abort(); // a number never encodes to NaN
      (void)decode(format, result.bits);
      (void)formatBitsHex(format, result.bits);
    }
  }
  return 0;
}
