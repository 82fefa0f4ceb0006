// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "telemetry/byte_histogram.h"
#include "telemetry/scan.h"

#include <mantissa/telemetry/sum_scan.h>

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace mantissa::telemetry {
namespace {

constexpr std::uint32_t kAbsMask = 0x7fffffffu;
constexpr std::size_t kPerView = detail::kThresholdsPerView; // TensorScan::below order

// Counted by compares in the chain's shadow: the zeroBelow and normalBelow
// thresholds that are not a binade start, then 1 (bits(|x|) < 1: exact
// zeros). Few enough that the accumulators and the chain stay in registers.
// The others (overflow thresholds, BF16's two at 2^-126) are read off the
// histogram: every value below their binade, plus a pass over the rare
// tensor whose values reach their own binade.
constexpr std::size_t kDirect = 7;
struct Direct {
  std::array<std::uint32_t, kDirect> limit{}; // counted: bits(|x|) < limit
  std::array<int, kDirect> of{};              // index into viewThresholds(), -1: zeros, -2: unused
  std::array<bool, kPerView> direct{};        // viewThresholds()[j] is one of them
};

const Direct& direct() {
  static const Direct kDirectSet = [] {
    Direct d;
    d.of.fill(-2);
    std::size_t n = 0;
    for (std::size_t j = 0; j < kPerView; ++j) {
      const std::uint32_t t = detail::viewThresholds()[j];
      if (j % 3 != 2 && (t & 0x007fffffu) != 0 && n + 1 < kDirect) {
        d.limit[n] = t;
        d.of[n++] = static_cast<int>(j);
        d.direct[j] = true;
      }
    }
    d.limit[n] = 1;
    d.of[n] = -1;
    return d;
  }();
  return kDirectSet;
}

using Counts = std::array<std::uint64_t, kDirect>;

inline std::uint32_t bitsAt(const float* x) {
  std::uint32_t b;
  std::memcpy(&b, x, sizeof b);
  return b;
}

// The portable kernel: the same chain (from s), byte count and compares, one
// value at a time.
float sumScanBase(const float* x, std::size_t n, float s, detail::ByteHistogram& bytes,
                  Counts& below) {
  const auto& limit = direct().limit;
  std::array<std::uint32_t, kDirect> count{};
  for (std::size_t i = 0; i < n; ++i) {
    s += x[i] * x[i];
    const std::uint32_t a = bitsAt(x + i) & kAbsMask;
    ++bytes.tables[i & 3][a >> 23];
    for (std::size_t j = 0; j < kDirect; ++j)
      count[j] += a < limit[j] ? 1u : 0u;
  }
  for (std::size_t j = 0; j < kDirect; ++j)
    below[j] += count[j];
  return s;
}

// AVX2: per 8 values, the 8 serial additions (scalar, in order: the chain
// that sets the pace), 8 byte-indexed increments (4 tables, so neighbours
// rarely wait for each other's store) and kCounts vector compares of the 8
// magnitudes (signed compares are exact: |x| bits and limits are below 2^31,
// NaN is never below). The out-of-order core runs the counting beside the
// chain. No "fma" target: a * a + s must stay two roundings.
[[gnu::target("avx2")]] float sumScanAvx2(const float* x, std::size_t n, float s,
                                          detail::ByteHistogram& bytes, Counts& below) {
  // #{a < limit} = #{not (a > limit - 1)}: the compare takes the limit as a
  // memory operand (a spare register for the chain's sum); unused slots
  // (limit 0) never count.
  alignas(32) std::array<std::uint32_t, 8 * kDirect> atLeast;
  for (std::size_t j = 0; j < kDirect; ++j)
    std::fill_n(atLeast.begin() + 8 * static_cast<std::ptrdiff_t>(j), 8,
                direct().limit[j] == 0 ? 0x7fffffffu : direct().limit[j] - 1);
  const auto* limit = reinterpret_cast<const __m256i*>(atLeast.data());
  const __m256i absMask = _mm256_set1_epi32(static_cast<int>(kAbsMask));
  __m256i acc[kDirect];
  for (auto& a : acc)
    a = _mm256_setzero_si256();
  auto& t0 = bytes.tables[0];
  auto& t1 = bytes.tables[1];
  auto& t2 = bytes.tables[2];
  auto& t3 = bytes.tables[3];
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const float* p = x + i;
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k)
      s += p[k] * p[k];
    ++t0[(bitsAt(p) >> 23) & 0xffu];
    ++t1[(bitsAt(p + 1) >> 23) & 0xffu];
    ++t2[(bitsAt(p + 2) >> 23) & 0xffu];
    ++t3[(bitsAt(p + 3) >> 23) & 0xffu];
    ++t0[(bitsAt(p + 4) >> 23) & 0xffu];
    ++t1[(bitsAt(p + 5) >> 23) & 0xffu];
    ++t2[(bitsAt(p + 6) >> 23) & 0xffu];
    ++t3[(bitsAt(p + 7) >> 23) & 0xffu];
    const __m256i a =
        _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), absMask);
#pragma GCC unroll 8
    for (std::size_t j = 0; j < kDirect; ++j) // counts a >= limit: -1 per match
      acc[j] = _mm256_add_epi32(acc[j], _mm256_cmpgt_epi32(a, _mm256_load_si256(limit + j)));
  }
  alignas(32) std::uint32_t lanes[8];
  for (std::size_t j = 0; j < kDirect; ++j) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc[j]);
    std::uint64_t atOrAbove = 0;
    for (std::uint32_t c : lanes)
      atOrAbove += static_cast<std::uint32_t>(-c); // lane counts stay below 2^32 (block)
    below[j] += i - atOrAbove;
  }
  const auto& limitOf = direct().limit;
  for (; i < n; ++i) { // the tail, in order after the rest
    s += x[i] * x[i];
    const std::uint32_t a = bitsAt(x + i) & kAbsMask;
    ++t0[a >> 23];
    for (std::size_t j = 0; j < kDirect; ++j)
      below[j] += a < limitOf[j] ? 1u : 0u;
  }
  return s;
}

} // namespace

TensorScan& TensorScan::operator+=(const TensorScan& other) {
  hist += other.hist;
  for (std::size_t j = 0; j < below.size(); ++j)
    below[j] += other.below[j];
  return *this;
}

void scanInto(std::span<const float> values, TensorScan& scan) {
  detail::scan(values, 1.0f, detail::viewThresholds(), scan.hist, scan.below);
}

float sumOfSquaresScanned(std::span<const float> values, TensorScan& scan) {
  // Blocks keep the 32-bit counters exact (a table counts a quarter of a
  // block, a vector lane an eighth); the chain runs on across blocks.
  constexpr std::size_t kBlock = std::size_t{1} << 28;
  float s = 0.0f;
  for (std::size_t off = 0; off < values.size(); off += kBlock) {
    const auto block = values.subspan(off, std::min(kBlock, values.size() - off));
    detail::ByteHistogram bytes;
    Counts below{};
    // The chain goes on from the sum so far, in order.
    s = detail::useAvx2() ? sumScanAvx2(block.data(), block.size(), s, bytes, below)
                          : sumScanBase(block.data(), block.size(), s, bytes, below);
    ExponentHistogram& h = scan.hist;
    for (unsigned b = 1; b < 255; ++b)
      h.bins[b + 22] += bytes.bin(b);
    const Direct& d = direct();
    std::uint64_t zeros = 0;
    for (std::size_t r = 0; r < kDirect; ++r) {
      if (d.of[r] >= 0)
        scan.below[static_cast<std::size_t>(d.of[r])] += below[r];
      else if (d.of[r] == -1)
        zeros = below[r];
    }
    h.zeros += zeros;
    h.total += block.size();
    if (bytes.bin(0) != zeros)
      detail::binSubnormals(block.data(), block.size(), h);
    if (bytes.bin(255) != 0)
      detail::binSpecials(block.data(), block.size(), h);
    for (std::size_t j = 0; j < kPerView; ++j) {
      if (d.direct[j])
        continue;
      // Every value below the threshold's binade, and the part of its own
      // binade below it when that binade holds values.
      const std::uint32_t t = detail::viewThresholds()[j];
      const unsigned binade = t >> 23;
      std::uint64_t under = 0;
      for (unsigned b = 0; b < binade; ++b)
        under += bytes.bin(b);
      const std::uint32_t start = t & ~0x007fffffu;
      if (t != start && bytes.bin(binade) != 0)
        under += detail::countInRange(block, start, t - start);
      scan.below[j] += under;
    }
  }
  return s;
}

} // namespace mantissa::telemetry
