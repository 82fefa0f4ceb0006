// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "numeric/big_uint.h"

#include <algorithm>
#include <bit>

namespace mantissa::numeric::detail {

BigUint::BigUint(std::uint64_t value) {
  while (value != 0) {
    m_limbs.push_back(static_cast<std::uint32_t>(value));
    value >>= 32;
  }
}

BigUint BigUint::fromLimbs(std::vector<std::uint32_t> limbs) {
  BigUint b;
  b.m_limbs = std::move(limbs);
  b.trim();
  return b;
}

void BigUint::trim() {
  while (!m_limbs.empty() && m_limbs.back() == 0)
    m_limbs.pop_back();
}

int BigUint::bitLength() const {
  if (m_limbs.empty())
    return 0;
  return static_cast<int>(32 * (m_limbs.size() - 1)) + std::bit_width(m_limbs.back());
}

std::uint64_t BigUint::low64() const {
  std::uint64_t v = m_limbs.empty() ? 0 : m_limbs[0];
  if (m_limbs.size() > 1)
    v |= static_cast<std::uint64_t>(m_limbs[1]) << 32;
  return v;
}

void BigUint::mulAdd(std::uint32_t mul, std::uint32_t add) {
  std::uint64_t carry = add;
  for (auto& limb : m_limbs) {
    const std::uint64_t t = static_cast<std::uint64_t>(limb) * mul + carry;
    limb = static_cast<std::uint32_t>(t);
    carry = t >> 32;
  }
  if (carry != 0)
    m_limbs.push_back(static_cast<std::uint32_t>(carry));
  trim();
}

void BigUint::mulPow5(int n) {
  constexpr std::uint32_t kPow5_13 = 1220703125u; // 5^13, the largest power below 2^32
  for (; n >= 13; n -= 13)
    mulAdd(kPow5_13, 0);
  std::uint32_t rest = 1;
  for (; n > 0; --n)
    rest *= 5;
  if (rest != 1)
    mulAdd(rest, 0);
}

void BigUint::shiftLeft(int bits) {
  if (m_limbs.empty() || bits <= 0)
    return;
  const auto limbShift = static_cast<std::size_t>(bits / 32);
  const int bitShift = bits % 32;
  if (bitShift != 0) {
    std::uint32_t carry = 0;
    for (auto& limb : m_limbs) {
      const std::uint32_t next = limb >> (32 - bitShift);
      limb = (limb << bitShift) | carry;
      carry = next;
    }
    if (carry != 0)
      m_limbs.push_back(carry);
  }
  m_limbs.insert(m_limbs.begin(), limbShift, 0u);
}

void BigUint::shiftRight(int bits) {
  if (bits <= 0)
    return;
  const auto limbShift = static_cast<std::size_t>(bits / 32);
  if (limbShift >= m_limbs.size()) {
    m_limbs.clear();
    return;
  }
  m_limbs.erase(m_limbs.begin(), m_limbs.begin() + static_cast<std::ptrdiff_t>(limbShift));
  const int bitShift = bits % 32;
  if (bitShift != 0) {
    for (std::size_t i = 0; i < m_limbs.size(); ++i) {
      const std::uint32_t high = i + 1 < m_limbs.size() ? m_limbs[i + 1] : 0u;
      m_limbs[i] = (m_limbs[i] >> bitShift) | (high << (32 - bitShift));
    }
  }
  trim();
}

void BigUint::add(const BigUint& other) {
  if (m_limbs.size() < other.m_limbs.size())
    m_limbs.resize(other.m_limbs.size(), 0u);
  std::uint64_t carry = 0;
  for (std::size_t i = 0; i < m_limbs.size(); ++i) {
    const std::uint64_t t = m_limbs[i] + carry + (i < other.m_limbs.size() ? other.m_limbs[i] : 0u);
    m_limbs[i] = static_cast<std::uint32_t>(t);
    carry = t >> 32;
  }
  if (carry != 0)
    m_limbs.push_back(static_cast<std::uint32_t>(carry));
}

void BigUint::subtract(const BigUint& other) {
  std::int64_t borrow = 0;
  for (std::size_t i = 0; i < m_limbs.size(); ++i) {
    std::int64_t t = static_cast<std::int64_t>(m_limbs[i]) - borrow -
                     (i < other.m_limbs.size() ? static_cast<std::int64_t>(other.m_limbs[i]) : 0);
    borrow = t < 0 ? 1 : 0;
    m_limbs[i] = static_cast<std::uint32_t>(t + (borrow << 32));
  }
  trim();
}

std::uint32_t BigUint::divSmall(std::uint32_t divisor) {
  std::uint64_t rem = 0;
  for (auto it = m_limbs.rbegin(); it != m_limbs.rend(); ++it) {
    const std::uint64_t cur = (rem << 32) | *it;
    *it = static_cast<std::uint32_t>(cur / divisor);
    rem = cur % divisor;
  }
  trim();
  return static_cast<std::uint32_t>(rem);
}

std::string BigUint::toDecimal() const {
  if (m_limbs.empty())
    return "0";
  // Peel off nine decimal digits at a time, least significant chunk first.
  BigUint rest = *this;
  std::vector<std::uint32_t> chunks;
  while (!rest.isZero())
    chunks.push_back(rest.divSmall(1000000000u));
  std::string s;
  for (auto it = chunks.rbegin(); it != chunks.rend(); ++it) {
    const std::string part = std::to_string(*it);
    if (!s.empty())
      s.append(9 - part.size(), '0');
    s += part;
  }
  return s;
}

int compare(const BigUint& a, const BigUint& b) {
  if (a.m_limbs.size() != b.m_limbs.size())
    return a.m_limbs.size() < b.m_limbs.size() ? -1 : 1;
  for (std::size_t i = a.m_limbs.size(); i-- > 0;) {
    if (a.m_limbs[i] != b.m_limbs[i])
      return a.m_limbs[i] < b.m_limbs[i] ? -1 : 1;
  }
  return 0;
}

} // namespace mantissa::numeric::detail
