// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Fully connected layer as a forward/backward pair over kernels::Matmul.
//
//   B batch, I inputs, O outputs
//   x  [B, I]  input, in the recipe's matmul dtype
//   w  [I, O]  weights, in the recipe's matmul dtype
//   b  [O]     bias, FP32 values
//   y  [B, O]  FP32 = x . w + b (products accumulated in FP32)
//
//   dy [B, O]  gradient of y (matmul dtype for the products, FP32 for db)
//   dx [B, I]  FP32 = dy . w^T            (Matmul {B, I, O}, transWeights)
//   dw [I, O]  FP32 = x^T . dy            (Matmul {I, O, B}, transSrc)
//   db [O]     FP32 = sum over the batch of dy
//
// W is stored [I, O] so the forward product needs no transpose and both
// backward products are expressed with Trans, never with a transposed copy.
// Bias add and bias gradient are kernels::addBias / kernels::biasGradient.
// The three Matmul objects (and their oneDNN primitives) are created once in
// the constructor; forward/backward never allocate.

#include <mantissa/kernels/matmul.h>
#include <mantissa/tensor/tensor.h>

#include <span>
#include <string>

namespace mantissa::nn {

class Linear {
public:
  Linear(int batch, int in, int out, DType inputs);

  // y = x . w (no bias: addBias is separate so the trainer can time it apart)
  void forwardMatmul(const Tensor& x, const Tensor& w, Tensor& y);
  // dx = dy . w^T
  void backwardData(const Tensor& dy, const Tensor& w, Tensor& dx);
  // dw = x^T . dy
  void backwardWeights(const Tensor& x, const Tensor& dy, Tensor& dw);

  int batch() const { return m_batch; }
  int in() const { return m_in; }
  int out() const { return m_out; }
  DType inputs() const { return m_inputs; }
  bool emulated() const { return m_forward.emulated(); }
  std::string implementation() const { return m_forward.implementation(); }
  // Bytes the three products hold beside the layer's tensors (matmul.h).
  std::size_t fp32TwinBytes() const {
    return m_forward.fp32TwinBytes() + m_backwardData.fp32TwinBytes() +
           m_backwardWeights.fp32TwinBytes();
  }
  std::size_t scratchpadBytes() const {
    return m_forward.scratchpadBytes() + m_backwardData.scratchpadBytes() +
           m_backwardWeights.scratchpadBytes();
  }

private:
  int m_batch;
  int m_in;
  int m_out;
  DType m_inputs;
  kernels::Matmul m_forward;         // {B, O, I}
  kernels::Matmul m_backwardData;    // {B, I, O}, weights transposed
  kernels::Matmul m_backwardWeights; // {I, O, B}, src transposed
};

} // namespace mantissa::nn
