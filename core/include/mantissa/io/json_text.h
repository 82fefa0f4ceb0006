// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// JSON text from outside the program (run logs, follow streams, --config
// files, caches, bench reports, lesson manifests) is parsed here and nowhere
// else, so every reader refuses the same things the same way:
//  - nesting deeper than kMaxJsonDepth levels (copying, printing or
//    comparing a parsed value recurses once per level: a deeper text could
//    exhaust the stack long after it was read);
//  - a key given twice in one object (nlohmann would keep the last silently:
//    {"steps": 5, "steps": 7} would run 7 steps with no word);
//  - numbers out of the range of a double (1e999), and any syntax error.
// The message says what and where, in the program's words: "line 3,
// column 12: not valid JSON near 'tru'", "duplicate key "steps" (in
// "config")", "JSON nested 200001 levels deep, over the limit of 64". It
// never carries nlohmann's exception text.
//
// Typed reads of the parsed value go through json_fields.h, whose messages
// name the field.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mantissa::io {

inline constexpr std::size_t kMaxJsonDepth = 64;

class JsonTextError : public std::runtime_error {
public:
  enum class Kind { Syntax, NumberRange, Depth, DuplicateKey };
  // what() = "line L, column C: DETAIL" when the place is known, else DETAIL.
  JsonTextError(Kind kind, std::string detail, std::size_t line, std::size_t column);
  Kind kind() const { return m_kind; }
  const std::string& detail() const { return m_detail; } // without the place
  std::size_t line() const { return m_line; }             // 1-based; 0 when not known
  std::size_t column() const { return m_column; }         // 1-based byte column; 0 when not known

private:
  Kind m_kind;
  std::string m_detail;
  std::size_t m_line, m_column;
};

// Parses one JSON value; throws JsonTextError.
nlohmann::json parseJsonText(std::string_view text, std::size_t maxDepth = kMaxJsonDepth);

// The deepest nesting of [ and { in JSON text (outside strings); 0 for a scalar.
std::size_t jsonNestingDepth(std::string_view text);

// Outside text fit to quote in a message: JSON string syntax (control
// characters escaped, invalid UTF-8 replaced), cut after `limit` bytes with "...".
std::string quotedForMessage(std::string_view text, std::size_t limit = 60);

} // namespace mantissa::io
