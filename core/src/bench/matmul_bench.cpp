// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "matmul_timing.h"

#include <mantissa/bench/matmul_bench.h>

#include <Eigen/Core>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <omp.h>

namespace mantissa::bench {

using kernels::Backend;
using kernels::Matmul;
using kernels::MatmulShape;
using kernels::Trans;

MatmulBenchOptions MatmulBenchOptions::quick() {
  MatmulBenchOptions o;
  o.squareSizes = {128, 512, 1024};
  o.warmup = 1;
  o.repetitions = 5;
  o.minSampleSeconds = 0.01;
  return o;
}

int matmulThreads() {
  return omp_get_max_threads();
}

SampleStats summarizeSamples(std::span<const double> samples) {
  SampleStats s;
  if (samples.empty())
    return s;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  s.median = n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / double(n);
  double squares = 0;
  for (double v : sorted)
    squares += (v - s.mean) * (v - s.mean);
  s.cv = s.mean != 0 ? std::sqrt(squares / double(n)) / s.mean : 0.0;
  return s;
}

std::vector<LabelledShape> mlpTrainingShapes(std::span<const std::int64_t> widths,
                                             std::int64_t batch) {
  std::vector<LabelledShape> shapes;
  for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
    const std::int64_t in = widths[l], out = widths[l + 1];
    auto label = [l](std::string_view product) {
      std::string text = std::to_string(l + 1);
      text.insert(0, 1, 'L');
      text.append(1, ' ').append(product);
      return text;
    };
    shapes.push_back({label("forward Y=XW"), {batch, out, in}});
    shapes.push_back({label("backward dX=dY W^T"), {batch, in, out, Trans::No, Trans::Yes}});
    shapes.push_back({label("backward dW=X^T dY"), {in, out, batch, Trans::Yes, Trans::No}});
  }
  return shapes;
}

namespace detail {

Timing timeProduct(double flops, const std::function<void()>& product, int warmup, int repetitions,
                   double minSampleSeconds) {
  using Clock = std::chrono::steady_clock;
  double single = 0;
  for (int i = 0; i < std::max(warmup, 1); ++i) {
    const auto t0 = Clock::now();
    product();
    single = std::chrono::duration<double>(Clock::now() - t0).count();
  }
  const int calls = std::max(1, int(std::ceil(minSampleSeconds / std::max(single, 1e-9))));
  std::vector<double> gflops;
  for (int r = 0; r < std::max(repetitions, 1); ++r) {
    const auto t0 = Clock::now();
    for (int c = 0; c < calls; ++c)
      product();
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    gflops.push_back(flops * calls / std::max(seconds, 1e-12) * 1e-9);
  }
  const SampleStats stats = summarizeSamples(gflops);
  return {stats.median, stats.cv};
}

Tensor benchTensor(DType dtype, std::int64_t rows, std::int64_t cols, std::uint32_t seed) {
  Tensor wide(DType::F32, rows, cols);
  std::uint32_t state = seed * 2654435761u + 1u;
  for (float& v : wide.f32()) {
    state = state * 1664525u + 1013904223u; // LCG: values only need to be non-trivial
    v = float(state >> 8) * 0x1p-23f - 1.0f;
  }
  if (dtype == DType::F32)
    return wide;
  Tensor t(dtype, rows, cols);
  t.convertFrom(wide);
  return t;
}

ThreadPin::ThreadPin(int threads) : m_previous(omp_get_max_threads()), m_pinned(threads > 0) {
  if (m_pinned)
    omp_set_num_threads(threads);
}

ThreadPin::~ThreadPin() {
  if (m_pinned)
    omp_set_num_threads(m_previous);
}

} // namespace detail

namespace {

struct Config {
  Backend backend;
  DType dtype;
  LabelledShape what;
  kernels::MatmulPath path = kernels::MatmulPath::Native;
};

std::string describe(const Config& c) {
  const MatmulShape& s = c.what.shape;
  return std::string(dtypeName(c.dtype)) +
         (c.dtype == DType::BF16 && c.path == kernels::MatmulPath::Fp32Compute ? " via fp32" : "") +
         " " + std::string(kernels::backendName(c.backend)) +
         " " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + " (" +
         c.what.label + ")";
}

std::string eigenImplementation() {
  return "eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." +
         std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION) +
         " gemm, " + std::to_string(Eigen::nbThreads()) + " thread(s)";
}

MatmulResult measure(const Config& c, const MatmulBenchOptions& o) {
  const MatmulShape& s = c.what.shape;
  const bool ts = s.transSrc == Trans::Yes, tw = s.transWeights == Trans::Yes;
  const Tensor src = detail::benchTensor(c.dtype, ts ? s.k : s.m, ts ? s.m : s.k, 1);
  const Tensor weights = detail::benchTensor(c.dtype, tw ? s.n : s.k, tw ? s.k : s.n, 2);
  Tensor dst(DType::F32, s.m, s.n);
  MatmulResult r{c.backend,    c.dtype, s.m, s.n,   s.k, s.transSrc, s.transWeights,
                 c.what.label, 0,       0,   false, {},  0};
  detail::Timing t{};
  if (c.backend == Backend::Eigen) {
    r.implementation = eigenImplementation();
    r.threads = Eigen::nbThreads();
    t = detail::timeProduct(
        s.flops(), [&] { kernels::referenceMatmul(s, src, weights, dst); }, o.warmup, o.repetitions,
        o.minSampleSeconds);
  } else {
    Matmul matmul(s, c.dtype, DType::F32, false, c.path);
    r.implementation = matmul.implementation();
    r.emulated = matmul.emulated();
    r.threads = omp_get_max_threads();
    t = detail::timeProduct(
        s.flops(), [&] { matmul.execute(src, weights, dst); }, o.warmup, o.repetitions,
        o.minSampleSeconds);
  }
  r.gflops = t.gflops;
  r.cv = t.cv;
  return r;
}

} // namespace

std::vector<MatmulResult> measureMatmuls(const MatmulBenchOptions& options) {
  detail::ThreadPin pin(options.threads);

  std::vector<LabelledShape> shapes;
  for (std::int64_t n : options.squareSizes)
    shapes.push_back({"square", {n, n, n}});
  if (options.trainingShapes) {
    constexpr std::int64_t kWidths[] = {784, 1024, 1024, 10};
    for (LabelledShape& s : mlpTrainingShapes(kWidths, 128))
      shapes.push_back(std::move(s));
  }
  const bool nativeBf16 =
      !Matmul(MatmulShape{16, 16, 16}, DType::BF16, DType::F32, false, kernels::MatmulPath::Native)
           .emulated();
  std::vector<Config> configs;
  for (const LabelledShape& s : shapes) {
    if (options.eigen)
      configs.push_back({Backend::Eigen, DType::F32, s});
    // BF16 both ways where oneDNN has a native kernel: native, and FP32
    // compute on BF16 storage (the two paths `auto` chooses between).
    configs.push_back({Backend::OneDnn, DType::F32, s});
    configs.push_back({Backend::OneDnn, DType::BF16, s, kernels::MatmulPath::Native});
    if (nativeBf16)
      configs.push_back({Backend::OneDnn, DType::BF16, s, kernels::MatmulPath::Fp32Compute});
    configs.push_back({Backend::OneDnn, DType::F16, s});
  }

  std::vector<MatmulResult> results;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (options.progress &&
        !options.progress(double(i) / double(configs.size()), describe(configs[i])))
      return results;
    results.push_back(measure(configs[i], options));
  }
  if (options.progress)
    options.progress(1.0, "done");
  return results;
}

} // namespace mantissa::bench
