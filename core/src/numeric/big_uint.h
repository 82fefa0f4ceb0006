// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A small unsigned arbitrary-precision integer, just enough for exact
// decimal <-> binary work: multiply by small numbers and powers of five,
// shifts, compare, subtract, and decimal printing. Internal to core/numeric.
//
// Invariant: m_limbs is little-endian base 2^32 with no high zero limbs, so
// zero is the empty vector.

#include <cstdint>
#include <string>
#include <vector>

namespace mantissa::numeric::detail {

class BigUint {
public:
  BigUint() = default;
  explicit BigUint(std::uint64_t value);
  static BigUint fromLimbs(std::vector<std::uint32_t> limbs);

  bool isZero() const { return m_limbs.empty(); }
  int bitLength() const;
  std::uint64_t low64() const;
  const std::vector<std::uint32_t>& limbs() const { return m_limbs; }

  void mulAdd(std::uint32_t mul, std::uint32_t add); // *this = *this x mul + add
  void mulPow5(int n);                               // *this x 5^n, n >= 0
  void shiftLeft(int bits);
  void shiftRight(int bits);
  void add(const BigUint& other);
  void subtract(const BigUint& other); // requires *this >= other
  std::uint32_t divSmall(std::uint32_t divisor); // returns the remainder

  std::string toDecimal() const; // "0" for zero

  friend int compare(const BigUint& a, const BigUint& b); // -1, 0, 1

private:
  void trim();
  std::vector<std::uint32_t> m_limbs;
};

} // namespace mantissa::numeric::detail
