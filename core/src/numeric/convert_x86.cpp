// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// x86 batch kernels, each compiled for its own ISA with a target attribute
// (the rest of the library stays baseline x86-64); convert.cpp only calls a
// kernel after cpuFeatures() says the CPU has the ISA. Tails shorter than one
// vector go through the portable bit functions, which give the same bits.
#include "numeric/convert_bits.h"
#include "numeric/convert_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include <bit>
#include <cstring>

namespace mantissa::numeric::detail {

namespace {

// 8 FP32 -> 8 BF16 in the low halves of 32-bit lanes (see bf16FromF32Bits).
__attribute__((target("avx2"))) inline __m256i bf16Lanes(__m256i u) {
  const __m256i magnitude = _mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff));
  const __m256i high = _mm256_srli_epi32(u, 16);
  const __m256i bias =
      _mm256_add_epi32(_mm256_set1_epi32(0x7fff), _mm256_and_si256(high, _mm256_set1_epi32(1)));
  __m256i r = _mm256_srli_epi32(_mm256_add_epi32(u, bias), 16);
  const __m256i isSubnormal = _mm256_cmpgt_epi32(_mm256_set1_epi32(0x00800000), magnitude);
  r = _mm256_blendv_epi8(r, _mm256_and_si256(high, _mm256_set1_epi32(0x8000)), isSubnormal);
  const __m256i isNan = _mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(0x7f800000));
  return _mm256_blendv_epi8(r, _mm256_or_si256(high, _mm256_set1_epi32(0x0040)), isNan);
}

} // namespace

__attribute__((target("avx2"))) void f32ToBf16Avx2(const float* src, std::uint16_t* dst,
                                                   std::size_t n) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i a = bf16Lanes(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
    const __m256i b = bf16Lanes(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 8)));
    // packus interleaves 128-bit halves: a0 b0 a1 b1 -> reorder to a0 a1 b0 b1.
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), packed);
  }
  for (; i < n; ++i)
    dst[i] = bf16FromF32Bits(std::bit_cast<std::uint32_t>(src[i]));
}

__attribute__((target("avx2"))) void bf16ToF32Avx2(const std::uint16_t* src, float* dst,
                                                   std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    const __m256i u = _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), u);
  }
  for (; i < n; ++i)
    dst[i] = std::bit_cast<float>(f32BitsFromBf16(src[i]));
}

__attribute__((target("avx2,f16c"))) void f32ToF16F16c(const float* src, std::uint16_t* dst,
                                                       std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
  for (; i < n; ++i)
    dst[i] = f16FromF32Bits(std::bit_cast<std::uint32_t>(src[i]));
}

__attribute__((target("avx2,f16c"))) void f16ToF32F16c(const std::uint16_t* src, float* dst,
                                                       std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i)
    dst[i] = std::bit_cast<float>(f32BitsFromF16(src[i]));
}

__attribute__((target("avx512bf16,avx512f,avx512vl"))) void
f32ToBf16Avx512Bf16(const float* src, std::uint16_t* dst, std::size_t n) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256bh h = _mm512_cvtneps_pbh(_mm512_loadu_ps(src + i));
    std::memcpy(dst + i, &h, sizeof h);
  }
  for (; i < n; ++i)
    dst[i] = bf16FromF32Bits(std::bit_cast<std::uint32_t>(src[i]));
}

// values = bf16(values) widened back, in one pass: the bits of
// f32ToBf16Avx512Bf16 followed by the exact widening.
__attribute__((target("avx512bf16,avx512f,avx512vl"))) void roundTripBf16Avx512Bf16(float* values,
                                                                                   std::size_t n) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256bh h = _mm512_cvtneps_pbh(_mm512_loadu_ps(values + i));
    __m256i bits;
    std::memcpy(&bits, &h, sizeof h);
    // (The zero-masking forms: the plain ones start from an undefined
    // register that GCC 12 reports as maybe uninitialized.)
    const __mmask16 all = 0xFFFF;
    _mm512_storeu_si512(values + i,
                        _mm512_maskz_slli_epi32(all, _mm512_maskz_cvtepu16_epi32(all, bits), 16));
  }
  for (; i < n; ++i)
    values[i] = std::bit_cast<float>(
        f32BitsFromBf16(bf16FromF32Bits(std::bit_cast<std::uint32_t>(values[i]))));
}

} // namespace mantissa::numeric::detail
#endif
