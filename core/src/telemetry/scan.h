// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The one pass over a tensor that telemetry makes (private to telemetry).
//
// For values x[0..n) (optionally multiplied by `scale` in FP32 first) it
// fills an ExponentHistogram and, in the same pass, counts for each
// threshold T (an FP32 bit pattern of a non-negative magnitude, at most
// +inf = 0x7f800000) how many |x| have bits(|x|) < T. For non-negative
// floats, bit-pattern order is value order, so this is an exact comparison;
// NaN (bits > 0x7f800000) is never below any threshold.
//
// Cost model: the histogram is a count over the biased exponent byte
// (byte_histogram.h): with AVX2, 32 values at a time against a window of up
// to 32 bins chosen from the data (training tensors fit it), else a scalar
// byte-indexed count. A threshold only needs value-level work in
// chunks that actually hold values of the threshold's own binade; everything
// below that binade is read off the histogram. That within-binade count, the
// zero count and the cast's scaling are branch-free loops compiled for AVX2
// (dispatched at run time) and for baseline x86-64.

#include "telemetry/byte_histogram.h"

#include <mantissa/telemetry/cast_fractions.h>
#include <mantissa/telemetry/histogram.h>

#include <array>
#include <cstdint>
#include <span>

namespace mantissa::telemetry::detail {

inline constexpr std::size_t kMaxThresholds = 48; // both views of 8 formats (collector.cpp)

// The CPU has AVX2 and the portable path is not forced (setForcePortableTelemetry).
bool useAvx2() noexcept;
// useAvx2(), the CPU has AVX-512BW and AVX2 is not forced (setAvoidAvx512Telemetry):
// the exponent histogram's window kernel then runs on 512-bit registers.
bool useAvx512() noexcept;

// The pass, resumable: add() the values of one tensor in pieces (the
// optimizer hands it blocks while they are in cache), then finish() once.
// Counts do not depend on how the tensor was cut. No allocation.
class Scanner {
public:
  // thresholds.size() <= kMaxThresholds; each at most +inf (0x7f800000).
  explicit Scanner(std::span<const std::uint32_t> thresholds = {});

  // Adds x * scale (FP32) for every x of `values`.
  void add(std::span<const float> values, float scale = 1.0f);
  // hist += what was added; below[j] += #{bits(|x * scale|) < thresholds[j]};
  // below.size() == thresholds.size(). Then starts over, as if just constructed.
  // bits, when given: += the sum of the added values' FP32 bit patterns
  // (as unsigned integers, mod 2^64; see TensorTelemetry::bits).
  void finish(ExponentHistogram& hist, std::span<std::uint64_t> below,
              std::uint64_t* bits = nullptr);
  // What finish() adds, without starting over: the last call on this scanner.
  void collect(ExponentHistogram& hist, std::span<std::uint64_t> below,
               std::uint64_t* bits = nullptr);
  // Tells the scanner that the values of the next add() are its last (scan()
  // does): the choices that only serve later chunks (the window, the direct
  // limits) are then not made after the last chunk.
  void lastAddFollows() { m_lastAdd = true; }
  // How many of the values added since the last finish() were inf or NaN.
  std::uint64_t nonFinite() const { return m_bytes.bin(255); }

private:
  static constexpr int kZerosLimit = -1;

  // later: more chunks may follow this one.
  void addChunk(const float* x, std::size_t n, bool later);
  // After the first chunk (with AVX2): the thresholds inside binades that
  // hold at least 1/512 of the values so far, and exact zeros when as common,
  // are counted directly from then on (addWindowed's limits: a compare per
  // value while it is in registers) instead of by a range pass over each
  // chunk that populates their binade.
  void chooseDirect();

  std::size_t m_count = 0; // thresholds in use
  bool m_lastAdd = false;
  std::array<std::uint32_t, kMaxThresholds> m_thresholds{};
  std::array<unsigned, kMaxThresholds> m_binadeOf{};         // biased exponent of each threshold
  std::array<std::uint32_t, kMaxThresholds> m_binadeStart{}; // bits of its binade's start
  std::array<std::uint64_t, kMaxThresholds> m_within{};      // values of T's binade below T
  bool m_directChosen = false;
  std::array<bool, kMaxThresholds> m_isDirect{};
  std::array<std::uint64_t, kMaxThresholds> m_directBelow{}; // #{|x| < T}, for direct T
  std::size_t m_limitCount = 0;
  std::array<std::uint32_t, kMaxLimits> m_limits{};
  std::array<int, kMaxLimits> m_limitOf{}; // threshold index, or kZerosLimit
  ByteHistogram m_bytes;
  ExponentHistogram m_hist; // subnormals and specials, binned as they come
  // The exponent window of the AVX2 histogram: chosen after the first chunk
  // (scalar) from the counts so far, chosen again when a chunk leaves more
  // than 1/64 of its values outside. Scalar instead (m_windowed false) while
  // no window covers 7/8 of the values: wide distributions, where the scalar
  // count is faster.
  Window m_window;
  bool m_windowed = false;
  std::size_t m_scalarChunks = 0;
  std::uint64_t m_zeros = 0;
  std::uint64_t m_total = 0;
  std::uint64_t m_bits = 0; // sum of the bit patterns added (mod 2^64)
};

// hist += histogram of (x * scale); below[j] += #{x : bits(|x * scale|) < thresholds[j]}.
// below.size() must equal thresholds.size() <= kMaxThresholds.
// bits, when given: += the sum of the bit patterns of (x * scale).
void scan(std::span<const float> values, float scale, std::span<const std::uint32_t> thresholds,
          ExponentHistogram& hist, std::span<std::uint64_t> below, std::uint64_t* bits = nullptr);

// Every cast target's zero, normal and overflow thresholds (castThresholds),
// in kCastTargets order: the order of a tensor view's `below` counts.
inline constexpr std::size_t kThresholdsPerView = 3 * kCastTargetCount;
const std::array<std::uint32_t, kThresholdsPerView>& viewThresholds();

// Exponent-0 values that are not zeros (subnormals), binned by the position
// of their leading 1 bit; and exponent-255 values (+inf, -inf, NaN).
void binSubnormals(const float* x, std::size_t n, ExponentHistogram& hist);
void binSpecials(const float* x, std::size_t n, ExponentHistogram& hist);

// #{x : (bits(|x|) - lo) mod 2^32 < width}: values whose magnitude bits lie in [lo, lo + width).
std::uint64_t countInRange(std::span<const float> values, std::uint32_t lo, std::uint32_t width);

} // namespace mantissa::telemetry::detail
