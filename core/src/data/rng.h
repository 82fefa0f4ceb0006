// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The data module's own random numbers: SplitMix64 (Steele, Lea, Flood 2014) and
// distributions written out here, because std::shuffle and the std distributions
// differ between standard libraries and the sets must be the same everywhere.

#include <cmath>
#include <cstdint>
#include <numbers>

namespace mantissa::data::detail {

class SplitMix64 {
public:
  explicit SplitMix64(std::uint64_t seed) : m_state(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, n), n > 0, without modulo bias (rejection).
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    std::uint64_t r;
    do {
      r = next();
    } while (r >= limit);
    return r % n;
  }

  // Standard normal by Box-Muller (one value per call; the pair's sine half unused).
  double normal() {
    const double u1 = 1.0 - uniform(); // (0, 1]: log is finite
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }

private:
  std::uint64_t m_state;
};

// Derives independent stream seeds from one user seed.
inline std::uint64_t mixSeed(std::uint64_t seed, std::uint64_t stream) {
  return SplitMix64(seed ^ (stream * 0xD1B54A32D192ED03ull)).next();
}

} // namespace mantissa::data::detail
