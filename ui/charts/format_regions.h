// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Where a number format stops representing values, on the histogram's x axis
// (x = log2 |value|). Computed from numeric::formatInfo(), never typed in.

#include <mantissa/numeric/format.h>

#include <QString>

#include <cstdint>
#include <vector>

namespace mantissa::ui {

enum class RegionKind : std::uint8_t {
  FlushToZero, // |x| <= minSubnormal / 2: rounds to zero (ties to even at the edge);
               // for BF16 |x| < minNormal, since the casts flush subnormals
  Subnormal,   // minSubnormal <= |x| < minNormal: fewer significant bits (empty for BF16)
  Overflow,    // |x| > maxFinite: infinity (or NaN / saturation without infinities)
};

struct FormatRegion {
  numeric::FormatId format;
  RegionKind kind;
  double x0; // log2 of the lower bound; -infinity for open ends
  double x1; // log2 of the upper bound; +infinity for open ends
  QString label;
};

// How a region's label speaks: of the format the run holds the values in
// ("BF16 → 0"), or of another one the user asked to see, as it would be if
// the values were held in it ("if FP16: → 0").
enum class RegionVoice : std::uint8_t { RunFormat, AsIf };

// The three regions of one format, in the order FlushToZero, Subnormal, Overflow.
std::vector<FormatRegion> formatRegions(numeric::FormatId format,
                                        RegionVoice voice = RegionVoice::RunFormat);

// The formats the histogram offers, narrowest range last.
const std::vector<numeric::FormatId>& histogramFormats();

} // namespace mantissa::ui
