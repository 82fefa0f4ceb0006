// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The one parse function of outside JSON (io::parseJsonText: run logs,
// follow streams, --config files, caches, bench reports, lesson manifests).
// Refused text is a JsonTextError with a message in the program's words
// (never nlohmann's "[json.exception..."), a place within the text when it
// has one, and the deepest nesting named for a depth error. Accepted text is
// at most kMaxJsonDepth deep, holds no key twice in one object (its dump has
// as many keys as the text), and its dump parses back to the same value.

#include <mantissa/io/json_text.h>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

// Keys in the value, counted through every object.
std::size_t keyCount(const nlohmann::json& j) {
  std::size_t n = 0;
  if (j.is_object())
    for (const auto& [key, value] : j.items())
      n += 1 + keyCount(value);
  else if (j.is_array())
    for (const auto& value : j)
      n += keyCount(value);
  return n;
}

std::size_t depth(const nlohmann::json& j) {
  std::size_t d = 0;
  if (j.is_structured())
    for (const auto& value : j)
      d = std::max(d, depth(value));
  return j.is_structured() ? d + 1 : 0;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mantissa::io;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  nlohmann::json value;
  try {
    value = parseJsonText(text);
  } catch (const JsonTextError& e) {
    const std::string_view what = e.what();
    if (what.empty() || what.find("json.exception") != std::string_view::npos)
      std::abort();
    if (e.line() > 0 && (e.column() == 0 || e.line() > size + 1))
      std::abort();
    if (e.kind() == JsonTextError::Kind::Depth && jsonNestingDepth(text) <= kMaxJsonDepth)
      std::abort(); // refused for a depth the text does not have
    return 0;
  }
  if (depth(value) > kMaxJsonDepth)
    std::abort();
  // nlohmann keeps the last of two equal keys: a parse without the check
  // holds fewer keys than the text names when one is repeated.
  const nlohmann::json plain = nlohmann::json::parse(text, nullptr, false);
  if (plain.is_discarded() || keyCount(plain) != keyCount(value) || plain != value)
    std::abort();
  const std::string dumped = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (parseJsonText(dumped) != nlohmann::json::parse(dumped))
    std::abort();
  return 0;
}
