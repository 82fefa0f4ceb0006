// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Min/max bucket decimation: turns a long series into about two points per
// horizontal pixel without hiding a spike. The x range is split into
// `buckets` equal-width intervals; each contributes its lowest and its
// highest point, in x order. The first and last points are always kept.
//
// Guarantees (tested): output size <= 2 * buckets + 2; x non-decreasing when
// the input's x is; every bucket's extremes (hence the global min and max)
// survive; inputs with at most 2 * buckets points come back unchanged.
// Points with a NaN y are never chosen as an extreme (a chart cannot draw
// them); they are kept only in the small-input pass-through.

#include <cstddef>
#include <span>
#include <vector>

namespace mantissa::telemetry {

struct SeriesPoint {
  double x = 0.0; // usually the step
  double y = 0.0;
  bool operator==(const SeriesPoint&) const = default;
};

// points sorted by x (non-decreasing); buckets >= 1 (e.g. the plot width in pixels).
std::vector<SeriesPoint> decimateMinMax(std::span<const SeriesPoint> points, std::size_t buckets);

} // namespace mantissa::telemetry
