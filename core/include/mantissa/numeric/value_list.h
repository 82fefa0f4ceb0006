// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A list of numbers as text: what `mantissa-cli quantize` reads on stdin and
// what the Explorer's block view reads from a pasted text.
//
// Numbers are separated by whitespace, commas or semicolons, any number per
// line; a '#' starts a comment that runs to the end of the line. Each number
// has parseNumber's syntax (decimal, hex float, inf, nan) and becomes the
// nearest double (one rounding from the exact value).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::numeric {

struct ValueListLimits {
  std::size_t maxValues = 1u << 20;  // 1 Mi values
  std::size_t maxTokenLength = 512;  // characters in one number
};

struct ValueListResult {
  std::vector<double> values;
  // Empty when the text parsed. Otherwise "line L, column C: '...' is not a
  // number: ..." (1-based), or a limit that was passed; values is then empty.
  std::string error;
  std::size_t line = 0, column = 0; // where the error is (1-based); 0 if none
};

ValueListResult parseValueList(std::string_view text, const ValueListLimits& limits = {});

} // namespace mantissa::numeric
