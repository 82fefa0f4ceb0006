// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Format spec strings and JSON format objects on hostile text:
// numeric::parseFormatSpec / parseFormatJson. Either an error that is not
// empty, or a valid format whose spec() parses back to the same encoding and
// whose finite patterns (the first 4096) encode back to themselves.
// The first byte chooses: '{' parses JSON, anything else a spec string.

#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/format_spec.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mantissa::numeric;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const FormatParse p = !text.empty() && text.front() == '{' ? parseFormatJson(text) : parseFormatSpec(text);
  if (!p.format) {
    if (p.error.empty())
      std::abort();
    return 0;
  }
  const FloatFormat& f = *p.format;
  if (!validateFormat(f).empty() || f.totalBits() > 64 || f.totalBits() < 1)
    std::abort();
  const FormatParse back = parseFormatSpec(f.spec());
  if (!back.format || !back.format->sameEncoding(f))
    std::abort();
  if (!(f.maxFinite() > 0) || !(f.minSubnormal() > 0) || f.minSubnormal() > f.maxFinite())
    std::abort();
  const std::uint64_t patterns = f.totalBits() >= 12 ? 4096 : (1ull << f.totalBits());
  for (std::uint64_t bits = 0; bits < patterns; ++bits) {
    const double v = toDouble(f, bits);
    if (std::isnan(v))
      continue;
    const double again = toDouble(f, encode(f, v).bits);
    if (again != v || std::signbit(again) != std::signbit(v))
      std::abort();
  }
  return 0;
}
