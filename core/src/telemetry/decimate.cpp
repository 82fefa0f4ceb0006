// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/telemetry/decimate.h>

#include <algorithm>
#include <cmath>

namespace mantissa::telemetry {

std::vector<SeriesPoint> decimateMinMax(std::span<const SeriesPoint> points, std::size_t buckets) {
  buckets = std::max<std::size_t>(buckets, 1);
  const std::size_t n = points.size();
  if (n <= 2 * buckets)
    return {points.begin(), points.end()};

  std::vector<SeriesPoint> out;
  out.reserve(2 * buckets + 2);
  const double x0 = points.front().x;
  const double span = points.back().x - x0;
  out.push_back(points.front());

  // Interior points 1 .. n-2; bucket b holds x in [x0 + b*w, x0 + (b+1)*w).
  std::size_t i = 1;
  for (std::size_t b = 0; b < buckets && i + 1 < n; ++b) {
    const double upper =
        (b + 1 == buckets) ? INFINITY
                           : x0 + span * static_cast<double>(b + 1) / static_cast<double>(buckets);
    std::size_t lo = n, hi = n; // indices of the extremes in this bucket
    for (; i + 1 < n && (points[i].x < upper || span == 0.0); ++i) {
      const double y = points[i].y;
      if (std::isnan(y))
        continue;
      if (lo == n || y < points[lo].y)
        lo = i;
      if (hi == n || y > points[hi].y)
        hi = i;
    }
    if (lo == n)
      continue;
    const std::size_t first = std::min(lo, hi), second = std::max(lo, hi);
    out.push_back(points[first]);
    if (second != first)
      out.push_back(points[second]);
  }
  out.push_back(points.back());
  return out;
}

} // namespace mantissa::telemetry
