// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A fully connected layer's three products under an FP8 / microscaling
// recipe (amp/scaling.h): the same shapes as nn::Linear
//   x [B, I], w [I, O], y [B, O] = x . w;  dx = dy . w^T;  dw = x^T . dy
// with every operand given in FP32, quantized and dequantized by the recipe
// into this object's buffers, and the products run in FP32 (FP32
// accumulation) on the dequantized values.
//
// Per-tensor recipes quantize X and W in forward() and dY in the first
// backward call after it; each copy feeds both of its products. Block
// recipes quantize each operand along the reduction dimension of every
// product it feeds (scaling.h). Delayed scaling keeps one amax history per
// operand and updates it after each quantization. lastStats() gives the most
// recent quantization of X (along its features), W (for the forward product)
// and dY (for dX; for dW on the first layer, which has no dX), named
// "<name>.x", "<name>.w", "<name>.dy".

#include <mantissa/amp/scaling.h>
#include <mantissa/nn/linear.h>
#include <mantissa/telemetry/scaling.h>
#include <mantissa/tensor/tensor.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mantissa::nn {

// One operand of scaled products: its element format (amp::operandElement),
// its delayed-scaling state under fp8-delayed, its latest statistics.
class OperandQuantizer {
public:
  OperandQuantizer(std::string name, telemetry::ScaledRole role, const amp::ScalingOptions& options);
  // in -> out, both FP32 [rows, cols]; record: these are the operand's statistics
  // (named `name`). Delayed scaling uses its scale and records the amax.
  void quantize(const Tensor& in, Tensor& out, amp::BlockAxis axis, bool weightBlocks,
                std::uint64_t seed, bool record = true);
  const std::optional<telemetry::ScaledTensorStats>& stats() const { return m_stats; }
  telemetry::ScaledRole role() const { return m_role; }
  // The delayed-scaling state under fp8-delayed, under this operand's name.
  void visitState(RunStateVisitor& v);

private:
  std::string m_name;
  telemetry::ScaledRole m_role;
  amp::ScalingOptions m_options;
  numeric::FloatFormat m_element; // amp::operandElement
  std::optional<amp::DelayedScale> m_delayed;
  std::optional<telemetry::ScaledTensorStats> m_stats;
};

class ScaledLinear {
public:
  // site: this layer's share of the random bits (nvfp4's stochastic rounding
  // of dY), mixed with the seed.
  ScaledLinear(std::string name, int batch, int in, int out, const amp::ScalingOptions& options,
               std::uint64_t site, std::uint64_t seed = 1);
  void setSeed(std::uint64_t seed) { m_seed = seed; }
  // The random-bit counter and the operands' scaling state (tensor/run_state.h).
  void visitState(RunStateVisitor& v);

  void forward(const Tensor& x, const Tensor& w, Tensor& y);
  void backwardWeights(const Tensor& x, const Tensor& dy, Tensor& dw);
  void backwardData(const Tensor& dy, const Tensor& w, Tensor& dx);

  // X, W and dY's latest statistics (dY absent before the first backward).
  std::vector<telemetry::ScaledTensorStats> lastStats() const;
  const Linear& linear() const { return m_linear; }
  const std::string& name() const { return m_name; }
  // The dequantized operands of the last products (tests and views).
  const Tensor& quantizedInput() const { return m_xq; }
  const Tensor& quantizedWeights() const { return m_wq; }
  const Tensor& quantizedGradient() const { return m_dyq; }

private:
  using Operand = OperandQuantizer;
  // Quantizes `in` into `out`; `record`: this copy's statistics are the operand's.
  void quantize(Operand& op, const Tensor& in, Tensor& out, amp::BlockAxis axis, bool record);
  bool perTensor() const;
  void quantizeGradient(const Tensor& dy);

  std::string m_name;
  amp::ScalingOptions m_options;
  std::uint64_t m_site;
  std::uint64_t m_seed;
  std::uint64_t m_calls = 0;
  Linear m_linear; // FP32 products
  Operand m_x, m_w, m_dy;
  Tensor m_xq, m_xqT;   // X along its features; along the batch (block recipes)
  Tensor m_wq, m_wqT;   // W for the forward; for dX (mxfp8, nvfp4)
  Tensor m_dyq, m_dyqT; // dY for dX; along the batch (block recipes)
  bool m_dyReady = false;
};

} // namespace mantissa::nn
