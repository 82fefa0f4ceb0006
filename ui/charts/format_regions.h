// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Where a number format stops representing values, on the histogram's x axis
// (x = log2 |value|): the bounds are numeric::formatLimits() of any
// FloatFormat (a named one or one from a spec string); this file only names
// them.

#include <mantissa/numeric/format.h>

#include <QString>

#include <cstdint>
#include <vector>

namespace mantissa::ui {

enum class RegionKind : std::uint8_t {
  FlushToZero, // |x| <= minSubnormal / 2: rounds to zero (ties to even at the edge);
               // for BF16 |x| < minNormal, since the casts flush subnormals
  Subnormal,   // minSubnormal <= |x| < minNormal: fewer significant bits (empty
               // for BF16 and for a format without subnormals)
  Overflow,    // |x| > maxFinite: infinity, or NaN / saturation without infinities
};

struct FormatRegion {
  QString format; // formatKey() of the format
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
std::vector<FormatRegion> formatRegions(const numeric::FloatFormat& format,
                                        RegionVoice voice = RegionVoice::RunFormat);
std::vector<FormatRegion> formatRegions(numeric::FormatId format,
                                        RegionVoice voice = RegionVoice::RunFormat);

// What identifies a format among the shaded ones: its name ("fp16"), or a
// custom format's full spec ("e5m2:bias=13,special=fn,subnormals=yes").
QString formatKey(const numeric::FloatFormat& format);
QString formatKey(numeric::FormatId format);
// "FP16", "FP8 E4M3FNUZ", "E5M2 b13 fn".
QString formatDisplayName(const numeric::FloatFormat& format);

// The formats the histogram has a box for, narrowest range last.
const std::vector<numeric::FormatId>& histogramFormats();

} // namespace mantissa::ui
