// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The portable FP32 <-> BF16 / FP16 conversions on raw bits. Branch-free
// (selects only) so that loops over them vectorise; bit-identical to the x86
// instructions named beside each. Internal to core/numeric: use convert.h.

#include <bit>
#include <cstdint>

namespace mantissa::numeric::detail {

// Round to nearest even, as VCVTNEPS2BF16: FP32 subnormals read as zero
// (sign kept); NaN keeps its top 16 bits and gets the quiet bit 0x0040.
inline std::uint16_t bf16FromF32Bits(std::uint32_t u) {
  const std::uint32_t magnitude = u & 0x7fffffffu;
  const std::uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16; // carries into exp: inf
  const std::uint32_t zero = (u >> 16) & 0x8000u;
  const std::uint32_t nan = (u >> 16) | 0x0040u;
  std::uint32_t r = magnitude < 0x00800000u ? zero : rounded;
  r = magnitude > 0x7f800000u ? nan : r;
  return static_cast<std::uint16_t>(r);
}

inline std::uint32_t f32BitsFromBf16(std::uint16_t h) { return static_cast<std::uint32_t>(h) << 16; }

// All-ones if `condition`, else zero: selects without branches, so that
// loops over these functions vectorise even for baseline SSE2.
inline std::uint32_t maskIf(bool condition) { return 0u - static_cast<std::uint32_t>(condition); }
inline std::uint32_t select(std::uint32_t mask, std::uint32_t ifSet, std::uint32_t ifClear) {
  return (ifSet & mask) | (ifClear & ~mask);
}

// Round to nearest even, as VCVTPS2PH imm8=0 with MXCSR DAZ/FTZ off: FP16
// subnormals produced, |x| >= 65520 gives inf, NaN keeps the payload's top
// 10 bits with the quiet bit 0x0200 set.
inline std::uint16_t f16FromF32Bits(std::uint32_t u) {
  const std::uint32_t sign = (u >> 16) & 0x8000u;
  const std::uint32_t a = u & 0x7fffffffu;
  // Normal FP16 range [2^-14, 65520): rebias the exponent by 127 - 15 and
  // round off 13 bits; a carry moves into the exponent as it should.
  const std::uint32_t t = a - 0x38000000u;
  const std::uint32_t normal = (t + 0xfffu + ((t >> 13) & 1u)) >> 13;
  // Below 2^-14: adding 0.5 puts the value where FP32's ulp is 2^-24, the
  // FP16 subnormal quantum, so the FP32 addition itself rounds to nearest
  // even (MXCSR's default mode); the low bits are then the FP16 pattern.
  const std::uint32_t sub =
      std::bit_cast<std::uint32_t>(std::bit_cast<float>(a) + 0.5f) - 0x3f000000u;
  std::uint32_t r = select(maskIf(a < 0x38800000u), sub, normal);
  r = select(maskIf(a >= 0x477ff000u), 0x7c00u, r);
  r = select(maskIf(a > 0x7f800000u), 0x7e00u | ((a >> 13) & 0x3ffu), r);
  return static_cast<std::uint16_t>(sign | r);
}

// Exact, as VCVTPH2PS: subnormals become normal FP32, NaN gets the quiet bit.
inline std::uint32_t f32BitsFromF16(std::uint16_t h) {
  const std::uint32_t x = h;
  const std::uint32_t sign = (x & 0x8000u) << 16;
  const std::uint32_t magnitude = x & 0x7fffu;
  const std::uint32_t m = x & 0x3ffu;
  // Normal: rebias the exponent (+112) and widen the mantissa.
  const std::uint32_t normal = (magnitude << 13) + 0x38000000u;
  // Inf/NaN: all-ones exponent, payload widened, NaN quieted.
  const std::uint32_t special = 0x7f800000u | (m << 13) | select(maskIf(m != 0), 0x00400000u, 0u);
  // Subnormal m x 2^-24: put m in the low bits of 0.5 (ulp 2^-24) and take
  // 0.5 away again; exact in FP32 (Sterbenz), never subnormal.
  const std::uint32_t sub = std::bit_cast<std::uint32_t>(std::bit_cast<float>(0x3f000000u | m) - 0.5f);
  std::uint32_t r = select(maskIf(magnitude < 0x0400u), sub, normal);
  r = select(maskIf(magnitude >= 0x7c00u), special, r);
  return sign | r;
}

} // namespace mantissa::numeric::detail
