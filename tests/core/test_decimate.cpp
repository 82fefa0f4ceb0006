// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Min/max decimation properties and the bounded History: a million-step run
// in bounded memory, checked both by History's own accounting and by the
// process heap (this binary counts live heap bytes in operator new/delete).
#include <mantissa/telemetry/decimate.h>
#include <mantissa/telemetry/history.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <malloc.h>
#include <new>
#include <random>

namespace {
std::atomic<long long> g_liveHeapBytes{0};
}

void* operator new(std::size_t size) {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (!p)
    throw std::bad_alloc();
  g_liveHeapBytes += static_cast<long long>(malloc_usable_size(p));
  return p;
}
namespace {
void untrackAndFree(void* p) noexcept {
  if (p)
    g_liveHeapBytes -= static_cast<long long>(malloc_usable_size(p));
  std::free(p);
}
} // namespace
void operator delete(void* p) noexcept {
  untrackAndFree(p);
}
void operator delete(void* p, std::size_t) noexcept {
  untrackAndFree(p);
}

namespace {

using mantissa::telemetry::decimateMinMax;
using mantissa::telemetry::History;
using mantissa::telemetry::HistoryLimits;
using mantissa::telemetry::SeriesPoint;

std::vector<SeriesPoint> noisySeries(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, 1.0);
  std::vector<SeriesPoint> pts(n);
  for (std::size_t i = 0; i < n; ++i)
    pts[i] = {static_cast<double>(i), std::sin(static_cast<double>(i) * 1e-3) + 0.1 * noise(rng)};
  return pts;
}

bool contains(const std::vector<SeriesPoint>& pts, SeriesPoint p) {
  return std::find(pts.begin(), pts.end(), p) != pts.end();
}

TEST(Decimate, BoundedMonotoneAndKeepsEndsAndExtremes) {
  auto pts = noisySeries(100000, 1);
  pts[31337].y = 50.0;  // a spike
  pts[77777].y = -50.0; // a dip
  for (std::size_t buckets : {1u, 7u, 640u, 1920u}) {
    const auto out = decimateMinMax(pts, buckets);
    EXPECT_LE(out.size(), 2 * buckets + 2);
    EXPECT_EQ(out.front(), pts.front());
    EXPECT_EQ(out.back(), pts.back());
    EXPECT_TRUE(
        std::is_sorted(out.begin(), out.end(),
                       [](const SeriesPoint& a, const SeriesPoint& b) { return a.x < b.x; }));
    EXPECT_TRUE(contains(out, pts[31337])) << buckets;
    EXPECT_TRUE(contains(out, pts[77777])) << buckets;
  }
}

TEST(Decimate, EveryBucketsMinAndMaxSurvive) {
  const auto pts = noisySeries(10007, 2);
  const std::size_t buckets = 100;
  const auto out = decimateMinMax(pts, buckets);
  // Straightforward reference: bucket of x is floor((x - x0) / span * buckets).
  const double x0 = pts.front().x, span = pts.back().x - x0;
  std::vector<SeriesPoint> lo(buckets, {0, INFINITY}), hi(buckets, {0, -INFINITY});
  for (std::size_t i = 1; i + 1 < pts.size(); ++i) {
    auto b = static_cast<std::size_t>((pts[i].x - x0) / span * static_cast<double>(buckets));
    b = std::min(b, buckets - 1);
    if (pts[i].y < lo[b].y)
      lo[b] = pts[i];
    if (pts[i].y > hi[b].y)
      hi[b] = pts[i];
  }
  for (std::size_t b = 0; b < buckets; ++b) {
    EXPECT_TRUE(contains(out, lo[b])) << "bucket " << b;
    EXPECT_TRUE(contains(out, hi[b])) << "bucket " << b;
  }
}

TEST(Decimate, SmallInputsPassThroughAndNaNIsNeverAnExtreme) {
  const auto few = noisySeries(10, 3);
  EXPECT_EQ(decimateMinMax(few, 5), few);
  auto pts = noisySeries(1000, 4);
  for (std::size_t i = 1; i < 999; i += 3)
    pts[i].y = std::numeric_limits<double>::quiet_NaN();
  const auto out = decimateMinMax(pts, 10);
  for (std::size_t i = 1; i + 1 < out.size(); ++i)
    EXPECT_FALSE(std::isnan(out[i].y));
  EXPECT_TRUE(decimateMinMax({}, 10).empty());
}

TEST(History, FoldsOldRowsIntoMinMaxBucketsByHand) {
  History h({"loss"}, HistoryLimits{4, 4});
  for (std::int64_t s = 0; s < 20; ++s) {
    const double v = static_cast<double>(s);
    h.append(s, std::span(&v, 1));
  }
  // Worked by hand: steps 0..15 folded into [0-3] [4-7] [8-11] [12-15] (span 4), 16..19 recent.
  const std::vector<SeriesPoint> want = {{0, 0},   {3, 3},   {4, 4},   {7, 7},
                                         {8, 8},   {11, 11}, {12, 12}, {15, 15},
                                         {16, 16}, {17, 17}, {18, 18}, {19, 19}};
  EXPECT_EQ(h.series(0), want);
  EXPECT_EQ(h.bucketSpan(), 4u);
  EXPECT_EQ(h.bucketCount(), 4u);
  EXPECT_EQ(h.rowsAppended(), 20);
}

TEST(History, AMillionStepsStayInBoundedMemory) {
  const long long heapBefore = g_liveHeapBytes.load();
  History h({"loss", "loss_scale", "step_ms", "grad_norm"});
  // Stated bound from the design: 4096 * (8 + 8*4) + 4096 * (24 + 32*4) = 786,432 bytes.
  EXPECT_EQ(h.byteBound(), 786432u);
  std::size_t bytesAt100k = 0;
  for (std::int64_t s = 0; s < 1'000'000; ++s) {
    const double loss =
        (s == 123457) ? 1e6 : (s == 654321 ? -1.0 : 1.0 / static_cast<double>(s + 1));
    const double row[4] = {loss, 65536.0, 20.0, 0.5};
    h.append(s, row);
    if (s == 100'000)
      bytesAt100k = h.bytes();
  }
  EXPECT_LE(h.bytes(), h.byteBound());
  EXPECT_EQ(h.bytes(), bytesAt100k); // no growth after the tiers filled
  const long long heapGrowth = g_liveHeapBytes.load() - heapBefore;
  // Heap: payload + the column names + allocator rounding; far below one row per step (32 MB).
  EXPECT_LE(heapGrowth, static_cast<long long>(h.byteBound()) + 64 * 1024);
  EXPECT_LE(h.bucketCount(), 4096u);

  const auto loss = h.series(0);
  EXPECT_TRUE(contains(loss, SeriesPoint{123457, 1e6})); // the spike survives 1M steps of folding
  EXPECT_TRUE(contains(loss, SeriesPoint{654321, -1.0}));
  EXPECT_EQ(loss.back(), (SeriesPoint{999999, 1.0 / 1e6}));
  EXPECT_TRUE(std::is_sorted(loss.begin(), loss.end(),
                             [](const SeriesPoint& a, const SeriesPoint& b) { return a.x < b.x; }));
  const auto plotted = h.series(0, 800);
  EXPECT_LE(plotted.size(), 2u * 800 + 2);
  EXPECT_TRUE(contains(plotted, SeriesPoint{123457, 1e6}));
}

TEST(History, RejectsBadInput) {
  EXPECT_THROW(History({}), std::invalid_argument);
  EXPECT_THROW(History({"a"}, HistoryLimits{4, 3}), std::invalid_argument);
  History h({"a", "b"});
  const double one = 1.0;
  EXPECT_THROW(h.append(0, std::span(&one, 1)), std::invalid_argument);
  EXPECT_THROW(h.series(2), std::out_of_range);
}

} // namespace
