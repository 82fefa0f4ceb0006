// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The codec against independent conversions: the CPU's double -> float
// (CVTSD2SS), glibc's strtof, libgcc's double -> _Float16, and the F16C
// instruction; then the fast conversions (convert.h) against the codec.
#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/convert.h>
#include <mantissa/numeric/cpu_features.h>

#include <gtest/gtest.h>

#include <bit>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

using namespace mantissa::numeric;

const FloatFormat& fmt(FormatId id) { return formatInfo(id); }

// Random doubles spread over every binade a format can reach, plus random
// bit patterns (NaNs with payloads, infinities, subnormals).
double randomDouble(std::mt19937_64& rng, int minExp, int maxExp) {
  if (rng() % 8 == 0)
    return std::bit_cast<double>(rng());
  const int e = minExp + static_cast<int>(rng() % static_cast<unsigned>(maxExp - minExp + 1));
  const std::uint64_t bits = (static_cast<std::uint64_t>(e + 1023) << 52) |
                             (rng() & ((1ull << 52) - 1)) | (rng() & (1ull << 63));
  // Some values sit exactly on or next to a tie of the target.
  const std::uint64_t tieBits = rng() % 4 == 0 ? (bits & ~((1ull << 29) - 1)) | (1ull << 28) : bits;
  return std::bit_cast<double>(tieBits + (rng() % 3) - 1);
}

#if defined(__FLT16_MANT_DIG__) // GCC 12+ on x86-64; clang 14 has no x86 _Float16
std::uint16_t float16Bits(double d) {
  const _Float16 h = static_cast<_Float16>(d); // libgcc __truncdfhf2: one rounding, ties to even
  std::uint16_t b;
  std::memcpy(&b, &h, sizeof b);
  return b;
}

TEST(NumericCrossCheck, EncodeFp32MatchesCvtsd2ss) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 2000000; ++i) {
    const double d = randomDouble(rng, -160, 130);
    const auto expect = std::bit_cast<std::uint32_t>(static_cast<float>(d));
    ASSERT_EQ(encode(fmt(FormatId::Fp32), d).bits, expect) << std::hexfloat << d;
  }
}

TEST(NumericCrossCheck, EncodeFp16MatchesLibgccFloat16) {
  std::mt19937_64 rng(2);
  for (int i = 0; i < 1000000; ++i) {
    const double d = randomDouble(rng, -30, 17);
    if (std::isnan(d))
      continue; // libgcc's NaN payload rule is not the x86 one; NaNs are checked against F16C
    ASSERT_EQ(encode(fmt(FormatId::Fp16), d).bits, float16Bits(d)) << std::hexfloat << d;
  }
}
#endif

// The double fast path (64-bit integers) against the general big-integer
// path the decimal input takes, in every format and rounding mode.
TEST(NumericCrossCheck, DoublePathMatchesBigIntegerPath) {
  std::mt19937_64 rng(8);
  for (FormatId id : {FormatId::Fp32, FormatId::Tf32, FormatId::Fp16, FormatId::Bf16,
                      FormatId::Fp8E4M3, FormatId::Fp8E5M2}) {
    for (int i = 0; i < 40000; ++i) {
      const double d = randomDouble(rng, -160, 130);
      if (std::isnan(d))
        continue; // the big-integer path has no payloads
      EncodeOptions o;
      o.rounding = static_cast<Rounding>(rng() % 5);
      o.overflow = rng() & 1 ? OverflowMode::Saturate : OverflowMode::Infinity;
      o.flushSubnormals = (rng() & 3) == 0;
      o.random = static_cast<std::uint32_t>(rng());
      const EncodeResult fast = encode(fmt(id), d, o);
      const EncodeResult exact = encode(fmt(id), ExactValue::fromDouble(d), o);
      ASSERT_EQ(fast.bits, exact.bits) << fmt(id).name << " " << std::hexfloat << d;
      ASSERT_EQ(fast.inexact, exact.inexact);
      ASSERT_EQ(fast.overflowed, exact.overflowed);
      ASSERT_EQ(fast.underflowed, exact.underflowed);
    }
  }
}

TEST(NumericCrossCheck, DecimalEncodeMatchesStrtofAndStrtod) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 100000; ++i) {
    std::string s = std::to_string(rng() % 1000000000000ull) + std::to_string(rng() % 100000);
    s.insert(rng() % s.size(), ".");
    s += "e" + std::to_string(static_cast<int>(rng() % 100) - 60);
    const ExactValue v = *parseNumber(s).value;
    ASSERT_EQ(encode(fmt(FormatId::Fp32), v).bits,
              std::bit_cast<std::uint32_t>(std::strtof(s.c_str(), nullptr)))
        << s;
    ASSERT_EQ(encode(fmt(FormatId::Fp64), v).bits,
              std::bit_cast<std::uint64_t>(std::strtod(s.c_str(), nullptr)))
        << s;
  }
}

#if defined(__x86_64__)
__attribute__((target("f16c"))) std::uint16_t f16cFromFloat(float x) {
  const __m128i h = _mm_cvtps_ph(_mm_set_ss(x), _MM_FROUND_TO_NEAREST_INT); // VCVTPS2PH
  return static_cast<std::uint16_t>(_mm_cvtsi128_si32(h));
}
__attribute__((target("f16c"))) float f16cToFloat(std::uint16_t h) {
  return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h))); // VCVTPH2PS
}

TEST(NumericCrossCheck, CodecAndScalarFp16MatchF16c) {
  ASSERT_TRUE(cpuFeatures().f16c) << "this check needs an F16C CPU (every x86-64 since 2013)";
  std::mt19937_64 rng(4);
  for (int i = 0; i < 2000000; ++i) {
    const auto x = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    const std::uint16_t hw = f16cFromFloat(x);
    ASSERT_EQ(f32ToF16(x), hw) << std::hexfloat << x;
    ASSERT_EQ(encode(fmt(FormatId::Fp16), static_cast<double>(x)).bits, hw) << std::hexfloat << x;
  }
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto expect = std::bit_cast<std::uint32_t>(f16cToFloat(static_cast<std::uint16_t>(h)));
    ASSERT_EQ(std::bit_cast<std::uint32_t>(f16ToF32(static_cast<std::uint16_t>(h))), expect) << h;
  }
}
#endif

TEST(NumericCrossCheck, Bf16ScalarMatchesCodecWithDaz) {
  std::mt19937_64 rng(5);
  EncodeOptions daz;
  daz.flushSubnormals = true;
  for (int i = 0; i < 2000000; ++i) {
    const auto x = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    ASSERT_EQ(f32ToBf16(x), encode(fmt(FormatId::Bf16), static_cast<double>(x), daz).bits)
        << std::hexfloat << x;
  }
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto b = static_cast<std::uint16_t>(h);
    if (classify(fmt(FormatId::Bf16), b) == FloatClass::NaN)
      EXPECT_EQ(std::bit_cast<std::uint32_t>(bf16ToF32(b)), h << 16);
    else
      EXPECT_EQ(static_cast<double>(bf16ToF32(b)), toDouble(fmt(FormatId::Bf16), b)) << h;
  }
}

TEST(NumericCrossCheck, StochasticConversionsMatchTheCodec) {
  std::mt19937_64 rng(6);
  EncodeOptions o;
  o.rounding = Rounding::Stochastic;
  EncodeOptions daz = o; // BF16 casts treat FP32 subnormal inputs as zero
  daz.flushSubnormals = true;
  for (int i = 0; i < 2000000; ++i) {
    const auto x = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    o.random = daz.random = static_cast<std::uint32_t>(rng());
    ASSERT_EQ(f32ToBf16Stochastic(x, o.random), encode(fmt(FormatId::Bf16), static_cast<double>(x), daz).bits)
        << std::hexfloat << x << " " << o.random;
    ASSERT_EQ(f32ToF16Stochastic(x, o.random), encode(fmt(FormatId::Fp16), static_cast<double>(x), o).bits)
        << std::hexfloat << x << " " << o.random;
  }
}

// Batch (hardware where present) against the scalar functions, with lengths
// that leave every possible vector tail.
TEST(NumericCrossCheck, BatchMatchesScalarForEveryTailLength) {
  std::mt19937_64 rng(7);
  for (std::size_t n = 0; n < 70; ++n) {
    std::vector<float> src(n);
    for (auto& x : src)
      x = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    std::vector<std::uint16_t> bf(n), h(n);
    convertF32ToBf16(src, bf);
    convertF32ToF16(src, h);
    std::vector<float> backBf(n), backH(n);
    convertBf16ToF32(bf, backBf);
    convertF16ToF32(h, backH);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(bf[i], f32ToBf16(src[i]));
      ASSERT_EQ(h[i], f32ToF16(src[i]));
      ASSERT_EQ(std::bit_cast<std::uint32_t>(backBf[i]), std::bit_cast<std::uint32_t>(bf16ToF32(bf[i])));
      ASSERT_EQ(std::bit_cast<std::uint32_t>(backH[i]), std::bit_cast<std::uint32_t>(f16ToF32(h[i])));
    }
    std::vector<float> rtBf = src, rtH = src;
    roundTripBf16(rtBf);
    roundTripF16(rtH);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(rtBf[i]), std::bit_cast<std::uint32_t>(backBf[i]));
      ASSERT_EQ(std::bit_cast<std::uint32_t>(rtH[i]), std::bit_cast<std::uint32_t>(backH[i]));
    }
  }
}

// The kernel's CPU flags, not Mantissa's own CPUID query.
bool cpuinfoHasFlag(const std::string& flag) {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("flags", 0) == 0)
      return (line + " ").find(" " + flag + " ") != std::string::npos;
  return false;
}

TEST(NumericCrossCheck, PathsReportWhatTheCpuHas) {
  EXPECT_EQ(bf16ConvertPath() == ConvertPath::Hardware, cpuinfoHasFlag("avx512_bf16"));
  EXPECT_EQ(f16ConvertPath() == ConvertPath::Hardware, cpuinfoHasFlag("f16c") && cpuinfoHasFlag("avx2"));
  setForcePortableConversions(true);
  EXPECT_EQ(bf16ConvertPath(), ConvertPath::Portable);
  EXPECT_EQ(f16ConvertPath(), ConvertPath::Portable);
  setForcePortableConversions(false);
}

} // namespace
