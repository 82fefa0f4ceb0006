// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// What lies one step above or below a value of a format, as the Explorer's
// "next" and "previous" say it: the neighbouring encoding (nextUp /
// nextDown), and at the ends of the format what a value past them becomes
// under a conversion. FP16's largest finite value has +inf above it; E4M3
// (no infinity) has nothing above 448: a larger value converts to NaN, or to
// 448 itself under saturation; FP6, FP4 and INT8 always saturate.

#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/format.h>

#include <cstdint>

namespace mantissa::numeric {

enum class NeighbourKind : std::uint8_t {
  Value,     // a finite value: `bits`
  Infinity,  // the format's infinity: `bits`
  NaN,       // past the largest finite value the conversion gives NaN (`bits`)
  Saturates, // past the largest finite value the conversion clamps to it (`bits`)
  None,      // nothing beyond: the value is an infinity, or NaN
};

struct Neighbour {
  NeighbourKind kind = NeighbourKind::Value;
  std::uint64_t bits = 0;
};

// conversion: how a value beyond the format's end is converted (its
// OverflowMode decides NaN or saturation where the format has no infinity).
Neighbour neighbourAbove(const FloatFormat& format, std::uint64_t bits,
                         const EncodeOptions& conversion);
Neighbour neighbourBelow(const FloatFormat& format, std::uint64_t bits,
                         const EncodeOptions& conversion);

} // namespace mantissa::numeric
