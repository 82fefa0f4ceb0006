// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// History: a run's scalar series (loss, loss scale, step time, ...) in
// bounded memory, however long the run.
//
// Two tiers:
//   recent  the last `recentRows` rows at full resolution (a ring);
//   older   rows that leave the ring are folded into buckets of `span`
//           consecutive steps (not rows: a row may stand for many steps, e.g.
//           a coalesced mailbox row), each keeping per column its min and max
//           and the steps where they occurred. When `maxBuckets` buckets
//           exist, neighbours are merged pairwise and `span` doubles (or grows
//           to the widest merged bucket when rows are sparser than the span).
// So a million-step run with the defaults keeps the last 4096 steps exactly
// and everything before as <= 4096 min/max buckets (~256-step resolution),
// enough for any plot; spikes survive because min and max are exact.
//
// Memory: byteBound() = recentRows * (8 + 8 C) + maxBuckets * (24 + 32 C)
// bytes of payload (C columns), reached at most; bytes() reports what is held.

#include <mantissa/telemetry/decimate.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace mantissa::telemetry {

struct HistoryLimits {
  std::size_t recentRows = 4096; // >= 1
  std::size_t maxBuckets = 4096; // >= 2, even
};

class History {
public:
  // Throws std::invalid_argument for no columns or bad limits.
  explicit History(std::vector<std::string> columns, HistoryLimits limits = {});

  const std::vector<std::string>& columns() const { return m_columns; }
  const HistoryLimits& limits() const { return m_limits; }

  // One row; values.size() must equal columns().size() (std::invalid_argument).
  // Steps should increase; they are stored as given.
  void append(std::int64_t step, std::span<const double> values);

  std::int64_t rowsAppended() const { return m_appended; }
  std::size_t bucketSpan() const {
    return m_span;
  } // steps per older bucket (1 until the first merge)
  std::size_t bucketCount() const { return m_buckets.size(); }

  // One column over the whole run, oldest first, x = step: each bucket gives
  // its min and max points (in step order), then every recent row.
  std::vector<SeriesPoint> series(std::size_t column) const;
  // series() decimated to about two points per pixel.
  std::vector<SeriesPoint> series(std::size_t column, std::size_t pixels) const;

  std::size_t bytes() const;     // payload held now (vector capacities)
  std::size_t byteBound() const; // the design's ceiling, see above
  void clear();

private:
  struct Bucket {
    std::int64_t firstStep = 0;
    std::int64_t lastStep = 0;
    std::uint64_t rows = 0;
    // Per column c: min[c], max[c], minStep[c], maxStep[c] live in m_stats
    // at [index * C * 4 ...) to keep the bucket itself small.
  };
  void foldOldestRecent();
  void mergeBuckets();
  double* stats(std::size_t bucket) { return m_stats.data() + bucket * m_columns.size() * 4; }
  const double* stats(std::size_t bucket) const {
    return m_stats.data() + bucket * m_columns.size() * 4;
  }

  std::vector<std::string> m_columns;
  HistoryLimits m_limits;
  std::int64_t m_appended = 0;
  // recent ring: m_recentSteps[r], m_recentValues[r * C + c]; oldest at m_recentHead once full
  std::vector<std::int64_t> m_recentSteps;
  std::vector<double> m_recentValues;
  std::size_t m_recentHead = 0;
  // older tier
  std::vector<Bucket> m_buckets;
  std::vector<double> m_stats; // [bucket][column][min, max, minStep, maxStep]
  std::size_t m_span = 1;
};

} // namespace mantissa::telemetry
