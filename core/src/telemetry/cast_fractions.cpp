// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/telemetry/cast_fractions.h>

#include "telemetry/scan.h"

#include <mantissa/numeric/cpu_features.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace mantissa::telemetry {
namespace {

std::uint32_t bitsOf(float x) { return std::bit_cast<std::uint32_t>(x); }

// Every threshold below is exactly representable in FP32 (checked in tests
// against the formats' spec constants).
float exactFloat(double value) { return static_cast<float>(value); }

CastThresholds computeThresholds(CastTarget target) {
  const numeric::FloatFormat& f = numeric::formatInfo(formatIdOf(target));
  const int p = f.mantissaBits;
  const int emin = f.minNormalExponent();
  const int emax = f.maxFiniteExponent();
  const double halfMinSubnormal = std::ldexp(1.0, emin - p - 1);
  const double halfTopUlp = std::ldexp(1.0, emax - p - 1);

  CastThresholds t{};
  if (target == CastTarget::Bf16) {
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
      computeThresholds(CastTarget::Fp16), computeThresholds(CastTarget::Bf16),
      computeThresholds(CastTarget::Fp8E4M3), computeThresholds(CastTarget::Fp8E5M2)};
  return table;
}

// Rounds x (exact in double) to a format with p stored mantissa bits, min
// normal exponent emin and max finite `maxFinite`: nearest, ties to even,
// gradual underflow, overflow to inf. Adding and subtracting 2^(52+q), whose
// ULP is the target quantum 2^q, makes the hardware's double rounding (RNE)
// do exactly this one rounding step. Inputs are sums of floats, so a non-zero
// |x| >= 2^-149 is a normal double and its exponent field is its binade.
double roundToFormat(double x, int p, int emin, double maxFinite) {
  const std::uint64_t absBits = std::bit_cast<std::uint64_t>(x) & 0x7fffffffffffffffull;
  if (absBits == 0 || absBits >= 0x7ff0000000000000ull)
    return x;
  const double ax = std::bit_cast<double>(absBits);
  const int e = static_cast<int>(absBits >> 52) - 1023;
  const int q = std::max(e, emin) - p;
  const double c = std::bit_cast<double>(static_cast<std::uint64_t>(52 + q + 1023) << 52);
  double r = (ax + c) - c; // no -ffast-math anywhere: the compiler keeps both roundings
  if (r > maxFinite)
    r = HUGE_VAL;
  return std::copysign(r, x);
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
    const std::uint32_t ok = static_cast<std::uint32_t>(wb < 0x7f800000u) &
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

std::array<CastFractions, kCastTargetCount> castFractions(std::span<const float> values, float scale) {
  const auto counts = castCounts(values, scale);
  std::array<CastFractions, kCastTargetCount> fractions{};
  for (std::size_t k = 0; k < kCastTargetCount; ++k)
    fractions[k] = toFractions(counts[k]);
  return fractions;
}

SwampCounts swampCounts(std::span<const float> weights, std::span<const float> updates, DType working) {
  if (weights.size() != updates.size())
    throw std::invalid_argument("swampedFraction: weights has " + std::to_string(weights.size()) +
                                " values but updates has " + std::to_string(updates.size()));
  SwampCounts c;
  if (working == DType::F32) {
    static const bool avx2 = numeric::cpuFeatures().avx2;
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
  const bool bf16 = working == DType::BF16;
  const int p = bf16 ? 7 : 10;
  const int emin = bf16 ? -126 : -14;
  const double maxFinite = bf16 ? std::ldexp(255.0, 120) : 65504.0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const float u = updates[i];
    if (!std::isfinite(weights[i]) || !std::isfinite(u) || u == 0.0f)
      continue;
    const double w = roundToFormat(weights[i], p, emin, maxFinite);
    if (!std::isfinite(w))
      continue;
    ++c.eligible;
    // w has <= 11 significant bits and u 24, so w + u is exact in double
    // unless |u| << |w| (then it rounds to w either way) or |w| << |u|.
    if (roundToFormat(w + static_cast<double>(u), p, emin, maxFinite) == w)
      ++c.swamped;
  }
  return c;
}

double swampedFraction(std::span<const float> weights, std::span<const float> updates, DType working) {
  const SwampCounts c = swampCounts(weights, updates, working);
  return c.eligible == 0 ? 0.0 : static_cast<double>(c.swamped) / static_cast<double>(c.eligible);
}

} // namespace mantissa::telemetry
