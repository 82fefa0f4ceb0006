// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Causal multi-head self-attention, from the fused projection qkv to the
// heads' concatenated outputs (the output projection is a separate Linear).
//
//   B batch, T context, H heads, D = C / H head size, G = B * H
//   qkv [B*T, 3C] FP32: q | k | v, head h at columns h*D .. h*D + D - 1 of each
//   q, k, v [G*T, D]   per-head copies in the matmul input dtype
//   S   [G*T, T] FP32  = q . k^T                         (oneDNN, batched over G)
//   P   [G*T, T] FP32  = softmax_row(S / sqrt(D) + mask), mask = -inf above the diagonal
//   O   [G*T, D] FP32  = P . v                           (oneDNN, P cast to the input dtype)
//   out [B*T, C] FP32  head h's O in columns h*D .. h*D + D - 1
//
// Backward (dout [B*T, C] -> dqkv [B*T, 3C], overwritten):
//   dP = dO . v^T,  dv = P^T . dO
//   dS = P * (dP - rowsum(dP * P)) / sqrt(D)   (zero where masked)
//   dq = dS . k,    dk = dS^T . q
// Six products, three distinct shapes, each a BatchedMatmul made once.
//
// Accumulation: by default the six products accumulate in FP32 (oneDNN).
// With a 16-bit accumulator they run through kernels::matmulEmulatedAccumulation
// head by head (plain loops, slow): every product added into a BF16 or FP16
// running sum, promoted to FP32 every N_C products when promoteEvery > 0.
// The 16-bit operand copies are then FP32 tensors holding the rounded values.
//
// Softmax precision: F32 computes in FP32. BF16/F16 round the scaled score,
// every exp, the running sum after each addition and each probability to that
// format. Without max subtraction exp(s) is taken of the raw scaled score,
// which overflows FP16 (above ~11.09) where FP32 would not.

#include <mantissa/kernels/batched_matmul.h>
#include <mantissa/tensor/tensor.h>

#include <memory>
#include <span>
#include <string>

namespace mantissa::nn {

struct SoftmaxPrecision {
  DType dtype = DType::F32;
  bool subtractMax = true;
};

struct AccumulationPrecision {
  DType dtype = DType::F32; // the products' running sums
  int promoteEvery = 0;     // N_C; 0: a 16-bit sum is never promoted
};

// What one layer's attention needs only while its own forward or backward
// runs. The layers of a model run one at a time, so they share one, and the
// two passes share its buffers:
//   scores  forward's S; backward's dP, then dS in place
//   lowTT   forward's P cast for O = P v; backward's P cast again (the same
//           values) for dv = P^T dO, then dS cast
//   o       forward's O before the unpermute; backward's dO
//   q, k, v forward's per-head FP32 copies when the products read 16-bit
//           twins (the layer keeps only those); backward's dq, dk, dv
struct AttentionScratch {
  Tensor scores;         // [G*T, T] FP32
  Tensor lowTT;          // [G*T, T] input dtype (empty when F32)
  Tensor o;              // [G*T, D] FP32
  Tensor dOLow;          // [G*T, D] input dtype (empty when F32)
  Tensor q, k, v;        // [G*T, D] FP32
  std::size_t forwardBytes() const;  // scores, lowTT and o (forward's use)
  std::size_t backwardBytes() const; // dOLow, q, k and v (dq, dk, dv in backward)
};

class CausalSelfAttention {
public:
  // Allocates every buffer and creates the oneDNN primitives. `shared`:
  // another layer's scratch (scratch()) of the same shape and precisions,
  // used instead of allocating one; std::invalid_argument when it differs.
  CausalSelfAttention(int batch, int context, int heads, int channels, DType matmulInputs,
                      AccumulationPrecision accumulation = {},
                      std::shared_ptr<AttentionScratch> shared = nullptr);
  const std::shared_ptr<AttentionScratch>& scratch() const { return m_scratch; }

  void setSoftmaxPrecision(SoftmaxPrecision precision) { m_softmax = precision; }
  // When set, the wall time of the six products (ms) is added to *ms.
  void setMatmulClock(double* ms) { m_matmulMs = ms; }
  SoftmaxPrecision softmaxPrecision() const { return m_softmax; }

  void forward(std::span<const float> qkv, std::span<float> out);
  void backward(std::span<const float> dout, std::span<float> dqkv);

  // The attention probabilities of the last forward, [G*T, T] (row g*T + t:
  // head g % H of sample g / H, query t; zero above the diagonal).
  const Tensor& probs() const { return m_probs; }
  std::string implementation() const;
  // Bytes of the buffers forward keeps for backward (q, k, v in the
  // products' input dtype, FP32 copies of them with FP32 inputs, the
  // probabilities), and of the scratch (AttentionScratch::forwardBytes and
  // backwardBytes), which layers sharing it count once.
  struct BufferBytes {
    std::size_t activations = 0;
    std::size_t scratchActivations = 0, scratchGradients = 0;
  };
  BufferBytes bufferBytes() const;
  bool emulated() const { return accumulationEmulated() || m_qk.emulated(); }
  bool accumulationEmulated() const { return m_accumulation.dtype != DType::F32; }
  AccumulationPrecision accumulation() const { return m_accumulation; }

private:
  void toInputs(const Tensor& f32, Tensor& low);
  // dst = src x weights for every head, timed: through `batched`, or with the
  // emulated accumulator on the same shape.
  void product(kernels::BatchedMatmul& batched, const Tensor& src, const Tensor& weights,
               Tensor& dst);

  int m_batch, m_context, m_heads, m_channels, m_headSize;
  DType m_inputs;
  AccumulationPrecision m_accumulation;
  bool m_low = false; // products read the input-dtype twins (16-bit inputs)
  SoftmaxPrecision m_softmax;
  double* m_matmulMs = nullptr;
  kernels::BatchedMatmul m_qk;  // {G, T, T, D}, weights transposed: S = q k^T, dP = dO v^T
  kernels::BatchedMatmul m_pv;  // {G, T, D, T}: O = P v, dq = dS k
  kernels::BatchedMatmul m_tn;  // {G, T, D, T}, src transposed: dv = P^T dO, dk = dS^T q
  Tensor m_qF, m_kF, m_vF;      // [G*T, D] FP32, kept for backward with FP32 inputs only
                                //   (16-bit inputs: the scratch's q, k, v)
  Tensor m_q, m_k, m_v;         // [G*T, D] input dtype; FP32 rounded values with a 16-bit
                                //   accumulator; empty with FP32 inputs
  Tensor m_probs;               // [G*T, T] FP32
  std::shared_ptr<AttentionScratch> m_scratch;
};

} // namespace mantissa::nn
