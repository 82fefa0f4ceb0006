// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Graded exercises: every format and kind gives answerable items whose keys
// the codec decodes to the stated values, and 50 items a kind are derived
// again here with exact integer arithmetic from the formats' definitions
// (IEEE 754 and the OCP MX v1.0 formulas), without the codec and without
// floating point.

#include <mantissa/lessons/exercise.h>
#include <mantissa/numeric/codec.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace {

using mantissa::lessons::AnswerForm;
using mantissa::lessons::AnswerPart;
using mantissa::lessons::Exercise;
using mantissa::lessons::ExerciseKind;
using mantissa::numeric::FloatFormat;
using mantissa::numeric::FormatId;
using mantissa::numeric::formatInfo;
using mantissa::numeric::Layout;
using mantissa::numeric::NanEncoding;
namespace lessons = mantissa::lessons;

// ---- exact arithmetic: natural numbers in base 2^32 ------------------------

struct Nat {
  std::vector<std::uint32_t> d; // little-endian, no high zero limbs
  static Nat of(std::uint64_t v) {
    Nat n;
    while (v) {
      n.d.push_back(static_cast<std::uint32_t>(v));
      v >>= 32;
    }
    return n;
  }
  bool zero() const { return d.empty(); }
  void trim() {
    while (!d.empty() && d.back() == 0)
      d.pop_back();
  }
};

Nat mul(const Nat& a, const Nat& b) {
  Nat r;
  r.d.assign(a.d.size() + b.d.size(), 0);
  for (std::size_t i = 0; i < a.d.size(); ++i) {
    std::uint64_t carry = 0;
    for (std::size_t j = 0; j < b.d.size(); ++j) {
      const std::uint64_t t = std::uint64_t{a.d[i]} * b.d[j] + r.d[i + j] + carry;
      r.d[i + j] = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    std::size_t k = i + b.d.size();
    while (carry) {
      const std::uint64_t t = std::uint64_t{r.d[k]} + carry;
      r.d[k++] = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
  }
  r.trim();
  return r;
}

Nat add(const Nat& a, const Nat& b) {
  Nat r;
  std::uint64_t carry = 0;
  for (std::size_t i = 0; i < std::max(a.d.size(), b.d.size()) || carry; ++i) {
    const std::uint64_t t = carry + (i < a.d.size() ? a.d[i] : 0) + (i < b.d.size() ? b.d[i] : 0);
    r.d.push_back(static_cast<std::uint32_t>(t));
    carry = t >> 32;
  }
  r.trim();
  return r;
}

Nat pow2(int k) {
  Nat r;
  r.d.assign(static_cast<std::size_t>(k / 32) + 1, 0);
  r.d.back() = 1u << (k % 32);
  return r;
}

Nat pow10(int k) {
  Nat r = Nat::of(1);
  for (int i = 0; i < k; ++i)
    r = mul(r, Nat::of(10));
  return r;
}

int cmp(const Nat& a, const Nat& b) {
  if (a.d.size() != b.d.size())
    return a.d.size() < b.d.size() ? -1 : 1;
  for (std::size_t i = a.d.size(); i-- > 0;)
    if (a.d[i] != b.d[i])
      return a.d[i] < b.d[i] ? -1 : 1;
  return 0;
}

// An exact real: (-1)^negative x num / den, or an infinity or NaN.
struct Real {
  enum Kind { Finite, Inf, NaN } kind = Finite;
  bool negative = false;
  Nat num, den = Nat::of(1);
};

Real dyadic(bool negative, std::uint64_t m, int e) { // (-1)^s m 2^e
  Real r;
  r.negative = negative;
  r.num = Nat::of(m);
  if (e >= 0)
    r.num = mul(r.num, pow2(e));
  else
    r.den = pow2(-e);
  return r;
}

int cmpMagnitude(const Real& a, const Real& b) { return cmp(mul(a.num, b.den), mul(b.num, a.den)); }

// Signed comparison of finite reals (zeros of either sign are equal).
int cmpReal(const Real& a, const Real& b) {
  const bool az = a.num.zero(), bz = b.num.zero();
  const int sa = az ? 0 : a.negative ? -1 : 1, sb = bz ? 0 : b.negative ? -1 : 1;
  if (sa != sb)
    return sa < sb ? -1 : 1;
  const int m = cmpMagnitude(a, b);
  return sa >= 0 ? m : -m;
}

bool sameReal(const Real& a, const Real& b) {
  if (a.kind != b.kind)
    return false;
  if (a.kind == Real::NaN)
    return true;
  if (a.kind == Real::Inf)
    return a.negative == b.negative;
  return a.negative == b.negative && cmpMagnitude(a, b) == 0;
}

// A decimal as the sheet writes it: "-0.375", "1.5e-05", "65504", "inf", "nan".
Real parseDecimal(std::string s) {
  Real r;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    r.negative = s[0] == '-';
    s.erase(0, 1);
  }
  if (s == "inf") {
    r.kind = Real::Inf;
    return r;
  }
  if (s == "nan") {
    r.kind = Real::NaN;
    return r;
  }
  int exp10 = 0;
  if (const auto e = s.find_first_of("eE"); e != std::string::npos) {
    exp10 = std::stoi(s.substr(e + 1));
    s.resize(e);
  }
  Nat n;
  for (char c : s) {
    if (c == '.')
      continue;
    n = add(mul(n, Nat::of(10)), Nat::of(static_cast<std::uint64_t>(c - '0')));
  }
  if (const auto dot = s.find('.'); dot != std::string::npos)
    exp10 -= static_cast<int>(s.size() - dot - 1);
  r.num = exp10 >= 0 ? mul(n, pow10(exp10)) : n;
  if (exp10 < 0)
    r.den = pow10(-exp10);
  return r;
}

// ---- the formats from their definitions -------------------------------------

std::uint64_t mask(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

// The value of a pattern by the IEEE 754 / OCP formulas.
Real valueOf(const FloatFormat& f, std::uint64_t code) {
  if (f.layout == Layout::UnsignedExponent) { // E8M0: 2^(c - 127), 0xFF NaN
    if (code == 0xFF) {
      Real r;
      r.kind = Real::NaN;
      return r;
    }
    return dyadic(false, 1, static_cast<int>(code) - 127);
  }
  if (f.layout == Layout::TwosComplement) { // MXINT8: i x 2^-6
    const std::int64_t i = code >= 128 ? static_cast<std::int64_t>(code) - 256 : static_cast<std::int64_t>(code);
    return dyadic(i < 0, static_cast<std::uint64_t>(i < 0 ? -i : i), -6);
  }
  const int eb = f.exponentBits, mb = f.mantissaBits;
  const int bias = (1 << (eb - 1)) - 1;
  const bool negative = (code >> (eb + mb)) & 1u;
  const std::uint64_t e = (code >> mb) & mask(eb), m = code & mask(mb);
  Real special;
  special.negative = negative;
  if (e == mask(eb)) {
    if (f.nan == NanEncoding::Ieee) {
      special.kind = m == 0 ? Real::Inf : Real::NaN;
      return special;
    }
    if (f.nan == NanEncoding::AllOnesOnly && m == mask(mb)) {
      special.kind = Real::NaN;
      return special;
    }
  }
  if (e == 0)
    return dyadic(negative, m, 1 - bias - mb);
  return dyadic(negative, (1ull << mb) | m, static_cast<int>(e) - bias - mb);
}

// The finite values in increasing order, as (index -> code); the index runs
// over magnitudes for sign/exponent/mantissa formats (sign applied after).
struct Ladder {
  std::int64_t lo, hi;
  std::uint64_t code(std::int64_t i) const { return static_cast<std::uint64_t>(i) & mask(bitsWide); }
  int bitsWide;
};

Ladder ladderOf(const FloatFormat& f) {
  if (f.layout == Layout::UnsignedExponent)
    return {0, 254, 8};
  if (f.layout == Layout::TwosComplement)
    return {-128, 127, 8};
  const int eb = f.exponentBits, mb = f.mantissaBits;
  std::int64_t top = static_cast<std::int64_t>(mask(eb + mb));
  if (f.nan == NanEncoding::Ieee)
    top = static_cast<std::int64_t>((mask(eb) - 1) << mb | mask(mb));
  else if (f.nan == NanEncoding::AllOnesOnly)
    top -= 1;
  return {0, top, eb + mb + 1};
}

struct Rounded {
  std::uint64_t code = 0;
  bool overflowed = false;
  bool nan = false; // overflow with neither infinity nor saturation
};

// Round to nearest, ties to even, as IEEE 754 and OCP MX define it; ftz:
// magnitudes below the smallest normal become zero.
Rounded nearestEven(const FloatFormat& f, const Real& x, bool ftz = false) {
  if (f.layout == Layout::TwosComplement) {
    // MXINT8: the nearest integer n to |x| x 64 (ties to even), signed,
    // then kept to [-128, 127].
    const Nat num = mul(x.num, Nat::of(64));
    std::uint64_t lo = 0, hi = 1u << 20; // num / den in [lo, hi)
    while (hi - lo > 1) {
      const std::uint64_t mid = (lo + hi) / 2;
      (cmp(mul(Nat::of(mid), x.den), num) <= 0 ? lo : hi) = mid;
    }
    const int c = cmp(mul(num, Nat::of(2)), mul(Nat::of(2 * lo + 1), x.den));
    const std::int64_t k = static_cast<std::int64_t>(lo) + ((c > 0 || (c == 0 && lo % 2 == 1)) ? 1 : 0);
    const std::int64_t n = x.negative ? -k : k;
    if (n > 127 || n < -128)
      return {n > 0 ? 0x7Fu : 0x80u, true, false};
    return {static_cast<std::uint64_t>(n) & 0xFF, false, false};
  }
  const Ladder L = ladderOf(f);
  const bool sem = f.layout == Layout::SignExponentMantissa;
  const std::uint64_t sign = sem && x.negative ? 1ull << (f.exponentBits + f.mantissaBits) : 0;
  Real target = x;
  if (sem)
    target.negative = false;
  Rounded out;
  if (ftz && sem) {
    const Real minNormal = valueOf(f, 1ull << f.mantissaBits);
    if (cmpMagnitude(target, minNormal) < 0)
      return {sign, false, false};
  }
  // Largest index with value <= target (or lo - 1).
  std::int64_t a = L.lo - 1, b = L.hi + 1; // value(a) <= target < value(b) conceptually
  while (b - a > 1) {
    const std::int64_t mid = a + (b - a) / 2;
    if (cmpReal(valueOf(f, L.code(mid)), target) <= 0)
      a = mid;
    else
      b = mid;
  }
  if (a < L.lo) // below the smallest: E8M0 gives its smallest, MXINT8 saturates
    return {L.code(L.lo), f.layout == Layout::TwosComplement, false};
  const Real lo = valueOf(f, L.code(a));
  if (cmpReal(lo, target) == 0)
    return {L.code(a) | sign, false, false};
  // The value above: the next index, or past the top the one a wider
  // exponent would give (top + one ULP at the top).
  Real hi;
  const bool pastTop = a == L.hi;
  if (!pastTop) {
    hi = valueOf(f, L.code(a + 1));
  } else {
    const Real below = valueOf(f, L.code(L.hi - 1));
    // top + (top - below): the spacing continues.
    const Nat den = mul(lo.den, below.den);
    Nat diff;
    { // lo - below, both positive, lo > below
      const Nat p = mul(lo.num, below.den), q = mul(below.num, lo.den);
      std::int64_t borrow = 0;
      diff.d.resize(p.d.size());
      for (std::size_t i = 0; i < p.d.size(); ++i) {
        std::int64_t t = static_cast<std::int64_t>(p.d[i]) - borrow - (i < q.d.size() ? q.d[i] : 0);
        borrow = t < 0;
        diff.d[i] = static_cast<std::uint32_t>(t + (borrow ? (1ll << 32) : 0));
      }
      diff.trim();
    }
    hi.num = add(mul(lo.num, below.den), diff);
    hi.den = den;
    if (f.layout == Layout::UnsignedExponent) // 2^127 -> 2^128
      hi = dyadic(false, 1, 128);
  }
  // Compare 2 target with lo + hi.
  const Nat twiceT = mul(mul(target.num, Nat::of(2)), mul(lo.den, hi.den));
  const Nat sum = mul(add(mul(lo.num, hi.den), mul(hi.num, lo.den)), target.den);
  const int c = cmp(twiceT, sum);
  bool up = c > 0;
  if (c == 0) {
    const bool loEven = f.layout == Layout::TwosComplement ? (a % 2 == 0) : (L.code(a) % 2 == 0);
    up = !loEven;
  }
  if (!up)
    return {L.code(a) | sign, false, false};
  if (!pastTop)
    return {L.code(a + 1) | sign, false, false};
  out.overflowed = true;
  if (f.hasInfinity()) {
    out.code = f.infinityBits() | sign;
  } else if (f.hasNan()) {
    out.nan = true;
    out.code = f.quietNanBits() | sign;
  } else {
    out.code = L.code(L.hi) | sign;
  }
  return out;
}

bool isNanCode(const FloatFormat& f, std::uint64_t code) { return valueOf(f, code).kind == Real::NaN; }

void expectCode(const FloatFormat& f, std::uint64_t expected, std::uint64_t actual, const std::string& what) {
  if (isNanCode(f, expected)) {
    EXPECT_TRUE(isNanCode(f, actual)) << what;
  } else {
    EXPECT_EQ(expected, actual) << what;
  }
}

std::string between(const std::string& s, const std::string& a, const std::string& b) {
  const auto i = s.find(a);
  if (i == std::string::npos)
    return {};
  const auto j = s.find(b, i + a.size());
  return s.substr(i + a.size(), j - i - a.size());
}

std::string context(const Exercise& ex) {
  return std::string(formatInfo(ex.format).name) + " " + std::string(lessons::exerciseKindName(ex.kind)) +
         " seed " + std::to_string(ex.seed) + ": " + ex.question;
}

// The key's texts a student could type: the bits, the hex code, the value.
std::vector<std::string> keyAnswers(const AnswerPart& p) {
  const FloatFormat& f = formatInfo(p.format);
  std::vector<std::string> typed{mantissa::numeric::formatBitsHex(f, p.bits)};
  if (p.form == AnswerForm::Code)
    typed.push_back(lessons::groupedBits(f, p.bits));
  if (p.value != "nan")
    typed.push_back(p.value);
  return typed;
}

// ---- the re-derivation of one item ------------------------------------------

// An Encode item's animation: the kept pattern (x truncated) and the shown
// cut-off bits bracket x: kept + cut <= |x| < kept + cut + one unit of the
// last shown bit; G and R are the first two cut-off bits and S is set when
// any later one is (shown, or x beyond the bracket's low end); the last
// frame is the nearest-even code.
void expectEncodingFrames(const FloatFormat& f, const Real& x, const Exercise& ex, const std::string& what) {
  ASSERT_EQ(ex.frames.size(), 4u) << what;
  const lessons::SolutionFrame& exact = ex.frames[0];
  const int k = static_cast<int>(exact.cut.size());
  ASSERT_GE(k, 3) << what;
  std::uint64_t cutValue = 0;
  int laterBits = 0;
  for (int i = 0; i < k; ++i) {
    cutValue = 2 * cutValue + static_cast<std::uint64_t>(exact.cut[static_cast<std::size_t>(i)].digit);
    if (i >= 2)
      laterBits |= exact.cut[static_cast<std::size_t>(i)].digit;
  }
  const int m = f.mantissaBits;
  const int field = static_cast<int>((exact.bits & ~f.signMask()) >> m);
  const int unit = field - f.bias() - m - k; // log2 of the last shown bit's weight
  const Real kept = valueOf(f, exact.bits);
  const auto plus = [](const Real& a, const Real& b) {
    Real r;
    r.negative = a.negative;
    r.num = add(mul(a.num, b.den), mul(b.num, a.den));
    r.den = mul(a.den, b.den);
    return r;
  };
  const Real low = plus(kept, dyadic(x.negative, cutValue, unit));
  const Real high = plus(kept, dyadic(x.negative, cutValue + 1, unit));
  EXPECT_EQ((exact.bits & f.signMask()) != 0, x.negative) << what;
  EXPECT_LE(cmpMagnitude(low, x), 0) << what << ": the shown bits exceed x";
  EXPECT_LT(cmpMagnitude(x, high), 0) << what << ": x is beyond the shown bits";
  EXPECT_EQ(exact.moreCut, cmpMagnitude(low, x) != 0) << what << ": more bits follow exactly when x is beyond them";
  const int sticky = laterBits | (cmpMagnitude(low, x) != 0 ? 1 : 0);
  ASSERT_EQ(ex.frames[1].cut.size(), 3u) << what;
  EXPECT_EQ(ex.frames[1].cut[0].digit, exact.cut[0].digit) << what;
  EXPECT_EQ(ex.frames[1].cut[1].digit, exact.cut[1].digit) << what;
  EXPECT_EQ(ex.frames[1].cut[2].digit, sticky) << what;
  EXPECT_EQ(ex.frames[1].cut[2].label, "S") << what;
  EXPECT_EQ(ex.frames.back().bits, nearestEven(f, x).code) << what;
  EXPECT_TRUE(ex.frames.back().cut.empty()) << what;
}

void rederive(const Exercise& ex) {
  const FloatFormat& f = formatInfo(ex.format);
  const std::string what = context(ex);
  for (const AnswerPart& p : ex.parts) {
    if (p.form == AnswerForm::Code || p.form == AnswerForm::Value) {
      EXPECT_TRUE(sameReal(valueOf(formatInfo(p.format), p.bits), parseDecimal(p.value)))
          << what << " part " << p.label << " states " << p.value;
    }
  }
  switch (ex.kind) {
  case ExerciseKind::Encode: {
    const Real x = parseDecimal(between(ex.question, "Encode ", " in "));
    expectCode(f, nearestEven(f, x).code, ex.parts[0].bits, what);
    if (!ex.frames.empty())
      expectEncodingFrames(f, x, ex, what);
    break;
  }
  case ExerciseKind::Decode: {
    const std::string hex = between(ex.question, "(0x", ")");
    const std::uint64_t code = std::stoull(hex, nullptr, 16);
    EXPECT_EQ(code, ex.parts[0].bits) << what;
    break;
  }
  case ExerciseKind::Neighbours: {
    const std::uint64_t code = std::stoull(between(ex.question, ", 0x", ")"), nullptr, 16);
    std::uint64_t up = 0, down = 0;
    Real ulp;
    if (f.layout == Layout::SignExponentMantissa) {
      const std::uint64_t s = 1ull << (f.exponentBits + f.mantissaBits), mag = code & (s - 1);
      if (!(code & s)) {
        up = mag + 1;
        down = mag == 0 ? s | 1 : mag - 1;
      } else {
        up = mag == 0 ? 1 : s | (mag - 1);
        down = s | (mag + 1);
      }
      const std::uint64_t e = (code >> f.mantissaBits) & mask(f.exponentBits);
      ulp = dyadic(false, 1, static_cast<int>(std::max<std::uint64_t>(e, 1)) - ((1 << (f.exponentBits - 1)) - 1) -
                                 f.mantissaBits);
    } else if (f.layout == Layout::UnsignedExponent) {
      up = code + 1;
      down = code - 1;
      ulp = dyadic(false, 1, static_cast<int>(code) - 127);
    } else {
      up = (code + 1) & 0xFF;
      down = (code - 1) & 0xFF;
      ulp = dyadic(false, 1, -6);
    }
    EXPECT_EQ(up, ex.parts[0].bits) << what;
    EXPECT_EQ(down, ex.parts[1].bits) << what;
    EXPECT_TRUE(sameReal(ulp, parseDecimal(ex.parts[2].value))) << what;
    break;
  }
  case ExerciseKind::Round: {
    const Real x = parseDecimal(between(ex.question, "(binary; = ", ")"));
    expectCode(f, nearestEven(f, x).code, ex.parts[1].bits, what);
    const std::string cut = between(ex.question, "|", " x 2^");
    const char sticky = cut.find('1', 2) != std::string::npos ? '1' : '0';
    const std::string grs{cut[0], cut[1], sticky};
    EXPECT_EQ(grs, ex.parts[0].digits) << what;
    // The animation's frames: the exact value's kept bits and cut-off bits
    // add up to x; G R S named; the last frame is the key.
    ASSERT_EQ(ex.frames.size(), 4u) << what;
    const lessons::SolutionFrame& exact = ex.frames[0];
    ASSERT_EQ(exact.cut.size(), cut.size()) << what;
    std::uint64_t cutValue = 0;
    std::string cutDigits;
    for (const lessons::CutBit& b : exact.cut) {
      cutValue = 2 * cutValue + static_cast<std::uint64_t>(b.digit);
      cutDigits += static_cast<char>('0' + b.digit);
    }
    EXPECT_EQ(cutDigits, cut) << what;
    const int m = f.mantissaBits;
    const std::uint64_t magnitudeBits = exact.bits & ~f.signMask();
    const int field = static_cast<int>(magnitudeBits >> m);
    const Real kept = valueOf(f, exact.bits);
    const Real tail = dyadic(x.negative, cutValue, field - f.bias() - m - static_cast<int>(exact.cut.size()));
    Real sum; // kept + tail, both of x's sign
    sum.negative = x.negative;
    sum.num = add(mul(kept.num, tail.den), mul(tail.num, kept.den));
    sum.den = mul(kept.den, tail.den);
    EXPECT_EQ((exact.bits & f.signMask()) != 0, x.negative) << what;
    EXPECT_TRUE(sameReal(sum, x)) << what << ": kept bits plus cut-off bits are not x";
    EXPECT_FALSE(exact.moreCut) << what;
    ASSERT_EQ(ex.frames[1].cut.size(), 3u) << what;
    std::string named;
    for (const lessons::CutBit& b : ex.frames[1].cut)
      named += b.label + "=" + static_cast<char>('0' + b.digit) + " ";
    EXPECT_EQ(named, std::string("G=") + grs[0] + " R=" + grs[1] + " S=" + grs[2] + " ") << what;
    EXPECT_EQ(ex.frames[1].bits, exact.bits) << what;
    EXPECT_EQ(ex.frames[2].bits, exact.bits) << what;
    EXPECT_EQ(ex.frames.back().bits, nearestEven(f, x).code) << what;
    EXPECT_TRUE(ex.frames.back().cut.empty()) << what;
    break;
  }
  case ExerciseKind::Range: {
    const bool ftz = ex.question.find("FTZ") != std::string::npos;
    std::vector<int> zero, over;
    for (std::size_t i = 0; i < ex.items.size(); ++i) {
      const Real x = parseDecimal(ex.items[i]);
      const Rounded r = nearestEven(f, x, ftz);
      if (!x.num.zero() && !r.overflowed && valueOf(f, r.code).num.zero())
        zero.push_back(static_cast<int>(i) + 1);
      if (r.overflowed)
        over.push_back(static_cast<int>(i) + 1);
    }
    EXPECT_EQ(zero, ex.parts[0].indices) << what;
    EXPECT_EQ(over, ex.parts[1].indices) << what;
    break;
  }
  case ExerciseKind::MxScale: {
    // OCP MX v1.0 table: emax of each element format.
    int emax = 0;
    switch (ex.format) {
    case FormatId::Fp8E4M3: emax = 8; break;
    case FormatId::Fp8E5M2: emax = 15; break;
    case FormatId::Fp6E2M3: emax = 2; break;
    case FormatId::Fp6E3M2: emax = 4; break;
    case FormatId::Fp4E2M1: emax = 2; break;
    case FormatId::Int8: emax = 0; break;
    default: FAIL() << what;
    }
    Real amax;
    std::vector<Real> xs;
    for (const std::string& item : ex.items) {
      xs.push_back(parseDecimal(item));
      if (cmpMagnitude(xs.back(), amax) > 0)
        amax = xs.back();
    }
    int k = -200;
    while (cmpMagnitude(dyadic(false, 1, k + 1), amax) <= 0)
      ++k;
    const int x = std::clamp(k - emax, -127, 127);
    EXPECT_EQ(static_cast<std::uint64_t>(x + 127), ex.parts[0].bits) << what;
    std::vector<int> clipped;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      Real scaled = xs[i];
      if (x >= 0)
        scaled.den = mul(scaled.den, pow2(x));
      else
        scaled.num = mul(scaled.num, pow2(-x));
      const Rounded r = nearestEven(f, scaled);
      const bool minInt = f.layout == Layout::TwosComplement && r.code == 0x80; // -128 -> -127
      if (r.overflowed || minInt)
        clipped.push_back(static_cast<int>(i) + 1);
    }
    EXPECT_EQ(clipped, ex.parts[1].indices) << what;
    break;
  }
  case ExerciseKind::LossScale: break; // rederiveLossScale
  }
}

// The five scaler presets, re-derived from their libraries' published update
// rules with the published defaults written here (never amp::LossScaler). The
// scale stays a power of two, so it is tracked as its log2. Every preset skips
// the optimizer step of every overflowing iteration (GradScaler's skipped
// step.step(), Keras' and Apex's skip, DeepSpeed's "OVERFLOW! ... Skipping
// step", Megatron's found_inf skip).
//
// pytorch, keras, apex (torch.cuda.amp.GradScaler, keras LossScaleOptimizer,
// apex.amp LossScaler): a tracker of consecutive finite steps; x2 when it
// reaches 2000 (then reset), x0.5 and reset on an overflow. Init 2^16 (Keras
// 2^15); Apex never above 2^24.
//
// deepspeed (deepspeed/runtime/fp16/loss_scaler.py DynamicLossScaler with the
// fp16 config defaults: initial_scale_power 16, loss_scale_window 1000,
// hysteresis 2, consecutive_hysteresis false, min_loss_scale 1):
//   overflow: if delayed_shift == 1 or cur_hysteresis == 1:
//               cur_scale = max(cur_scale / 2, min_scale)
//             else: cur_hysteresis -= 1
//             last_overflow_iter = cur_iter
//   finite:   stable = cur_iter - last_overflow_iter - 1
//             if stable > 0 and stable % scale_window == 0:
//               cur_hysteresis = delayed_shift; cur_scale *= 2
//   then cur_iter += 1 (cur_iter starts at 0, last_overflow_iter at -1).
//
// megatron (megatron/core/optimizer/grad_scaler.py DynamicGradScaler with the
// OptimizerConfig defaults: initial_loss_scale 2^32, min_loss_scale 1,
// loss_scale_window 1000, hysteresis 2, growth 2, backoff 0.5):
//   found_inf: growth_tracker = 0; hysteresis_tracker -= 1;
//              if hysteresis_tracker <= 0: scale = max(scale * 0.5, min_scale)
//   else:      growth_tracker += 1; if growth_tracker == growth_interval:
//              growth_tracker = 0; hysteresis_tracker = hysteresis; scale *= 2
//
// Returns the preset's name ("" when the question names none of the five);
// `hysteresisMattered` is set when the same run without hysteresis would end
// at another scale (so the item tests the hysteresis rule).
std::string rederiveLossScale(const Exercise& ex, bool& hysteresisMattered) {
  const std::string preset = between(ex.question, "loss scaler ", ":");
  struct Rules {
    int initLog2, interval, hysteresis, minLog2, maxLog2;
  };
  constexpr int kNone = 1 << 20;
  Rules r{};
  if (preset == "pytorch") r = {16, 2000, 1, -kNone, kNone};
  else if (preset == "keras") r = {15, 2000, 1, -kNone, kNone};
  else if (preset == "apex") r = {16, 2000, 1, -kNone, 24};
  else if (preset == "deepspeed") r = {16, 1000, 2, 0, kNone};
  else if (preset == "megatron") r = {32, 1000, 2, 0, kNone};
  else {
    ADD_FAILURE() << "unknown preset '" << preset << "' in " << context(ex);
    return "";
  }
  std::vector<bool> overflows;
  const std::string runs = between(ex.question, "training runs ", ". What");
  for (std::size_t pos = 0; pos < runs.size();) {
    std::size_t end = runs.find(", ", pos);
    if (end == std::string::npos)
      end = runs.size();
    const std::string run = runs.substr(pos, end - pos);
    overflows.insert(overflows.end(), static_cast<std::size_t>(std::stoi(run)),
                     run.find("overflowing") != std::string::npos);
    pos = end + 2;
  }
  const auto simulate = [&](int hysteresis, int& skipped) {
    int scaleLog2 = r.initLog2;
    skipped = 0;
    if (preset == "deepspeed") {
      long long curIter = 0, lastOverflowIter = -1;
      int curHysteresis = hysteresis;
      for (bool overflow : overflows) {
        if (overflow) {
          ++skipped;
          if (hysteresis == 1 || curHysteresis == 1) {
            if (scaleLog2 == r.minLog2) {
              ADD_FAILURE() << "DeepSpeed would end the run at min_scale: " << context(ex);
              return scaleLog2;
            }
            scaleLog2 = std::max(scaleLog2 - 1, r.minLog2);
          } else {
            --curHysteresis;
          }
          lastOverflowIter = curIter;
        } else {
          const long long stable = curIter - lastOverflowIter - 1;
          if (stable > 0 && stable % r.interval == 0) {
            curHysteresis = hysteresis;
            ++scaleLog2;
          }
        }
        ++curIter;
      }
    } else if (preset == "megatron") {
      int growthTracker = 0, hysteresisTracker = hysteresis;
      for (bool overflow : overflows) {
        if (overflow) {
          ++skipped;
          growthTracker = 0;
          if (--hysteresisTracker <= 0)
            scaleLog2 = std::max(scaleLog2 - 1, r.minLog2);
        } else if (++growthTracker == r.interval) {
          growthTracker = 0;
          hysteresisTracker = hysteresis;
          ++scaleLog2;
        }
      }
    } else {
      int tracker = 0;
      for (bool overflow : overflows) {
        if (overflow) {
          ++skipped;
          --scaleLog2;
          tracker = 0;
        } else if (++tracker == r.interval) {
          tracker = 0;
          scaleLog2 = std::min(scaleLog2 + 1, r.maxLog2);
        }
      }
    }
    return scaleLog2;
  };
  int skipped = 0, skippedWithout = 0;
  const int scaleLog2 = simulate(r.hysteresis, skipped);
  hysteresisMattered = r.hysteresis > 1 && simulate(1, skippedWithout) != scaleLog2;
  EXPECT_TRUE(sameReal(dyadic(false, 1, scaleLog2), parseDecimal(ex.parts[0].value)))
      << preset << ": 2^" << scaleLog2 << " expected; " << context(ex);
  EXPECT_TRUE(sameReal(dyadic(false, static_cast<std::uint64_t>(skipped), 0), parseDecimal(ex.parts[1].value)))
      << preset << ": " << skipped << " skipped expected; " << context(ex);
  return preset;
}

} // namespace

// Every format and kind: 1000 items, each with an answer the checker accepts
// in every written form, a key the codec decodes to the stated value, a
// wrong answer rejected, and a worked solution.
TEST(Exercises, EveryFormatAndKindGivesAnsweredItems) {
  for (FormatId id : lessons::exerciseFormats()) {
    const FloatFormat& f = formatInfo(id);
    for (ExerciseKind kind : lessons::allExerciseKinds()) {
      if (!lessons::kindAppliesTo(kind, id)) {
        EXPECT_THROW(lessons::generateExercise(id, kind, 1, 1), std::invalid_argument);
        continue;
      }
      for (int i = 0; i < 1000; ++i) {
        const Exercise ex = lessons::generateExercise(id, kind, 1000003ull * i + 17, 1 + i % 3);
        const std::string what = context(ex);
        ASSERT_FALSE(ex.question.empty()) << what;
        ASSERT_FALSE(ex.parts.empty()) << what;
        EXPECT_FALSE(ex.steps.empty()) << what;
        for (const AnswerPart& p : ex.parts) {
          ASSERT_FALSE(p.keyText.empty()) << what;
          if (p.form == AnswerForm::Code || p.form == AnswerForm::Value) {
            const FloatFormat& pf = formatInfo(p.format);
            EXPECT_EQ(mantissa::numeric::decode(pf, p.bits).exactDecimal, p.value) << what;
            for (const std::string& typed : keyAnswers(p))
              EXPECT_TRUE(lessons::gradePart(p, typed).correct) << what << " typed " << typed;
            const std::uint64_t other = p.bits ^ 1u; // another pattern: a different value
            if (!isNanCode(pf, other) && !(valueOf(pf, other).num.zero() && valueOf(pf, p.bits).num.zero())) {
              EXPECT_FALSE(lessons::gradePart(p, mantissa::numeric::formatBitsHex(pf, other)).correct) << what;
            }
          } else if (p.form == AnswerForm::Indices) {
            EXPECT_TRUE(lessons::gradePart(p, p.keyText).correct) << what;
            EXPECT_FALSE(lessons::gradePart(p, p.indices.empty() ? "1" : "none").correct) << what;
            EXPECT_TRUE(std::is_sorted(p.indices.begin(), p.indices.end()));
            for (int k : p.indices)
              EXPECT_TRUE(k >= 1 && static_cast<std::size_t>(k) <= ex.items.size()) << what;
          } else {
            EXPECT_TRUE(lessons::gradePart(p, p.digits).correct) << what;
            std::string flipped = p.digits;
            flipped[0] = flipped[0] == '0' ? '1' : '0';
            EXPECT_FALSE(lessons::gradePart(p, flipped).correct) << what;
          }
        }
        if (::testing::Test::HasFailure())
          return;
      }
      (void)f;
    }
  }
}

TEST(Exercises, FiftyItemsPerKindAgreeWithAnExactDerivation) {
  for (FormatId id : lessons::exerciseFormats()) {
    for (ExerciseKind kind : lessons::allExerciseKinds()) {
      if (!lessons::kindAppliesTo(kind, id))
        continue;
      int derived = 0;
      if (kind == ExerciseKind::LossScale) {
        // 50 items of each preset, each re-derived from its library's rules.
        std::map<std::string, int> perPreset;
        std::map<std::string, int> hysteresisItems;
        const auto enough = [&] {
          return perPreset.size() == 5 &&
                 std::all_of(perPreset.begin(), perPreset.end(), [](const auto& p) { return p.second >= 50; });
        };
        for (int i = 0; !enough() && i < 5000; ++i) {
          const Exercise ex = lessons::generateExercise(id, kind, 7777ull + i, 1 + i % 3);
          bool hysteresisMattered = false;
          const std::string preset = rederiveLossScale(ex, hysteresisMattered);
          if (perPreset[preset] < 50) {
            ++perPreset[preset];
            ++derived;
            hysteresisItems[preset] += hysteresisMattered ? 1 : 0;
          }
          if (::testing::Test::HasFailure())
            return;
        }
        for (const char* preset : {"pytorch", "keras", "apex", "deepspeed", "megatron"})
          EXPECT_EQ(perPreset[preset], 50) << formatInfo(id).name << " " << preset;
        // Items on which the hysteresis decides the answer, so the rule is tested.
        EXPECT_GT(hysteresisItems["deepspeed"], 0) << formatInfo(id).name;
        EXPECT_GT(hysteresisItems["megatron"], 0) << formatInfo(id).name;
        EXPECT_EQ(derived, 250) << formatInfo(id).name;
        continue;
      }
      for (int i = 0; derived < 50 && i < 400; ++i) {
        const Exercise ex = lessons::generateExercise(id, kind, 7777ull + i, 1 + i % 3);
        rederive(ex);
        ++derived;
        if (::testing::Test::HasFailure())
          return;
      }
      EXPECT_EQ(derived, 50) << formatInfo(id).name << " " << lessons::exerciseKindName(kind);
    }
  }
}

// Encode items that round between two normal values carry the animation,
// re-derived exactly above; exact or out-of-range ones show static cells.
TEST(Exercises, EncodeItemsThatRoundAreAnimated) {
  for (FormatId id : {FormatId::Fp32, FormatId::Bf16, FormatId::Fp16, FormatId::Fp8E4M3, FormatId::Fp8E5M2}) {
    int animated = 0;
    for (int i = 0; i < 300; ++i) {
      const Exercise ex = lessons::generateExercise(id, ExerciseKind::Encode, 424242ull + i, 2 + i % 2);
      if (ex.frames.empty())
        continue;
      ++animated;
      rederive(ex);
      if (::testing::Test::HasFailure())
        return;
    }
    EXPECT_GT(animated, 50) << formatInfo(id).name;
  }
}

TEST(Exercises, SameSeedGivesTheSameSheet) {
  lessons::SheetSpec spec;
  spec.format = FormatId::Fp8E4M3;
  spec.kind = ExerciseKind::Round;
  spec.count = 20;
  spec.seed = 7;
  const std::string a = lessons::sheetMarkdown(lessons::generateSheet(spec));
  const std::string b = lessons::sheetMarkdown(lessons::generateSheet(spec));
  EXPECT_EQ(a, b);
  spec.seed = 8;
  EXPECT_NE(a, lessons::sheetMarkdown(lessons::generateSheet(spec)));
  EXPECT_NE(a.find("## Answer key"), std::string::npos);
  EXPECT_NE(a.find("20. "), std::string::npos);
  spec.count = 0;
  EXPECT_THROW(lessons::generateSheet(spec), std::invalid_argument);
}

// The checker's forms on FP8 E4M3's 0x53 = 0 1010 011 = 1.375 x 2^3 = 11
// (bias 7), from the OCP FP8 table.
TEST(Exercises, AnswerFormsForOnePattern) {
  AnswerPart p;
  p.form = AnswerForm::Code;
  p.format = FormatId::Fp8E4M3;
  p.bits = 0x53;
  p.value = "11";
  for (const char* ok : {"0x53", "0X53", "0101 0011", "01010011", "0b0101_0011", "11", " 11.0 ", "0x1.6p3"})
    EXPECT_TRUE(lessons::gradePart(p, ok).correct) << ok;
  for (const char* wrong : {"0x54", "0101 0010", "11.5", "10", "", "eleven", "0x153", "2^3", "0b0101"})
    EXPECT_FALSE(lessons::gradePart(p, wrong).correct) << wrong;
  // A Value part accepts a decimal that rounds to the key: 0.1 names FP32 0x3dcccccd.
  AnswerPart v;
  v.form = AnswerForm::Value;
  v.format = FormatId::Fp32;
  v.bits = 0x3dcccccd;
  EXPECT_TRUE(lessons::gradePart(v, "0.1").correct);
  EXPECT_TRUE(lessons::gradePart(v, "0x3dcccccd").correct);
  EXPECT_FALSE(lessons::gradePart(v, "0.2").correct);
  AnswerPart s;
  s.form = AnswerForm::Value;
  s.format = FormatId::Fp64;
  s.bits = 0x40f0000000000000ull; // 65536
  EXPECT_TRUE(lessons::gradePart(s, "2^16").correct);
  EXPECT_TRUE(lessons::gradePart(s, "65536").correct);
  EXPECT_FALSE(lessons::gradePart(s, "2^15").correct);
  AnswerPart list;
  list.form = AnswerForm::Indices;
  list.indices = {2, 5};
  EXPECT_TRUE(lessons::gradePart(list, "5, 2").correct);
  EXPECT_TRUE(lessons::gradePart(list, "2 and 5").correct);
  EXPECT_FALSE(lessons::gradePart(list, "2").correct);
  EXPECT_FALSE(lessons::gradePart(list, "2, x").correct);
  list.indices = {};
  EXPECT_TRUE(lessons::gradePart(list, "None").correct);
  AnswerPart grs;
  grs.form = AnswerForm::Digits;
  grs.digits = "101";
  EXPECT_TRUE(lessons::gradePart(grs, "G=1 R=0 S=1").correct);
  EXPECT_TRUE(lessons::gradePart(grs, "1 0 1").correct);
  EXPECT_FALSE(lessons::gradePart(grs, "100").correct);
}
