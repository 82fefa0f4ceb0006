// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Counts of the biased FP32 exponent byte (private to telemetry's scan).
//
// Two kernels fill the same table, with identical counts:
//  - addScalar: a byte-indexed count (4 interleaved tables, so consecutive
//    increments rarely hit the same counter); any distribution, ~0.45 ns/value.
//  - addWindowed (AVX2, or AVX-512BW with 64 values and compares into masks
//    where the CPU has it): the exponent bytes of 32 values are packed into one
//    register and stored relative to the window's `lo`; values outside the
//    window (bin 0, which holds zeros and subnormals, plus 8 * passes - 1
//    consecutive exponents from `lo`) take the scalar increment one by one;
//    then the window's bins are counted with byte compares, 8 bins per pass
//    so counters and keys stay in registers. Training tensors span 10 to 25
//    binades (MLP 784-1024-1024-10: weights ~10, updates and gradients
//    ~21-23 with 0.2 % beyond); pickWindow() takes the fewest passes that
//    leave almost nothing outside, since each value outside costs a scalar
//    increment and often a mispredicted branch (with 2 passes, ~5 % of the
//    updates fell outside and their count took ~1 ns/value against 0.2).

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace mantissa::telemetry::detail {

struct ByteHistogram {
  alignas(64) std::array<std::array<std::uint32_t, 256>, 4> tables{}; // [4][biased exponent]
  std::uint64_t bin(unsigned b) const {
    return std::uint64_t{tables[0][b]} + tables[1][b] + tables[2][b] + tables[3][b];
  }
};

inline constexpr unsigned kMaxPasses = 4; // 8 bins per pass

// Bin 0 and the binades lo .. lo + span() - 1.
struct Window {
  unsigned lo = 1;           // 1 .. 256 - span()
  unsigned passes = 2;       // 1 .. kMaxPasses
  std::uint64_t covered = 0; // counts in the window (pickWindow)
  std::uint64_t total = 0;   // all counts (pickWindow)
  unsigned span() const { return 8 * passes - 1; }
};

// hist[biased exponent of x[i]] += 1 for i < n.
void addScalar(const float* x, std::size_t n, ByteHistogram& hist);

// The same counts, and below[k] += #{i : bits(|x[i]|) < limits[k]} for
// limits.size() <= kMaxLimits limits (each at most +inf, 0x7f800000), counted
// while the values are in registers. Requires AVX2 (the caller checks
// useAvx2()); takes the AVX-512BW kernel when useAvx512(). Returns how many
// values fell outside the window.
inline constexpr std::size_t kMaxLimits = 8;
std::size_t addWindowed(const float* x, std::size_t n, ByteHistogram& hist, const Window& window,
                        std::span<const std::uint32_t> limits = {}, std::uint64_t* below = nullptr);

// The window of the fewest passes that leaves at most 1/256 of the counts so
// far outside, else the widest one; `covered` and `total` say how well it fits.
Window pickWindow(const ByteHistogram& hist);

} // namespace mantissa::telemetry::detail
