// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Batched matrix multiplication: G independent products in one oneDNN call,
// for attention's per-head products (G = batch x heads).
//
//   dst[g][M,N] = op(src[g])[M,K] x op(weights[g])[K,N],  g in [0, G)
//
// Each operand is one row-major Tensor holding the G matrices one after the
// other: src is [G*M, K] ([G*K, M] with transSrc), weights [G*K, N]
// ([G*N, K] with transWeights), dst [G*M, N] FP32. Inputs are F32, BF16 or
// F16 (one dtype for both); products are accumulated in FP32. As for Matmul,
// BF16 runs natively where oneDNN has a bf16 kernel for this CPU; otherwise
// (and always for F16) the inputs are widened exactly into FP32 scratch
// buffers allocated here and the FP32 primitive runs.

#include <mantissa/kernels/matmul.h>
#include <mantissa/tensor/tensor.h>

#include <cstdint>
#include <memory>
#include <string>

namespace mantissa::kernels {

struct BatchedShape {
  std::int64_t groups, m, n, k;
  Trans transSrc = Trans::No;
  Trans transWeights = Trans::No;
  double flops() const { return 2.0 * double(groups) * double(m) * double(n) * double(k); }
};

class BatchedMatmul {
public:
  // Throws std::invalid_argument on a non-positive shape.
  BatchedMatmul(BatchedShape shape, DType inputs);
  ~BatchedMatmul();
  BatchedMatmul(BatchedMatmul&&) noexcept;
  BatchedMatmul& operator=(BatchedMatmul&&) noexcept;

  // No allocation, no primitive creation. Throws std::invalid_argument naming
  // the operand whose dtype or stored shape is not the planned one.
  void execute(const Tensor& src, const Tensor& weights, Tensor& dst);

  bool emulated() const;
  std::string implementation() const;
  const BatchedShape& shape() const;

private:
  struct Plan;
  std::unique_ptr<Plan> m_plan;
};

} // namespace mantissa::kernels
