// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Every one of the 2^32 FP32 inputs through FP32 -> BF16 and FP32 -> FP16
// (round to nearest even): the batch path this CPU uses (F16C, AVX512_BF16
// or the AVX2 rule where present) must give the portable path's bits,
// subnormals and NaNs included; a sample of every shard is also checked
// against the codec (an independent big-integer formulation, with DAZ for
// BF16 as VCVTNEPS2BF16). Eight shards, so ctest -j runs them side by side;
// sanitizer builds sweep 1/13 of each shard (see chunkStride).
// Labelled `exhaustive`.
#include <mantissa/build_flags.h>
#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/convert.h>

#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <vector>

namespace {

using namespace mantissa::numeric;

constexpr int kShards = 8;
constexpr std::uint64_t kShardSize = (1ull << 32) / kShards;
constexpr std::size_t kChunk = 1u << 20;
constexpr std::uint64_t kCodecStride = 4093; // prime: the sample hits every bit position
// Under a sanitizer (every load is a shadow check, a full
// sweep would take most of CI's hour) each shard converts one chunk in 13,
// 1/13 of the inputs: 13 is prime to the 8 chunks per binade, so the chunks
// land in every eighth of the mantissa and, across shards, in subnormals,
// normals, infinities and NaNs of both signs. The release suite sweeps all 2^32.
std::uint64_t chunkStride() { return mantissa::builtWithSanitizer() ? 13 : 1; }

class NumericExhaustive : public ::testing::TestWithParam<int> {};

TEST_P(NumericExhaustive, BatchMatchesPortableAndCodec) {
  const std::uint64_t begin = static_cast<std::uint64_t>(GetParam()) * kShardSize;
  std::vector<std::uint32_t> bits(kChunk);
  std::vector<float> src(kChunk);
  std::vector<std::uint16_t> fastBf(kChunk), portableBf(kChunk), fastH(kChunk), portableH(kChunk);
  EncodeOptions daz;
  daz.flushSubnormals = true;
  const FloatFormat& bf16 = formatInfo(FormatId::Bf16);
  const FloatFormat& fp16 = formatInfo(FormatId::Fp16);
  std::uint64_t mismatches = 0, sampled = 0;
  for (std::uint64_t start = begin; start < begin + kShardSize; start += kChunk * chunkStride()) {
    for (std::size_t i = 0; i < kChunk; ++i)
      bits[i] = static_cast<std::uint32_t>(start + i);
    std::memcpy(src.data(), bits.data(), kChunk * sizeof(float));
    setForcePortableConversions(false);
    convertF32ToBf16(src, fastBf);
    convertF32ToF16(src, fastH);
    setForcePortableConversions(true);
    convertF32ToBf16(src, portableBf);
    convertF32ToF16(src, portableH);
    setForcePortableConversions(false);
    for (std::size_t i = 0; i < kChunk; ++i) {
      if (fastBf[i] != portableBf[i] || fastH[i] != portableH[i]) {
        if (++mismatches <= 10)
          ADD_FAILURE() << std::hex << "input 0x" << bits[i] << ": bf16 0x" << fastBf[i]
                        << " vs 0x" << portableBf[i] << ", fp16 0x" << fastH[i] << " vs 0x"
                        << portableH[i];
      }
    }
    for (std::uint64_t i = (kCodecStride - start % kCodecStride) % kCodecStride; i < kChunk;
         i += kCodecStride) {
      const double x = static_cast<double>(src[i]);
      ++sampled;
      if (encode(bf16, x, daz).bits != portableBf[i] || encode(fp16, x).bits != portableH[i]) {
        if (++mismatches <= 10)
          ADD_FAILURE() << std::hex << "codec disagrees on input 0x" << bits[i];
      }
    }
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_GT(sampled, kShardSize / chunkStride() / kCodecStride - 1);
}

INSTANTIATE_TEST_SUITE_P(Shards, NumericExhaustive, ::testing::Range(0, kShards));

// Every exponent and sign with the mantissas where rounding decides: just
// below, on and above the tie, with even and odd kept bits, and the carry
// into the next binade; batch against the codec (independent of the bit
// tricks) for both formats.
TEST(NumericBoundaries, EveryExponentAroundEveryTie) {
  std::vector<float> src;
  const std::uint32_t keptBf16[] = {0x000000, 0x010000, 0x7e0000, 0x7f0000};
  const std::uint32_t lowBf16[] = {0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff};
  const std::uint32_t keptF16[] = {0x000000, 0x002000, 0x7fc000, 0x7fe000};
  const std::uint32_t lowF16[] = {0x0000, 0x0001, 0x0fff, 0x1000, 0x1001, 0x1fff};
  for (std::uint32_t sign = 0; sign < 2; ++sign)
    for (std::uint32_t e = 0; e < 256; ++e) {
      for (std::uint32_t k : keptBf16)
        for (std::uint32_t l : lowBf16)
          src.push_back(std::bit_cast<float>((sign << 31) | (e << 23) | k | l));
      for (std::uint32_t k : keptF16)
        for (std::uint32_t l : lowF16)
          src.push_back(std::bit_cast<float>((sign << 31) | (e << 23) | k | l));
    }
  std::vector<std::uint16_t> bf(src.size()), h(src.size());
  convertF32ToBf16(src, bf);
  convertF32ToF16(src, h);
  EncodeOptions daz;
  daz.flushSubnormals = true;
  for (std::size_t i = 0; i < src.size(); ++i) {
    const double x = src[i];
    ASSERT_EQ(bf[i], encode(formatInfo(FormatId::Bf16), x, daz).bits)
        << std::hex << std::bit_cast<std::uint32_t>(src[i]);
    ASSERT_EQ(h[i], encode(formatInfo(FormatId::Fp16), x).bits)
        << std::hex << std::bit_cast<std::uint32_t>(src[i]);
  }
}

} // namespace
