// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/numeric/value_list.h>

#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/exact_value.h>

#include <bit>

namespace mantissa::numeric {
namespace {

bool isSeparator(char c) { return c == ' ' || c == '\t' || c == '\r' || c == ',' || c == ';'; }

std::string shown(std::string_view token) {
  constexpr std::size_t kShown = 40;
  std::string s;
  for (char c : token.substr(0, kShown)) {
    const auto u = static_cast<unsigned char>(c);
    s += u < 0x20 || u == 0x7f ? '?' : c; // control bytes would garble a terminal
  }
  return token.size() > kShown ? s + "..." : s;
}

} // namespace

ValueListResult parseValueList(std::string_view text, const ValueListLimits& limits) {
  ValueListResult r;
  auto fail = [&](std::size_t line, std::size_t column, std::string why) {
    r.values.clear();
    r.error = "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + why;
    r.line = line;
    r.column = column;
    return r;
  };
  const FloatFormat& fp64 = formatInfo(FormatId::Fp64);
  std::size_t line = 1, lineStart = 0, i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      lineStart = ++i;
      continue;
    }
    if (isSeparator(c)) {
      ++i;
      continue;
    }
    if (c == '#') {
      while (i < text.size() && text[i] != '\n')
        ++i;
      continue;
    }
    const std::size_t begin = i;
    while (i < text.size() && text[i] != '\n' && text[i] != '#' && !isSeparator(text[i]))
      ++i;
    const std::string_view token = text.substr(begin, i - begin);
    const std::size_t column = begin - lineStart + 1;
    if (token.size() > limits.maxTokenLength)
      return fail(line, column,
                  "'" + shown(token) + "' is longer than " + std::to_string(limits.maxTokenLength) +
                      " characters");
    if (r.values.size() >= limits.maxValues)
      return fail(line, column, "more than " + std::to_string(limits.maxValues) + " values");
    const ParseResult parsed = parseNumber(token);
    if (!parsed.value) {
      const auto colon = parsed.error.find(": ");
      return fail(line, column,
                  "'" + shown(token) + "' is not a number" +
                      (colon == std::string::npos ? std::string() : parsed.error.substr(colon)));
    }
    r.values.push_back(std::bit_cast<double>(encode(fp64, *parsed.value).bits));
  }
  return r;
}

} // namespace mantissa::numeric
