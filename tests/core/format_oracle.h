// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// An exact decoder and a nearest-value search for sign/exponent/mantissa
// formats, written from the formats' published definitions with integers only
// (no floating point): the truth the codec is held to. Values are dyadic
// rationals sig x 2^exp; comparisons align them in 128-bit integers.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <ostream>
#include <vector>

namespace format_oracle {

// 128-bit products and shifts (GCC and Clang).
__extension__ typedef unsigned __int128 U128;

enum class Rule { Ieee, Fn, Fnuz, None };

// One format, as its paper or spec defines it.
struct Definition {
  const char* name; // a name or spec the library parses
  bool sign;
  int e, m, bias;
  Rule rule;
  bool subnormals;
  int bits() const { return (sign ? 1 : 0) + e + m; }
};
// GoogleTest names a failing case by its format.
inline void PrintTo(const Definition& d, std::ostream* os) { *os << d.name; }

struct Exact {
  enum class Kind { Number, NaN, Infinity } kind = Kind::Number;
  bool negative = false;
  std::uint64_t sig = 0; // value = sig x 2^exp
  int exp = 0;
  bool operator==(const Exact& o) const {
    if (kind != o.kind)
      return false;
    if (kind == Kind::NaN)
      return true;
    if (negative != o.negative)
      return false;
    if (kind == Kind::Infinity)
      return true;
    if (sig == 0 || o.sig == 0)
      return sig == o.sig;
    // Same value: strip trailing zeros and compare.
    const int ta = std::countr_zero(sig), tb = std::countr_zero(o.sig);
    return (sig >> ta) == (o.sig >> tb) && exp + ta == o.exp + tb;
  }
};

// Magnitudes only: -1, 0, 1.
inline int compareMagnitude(std::uint64_t sa, int ea, std::uint64_t sb, int eb) {
  if (sa == 0 || sb == 0)
    return sa == sb ? 0 : (sa == 0 ? -1 : 1);
  const int topA = std::bit_width(sa) - 1 + ea, topB = std::bit_width(sb) - 1 + eb;
  if (topA != topB)
    return topA < topB ? -1 : 1;
  // Same top bit: the exponents differ by less than 64.
  const int lo = std::min(ea, eb);
  const U128 a = static_cast<U128>(sa) << (ea - lo);
  const U128 b = static_cast<U128>(sb) << (eb - lo);
  return a < b ? -1 : (a > b ? 1 : 0);
}

inline Exact decode(const Definition& d, std::uint64_t p) {
  Exact x;
  const std::uint64_t mMask = (1ull << d.m) - 1, eMask = (1ull << d.e) - 1;
  const bool s = d.sign && ((p >> (d.e + d.m)) & 1u);
  const std::uint64_t E = (p >> d.m) & eMask, M = p & mMask;
  if (d.rule == Rule::Ieee && E == eMask)
    return M == 0 ? Exact{Exact::Kind::Infinity, s} : Exact{Exact::Kind::NaN};
  if (d.rule == Rule::Fn && E == eMask && M == mMask)
    return Exact{Exact::Kind::NaN};
  if (d.rule == Rule::Fnuz && s && E == 0 && M == 0)
    return Exact{Exact::Kind::NaN};
  x.negative = s;
  if (E == 0 && (!d.subnormals || M == 0)) {
    x.negative = s && d.rule != Rule::Fnuz; // no -0 in FNUZ
    return x;                               // zero
  }
  if (E == 0) {
    x.sig = M;
    x.exp = 1 - d.bias - d.m;
  } else {
    x.sig = (1ull << d.m) | M;
    x.exp = static_cast<int>(E) - d.bias - d.m;
  }
  return x;
}

// A double as an Exact, by its bits.
inline Exact fromDouble(double v) {
  const auto b = std::bit_cast<std::uint64_t>(v);
  Exact x;
  x.negative = (b >> 63) != 0;
  const int biased = static_cast<int>((b >> 52) & 0x7ff);
  const std::uint64_t frac = b & ((1ull << 52) - 1);
  if (biased == 0x7ff)
    return frac ? Exact{Exact::Kind::NaN} : Exact{Exact::Kind::Infinity, x.negative};
  x.sig = biased ? frac | (1ull << 52) : frac;
  x.exp = std::max(biased, 1) - 1075;
  return x;
}

enum class Overflow { Infinity, Saturate };

// The format's finite non-negative values with their patterns, ascending.
struct ValueSet {
  Definition def;
  struct Entry {
    std::uint64_t sig;
    int exp;
    std::uint64_t pattern;
  };
  std::vector<Entry> values; // one zero first, then positive values
  explicit ValueSet(const Definition& d) : def(d) {
    const std::uint64_t magnitudes = 1ull << (d.e + d.m);
    values.push_back({0, 0, 0});
    for (std::uint64_t p = 1; p < magnitudes; ++p) {
      const Exact x = decode(d, p);
      if (x.kind == Exact::Kind::Number && x.sig != 0)
        values.push_back({x.sig, x.exp, p});
    }
    std::sort(values.begin(), values.end(), [](const Entry& a, const Entry& b) {
      return compareMagnitude(a.sig, a.exp, b.sig, b.exp) < 0;
    });
  }
  bool hasNan() const { return def.rule != Rule::None; }

  Exact signedValue(bool negative, const Entry& v) const {
    Exact x;
    x.sig = v.sig;
    x.exp = v.exp;
    x.negative = negative && (v.sig != 0 || (def.sign && def.rule != Rule::Fnuz));
    return x;
  }

  // Round to nearest, ties to the even pattern (to the smaller magnitude when
  // both patterns are even: zero against a min normal without subnormals).
  Exact nearest(double input, Overflow overflow) const {
    const Exact in = fromDouble(input);
    const Exact nan{Exact::Kind::NaN};
    if (in.kind == Exact::Kind::NaN)
      return hasNan() ? nan : Exact{};
    if (!def.sign && in.negative)
      return in.kind == Exact::Kind::Number && in.sig == 0 ? Exact{} : (hasNan() ? nan : Exact{});
    const Entry& top = values.back();
    const auto overflowed = [&] {
      if (overflow == Overflow::Saturate || def.rule == Rule::None)
        return signedValue(in.negative, top);
      if (def.rule == Rule::Ieee)
        return Exact{Exact::Kind::Infinity, in.negative};
      return nan;
    };
    if (in.kind == Exact::Kind::Infinity)
      return overflowed();
    // Past max finite: the next value would be max + one unit of max's last bit.
    // Halfway there, the tie goes to the even pattern (max's pattern + 1 if max's is odd).
    {
      const int unitExp = top.exp; // top.sig has m+1 bits (or fewer for subnormal-only formats)
      const std::uint64_t twiceMid = 2 * top.sig + 1;
      const int c = compareMagnitude(in.sig, in.exp, twiceMid, unitExp - 1);
      if (c > 0 || (c == 0 && (top.pattern & 1u)))
        return overflowed();
      if (compareMagnitude(in.sig, in.exp, top.sig, top.exp) >= 0)
        return signedValue(in.negative, top);
    }
    // values[i] <= |x| < values[i+1]
    auto it = std::upper_bound(values.begin(), values.end(), in, [](const Exact& x, const Entry& v) {
      return compareMagnitude(x.sig, x.exp, v.sig, v.exp) < 0;
    });
    const Entry& hi = *it;
    const Entry& lo = *(it - 1);
    if (compareMagnitude(in.sig, in.exp, lo.sig, lo.exp) == 0)
      return signedValue(in.negative, lo);
    // Midpoint (lo + hi) / 2 = (lo.sig x 2^(lo.exp - k) + hi.sig x 2^(hi.exp - k)) x 2^(k - 1).
    const int k = lo.sig == 0 ? hi.exp : std::min(lo.exp, hi.exp);
    const U128 sum =
        (lo.sig == 0 ? 0 : static_cast<U128>(lo.sig) << (lo.exp - k)) +
        (static_cast<U128>(hi.sig) << (hi.exp - k));
    // Compare |x| with sum x 2^(k-1): sum < 2^66, so compare in two halves.
    int c;
    {
      const int topIn = std::bit_width(in.sig) - 1 + in.exp;
      const int sumBits = 128 - static_cast<int>(sum >> 64 ? std::countl_zero(static_cast<std::uint64_t>(sum >> 64))
                                                           : 64 + std::countl_zero(static_cast<std::uint64_t>(sum)));
      const int topMid = sumBits - 1 + (k - 1);
      if (topIn != topMid) {
        c = topIn < topMid ? -1 : 1;
      } else {
        const int lowExp = std::min(in.exp, k - 1);
        // Both shifted by at most ~66 bits into a 128-bit frame relative to lowExp: bounded since tops match.
        const int shiftIn = in.exp - lowExp, shiftMid = (k - 1) - lowExp;
        const U128 a = static_cast<U128>(in.sig) << shiftIn;
        const U128 b = sum << shiftMid;
        c = a < b ? -1 : (a > b ? 1 : 0);
      }
    }
    if (c < 0)
      return signedValue(in.negative, lo);
    if (c > 0)
      return signedValue(in.negative, hi);
    const bool loEven = (lo.pattern & 1u) == 0, hiEven = (hi.pattern & 1u) == 0;
    return signedValue(in.negative, (loEven || !hiEven) ? lo : hi);
  }
};

} // namespace format_oracle
