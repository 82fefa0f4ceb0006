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
// compiler vectorises it for each target below. (b - 1) < (zeroBelow - 1)
// is 0 < b < zeroBelow in one unsigned compare.
[[gnu::always_inline]] inline void zeroLossBody(const float* x, std::size_t n,
                                                std::uint32_t zeroBelow, ZeroLossCounts& out) {
  std::uint32_t nonzero = 0, lost = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t b;
    std::memcpy(&b, x + i, sizeof b);
    b &= 0x7fffffffu;
    nonzero += b != 0 ? 1u : 0u;
    lost += (b - 1u) < (zeroBelow - 1u) ? 1u : 0u;
  }
  out.nonzero += nonzero;
  out.lostToZero += lost;
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
