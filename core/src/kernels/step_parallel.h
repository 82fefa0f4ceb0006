// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Splits the independent items [0, n) of a step kernel (values of an
// elementwise op, rows of a row op) between the OpenMP threads, when there is
// enough work. Each item is computed by the same code whichever thread runs
// it, so the results do not depend on the split. A file using this must be
// compiled with OpenMP.

#include <mantissa/kernels/elementwise.h>

#include <algorithm>
#include <cstddef>
#include <omp.h>

#ifndef _OPENMP
#error "kernels/step_parallel.h needs OpenMP (add OpenMP_CXX_FLAGS to this file's options)"
#endif

namespace mantissa::kernels {

// Below this many values of work per thread, one thread does it all.
inline constexpr std::size_t kStepParallelMinWork = kStepParallelMinValues;

// fn(begin, end) over pieces of [0, n) whose starts are multiples of `align`;
// `work` is the total number of values touched.
template <class F> void forStepPieces(std::size_t n, std::size_t work, std::size_t align, F&& fn) {
  int threads = 1;
  if (n > align && work >= 2 * kStepParallelMinWork && omp_in_parallel() == 0)
    threads = static_cast<int>(std::min<std::size_t>(
        work / kStepParallelMinWork, std::size_t(std::max(1, omp_get_max_threads()))));
  if (threads <= 1) {
    fn(std::size_t{0}, n);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const auto nt = static_cast<std::size_t>(omp_get_num_threads());
    const auto edge = [&](std::size_t k) { return k >= nt ? n : (n * k / nt) / align * align; };
    const std::size_t begin = edge(t), end = edge(t + 1);
    if (begin < end)
      fn(begin, end);
  }
}

} // namespace mantissa::kernels
