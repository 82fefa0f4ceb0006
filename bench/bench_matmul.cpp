// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// bench_matmul [--quick] [--threads N]
//
// Prints matmul GFLOP/s (median of repetitions, CV) for FP32 Eigen, FP32
// oneDNN, BF16 oneDNN (native or emulated) and FP16 (emulated) over square
// and MLP 784-1024-1024-10 training shapes, then the machine's peak.
#include <mantissa/bench/matmul_bench.h>
#include <mantissa/numeric/cpu_features.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

using namespace mantissa;

const char* transText(kernels::Trans src, kernels::Trans weights) {
  if (src == kernels::Trans::Yes)
    return weights == kernels::Trans::Yes ? "TT" : "TN";
  return weights == kernels::Trans::Yes ? "NT" : "NN";
}

int usage(const char* why) {
  std::fprintf(stderr, "bench_matmul: %s\nusage: bench_matmul [--quick] [--threads N]\n", why);
  return 2;
}

} // namespace

int main(int argc, char** argv) {
  bool quick = false;
  int threads = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--quick") {
      quick = true;
    } else if (arg == "--threads" && i + 1 < argc) {
      char* end = nullptr;
      const long n = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || n < 1 || n > 1024)
        return usage("--threads needs a whole number from 1 to 1024");
      threads = int(n);
    } else {
      return usage(("unknown argument '" + std::string(arg) + "'").c_str());
    }
  }

  bench::MatmulBenchOptions options = quick ? bench::MatmulBenchOptions::quick()
                                            : bench::MatmulBenchOptions{};
  options.threads = threads;
  options.progress = [](double fraction, std::string_view what) {
    std::fprintf(stderr, "\r[%3.0f%%] %-60.*s", fraction * 100, int(what.size()), what.data());
    return true;
  };

  std::printf("CPU: %s\nISA: %s\noneDNN %s (%s), OpenMP threads: %d%s\n",
              numeric::cpuFeatures().modelName.c_str(), numeric::describeIsa().c_str(),
              numeric::onednnVersion().c_str(), numeric::onednnIsa().c_str(),
              threads > 0 ? threads : bench::matmulThreads(), threads > 0 ? " (pinned)" : "");
  std::printf("Method: %d warm-up, %d timed samples of >= %.0f ms; GFLOP/s = 2MNK / time, median; "
              "CV = stddev / mean of the samples\n\n",
              options.warmup, options.repetitions, options.minSampleSeconds * 1e3);

  const std::vector<bench::MatmulResult> results = bench::measureMatmuls(options);
  std::fprintf(stderr, "\r%70s\r", "");

  std::printf("%-22s %-7s %-5s %5s %5s %5s %2s %9s %6s  %s\n", "shape", "backend", "dtype", "M",
              "N", "K", "op", "GFLOP/s", "CV", "implementation");
  bool noisy = false;
  for (const bench::MatmulResult& r : results) {
    std::printf("%-22s %-7s %-5s %5lld %5lld %5lld %2s %9.1f %5.1f%%  %s\n", r.label.c_str(),
                std::string(kernels::backendName(r.backend)).c_str(),
                std::string(dtypeName(r.dtype)).c_str(), static_cast<long long>(r.m),
                static_cast<long long>(r.n), static_cast<long long>(r.k),
                transText(r.transSrc, r.transWeights), r.gflops, r.cv * 100,
                r.implementation.c_str());
    noisy = noisy || r.cv > 0.10;
  }
  if (noisy)
    std::printf("\nNote: some rows have CV > 10%%: the machine was busy; compare ratios with care.\n");

  bench::PeakOptions peakOptions;
  peakOptions.threads = threads;
  peakOptions.size = quick ? 1024 : 2048;
  peakOptions.repetitions = quick ? 3 : 5;
  const bench::PeakEstimate peak = bench::estimatePeak(peakOptions);
  std::printf("\nPeak FP32: %.1f GFLOP/s (%s)\n", peak.fp32Gflops, peak.fp32Source.c_str());
  std::printf("Peak BF16: %.1f GFLOP/s (%s)\n", peak.bf16Gflops, peak.bf16Source.c_str());
  std::printf("Calibrated (oneDNN %lld^3, %d thread(s)): FP32 %.1f GFLOP/s, BF16 %.1f GFLOP/s%s\n",
              static_cast<long long>(peak.calibrationSize), peak.threads, peak.fp32Calibrated,
              peak.bf16Calibrated, peak.bf16Emulated ? " (BF16 emulated)" : " (BF16 native)");
  if (peak.fp32Theoretical)
    std::printf("Theoretical: FP32 %.1f GFLOP/s, BF16 %.1f GFLOP/s (%s)\n", *peak.fp32Theoretical,
                *peak.bf16Theoretical, peak.theoreticalBasis.c_str());
  else
    std::printf("Theoretical: unavailable (%s)\n", peak.theoreticalBasis.c_str());
  return 0;
}
