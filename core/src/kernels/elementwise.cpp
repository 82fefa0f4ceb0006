// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/kernels/elementwise.h>
#include <mantissa/numeric/convert.h>

#include <algorithm>
#include <omp.h>
#include <stdexcept>
#include <string>

// Loops built for AVX-512, AVX2 and baseline x86-64; the loader picks the one
// the CPU runs (function multiversioning, dispatched on CPUID). None of these
// targets enables FMA, so no multiply-add is contracted and every clone
// rounds alike.
// Not under ASan or TSan: the loader runs the clones' resolver before the
// sanitizer's runtime is set up (under TSan the instrumented resolver crashes).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) &&                            \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define MANTISSA_KERNEL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define MANTISSA_KERNEL_CLONES
#endif

namespace mantissa::kernels {
namespace {

std::string text(const Tensor& t) {
  return std::string(dtypeName(t.dtype())) + "[" + std::to_string(t.rows()) + ", " +
         std::to_string(t.cols()) + "]";
}

// bias must be F32 with N elements laid out as one row or one column.
void checkBias(const char* who, const char* name, const Tensor& matrix, const Tensor& bias) {
  const bool vector = bias.rows() == 1 || bias.cols() == 1;
  if (matrix.dtype() != DType::F32 || bias.dtype() != DType::F32 || !vector ||
      bias.size() != matrix.cols())
    throw std::invalid_argument(std::string(who) + ": " + name + " " + text(bias) +
                                " does not fit matrix " + text(matrix) + " (need f32[1, " +
                                std::to_string(matrix.cols()) + "] and an f32 matrix)");
}

// fn over pieces of [0, n) (starts at multiples of 64), one per thread, for
// `work` values in all: one thread per minWork values of work
// (kParallelMinValues when 0).
void forPieces(std::size_t n, std::size_t work, ChunkFn fn, void* context,
               std::size_t minWork = 0) {
  if (n == 0)
    return;
  if (minWork == 0)
    minWork = kParallelMinValues;
  int threads = 1;
  if (work >= 2 * minWork && n > 64 && omp_in_parallel() == 0)
    threads = static_cast<int>(std::min<std::size_t>(
        work / minWork, static_cast<std::size_t>(std::max(1, omp_get_max_threads()))));
  if (threads <= 1) {
    fn(context, 0, n);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const auto nt = static_cast<std::size_t>(omp_get_num_threads());
    const auto edge = [&](std::size_t k) { return k >= nt ? n : (n * k / nt) & ~std::size_t{63}; };
    const std::size_t begin = edge(t), end = edge(t + 1);
    if (begin < end)
      fn(context, begin, end);
  }
}

MANTISSA_KERNEL_CLONES void columnSums(const float* __restrict g, float* __restrict db,
                                       std::int64_t rows, std::int64_t cols, std::int64_t c0,
                                       std::int64_t c1, bool accumulate) {
  if (!accumulate)
    for (std::int64_t c = c0; c < c1; ++c)
      db[c] = 0.0f;
  // Row by row: contiguous loads, and each column is summed in row order.
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* __restrict row = g + r * cols;
    for (std::int64_t c = c0; c < c1; ++c)
      db[c] += row[c];
  }
}

} // namespace

void forChunks(std::size_t n, ChunkFn fn, void* context) {
  forPieces(n, n, fn, context);
}

void addBias(Tensor& dst, const Tensor& bias, std::size_t minValuesPerThread) {
  checkBias("addBias", "bias", dst, bias);
  const std::int64_t rows = dst.rows();
  const std::int64_t cols = dst.cols();
  float* d = dst.data<float>();
  const float* b = bias.data<float>();
  // Rows split between the threads when large.
  auto piece = [&](std::size_t r0, std::size_t r1) {
    for (std::size_t r = r0; r < r1; ++r) {
      float* __restrict row = d + static_cast<std::int64_t>(r) * cols;
      const float* __restrict bb = b;
      for (std::int64_t c = 0; c < cols; ++c)
        row[c] += bb[c];
    }
  };
  using Piece = decltype(piece);
  forPieces(
      static_cast<std::size_t>(rows), static_cast<std::size_t>(rows * cols),
      [](void* c, std::size_t b0, std::size_t e) { (*static_cast<Piece*>(c))(b0, e); }, &piece,
      minValuesPerThread);
}

void biasGradient(const Tensor& dY, Tensor& dBias, bool accumulate,
                  std::size_t minValuesPerThread) {
  checkBias("biasGradient", "dBias", dY, dBias);
  const std::int64_t rows = dY.rows();
  const std::int64_t cols = dY.cols();
  const float* g = dY.data<float>();
  float* db = dBias.data<float>();
  auto piece = [&](std::size_t c0, std::size_t c1) {
    columnSums(g, db, rows, cols, static_cast<std::int64_t>(c0), static_cast<std::int64_t>(c1),
               accumulate);
  };
  using Piece = decltype(piece);
  forPieces(
      static_cast<std::size_t>(cols), static_cast<std::size_t>(rows * cols),
      [](void* c, std::size_t b, std::size_t e) { (*static_cast<Piece*>(c))(b, e); }, &piece,
      minValuesPerThread);
}

void convertParallel(const Tensor& src, Tensor& dst) {
  if (src.rows() != dst.rows() || src.cols() != dst.cols())
    throw std::invalid_argument("convertParallel: shape mismatch, source " + text(src) +
                                " vs destination " + text(dst));
  const DType from = src.dtype(), to = dst.dtype();
  const bool narrowing = from == DType::F32 && (to == DType::BF16 || to == DType::F16);
  const bool widening = to == DType::F32 && (from == DType::BF16 || from == DType::F16);
  if (!narrowing && !widening) {
    dst.convertFrom(src);
    return;
  }
  forChunks(static_cast<std::size_t>(src.size()), [&](std::size_t b, std::size_t e) {
    const std::size_t n = e - b;
    if (narrowing) {
      const auto in = src.f32().subspan(b, n);
      const auto out = dst.u16().subspan(b, n);
      if (to == DType::BF16)
        numeric::convertF32ToBf16(in, out);
      else
        numeric::convertF32ToF16(in, out);
    } else {
      const auto in = src.u16().subspan(b, n);
      const auto out = dst.f32().subspan(b, n);
      if (from == DType::BF16)
        numeric::convertBf16ToF32(in, out);
      else
        numeric::convertF16ToF32(in, out);
    }
  });
}

void roundToParallel(DType dtype, std::span<float> values) {
  if (dtype != DType::BF16 && dtype != DType::F16)
    return;
  forChunks(values.size(), [&](std::size_t b, std::size_t e) {
    if (dtype == DType::BF16)
      numeric::roundTripBf16(values.subspan(b, e - b));
    else
      numeric::roundTripF16(values.subspan(b, e - b));
  });
}

} // namespace mantissa::kernels
