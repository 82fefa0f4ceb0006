// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "telemetry/scan.h"

#include <mantissa/numeric/cpu_features.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cassert>
#include <cstring>
#include <utility>

namespace mantissa::telemetry::detail {
namespace {

constexpr std::size_t kChunk = 2048; // 8 KiB of floats: stays in L1 between the loops
constexpr std::uint32_t kAbsMask = 0x7fffffffu;
constexpr std::uint32_t kMantissaMask = 0x007fffffu;

inline std::uint32_t bitsOf(float x) {
  return std::bit_cast<std::uint32_t>(x);
}

// cumulative[b] = #values with biased exponent < b, b = 0 .. 256.
std::array<std::uint64_t, 257> cumulativeCounts(const ByteHistogram& bytes) {
  std::array<std::uint64_t, 257> cumulative{};
  for (unsigned b = 0; b < 256; ++b)
    cumulative[b + 1] = cumulative[b] + bytes.bin(b);
  return cumulative;
}

// Branch-free loops; the compiler vectorises them for each target below.
[[gnu::always_inline]] inline void scaleBody(const float* x, std::size_t n, float scale,
                                             float* dst) {
  for (std::size_t i = 0; i < n; ++i)
    dst[i] = x[i] * scale;
}

// Up to kGroup ranges counted in one pass (one load per element, R
// reductions); R is a template parameter so the compiler unrolls over ranges
// and keeps every accumulator in a vector register.
constexpr std::size_t kGroup = 8;

template <std::size_t R>
[[gnu::always_inline]] inline void countRangesBody(const float* x, std::size_t n,
                                                   const std::uint32_t* lo,
                                                   const std::uint32_t* width, std::uint64_t* out) {
  std::uint32_t lo_[R], width_[R], count[R];
  for (std::size_t r = 0; r < R; ++r) {
    lo_[r] = lo[r];
    width_[r] = width[r];
    count[r] = 0;
  }
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t b;
    std::memcpy(&b, x + i, sizeof b);
    const std::uint32_t a = b & kAbsMask;
    for (std::size_t r = 0; r < R; ++r)
      count[r] += (a - lo_[r]) < width_[r] ? 1u : 0u;
  }
  for (std::size_t r = 0; r < R; ++r)
    out[r] += count[r];
}

// Ranges of width 1 (zeros, and the zero thresholds, which sit one above a
// power of two) are an equality: half the vector operations of a range.
template <std::size_t R>
[[gnu::always_inline]] inline void countEqualBody(const float* x, std::size_t n,
                                                  const std::uint32_t* value, std::uint64_t* out) {
  std::uint32_t value_[R], count[R];
  for (std::size_t r = 0; r < R; ++r) {
    value_[r] = value[r];
    count[r] = 0;
  }
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t b;
    std::memcpy(&b, x + i, sizeof b);
    const std::uint32_t a = b & kAbsMask;
    for (std::size_t r = 0; r < R; ++r)
      count[r] += a == value_[r] ? 1u : 0u;
  }
  for (std::size_t r = 0; r < R; ++r)
    out[r] += count[r];
}

// r ranges (or equalities when width is null), 1 <= r <= kGroup.
template <std::size_t... Rs>
[[gnu::always_inline]] inline void
countRangesDispatch(std::index_sequence<Rs...>, std::size_t r, const float* x, std::size_t n,
                    const std::uint32_t* lo, const std::uint32_t* width, std::uint64_t* out) {
  if (width == nullptr)
    ((r == Rs + 1 ? countEqualBody<Rs + 1>(x, n, lo, out) : void()), ...);
  else
    ((r == Rs + 1 ? countRangesBody<Rs + 1>(x, n, lo, width, out) : void()), ...);
}

[[gnu::target("avx2")]] void countRangesAvx2(const float* x, std::size_t n, std::size_t r,
                                             const std::uint32_t* lo, const std::uint32_t* width,
                                             std::uint64_t* out) {
  countRangesDispatch(std::make_index_sequence<kGroup>{}, r, x, n, lo, width, out);
}
[[gnu::target("avx512f,avx512bw")]] void countRangesAvx512(const float* x, std::size_t n,
                                                           std::size_t r, const std::uint32_t* lo,
                                                           const std::uint32_t* width,
                                                           std::uint64_t* out) {
  countRangesDispatch(std::make_index_sequence<kGroup>{}, r, x, n, lo, width, out);
}
void countRangesBase(const float* x, std::size_t n, std::size_t r, const std::uint32_t* lo,
                     const std::uint32_t* width, std::uint64_t* out) {
  countRangesDispatch(std::make_index_sequence<kGroup>{}, r, x, n, lo, width, out);
}

// Sum of the values' bit patterns as unsigned integers (mod 2^64).
[[gnu::always_inline]] inline std::uint64_t bitSumBody(const float* x, std::size_t n) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t b;
    std::memcpy(&b, x + i, sizeof b);
    sum += b;
  }
  return sum;
}
[[gnu::target("avx2")]] std::uint64_t bitSumAvx2(const float* x, std::size_t n) {
  return bitSumBody(x, n);
}
std::uint64_t bitSumBase(const float* x, std::size_t n) {
  return bitSumBody(x, n);
}

[[gnu::target("avx2")]] void scaleAvx2(const float* x, std::size_t n, float scale, float* dst) {
  scaleBody(x, n, scale, dst);
}
void scaleBase(const float* x, std::size_t n, float scale, float* dst) {
  scaleBody(x, n, scale, dst);
}

// out[r] += #{x : bits(|x|) in [lo[r], lo[r] + width[r])} for a chunk, r <
// count <= kMaxThresholds + 1 (width = 1 counted as an equality).
void countRanges(const float* x, std::size_t n, std::size_t count, const std::uint32_t* lo,
                 const std::uint32_t* width, std::uint64_t* out) {
  std::array<std::uint32_t, kMaxThresholds + 1> rangeLo, rangeWidth, equal;
  std::array<std::uint64_t, kMaxThresholds + 1> rangeOut, equalOut; // zeroed below, as used
  std::array<std::size_t, kMaxThresholds + 1> rangeOf, equalOf;     // index into out
  std::size_t ranges = 0, equals = 0;
  for (std::size_t r = 0; r < count; ++r) {
    if (width[r] == 1) {
      equal[equals] = lo[r];
      equalOf[equals++] = r;
    } else {
      rangeLo[ranges] = lo[r];
      rangeWidth[ranges] = width[r];
      rangeOf[ranges++] = r;
    }
  }
  std::fill_n(rangeOut.begin(), ranges, std::uint64_t{0}); // per chunk: no full-array memset
  std::fill_n(equalOut.begin(), equals, std::uint64_t{0});
  const auto run = [&](std::size_t total, const std::uint32_t* l, const std::uint32_t* w,
                       std::uint64_t* o) {
    for (std::size_t g = 0; g < total; g += kGroup) {
      const std::size_t r = std::min(kGroup, total - g);
      if (useAvx512())
        countRangesAvx512(x, n, r, l + g, w ? w + g : nullptr, o + g);
      else if (useAvx2())
        countRangesAvx2(x, n, r, l + g, w ? w + g : nullptr, o + g);
      else
        countRangesBase(x, n, r, l + g, w ? w + g : nullptr, o + g);
    }
  };
  run(ranges, rangeLo.data(), rangeWidth.data(), rangeOut.data());
  run(equals, equal.data(), nullptr, equalOut.data());
  for (std::size_t r = 0; r < ranges; ++r)
    out[rangeOf[r]] += rangeOut[r];
  for (std::size_t r = 0; r < equals; ++r)
    out[equalOf[r]] += equalOut[r];
}

} // namespace

namespace {
std::atomic<bool> g_forcePortable{false};
std::atomic<bool> g_avoidAvx512{false};
} // namespace

// Exponent-0 values that are not zeros: subnormals, binned by the position of
// their leading 1 bit (2^-149 .. 2^-127).
void binSubnormals(const float* x, std::size_t n, ExponentHistogram& hist) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t a = bitsOf(x[i]) & kAbsMask;
    if (a != 0 && (a >> 23) == 0)
      ++hist.bins[static_cast<std::size_t>(std::bit_width(a) - 1)];
  }
}

// Exponent-255 values: +inf, -inf, NaN.
void binSpecials(const float* x, std::size_t n, ExponentHistogram& hist) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t b = bitsOf(x[i]);
    if (((b >> 23) & 0xffu) != 0xffu)
      continue;
    if ((b & kMantissaMask) != 0)
      ++hist.nan;
    else if (b >> 31)
      ++hist.negInf;
    else
      ++hist.posInf;
  }
}

const std::array<std::uint32_t, kThresholdsPerView>& viewThresholds() {
  static const auto kThresholds = [] {
    std::array<std::uint32_t, kThresholdsPerView> t{};
    for (std::size_t k = 0; k < kCastTargetCount; ++k) {
      const CastThresholds c = castThresholds(kCastTargets[k]);
      t[3 * k] = c.zeroBelow;
      t[3 * k + 1] = c.normalBelow;
      t[3 * k + 2] = c.overflowFrom;
    }
    return t;
  }();
  return kThresholds;
}

bool useAvx2() noexcept {
  static const bool avx2 = numeric::cpuFeatures().avx2;
  return avx2 && !g_forcePortable.load(std::memory_order_relaxed);
}

bool useAvx512() noexcept {
  static const bool avx512 = numeric::cpuFeatures().avx512bw;
  return avx512 && useAvx2() && !g_avoidAvx512.load(std::memory_order_relaxed);
}

std::uint64_t countInRange(std::span<const float> values, std::uint32_t lo, std::uint32_t width) {
  std::uint64_t count = 0;
  for (std::size_t off = 0; off < values.size(); off += kChunk) {
    const std::size_t n = std::min(kChunk, values.size() - off);
    countRanges(values.data() + off, n, 1, &lo, &width, &count);
  }
  return count;
}

Scanner::Scanner(std::span<const std::uint32_t> thresholds) : m_count(thresholds.size()) {
  assert(thresholds.size() <= kMaxThresholds);
  for (std::size_t j = 0; j < m_count; ++j) {
    assert(thresholds[j] <= 0x7f800000u);
    m_thresholds[j] = thresholds[j];
    m_binadeOf[j] = thresholds[j] >> 23;
    m_binadeStart[j] = thresholds[j] & ~kMantissaMask;
  }
}

void Scanner::add(std::span<const float> values, float scale) {
  alignas(64) std::array<float, kChunk> scaled;
  for (std::size_t off = 0; off < values.size(); off += kChunk) {
    const std::size_t n = std::min(kChunk, values.size() - off);
    const float* x = values.data() + off;
    if (scale != 1.0f) {
      if (useAvx2())
        scaleAvx2(x, n, scale, scaled.data());
      else
        scaleBase(x, n, scale, scaled.data());
      x = scaled.data();
    }
    addChunk(x, n, !m_lastAdd || off + kChunk < values.size());
    m_bits += useAvx2() ? bitSumAvx2(x, n) : bitSumBase(x, n); // the chunk is in L1
  }
  m_total += values.size();
}

void Scanner::addChunk(const float* x, std::size_t n, bool later) {
  const std::size_t nt = m_count;
  std::array<std::uint64_t, kMaxThresholds> before;
  for (std::size_t j = 0; j < nt; ++j)
    before[j] = m_bytes.bin(m_binadeOf[j]);
  const std::uint64_t before0 = m_bytes.bin(0);
  const std::uint64_t before255 = m_bytes.bin(255);

  // The chunk's counts below the direct limits (chosen after the first chunk).
  std::array<std::uint64_t, kMaxLimits> direct;
  std::fill_n(direct.begin(), m_limitCount, std::uint64_t{0});
  const std::span<const std::uint32_t> limits(m_limits.data(), m_limitCount);
  std::size_t outside = n;
  if (m_windowed) {
    outside = addWindowed(x, n, m_bytes, m_window, limits, direct.data());
  } else {
    addScalar(x, n, m_bytes);
    ++m_scalarChunks;
    if (m_limitCount != 0) { // [0, limit): width 1 (exact zeros) is an equality
      const std::array<std::uint32_t, kMaxLimits> zeros{};
      countRanges(x, n, m_limitCount, zeros.data(), m_limits.data(), direct.data());
    }
  }
  // Scalar chunks look for a window after the first and then every 8th; a
  // window is chosen again when a chunk leaves more than 1/64 outside.
  const bool repick =
      later && (m_windowed ? outside * 64 > n : m_scalarChunks == 1 || m_scalarChunks % 8 == 0);
  if (repick && useAvx2()) {
    m_window = pickWindow(m_bytes);
    m_windowed = m_window.covered * 8 >= m_window.total * 7;
  }

  const std::uint64_t added0 = m_bytes.bin(0) - before0;
  bool zerosCounted = false;
  for (std::size_t k = 0; k < m_limitCount; ++k) {
    if (m_limitOf[k] == kZerosLimit) {
      m_zeros += direct[k];
      zerosCounted = true;
      if (direct[k] != added0)
        binSubnormals(x, n, m_hist);
    } else {
      m_directBelow[static_cast<std::size_t>(m_limitOf[k])] += direct[k];
    }
  }

  // Value-level work for the other thresholds, all ranges this chunk needs in
  // one pass: each threshold whose binade this chunk populated, and exact
  // zeros when the exponent-0 bin grew (zeros and subnormals share it).
  std::array<std::uint32_t, kMaxThresholds + 1> lo, width;
  std::array<std::size_t, kMaxThresholds + 1> which; // index into m_within, or nt for zeros
  std::size_t active = 0;
  for (std::size_t j = 0; j < nt; ++j) {
    if (!m_isDirect[j] && m_thresholds[j] != m_binadeStart[j] &&
        m_bytes.bin(m_binadeOf[j]) != before[j]) {
      lo[active] = m_binadeStart[j];
      width[active] = m_thresholds[j] - m_binadeStart[j];
      which[active++] = j;
    }
  }
  if (added0 != 0 && !zerosCounted) {
    lo[active] = 0;
    width[active] = 1;
    which[active++] = nt;
  }
  if (active != 0) {
    std::array<std::uint64_t, kMaxThresholds + 1> counts;
    std::fill_n(counts.begin(), active, std::uint64_t{0});
    countRanges(x, n, active, lo.data(), width.data(), counts.data());
    for (std::size_t r = 0; r < active; ++r) {
      if (which[r] == nt) {
        m_zeros += counts[r];
        if (counts[r] != added0)
          binSubnormals(x, n, m_hist);
      } else {
        m_within[which[r]] += counts[r];
      }
    }
  }
  if (m_bytes.bin(255) != before255)
    binSpecials(x, n, m_hist);
  if (later && !m_directChosen && useAvx2())
    chooseDirect();
}

void Scanner::chooseDirect() {
  m_directChosen = true;
  const auto cumulative = cumulativeCounts(m_bytes);
  const std::uint64_t total = cumulative[256];
  // Worth a compare in every chunk: a binade holding 1/512 of the values
  // (4 per chunk); the rest keep the per-chunk ranges.
  const auto common = [&](unsigned binade) { return m_bytes.bin(binade) * 512 >= total; };
  for (std::size_t j = 0; j < m_count && m_limitCount < kMaxLimits; ++j) {
    if (m_thresholds[j] == m_binadeStart[j] || !common(m_binadeOf[j]))
      continue;
    m_isDirect[j] = true;
    m_directBelow[j] = cumulative[m_binadeOf[j]] + m_within[j]; // the chunks so far
    m_limits[m_limitCount] = m_thresholds[j];
    m_limitOf[m_limitCount++] = static_cast<int>(j);
  }
  if (m_limitCount < kMaxLimits && common(0)) {
    m_limits[m_limitCount] = 1; // bits(|x|) < 1: exact zeros
    m_limitOf[m_limitCount++] = kZerosLimit;
  }
}

void Scanner::collect(ExponentHistogram& hist, std::span<std::uint64_t> below,
                      std::uint64_t* bits) {
  assert(below.size() == m_count);
  if (bits != nullptr)
    *bits += m_bits;
  // Fold: normal binades (biased 1..254 -> exponent b - 127 -> index b + 22);
  // the running sum gives the counts below each binade.
  std::array<std::uint64_t, 257> cumulative;
  cumulative[0] = 0;
  for (unsigned b = 0; b < 256; ++b) {
    const std::uint64_t count = m_bytes.bin(b);
    cumulative[b + 1] = cumulative[b] + count;
    if (b >= 1 && b < 255)
      m_hist.bins[b + 22] += count;
  }
  m_hist.zeros += m_zeros;
  m_hist.total += m_total;
  hist += m_hist;

  // Cumulative counts below each threshold's binade, plus the within part.
  for (std::size_t j = 0; j < m_count; ++j)
    below[j] += m_isDirect[j] ? m_directBelow[j] : cumulative[m_binadeOf[j]] + m_within[j];
}

void Scanner::finish(ExponentHistogram& hist, std::span<std::uint64_t> below,
                     std::uint64_t* bits) {
  collect(hist, below, bits);
  const std::array<std::uint32_t, kMaxThresholds> thresholds = m_thresholds;
  *this = Scanner(std::span<const std::uint32_t>(thresholds.data(), m_count));
}

void scan(std::span<const float> values, float scale, std::span<const std::uint32_t> thresholds,
          ExponentHistogram& hist, std::span<std::uint64_t> below, std::uint64_t* bits) {
  assert(thresholds.size() == below.size() && thresholds.size() <= kMaxThresholds);
  Scanner scanner(thresholds);
  scanner.lastAddFollows();
  scanner.add(values, scale);
  scanner.collect(hist, below, bits);
}

} // namespace mantissa::telemetry::detail

namespace mantissa::telemetry {

void setForcePortableTelemetry(bool force) noexcept {
  detail::g_forcePortable.store(force, std::memory_order_relaxed);
}

void setAvoidAvx512Telemetry(bool avoid) noexcept {
  detail::g_avoidAvx512.store(avoid, std::memory_order_relaxed);
}

bool telemetryUsesAvx512() noexcept { return detail::useAvx512(); }

} // namespace mantissa::telemetry
