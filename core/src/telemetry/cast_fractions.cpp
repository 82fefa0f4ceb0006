// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "telemetry/scan.h"

#include <mantissa/telemetry/cast_fractions.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace mantissa::telemetry {
namespace {

std::uint32_t bitsOf(float x) {
  return std::bit_cast<std::uint32_t>(x);
}

// Every threshold below is exactly representable in FP32 (checked in tests
// against the formats' spec constants).
float exactFloat(double value) {
  return static_cast<float>(value);
}

CastThresholds computeThresholds(const numeric::FloatFormat& f, bool daz) {
  const int p = f.mantissaBits;
  const int emin = f.minNormalExponent();
  const int emax = f.maxFiniteExponent();
  const double halfMinSubnormal = std::ldexp(1.0, emin - p - 1);
  const double halfTopUlp = std::ldexp(1.0, emax - p - 1);

  CastThresholds t{};
  if (!daz && !f.subnormals) {
    // Below the min normal only 0 and the min normal: the tie at half of it
    // goes to 0 (the even code); no result is subnormal.
    t.zeroBelow = bitsOf(exactFloat(std::ldexp(1.0, emin - 1))) + 1;
    t.normalBelow = t.zeroBelow;
  } else if (daz) {
    // DAZ: every FP32 subnormal becomes (signed) zero; a normal FP32 value
    // is >= 2^-126 = BF16's min normal and stays normal.
    t.zeroBelow = 0x00800000u;
    t.normalBelow = 0x00800000u;
  } else {
    // |x| <= 2^(smin-1) rounds to zero (the tie goes to the even 0);
    // |x| >= 2^emin - 2^(smin-1) rounds to min normal (the tie goes to the
    // even 2^emin, since the largest subnormal's mantissa is all ones).
    t.zeroBelow = bitsOf(exactFloat(halfMinSubnormal)) + 1;
    t.normalBelow = bitsOf(exactFloat(std::ldexp(1.0, emin) - halfMinSubnormal));
  }
  // Half way between max finite and the next step up is a tie: it rounds up
  // (overflows) when max finite's last mantissa bit is odd (IEEE formats:
  // all ones) and down when even (E4M3FN: 448 = 1.110b x 2^8).
  const std::uint32_t tie = bitsOf(exactFloat(f.maxFinite() + halfTopUlp));
  t.overflowFrom = (f.maxFiniteBits() & 1u) ? tie : tie + 1;
  return t;
}

const std::array<CastThresholds, kCastTargetCount>& thresholdTable() {
  static const std::array<CastThresholds, kCastTargetCount> table{
      computeThresholds(numeric::formatInfo(numeric::FormatId::Fp16), false),
      computeThresholds(numeric::formatInfo(numeric::FormatId::Bf16), true),
      computeThresholds(numeric::formatInfo(numeric::FormatId::Fp8E4M3), false),
      computeThresholds(numeric::formatInfo(numeric::FormatId::Fp8E5M2), false)};
  return table;
}

// Rounds x (exact in double) to a format with p stored mantissa bits, min
// normal exponent emin and max finite `maxFinite`: nearest, ties to even,
// gradual underflow, overflow to inf. Adding and subtracting 2^(52+q), whose
// ULP is the target quantum 2^q, makes the hardware's double rounding (RNE)
// do exactly this one rounding step. Branch-free (so it vectorises); zero
// comes out as zero (its exponent field is 0, so q = emin - p); inf/NaN
// inputs are the caller's to exclude. Inputs are floats or sums of two
// floats, so a non-zero |x| >= 2^-149 is a normal double.
[[gnu::always_inline]] inline double roundToFormat(double x, std::int64_t p, std::int64_t emin,
                                                   double maxFinite) {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
  const std::uint64_t absBits = bits & 0x7fffffffffffffffull;
  const std::int64_t e = static_cast<std::int64_t>(absBits >> 52) - 1023;
  const std::int64_t q = (e > emin ? e : emin) - p;
  const double c = std::bit_cast<double>(static_cast<std::uint64_t>(52 + q + 1023) << 52);
  double r = (std::bit_cast<double>(absBits) + c) - c; // no -ffast-math: both roundings stay
  r = r > maxFinite ? HUGE_VAL : r;
  return std::bit_cast<double>(std::bit_cast<std::uint64_t>(r) | (bits & ~absBits));
}

// Swamping in a 16-bit working format; branch-free like the FP32 body.
[[gnu::always_inline]] inline void swamp16Body(const float* w, const float* u, std::size_t n,
                                               std::int64_t p, std::int64_t emin, double maxFinite,
                                               std::uint64_t& eligible, std::uint64_t& swamped) {
  std::uint64_t e = 0, s = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t wb, ub;
    std::memcpy(&wb, w + i, sizeof wb);
    std::memcpy(&ub, u + i, sizeof ub);
    const double wd = roundToFormat(static_cast<double>(w[i]), p, emin, maxFinite);
    // w + u is exact in double unless |u| << |w| (then it rounds to w either
    // way) or |w| << |u| (then the result is far from w either way).
    const double r = roundToFormat(wd + static_cast<double>(u[i]), p, emin, maxFinite);
    const std::uint64_t ok = static_cast<std::uint64_t>((wb & 0x7fffffffu) < 0x7f800000u) &
                             static_cast<std::uint64_t>((ub & 0x7fffffffu) - 1u < 0x7f7fffffu) &
                             static_cast<std::uint64_t>(wd <= maxFinite && wd >= -maxFinite);
    e += ok;
    s += ok & static_cast<std::uint64_t>(r == wd);
  }
  eligible += e;
  swamped += s;
}

// BF16 working precision, vectorisable in 32-bit lanes. With w rounded to
// BF16 (RNE on the FP32 bit pattern), s = fl32(w + u) and its exact error
// err (TwoSum), the exact sum is s + err. Rounding it to BF16 equals
// rounding s, except when s sits exactly on a BF16 tie (low half 0x8000) and
// err != 0: then err's sign breaks the tie (both grids' points and ties are
// FP32 values, and FP32 rounding is monotone, so s never crosses one).
[[gnu::always_inline]] inline void swampBf16Body(const float* w, const float* u, std::size_t n,
                                                 std::uint64_t& eligible, std::uint64_t& swamped) {
  std::uint32_t e = 0, sw = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t wb, ub;
    std::memcpy(&wb, w + i, sizeof wb);
    std::memcpy(&ub, u + i, sizeof ub);
    const std::uint32_t wr = (wb + 0x7fffu + ((wb >> 16) & 1u)) & 0xffff0000u; // w in BF16 (RNE)
    float wf;
    std::memcpy(&wf, &wr, sizeof wf);
    const float s = wf + u[i];
    const float bb = s - wf;
    const float err = (wf - (s - bb)) + (u[i] - bb);
    std::uint32_t sb, eb;
    std::memcpy(&sb, &s, sizeof sb);
    std::memcpy(&eb, &err, sizeof eb);
    const std::uint32_t nearest = (sb + 0x7fffu + ((sb >> 16) & 1u)) & 0xffff0000u;
    const std::uint32_t up = (sb + 0x8000u) & 0xffff0000u, down = sb & 0xffff0000u;
    const bool tie = (sb & 0xffffu) == 0x8000u && err != 0.0f;
    const std::uint32_t awayFromZero = ((sb ^ eb) >> 31) == 0 ? up : down;
    const std::uint32_t r = tie ? awayFromZero : nearest;
    const std::uint32_t ok = static_cast<std::uint32_t>((wr & 0x7fffffffu) < 0x7f800000u) &
                             static_cast<std::uint32_t>((wb & 0x7fffffffu) < 0x7f800000u) &
                             static_cast<std::uint32_t>((ub & 0x7fffffffu) - 1u < 0x7f7fffffu);
    e += ok;
    sw += ok & static_cast<std::uint32_t>(r == wr || ((r | wr) & 0x7fffffffu) == 0); // +0 == -0
  }
  eligible += e;
  swamped += sw;
}

[[gnu::target("avx2")]] void swampBf16Avx2(const float* w, const float* u, std::size_t n,
                                           std::uint64_t& eligible, std::uint64_t& swamped) {
  swampBf16Body(w, u, n, eligible, swamped);
}
void swampBf16Base(const float* w, const float* u, std::size_t n, std::uint64_t& eligible,
                   std::uint64_t& swamped) {
  swampBf16Body(w, u, n, eligible, swamped);
}

[[gnu::always_inline]] inline void swampF32Body(const float* w, const float* u, std::size_t n,
                                                std::uint64_t& eligible, std::uint64_t& swamped) {
  // Branch-free with 32-bit lanes throughout, so the compiler vectorises it.
  std::uint32_t e = 0, s = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t wb, ub;
    std::memcpy(&wb, w + i, sizeof wb);
    std::memcpy(&ub, u + i, sizeof ub);
    wb &= 0x7fffffffu;
    ub &= 0x7fffffffu;
    const std::uint32_t ok =
        static_cast<std::uint32_t>(wb < 0x7f800000u) &
        static_cast<std::uint32_t>(ub - 1u < 0x7f7fffffu); // u finite, non-zero
    const std::uint32_t same = static_cast<std::uint32_t>(w[i] + u[i] == w[i]); // one FP32 rounding
    e += ok;
    s += ok & same;
  }
  eligible += e;
  swamped += s;
}

[[gnu::target("avx2")]] void swampF32Avx2(const float* w, const float* u, std::size_t n,
                                          std::uint64_t& eligible, std::uint64_t& swamped) {
  swampF32Body(w, u, n, eligible, swamped);
}
void swampF32Base(const float* w, const float* u, std::size_t n, std::uint64_t& eligible,
                  std::uint64_t& swamped) {
  swampF32Body(w, u, n, eligible, swamped);
}

} // namespace

numeric::FormatId formatIdOf(CastTarget target) {
  switch (target) {
  case CastTarget::Fp16: return numeric::FormatId::Fp16;
  case CastTarget::Bf16: return numeric::FormatId::Bf16;
  case CastTarget::Fp8E4M3: return numeric::FormatId::Fp8E4M3;
  case CastTarget::Fp8E5M2: return numeric::FormatId::Fp8E5M2;
  }
  return numeric::FormatId::Fp16;
}

std::string_view castTargetName(CastTarget target) {
  static constexpr std::array<std::string_view, kCastTargetCount> kNames{"fp16", "bf16", "fp8-e4m3",
                                                                         "fp8-e5m2"};
  return kNames[static_cast<std::size_t>(target)];
}

CastThresholds castThresholds(CastTarget target) {
  return thresholdTable()[static_cast<std::size_t>(target)];
}

std::string castFormatError(const numeric::FloatFormat& f) {
  if (f.layout != numeric::Layout::SignExponentMantissa || !f.hasSign())
    return f.name + " is not a signed sign/exponent/mantissa float";
  if (f.totalBits() > 16)
    return f.name + " has " + std::to_string(f.totalBits()) +
           " bits; a tensor's element format has at most 16";
  const int p = f.mantissaBits, emin = f.minNormalExponent(), emax = f.maxFiniteExponent();
  if (emin - p - 1 < -149 || emax > 127 || !(f.maxFinite() > 0.0))
    return f.name + ": its range (bias " + std::to_string(f.bias()) +
           ") lies outside FP32's, so FP32 values cannot mark where it rounds";
  return {};
}

CastThresholds castThresholds(const numeric::FloatFormat& format) {
  if (const std::string e = castFormatError(format); !e.empty())
    throw std::invalid_argument("castThresholds: " + e);
  return computeThresholds(format, false);
}

CastFractions toFractions(const CastCounts& c) {
  CastFractions f;
  if (c.total == 0)
    return f;
  const double total = static_cast<double>(c.total);
  f.toZero = static_cast<double>(c.toZero) / total;
  f.toSubnormal = static_cast<double>(c.toSubnormal) / total;
  f.overflow = static_cast<double>(c.overflow) / total;
  if (c.nonZero() != 0)
    f.nonzeroLostToZero = static_cast<double>(c.lostToZero()) / static_cast<double>(c.nonZero());
  return f;
}

std::array<CastCounts, kCastTargetCount> castCounts(std::span<const float> values, float scale) {
  std::array<std::uint32_t, 3 * kCastTargetCount> thresholds{};
  for (std::size_t k = 0; k < kCastTargetCount; ++k) {
    const CastThresholds& t = thresholdTable()[k];
    thresholds[3 * k] = t.zeroBelow;
    thresholds[3 * k + 1] = t.normalBelow;
    thresholds[3 * k + 2] = t.overflowFrom;
  }
  std::array<std::uint64_t, 3 * kCastTargetCount> below{};
  ExponentHistogram hist;
  detail::scan(values, scale, thresholds, hist, below);

  std::array<CastCounts, kCastTargetCount> counts{};
  for (std::size_t k = 0; k < kCastTargetCount; ++k) {
    CastCounts& c = counts[k];
    c.total = hist.total;
    c.zeros = hist.zeros;
    c.nan = hist.nan;
    c.toZero = below[3 * k];
    c.toSubnormal = below[3 * k + 1] - below[3 * k];
    c.overflow = hist.total - hist.nan - below[3 * k + 2];
  }
  return counts;
}

std::array<CastFractions, kCastTargetCount> castFractions(std::span<const float> values,
                                                          float scale) {
  const auto counts = castCounts(values, scale);
  std::array<CastFractions, kCastTargetCount> fractions{};
  for (std::size_t k = 0; k < kCastTargetCount; ++k)
    fractions[k] = toFractions(counts[k]);
  return fractions;
}

SwampCounts swampCounts(std::span<const float> weights, std::span<const float> updates,
                        DType working) {
  if (weights.size() != updates.size()) {
    std::string message =
        "swampedFraction: weights has "; // append(): avoids GCC 12's -Wrestrict false positive
    message.append(std::to_string(weights.size())).append(" values but updates has ");
    message.append(std::to_string(updates.size()));
    throw std::invalid_argument(message);
  }
  SwampCounts c;
  if (working == DType::F32) {
    const bool avx2 = detail::useAvx2();
    constexpr std::size_t kBlock = 1u << 20; // keeps the 32-bit loop counters exact
    for (std::size_t off = 0; off < weights.size(); off += kBlock) {
      const std::size_t n = std::min(kBlock, weights.size() - off);
      if (avx2)
        swampF32Avx2(weights.data() + off, updates.data() + off, n, c.eligible, c.swamped);
      else
        swampF32Base(weights.data() + off, updates.data() + off, n, c.eligible, c.swamped);
    }
    return c;
  }
  const bool avx2 = detail::useAvx2();
  if (working == DType::BF16) {
    constexpr std::size_t kBlock = 1u << 20; // keeps the 32-bit loop counters exact
    for (std::size_t off = 0; off < weights.size(); off += kBlock) {
      const std::size_t n = std::min(kBlock, weights.size() - off);
      if (avx2)
        swampBf16Avx2(weights.data() + off, updates.data() + off, n, c.eligible, c.swamped);
      else
        swampBf16Base(weights.data() + off, updates.data() + off, n, c.eligible, c.swamped);
    }
    return c;
  }
  // FP16 (no trainer recipe keeps FP16 weights without an FP32 master; scalar is fine).
  swamp16Body(weights.data(), updates.data(), weights.size(), 10, -14, 65504.0, c.eligible,
              c.swamped);
  return c;
}

double swampedFraction(std::span<const float> weights, std::span<const float> updates,
                       DType working) {
  const SwampCounts c = swampCounts(weights, updates, working);
  return c.eligible == 0 ? 0.0 : static_cast<double>(c.swamped) / static_cast<double>(c.eligible);
}

} // namespace mantissa::telemetry
