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
//
// Where the gradients are rounded to BF16 right after their product and the
// native kernel can write that rounding itself (Matmul::roundingToBf16), the
// layer also holds the backward products writing BF16: the same bits, half
// the bytes written (backwardDataToBf16 / backwardWeightsToBf16).

#include <mantissa/kernels/matmul.h>
#include <mantissa/tensor/tensor.h>

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mantissa::nn {

// One product of a layer as it runs: which path and kernel, and why.
struct MatmulUse {
  int layer = 0;
  std::string product; // "forward", "dX", "dW"
  kernels::MatmulShape shape{};
  kernels::MatmulPath path = kernels::MatmulPath::Native; // Native or Fp32Compute
  DType inputs = DType::F32;
  std::string kernel; // "brg:avx512_core_bf16", "gemm:jit (emulated: ...)"
  std::string reason; // why this path; "" when it is the only or the default one
  std::string result; // how the result is stored, e.g. "FP32", "BF16, rounded by the kernel"
};

// "native BF16", "FP32 compute on BF16 data", "FP32".
std::string pathDescription(const MatmulUse& use);

class Linear {
public:
  // gradients: the dtype dX and dW are rounded to right after their products;
  // activations: the dtype y is rounded to once the bias is added.
  Linear(int batch, int in, int out, DType inputs, DType gradients = DType::F32,
         DType activations = DType::F32);

  // y = x . w (no bias: addBias is separate so the trainer can time it apart)
  void forwardMatmul(const Tensor& x, const Tensor& w, Tensor& y);
  // y = x . w + b written as BF16 by the kernel (y a BF16 tensor, b FP32
  // [1, O]): bit for bit the FP32 product plus b in FP32, rounded to
  // nearest-even. Only when forwardToBf16InKernel().
  bool forwardToBf16InKernel() const { return m_forwardBf16.has_value(); }
  void forwardToBf16(const Tensor& x, const Tensor& w, const Tensor& b, Tensor& y);
  // dx = dy . w^T
  void backwardData(const Tensor& dy, const Tensor& w, Tensor& dx);
  // dw = x^T . dy
  void backwardWeights(const Tensor& x, const Tensor& dy, Tensor& dw);
  // The same two products written as BF16 by the kernel (dx, dw BF16 tensors),
  // bit for bit the FP32 results rounded to nearest-even. Only when
  // gradientsToBf16InKernel().
  bool gradientsToBf16InKernel() const { return m_backwardDataBf16.has_value(); }
  void backwardDataToBf16(const Tensor& dy, const Tensor& w, Tensor& dx);
  void backwardWeightsToBf16(const Tensor& x, const Tensor& dy, Tensor& dw);

  // The three products (forward, dX, dW) of layer `layer`. dWRoundedAfter:
  // the caller rounds dW after an FP32 product at times (underflow counting).
  std::vector<MatmulUse> uses(int layer, bool dWRoundedAfterAtTimes = false) const;

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
  std::size_t scratchpadBytes() const;

private:
  int m_batch;
  int m_in;
  int m_out;
  DType m_inputs;
  DType m_gradients;
  DType m_activations;
  kernels::Matmul m_forward;         // {B, O, I}
  kernels::Matmul m_backwardData;    // {B, I, O}, weights transposed
  kernels::Matmul m_backwardWeights; // {I, O, B}, src transposed
  std::optional<kernels::Matmul> m_forwardBf16;         // BF16 dst (and bias) twin
  std::optional<kernels::Matmul> m_backwardDataBf16;    // BF16 dst twins
  std::optional<kernels::Matmul> m_backwardWeightsBf16; // (both or neither)
};

} // namespace mantissa::nn
