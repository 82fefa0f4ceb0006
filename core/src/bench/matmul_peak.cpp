// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The machine's limit, two ways: measured (a large square matmul, the best
// this library reaches) and theoretical (FLOP/cycle/core x cores x clock).
#include "matmul_timing.h"

#include <mantissa/bench/matmul_bench.h>
#include <mantissa/numeric/cpu_features.h>

#include <cstdio>
#include <fstream>
#include <omp.h>
#include <set>
#include <string>
#include <thread>
#include <utility>

namespace mantissa::bench {
namespace {

struct CpuTopology {
  int cores = 0;  // physical cores (distinct physical id / core id pairs)
  double mhz = 0; // "cpu MHz" of the first processor: the clock when read
};

CpuTopology readCpuinfo() {
  CpuTopology t;
  std::ifstream in("/proc/cpuinfo");
  std::set<std::pair<std::string, std::string>> cores;
  std::string physical;
  int processors = 0;
  auto value = [](const std::string& line) {
    const auto colon = line.find(':');
    return colon == std::string::npos ? std::string() : line.substr(colon + 1);
  };
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("processor", 0) == 0)
      ++processors;
    else if (line.rfind("physical id", 0) == 0)
      physical = value(line);
    else if (line.rfind("core id", 0) == 0)
      cores.insert({physical, value(line)});
    else if (line.rfind("cpu MHz", 0) == 0 && t.mhz == 0)
      t.mhz = std::atof(value(line).c_str());
  }
  t.cores = !cores.empty()   ? int(cores.size())
            : processors > 0 ? processors
                             : int(std::thread::hardware_concurrency());
  return t;
}

std::string fixed(double v, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

} // namespace

IsaRate isaRate(bool avx2Fma, bool avx512f, bool avx512bf16, bool amxBf16) {
  IsaRate r;
  if (avx512f) {
    r.fp32FlopsPerCycle = 64; // 2 FMA pipes x 16 lanes x 2
    r.basis = "AVX-512 FMA: 64 FP32 FLOP/cycle/core (assumes 2 FMA pipes)";
  } else if (avx2Fma) {
    r.fp32FlopsPerCycle = 32; // 2 FMA pipes x 8 lanes x 2
    r.basis = "AVX2 FMA: 32 FP32 FLOP/cycle/core (assumes 2 FMA pipes)";
  } else {
    r.basis = "no AVX2/FMA: no theoretical rate assumed";
    return r;
  }
  if (amxBf16) {
    r.bf16FlopsPerCycle = 1024; // one 16x32 x 32x16 BF16 tile product per 16 cycles
    r.basis += "; AMX-BF16: 1024 BF16 FLOP/cycle/core";
  } else if (avx512bf16) {
    r.bf16FlopsPerCycle = 2 * r.fp32FlopsPerCycle; // VDPBF16PS: two products per FP32 lane
    r.basis += "; AVX512_BF16: 2x the FP32 rate";
  } else {
    r.bf16FlopsPerCycle = r.fp32FlopsPerCycle;
    r.basis += "; no BF16 instructions: BF16 computes at the FP32 rate";
  }
  return r;
}

double theoreticalGflops(double flopsPerCycle, int cores, double mhz) {
  return flopsPerCycle * double(cores) * mhz * 1e-3;
}

PeakEstimate estimatePeak(const PeakOptions& options) {
  detail::ThreadPin pin(options.threads);
  PeakEstimate peak;
  peak.threads = omp_get_max_threads();
  peak.calibrationSize = options.size;

  // Theoretical: only from what the CPU and the kernel say.
  const numeric::CpuFeatures& cpu = numeric::cpuFeatures();
  const IsaRate rate =
      isaRate(cpu.avx2 && cpu.fma, cpu.avx512f, cpu.avx512bf16, cpu.amxBf16 && cpu.amxTile);
  const CpuTopology topo = readCpuinfo();
  peak.theoreticalBasis = rate.basis;
  if (rate.fp32FlopsPerCycle > 0 && topo.mhz > 0 && topo.cores > 0) {
    peak.fp32Theoretical = theoreticalGflops(rate.fp32FlopsPerCycle, topo.cores, topo.mhz);
    peak.bf16Theoretical = theoreticalGflops(rate.bf16FlopsPerCycle, topo.cores, topo.mhz);
    peak.theoreticalBasis += " x " + std::to_string(topo.cores) + " cores x " + fixed(topo.mhz, 0) +
                             " MHz (/proc/cpuinfo \"cpu MHz\")";
  } else if (topo.mhz <= 0) {
    peak.theoreticalBasis += "; clock unknown (no \"cpu MHz\" in /proc/cpuinfo)";
  }

  // Calibrated: the same code path measureMatmuls times.
  const std::int64_t n = options.size;
  const kernels::MatmulShape shape{n, n, n};
  const DType types[] = {DType::F32, DType::BF16};
  for (std::size_t i = 0; i < 2; ++i) {
    const std::string what =
        std::string(dtypeName(types[i])) + " calibration " + std::to_string(n) + "^3";
    if (options.progress && !options.progress(0.5 * double(i), what))
      break;
    const Tensor src = detail::benchTensor(types[i], n, n, 1);
    const Tensor weights = detail::benchTensor(types[i], n, n, 2);
    Tensor dst(DType::F32, n, n);
    kernels::Matmul matmul(shape, types[i]);
    const detail::Timing t = detail::timeProduct(
        shape.flops(), [&] { matmul.execute(src, weights, dst); }, 1, options.repetitions, 0.0);
    (i == 0 ? peak.fp32Calibrated : peak.bf16Calibrated) = t.gflops;
    if (i == 1)
      peak.bf16Emulated = matmul.emulated();
  }
  if (options.progress)
    options.progress(1.0, "done");

  const std::string calibrated = "calibrated: oneDNN " + std::to_string(n) +
                                 "^3 matmul, median of " + std::to_string(options.repetitions) +
                                 ", " + std::to_string(peak.threads) + " thread(s)";
  if (peak.fp32Theoretical) {
    peak.fp32Gflops = *peak.fp32Theoretical;
    peak.bf16Gflops = *peak.bf16Theoretical;
    peak.fp32Source = peak.bf16Source = "theoretical: " + peak.theoreticalBasis;
  } else {
    peak.fp32Gflops = peak.fp32Calibrated;
    peak.bf16Gflops = peak.bf16Calibrated;
    peak.fp32Source = calibrated;
    peak.bf16Source = calibrated + (peak.bf16Emulated ? " (BF16 emulated)" : "");
  }
  return peak;
}

} // namespace mantissa::bench
