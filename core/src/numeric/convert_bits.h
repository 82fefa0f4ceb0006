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
  // Below 2^-14: the FP16 quantum is 2^-24; the FP32 significand m (24 bits,
  // exponent e) holds value m x 2^(e-150), so shift right by 126 - e. The
  // shift is clamped to [1, 31] (out-of-range lanes are discarded below);
  // at 31 every m < 2^24 rounds to 0, as all |x| < 2^-25 should.
  const std::int32_t e = static_cast<std::int32_t>(a >> 23);
  std::int32_t sh = 126 - e;
  sh = sh < 1 ? 1 : (sh > 31 ? 31 : sh);
  const std::uint32_t m = (a & 0x007fffffu) | 0x00800000u;
  const std::uint32_t q = m >> sh;
  const std::uint32_t rem = m & ((1u << sh) - 1u);
  const std::uint32_t half = 1u << (sh - 1);
  const std::uint32_t sub = q + ((rem > half || (rem == half && (q & 1u))) ? 1u : 0u);
  std::uint32_t r = a < 0x38800000u ? sub : normal;
  r = a < 0x33000000u ? 0u : r; // |x| < 2^-25 (FP32 subnormals too): zero
  r = a >= 0x477ff000u ? 0x7c00u : r;
  r = a > 0x7f800000u ? (0x7e00u | ((a >> 13) & 0x3ffu)) : r;
  return static_cast<std::uint16_t>(sign | r);
}

// Exact, as VCVTPH2PS: subnormals become normal FP32, NaN gets the quiet bit.
inline std::uint32_t f32BitsFromF16(std::uint16_t h) {
  const std::uint32_t sign = (static_cast<std::uint32_t>(h) & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1fu;
  const std::uint32_t m = h & 0x3ffu;
  const std::uint32_t normal = ((e + 112u) << 23) | (m << 13);
  const std::uint32_t special = 0x7f800000u | (m << 13) | (m != 0 ? 0x00400000u : 0u);
  // Subnormal m x 2^-24: put m in the low bits of 0.5 (ulp 2^-24) and take
  // 0.5 away again; exact in FP32 (Sterbenz), never subnormal.
  const std::uint32_t sub = std::bit_cast<std::uint32_t>(std::bit_cast<float>(0x3f000000u | m) - 0.5f);
  std::uint32_t r = e == 0 ? sub : normal;
  r = e == 31 ? special : r;
  return sign | r;
}

} // namespace mantissa::numeric::detail
