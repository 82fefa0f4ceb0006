// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The non-matmul ops of a step against their memory-bandwidth floor: the
// bytes an op must read and write once, over the copy bandwidth that
// bench::measureConversionThroughput's memcpy test measures in the same run.
// Each row prints the median time, the spread (lowest and highest of the
// rounds' medians) and median / floor (the target: at most 2).

#include <mantissa/bench/conversion_bench.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace mantissa::benchtools {

inline double medianOf(std::vector<double> v) {
  if (v.empty())
    return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// GB/s of memcpy on a 64 MiB buffer (bytes read + written), median of 7.
inline double copyGbps() {
  bench::ConversionBenchOptions o;
  o.repetitions = 7;
  o.portableToo = false;
  return bench::measureConversionThroughput(o).front().gbps;
}

struct TimedOp {
  std::string name;
  double bytes = 0.0;          // read + written once
  std::function<void()> run;   // one call of the op
  std::vector<double> ms;      // every timed call
  std::vector<double> roundMs; // each round's median
};

// Rounds of `reps` calls of every op in turn (load from other processes
// falls on all alike), after one untimed call each.
inline void timeOps(std::vector<TimedOp>& ops, int rounds, int reps) {
  using Clock = std::chrono::steady_clock;
  for (auto& op : ops)
    op.run();
  for (int r = 0; r < rounds; ++r)
    for (auto& op : ops) {
      std::vector<double> here;
      for (int i = 0; i < reps; ++i) {
        const auto t0 = Clock::now();
        op.run();
        here.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      }
      op.ms.insert(op.ms.end(), here.begin(), here.end());
      op.roundMs.push_back(medianOf(here));
    }
}

inline void printOpHeader() {
  std::printf("%-52s %9s %9s %9s %17s %8s %s\n", "op", "MB moved", "floor ms", "median ms",
              "spread (rounds)", "x floor", "rule (<= 2x)");
}

inline void printOp(const std::string& name, double bytes, double gbps, double medianMs,
                    double lo, double hi) {
  const double floorMs = bytes / (gbps * 1e9) * 1e3;
  const double ratio = floorMs > 0 ? medianMs / floorMs : 0.0;
  std::printf("%-52s %9.2f %9.3f %9.3f %7.3f - %7.3f %7.2fx %s\n", name.c_str(), bytes / 1e6,
              floorMs, medianMs, lo, hi, ratio, ratio <= 2.0 ? "met" : "NOT met");
}

inline void printOps(const std::vector<TimedOp>& ops, double gbps) {
  for (const auto& op : ops) {
    const auto [lo, hi] = std::minmax_element(op.roundMs.begin(), op.roundMs.end());
    printOp(op.name, op.bytes, gbps, medianOf(op.ms), *lo, *hi);
  }
}

} // namespace mantissa::benchtools
