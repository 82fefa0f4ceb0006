// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/kernels/threads.h>

#include <omp.h>
#include <sched.h>

#include <atomic>
#include <stdexcept>
#include <string>

namespace mantissa::kernels {

namespace {
std::atomic<int> g_threads{0};

// OpenMP's default for new threads, read once before anything changes it.
int ompDefault() {
  static const int n = omp_get_max_threads();
  return n;
}
} // namespace

int availableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0)
      return n;
  }
  return 1;
}

void setKernelThreads(int threads) {
  if (threads < 0 || threads > kMaxKernelThreads)
    throw std::invalid_argument("threads: must be 0 (every CPU) or 1.." +
                                std::to_string(kMaxKernelThreads) + ", got " +
                                std::to_string(threads));
  ompDefault();
  g_threads.store(threads, std::memory_order_relaxed);
}

int kernelThreadsSetting() { return g_threads.load(std::memory_order_relaxed); }

int kernelThreads() {
  const int n = kernelThreadsSetting();
  return n > 0 ? n : ompDefault();
}

void applyKernelThreads() {
  const int n = kernelThreads();
  if (omp_get_max_threads() != n)
    omp_set_num_threads(n);
}

} // namespace mantissa::kernels
