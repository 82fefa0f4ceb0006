// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Fast FP32 <-> BF16 / FP16 conversions used every training step.
//
// These are the conversions the trainer, the telemetry and the Float Explorer
// share. Scalar functions are small, pure and inline-friendly; the batch
// functions pick the hardware instruction at run time (AVX512_BF16
// VCVTNEPS2BF16, F16C VCVTPS2PH/VCVTPH2PS) and fall back to a portable path
// that produces identical bits.
//
// Rounding rules, stated once:
//  - f32ToBf16: round to nearest, ties to even; follows VCVTNEPS2BF16 exactly:
//    FP32 subnormal inputs are treated as zero (DAZ, sign kept), NaN becomes a
//    quiet NaN with the top 16 bits kept and the quiet bit (0x0040) set.
//  - f32ToF16: round to nearest, ties to even; follows VCVTPS2PH with
//    imm8 = 0 (MXCSR DAZ/FTZ off): FP16 subnormals are produced, overflow
//    gives +-inf, NaN becomes quiet with the payload's top 9 bits kept.
//  - bf16ToF32 / f16ToF32: exact (every BF16/FP16 value is an FP32 value);
//    f16ToF32 follows VCVTPH2PS: a signaling NaN comes back quiet (0x00400000
//    set), payload kept. bf16ToF32 is a plain 16-bit shift (NaNs untouched).
//  - f32ToBf16Stochastic / f32ToF16Stochastic: stochastic rounding of the
//    magnitude; `random` is 32 uniform bits and the value rounds away from
//    zero iff random < f x 2^32, f the fraction of the gap above the lower
//    neighbour (codec.h's Rounding::Stochastic, bit for bit). BF16: FP32
//    subnormal inputs are treated as zero (DAZ), as by f32ToBf16, so no BF16
//    cast in Mantissa ever produces a BF16 subnormal. FP16: subnormals are
//    kept, as by f32ToF16. Past max finite gives inf; NaN as the nearest
//    functions.
//
// MXCSR: the F16C path assumes the default (DAZ/FTZ off); VCVTNEPS2BF16
// ignores MXCSR; the portable FP32 -> FP16 rounds FP16 subnormals with one
// FP32 addition, so it assumes the default rounding mode (to nearest). On CPUs without AVX512_BF16, FP32 -> BF16 runs the portable
// rule vectorised with AVX2 integer instructions (bf16ConvertPath() then
// reports Portable: no BF16 instruction is used).

#include <cstddef>
#include <cstdint>
#include <span>

namespace mantissa::numeric {

using Bf16Bits = std::uint16_t;
using F16Bits = std::uint16_t;

Bf16Bits f32ToBf16(float value) noexcept;
float bf16ToF32(Bf16Bits bits) noexcept;
F16Bits f32ToF16(float value) noexcept;
float f16ToF32(F16Bits bits) noexcept;

Bf16Bits f32ToBf16Stochastic(float value, std::uint32_t random) noexcept;
F16Bits f32ToF16Stochastic(float value, std::uint32_t random) noexcept;

// Batch conversions: src and dst must have the same size.
void convertF32ToBf16(std::span<const float> src, std::span<Bf16Bits> dst) noexcept;
void convertBf16ToF32(std::span<const Bf16Bits> src, std::span<float> dst) noexcept;
void convertF32ToF16(std::span<const float> src, std::span<F16Bits> dst) noexcept;
void convertF16ToF32(std::span<const F16Bits> src, std::span<float> dst) noexcept;

// Round FP32 values in place through a 16-bit format and back (what storing a
// tensor in BF16/FP16 does to its values). Same rules as above.
void roundTripBf16(std::span<float> values) noexcept;
void roundTripF16(std::span<float> values) noexcept;

// The same round trips, also counting the zeros (+0 and -0) among the values
// before and after: the rounding never makes a zero non-zero, so `after -
// before` values went to zero. Counted a cache-sized chunk at a time while
// the chunk is in cache, which costs far less than a separate read.
struct RoundTripZeros {
  std::uint64_t before = 0;
  std::uint64_t after = 0;
  bool operator==(const RoundTripZeros&) const = default;
};
RoundTripZeros roundTripBf16CountingZeros(std::span<float> values) noexcept;
RoundTripZeros roundTripF16CountingZeros(std::span<float> values) noexcept;

// Which implementation the batch functions use on this CPU.
enum class ConvertPath { Portable, Hardware };
ConvertPath bf16ConvertPath() noexcept;
ConvertPath f16ConvertPath() noexcept;

// Force the portable path (tests compare it with the hardware path).
void setForcePortableConversions(bool force) noexcept;

} // namespace mantissa::numeric
