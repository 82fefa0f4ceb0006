// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Session's background counts (core/src/train/background_scans.h): every
// posted tensor counted as scanInto counts it, whatever its size against the
// pieces; no piece starts while the model runs a product; the thread resumes
// on its own after one; destruction with work queued drops it and returns.
#include "train/background_scans.h"

#include <gtest/gtest.h>

#include <sched.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <thread>
#include <vector>

namespace {

namespace tl = mantissa::telemetry;
using mantissa::train::BackgroundScans;

// Gradient-like magnitudes over 40 binades, exact zeros, subnormals and specials.
std::vector<float> values(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> exponent(-40, 0), kind(0, 99);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::vector<float> v(n);
  for (float& x : v) {
    const int k = kind(rng);
    x = k == 0   ? 0.0f
        : k == 1 ? std::ldexp(mantissa(rng), -140)
        : k == 2 ? std::numeric_limits<float>::infinity()
                 : std::ldexp(mantissa(rng), exponent(rng)) * (k % 2 ? -1.0f : 1.0f);
  }
  return v;
}

void expectSame(const tl::TensorScan& got, const std::vector<float>& v, std::size_t n) {
  tl::TensorScan want;
  tl::scanInto(v, want);
  EXPECT_EQ(got.hist, want.hist) << n << " values";
  EXPECT_EQ(got.below, want.below) << n << " values";
}

} // namespace

TEST(BackgroundScans, CountsEveryPostedTensorAsScanIntoDoes) {
  // Sizes around the 32768-value piece, and an empty tensor.
  const std::vector<std::size_t> sizes = {0, 1, 32767, 32768, 32769, 100001};
  std::vector<std::vector<float>> tensors;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    tensors.push_back(values(sizes[i], static_cast<unsigned>(i)));
  std::vector<tl::TensorScan> counts(sizes.size());
  BackgroundScans scans;
  for (int round = 0; round < 2; ++round) { // the thread is reused
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      counts[i] = {};
      scans.post({tensors[i], &counts[i]});
    }
    scans.wait();
    EXPECT_TRUE(scans.idle());
    for (std::size_t i = 0; i < sizes.size(); ++i)
      expectSame(counts[i], tensors[i], sizes[i]);
  }
}

// At idle priority (a GPT's frame) the thread only takes time a core would
// idle; waited on with much still queued, the calling thread's team takes the
// rest. The counts are the same either way, and the thread is back at idle
// priority after each wait().
TEST(BackgroundScans, AtIdlePriorityCountsTheSameWhereverThePiecesRan) {
  std::vector<std::vector<float>> tensors;
  for (unsigned i = 0; i < 4; ++i)
    tensors.push_back(values(300001 + i, 10 + i));
  std::vector<tl::TensorScan> counts(tensors.size());
  BackgroundScans scans(true);
  EXPECT_EQ(scans.threadPolicy(), -1); // no thread before the first post()
  for (int round = 0; round < 2; ++round) {
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      counts[i] = {};
      scans.post({tensors[i], &counts[i]});
    }
    scans.wait(); // at once: most of 1.2 M values still queued
    EXPECT_TRUE(scans.idle());
    for (std::size_t i = 0; i < tensors.size(); ++i)
      expectSame(counts[i], tensors[i], tensors[i].size());
    EXPECT_EQ(scans.threadPolicy(), SCHED_IDLE);
  }
}

TEST(BackgroundScans, NoPieceStartsWhileAProductRunsAndWorkResumesAfterIt) {
  const std::vector<float> v = values(300000, 7); // ten pieces
  tl::TensorScan counts;
  BackgroundScans scans;
  scans.enter();
  scans.post({v, &counts});
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(scans.idle()); // ~0.2 ms of counting, held back for 200 ms
  scans.leave();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!scans.idle() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(scans.idle()) << "the thread did not resume after the product";
  scans.wait();
  expectSame(counts, v, v.size());
}

TEST(BackgroundScans, WaitCountsOnTheCallingThreadDuringAProduct) {
  const std::vector<float> v = values(100000, 8);
  tl::TensorScan counts;
  BackgroundScans scans;
  scans.enter(); // the background holds back; wait() does the work itself
  scans.post({v, &counts});
  scans.wait();
  scans.leave();
  expectSame(counts, v, v.size());
}

TEST(BackgroundScans, DestroyedWithWorkQueuedReturns) {
  const std::vector<float> v = values(1 << 20, 9);
  tl::TensorScan counts;
  {
    BackgroundScans scans;
    scans.enter();
    scans.post({v, &counts});
  } // held back by the product: dropped, the thread joined
  EXPECT_EQ(counts.hist.total, 0u);
}
