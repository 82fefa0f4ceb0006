// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Shared code of the kernel tests: seeded random tensors and a naive
// triple-loop product in double, the independent truth the Eigen reference
// is held to (and the source of the error bounds for oneDNN vs Eigen).

#include <mantissa/kernels/matmul.h>
#include <mantissa/tensor/tensor.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace mantissa::test {

// Uniform values in [-1, 1) (or small integers in [-range, range] when
// `integers` is set), rounded once into `dtype`.
inline Tensor randomTensor(DType dtype, std::int64_t rows, std::int64_t cols, std::uint32_t seed,
                           int integerRange = 0) {
  std::mt19937 rng(seed);
  Tensor wide(DType::F32, rows, cols);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> whole(-integerRange, integerRange);
  for (float& v : wide.f32())
    v = integerRange > 0 ? float(whole(rng)) : real(rng);
  if (dtype == DType::F32)
    return wide;
  Tensor t(dtype, rows, cols);
  t.convertFrom(wide);
  return t;
}

inline Tensor toF32(const Tensor& t) {
  Tensor wide(DType::F32, t.rows(), t.cols());
  wide.convertFrom(t);
  return wide;
}

// op(x)(i, j) read from the stored row-major tensor.
inline double at(const Tensor& f32, kernels::Trans trans, std::int64_t i, std::int64_t j) {
  const float* p = f32.data<float>();
  return trans == kernels::Trans::No ? p[i * f32.cols() + j] : p[j * f32.cols() + i];
}

struct NaiveProduct {
  std::vector<double> value; // [M,N] op(src) x op(weights) (+ dst0), in double
  std::vector<double> abs;   // [M,N] sum |a||b| (+ |dst0|): scale of the rounding error
};

// dst0 may be null (no accumulation). Only rows i with i % rowStep == 0 and
// the last row are computed (the others are left 0), to keep large shapes cheap.
inline bool naiveRow(std::int64_t i, std::int64_t m, std::int64_t rowStep) {
  return i % rowStep == 0 || i == m - 1;
}

inline NaiveProduct naiveMatmul(const kernels::MatmulShape& s, const Tensor& src,
                                const Tensor& weights, const Tensor* dst0 = nullptr,
                                std::int64_t rowStep = 1) {
  const Tensor a = toF32(src), b = toF32(weights);
  const Tensor c0 = dst0 ? toF32(*dst0) : Tensor(DType::F32, s.m, s.n);
  NaiveProduct r{std::vector<double>(size_t(s.m * s.n)), std::vector<double>(size_t(s.m * s.n))};
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n && naiveRow(i, s.m, rowStep); ++j) {
      double sum = c0.f32()[size_t(i * s.n + j)], abs = std::abs(sum);
      for (std::int64_t k = 0; k < s.k; ++k) {
        const double p = at(a, s.transSrc, i, k) * at(b, s.transWeights, k, j);
        sum += p;
        abs += std::abs(p);
      }
      r.value[size_t(i * s.n + j)] = sum;
      r.abs[size_t(i * s.n + j)] = abs;
    }
  return r;
}

} // namespace mantissa::test
