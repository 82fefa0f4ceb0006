// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Cast fractions against casting each value with the number-format core
// (codec encode, and for FP16/BF16 also the trainer's fast conversions) and
// counting the outcomes; thresholds against the formats' spec constants.
#include "ilogb_reference.h"

#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/convert.h>
#include <mantissa/telemetry/cast_fractions.h>
#include <mantissa/telemetry/histogram.h>
#include <mantissa/telemetry/zero_loss.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

namespace nm = mantissa::numeric;
namespace tl = mantissa::telemetry;
using tl::CastCounts;
using tl::CastTarget;

// Oracle: encode x * scale (one FP32 multiply, as castCounts defines) into
// the target with the codec, classify the result.
CastCounts oracle(const std::vector<float>& values, float scale, CastTarget target) {
  const nm::FloatFormat& f = nm::formatInfo(tl::formatIdOf(target));
  nm::EncodeOptions opts; // nearest-even, overflow to inf (E4M3: NaN)
  // BF16 as the trainer stores it: VCVTNEPS2BF16 semantics, FP32 subnormal inputs are zero.
  opts.flushSubnormals = target == CastTarget::Bf16;
  CastCounts c;
  for (float v : values) {
    const float x = v * scale;
    ++c.total;
    if (std::isnan(x)) {
      ++c.nan;
      continue;
    }
    if (x == 0.0f)
      ++c.zeros;
    const nm::EncodeResult r = nm::encode(f, static_cast<double>(x), opts);
    switch (nm::classify(f, r.bits)) {
    case nm::FloatClass::Zero: ++c.toZero; break;
    case nm::FloatClass::Subnormal: ++c.toSubnormal; break;
    case nm::FloatClass::Infinity:
    case nm::FloatClass::NaN: ++c.overflow; break;
    case nm::FloatClass::Normal: break;
    }
  }
  return c;
}

std::vector<float> boundaryValues() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> base = {0.0f,
                             1.0f,
                             inf,
                             std::numeric_limits<float>::max(),
                             std::numeric_limits<float>::denorm_min(),
                             std::numeric_limits<float>::min()};
  // Every threshold of every format and the exponents around the format limits.
  for (CastTarget t : tl::kCastTargets) {
    const tl::CastThresholds th = tl::castThresholds(t);
    for (std::uint32_t b : {th.zeroBelow, th.normalBelow, th.overflowFrom})
      base.push_back(std::bit_cast<float>(b));
  }
  for (int e : {-150, -149, -134, -133, -127, -126, -25, -24, -17, -16, -15,
                -14,  -10,  -9,   -7,   -6,   8,    9,   15,  16,  127}) {
    base.push_back(std::ldexp(1.0f, e));
    base.push_back(std::ldexp(1.5f, e));
    base.push_back(std::ldexp(1.9999999f, e));
  }
  for (float v : {65504.0f, 65519.0f, 65520.0f, 448.0f, 464.0f, 480.0f, 57344.0f, 61440.0f})
    base.push_back(v);
  std::vector<float> out;
  for (float v : base) {
    for (float w : {v, std::nextafter(v, 0.0f), std::nextafter(v, inf)}) {
      out.push_back(w);
      out.push_back(-w);
    }
  }
  out.push_back(std::numeric_limits<float>::quiet_NaN());
  return out;
}

void expectMatchesOracle(const std::vector<float>& values, float scale, const char* what) {
  const auto counts = tl::castCounts(values, scale);
  for (std::size_t k = 0; k < tl::kCastTargetCount; ++k) {
    const CastCounts want = oracle(values, scale, tl::kCastTargets[k]);
    const CastCounts& got = counts[k];
    const auto name = tl::castTargetName(tl::kCastTargets[k]);
    EXPECT_EQ(got.total, want.total) << what << " " << name;
    EXPECT_EQ(got.zeros, want.zeros) << what << " " << name;
    EXPECT_EQ(got.nan, want.nan) << what << " " << name;
    EXPECT_EQ(got.toZero, want.toZero) << what << " " << name;
    EXPECT_EQ(got.toSubnormal, want.toSubnormal) << what << " " << name;
    EXPECT_EQ(got.overflow, want.overflow) << what << " " << name;
  }
}

TEST(CastThresholds, AreTheSpecBoundaries) {
  // FP16: |x| <= 2^-25 -> 0; >= 2^-14 - 2^-25 -> normal; >= 65520 -> inf.
  const auto fp16 = tl::castThresholds(CastTarget::Fp16);
  EXPECT_EQ(fp16.zeroBelow, std::bit_cast<std::uint32_t>(std::ldexp(1.0f, -25)) + 1);
  EXPECT_EQ(std::bit_cast<float>(fp16.normalBelow), std::ldexp(1.0f, -14) - std::ldexp(1.0f, -25));
  EXPECT_EQ(std::bit_cast<float>(fp16.overflowFrom), 65520.0f);
  // BF16 with DAZ: every FP32 subnormal -> 0; >= (2 - 2^-8) x 2^127 -> inf.
  const auto bf16 = tl::castThresholds(CastTarget::Bf16);
  EXPECT_EQ(bf16.zeroBelow, 0x00800000u);
  EXPECT_EQ(bf16.normalBelow, 0x00800000u);
  EXPECT_EQ(bf16.overflowFrom, 0x7f7f8000u);
  // E4M3FN: |x| <= 2^-10 -> 0; >= 2^-6 - 2^-10 normal; > 464 overflows (464 ties to 448).
  const auto e4m3 = tl::castThresholds(CastTarget::Fp8E4M3);
  EXPECT_EQ(e4m3.zeroBelow, std::bit_cast<std::uint32_t>(std::ldexp(1.0f, -10)) + 1);
  EXPECT_EQ(std::bit_cast<float>(e4m3.normalBelow), std::ldexp(1.0f, -6) - std::ldexp(1.0f, -10));
  EXPECT_EQ(e4m3.overflowFrom, std::bit_cast<std::uint32_t>(464.0f) + 1);
  // E5M2: |x| <= 2^-17 -> 0; >= 2^-14 - 2^-17 normal; >= 61440 -> inf.
  const auto e5m2 = tl::castThresholds(CastTarget::Fp8E5M2);
  EXPECT_EQ(e5m2.zeroBelow, std::bit_cast<std::uint32_t>(std::ldexp(1.0f, -17)) + 1);
  EXPECT_EQ(std::bit_cast<float>(e5m2.normalBelow), std::ldexp(1.0f, -14) - std::ldexp(1.0f, -17));
  EXPECT_EQ(std::bit_cast<float>(e5m2.overflowFrom), 61440.0f);
}

TEST(CastCounts, MatchTheCodecOnBoundaryValues) {
  expectMatchesOracle(boundaryValues(), 1.0f, "boundaries");
}

TEST(CastCounts, MatchTheCodecWithAScale) {
  const auto values = boundaryValues();
  expectMatchesOracle(values, 1024.0f, "x1024");
  expectMatchesOracle(values, 1.0f / 65536.0f, "/65536");
  expectMatchesOracle(values, 3.0f, "x3");
}

TEST(CastCounts, MatchTheCodecOnGradientLikeTensors) {
  // Log-uniform magnitudes over 2^-40 .. 2^20, both signs, some exact zeros:
  // most chunks hold values in the boundary binades of every format.
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> logMag(-40.0f, 20.0f);
  std::vector<float> v(100000); // many of the scan's 2048-value chunks
  for (auto& x : v) {
    x = (rng() % 16 == 0) ? 0.0f : std::exp2(logMag(rng));
    if (rng() & 1)
      x = -x;
  }
  expectMatchesOracle(v, 1.0f, "log-uniform");
  expectMatchesOracle(v, 65536.0f, "log-uniform x65536");
}

TEST(CastCounts, MatchTheCodecOnConcentratedTensors) {
  // Normal values around each format's underflow and overflow boundaries:
  // the exponent window of the AVX2 histogram holds the threshold binades.
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (int centre : {-25, -17, -14, -10, -6, 8, 15}) {
    std::vector<float> v(20000);
    for (auto& x : v)
      x = rng() % 4 == 0 ? 0.0f : std::ldexp(normal(rng), centre);
    const std::string what = "around 2^" + std::to_string(centre);
    expectMatchesOracle(v, 1.0f, what.c_str());
    expectMatchesOracle(v, 4.0f, (what + " x4").c_str());
  }
}

// The scan counts the thresholds of binades that hold many values directly,
// chosen after its first 2048-value chunk: later chunks bring every
// threshold and its neighbours, exact powers of two, zeros of both signs,
// subnormals and specials, in the window's chunks, in chunks that a wide
// spread sends to the scalar count, and in a tail shorter than 32 values.
TEST(CastCounts, DirectlyCountedThresholdsHoldAcrossChunksAndTails) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> special = {0.0f,
                                -0.0f,
                                inf,
                                -inf,
                                std::numeric_limits<float>::quiet_NaN(),
                                std::numeric_limits<float>::denorm_min(),
                                -std::ldexp(1.0f, -140)};
  for (CastTarget t : tl::kCastTargets) {
    const tl::CastThresholds th = tl::castThresholds(t);
    for (std::uint32_t b : {th.zeroBelow, th.normalBelow, th.overflowFrom})
      for (std::uint32_t d : {b - 1, b, b + 1})
        special.push_back(std::bit_cast<float>(d));
  }
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> logMag(-60.0f, 20.0f);
  for (int centre : {-25, -17, -15, -14, -10, -7, 8, 15}) {
    for (bool wideLater : {false, true}) {
      for (std::size_t tail : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{33}}) {
        std::vector<float> v(4 * 2048 + tail);
        for (std::size_t i = 0; i < v.size(); ++i) {
          const bool wide = wideLater && i >= 2048 && i < 3 * 2048;
          v[i] = wide ? std::exp2(logMag(rng)) : std::ldexp(normal(rng), centre);
          if (rng() % 8 == 0)
            v[i] = 0.0f;
          if (i >= 2048 && rng() % 64 == 0) // after the choice, in every later chunk
            v[i] = special[rng() % special.size()];
          if (i >= 2048 && rng() % 64 == 0)
            v[i] = std::ldexp(rng() % 2 ? 1.0f : -1.0f, centre + static_cast<int>(rng() % 3) - 1);
        }
        for (std::size_t i = v.size() - tail; i < v.size(); ++i) // the tail: specials only
          v[i] = special[i % special.size()];
        const std::string what = "around 2^" + std::to_string(centre) +
                                 (wideLater ? ", wide later" : "") + ", tail " +
                                 std::to_string(tail);
        expectMatchesOracle(v, 1.0f, what.c_str());
        expectMatchesOracle(v, 4.0f, (what + " x4").c_str());
        tl::ExponentHistogram got;
        tl::accumulate(v, got);
        EXPECT_EQ(got, tl::testing::ilogbReference(v)) << what;
      }
    }
  }
}

TEST(CastCounts, Fp16AndBf16AgreeWithTheTrainersConversions) {
  const auto values = boundaryValues();
  const auto counts = tl::castCounts(values);
  std::uint64_t f16Zero = 0, f16Sub = 0, f16Inf = 0, bf16Zero = 0, bf16Inf = 0;
  for (float v : values) {
    if (std::isnan(v))
      continue;
    const float h = nm::f16ToF32(nm::f32ToF16(v));
    f16Zero += h == 0.0f;
    f16Sub += h != 0.0f && std::fabs(h) < std::ldexp(1.0f, -14);
    f16Inf += std::isinf(h);
    const float b = nm::bf16ToF32(nm::f32ToBf16(v));
    bf16Zero += b == 0.0f;
    bf16Inf += std::isinf(b);
  }
  EXPECT_EQ(counts[0].toZero, f16Zero);
  EXPECT_EQ(counts[0].toSubnormal, f16Sub);
  EXPECT_EQ(counts[0].overflow, f16Inf);
  EXPECT_EQ(counts[1].toZero, bf16Zero);
  EXPECT_EQ(counts[1].toSubnormal, 0u);
  EXPECT_EQ(counts[1].overflow, bf16Inf);
}

TEST(CastFractions, AreCountsOverTheirDenominators) {
  // 8 values: 2 zeros, 1 NaN, 1 lost to zero in fp16 (2^-26), 1 subnormal (2^-20),
  // 1 overflow (1e5), 2 ordinary.
  const std::vector<float> v = {0.0f,
                                -0.0f,
                                std::numeric_limits<float>::quiet_NaN(),
                                std::ldexp(1.0f, -26),
                                std::ldexp(1.0f, -20),
                                1e5f,
                                1.0f,
                                -2.0f};
  const auto f = tl::castFractions(v)[0];
  EXPECT_DOUBLE_EQ(f.toZero, 3.0 / 8.0);
  EXPECT_DOUBLE_EQ(f.toSubnormal, 1.0 / 8.0);
  EXPECT_DOUBLE_EQ(f.overflow, 1.0 / 8.0);
  EXPECT_DOUBLE_EQ(f.nonzeroLostToZero, 1.0 / 5.0); // 5 non-zero, non-NaN inputs
  const auto empty = tl::castFractions({});
  EXPECT_EQ(empty[0], tl::CastFractions{});
}

TEST(ZeroLossCounts, MatchRoundingWithTheTrainersConversions) {
  // Boundary values (ties at half FP16's min subnormal, FP32 subnormals that
  // BF16 flushes, NaN, inf, signed zeros) plus log-uniform magnitudes across
  // the underflow region, past 2^20 values so the 32-bit blocks are crossed.
  std::vector<float> values = boundaryValues();
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> logMag(-150.0f, 0.0f);
  const std::size_t boundaries = values.size();
  values.resize((std::size_t{1} << 20) + 4097);
  for (std::size_t i = boundaries; i < values.size(); ++i)
    values[i] = (rng() % 8 == 0 ? 0.0f : std::exp2(logMag(rng))) * (rng() & 1 ? -1.0f : 1.0f);
  for (mantissa::DType dtype :
       {mantissa::DType::BF16, mantissa::DType::F16, mantissa::DType::F32}) {
    std::vector<float> rounded = values;
    if (dtype == mantissa::DType::BF16)
      nm::roundTripBf16(rounded);
    else if (dtype == mantissa::DType::F16)
      nm::roundTripF16(rounded);
    tl::ZeroLossCounts want;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const bool nonzero = !(values[i] == 0.0f); // NaN counts as non-zero
      want.nonzero += nonzero;
      want.lostToZero += nonzero && rounded[i] == 0.0f;
    }
    const auto got = tl::zeroLossCounts(values, dtype);
    EXPECT_EQ(got.nonzero, want.nonzero) << mantissa::dtypeName(dtype);
    EXPECT_EQ(got.lostToZero, want.lostToZero) << mantissa::dtypeName(dtype);
    if (dtype != mantissa::DType::F32) { // the case is exercised
      EXPECT_GT(want.lostToZero, 1000u) << mantissa::dtypeName(dtype);
    }
  }
  // The FP16 tie at 2^-25 goes to zero (even); the next float up survives.
  const float tie = std::ldexp(1.0f, -25);
  EXPECT_EQ(tl::zeroLossCounts(std::vector<float>{tie, -tie}, mantissa::DType::F16).lostToZero, 2u);
  EXPECT_EQ(tl::zeroLossCounts(std::vector<float>{std::nextafter(tie, 1.0f)}, mantissa::DType::F16)
                .lostToZero,
            0u);
}

// The counting round trips store the bits the plain ones store, and their
// zeros before and after are those of a direct count.
TEST(RoundTripZeros, CountWhatTheRoundTripTakesToZero) {
  std::vector<float> values = boundaryValues();
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> logMag(-150.0f, 0.0f);
  const std::size_t boundaries = values.size();
  values.resize(3 * 2048 + 77); // whole chunks and a tail
  for (std::size_t i = boundaries; i < values.size(); ++i)
    values[i] = (rng() % 8 == 0 ? 0.0f : std::exp2(logMag(rng))) * (rng() & 1 ? -1.0f : 1.0f);
  const auto zeros = [](const std::vector<float>& v) {
    return static_cast<std::uint64_t>(std::ranges::count(v, 0.0f)); // +0 == -0
  };
  for (bool portable : {false, true}) {
    nm::setForcePortableConversions(portable);
    for (bool bf16 : {true, false}) {
      std::vector<float> plain = values, counted = values;
      if (bf16)
        nm::roundTripBf16(plain);
      else
        nm::roundTripF16(plain);
      const auto got = bf16 ? nm::roundTripBf16CountingZeros(counted)
                            : nm::roundTripF16CountingZeros(counted);
      const char* what = bf16 ? "bf16" : "f16";
      EXPECT_EQ(std::memcmp(plain.data(), counted.data(), plain.size() * sizeof(float)), 0) << what;
      EXPECT_EQ(got.before, zeros(values)) << what;
      EXPECT_EQ(got.after, zeros(plain)) << what;
      EXPECT_GT(got.after, got.before + 100) << what << ": the case is exercised";
    }
  }
  nm::setForcePortableConversions(false);
}

// The portable kernels (no AVX2) count exactly what the AVX2 ones and, where
// the CPU has it, the AVX-512 ones count: histograms, cast counts (both with
// a scale), swamping and zero loss, on concentrated tensors (the window
// histogram) and on arbitrary bit patterns (its scalar fallback).
TEST(TelemetryKernels, PortablePathCountsWhatTheAvx2PathCounts) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> concentrated(50000), arbitrary(50000), weights(50000);
  for (std::size_t i = 0; i < concentrated.size(); ++i) {
    concentrated[i] = rng() % 5 == 0 ? 0.0f : std::ldexp(normal(rng), -14);
    arbitrary[i] = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    weights[i] = 0.05f * normal(rng);
  }
  concentrated[77] = std::numeric_limits<float>::infinity();
  concentrated[78] = std::numeric_limits<float>::quiet_NaN();
  concentrated[79] = std::numeric_limits<float>::denorm_min();
  struct Counts {
    tl::ExponentHistogram hist;
    std::array<CastCounts, tl::kCastTargetCount> cast, scaled;
    tl::SwampCounts swampF32, swampBf16;
    tl::ZeroLossCounts bf16, f16;
  };
  const auto measure = [&](const std::vector<float>& v) {
    Counts c;
    tl::accumulate(v, c.hist);
    c.cast = tl::castCounts(v);
    c.scaled = tl::castCounts(v, 1024.0f);
    c.swampF32 = tl::swampCounts(weights, v, mantissa::DType::F32);
    c.swampBf16 = tl::swampCounts(weights, v, mantissa::DType::BF16);
    c.bf16 = tl::zeroLossCounts(v, mantissa::DType::BF16);
    c.f16 = tl::zeroLossCounts(v, mantissa::DType::F16);
    return c;
  };
  for (const auto* v : {&concentrated, &arbitrary}) {
    const Counts fastest = measure(*v);
    tl::setAvoidAvx512Telemetry(true);
    const Counts fast = measure(*v);
    tl::setAvoidAvx512Telemetry(false);
    tl::setForcePortableTelemetry(true);
    const Counts portable = measure(*v);
    tl::setForcePortableTelemetry(false);
    const char* what = v == &concentrated ? "concentrated" : "arbitrary bits";
    EXPECT_EQ(fastest.hist, fast.hist) << what << ": AVX-512";
    EXPECT_EQ(fastest.cast, fast.cast) << what << ": AVX-512";
    EXPECT_EQ(fastest.scaled, fast.scaled) << what << ": AVX-512";
    EXPECT_EQ(fast.hist, portable.hist) << what;
    EXPECT_EQ(fast.cast, portable.cast) << what;
    EXPECT_EQ(fast.scaled, portable.scaled) << what;
    EXPECT_EQ(fast.swampF32.eligible, portable.swampF32.eligible) << what;
    EXPECT_EQ(fast.swampF32.swamped, portable.swampF32.swamped) << what;
    EXPECT_EQ(fast.swampBf16.eligible, portable.swampBf16.eligible) << what;
    EXPECT_EQ(fast.swampBf16.swamped, portable.swampBf16.swamped) << what;
    EXPECT_EQ(fast.bf16, portable.bf16) << what;
    EXPECT_EQ(fast.f16, portable.f16) << what;
    EXPECT_EQ(fast.hist.total, v->size()) << what;
  }
}

} // namespace
