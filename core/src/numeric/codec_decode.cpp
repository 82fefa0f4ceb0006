// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The decoding half of codec.h: fields, class, exact value, neighbours, ULP.
#include <mantissa/numeric/codec.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>

namespace mantissa::numeric {
namespace {

std::uint64_t lowMask(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

struct Fields {
  bool negative;
  std::uint32_t biased;
  std::uint64_t mantissa;
};

Fields split(const FloatFormat& f, std::uint64_t bits) {
  bits &= lowMask(f.totalBits());
  return {(bits & f.signMask()) != 0,
          static_cast<std::uint32_t>((bits >> f.mantissaBits) & lowMask(f.exponentBits)),
          bits & lowMask(f.mantissaBits)};
}

std::string binaryDigits(std::uint64_t value, int width) {
  std::string s;
  for (int i = width - 1; i >= 0; --i)
    s += ((value >> i) & 1u) ? '1' : '0';
  return s;
}

} // namespace

// INT8's two's-complement byte as a signed integer.
long long twosComplement(const FloatFormat& f, std::uint64_t bits) {
  bits &= lowMask(f.totalBits());
  return (bits & f.signMask()) != 0 ? static_cast<long long>(bits) - static_cast<long long>(f.signMask() << 1)
                                    : static_cast<long long>(bits);
}

FloatClass classify(const FloatFormat& f, std::uint64_t bits) {
  if (f.layout == Layout::TwosComplement)
    return (bits & lowMask(f.totalBits())) == 0 ? FloatClass::Zero : FloatClass::Normal;
  const Fields x = split(f, bits);
  const std::uint32_t allOnes = static_cast<std::uint32_t>(lowMask(f.exponentBits));
  if (f.layout == Layout::UnsignedExponent)
    return x.biased == allOnes ? FloatClass::NaN : FloatClass::Normal; // no zero, no subnormal
  if (f.nan == NanEncoding::AllOnesOnly) {
    if (x.biased == allOnes && x.mantissa == lowMask(f.mantissaBits))
      return FloatClass::NaN;
  } else if (f.nan == NanEncoding::Fnuz) {
    if ((bits & lowMask(f.totalBits())) == f.signMask())
      return FloatClass::NaN; // the pattern of -0
  } else if (f.nan == NanEncoding::Ieee && x.biased == allOnes) {
    return x.mantissa == 0 ? FloatClass::Infinity : FloatClass::NaN;
  }
  if (x.biased == 0 && f.exponentBits > 0 && !f.subnormals)
    return FloatClass::Zero; // no subnormals: the exponent field 0 is zero
  if (x.biased == 0)
    return x.mantissa == 0 ? FloatClass::Zero : FloatClass::Subnormal;
  return FloatClass::Normal;
}

double toDouble(const FloatFormat& f, std::uint64_t bits) {
  if (f.id == FormatId::Fp64)
    return std::bit_cast<double>(bits);
  if (f.layout == Layout::TwosComplement)
    return std::ldexp(static_cast<double>(twosComplement(f, bits)), -f.mantissaBits);
  const Fields x = split(f, bits);
  const double sign = x.negative ? -1.0 : 1.0;
  switch (classify(f, bits)) {
  case FloatClass::NaN: {
    // Payload to the top of the double's fraction, quiet bit set.
    const std::uint64_t payload = f.nan == NanEncoding::Ieee ? x.mantissa << (52 - f.mantissaBits) : 0;
    return std::bit_cast<double>((x.negative ? 1ull << 63 : 0) | 0x7ff8000000000000ull | payload);
  }
  case FloatClass::Infinity: return sign * std::numeric_limits<double>::infinity();
  case FloatClass::Zero: return f.hasNegativeZero() ? sign * 0.0 : 0.0;
  case FloatClass::Subnormal:
    return sign * std::ldexp(static_cast<double>(x.mantissa), f.minNormalExponent() - f.mantissaBits);
  case FloatClass::Normal: break;
  }
  const double significand = static_cast<double>(x.mantissa | (1ull << f.mantissaBits));
  return sign * std::ldexp(significand, static_cast<int>(x.biased) - f.bias() - f.mantissaBits);
}

Decoded decode(const FloatFormat& f, std::uint64_t bits) {
  Decoded d;
  if (f.layout == Layout::TwosComplement) {
    const long long i = twosComplement(f, bits);
    d.negative = i < 0;
    d.unbiasedExponent = -f.mantissaBits;
    d.mantissa = bits & lowMask(f.totalBits() - 1);
    d.cls = classify(f, bits);
    d.value = toDouble(f, bits);
    d.exactDecimal = ExactValue::fromDouble(d.value).toString();
    d.formula = std::to_string(i) + " x 2^" + std::to_string(-f.mantissaBits);
    return d;
  }
  const Fields x = split(f, bits);
  d.negative = x.negative;
  d.biasedExponent = x.biased;
  d.mantissa = x.mantissa;
  d.cls = classify(f, bits);
  d.implicitBit = d.cls == FloatClass::Normal ? 1 : 0;
  d.unbiasedExponent = x.biased == 0 ? f.minNormalExponent() : static_cast<int>(x.biased) - f.bias();
  d.value = toDouble(f, bits);
  const std::string s = "(-1)^" + std::string(x.negative ? "1" : "0") + " x ";
  switch (d.cls) {
  case FloatClass::NaN: {
    d.exactDecimal = "nan";
    if (f.nan != NanEncoding::Ieee) {
      d.formula = "NaN";
    } else {
      const bool quiet = (x.mantissa >> (f.mantissaBits - 1)) & 1u;
      char payload[32];
      std::snprintf(payload, sizeof payload, "0x%llx",
                    static_cast<unsigned long long>(x.mantissa & lowMask(f.mantissaBits - 1)));
      d.formula = std::string(quiet ? "quiet" : "signaling") + " NaN, payload " + payload;
    }
    break;
  }
  case FloatClass::Infinity:
    d.exactDecimal = x.negative ? "-inf" : "inf";
    d.formula = s + "inf";
    break;
  case FloatClass::Zero:
    if (!f.hasNegativeZero()) { // FNUZ, unsigned: one zero, whatever the sign field
      d.exactDecimal = "0";
      d.formula = f.hasSign() ? "(-1)^0 x 0" : "0";
      break;
    }
    [[fallthrough]];
  default: {
    const std::uint64_t significand = x.mantissa | (static_cast<std::uint64_t>(d.implicitBit) << f.mantissaBits);
    const auto limbs = std::vector<std::uint32_t>{static_cast<std::uint32_t>(significand),
                                                  static_cast<std::uint32_t>(significand >> 32)};
    d.exactDecimal = ExactValue::finite(x.negative, limbs, d.unbiasedExponent - f.mantissaBits, 2).toString();
    if (f.layout == Layout::UnsignedExponent)
      d.formula = "2^(" + std::to_string(x.biased) + " - " + std::to_string(f.bias()) + ") = 2^" +
                  std::to_string(d.unbiasedExponent);
    else
      d.formula = (f.hasSign() ? s : std::string()) + std::to_string(d.implicitBit) + "." +
                  binaryDigits(d.cls == FloatClass::Zero ? 0 : x.mantissa, f.mantissaBits) + " x 2^" +
                  std::to_string(d.unbiasedExponent);
    break;
  }
  }
  return d;
}

namespace {

// -x for a sign/exponent/mantissa pattern: +0 stays +0 where there is no -0.
std::uint64_t negated(const FloatFormat& f, std::uint64_t bits) {
  if (!f.hasNegativeZero() && classify(f, bits) == FloatClass::Zero)
    return 0;
  return bits ^ f.signMask();
}

} // namespace

std::uint64_t nextUp(const FloatFormat& f, std::uint64_t bits) {
  bits &= lowMask(f.totalBits());
  const FloatClass cls = classify(f, bits);
  if (cls == FloatClass::NaN)
    return bits;
  if (f.layout == Layout::TwosComplement) // in integer order, stopping at 127
    return bits == f.maxFiniteBits() ? bits : (bits + 1) & lowMask(f.totalBits());
  if (f.layout == Layout::UnsignedExponent)
    return bits == f.maxFiniteBits() ? bits : bits + 1;
  const bool negative = (bits & f.signMask()) != 0;
  if (cls == FloatClass::Zero) // +-0 (any zero pattern) -> the smallest positive value
    return f.minPositiveBits();
  const std::uint64_t magnitude = bits & ~f.signMask();
  if (!negative) {
    if (cls == FloatClass::Infinity)
      return bits;
    if (magnitude == f.maxFiniteBits())
      return f.hasInfinity() ? f.infinityBits() : bits; // fn, fnuz, none: nothing above max
    return bits + 1;
  }
  if (magnitude == f.minPositiveBits()) // -min -> -0 (+0 where there is no -0)
    return f.hasNegativeZero() ? f.signMask() : 0;
  return bits - 1; // toward zero in magnitude; -inf -> -max
}

std::uint64_t nextDown(const FloatFormat& f, std::uint64_t bits) {
  bits &= lowMask(f.totalBits());
  const FloatClass cls = classify(f, bits);
  if (cls == FloatClass::NaN)
    return bits;
  if (f.layout == Layout::TwosComplement) // stopping at -128
    return bits == f.signMask() ? bits : (bits - 1) & lowMask(f.totalBits());
  if (f.layout == Layout::UnsignedExponent) // stopping at 2^-127
    return bits == 0 ? bits : bits - 1;
  if (!f.hasSign()) { // stopping at +0
    if (cls == FloatClass::Zero || bits == f.minPositiveBits())
      return 0;
    return bits - 1; // +inf -> max
  }
  return negated(f, nextUp(f, negated(f, bits)));
}

double ulp(const FloatFormat& f, std::uint64_t bits) {
  const FloatClass cls = classify(f, bits);
  if (cls == FloatClass::NaN || cls == FloatClass::Infinity)
    return std::numeric_limits<double>::quiet_NaN();
  if (f.layout == Layout::TwosComplement)
    return std::ldexp(1.0, -f.mantissaBits);
  const Fields x = split(f, bits);
  const int exponent = x.biased == 0 ? f.minNormalExponent() : static_cast<int>(x.biased) - f.bias();
  return std::ldexp(1.0, exponent - f.mantissaBits);
}

RoundingError roundingError(const FloatFormat& f, std::uint64_t bits, const ExactValue& input) {
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const FloatClass cls = classify(f, bits);
  RoundingError e{ExactValue(), 0.0, 0.0};
  const bool storedNegative = (bits & f.signMask()) != 0;
  if (input.kind() == ExactValue::Kind::NaN || cls == FloatClass::NaN) {
    e.absolute = ExactValue::nan();
    e.absoluteApprox = e.relative = kNan;
  } else if (input.kind() == ExactValue::Kind::Infinity) {
    const bool same = cls == FloatClass::Infinity && storedNegative == input.negative();
    if (!same) {
      e.absolute = ExactValue::infinity(false);
      e.absoluteApprox = kInf;
      e.relative = cls == FloatClass::Infinity ? kInf : 1.0; // finite stored: |inf - x| / inf
    }
  } else if (cls == FloatClass::Infinity) {
    e.absolute = ExactValue::infinity(false);
    e.absoluteApprox = e.relative = kInf;
  } else {
    const ExactValue stored = ExactValue::fromDouble(toDouble(f, bits));
    e.absolute = absDifference(stored, input);
    e.absoluteApprox = e.absolute.approximate();
    const double magnitude = std::fabs(input.approximate());
    if (e.absolute.isZero())
      e.relative = 0.0;
    else if (cls == FloatClass::Zero)
      e.relative = 1.0; // underflow: all of the value is lost
    else
      e.relative = magnitude == 0.0 ? kInf : e.absoluteApprox / magnitude;
  }
  return e;
}

std::optional<Rounding> parseRoundingName(std::string_view name) {
  for (Rounding r : {Rounding::NearestEven, Rounding::TowardZero, Rounding::Up, Rounding::Down,
                     Rounding::Stochastic})
    if (roundingName(r) == name)
      return r;
  return std::nullopt;
}

std::string_view roundingName(Rounding rounding) {
  switch (rounding) {
  case Rounding::NearestEven: return "nearest-even";
  case Rounding::TowardZero: return "toward-zero";
  case Rounding::Up: return "up";
  case Rounding::Down: return "down";
  case Rounding::Stochastic: return "stochastic";
  }
  return "nearest-even";
}

std::string formatBitsHex(const FloatFormat& f, std::uint64_t bits) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%0*llx", (f.totalBits() + 3) / 4,
                static_cast<unsigned long long>(bits & lowMask(f.totalBits())));
  return buffer;
}

} // namespace mantissa::numeric
