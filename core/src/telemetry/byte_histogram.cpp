// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "telemetry/byte_histogram.h"
#include "telemetry/scan.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstring>
#include <immintrin.h>
#include <utility>

namespace mantissa::telemetry::detail {
namespace {

inline unsigned exponentByte(const float* x) {
  std::uint32_t b;
  std::memcpy(&b, x, sizeof b);
  return (b >> 23) & 0xffu;
}

// Sum of the 32 byte counters of `acc`.
[[gnu::target("avx2")]] inline std::uint32_t sumBytes(__m256i acc) {
  const __m256i s = _mm256_sad_epu8(acc, _mm256_setzero_si256()); // 4 x u64
  const __m128i h = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
  return static_cast<std::uint32_t>(_mm_cvtsi128_si64(h) + _mm_extract_epi64(h, 1));
}

// Counts of 8 byte values over rounds x 32 bytes of `rel` (bin - lo, mod
// 256): keys first .. first + 7, or first .. first + 6 plus bin 0 (key -lo)
// when withZero. 8 counters and 8 keys stay in registers.
[[gnu::target("avx2")]] void countKeys(const std::uint8_t* rel, std::size_t rounds,
                                       std::array<std::uint32_t, 256>& t, unsigned lo,
                                       unsigned first, bool withZero) {
  const __m256i zero = _mm256_setzero_si256();
  __m256i acc[8], key[8];
  for (unsigned k = 0; k < 8; ++k) {
    acc[k] = zero;
    key[k] = _mm256_set1_epi8(static_cast<char>(first + k));
  }
  if (withZero)
    key[7] = _mm256_set1_epi8(static_cast<char>(256 - lo));
  for (std::size_t r = 0; r < rounds; ++r) { // rounds <= 255: byte counters do not wrap
    const __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(rel + 32 * r));
#pragma GCC unroll 8
    for (unsigned k = 0; k < 8; ++k)
      acc[k] = _mm256_sub_epi8(acc[k], _mm256_cmpeq_epi8(v, key[k])); // a match is -1
  }
  for (unsigned k = 0; k < (withZero ? 7u : 8u); ++k)
    t[lo + first + k] += sumBytes(acc[k]);
  if (withZero)
    t[0] += sumBytes(acc[7]);
}

// GCC 12's AVX-512 intrinsics start some results from _mm512_undefined_*(),
// which -Wuninitialized reports once inlined (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// The same counts with AVX-512BW: 64 bytes per round, compares into masks
// and masked increments (one compare and one add per key and 64 values, two
// of each with AVX2).
[[gnu::target("avx512f,avx512bw")]] inline std::uint32_t sumBytes512(__m512i acc) {
  return static_cast<std::uint32_t>(
      _mm512_reduce_add_epi64(_mm512_sad_epu8(acc, _mm512_setzero_si512())));
}

[[gnu::target("avx512f,avx512bw")]] void countKeys512(const std::uint8_t* rel, std::size_t rounds,
                                                      std::array<std::uint32_t, 256>& t,
                                                      unsigned lo, unsigned first, bool withZero) {
  const __m512i one = _mm512_set1_epi8(1);
  __m512i acc[8], key[8];
  for (unsigned k = 0; k < 8; ++k) {
    acc[k] = _mm512_setzero_si512();
    key[k] = _mm512_set1_epi8(static_cast<char>(first + k));
  }
  if (withZero)
    key[7] = _mm512_set1_epi8(static_cast<char>(256 - lo));
  for (std::size_t r = 0; r < rounds; ++r) { // rounds <= 255: byte counters do not wrap
    const __m512i v = _mm512_load_si512(rel + 64 * r);
#pragma GCC unroll 8
    for (unsigned k = 0; k < 8; ++k)
      acc[k] = _mm512_mask_add_epi8(acc[k], _mm512_cmpeq_epi8_mask(v, key[k]), acc[k], one);
  }
  for (unsigned k = 0; k < (withZero ? 7u : 8u); ++k)
    t[lo + first + k] += sumBytes512(acc[k]);
  if (withZero)
    t[0] += sumBytes512(acc[7]);
}

#pragma GCC diagnostic pop

} // namespace

void addScalar(const float* x, std::size_t n, ByteHistogram& hist) {
  auto& t0 = hist.tables[0];
  auto& t1 = hist.tables[1];
  auto& t2 = hist.tables[2];
  auto& t3 = hist.tables[3];
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    ++t0[exponentByte(x + i)];
    ++t1[exponentByte(x + i + 1)];
    ++t2[exponentByte(x + i + 2)];
    ++t3[exponentByte(x + i + 3)];
  }
  for (; i < n; ++i)
    ++t0[exponentByte(x + i)];
}

namespace {

// The values of a round outside the window (the set bits of `missed` index
// their exponent bytes), counted one by one; returns how many.
inline std::size_t addMissed(const std::uint8_t* bytes, std::uint64_t missed,
                             std::array<std::uint32_t, 256>& t) {
  const auto count = static_cast<std::size_t>(std::popcount(missed));
  for (; missed != 0; missed &= missed - 1)
    ++t[bytes[std::countr_zero(missed)]];
  return count;
}

// The values from i on (fewer than a round), one by one: their bins and the
// limits; returns how many.
template <std::size_t K>
std::size_t addRemainder(const float* x, std::size_t i, std::size_t n,
                         std::array<std::uint32_t, 256>& t, const std::uint32_t* limits,
                         std::uint64_t* below) {
  for (std::size_t j = i; j < n; ++j) {
    std::uint32_t bits;
    std::memcpy(&bits, x + j, sizeof bits);
    ++t[(bits >> 23) & 0xffu];
    for (std::size_t k = 0; k < K; ++k)
      below[k] += (bits & 0x7fffffffu) < limits[k] ? 1u : 0u;
  }
  return n - i;
}

// addWindowed with K limits counted in stage 1, while the values are in
// registers: below[k] += #{bits(|x|) < limits[k]}. A signed compare is exact
// (|x| bits and limits are below 2^31; NaN is never below a limit <= +inf).
template <std::size_t K>
[[gnu::target("avx2")]] std::size_t addWindowedK(const float* x, std::size_t n, ByteHistogram& hist,
                                                 const Window& window, const std::uint32_t* limits,
                                                 std::uint64_t* below) {
  const unsigned lo = window.lo;
  const unsigned span = window.span(); // contiguous bins lo .. lo + span - 1
  constexpr std::size_t kRounds = 64;  // 2 KiB of exponent bytes per block
  auto& t = hist.tables[0];
  const __m256i low16 = _mm256_set1_epi16(0xff);
  const __m256i vlo = _mm256_set1_epi8(static_cast<char>(lo));
  const __m256i vlast = _mm256_set1_epi8(static_cast<char>(span - 1));
  const __m256i zero = _mm256_setzero_si256();
  const __m256i absMask = _mm256_set1_epi32(0x7fffffff);
  __m256i limit[K > 0 ? K : 1], acc[K > 0 ? K : 1];
  for (std::size_t k = 0; k < K; ++k) {
    limit[k] = _mm256_set1_epi32(static_cast<int>(limits[k]));
    acc[k] = zero;
  }
  alignas(32) std::uint8_t rel[32 * kRounds];
  std::size_t outside = 0;
  std::size_t i = 0;
  while (n - i >= 32) {
    // Stage 1: exponent bytes of 32 values per round, relative to lo, into
    // `rel`; values outside the window are counted here, one by one. The
    // packs interleave lanes (a histogram does not care about order); 32 ->
    // 16 bits keeps sign + exponent (9 bits) exactly, masking drops the
    // sign, so the 16 -> 8 saturating pack is exact too. The limits are
    // compared against the magnitudes here too.
    const std::size_t rounds = std::min((n - i) / 32, kRounds);
    for (std::size_t r = 0; r < rounds; ++r, i += 32) {
      const auto* p = reinterpret_cast<const __m256i*>(x + i);
      const __m256i xa = _mm256_loadu_si256(p);
      const __m256i xb = _mm256_loadu_si256(p + 1);
      const __m256i xc = _mm256_loadu_si256(p + 2);
      const __m256i xd = _mm256_loadu_si256(p + 3);
      if constexpr (K > 0) {
        const __m256i ma = _mm256_and_si256(xa, absMask);
        const __m256i mb = _mm256_and_si256(xb, absMask);
        const __m256i mc = _mm256_and_si256(xc, absMask);
        const __m256i md = _mm256_and_si256(xd, absMask);
#pragma GCC unroll 8
        for (std::size_t k = 0; k < K; ++k) { // a match is -1
          const __m256i ab =
              _mm256_add_epi32(_mm256_cmpgt_epi32(limit[k], ma), _mm256_cmpgt_epi32(limit[k], mb));
          const __m256i cd =
              _mm256_add_epi32(_mm256_cmpgt_epi32(limit[k], mc), _mm256_cmpgt_epi32(limit[k], md));
          acc[k] = _mm256_sub_epi32(acc[k], _mm256_add_epi32(ab, cd));
        }
      }
      const __m256i a = _mm256_srli_epi32(xa, 23);
      const __m256i b = _mm256_srli_epi32(xb, 23);
      const __m256i c = _mm256_srli_epi32(xc, 23);
      const __m256i d = _mm256_srli_epi32(xd, 23);
      const __m256i ab = _mm256_and_si256(_mm256_packus_epi32(a, b), low16);
      const __m256i cd = _mm256_and_si256(_mm256_packus_epi32(c, d), low16);
      const __m256i e = _mm256_packus_epi16(ab, cd);
      const __m256i v = _mm256_sub_epi8(e, vlo);
      _mm256_store_si256(reinterpret_cast<__m256i*>(rel + 32 * r), v);
      const __m256i inside = _mm256_or_si256(_mm256_cmpeq_epi8(_mm256_min_epu8(v, vlast), v),
                                             _mm256_cmpeq_epi8(e, zero));
      const unsigned missed = ~static_cast<unsigned>(_mm256_movemask_epi8(inside));
      if (missed != 0) [[unlikely]] {
        alignas(32) std::uint8_t bytes[32];
        _mm256_store_si256(reinterpret_cast<__m256i*>(bytes), e);
        outside += addMissed(bytes, missed, t);
      }
    }
    // Stage 2: the window's bins, 8 per pass over the bytes (L1): bin 0 and
    // the first 7 binades, then 8 binades per pass.
    countKeys(rel, rounds, t, lo, 0, true);
    for (unsigned p = 1; p < window.passes; ++p)
      countKeys(rel, rounds, t, lo, 8 * p - 1, false);
  }
  alignas(32) std::uint32_t lanes[8];
  for (std::size_t k = 0; k < K; ++k) { // lane counts < 2^32: n / 8 per lane
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc[k]);
    for (std::uint32_t c : lanes)
      below[k] += c;
  }
  return outside + addRemainder<K>(x, i, n, t, limits, below);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// addWindowedK with AVX-512BW: 64 values per round; the limits are compared
// into masks and counted by masked increments.
template <std::size_t K>
[[gnu::target("avx512f,avx512bw")]] std::size_t
addWindowedK512(const float* x, std::size_t n, ByteHistogram& hist, const Window& window,
                const std::uint32_t* limits, std::uint64_t* below) {
  const unsigned lo = window.lo;
  const unsigned span = window.span();
  constexpr std::size_t kRounds = 32; // 2 KiB of exponent bytes per block
  auto& t = hist.tables[0];
  const __m512i low16 = _mm512_set1_epi16(0xff);
  const __m512i vlo = _mm512_set1_epi8(static_cast<char>(lo));
  const __m512i vlast = _mm512_set1_epi8(static_cast<char>(span - 1));
  const __m512i zero = _mm512_setzero_si512();
  const __m512i absMask = _mm512_set1_epi32(0x7fffffff);
  const __m512i one = _mm512_set1_epi32(1);
  __m512i limit[K > 0 ? K : 1], acc[K > 0 ? K : 1];
  for (std::size_t k = 0; k < K; ++k) {
    limit[k] = _mm512_set1_epi32(static_cast<int>(limits[k]));
    acc[k] = zero;
  }
  alignas(64) std::uint8_t rel[64 * kRounds];
  std::size_t outside = 0;
  std::size_t i = 0;
  while (n - i >= 64) {
    // Stage 1 as in addWindowedK: exponent bytes (lane-interleaved by the
    // packs), relative to lo; values outside the window one by one.
    const std::size_t rounds = std::min((n - i) / 64, kRounds);
    for (std::size_t r = 0; r < rounds; ++r, i += 64) {
      const __m512i xa = _mm512_loadu_si512(x + i);
      const __m512i xb = _mm512_loadu_si512(x + i + 16);
      const __m512i xc = _mm512_loadu_si512(x + i + 32);
      const __m512i xd = _mm512_loadu_si512(x + i + 48);
      if constexpr (K > 0) {
        const __m512i ma = _mm512_and_si512(xa, absMask);
        const __m512i mb = _mm512_and_si512(xb, absMask);
        const __m512i mc = _mm512_and_si512(xc, absMask);
        const __m512i md = _mm512_and_si512(xd, absMask);
#pragma GCC unroll 8
        for (std::size_t k = 0; k < K; ++k) {
          acc[k] = _mm512_mask_add_epi32(acc[k], _mm512_cmplt_epi32_mask(ma, limit[k]), acc[k], one);
          acc[k] = _mm512_mask_add_epi32(acc[k], _mm512_cmplt_epi32_mask(mb, limit[k]), acc[k], one);
          acc[k] = _mm512_mask_add_epi32(acc[k], _mm512_cmplt_epi32_mask(mc, limit[k]), acc[k], one);
          acc[k] = _mm512_mask_add_epi32(acc[k], _mm512_cmplt_epi32_mask(md, limit[k]), acc[k], one);
        }
      }
      const __m512i a = _mm512_srli_epi32(xa, 23);
      const __m512i b = _mm512_srli_epi32(xb, 23);
      const __m512i c = _mm512_srli_epi32(xc, 23);
      const __m512i d = _mm512_srli_epi32(xd, 23);
      const __m512i ab = _mm512_and_si512(_mm512_packus_epi32(a, b), low16);
      const __m512i cd = _mm512_and_si512(_mm512_packus_epi32(c, d), low16);
      const __m512i e = _mm512_packus_epi16(ab, cd);
      const __m512i v = _mm512_sub_epi8(e, vlo);
      _mm512_store_si512(rel + 64 * r, v);
      const __mmask64 inside = _mm512_cmple_epu8_mask(v, vlast) | _mm512_cmpeq_epi8_mask(e, zero);
      const std::uint64_t missed = ~static_cast<std::uint64_t>(inside);
      if (missed != 0) [[unlikely]] {
        alignas(64) std::uint8_t bytes[64];
        _mm512_store_si512(bytes, e);
        outside += addMissed(bytes, missed, t);
      }
    }
    // Stage 2: the window's bins, 8 per pass over the bytes (L1).
    countKeys512(rel, rounds, t, lo, 0, true);
    for (unsigned p = 1; p < window.passes; ++p)
      countKeys512(rel, rounds, t, lo, 8 * p - 1, false);
  }
  for (std::size_t k = 0; k < K; ++k) // lane counts < 2^32: n / 16 per lane
    below[k] += static_cast<std::uint32_t>(_mm512_reduce_add_epi32(acc[k]));
  return outside + addRemainder<K>(x, i, n, t, limits, below);
}

#pragma GCC diagnostic pop

template <std::size_t... Ks>
std::size_t addWindowedDispatch(std::index_sequence<Ks...>, bool avx512, const float* x,
                                std::size_t n, ByteHistogram& hist, const Window& window,
                                std::span<const std::uint32_t> limits, std::uint64_t* below) {
  std::size_t outside = 0;
  if (avx512)
    ((limits.size() == Ks
          ? void(outside = addWindowedK512<Ks>(x, n, hist, window, limits.data(), below))
          : void()),
     ...);
  else
    ((limits.size() == Ks
          ? void(outside = addWindowedK<Ks>(x, n, hist, window, limits.data(), below))
          : void()),
     ...);
  return outside;
}

} // namespace

std::size_t addWindowed(const float* x, std::size_t n, ByteHistogram& hist, const Window& window,
                        std::span<const std::uint32_t> limits, std::uint64_t* below) {
  assert(limits.size() <= kMaxLimits);
  return addWindowedDispatch(std::make_index_sequence<kMaxLimits + 1>{}, useAvx512(), x, n, hist,
                             window, limits, below);
}

Window pickWindow(const ByteHistogram& hist) {
  std::array<std::uint64_t, 256> bins;
  std::uint64_t total = 0;
  for (unsigned b = 0; b < 256; ++b) {
    bins[b] = hist.bin(b);
    total += bins[b];
  }
  Window best;
  for (unsigned passes = 1; passes <= kMaxPasses; ++passes) {
    Window w;
    w.passes = passes;
    w.total = total;
    const unsigned span = w.span();
    std::uint64_t run = 0; // sum of bins[lo .. lo + span - 1]
    for (unsigned b = 1; b <= span; ++b)
      run += bins[b];
    w.covered = run;
    for (unsigned lo = 2; lo + span <= 256; ++lo) {
      run += bins[lo + span - 1] - bins[lo - 1];
      if (run > w.covered) {
        w.covered = run;
        w.lo = lo;
      }
    }
    w.covered += bins[0];
    best = w;
    if ((total - w.covered) * 256 <= total)
      break;
  }
  return best;
}

} // namespace mantissa::telemetry::detail
