// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// 2-D convolution as a forward/backward pair over oneDNN convolution
// primitives, plus the per-channel bias beside it.
//
//   B batch, Cin input channels, Cout output channels, H x W image, k x k kernel
//   stride 1, "same" padding: k/2 zeros on every side, so the output is H x W too.
//
// Layout: NCHW, one row per sample.
//   x  [B, Cin*H*W]   input,   x[b, (ci*H + h)*W + w], in the layer's `inputs` dtype
//   w  [Cout, Cin*k*k] weights, w[co, (ci*k + i)*k + j] (oneDNN oihw), `inputs` dtype
//   y  [B, Cout*H*W]  FP32:  y[b,co,h,w] = sum_{ci,i,j} x[b,ci,h+i-k/2,w+j-k/2] * w[co,ci,i,j]
//                     (x outside the image is 0; products accumulated in FP32)
//
//   dy [B, Cout*H*W]  gradient of y, `inputs` dtype (as Linear's dy)
//   dx [B, Cin*H*W]   FP32 = dLoss/dx  (backward data: the transposed convolution of dy)
//   dw [Cout, Cin*k*k] FP32 = dLoss/dw (backward weights: x correlated with dy over B, H, W)
//   b  [Cout], db [Cout] FP32: addChannelBias / channelBiasGradient below.
//
// Flatten: the row of a sample, [C*H*W] in (c, h, w) order, is already the
// input row a following Linear layer reads, so flattening is no operation on
// this layout (and its backward is none either): pass the same Tensor on.
//
// Precision: x, w and dy share one DType (`inputs`). FP32 runs oneDNN's
// FP32 kernels. BF16 uses oneDNN's native bf16 convolution where it has a
// kernel for this CPU (decided when the layer is built, by asking oneDNN);
// otherwise, and always for F16 where oneDNN has none, the 16-bit operands
// are widened exactly to FP32 twins held by the layer and the FP32 kernel
// runs: the products are then the same exact products, only the FP32
// summation order is oneDNN's. implementation() says which ran.
//
// Construction does all expensive work once: the three primitive
// descriptors and primitives, any layout reorders oneDNN's chosen kernel
// needs, their buffers, the FP32 twins and the scratchpads. forward /
// backwardData / backwardWeights only set data pointers, widen where
// emulated, and run: no allocation and no primitive creation (oneDNN 2.6's
// execute call itself allocates a few bytes of bookkeeping, as for Matmul).

#include <mantissa/tensor/dtype.h>
#include <mantissa/tensor/tensor.h>

#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace mantissa::nn {

class Conv2d {
public:
  // Throws std::invalid_argument if a size is not positive or k is not 3 or 5.
  Conv2d(int batch, int cin, int cout, int height, int width, int k, DType inputs);
  ~Conv2d();
  Conv2d(Conv2d&&) noexcept;
  Conv2d& operator=(Conv2d&&) noexcept;
  Conv2d(const Conv2d&) = delete;
  Conv2d& operator=(const Conv2d&) = delete;

  // y = conv(x, w) (no bias: addChannelBias is separate so it can be timed apart).
  void forward(const Tensor& x, const Tensor& w, Tensor& y);
  // dx = dLoss/dx from dy and w (overwrites dx). A first layer, whose input
  // is the data, needs no dx and can skip this product.
  void backwardData(const Tensor& dy, const Tensor& w, Tensor& dx);
  // dw = dLoss/dw from x and dy (overwrites dw).
  // Each throws std::invalid_argument naming the operand whose dtype or
  // stored shape is not the one this layer was built for.
  void backwardWeights(const Tensor& x, const Tensor& dy, Tensor& dw);

  int batch() const;
  int cin() const;
  int cout() const;
  int height() const;
  int width() const;
  int kernel() const;
  DType inputs() const;

  // Floating-point operations of one of the three products:
  // 2 * B * Cout * H * W * Cin * k * k (zero padding counted).
  double flops() const;

  // True when any of the three products runs through FP32 compute because
  // oneDNN has no native kernel for the inputs' dtype on this CPU.
  bool emulated() const;
  // oneDNN's implementation name of the forward kernel ("jit:avx512_core",
  // "jit_bf16:avx512_core_bf16", "x64:gemm:jit", ...), followed by
  // " (emulated: FP16 storage, FP32 compute)" where emulated.
  std::string implementation() const;
  // The same for the two backward products.
  std::string backwardDataImplementation() const;
  std::string backwardWeightsImplementation() const;

  // Bytes the layer holds beside its tensors: FP32 twins of 16-bit operands
  // plus the buffers of layout reorders (as allocated), and oneDNN's scratchpads.
  std::size_t fp32TwinBytes() const;
  std::size_t scratchpadBytes() const;

  struct Plan; // private to conv2d.cpp

private:
  std::unique_ptr<Plan> m_plan;
};

// out[i] = (in[i] - mean) / std in FP32 (one IEEE subtraction and division
// per value), the input standardization of an image model. Throws
// std::invalid_argument when the sizes differ.
void standardize(std::span<float> out, std::span<const float> in, float mean, float std);

// y[b, c*HW + p] += bias[c] for every sample b and pixel p.
// y [B, C*HW], bias [C]. Throws std::invalid_argument on a size mismatch.
void addChannelBias(std::span<float> y, std::span<const float> bias, int B, int C, int HW);

// dbias[c] (+)= sum over b and p of dy[b, c*HW + p], FP32, in order b = 0..B-1,
// p = 0..HW-1. With accumulate the sums are added to dbias, otherwise they
// overwrite it. Throws std::invalid_argument on a size mismatch.
void channelBiasGradient(std::span<float> dbias, std::span<const float> dy, int B, int C, int HW,
                         bool accumulate = false);

} // namespace mantissa::nn
