// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Typed reads of one object of outside JSON (a run log's header, step row or
// summary, a configuration, a cache). nlohmann's get<T>() and value() throw
// type_error.302 naming neither file nor field: these say both,
//   run.jsonl:9: summary: "stopped_early" must be true or false, got 1
// An absent key reads as nullopt (the caller picks the default); a present
// key of the wrong type or out of range throws JsonFieldError.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace mantissa::io {

class JsonFieldError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class JsonFields {
public:
  // `where` names the place ("run.jsonl:9"), `kind` the object ("summary");
  // either may be empty. `object` must outlive this reader.
  JsonFields(const nlohmann::json& object, std::string where, std::string kind);

  bool has(const char* key) const;
  std::optional<bool> boolean(const char* key) const;
  std::optional<double> number(const char* key) const;       // any number
  std::optional<double> numberOrNull(const char* key) const; // null reads as NaN
  // A number or null in [lo, hi] (null: NaN, allowed when nullAllowed).
  std::optional<double> numberIn(const char* key, double lo, double hi,
                                 bool nullAllowed = true) const;
  std::optional<std::int64_t> integer(const char* key, std::int64_t lo, std::int64_t hi) const;
  std::optional<std::string> string(const char* key) const;
  const nlohmann::json* object(const char* key) const; // nullptr when absent
  const nlohmann::json* array(const char* key) const;  // nullptr when absent

  // Throws JsonFieldError "WHERE: KIND: "KEY" WHAT".
  [[noreturn]] void fail(const char* key, const std::string& what) const;

private:
  const nlohmann::json* find(const char* key) const;
  const nlohmann::json& m_object;
  std::string m_where, m_kind;
};

// A JSON value as a message quotes it: compact, cut after 60 bytes.
std::string shownValue(const nlohmann::json& value);
// A number in the shortest form that reads back to it ("0", "0.25", "1e+308").
std::string shownNumber(double value);

} // namespace mantissa::io
