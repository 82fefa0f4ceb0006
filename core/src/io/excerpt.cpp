// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/io/excerpt.h>

namespace mantissa::io {

std::string excerpt(std::string_view text, std::size_t limit) {
  std::string out;
  std::size_t shown = 0;
  for (const char ch : text) {
    if (shown == limit)
      break;
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f) {
      out += ch;
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
    ++shown;
  }
  if (shown < text.size())
    out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

} // namespace mantissa::io
