// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/numeric/codec.h>

#include "numeric/big_uint.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>

namespace mantissa::numeric {
namespace {

using detail::BigUint;

// One rounding step, shared by the exact (big integer) and the double paths.
// The value is (truncated + f) x 2^quantum with 0 <= f < 1, where truncated
// is an integer < 2^(mantissaBits + 1); `Discarded` describes f.
struct Discarded {
  int vsHalf = -1;           // sign of f - 1/2
  bool nonZero = false;      // f > 0
  bool stochasticUp = false; // random < f x 2^32 (exactly)
};

bool roundsUp(Rounding mode, bool negative, std::uint64_t truncated, const Discarded& d) {
  switch (mode) {
  case Rounding::NearestEven: return d.vsHalf > 0 || (d.vsHalf == 0 && (truncated & 1u));
  case Rounding::TowardZero: return false;
  case Rounding::Up: return d.nonZero && !negative;
  case Rounding::Down: return d.nonZero && negative;
  case Rounding::Stochastic: return d.stochasticUp;
  }
  return false;
}

// Does an overflow of this sign go to infinity (IEEE 754 7.4) or stop at max finite?
bool overflowGoesToInfinity(const EncodeOptions& o, bool negative) {
  if (o.overflow == OverflowMode::Saturate)
    return false;
  switch (o.rounding) {
  case Rounding::TowardZero: return false;
  case Rounding::Up: return !negative;
  case Rounding::Down: return negative;
  default: return true;
  }
}

std::uint64_t infinityOrNan(const FloatFormat& f) {
  if (!f.hasNan())
    return f.maxFiniteBits(); // FP6/FP4: nothing but numbers, so saturate
  return f.hasInfinity() ? f.infinityBits() : f.quietNanBits(); // E4M3FN: NaN (OCP, non-saturating)
}

// The zero a value of this sign rounds to: -0 only where the format has one
// (not in FNUZ formats, where its pattern is the NaN, nor in unsigned ones).
std::uint64_t zeroBits(const FloatFormat& f, bool negative) {
  return negative && f.hasNegativeZero() ? f.signMask() : 0;
}

// INT8 (MXINT8): the magnitude q (in units of 2^-6) rounded from `truncated`,
// clamped to 127 (positive) or 128 (negative), stored as two's complement.
EncodeResult packInt(const FloatFormat& f, bool negative, std::uint64_t truncated, const Discarded& d,
                     const EncodeOptions& o) {
  EncodeResult r;
  r.inexact = d.nonZero;
  std::uint64_t q = truncated;
  if (roundsUp(o.rounding, negative, q, d))
    ++q;
  const std::uint64_t limit = negative ? f.signMask() : f.maxFiniteBits();
  if (q > limit) {
    q = limit;
    r.overflowed = r.inexact = true;
  }
  if (q == 0) {
    r.underflowed = d.nonZero;
    return r;
  }
  const std::uint64_t all = (f.signMask() << 1) - 1;
  r.bits = negative ? ((all + 1 - q) & all) : q;
  return r;
}

EncodeResult pack(const FloatFormat& f, bool negative, std::uint64_t truncated, int quantum,
                  const Discarded& d, const EncodeOptions& o) {
  if (f.layout == Layout::TwosComplement)
    return packInt(f, negative, truncated, d, o);
  const int m = f.mantissaBits;
  const std::uint64_t sign = negative ? f.signMask() : 0;
  EncodeResult r;
  r.inexact = d.nonZero;
  std::uint64_t q = truncated;
  bool up = roundsUp(o.rounding, negative, q, d);
  // A format without fraction bits (E8M0, e5m0): both neighbours of a tie
  // have significand 1, so "even" is read on the stored code, the biased exponent.
  if (m == 0 && o.rounding == Rounding::NearestEven && d.vsHalf == 0 && q == 1)
    up = ((quantum + f.bias()) & 1) != 0;
  if (up && ++q == (2ull << m)) {
    q >>= 1; // carried into the next binade
    ++quantum;
  }
  // Without subnormals a value below the min normal was rounded in units of
  // the min normal (quantumFor): q is 0 or 1, and 1 is the min normal.
  if (!f.subnormals && q != 0 && q < (1ull << m) && f.layout == Layout::SignExponentMantissa) {
    q <<= m;
    quantum -= m;
  }
  if (q == 0 && f.layout == Layout::UnsignedExponent) {
    r.bits = 0; // no zero: the smallest scale, 2^-127
    r.underflowed = r.inexact = true;
    return r;
  }
  if (q == 0) {
    r.bits = zeroBits(f, negative);
    r.underflowed = d.nonZero;
    return r;
  }
  // Normal when the implicit bit is present; otherwise quantum == emin - m.
  const bool normal = q >= (1ull << m);
  const long long biased = normal ? static_cast<long long>(quantum) + m + f.bias() : 0;
  const std::uint64_t field = normal ? q - (1ull << m) : q;
  const std::uint64_t maxBits = f.maxFiniteBits();
  const long long maxBiased = static_cast<long long>(maxBits >> m);
  const std::uint64_t maxField = maxBits & ((1ull << m) - 1);
  if (biased > maxBiased || (biased == maxBiased && field > maxField)) {
    r.overflowed = true;
    r.inexact = true;
    r.bits = sign | (overflowGoesToInfinity(o, negative) ? infinityOrNan(f) : maxBits);
    return r;
  }
  r.bits = sign | (static_cast<std::uint64_t>(biased) << m) | field;
  return r;
}

EncodeResult flushedZero(const FloatFormat& f, bool negative) {
  EncodeResult r;
  r.bits = zeroBits(f, negative);
  r.inexact = r.underflowed = r.flushed = true;
  return r;
}

EncodeResult special(const FloatFormat& f, ExactValue::Kind kind, bool negative,
                     const EncodeOptions& o) {
  EncodeResult r;
  const std::uint64_t sign = negative ? f.signMask() : 0;
  if (kind == ExactValue::Kind::NaN) {
    r.bits = sign | f.quietNanBits();
    if (!f.hasNan()) {
      r.bits = 0; // FP6/FP4/INT8 have no NaN
      r.invalid = true;
    } else if (!f.hasSign()) {
      r.bits = f.quietNanBits();
    }
  } else if (f.layout == Layout::TwosComplement) {
    r.bits = negative ? f.signMask() : f.maxFiniteBits(); // -2 or 127/64
    r.overflowed = r.inexact = true;
  } else if (!f.hasSign() && negative) {
    r.bits = f.quietNanBits(); // E8M0, UE4M3: -inf (0 if the format has no NaN)
    r.invalid = r.inexact = true;
  } else if (o.overflow == OverflowMode::Saturate || !f.hasNan()) {
    r.bits = sign | f.maxFiniteBits(); // OCP FP8 saturating mode: +-inf -> +-max
    r.overflowed = r.inexact = true;
  } else {
    r.bits = sign | infinityOrNan(f);
    r.overflowed = r.inexact = !f.hasInfinity();
  }
  return r;
}

// Values this far out behave like any other value beyond every format here
// (fp64 spans 2^-1074 .. 2^1024), so they are replaced by 2^+-kFar.
constexpr int kFar = 1200;

// Zeros and signs the E8M0, INT8 and unsigned formats cannot store as such.
std::optional<EncodeResult> layoutSpecial(const FloatFormat& f, bool isZero, bool negative) {
  EncodeResult r;
  if (f.layout == Layout::SignExponentMantissa && !f.hasSign() && negative) {
    if (isZero)
      return r; // +0: there is no -0
    r.bits = f.quietNanBits(); // no negative numbers (0 if the format has no NaN)
    r.invalid = r.inexact = true;
    return r;
  }
  if (f.layout == Layout::UnsignedExponent) {
    if (isZero) {
      r.bits = 0; // no zero: the smallest scale
      r.underflowed = r.inexact = true;
      return r;
    }
    if (negative) {
      r.bits = f.quietNanBits();
      r.invalid = r.inexact = true;
      return r;
    }
  } else if (f.layout == Layout::TwosComplement && isZero) {
    return r; // one zero, no -0
  }
  return std::nullopt;
}

// The quantum (weight of the last stored bit) for a value of binade exp2.
int quantumFor(const FloatFormat& f, int exp2) {
  if (f.layout == Layout::TwosComplement)
    return -f.mantissaBits;
  // No subnormals: below the min normal the only values are 0 and min normal.
  if (!f.subnormals && f.layout == Layout::SignExponentMantissa && exp2 < f.minNormalExponent())
    return f.minNormalExponent();
  return std::max(exp2, f.minNormalExponent()) - f.mantissaBits;
}

bool flushes(const FloatFormat& f, const EncodeOptions& o, int exp2) {
  return o.flushSubnormals && f.layout == Layout::SignExponentMantissa && exp2 < f.minNormalExponent();
}

// INT8 values of 4 or more saturate whatever the rounding.
bool intOutOfRange(const FloatFormat& f, int exp2) {
  return f.layout == Layout::TwosComplement && exp2 >= 2;
}

EncodeResult intSaturated(const FloatFormat& f, bool negative) {
  EncodeResult r;
  r.bits = negative ? f.signMask() : f.maxFiniteBits();
  r.overflowed = r.inexact = true;
  return r;
}

} // namespace

EncodeResult encode(const FloatFormat& f, const ExactValue& value, const EncodeOptions& o) {
  if (value.kind() != ExactValue::Kind::Finite)
    return special(f, value.kind(), value.negative(), o);
  const bool negative = value.negative();
  if (auto r = layoutSpecial(f, value.isZero(), negative))
    return *r;
  if (value.isZero())
    return EncodeResult{zeroBits(f, negative), false, false, false, false};

  // value = num / den x 2^twos, with num, den free of the power of two.
  BigUint num = BigUint::fromLimbs(value.significand()), den(1);
  int twos = value.exponent();
  if (value.base() == 10) {
    const int e = value.exponent();
    const double log2Estimate = num.bitLength() + e * 3.3219280948873623;
    if (log2Estimate > kFar + 64 || log2Estimate < -kFar - 64) {
      num = BigUint(1);
      twos = log2Estimate > 0 ? kFar : -kFar;
    } else if (e >= 0) {
      num.mulPow5(e);
    } else {
      den.mulPow5(-e);
    }
  } else if (num.bitLength() + twos > kFar || num.bitLength() + twos < -kFar) {
    twos = num.bitLength() + twos > 0 ? kFar : -kFar;
    num = BigUint(1);
  }

  // exp2 = floor(log2(value)): first from bit lengths, then one comparison.
  int shift = num.bitLength() - den.bitLength();
  {
    BigUint a = num, b = den;
    if (shift >= 0)
      b.shiftLeft(shift);
    else
      a.shiftLeft(-shift);
    if (compare(a, b) < 0)
      --shift;
  }
  const int exp2 = shift + twos;
  const int m = f.mantissaBits;
  if (flushes(f, o, exp2))
    return flushedZero(f, negative); // tiny before rounding, as x86 FTZ/DAZ
  if (intOutOfRange(f, exp2))
    return intSaturated(f, negative);

  // truncated = floor(value / 2^quantum) by shift-and-subtract long division;
  // it has at most m + 1 bits (m + 2 for INT8 values in [2, 4)).
  const int quantum = quantumFor(f, exp2);
  BigUint rem = num, divisor = den;
  const int s = twos - quantum;
  if (s >= 0)
    rem.shiftLeft(s);
  else
    divisor.shiftLeft(-s);
  std::uint64_t truncated = 0;
  BigUint step = divisor;
  step.shiftLeft(m + 1);
  for (int bit = m + 1; bit >= 0; --bit) {
    if (compare(rem, step) >= 0) {
      rem.subtract(step);
      truncated |= 1ull << bit;
    }
    step.shiftRight(1);
  }
  Discarded d;
  d.nonZero = !rem.isZero();
  BigUint twice = rem;
  twice.shiftLeft(1);
  d.vsHalf = compare(twice, divisor);
  if (o.rounding == Rounding::Stochastic && d.nonZero) {
    BigUint lhs = divisor, rhs = rem; // random x den < rem x 2^32
    lhs.mulAdd(o.random, 0);
    rhs.shiftLeft(32);
    d.stochasticUp = compare(lhs, rhs) < 0;
  }
  return pack(f, negative, truncated, quantum, d, o);
}

EncodeResult encode(const FloatFormat& f, double value, const EncodeOptions& o) {
  const auto bits = std::bit_cast<std::uint64_t>(value);
  const bool negative = (bits >> 63) != 0;
  const std::uint64_t sign = negative ? f.signMask() : 0;
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  const std::uint64_t fraction = bits & ((1ull << 52) - 1);
  if (biased == 0x7ff && fraction != 0) {
    // NaN: keep the sign and the payload's top bits, set the quiet bit, as
    // x86 conversions do. E4M3FN has a single NaN pattern.
    EncodeResult r;
    if (!f.hasNan())
      r.invalid = true; // FP6/FP4/INT8: +0
    else if (f.nan == NanEncoding::Fnuz)
      r.bits = f.quietNanBits(); // the one NaN, 0x80
    else if (f.nan == NanEncoding::AllOnesOnly || !f.hasSign())
      r.bits = sign | f.quietNanBits();
    else
      r.bits = sign | f.quietNanBits() | (fraction >> (52 - f.mantissaBits));
    return r;
  }
  if (biased == 0x7ff)
    return special(f, ExactValue::Kind::Infinity, negative, o);
  if (auto r = layoutSpecial(f, biased == 0 && fraction == 0, negative))
    return *r;
  if (biased == 0 && fraction == 0)
    return EncodeResult{zeroBits(f, negative), false, false, false, false};

  // value = sig x 2^e exactly, sig < 2^53.
  const std::uint64_t sig = biased == 0 ? fraction : fraction | (1ull << 52);
  const int e = std::max(biased, 1) - 1075;
  const int exp2 = std::bit_width(sig) - 1 + e;
  if (flushes(f, o, exp2))
    return flushedZero(f, negative);
  if (intOutOfRange(f, exp2))
    return intSaturated(f, negative);
  const int quantum = quantumFor(f, exp2);
  const int s = quantum - e; // bits to drop
  if (s <= 0)
    return pack(f, negative, sig << -s, quantum, Discarded{}, o);
  const std::uint64_t truncated = s >= 64 ? 0 : sig >> s;
  const std::uint64_t rem = s >= 64 ? sig : sig & ((1ull << s) - 1);
  Discarded d;
  d.nonZero = rem != 0;
  // f - 1/2 compared as rem vs 2^(s-1); rem < 2^53 so s > 54 means below half.
  d.vsHalf = s - 1 >= 64 ? -1 : (rem > (1ull << (s - 1)) ? 1 : (rem == (1ull << (s - 1)) ? 0 : -1));
  if (o.rounding == Rounding::Stochastic && d.nonZero) {
    // random < rem x 2^(32-s), i.e. random < ceil(rem / 2^(s-32)) when s > 32.
    std::uint64_t threshold = 0;
    if (s <= 32)
      threshold = rem << (32 - s);
    else if (s - 32 >= 64)
      threshold = 1; // 0 < f < 2^-32: ceil gives 1
    else
      threshold = (rem >> (s - 32)) + ((rem & ((1ull << (s - 32)) - 1)) != 0 ? 1 : 0);
    d.stochasticUp = o.random < threshold;
  }
  return pack(f, negative, truncated, quantum, d, o);
}

} // namespace mantissa::numeric
