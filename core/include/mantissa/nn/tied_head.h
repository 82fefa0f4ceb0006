// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Output head tied to the token embedding: logits = x . wte^T, no bias.
//
//   N rows (B*T), C channels, V vocabulary
//   x      [N, C]  input dtype (final LayerNorm output, cast)
//   wte    [V, C]  input dtype (the token embedding, shared)
//   logits [N, V]  FP32 = x . wte^T          (Matmul {N, V, C}, weights transposed)
//
//   dlogits [N, V] input dtype
//   dx      [N, C] FP32 = dlogits . wte      (Matmul {N, C, V})
//   dwte    [V, C] FP32 += dlogits^T . x     (Matmul {V, C, N}, src transposed, accumulating:
//                                             the embedding's own gradient is added to it)

#include <mantissa/kernels/matmul.h>
#include <mantissa/tensor/tensor.h>

#include <string>

namespace mantissa::nn {

class TiedHead {
public:
  TiedHead(int rows, int channels, int vocabulary, DType inputs);

  void forward(const Tensor& x, const Tensor& wte, Tensor& logits);
  void backwardData(const Tensor& dlogits, const Tensor& wte, Tensor& dx);
  void backwardWeights(const Tensor& dlogits, const Tensor& x, Tensor& dwte);

  std::string implementation() const { return m_forward.implementation(); }

private:
  kernels::Matmul m_forward;
  kernels::Matmul m_backwardData;
  kernels::Matmul m_backwardWeights;
};

} // namespace mantissa::nn
