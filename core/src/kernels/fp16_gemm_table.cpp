// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The FP16 GEMM's numerics table (fp16_gemm.h): relative error against a
// double reference per K and per accumulation. The FP16 columns run the
// portable kernel (exact emulation of the FP16 FMA), so the table is the
// same on every CPU; the FP32 column is the emulated FP16 matmul.
#include <mantissa/kernels/fp16_gemm.h>
#include <mantissa/numeric/convert.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace mantissa::kernels {
namespace {

Fp16ErrorCell errorsOf(const std::vector<float>& got, const std::vector<double>& exact) {
  std::vector<double> rel(got.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    rel[i] = std::fabs(static_cast<double>(got[i]) - exact[i]) / std::fabs(exact[i]);
  Fp16ErrorCell cell;
  cell.maxRelError = *std::max_element(rel.begin(), rel.end());
  const auto mid = rel.begin() + static_cast<std::ptrdiff_t>(rel.size() / 2);
  std::nth_element(rel.begin(), mid, rel.end());
  cell.medianRelError = *mid;
  if (rel.size() % 2 == 0)
    cell.medianRelError = 0.5 * (cell.medianRelError + *std::max_element(rel.begin(), mid));
  return cell;
}

} // namespace

Fp16ErrorTable fp16AccumulationTable(const Fp16ErrorTableOptions& options) {
  Fp16ErrorTable table;
  table.promoteEvery = options.promoteEvery;
  table.rows = options.rows;
  table.cols = options.cols;
  std::mt19937_64 rng(options.seed);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  const std::int64_t m = options.rows, n = options.cols;
  for (const std::int64_t k : options.ks) {
    const MatmulShape shape{m, n, k};
    Tensor a(DType::F16, m, k), b(DType::F16, k, n);
    for (auto& v : a.u16())
      v = numeric::f32ToF16(uniform(rng));
    for (auto& v : b.u16())
      v = numeric::f32ToF16(uniform(rng));
    // Double reference: exact products, summed in double.
    std::vector<double> exact(static_cast<std::size_t>(m * n), 0.0);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t kk = 0; kk < k; ++kk) {
        const double x = numeric::f16ToF32(a.u16()[static_cast<std::size_t>(i * k + kk)]);
        for (std::int64_t j = 0; j < n; ++j)
          exact[static_cast<std::size_t>(i * n + j)] +=
              x * numeric::f16ToF32(b.u16()[static_cast<std::size_t>(kk * n + j)]);
      }
    Fp16ErrorRow row;
    row.k = k;
    // One N_C per thread (each product is too small to split).
    const auto columns = static_cast<std::int64_t>(options.promoteEvery.size());
    row.fp16.resize(options.promoteEvery.size());
#pragma omp parallel for schedule(dynamic)
    for (std::int64_t col = 0; col < columns; ++col) {
      std::vector<float> c(static_cast<std::size_t>(m * n));
      Fp16Gemm gemm(shape, options.promoteEvery[static_cast<std::size_t>(col)], Fp16GemmIsa::Portable);
      gemm.execute(a.u16().data(), b.u16().data(), c.data());
      row.fp16[static_cast<std::size_t>(col)] = errorsOf(c, exact);
    }
    Matmul fp32(shape, DType::F16, DType::F32, false, MatmulPath::Fp32Compute);
    Tensor dst(DType::F32, m, n);
    fp32.execute(a, b, dst);
    row.fp32 = errorsOf(std::vector<float>(dst.f32().begin(), dst.f32().end()), exact);
    table.fp32Implementation = fp32.implementation();
    table.rowsByK.push_back(std::move(row));
  }
  return table;
}

} // namespace mantissa::kernels
