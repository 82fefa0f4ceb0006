// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The matmul benchmark's plumbing, never its speed: statistics on hand-worked
// samples, the theoretical-peak arithmetic, the training shapes, what a run
// reports (one row per backend and dtype, emulated paths labelled), progress
// and cancellation, thread pinning.
#include <mantissa/bench/matmul_bench.h>
#include <mantissa/kernels/matmul.h>

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

using namespace mantissa;
using bench::MatmulBenchOptions;
using kernels::Backend;
using kernels::Trans;

TEST(MatmulBench, SampleStatistics) {
  // mean 22; deviations -21 -20 -19 -18 78; population variance 7610 / 5 = 1522.
  const std::vector<double> odd{4, 1, 100, 3, 2};
  const bench::SampleStats s = bench::summarizeSamples(odd);
  EXPECT_EQ(s.median, 3.0);
  EXPECT_DOUBLE_EQ(s.mean, 22.0);
  EXPECT_NEAR(s.cv, std::sqrt(1522.0) / 22.0, 1e-12);
  const std::vector<double> even{4, 1, 3, 2};
  EXPECT_EQ(bench::summarizeSamples(even).median, 2.5);
  const std::vector<double> same{5, 5, 5};
  EXPECT_EQ(bench::summarizeSamples(same).cv, 0.0);
}

TEST(MatmulBench, TheoreticalRatesPerIsa) {
  EXPECT_EQ(bench::isaRate(true, false, false, false).fp32FlopsPerCycle, 32);
  EXPECT_EQ(bench::isaRate(true, false, false, false).bf16FlopsPerCycle, 32);
  EXPECT_EQ(bench::isaRate(true, true, false, false).fp32FlopsPerCycle, 64);
  EXPECT_EQ(bench::isaRate(true, true, true, false).bf16FlopsPerCycle, 128);
  EXPECT_EQ(bench::isaRate(true, true, true, true).bf16FlopsPerCycle, 1024);
  EXPECT_EQ(bench::isaRate(false, false, false, false).fp32FlopsPerCycle, 0);
  // 32 FLOP/cycle x 2 cores x 2596.142 MHz = 166.153088 GFLOP/s
  EXPECT_NEAR(bench::theoreticalGflops(32, 2, 2596.142), 166.153088, 1e-9);
}

TEST(MatmulBench, MlpTrainingShapes) {
  const std::int64_t widths[] = {784, 1024, 10};
  const auto shapes = bench::mlpTrainingShapes(widths, 128);
  ASSERT_EQ(shapes.size(), 6u);
  auto expect = [&](std::size_t i, std::int64_t m, std::int64_t n, std::int64_t k, Trans ts,
                    Trans tw, const char* label) {
    EXPECT_EQ(shapes[i].shape.m, m) << label;
    EXPECT_EQ(shapes[i].shape.n, n) << label;
    EXPECT_EQ(shapes[i].shape.k, k) << label;
    EXPECT_EQ(shapes[i].shape.transSrc, ts) << label;
    EXPECT_EQ(shapes[i].shape.transWeights, tw) << label;
    EXPECT_EQ(shapes[i].label, label);
  };
  expect(0, 128, 1024, 784, Trans::No, Trans::No, "L1 forward Y=XW");
  expect(1, 128, 784, 1024, Trans::No, Trans::Yes, "L1 backward dX=dY W^T");
  expect(2, 784, 1024, 128, Trans::Yes, Trans::No, "L1 backward dW=X^T dY");
  expect(3, 128, 10, 1024, Trans::No, Trans::No, "L2 forward Y=XW");
  expect(5, 1024, 10, 128, Trans::Yes, Trans::No, "L2 backward dW=X^T dY");
}

MatmulBenchOptions tiny() {
  MatmulBenchOptions o;
  o.squareSizes = {16, 24};
  o.trainingShapes = false;
  o.warmup = 1;
  o.repetitions = 2;
  o.minSampleSeconds = 0;
  return o;
}

// BF16 is measured both ways (native, FP32 compute) where oneDNN has a
// native BF16 kernel, else once (FP32 compute).
bool nativeBf16Kernel() {
  return !kernels::Matmul({8, 8, 8}, DType::BF16, DType::F32, false, kernels::MatmulPath::Native)
              .emulated();
}

TEST(MatmulBench, OneRowPerBackendAndDTypeWithEmulationLabelled) {
  const auto results = bench::measureMatmuls(tiny());
  const std::size_t perShape = nativeBf16Kernel() ? 5 : 4;
  ASSERT_EQ(results.size(), 2 * perShape);
  for (std::size_t i = 0; i < results.size(); ++i) {
    const bench::MatmulResult& r = results[i];
    const std::int64_t n = i < perShape ? 16 : 24;
    EXPECT_EQ(r.m, n);
    EXPECT_EQ(r.k, n);
    EXPECT_EQ(r.label, "square");
    EXPECT_TRUE(std::isfinite(r.gflops) && r.gflops > 0) << r.gflops;
    EXPECT_GE(r.cv, 0.0);
    EXPECT_GE(r.threads, 1);
    const bool labelled = r.implementation.find("(emulated:") != std::string::npos;
    EXPECT_EQ(labelled, r.emulated) << r.implementation;
    if (r.backend == Backend::OneDnn && r.dtype != DType::BF16) {
      const kernels::Matmul probe({n, n, n}, r.dtype);
      EXPECT_EQ(r.emulated, probe.emulated()) << dtypeName(r.dtype);
    }
  }
  EXPECT_EQ(results[0].backend, Backend::Eigen);
  EXPECT_EQ(results[0].dtype, DType::F32);
  EXPECT_FALSE(results[0].emulated);
  EXPECT_EQ(results[1].backend, Backend::OneDnn);
  EXPECT_EQ(results[1].dtype, DType::F32);
  EXPECT_FALSE(results[1].emulated);
  EXPECT_EQ(results[2].dtype, DType::BF16);
  EXPECT_EQ(results[2].emulated, !nativeBf16Kernel()); // the native path first
  if (nativeBf16Kernel()) {
    EXPECT_EQ(results[3].dtype, DType::BF16);
    EXPECT_TRUE(results[3].emulated); // then FP32 compute on BF16 storage
  }
  EXPECT_EQ(results[perShape - 1].dtype, DType::F16);
}

TEST(MatmulBench, TrainingShapesFollowTheSquares) {
  MatmulBenchOptions o = tiny();
  o.squareSizes = {};
  o.trainingShapes = true;
  o.repetitions = 1;
  o.eigen = false;
  const auto results = bench::measureMatmuls(o);
  // 3 layers x 3 products x (f32, bf16 [x2 with a native kernel], f16)
  ASSERT_EQ(results.size(), 9u * (nativeBf16Kernel() ? 4u : 3u));
  EXPECT_EQ(results.front().label, "L1 forward Y=XW");
  EXPECT_EQ(results.back().label, "L3 backward dW=X^T dY");
  EXPECT_EQ(results.back().dtype, DType::F16);
}

TEST(MatmulBench, ProgressRisesToDoneAndFalseCancels) {
  MatmulBenchOptions o = tiny();
  std::vector<double> fractions;
  std::string last;
  o.progress = [&](double f, std::string_view what) {
    fractions.push_back(f);
    last = what;
    return true;
  };
  bench::measureMatmuls(o);
  const std::size_t rows = nativeBf16Kernel() ? 10 : 8;
  ASSERT_EQ(fractions.size(), rows + 1); // before each row, then done
  for (std::size_t i = 1; i < fractions.size(); ++i)
    EXPECT_GT(fractions[i], fractions[i - 1]);
  EXPECT_EQ(fractions.front(), 0.0);
  EXPECT_EQ(fractions.back(), 1.0);
  EXPECT_EQ(last, "done");

  int calls = 0;
  o.progress = [&](double, std::string_view) { return ++calls < 3; };
  EXPECT_EQ(bench::measureMatmuls(o).size(), 2u);
}

TEST(MatmulBench, PeakSaysWhereItsNumbersCameFrom) {
  bench::PeakOptions o;
  o.size = 64;
  o.repetitions = 1;
  const bench::PeakEstimate p = bench::estimatePeak(o);
  EXPECT_GT(p.fp32Calibrated, 0);
  EXPECT_GT(p.bf16Calibrated, 0);
  EXPECT_EQ(p.calibrationSize, 64);
  EXPECT_EQ(p.bf16Emulated, kernels::Matmul({64, 64, 64}, DType::BF16).emulated());
  if (p.fp32Theoretical) {
    EXPECT_EQ(p.fp32Gflops, *p.fp32Theoretical);
    EXPECT_EQ(p.fp32Source.rfind("theoretical:", 0), 0u) << p.fp32Source;
    EXPECT_NE(p.theoreticalBasis.find("cpu MHz"), std::string::npos) << p.theoreticalBasis;
  } else {
    EXPECT_EQ(p.fp32Gflops, p.fp32Calibrated);
    EXPECT_EQ(p.fp32Source.rfind("calibrated:", 0), 0u) << p.fp32Source;
  }
}

TEST(MatmulBench, ThreadsArePinnedForTheRunAndRestored) {
  const int before = bench::matmulThreads();
  bench::PeakOptions o;
  o.size = 32;
  o.repetitions = 1;
  o.threads = 1;
  EXPECT_EQ(bench::estimatePeak(o).threads, 1);
  EXPECT_EQ(bench::matmulThreads(), before);
  MatmulBenchOptions m = tiny();
  m.threads = 1;
  for (const auto& r : bench::measureMatmuls(m))
    EXPECT_EQ(r.threads, 1) << kernels::backendName(r.backend);
}

} // namespace
