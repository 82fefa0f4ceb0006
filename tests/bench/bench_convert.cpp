// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// bench_convert [--mib N] [--reps N]: batch FP32 <-> BF16/FP16 conversion
// throughput beside memcpy of the same buffer (median GB/s, CV, ratio).
// Target: FP32 -> BF16 and FP32 -> FP16 at least half of memcpy's rate.
#include <mantissa/bench/conversion_bench.h>
#include <mantissa/numeric/cpu_features.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  using namespace mantissa;
  bench::ConversionBenchOptions options;
  for (int i = 1; i < argc; ++i) {
    const bool hasValue = i + 1 < argc;
    const long value = hasValue ? std::strtol(argv[i + 1], nullptr, 10) : 0;
    if (std::strcmp(argv[i], "--mib") == 0 && hasValue && value > 0) {
      options.elements = static_cast<std::size_t>(value) << 18; // MiB of FP32 values
      ++i;
    } else if (std::strcmp(argv[i], "--reps") == 0 && hasValue && value > 0) {
      options.repetitions = static_cast<int>(value);
      ++i;
    } else {
      std::fprintf(stderr, "usage: bench_convert [--mib N] [--reps N]  (bad argument '%s')\n", argv[i]);
      return 2;
    }
  }
  std::printf("CPU: %s\n", numeric::describeIsa().c_str());
  std::printf("Buffer: %zu FP32 values (%.0f MiB), %d repetitions round-robin; median, CV.\n",
              options.elements, static_cast<double>(options.elements) * 4 / (1 << 20),
              options.repetitions);
  std::printf("GB/s counts bytes read + written (memcpy moves 8 B per value, a conversion 6 B).\n\n");
  const auto results = bench::measureConversionThroughput(options);
  std::printf("%-12s  %-20s  %8s  %6s  %9s\n", "operation", "path", "GB/s", "CV", "x memcpy");
  for (const auto& r : results)
    std::printf("%-12s  %-20s  %8.2f  %5.1f%%  %9.2f\n", r.operation.c_str(), r.path.c_str(), r.gbps,
                100 * r.cv, r.ratioToMemcpy);
  bool met = true;
  for (const auto& r : results)
    if (r.path != "portable" && (r.operation == "fp32->bf16" || r.operation == "fp32->fp16"))
      met = met && r.ratioToMemcpy >= 0.5;
  std::printf("\nTarget FP32->BF16 and FP32->FP16 >= 0.5 x memcpy (default path): %s\n",
              met ? "met" : "NOT met");
  return 0;
}
