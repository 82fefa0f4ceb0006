// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// scanInto: one tensor's counts taken apart from a collector (Session's
// background counts). Against an ilogb reference histogram, a direct count
// of bits(|x|) below each cast threshold, the collector's own path (itself
// checked against the codec in test_telemetry_cast), and the portable
// kernels, on adversarial tensors: every threshold and its neighbours (+-1
// ulp), powers of two, subnormals, signed zeros, inf, NaN, lengths that
// leave tails.
#include "ilogb_reference.h"

#include <mantissa/telemetry/collector.h>
#include <mantissa/telemetry/tensor_scan.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace tl = mantissa::telemetry;
using tl::TensorClass;
using tl::testing::ilogbReference;

// Thresholds of every target, +-1 ulp; powers of two and their neighbours
// from 2^-149 to 2^127; subnormals; +-0; max; inf; NaN (quiet and
// signalling); both signs.
std::vector<float> specialValues() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> base = {0.0f,
                             std::numeric_limits<float>::max(),
                             inf,
                             std::numeric_limits<float>::quiet_NaN(),
                             std::bit_cast<float>(0x7f800001u),
                             std::bit_cast<float>(0x00000003u),
                             std::bit_cast<float>(0x007fffffu)};
  for (tl::CastTarget t : tl::kCastTargets) {
    const tl::CastThresholds th = tl::castThresholds(t);
    for (std::uint32_t b : {th.zeroBelow, th.normalBelow, th.overflowFrom})
      for (std::uint32_t d : {b - 1, b, b + 1})
        base.push_back(std::bit_cast<float>(d));
  }
  for (int e = -149; e <= 127; e += 2)
    base.push_back(std::ldexp(1.0f, e));
  std::vector<float> out;
  for (float v : base)
    for (float w : {v, std::nextafter(v, 0.0f), std::nextafter(v, inf)}) {
      out.push_back(w);
      out.push_back(-w);
    }
  return out;
}

// Special values among gradient-like magnitudes (60 binades, exact zeros),
// shuffled so that the specials land anywhere, `n` values in all.
std::vector<float> adversarial(std::size_t n, unsigned seed) {
  std::vector<float> v = specialValues();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> logMag(-45.0f, 15.0f);
  while (v.size() < n)
    v.push_back(rng() % 16 == 0 ? 0.0f : std::exp2(logMag(rng)) * ((rng() & 1) ? 1.0f : -1.0f));
  v.resize(n);
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

// below[3k + i] by comparing each value's magnitude bits, one at a time.
std::array<std::uint64_t, tl::kMaxViewThresholds> belowReference(std::span<const float> values) {
  std::array<std::uint64_t, tl::kMaxViewThresholds> below{};
  for (std::size_t k = 0; k < tl::kCastTargetCount; ++k) {
    const tl::CastThresholds th = tl::castThresholds(tl::kCastTargets[k]);
    const std::uint32_t t[3] = {th.zeroBelow, th.normalBelow, th.overflowFrom};
    for (float v : values)
      for (int i = 0; i < 3; ++i)
        below[3 * k + static_cast<std::size_t>(i)] +=
            (std::bit_cast<std::uint32_t>(v) & 0x7fffffffu) < t[i] ? 1 : 0;
  }
  return below;
}

// The sum of the values' bit patterns, the plain loop (TensorTelemetry::bits).
std::uint64_t bitSumReference(std::span<const float> v) {
  std::uint64_t sum = 0;
  for (const float x : v)
    sum += std::bit_cast<std::uint32_t>(x);
  return sum;
}

void expectExact(std::span<const float> values, const std::string& what) {
  tl::TensorScan scan;
  tl::scanInto(values, scan);
  EXPECT_EQ(scan.hist, ilogbReference(values)) << what;
  EXPECT_EQ(scan.below, belowReference(values)) << what;
  EXPECT_EQ(scan.bits, bitSumReference(values)) << what;
}

} // namespace

TEST(TensorScan, CountsAreExactOnAdversarialTensors) {
  // Every length up to 40 (tails of the 32-value rounds), then larger ones.
  const auto values = adversarial(70001, 1);
  for (std::size_t n = 0; n <= 40; ++n)
    expectExact(std::span(values).first(n), "n = " + std::to_string(n));
  for (std::size_t n : {1023u, 4096u, 70001u})
    expectExact(std::span(values).first(n), "n = " + std::to_string(n));
  expectExact(specialValues(), "specials");
}

TEST(TensorScan, TheCollectorRecordsWhatObserveRecords) {
  const auto values = adversarial(50000, 3);
  tl::TensorScan scan;
  tl::scanInto(values, scan);
  tl::TelemetryCollector a(1), b(1);
  a.record(2, TensorClass::WeightGrads, scan);
  b.observe(2, TensorClass::WeightGrads, values);
  const auto fa = a.finish(0), fb = b.finish(0);
  ASSERT_EQ(fa->tensors.size(), 1u);
  ASSERT_EQ(fb->tensors.size(), 1u);
  EXPECT_EQ(fa->tensors[0], fb->tensors[0]);
  // The separate path is checked against the codec; the fractions here too.
  EXPECT_EQ(fa->tensors[0].fractions, tl::castFractions(values));
  EXPECT_THROW(a.record(-1, TensorClass::WeightGrads, scan), std::invalid_argument);
}

TEST(TensorScan, ScansAddUpOverSeveralSpans) {
  const auto values = adversarial(20000, 4);
  tl::TensorScan whole, parts;
  tl::scanInto(values, whole);
  tl::scanInto(std::span(values).first(7777), parts);
  tl::scanInto(std::span(values).subspan(7777), parts);
  EXPECT_EQ(parts.hist, whole.hist);
  EXPECT_EQ(parts.below, whole.below);
}

// Each kernel path this CPU has (AVX-512BW, AVX2, portable) counts what the
// references count. (On a CPU without AVX-512 the first two are both AVX2.)
TEST(TensorScan, EveryKernelPathGivesTheReferenceCounts) {
  for (unsigned seed : {5u, 6u}) {
    const auto values = adversarial(40003, seed);
    const auto hist = ilogbReference(values);
    const auto below = belowReference(values);
    for (const char* path : {"fastest", "avx2", "portable"}) {
      tl::setAvoidAvx512Telemetry(std::string_view(path) != "fastest");
      tl::setForcePortableTelemetry(std::string_view(path) == "portable");
      tl::TensorScan scan;
      tl::scanInto(values, scan);
      EXPECT_EQ(scan.hist, hist) << path << " seed " << seed;
      EXPECT_EQ(scan.below, below) << path << " seed " << seed;
    }
    tl::setAvoidAvx512Telemetry(false);
    tl::setForcePortableTelemetry(false);
  }
}

// Gradient-like values (a narrow band, as in training), where no value
// reaches an overflow threshold's binade, and values that do.
TEST(TensorScan, OverflowThresholdsCountedWhenValuesReachTheirBinade) {
  std::mt19937 rng(8);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> g(100000);
  for (float& v : g)
    v = 1e-4f * normal(rng);
  expectExact(g, "narrow");
  for (float v : {448.0f, 464.0f, std::nextafter(464.0f, 1e9f), 61439.0f, 61440.0f, 65519.0f,
                  65520.0f, std::bit_cast<float>(0x7f7f7fffu), std::bit_cast<float>(0x7f7f8000u)})
    g[static_cast<std::size_t>(rng() % g.size())] = v;
  expectExact(g, "with large values");
}
