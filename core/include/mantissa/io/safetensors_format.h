// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// safetensors element types as numeric formats: which FloatFormat a dtype's
// bytes hold (F8_E4M3FNUZ is numeric's fp8-e4m3fnuz: bias 8, 0x80 the NaN,
// no -0, no infinities), and tensors of those formats decoded to and encoded
// from doubles, little-endian, one element per 1, 2, 4 or 8 bytes.

#include <mantissa/io/safetensors.h>
#include <mantissa/numeric/codec.h>

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace mantissa::io {

// The numeric format of a floating-point dtype; nullopt for BOOL and the integers.
std::optional<numeric::FormatId> safetensorsDTypeFormat(SafetensorsDType dtype);
// The dtype that stores a numeric format; nullopt if safetensors names none
// (tf32, fp8-e3m4, ue4m3, user-defined formats, ...).
std::optional<SafetensorsDType> safetensorsDTypeOf(numeric::FormatId format);

// A byte-aligned float dtype's elements as doubles (exact: every such format
// fits in a double). Throws SafetensorsError for packed (F6, F4), integer and
// BOOL dtypes, or when the bytes are not a whole number of elements.
std::vector<double> decodeSafetensorsElements(SafetensorsDType dtype, std::span<const std::byte> bytes);

// Doubles rounded to the dtype's format (nearest even; overflow saturates to
// max finite, as OCP's saturating mode) as little-endian bytes. Same dtypes.
std::vector<std::byte> encodeSafetensorsElements(SafetensorsDType dtype, std::span<const double> values);

} // namespace mantissa::io
