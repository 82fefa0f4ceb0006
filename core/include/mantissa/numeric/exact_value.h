// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// An exact real number as typed: sign, special class, and for finite values
// significand x base^exponent with an arbitrary-precision significand and
// base 10 (decimal input) or 2 (hex floats, doubles, decoded bit patterns).
// Nothing is rounded on the way in; codec.h's encode() rounds it once.
//
// Syntax: decimal ("0.1", "-0", "1e-8", "65504", ".5"), hex float
// ("0x1.8p-3", "-0x1p+4", "0x10"), "inf", "-inf", "infinity", "nan"
// (case-insensitive); surrounding spaces are ignored. Raw bits are not an
// ExactValue: callers decode them with codec.h.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::numeric {

class ExactValue {
public:
  enum class Kind { Finite, Infinity, NaN };

  ExactValue() = default; // +0
  static ExactValue fromDouble(double value);
  static ExactValue infinity(bool negative);
  static ExactValue nan(bool negative = false);
  // significand (little-endian base-2^32 limbs) x base^exponent, base 2 or 10.
  static ExactValue finite(bool negative, std::vector<std::uint32_t> significand, int exponent,
                           int base);

  Kind kind() const { return m_kind; }
  bool negative() const { return m_negative; }
  bool isZero() const;
  double approximate() const;   // nearest double (ties to even), for display and errors
  std::string toString() const; // the exact decimal, every digit ("-0", "0.1", "inf", "nan")

  // The exact representation (finite values): significand x base^exponent.
  const std::vector<std::uint32_t>& significand() const { return m_significand; }
  int exponent() const { return m_exponent; }
  int base() const { return m_base; }

private:
  Kind m_kind = Kind::Finite;
  bool m_negative = false;
  std::vector<std::uint32_t> m_significand; // little-endian limbs, no high zeros; empty = 0
  int m_exponent = 0;
  int m_base = 10;
};

// |a - b| exactly, for finite a and b (an exact decimal; when aligning the
// two would need more than a few thousand digits, the nearest double of the
// difference instead). Used for rounding errors.
ExactValue absDifference(const ExactValue& a, const ExactValue& b);

struct ParseResult {
  std::optional<ExactValue> value;
  std::string error; // "'0.1.2' is not a number: ..." when value is empty
};

ParseResult parseNumber(std::string_view text);

} // namespace mantissa::numeric
