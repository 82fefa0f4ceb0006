// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "telemetry/scan.h"

#include <mantissa/telemetry/cast_fractions.h>
#include <mantissa/telemetry/zero_loss.h>

#include <algorithm>
#include <cstring>

namespace mantissa::telemetry {
namespace {

// Branch-free with 32-bit counters (exact for blocks below 2^32 values); the
// compiler vectorises it for each target below. Two compares per value, both
// on a = bits(|x|) in [0, 2^31): zeros (a == 0) and a < zeroBelow as a
// signed compare (exact, zeroBelow <= 0x7f800000; NaN is never below). Then
// nonzero = n - zeros and lost = below - zeros (zeros are below, NaN and inf
// are neither zero nor below).
[[gnu::always_inline]] inline void zeroLossBody(const float* x, std::size_t n,
                                                std::uint32_t zeroBelow, ZeroLossCounts& out) {
  const auto limit = static_cast<std::int32_t>(zeroBelow);
  std::uint32_t zeros = 0, below = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t b;
    std::memcpy(&b, x + i, sizeof b);
    const auto a = static_cast<std::int32_t>(b & 0x7fffffffu);
    zeros += a == 0 ? 1u : 0u;
    below += a < limit ? 1u : 0u;
  }
  out.nonzero += n - zeros;
  out.lostToZero += below - zeros;
}

[[gnu::target("avx2")]] void zeroLossAvx2(const float* x, std::size_t n, std::uint32_t zeroBelow,
                                          ZeroLossCounts& out) {
  zeroLossBody(x, n, zeroBelow, out);
}
void zeroLossBase(const float* x, std::size_t n, std::uint32_t zeroBelow, ZeroLossCounts& out) {
  zeroLossBody(x, n, zeroBelow, out);
}

} // namespace

ZeroLossCounts zeroLossCounts(std::span<const float> values, DType rounding) {
  // zeroBelow = 1: no non-zero value is below it (F32 keeps every value).
  std::uint32_t zeroBelow = 1;
  if (rounding == DType::BF16)
    zeroBelow = castThresholds(CastTarget::Bf16).zeroBelow;
  else if (rounding == DType::F16)
    zeroBelow = castThresholds(CastTarget::Fp16).zeroBelow;
  const bool avx2 = detail::useAvx2();
  constexpr std::size_t kBlock = std::size_t{1} << 20; // keeps the 32-bit counters exact
  ZeroLossCounts c;
  for (std::size_t off = 0; off < values.size(); off += kBlock) {
    const std::size_t n = std::min(kBlock, values.size() - off);
    if (avx2)
      zeroLossAvx2(values.data() + off, n, zeroBelow, c);
    else
      zeroLossBase(values.data() + off, n, zeroBelow, c);
  }
  return c;
}

} // namespace mantissa::telemetry
