// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Elementwise kernels beside the matmul of a linear layer, FP32 only.
// Plain loops over contiguous rows that the compiler vectorises; the
// row-major order keeps the summation order fixed, so results are
// bit-reproducible run to run.
//
// Large tensors are cut into contiguous pieces for the calling thread's
// OpenMP team (oneDNN's threads, idle between products). Every value is
// computed by the same operations in the same order whatever the cut, so the
// results do not depend on the number of threads.
//
// Legend: M rows (batch), N columns (features).

#include <mantissa/tensor/dtype.h>
#include <mantissa/tensor/tensor.h>

#include <cstddef>
#include <span>
#include <type_traits>

namespace mantissa::kernels {

// dst[M,N] += bias[1,N] broadcast over rows (bias also accepted as [N,1]).
// Throws std::invalid_argument if a tensor is not F32 or the shapes differ.
// Rows are split between the OpenMP threads when each gets at least
// minValuesPerThread values (the default: kParallelMinValues).
void addBias(Tensor& dst, const Tensor& bias, std::size_t minValuesPerThread = 0);

// dBias[1,N] (+)= sum over rows of dY[M,N] (column sums, FP32, rows in
// order 0..M-1). With accumulate the sums are added to dBias's contents
// (gradient accumulation); otherwise they overwrite it. Large matrices are
// split by columns, so each column is still summed in row order; as for
// addBias, each thread gets at least minValuesPerThread values.
void biasGradient(const Tensor& dY, Tensor& dBias, bool accumulate = false,
                  std::size_t minValuesPerThread = 0);

// Calls fn(begin, end) for contiguous pieces [begin, end) covering [0, n),
// on up to all threads of the OpenMP team when n is large (pieces start at
// multiples of 64), else once on the calling thread. fn must only touch its
// own piece. Does not allocate.
using ChunkFn = void (*)(void* context, std::size_t begin, std::size_t end);
void forChunks(std::size_t n, ChunkFn fn, void* context);
template <class F>
void forChunks(std::size_t n, F&& f) {
  forChunks(
      n,
      [](void* c, std::size_t b, std::size_t e) { (*static_cast<std::remove_reference_t<F>*>(c))(b, e); },
      &f);
}

// Pieces of [0, n) smaller than this stay on the calling thread.
inline constexpr std::size_t kParallelMinValues = std::size_t{1} << 15;

// The same for the GPT step's kernels (kernels/step_parallel.h). The
// applications run OpenMP with passive waiting (OMP_WAIT_POLICY=passive),
// so each split wakes a sleeping thread: at the shakespeare-char GPT's sizes
// (at most 393,216 values per op) that costs more than the second core saves
// (bf16-mixed step 34.6 ms split at 16,384 against 23.2-24.8 ms unsplit).
inline constexpr std::size_t kStepParallelMinValues = std::size_t{1} << 20;

// dst = src converted (the bits of Tensor::convertFrom: F32 -> BF16/F16 to
// nearest-even as numeric::convertF32ToBf16/F16, BF16/F16 -> F32 exactly),
// spread over the team as above. Shapes must match (std::invalid_argument).
void convertParallel(const Tensor& src, Tensor& dst);

// values rounded in place to dtype (BF16 or F16 to nearest-even, F32:
// unchanged), the bits of numeric::roundTripBf16/F16, spread as above.
void roundToParallel(DType dtype, std::span<float> values);

} // namespace mantissa::kernels
