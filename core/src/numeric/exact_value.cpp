// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/exact_value.h>

#include "numeric/big_uint.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>

namespace mantissa::numeric {
namespace {

using detail::BigUint;

// Longest accepted text: the exact decimal of any double (about 1100
// characters) fits; megabyte inputs would only make the big arithmetic slow.
constexpr std::size_t kMaxTextLength = 4096;
// Largest exponent accepted in text ("1e999999999"); the encoder replaces
// values far outside every format by 2^+-1200 before any big arithmetic, so
// large exponents cost nothing. Stored exponents stay exact (int range).
constexpr long long kMaxTextExponent = 999999999;
constexpr int kExponentClamp = 1100000000;
// Longer plain decimals switch toString() to scientific notation (still exact).
constexpr int kMaxPlainDigits = 1200;

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

struct Cursor {
  std::string_view text;
  std::size_t pos = 0;
  bool done() const { return pos >= text.size(); }
  char peek() const { return done() ? '\0' : text[pos]; }
};

// Reads [+-]digits; returns false if there are no digits. Saturates just
// above kMaxTextExponent so the caller can reject it.
bool readExponent(Cursor& c, long long& out) {
  bool neg = false;
  if (c.peek() == '+' || c.peek() == '-')
    neg = c.text[c.pos++] == '-';
  long long v = 0;
  const std::size_t start = c.pos;
  while (!c.done() && std::isdigit(static_cast<unsigned char>(c.peek()))) {
    v = std::min<long long>(v * 10 + (c.text[c.pos++] - '0'), kMaxTextExponent + 1);
  }
  out = neg ? -v : v;
  return c.pos > start;
}

ParseResult fail(std::string_view text, const std::string& why) {
  return {std::nullopt, "'" + std::string(text) + "' is not a number: " + why};
}

std::string unexpectedAt(const Cursor& c) {
  return "unexpected '" + std::string(1, c.peek()) + "' at position " + std::to_string(c.pos + 1);
}

} // namespace

ExactValue ExactValue::fromDouble(double value) {
  if (std::isnan(value))
    return nan(std::signbit(value));
  if (std::isinf(value))
    return infinity(value < 0);
  const auto bits = std::bit_cast<std::uint64_t>(value);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  std::uint64_t mant = bits & ((1ull << 52) - 1);
  if (biased != 0)
    mant |= 1ull << 52;
  // value = mant x 2^(max(biased,1) - 1075)
  const int exp = std::max(biased, 1) - 1075;
  return finite(std::signbit(value), BigUint(mant).limbs(), exp, 2);
}

ExactValue ExactValue::infinity(bool negative) {
  ExactValue v;
  v.m_kind = Kind::Infinity;
  v.m_negative = negative;
  return v;
}

ExactValue ExactValue::nan(bool negative) {
  ExactValue v;
  v.m_kind = Kind::NaN;
  v.m_negative = negative;
  return v;
}

ExactValue ExactValue::finite(bool negative, std::vector<std::uint32_t> significand, int exponent,
                              int base) {
  ExactValue v;
  v.m_negative = negative;
  v.m_significand = BigUint::fromLimbs(std::move(significand)).limbs();
  v.m_exponent = v.m_significand.empty() ? 0 : std::clamp(exponent, -kExponentClamp, kExponentClamp);
  v.m_base = base == 2 ? 2 : 10;
  return v;
}

bool ExactValue::isZero() const { return m_kind == Kind::Finite && m_significand.empty(); }

double ExactValue::approximate() const {
  const EncodeResult r = encode(formatInfo(FormatId::Fp64), *this);
  return std::bit_cast<double>(r.bits);
}

std::string ExactValue::toString() const {
  if (m_kind == Kind::NaN)
    return "nan";
  if (m_kind == Kind::Infinity)
    return m_negative ? "-inf" : "inf";
  const std::string sign = m_negative ? "-" : "";
  if (m_significand.empty())
    return sign + "0";
  // Bring the value to digits x 10^k.
  BigUint sig = BigUint::fromLimbs(m_significand);
  int k = m_exponent;
  if (m_base == 2) {
    if (std::abs(m_exponent) > 4 * kMaxPlainDigits) // far outside every format
      return sign + sig.toDecimal() + "*2^" + std::to_string(m_exponent);
    if (m_exponent >= 0) {
      sig.shiftLeft(m_exponent);
      k = 0;
    } else {
      sig.mulPow5(-m_exponent); // m x 2^-n = m x 5^n x 10^-n
    }
  }
  std::string digits = sig.toDecimal();
  while (digits.size() > 1 && digits.back() == '0') {
    digits.pop_back();
    ++k;
  }
  const int n = static_cast<int>(digits.size());
  if (k >= 0 && k + n <= kMaxPlainDigits)
    return sign + digits + std::string(static_cast<std::size_t>(k), '0');
  if (k < 0 && -k <= kMaxPlainDigits + n) {
    const int point = n + k; // digits before the decimal point
    if (point > 0)
      return sign + digits.substr(0, static_cast<std::size_t>(point)) + "." +
             digits.substr(static_cast<std::size_t>(point));
    return sign + "0." + std::string(static_cast<std::size_t>(-point), '0') + digits;
  }
  std::string s = sign + digits.substr(0, 1);
  if (n > 1)
    s += "." + digits.substr(1);
  return s + "e" + std::to_string(k + n - 1);
}

namespace {

// The value as digits x 10^k (binary fractions are finite decimals).
struct DecimalParts {
  BigUint digits;
  int k;
};

DecimalParts decimalParts(const ExactValue& v) {
  DecimalParts p{BigUint::fromLimbs(v.significand()), v.exponent()};
  if (v.base() == 2) {
    if (v.exponent() >= 0) {
      p.digits.shiftLeft(v.exponent());
      p.k = 0;
    } else {
      p.digits.mulPow5(-v.exponent());
    }
  }
  return p;
}

// Aligning beyond this many decimal places is not worth it: the difference is
// then returned as its nearest double.
constexpr int kMaxAlignDigits = 4000;

} // namespace

ExactValue absDifference(const ExactValue& a, const ExactValue& b) {
  if (a.isZero())
    return ExactValue::finite(false, b.significand(), b.exponent(), b.base());
  if (b.isZero())
    return ExactValue::finite(false, a.significand(), a.exponent(), a.base());
  const bool tooFar = [&] {
    for (const ExactValue* v : {&a, &b})
      if (std::abs(v->exponent()) > kMaxAlignDigits)
        return true;
    return false;
  }();
  if (tooFar)
    return ExactValue::fromDouble(std::fabs(a.approximate() - b.approximate()));
  DecimalParts x = decimalParts(a), y = decimalParts(b);
  const int k = std::min(x.k, y.k);
  x.digits.mulPow5(x.k - k);
  x.digits.shiftLeft(x.k - k);
  y.digits.mulPow5(y.k - k);
  y.digits.shiftLeft(y.k - k);
  // |a - b| = ||a| - |b|| for equal signs, |a| + |b| otherwise.
  if (a.negative() != b.negative()) {
    x.digits.add(y.digits);
    return ExactValue::finite(false, x.digits.limbs(), k, 10);
  }
  if (compare(x.digits, y.digits) < 0)
    std::swap(x, y);
  x.digits.subtract(y.digits);
  return ExactValue::finite(false, x.digits.limbs(), k, 10);
}

ParseResult parseNumber(std::string_view text) {
  std::string_view t = text;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front())))
    t.remove_prefix(1);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back())))
    t.remove_suffix(1);
  if (t.empty())
    return fail(text, "empty");
  if (t.size() > kMaxTextLength)
    return fail(text.substr(0, 40), "longer than " + std::to_string(kMaxTextLength) + " characters");

  Cursor c{t};
  bool negative = false;
  if (c.peek() == '+' || c.peek() == '-')
    negative = t[c.pos++] == '-';
  const std::string_view word = t.substr(c.pos);
  if (equalsIgnoreCase(word, "inf") || equalsIgnoreCase(word, "infinity"))
    return {ExactValue::infinity(negative), {}};
  if (equalsIgnoreCase(word, "nan"))
    return {ExactValue::nan(negative), {}};

  const bool hex = word.size() >= 2 && word[0] == '0' && (word[1] == 'x' || word[1] == 'X');
  if (hex)
    c.pos += 2;
  BigUint sig;
  int digitCount = 0, fractionDigits = 0;
  bool seenPoint = false;
  for (; !c.done(); ++c.pos) {
    const char ch = c.peek();
    if (ch == '.') {
      if (seenPoint)
        return fail(text, "second '.' at position " + std::to_string(c.pos + 1));
      seenPoint = true;
      continue;
    }
    const int d = hex ? hexDigit(ch) : (std::isdigit(static_cast<unsigned char>(ch)) ? ch - '0' : -1);
    if (d < 0)
      break;
    sig.mulAdd(hex ? 16u : 10u, static_cast<std::uint32_t>(d));
    ++digitCount;
    fractionDigits += seenPoint ? 1 : 0;
  }
  if (digitCount == 0)
    return fail(text, c.done() ? "no digits" : unexpectedAt(c));

  long long exponent = 0;
  const char marker = c.peek();
  if ((hex && (marker == 'p' || marker == 'P')) || (!hex && (marker == 'e' || marker == 'E'))) {
    ++c.pos;
    if (!readExponent(c, exponent))
      return fail(text, std::string("missing exponent digits after '") + marker + "'");
    if (exponent > kMaxTextExponent || exponent < -kMaxTextExponent)
      return fail(text, "exponent beyond +-" + std::to_string(kMaxTextExponent));
  }
  if (!c.done())
    return fail(text, unexpectedAt(c));

  // hex: digits x 16^-fraction x 2^p; decimal: digits x 10^(e - fraction)
  const long long exp = hex ? exponent - 4LL * fractionDigits : exponent - fractionDigits;
  const int clamped = static_cast<int>(std::clamp<long long>(exp, -kExponentClamp, kExponentClamp));
  return {ExactValue::finite(negative, sig.limbs(), clamped, hex ? 2 : 10), {}};
}

} // namespace mantissa::numeric
