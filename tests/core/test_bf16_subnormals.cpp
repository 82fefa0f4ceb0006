// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// BF16 subnormals are handled one way everywhere: every FP32 -> BF16 cast
// treats FP32 subnormal inputs as zero, sign kept, as the AVX512_BF16
// instruction VCVTNEPS2BF16 does. Pinned against the spec constants (FP32
// subnormals are the bit patterns 0x00000001..0x007fffff; BF16's smallest
// normal, 2^-126, is 0x0080) and, where the CPU has it, against the
// instruction itself over every FP32 subnormal. The nearest and stochastic
// casts, the batch conversions, the round trip the trainer stores and the
// telemetry's BF16 thresholds (what the histograms' "BF16 -> 0" counts) all
// agree.
#include <mantissa/numeric/convert.h>
#include <mantissa/telemetry/cast_fractions.h>

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

using namespace mantissa;

constexpr std::uint32_t kMaxSubnormalBits = 0x007fffffu; // FP32 spec: exponent field 0
constexpr std::uint32_t kMinNormalBits = 0x00800000u;    // 2^-126
constexpr std::uint16_t kBf16MinNormal = 0x0080;         // 2^-126 in BF16

// The kernel's CPU flags: independent of Mantissa's own CPUID query.
bool cpuHasFlag(const std::string& flag) {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("flags", 0) == 0)
      return (line + " ").find(" " + flag + " ") != std::string::npos;
  return false;
}

// Every FP32 subnormal pattern of one sign, strided for the slow checks.
std::vector<float> subnormals(std::uint32_t sign, std::uint32_t stride) {
  std::vector<float> v;
  for (std::uint32_t b = 1; b <= kMaxSubnormalBits; b += stride)
    v.push_back(std::bit_cast<float>(sign | b));
  v.push_back(std::bit_cast<float>(sign | kMaxSubnormalBits));
  return v;
}

TEST(Bf16Subnormals, EveryCastFlushesFp32SubnormalsToSignedZero) {
  for (std::uint32_t sign : {0u, 0x80000000u}) {
    const std::uint16_t zero = sign ? 0x8000 : 0x0000;
    const auto values = subnormals(sign, 997);
    for (float x : values) {
      ASSERT_EQ(numeric::f32ToBf16(x), zero) << std::hexfloat << x;
      for (std::uint32_t random : {0u, 1u, 0x80000000u, 0xffffffffu})
        ASSERT_EQ(numeric::f32ToBf16Stochastic(x, random), zero) << std::hexfloat << x << " " << random;
    }
    std::vector<numeric::Bf16Bits> batch(values.size());
    numeric::convertF32ToBf16(values, batch);
    for (std::size_t i = 0; i < values.size(); ++i)
      ASSERT_EQ(batch[i], zero) << std::hexfloat << values[i];
    std::vector<float> stored = values;
    numeric::roundTripBf16(stored);
    for (float y : stored)
      ASSERT_EQ(std::bit_cast<std::uint32_t>(y), sign);
  }
  // The smallest normal stays: BF16 keeps FP32's exponent range.
  EXPECT_EQ(numeric::f32ToBf16(std::bit_cast<float>(kMinNormalBits)), kBf16MinNormal);
  EXPECT_EQ(numeric::f32ToBf16Stochastic(std::bit_cast<float>(kMinNormalBits), 0xffffffffu),
            kBf16MinNormal);
}

TEST(Bf16Subnormals, TelemetryCountsThemAsLostToZeroNeverAsSubnormal) {
  const auto t = telemetry::castThresholds(telemetry::CastTarget::Bf16);
  EXPECT_EQ(t.zeroBelow, kMinNormalBits); // everything below 2^-126 becomes zero
  EXPECT_EQ(t.normalBelow, kMinNormalBits); // no BF16 subnormal result
  const auto values = subnormals(0, 4099);
  const auto counts = telemetry::castCounts(values)[1];
  static_assert(telemetry::kCastTargets[1] == telemetry::CastTarget::Bf16);
  EXPECT_EQ(counts.toSubnormal, 0u);
  EXPECT_EQ(counts.lostToZero(), values.size());
}

#if defined(__x86_64__)
[[gnu::target("avx512f,avx512bf16")]] void hardwareCast(const float* src, std::uint16_t* dst) {
  const __m256bh r = _mm512_cvtneps_pbh(_mm512_loadu_ps(src));
  std::memcpy(dst, &r, sizeof r);
}
#endif

TEST(Bf16Subnormals, MatchesVcvtneps2bf16OnEveryFp32Subnormal) {
#if defined(__x86_64__)
  if (!cpuHasFlag("avx512_bf16"))
    GTEST_SKIP() << "no AVX512_BF16 on this CPU (/proc/cpuinfo): VCVTNEPS2BF16 cannot run here";
  float in[16];
  std::uint16_t hw[16];
  std::vector<float> chunk(16);
  std::vector<numeric::Bf16Bits> batch(16);
  std::uint64_t checked = 0;
  for (std::uint32_t sign : {0u, 0x80000000u}) {
    for (std::uint32_t b = 0; b <= kMinNormalBits + 16; b += 16) { // every subnormal, both edges
      for (int i = 0; i < 16; ++i)
        in[i] = chunk[static_cast<std::size_t>(i)] = std::bit_cast<float>(sign | (b + static_cast<std::uint32_t>(i)));
      hardwareCast(in, hw);
      numeric::convertF32ToBf16(chunk, batch);
      for (int i = 0; i < 16; ++i) {
        ASSERT_EQ(numeric::f32ToBf16(in[i]), hw[i]) << std::hexfloat << in[i];
        ASSERT_EQ(batch[static_cast<std::size_t>(i)], hw[i]) << std::hexfloat << in[i];
        const std::uint32_t magnitude = b + static_cast<std::uint32_t>(i);
        if (magnitude != 0 && magnitude <= kMaxSubnormalBits) {
          // The instruction flushes: the spec's signed zero.
          ASSERT_EQ(hw[i], sign ? 0x8000 : 0x0000) << std::hexfloat << in[i];
          ASSERT_EQ(numeric::f32ToBf16Stochastic(in[i], 0), hw[i]) << std::hexfloat << in[i];
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 2u * kMaxSubnormalBits);
#else
  GTEST_SKIP() << "VCVTNEPS2BF16 is an x86-64 instruction";
#endif
}

} // namespace
