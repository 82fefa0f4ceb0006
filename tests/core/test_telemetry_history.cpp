// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// History's older tier keeps an even resolution in steps when its rows are
// uneven: a GUI that fell behind receives coalesced mailbox rows, each
// standing for many steps (RunRecord::addSpan appends the span's lowest,
// highest and last step), between stretches of one row per step. The loss
// curve of a long run must not turn such a stretch into one straight segment.
#include <mantissa/telemetry/history.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

namespace {

using mantissa::telemetry::History;
using mantissa::telemetry::HistoryLimits;
using mantissa::telemetry::SeriesPoint;

// A noisy loss for every step 0 .. steps-1 (the truth the rows come from).
std::vector<double> noisyLoss(std::int64_t steps) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> noise(0.4, 1.2);
  std::vector<double> loss(static_cast<std::size_t>(steps));
  for (double& v : loss)
    v = noise(rng);
  return loss;
}

// Rows as RunRecord appends them: one per step, except in [sparseFrom,
// sparseTo) where each span of `spanSteps` steps gives its min step, max step
// and last step (in step order, a step once).
std::map<std::int64_t, double> appendRows(History& h, const std::vector<double>& loss,
                                          std::int64_t sparseFrom, std::int64_t sparseTo,
                                          std::int64_t spanSteps) {
  std::map<std::int64_t, double> rows;
  const auto append = [&](std::int64_t step) {
    rows[step] = loss[std::size_t(step)];
    h.append(step, std::span(&loss[std::size_t(step)], 1));
  };
  const auto n = std::int64_t(loss.size());
  for (std::int64_t s = 0; s < n;) {
    if (s < sparseFrom || s >= sparseTo) {
      append(s++);
      continue;
    }
    const std::int64_t end = std::min(s + spanSteps, sparseTo);
    const auto first = loss.begin() + s, last = loss.begin() + end;
    std::vector<std::int64_t> steps{s + (std::min_element(first, last) - first),
                                    s + (std::max_element(first, last) - first), end - 1};
    std::sort(steps.begin(), steps.end());
    steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
    for (std::int64_t step : steps)
      append(step);
    s = end;
  }
  return rows;
}

TEST(HistoryResolution, CoalescedStretchKeepsTheStepResolutionOfItsNeighbours) {
  const std::int64_t steps = 100'000;
  const HistoryLimits limits{256, 256};
  History h({"loss"}, limits);
  const std::vector<double> loss = noisyLoss(steps);
  // 30,000 steps arrive as 150 coalesced rows of 200 steps (450 rows).
  const auto rows = appendRows(h, loss, 40'000, 70'000, 200);

  const std::vector<SeriesPoint> series = h.series(0);
  ASSERT_FALSE(series.empty());
  EXPECT_TRUE(std::is_sorted(series.begin(), series.end(),
                             [](const SeriesPoint& a, const SeriesPoint& b) { return a.x < b.x; }));
  // Every point is an appended row, unchanged.
  for (const SeriesPoint& p : series) {
    const auto it = rows.find(std::int64_t(p.x));
    ASSERT_NE(it, rows.end()) << "step " << p.x << " was never appended";
    EXPECT_EQ(p.y, it->second) << "step " << p.x;
  }
  // 256 buckets over 100,000 steps: a bucket of at most 512 steps (the next
  // power of two above 100,000 / 256) holds its min and max, so no two
  // neighbouring points are further apart than two buckets; the rows
  // themselves are never more than 200 steps apart.
  const double bound = 2.0 * 512.0;
  double worstGap = 0.0, worstAt = 0.0;
  for (std::size_t i = 1; i < series.size(); ++i)
    if (series[i].x - series[i - 1].x > worstGap) {
      worstGap = series[i].x - series[i - 1].x;
      worstAt = series[i - 1].x;
    }
  EXPECT_LE(worstGap, bound) << "no point between steps " << worstAt << " and "
                             << worstAt + worstGap;
  // The extremes of the whole run survive.
  const auto [lo, hi] = std::minmax_element(loss.begin(), loss.end());
  const auto has = [&](double y) {
    return std::any_of(series.begin(), series.end(), [&](const SeriesPoint& p) { return p.y == y; });
  };
  EXPECT_TRUE(has(*lo));
  EXPECT_TRUE(has(*hi));
  EXPECT_LE(h.bucketCount(), limits.maxBuckets);
  EXPECT_LE(h.bytes(), h.byteBound());
}

// Rows far apart in steps (one every 100) fill the buckets before the span
// covers them; the buckets folded after a merge must be as wide as the old
// ones, not one row each, or the newest stretch is drawn finer than the rest.
TEST(HistoryResolution, SparseRowsGiveBucketsOfEvenWidth) {
  const HistoryLimits limits{16, 64};
  History h({"loss"}, limits);
  for (std::int64_t s = 0; s < 100 * 1000; s += 100) {
    const double v = double(s % 700);
    h.append(s, std::span(&v, 1));
  }
  EXPECT_LE(h.bucketCount(), limits.maxBuckets);
  // 984 rows folded into <= 64 buckets: at least 15 rows each, everywhere.
  EXPECT_GE(h.bucketSpan(), 1500u); // steps per bucket: 15 rows of 100 steps
  std::vector<SeriesPoint> folded = h.series(0);
  folded.resize(folded.size() - limits.recentRows);
  EXPECT_LE(folded.size(), 2 * limits.maxBuckets);
  // As many points in the newest quarter of the folded steps as in the oldest.
  const double x0 = folded.front().x, x1 = folded.back().x, quarter = (x1 - x0) / 4;
  const auto count = [&](double from, double to) {
    return double(std::count_if(folded.begin(), folded.end(), [&](const SeriesPoint& p) {
      return p.x >= from && p.x <= to;
    }));
  };
  const double oldest = count(x0, x0 + quarter), newest = count(x1 - quarter, x1);
  EXPECT_LE(newest, 2.0 * oldest);
  EXPECT_LE(oldest, 2.0 * newest);
}

} // namespace
