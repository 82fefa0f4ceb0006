// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Batch conversion kernels, one per instruction set; convert.cpp chooses
// among them at run time. Every kernel gives the bits of convert_bits.h.
// Internal to core/numeric.

#include <cstddef>
#include <cstdint>

namespace mantissa::numeric::detail {

using F32ToHalfKernel = void (*)(const float* src, std::uint16_t* dst, std::size_t n);
using HalfToF32Kernel = void (*)(const std::uint16_t* src, float* dst, std::size_t n);

// Plain C++ loops over convert_bits.h (compiled for the baseline ISA).
void f32ToBf16Portable(const float* src, std::uint16_t* dst, std::size_t n);
void bf16ToF32Portable(const std::uint16_t* src, float* dst, std::size_t n);
void f32ToF16Portable(const float* src, std::uint16_t* dst, std::size_t n);
void f16ToF32Portable(const std::uint16_t* src, float* dst, std::size_t n);

#if defined(__x86_64__)
// The BF16 rounding rule written with AVX2 integer intrinsics (no BF16
// instruction needed); BF16 -> FP32 as a widening shift.
void f32ToBf16Avx2(const float* src, std::uint16_t* dst, std::size_t n);
void bf16ToF32Avx2(const std::uint16_t* src, float* dst, std::size_t n);
// F16C: VCVTPS2PH (imm8 = round to nearest even) and VCVTPH2PS.
void f32ToF16F16c(const float* src, std::uint16_t* dst, std::size_t n);
void f16ToF32F16c(const std::uint16_t* src, float* dst, std::size_t n);
// AVX512_BF16: VCVTNEPS2BF16. Only called where the CPU has it.
void f32ToBf16Avx512Bf16(const float* src, std::uint16_t* dst, std::size_t n);
void roundTripBf16Avx512Bf16(float* values, std::size_t n); // in place, one pass
#endif

} // namespace mantissa::numeric::detail
