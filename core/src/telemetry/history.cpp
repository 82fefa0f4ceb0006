// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/telemetry/history.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace mantissa::telemetry {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Folds (value, step) into a [min, max, minStep, maxStep] record; NaN never wins.
void foldValue(double* s, double value, double step) {
  if (std::isnan(value))
    return;
  if (std::isnan(s[0]) || value < s[0]) {
    s[0] = value;
    s[2] = step;
  }
  if (std::isnan(s[1]) || value > s[1]) {
    s[1] = value;
    s[3] = step;
  }
}

} // namespace

History::History(std::vector<std::string> columns, HistoryLimits limits)
    : m_columns(std::move(columns)), m_limits(limits) {
  if (m_columns.empty())
    throw std::invalid_argument("History: at least one column is needed");
  if (limits.recentRows < 1)
    throw std::invalid_argument("History: recentRows must be >= 1");
  if (limits.maxBuckets < 2 || limits.maxBuckets % 2 != 0)
    throw std::invalid_argument("History: maxBuckets must be even and >= 2, got " +
                                std::to_string(limits.maxBuckets));
}

void History::append(std::int64_t step, std::span<const double> values) {
  const std::size_t c = m_columns.size();
  if (values.size() != c)
    throw std::invalid_argument("History::append: " + std::to_string(values.size()) +
                                " values for " + std::to_string(c) + " columns");
  if (m_recentSteps.capacity() == 0) { // exact capacities: no doubling overshoot
    m_recentSteps.reserve(m_limits.recentRows);
    m_recentValues.reserve(m_limits.recentRows * c);
  }
  ++m_appended;
  if (m_recentSteps.size() < m_limits.recentRows) {
    m_recentSteps.push_back(step);
    m_recentValues.insert(m_recentValues.end(), values.begin(), values.end());
    return;
  }
  foldOldestRecent();
  m_recentSteps[m_recentHead] = step;
  std::copy(values.begin(), values.end(),
            m_recentValues.begin() + static_cast<std::ptrdiff_t>(m_recentHead * c));
  m_recentHead = (m_recentHead + 1) % m_limits.recentRows;
}

void History::foldOldestRecent() {
  const std::size_t c = m_columns.size();
  if (m_buckets.capacity() == 0) {
    m_buckets.reserve(m_limits.maxBuckets);
    m_stats.reserve(m_limits.maxBuckets * c * 4);
  }
  // Buckets are cut by steps, not rows: rows may each stand for many steps
  // (a mailbox that coalesced gives a few rows per span), and a bucket of
  // m_span rows there would cover far more steps than its neighbours, drawn
  // as one long straight segment from its min to its max.
  const std::int64_t step = m_recentSteps[m_recentHead];
  const auto full = [&] {
    return m_buckets.empty() || step - m_buckets.back().firstStep >= std::int64_t(m_span);
  };
  if (full()) {
    if (m_buckets.size() == m_limits.maxBuckets)
      mergeBuckets();
    if (full()) {
      m_buckets.push_back(Bucket{});
      m_stats.insert(m_stats.end(), c * 4, kNaN);
    }
  }
  Bucket& b = m_buckets.back();
  if (b.rows == 0)
    b.firstStep = step;
  b.lastStep = step;
  ++b.rows;
  double* s = stats(m_buckets.size() - 1);
  const double* v = m_recentValues.data() + m_recentHead * c;
  for (std::size_t k = 0; k < c; ++k)
    foldValue(s + 4 * k, v[k], static_cast<double>(step));
}

// Pairwise merge: buckets 2i and 2i+1 become bucket i; the span doubles.
void History::mergeBuckets() {
  const std::size_t c = m_columns.size();
  const std::size_t n = m_buckets.size();
  std::size_t out = 0;
  for (std::size_t i = 0; i < n; i += 2, ++out) {
    Bucket merged = m_buckets[i];
    double* dst = stats(out);
    const double* a = stats(i);
    for (std::size_t k = 0; k < 4 * c; ++k)
      dst[k] = a[k];
    if (i + 1 < n) {
      const Bucket& second = m_buckets[i + 1];
      merged.lastStep = second.lastStep;
      merged.rows += second.rows;
      const double* bs = stats(i + 1);
      for (std::size_t k = 0; k < c; ++k) {
        foldValue(dst + 4 * k, bs[4 * k], bs[4 * k + 2]);     // its min
        foldValue(dst + 4 * k, bs[4 * k + 1], bs[4 * k + 3]); // its max
      }
    }
    m_buckets[out] = merged;
  }
  m_buckets.resize(out);
  m_stats.resize(out * c * 4);
  // Sparse steps (one row per many steps) fill the buckets before the span
  // covers them: the span grows to the widest merged bucket so that the
  // buckets folded from now on are as wide as the older ones.
  std::int64_t widest = 1;
  for (const Bucket& b : m_buckets)
    widest = std::max(widest, b.lastStep - b.firstStep + 1);
  m_span = std::max(2 * m_span, std::size_t(widest));
}

std::vector<SeriesPoint> History::series(std::size_t column) const {
  const std::size_t c = m_columns.size();
  if (column >= c)
    throw std::out_of_range("History::series: column " + std::to_string(column) + " of " +
                            std::to_string(c));
  std::vector<SeriesPoint> out;
  out.reserve(2 * m_buckets.size() + m_recentSteps.size());
  for (std::size_t b = 0; b < m_buckets.size(); ++b) {
    const double* s = stats(b) + 4 * column;
    if (std::isnan(s[0]))
      continue;
    SeriesPoint lo{s[2], s[0]}, hi{s[3], s[1]};
    if (hi.x < lo.x)
      std::swap(lo, hi);
    out.push_back(lo);
    if (!(hi == lo))
      out.push_back(hi);
  }
  const std::size_t n = m_recentSteps.size();
  for (std::size_t r = 0; r < n; ++r) {
    const std::size_t i = (m_recentHead + r) % n;
    out.push_back({static_cast<double>(m_recentSteps[i]), m_recentValues[i * c + column]});
  }
  return out;
}

std::vector<SeriesPoint> History::series(std::size_t column, std::size_t pixels) const {
  const auto all = series(column);
  return decimateMinMax(all, pixels);
}

std::size_t History::bytes() const {
  return m_recentSteps.capacity() * sizeof(std::int64_t) +
         m_recentValues.capacity() * sizeof(double) + m_buckets.capacity() * sizeof(Bucket) +
         m_stats.capacity() * sizeof(double);
}

std::size_t History::byteBound() const {
  const std::size_t c = m_columns.size();
  return m_limits.recentRows * (sizeof(std::int64_t) + c * sizeof(double)) +
         m_limits.maxBuckets * (sizeof(Bucket) + 4 * c * sizeof(double));
}

void History::clear() {
  m_appended = 0;
  m_recentSteps.clear();
  m_recentValues.clear();
  m_recentHead = 0;
  m_buckets.clear();
  m_stats.clear();
  m_span = 1;
}

} // namespace mantissa::telemetry
