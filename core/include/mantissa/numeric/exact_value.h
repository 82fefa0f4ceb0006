// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// An exact real number as typed: sign, special class, and for finite values
// an exact binary fraction mantissa x 2^exponent with an arbitrary-precision
// mantissa, or an exact decimal that the encoder rounds correctly. Parsing
// the explorer/CLI number syntax produces one of these.
//
// Syntax: decimal ("0.1", "-0", "1e-8", "65504"), hex float ("0x1.8p-3"),
// "inf", "-inf", "infinity", "nan" (case-insensitive). Raw bits are not an
// ExactValue: callers decode them with codec.h.

#include <optional>
#include <string>
#include <string_view>

namespace mantissa::numeric {

class ExactValue {
public:
  enum class Kind { Finite, Infinity, NaN };

  static ExactValue fromDouble(double value);

  Kind kind() const { return m_kind; }
  bool negative() const { return m_negative; }
  bool isZero() const;
  double approximate() const;   // nearest double (for display and errors)
  std::string toString() const; // the exact decimal, every digit

  // Implementation-defined exact representation: a decimal digit string and
  // a power of ten, or binary digits and a power of two.
  std::string digits;          // significant digits, no leading zeros ("" for zero)
  int exponent = 0;            // value = digits x base^exponent
  int base = 10;               // 10 or 2
  Kind m_kind = Kind::Finite;
  bool m_negative = false;
};

struct ParseResult {
  std::optional<ExactValue> value;
  std::string error; // "'0.1.2' is not a number: ..." when value is empty
};

ParseResult parseNumber(std::string_view text);

} // namespace mantissa::numeric
