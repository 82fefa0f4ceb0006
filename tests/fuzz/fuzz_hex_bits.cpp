// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The CLI's raw-bits syntax ("0x3dcc", "3dcc"): cli::parseHexBits, then for
// every format whose width the bits fit, decode and print them. Property: an
// accepted text is 1-16 hex digits (after an optional 0x) whose value strtoull
// agrees with; a rejected one is not.

#include "numeric_cli.h"

#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/format.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mantissa;
  if (size > 64)
    return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto bits = cli::parseHexBits(text);

  const std::size_t start = text.rfind("0x", 0) == 0 || text.rfind("0X", 0) == 0 ? 2 : 0;
  const std::string digits = text.substr(start);
  bool wellFormed = !digits.empty() && digits.size() <= 16;
  for (const char c : digits)
    wellFormed = wellFormed && std::isxdigit(static_cast<unsigned char>(c)) != 0;
  if (wellFormed != bits.has_value())
    std::abort();
  if (!bits)
    return 0;
  if (std::strtoull(digits.c_str(), nullptr, 16) != *bits)
    std::abort();
  for (const numeric::FormatId id : numeric::explorerFormats()) {
    const numeric::FloatFormat& format = numeric::formatInfo(id);
    if (!cli::fitsFormat(format, *bits))
      continue;
    (void)numeric::decode(format, *bits);
    (void)numeric::formatBitsHex(format, *bits);
  }
  return 0;
}
