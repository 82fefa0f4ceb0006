// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Element types a Tensor can store. F32 is IEEE binary32; BF16 and F16 are
// stored as their 16-bit patterns (std::uint16_t) and converted with the
// functions of numeric/convert.h (round to nearest, ties to even).

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mantissa {

enum class DType : std::uint8_t { F32, BF16, F16 };

// "f32", "bf16", "f16": the spelling used by the CLI, logs and JSON.
std::string_view dtypeName(DType dtype);

// Bytes per element: 4 for F32, 2 for BF16 and F16.
std::size_t dtypeSize(DType dtype);

} // namespace mantissa
