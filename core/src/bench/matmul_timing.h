// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Private functions of the matmul benchmark and the peak estimate: timing one
// product with warm-up and repetitions, and pinning OpenMP threads for the
// duration of a measurement.

#include <mantissa/bench/matmul_bench.h>
#include <mantissa/tensor/tensor.h>

#include <cstdint>
#include <functional>

namespace mantissa::bench::detail {

struct Timing {
  double gflops; // median of the samples
  double cv;
};

// Runs `product` (which performs `flops` floating-point operations) `warmup`
// times, then `repetitions` timed samples of enough calls to last about
// `minSampleSeconds` each.
Timing timeProduct(double flops, const std::function<void()>& product, int warmup, int repetitions,
                   double minSampleSeconds);

// Deterministic values in [-1, 1) stored in `dtype` (rows x cols).
Tensor benchTensor(DType dtype, std::int64_t rows, std::int64_t cols, std::uint32_t seed);

// Sets omp_set_num_threads(threads) if threads > 0; restores on destruction.
class ThreadPin {
public:
  explicit ThreadPin(int threads);
  ~ThreadPin();
  ThreadPin(const ThreadPin&) = delete;
  ThreadPin& operator=(const ThreadPin&) = delete;

private:
  int m_previous;
  bool m_pinned;
};

} // namespace mantissa::bench::detail
