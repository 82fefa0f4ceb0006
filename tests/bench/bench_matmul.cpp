// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// bench_matmul [--quick] [--threads N]
//
// Prints matmul GFLOP/s (median of repetitions, CV) for FP32 Eigen, FP32
// oneDNN, BF16 oneDNN (native or emulated) and FP16 (emulated) over square
// and MLP 784-1024-1024-10 training shapes as % of the machine's peak, and
// the 16-bit / FP32 ratios of the same run.
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

// Side by side from the same run: each oneDNN 16-bit row over the oneDNN
// FP32 row of the same shape (rows come in Eigen?, f32, bf16, f16 order).
void printRatios(const std::vector<bench::MatmulResult>& results) {
  std::printf("\nSame run, same shape: oneDNN BF16 and FP16 GFLOP/s over oneDNN FP32\n");
  const bench::MatmulResult* f32 = nullptr;
  for (const bench::MatmulResult& r : results) {
    if (r.backend != kernels::Backend::OneDnn)
      continue;
    if (r.dtype == DType::F32) {
      f32 = &r;
      continue;
    }
    if (f32 && f32->m == r.m && f32->n == r.n && f32->k == r.k && f32->gflops > 0)
      std::printf("  %-22s %5lldx%-5lldx%-5lld %-4s %.2fx%s\n", r.label.c_str(),
                  static_cast<long long>(r.m), static_cast<long long>(r.n),
                  static_cast<long long>(r.k), std::string(dtypeName(r.dtype)).c_str(),
                  r.gflops / f32->gflops, r.emulated ? " (emulated)" : "");
  }
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

  bench::MatmulBenchOptions options =
      quick ? bench::MatmulBenchOptions::quick() : bench::MatmulBenchOptions{};
  options.threads = threads;
  options.progress = [](double fraction, std::string_view what) {
    std::fprintf(stderr, "\r[%3.0f%%] %-60.*s", fraction * 100, int(what.size()), what.data());
    return true;
  };

  // GOMP spins while waiting by default; on a loaded machine that starves
  // small products (OMP_WAIT_POLICY=passive avoids it), so say which it was.
  const char* waitPolicy = std::getenv("OMP_WAIT_POLICY");
  std::printf("CPU: %s\nISA: %s\noneDNN %s (%s), OpenMP threads: %d%s, OMP_WAIT_POLICY=%s\n",
              numeric::cpuFeatures().modelName.c_str(), numeric::describeIsa().c_str(),
              numeric::onednnVersion().c_str(), numeric::onednnIsa().c_str(),
              threads > 0 ? threads : bench::matmulThreads(), threads > 0 ? " (pinned)" : "",
              waitPolicy ? waitPolicy : "(unset: spin, then sleep)");
  std::printf("Method: %d warm-up, %d timed samples of >= %.0f ms; GFLOP/s = 2MNK / time, median; "
              "CV = stddev / mean of the samples\n\n",
              options.warmup, options.repetitions, options.minSampleSeconds * 1e3);

  bench::PeakOptions peakOptions;
  peakOptions.threads = threads;
  peakOptions.size = quick ? 1024 : 2048;
  peakOptions.repetitions = quick ? 3 : 5;
  const bench::PeakEstimate peak = bench::estimatePeak(peakOptions);
  const std::vector<bench::MatmulResult> results = bench::measureMatmuls(options);
  std::fprintf(stderr, "\r%70s\r", "");

  std::printf("%-22s %-7s %-5s %5s %5s %5s %2s %9s %6s %6s  %s\n", "shape", "backend", "dtype", "M",
              "N", "K", "op", "GFLOP/s", "CV", "%peak", "implementation");
  bool noisy = false;
  for (const bench::MatmulResult& r : results) {
    const double limit = r.dtype == DType::BF16 ? peak.bf16Gflops : peak.fp32Gflops;
    std::printf("%-22s %-7s %-5s %5lld %5lld %5lld %2s %9.1f %5.1f%% %5.1f%%  %s\n",
                r.label.c_str(), std::string(kernels::backendName(r.backend)).c_str(),
                std::string(dtypeName(r.dtype)).c_str(), static_cast<long long>(r.m),
                static_cast<long long>(r.n), static_cast<long long>(r.k),
                transText(r.transSrc, r.transWeights), r.gflops, r.cv * 100,
                limit > 0 ? 100 * r.gflops / limit : 0.0, r.implementation.c_str());
    noisy = noisy || r.cv > 0.10;
  }
  if (noisy)
    std::printf(
        "\nNote: some rows have CV > 10%%: the machine was busy; compare ratios with care.\n");
  printRatios(results);

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
