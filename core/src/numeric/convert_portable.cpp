// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Portable batch kernels: plain loops over the branch-free bit functions, so
// the compiler vectorises them (this file is built with the dynamic vector
// cost model, see CMakeLists.txt).
#include "numeric/convert_bits.h"
#include "numeric/convert_kernels.h"

#include <bit>

namespace mantissa::numeric::detail {

void f32ToBf16Portable(const float* src, std::uint16_t* dst, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    dst[i] = bf16FromF32Bits(std::bit_cast<std::uint32_t>(src[i]));
}

void bf16ToF32Portable(const std::uint16_t* src, float* dst, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    dst[i] = std::bit_cast<float>(f32BitsFromBf16(src[i]));
}

void f32ToF16Portable(const float* src, std::uint16_t* dst, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    dst[i] = f16FromF32Bits(std::bit_cast<std::uint32_t>(src[i]));
}

void f16ToF32Portable(const std::uint16_t* src, float* dst, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    dst[i] = std::bit_cast<float>(f32BitsFromF16(src[i]));
}

} // namespace mantissa::numeric::detail
