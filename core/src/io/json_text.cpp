// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/io/json_text.h>

#include <algorithm>
#include <optional>
#include <vector>

namespace mantissa::io {

namespace {

using nlohmann::json;

std::string placed(const std::string& detail, std::size_t line, std::size_t column) {
  if (line == 0)
    return detail;
  return "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + detail;
}

// Builds the value as nlohmann's own DOM parser does (a stack of the open
// containers, each new value placed in the innermost one), refusing a
// container past the depth limit and a key its object already has.
class BoundedDomBuilder {
public:
  BoundedDomBuilder(json& root, std::size_t maxDepth) : m_root(root), m_maxDepth(maxDepth) {}

  bool null() { return put(json(nullptr)); }
  bool boolean(bool v) { return put(json(v)); }
  bool number_integer(json::number_integer_t v) { return put(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return put(json(v)); }
  bool number_float(json::number_float_t v, const json::string_t&) { return put(json(v)); }
  bool string(json::string_t& v) { return put(json(std::move(v))); }
  bool binary(json::binary_t& v) { return put(json::binary(std::move(v))); }
  bool start_object(std::size_t) { return open(json::value_t::object); }
  bool start_array(std::size_t) { return open(json::value_t::array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(json::string_t& k) {
    json::object_t& object = m_stack.back()->get_ref<json::object_t&>();
    if (object.find(k) != object.end()) {
      m_error = Error{JsonTextError::Kind::DuplicateKey, "duplicate key " + quotedForMessage(k)};
      if (m_names.size() > 1 && !m_names.back().empty())
        m_error->detail += " (in " + quotedForMessage(m_names.back()) + ")";
      return false;
    }
    m_key = k;
    m_slot = &object[std::move(k)];
    return true;
  }

  bool parse_error(std::size_t position, const std::string& token, const json::exception& e) {
    m_position = position;
    if (e.id == 406) // the only error that is not syntax: a number past a double's range
      m_error = Error{JsonTextError::Kind::NumberRange,
                      "number out of range " + quotedForMessage(token, 40)};
    else if (std::string_view(e.what()).find("unexpected end of input") != std::string_view::npos)
      m_error = Error{JsonTextError::Kind::Syntax,
                      "not valid JSON: the text ends before the value does"};
    else
      m_error = Error{JsonTextError::Kind::Syntax, "not valid JSON"};
    return false;
  }

  struct Error {
    JsonTextError::Kind kind;
    std::string detail;
  };
  std::optional<Error> m_error;
  std::optional<std::size_t> m_position; // bytes read when a syntax error was seen

private:
  json* place(json&& v) {
    if (m_stack.empty()) {
      m_root = std::move(v);
      return &m_root;
    }
    json& top = *m_stack.back();
    if (top.is_array()) {
      auto& array = top.get_ref<json::array_t&>();
      array.push_back(std::move(v));
      return &array.back();
    }
    *m_slot = std::move(v);
    return m_slot;
  }
  bool put(json&& v) {
    place(std::move(v));
    return true;
  }
  bool open(json::value_t type) {
    if (m_stack.size() >= m_maxDepth) {
      m_error = Error{JsonTextError::Kind::Depth, {}};
      return false;
    }
    // The name this container is known by in messages: its key, if in an object.
    const bool inObject = !m_stack.empty() && m_stack.back()->is_object();
    m_names.push_back(inObject ? m_key : std::string());
    m_stack.push_back(place(json(type)));
    return true;
  }
  bool close() {
    m_stack.pop_back();
    m_names.pop_back();
    return true;
  }

  json& m_root;
  std::size_t m_maxDepth;
  std::vector<json*> m_stack;       // the open containers, outermost first
  std::vector<std::string> m_names; // the key of each open container ("" if none)
  json* m_slot = nullptr;           // where the value after the last key goes
  std::string m_key;
};

} // namespace

JsonTextError::JsonTextError(Kind kind, std::string detail, std::size_t line, std::size_t column)
    : std::runtime_error(placed(detail, line, column)), m_kind(kind), m_detail(std::move(detail)),
      m_line(line), m_column(column) {}

json parseJsonText(std::string_view text, std::size_t maxDepth) {
  // nlohmann's lexer reads a NUL byte as the end of the input, so "{}\0..."
  // would parse as {} with the rest unread: JSON text holds no NUL byte.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    const std::size_t line =
        1 + std::size_t(std::count(text.begin(), text.begin() + std::ptrdiff_t(nul), '\n'));
    const std::size_t nl = nul > 0 ? text.rfind('\n', nul - 1) : std::string_view::npos;
    const std::size_t column = nul - (nl == std::string_view::npos ? 0 : nl + 1) + 1;
    throw JsonTextError(JsonTextError::Kind::Syntax, "a NUL byte, which JSON text cannot hold",
                        line, column);
  }
  json root;
  BoundedDomBuilder builder(root, maxDepth);
  const bool ok = json::sax_parse(text.data(), text.data() + text.size(), &builder,
                                  json::input_format_t::json, true);
  if (ok && !builder.m_error)
    return root;
  if (!builder.m_error)
    throw JsonTextError(JsonTextError::Kind::Syntax, "not valid JSON", 0, 0);
  auto error = *builder.m_error;
  if (error.kind == JsonTextError::Kind::Depth)
    error.detail = "JSON nested " + std::to_string(jsonNestingDepth(text)) +
                   " levels deep, over the limit of " + std::to_string(maxDepth);
  std::size_t line = 0, column = 0;
  if (builder.m_position) {
    // The position is the count of bytes read, the offending one included.
    const std::size_t end = std::min(*builder.m_position, text.size());
    const std::size_t at = end > 0 ? end - 1 : 0;
    line = 1 + std::size_t(std::count(text.begin(), text.begin() + std::ptrdiff_t(at), '\n'));
    std::size_t lineBegin = 0;
    if (const std::size_t nl = at > 0 ? text.rfind('\n', at - 1) : std::string_view::npos;
        nl != std::string_view::npos)
      lineBegin = nl + 1;
    column = at - lineBegin + 1;
  }
  throw JsonTextError(error.kind, std::move(error.detail), line, column);
}

std::size_t jsonNestingDepth(std::string_view text) {
  std::size_t depth = 0, deepest = 0;
  bool inString = false, escaped = false;
  for (const char c : text) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

std::string quotedForMessage(std::string_view text, std::size_t limit) {
  const bool cut = text.size() > limit;
  const std::string shown =
      json(std::string(text.substr(0, limit))).dump(-1, ' ', false, json::error_handler_t::replace);
  return cut ? shown.substr(0, shown.size() - 1) + "...\"" : shown;
}

} // namespace mantissa::io
