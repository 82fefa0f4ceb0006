// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Matmul throughput on this machine, and the machine's own limit.
//
// Shared by `mantissa-cli bench`, the GUI Speed panel and tests/bench/bench_matmul.
// Method: every configuration is built once (primitive, tensors), executed
// `warmup` times untimed, then timed in `repetitions` samples; a sample runs
// the product as many times as fit in about `minSampleSeconds` so short
// products are not dominated by clock resolution. Reported: the median of
// the samples' GFLOP/s and their coefficient of variation (stddev / mean).
// GFLOP/s counts 2*M*N*K per product, whatever the dtype; BF16/F16 timings
// include, where emulated, the conversions that emulation costs.
//
// Legend: M, N, K as in kernels/matmul.h (dst[M,N] = op(src)[M,K] x op(weights)[K,N]).

#include <mantissa/kernels/matmul.h>
#include <mantissa/tensor/dtype.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::bench {

// Called between measurements with the fraction done (0..1) and what runs
// next; return false to cancel (the functions return what they measured).
using ProgressCallback = std::function<bool(double fraction, std::string_view what)>;

struct MatmulBenchOptions {
  std::vector<std::int64_t> squareSizes{128, 256, 512, 1024}; // M = N = K
  bool trainingShapes = true; // MLP 784-1024-1024-10, batch 128: forward, dX and dW per layer
  bool eigen = true;          // include the FP32 Eigen baseline
  int warmup = 2;
  int repetitions = 7;
  double minSampleSeconds = 0.02;
  int threads = 0; // > 0: pin OpenMP (and so oneDNN) to this many threads; 0: leave as is
  ProgressCallback progress;

  // Fewer sizes and samples: the whole matmul sweep in a few seconds.
  static MatmulBenchOptions quick();
};

struct MatmulResult {
  kernels::Backend backend;
  DType dtype; // of src and weights; dst is FP32
  std::int64_t m, n, k;
  kernels::Trans transSrc, transWeights;
  std::string label;          // "square", "L1 forward Y=XW", "L2 backward dW=X^T dY", ...
  double gflops;              // median over repetitions
  double cv;                  // coefficient of variation of the samples (0.05 = 5 %)
  bool emulated;              // 16-bit storage computed in FP32 (no native kernel here)
  std::string implementation; // oneDNN implementation name, or "eigen ..."
  int threads;                // threads the backend used
};

// The training products of an MLP (widths w0-w1-...-wL) at one batch size:
// per layer l, forward Y[B,out] = X[B,in] W[in,out], then dX = dY W^T and
// dW = X^T dY. Returns {label, shape}.
struct LabelledShape {
  std::string label;
  kernels::MatmulShape shape;
};
std::vector<LabelledShape> mlpTrainingShapes(std::span<const std::int64_t> widths,
                                             std::int64_t batch);

// FP32 Eigen (if enabled), FP32 oneDNN, BF16 oneDNN native and (where a
// native kernel exists) BF16 via FP32 compute, and F16 oneDNN (FP32 compute)
// over the square sizes, then over the training shapes. Paths are forced,
// whatever kernels::matmulPath() says, so both are always measured.
std::vector<MatmulResult> measureMatmuls(const MatmulBenchOptions& options);

struct PeakEstimate {
  // The figure to call "peak": theoretical where it could be computed,
  // otherwise the calibrated one; *Source says which.
  double fp32Gflops = 0;
  double bf16Gflops = 0;
  std::string fp32Source;
  std::string bf16Source;

  // Calibrated: median GFLOP/s of a large square oneDNN matmul (BF16 through
  // the same path measureMatmuls uses, so emulated where it is).
  double fp32Calibrated = 0;
  double bf16Calibrated = 0;
  std::int64_t calibrationSize = 0;
  bool bf16Emulated = false;

  // Theoretical: FLOP/cycle/core (from the ISA) x cores x clock ("cpu MHz"
  // of /proc/cpuinfo); nullopt when the clock or ISA cannot be read.
  std::optional<double> fp32Theoretical;
  std::optional<double> bf16Theoretical;
  std::string theoreticalBasis; // how it was computed, or why it could not be
  int threads = 0;              // OpenMP threads of the calibration run
};

struct PeakOptions {
  std::int64_t size = 2048; // M = N = K of the calibration product
  int repetitions = 5;
  int threads = 0; // as MatmulBenchOptions::threads
  ProgressCallback progress;
};
PeakEstimate estimatePeak(const PeakOptions& options = {});

// Pure part of the theoretical peak: FP32 and BF16 FLOP per cycle per core
// for an ISA, and the product. `basis` describes the assumption.
struct IsaRate {
  double fp32FlopsPerCycle = 0;
  double bf16FlopsPerCycle = 0;
  std::string basis;
};
IsaRate isaRate(bool avx2Fma, bool avx512f, bool avx512bf16, bool amxBf16);
double theoreticalGflops(double flopsPerCycle, int cores, double mhz);

// Threads oneDNN's OpenMP runtime will use (omp_get_max_threads()).
int matmulThreads();

// Median, mean and coefficient of variation (population stddev / mean).
struct SampleStats {
  double median = 0;
  double mean = 0;
  double cv = 0;
};
SampleStats summarizeSamples(std::span<const double> samples);

} // namespace mantissa::bench
