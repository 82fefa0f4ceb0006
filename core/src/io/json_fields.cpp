// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/io/json_fields.h>

#include <cmath>
#include <limits>
#include <charconv>

namespace mantissa::io {

using nlohmann::json;

std::string shownNumber(double value) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  return std::string(buffer, end);
}

std::string shownValue(const json& value) {
  // dump() recurses per level: the parse functions keep values shallow.
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 60)
    text = text.substr(0, 57) + "...";
  return text;
}

JsonFields::JsonFields(const json& object, std::string where, std::string kind)
    : m_object(object), m_where(std::move(where)), m_kind(std::move(kind)) {}

void JsonFields::fail(const char* key, const std::string& what) const {
  std::string message;
  if (!m_where.empty())
    message += m_where + ": ";
  if (!m_kind.empty())
    message += m_kind + ": ";
  message += "\"" + std::string(key) + "\" " + what;
  throw JsonFieldError(message);
}

const json* JsonFields::find(const char* key) const {
  if (!m_object.is_object())
    return nullptr;
  const auto it = m_object.find(key);
  return it == m_object.end() ? nullptr : &*it;
}

bool JsonFields::has(const char* key) const { return find(key) != nullptr; }

std::optional<bool> JsonFields::boolean(const char* key) const {
  const json* v = find(key);
  if (!v)
    return std::nullopt;
  if (!v->is_boolean())
    fail(key, "must be true or false, got " + shownValue(*v));
  return v->get<bool>();
}

std::optional<double> JsonFields::number(const char* key) const {
  const json* v = find(key);
  if (!v)
    return std::nullopt;
  if (!v->is_number())
    fail(key, "must be a number, got " + shownValue(*v));
  return v->get<double>();
}

std::optional<double> JsonFields::numberOrNull(const char* key) const {
  const json* v = find(key);
  if (!v)
    return std::nullopt;
  if (v->is_null())
    return std::numeric_limits<double>::quiet_NaN();
  if (!v->is_number())
    fail(key, "must be a number or null, got " + shownValue(*v));
  return v->get<double>();
}

std::optional<double> JsonFields::numberIn(const char* key, double lo, double hi,
                                           bool nullAllowed) const {
  const json* v = find(key);
  if (!v)
    return std::nullopt;
  if (v->is_null() && nullAllowed)
    return std::numeric_limits<double>::quiet_NaN();
  const std::string range = "[" + shownNumber(lo) + ", " + shownNumber(hi) + "]";
  if (!v->is_number())
    fail(key, "must be a number in " + range + (nullAllowed ? " or null" : "") + ", got " +
                  shownValue(*v));
  const double x = v->get<double>();
  if (!(x >= lo && x <= hi))
    fail(key, "must be in " + range + ", got " + shownValue(*v));
  return x;
}

std::optional<std::int64_t> JsonFields::integer(const char* key, std::int64_t lo,
                                                std::int64_t hi) const {
  const json* v = find(key);
  if (!v)
    return std::nullopt;
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (!v->is_number_integer())
    fail(key, "must be an integer, got " + shownValue(*v));
  if (v->is_number_unsigned() && v->get<std::uint64_t>() > std::uint64_t(hi))
    fail(key, "must be in " + range + ", got " + shownValue(*v));
  const std::int64_t x = v->get<std::int64_t>();
  if (x < lo || x > hi)
    fail(key, "must be in " + range + ", got " + std::to_string(x));
  return x;
}

std::optional<std::string> JsonFields::string(const char* key) const {
  const json* v = find(key);
  if (!v)
    return std::nullopt;
  if (!v->is_string())
    fail(key, "must be a string, got " + shownValue(*v));
  return v->get<std::string>();
}

const json* JsonFields::object(const char* key) const {
  const json* v = find(key);
  if (v && !v->is_object())
    fail(key, "must be an object, got " + shownValue(*v));
  return v;
}

const json* JsonFields::array(const char* key) const {
  const json* v = find(key);
  if (v && !v->is_array())
    fail(key, "must be an array, got " + shownValue(*v));
  return v;
}

} // namespace mantissa::io
