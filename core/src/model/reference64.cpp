// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The FP64 references' shared parts: the double GEMM, GELU, the loss, the
// named tensors and parameters, and makeFp64Reference.
#include "reference64.h"

#include <mantissa/model/model_registry.h>

#include <algorithm>
#include <cmath>
#include <omp.h>
#include <stdexcept>
#include <string>
#include <utility>

namespace mantissa::model {

std::unique_ptr<ShadowReference> makeFp64Reference(const Network& model) {
  const ModelKind& kind = modelKind(model.specString());
  if (!kind.fp64Reference)
    throw std::invalid_argument("shadow: model " + model.specString() + " (" + kind.noun +
                                ") has no FP64 reference; choose --shadow fp32");
  return kind.fp64Reference(model);
}

} // namespace mantissa::model

namespace mantissa::model::ref64 {

namespace {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) &&                            \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#if defined(__clang__)
#define MANTISSA_REF64_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define MANTISSA_REF64_CLONES                                                                      \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
#else
#define MANTISSA_REF64_CLONES
#endif

// Register block of the kernel: MR rows by NR columns of C, over KB values of K at a time.
constexpr int kMR = 4;
constexpr int kNR = 32;
constexpr int kKB = 256;

// Rows [i0, i1) of C[M,N] = op(A)[M,K] . B[K,N] (+ C), row-major; op(A)
// is A [M, lda] or, TA, A [K, lda] read transposed (no copy: the kernel
// reads one value of A per row and k either way).
template <bool TA>
[[gnu::always_inline]] inline void
kernelBody(int i0, int i1, int N, int K, const double* __restrict A, int lda,
           const double* __restrict B, int ldb, double* __restrict C, int ldc, bool accumulate) {
  const auto at = [&](int i, int k) {
    return TA ? A[std::size_t(k) * lda + i] : A[std::size_t(i) * lda + k];
  };
  if (K == 0) {
    if (!accumulate)
      for (int i = i0; i < i1; ++i)
        std::fill(C + std::size_t(i) * ldc, C + std::size_t(i) * ldc + N, 0.0);
    return;
  }
  for (int k0 = 0; k0 < K; k0 += kKB) {
    const int k1 = std::min(K, k0 + kKB);
    const bool load = accumulate || k0 > 0;
    int i = i0;
    for (; i + kMR <= i1; i += kMR) {
      int j = 0;
      for (; j + kNR <= N; j += kNR) {
        double acc[kMR][kNR];
        for (int r = 0; r < kMR; ++r)
          for (int c = 0; c < kNR; ++c)
            acc[r][c] = load ? C[std::size_t(i + r) * ldc + j + c] : 0.0;
        for (int k = k0; k < k1; ++k) {
          const double* b = B + std::size_t(k) * ldb + j;
          for (int r = 0; r < kMR; ++r) {
            const double a = at(i + r, k);
            for (int c = 0; c < kNR; ++c)
              acc[r][c] += a * b[c];
          }
        }
        for (int r = 0; r < kMR; ++r)
          for (int c = 0; c < kNR; ++c)
            C[std::size_t(i + r) * ldc + j + c] = acc[r][c];
      }
      if (j < N) {
        const int w = N - j;
        double acc[kMR][kNR];
        for (int r = 0; r < kMR; ++r)
          for (int c = 0; c < w; ++c)
            acc[r][c] = load ? C[std::size_t(i + r) * ldc + j + c] : 0.0;
        for (int k = k0; k < k1; ++k) {
          const double* b = B + std::size_t(k) * ldb + j;
          for (int r = 0; r < kMR; ++r) {
            const double a = at(i + r, k);
            for (int c = 0; c < w; ++c)
              acc[r][c] += a * b[c];
          }
        }
        for (int r = 0; r < kMR; ++r)
          for (int c = 0; c < w; ++c)
            C[std::size_t(i + r) * ldc + j + c] = acc[r][c];
      }
    }
    for (; i < i1; ++i) {
      double* c = C + std::size_t(i) * ldc;
      if (!load)
        std::fill(c, c + N, 0.0);
      for (int k = k0; k < k1; ++k) {
        const double a = at(i, k);
        const double* b = B + std::size_t(k) * ldb;
        for (int n = 0; n < N; ++n)
          c[n] += a * b[n];
      }
    }
  }
}

MANTISSA_REF64_CLONES void kernelRowsN(int i0, int i1, int N, int K, const double* A, int lda,
                                       const double* B, int ldb, double* C, int ldc,
                                       bool accumulate) {
  kernelBody<false>(i0, i1, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

MANTISSA_REF64_CLONES void kernelRowsT(int i0, int i1, int N, int K, const double* A, int lda,
                                       const double* B, int ldb, double* C, int ldc,
                                       bool accumulate) {
  kernelBody<true>(i0, i1, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

void kernelRows(bool transA, int i0, int i1, int N, int K, const double* A, int lda,
                const double* B, int ldb, double* C, int ldc, bool accumulate) {
  if (transA)
    kernelRowsT(i0, i1, N, K, A, lda, B, ldb, C, ldc, accumulate);
  else
    kernelRowsN(i0, i1, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

// dst[cols, rows] = src[rows, cols] (leading dimension ld), in tiles.
void transpose(const double* src, int rows, int cols, int ld, double* dst) {
  constexpr int kTile = 32;
  for (int r0 = 0; r0 < rows; r0 += kTile)
    for (int c0 = 0; c0 < cols; c0 += kTile) {
      const int r1 = std::min(rows, r0 + kTile), c1 = std::min(cols, c0 + kTile);
      for (int r = r0; r < r1; ++r)
        for (int c = c0; c < c1; ++c)
          dst[std::size_t(c) * rows + r] = src[std::size_t(r) * ld + c];
    }
}

// Products smaller than this (multiply-adds) stay on the calling thread.
constexpr double kParallelMinMacs = 1 << 20;

} // namespace

int threads() {
  return std::max(1, omp_get_max_threads());
}

namespace {

// A . B^T with B larger than A and C: computed as C^T = B . A^T, which
// transposes the two small operands instead of the large one.
bool swapped(bool transA, bool transB, int M, int N, int K) {
  return transB && !transA && std::size_t(N) * K > std::size_t(M) * K + std::size_t(M) * N;
}

// Rows [0, M) of C = A . B (+ C) over the team when large enough.
void kernel(bool transA, int M, int N, int K, const double* A, int lda, const double* B, int ldb,
            double* C, int ldc, bool accumulate, bool parallel) {
  int team = 1;
  const double macs = double(M) * N * K;
  if (parallel && omp_in_parallel() == 0 && macs >= 2 * kParallelMinMacs && M >= 2 * kMR)
    team = std::min(threads(), std::max(1, int(macs / kParallelMinMacs)));
  if (team <= 1) {
    kernelRows(transA, 0, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
    return;
  }
#pragma omp parallel num_threads(team)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int blocks = (M + kMR - 1) / kMR;
    const int i0 = std::min(M, blocks * t / nt * kMR);
    const int i1 = std::min(M, blocks * (t + 1) / nt * kMR);
    if (i0 < i1)
      kernelRows(transA, i0, i1, N, K, A, lda, B, ldb, C, ldc, accumulate);
  }
}

} // namespace

void parallelFor(int n, IndexFn fn, void* context, int maxThreads) {
  const int team = std::min({threads(), maxThreads, n});
  if (team <= 1 || omp_in_parallel() != 0) {
    for (int i = 0; i < n; ++i)
      fn(context, 0, i);
    return;
  }
#pragma omp parallel for num_threads(team) schedule(static)
  for (int i = 0; i < n; ++i)
    fn(context, omp_get_thread_num(), i);
}

std::size_t gemmScratch(bool transA, bool transB, int M, int N, int K) {
  if (swapped(transA, transB, M, N, K))
    return std::size_t(M) * K + std::size_t(M) * N;
  return transB ? std::size_t(K) * N : 0;
}

void gemm(bool transA, bool transB, int M, int N, int K, const double* A, int lda, const double* B,
          int ldb, double* C, int ldc, bool accumulate, std::span<double> scratch, bool parallel) {
  const std::size_t need = gemmScratch(transA, transB, M, N, K);
  if (scratch.size() < need)
    throw std::logic_error("FP64 reference: GEMM scratch of " + std::to_string(scratch.size()) +
                           " values, " + std::to_string(need) + " needed");
  double* s = scratch.data();
  if (swapped(transA, transB, M, N, K)) {
    double* at = s;                      // [K, M]
    double* ct = s + std::size_t(M) * K; // [N, M]
    transpose(A, M, K, lda, at);
    kernel(false, N, M, K, B, ldb, at, M, ct, M, false, parallel);
    for (int m = 0; m < M; ++m) {
      double* c = C + std::size_t(m) * ldc;
      if (accumulate)
        for (int n = 0; n < N; ++n)
          c[n] += ct[std::size_t(n) * M + m];
      else
        for (int n = 0; n < N; ++n)
          c[n] = ct[std::size_t(n) * M + m];
    }
    return;
  }
  if (transB) {
    transpose(B, N, K, ldb, s); // B stored [N, K]
    B = s;
    ldb = N;
  }
  kernel(transA, M, N, K, A, lda, B, ldb, C, ldc, accumulate, parallel);
}

namespace {
constexpr double kSqrt2OverPi = 0.79788456080286535588; // sqrt(2 / pi)
constexpr double kGeluCubic = 0.044715;
} // namespace

double geluSigmoid(double x) {
  // 0.5 (1 + tanh(a)) = 1 / (1 + exp(-2a)): no cancellation where tanh(a) is near -1.
  return 1.0 / (1.0 + std::exp(-2.0 * kSqrt2OverPi * (x + kGeluCubic * x * x * x)));
}

double gelu(double x) {
  return x * geluSigmoid(x);
}

double geluGradFrom(double x, double s) {
  return s + 2.0 * x * s * (1.0 - s) * kSqrt2OverPi * (1.0 + 3.0 * kGeluCubic * x * x);
}

double geluGrad(double x) {
  return geluGradFrom(x, geluSigmoid(x));
}

double softmaxXent(const double* logits, const std::int32_t* labels, int rows, int classes,
                   double* dlogits) {
  double total = 0.0;
  for (int n = 0; n < rows; ++n) {
    const double* z = logits + std::size_t(n) * classes;
    double* d = dlogits + std::size_t(n) * classes;
    const double mx = *std::max_element(z, z + classes);
    double sum = 0.0;
    for (int c = 0; c < classes; ++c)
      sum += (d[c] = std::exp(z[c] - mx));
    const int y = labels[n];
    total += std::log(sum) + mx - z[y];
    for (int c = 0; c < classes; ++c)
      d[c] = (d[c] / sum - (c == y ? 1.0 : 0.0)) / rows;
  }
  return total / rows;
}

double* TensorStore::add(const std::string& name, std::size_t count) {
  if (m_index.count(name) != 0)
    throw std::logic_error("FP64 reference: tensor '" + name + "' twice");
  m_index.emplace(name, m_values.size());
  m_values.emplace_back(count, 0.0);
  return m_values.back().data();
}

std::span<double> TensorStore::get(std::string_view name) {
  const auto it = m_index.find(name);
  if (it == m_index.end())
    throw std::invalid_argument("FP64 reference: no tensor or parameter named '" +
                                std::string(name) + "'");
  return m_values[it->second];
}

std::span<const double> TensorStore::find(std::string_view name) const {
  const auto it = m_index.find(name);
  if (it == m_index.end())
    return {};
  return m_values[it->second];
}

void loadParameters(std::span<Param> params, std::span<const Parameter> run) {
  for (Param& p : params) {
    const Parameter* found = nullptr;
    for (const Parameter& q : run)
      if (q.name == p.name) {
        found = &q;
        break;
      }
    if (found == nullptr || found->value == nullptr)
      throw std::invalid_argument("FP64 reference: the run has no parameter '" + p.name + "'");
    const auto values = std::as_const(*found->value).f32();
    if (values.size() != p.value.size())
      throw std::invalid_argument("FP64 reference: parameter '" + p.name + "' has " +
                                  std::to_string(values.size()) + " values, the model needs " +
                                  std::to_string(p.value.size()));
    std::copy(values.begin(), values.end(), p.value.begin());
  }
}

void checkIds(std::span<const std::int32_t> ids, std::size_t count, int classes,
              const char* field) {
  if (ids.size() != count)
    throw std::invalid_argument(std::string("FP64 reference: the batch's ") + field + " hold " +
                                std::to_string(ids.size()) + " values, the model reads " +
                                std::to_string(count));
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= classes)
      throw std::invalid_argument(std::string("FP64 reference: ") + field + "[" +
                                  std::to_string(i) + "] = " + std::to_string(ids[i]) +
                                  " is outside [0, " + std::to_string(classes) + ")");
}

void Reference64::run(const ShadowBatch& batch) {
  loadParameters(params(), batch.parameters);
  loadBatch(batch);
  m_perturb = {};
  m_loss = forward();
  backward();
}

double Reference64::perturbedLoss(std::string_view name, std::size_t index, double delta) {
  for (Param& p : params())
    if (p.name == name) {
      if (index >= p.value.size())
        throw std::invalid_argument("FP64 reference: index " + std::to_string(index) +
                                    " is outside parameter '" + p.name + "'");
      const double old = p.value[index];
      p.value[index] = old + delta;
      const double loss = forward();
      p.value[index] = old;
      return loss;
    }
  const auto t = m_store.get(name);
  if (index >= t.size())
    throw std::invalid_argument("FP64 reference: index " + std::to_string(index) +
                                " is outside tensor '" + std::string(name) + "'");
  m_perturb = {t.data(), index, delta};
  const double loss = forward();
  m_perturb = {};
  return loss;
}

} // namespace mantissa::model::ref64
