// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "kernels/step_isa_variants.h"
#include "kernels/step_math.h"
#include "kernels/step_parallel.h"

#include <mantissa/kernels/accumulation.h>
#include <mantissa/nn/attention.h>
#include <mantissa/nn/precision.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace mantissa::nn {
namespace {

using kernels::BatchedShape;
using kernels::Trans;

// The products' copy of an FP32 operand: none for FP32 inputs; FP32 values
// rounded to the input dtype when the accumulator is emulated; else 16-bit.
Tensor lowTwin(DType inputs, bool emulated, std::int64_t rows, std::int64_t cols) {
  if (inputs == DType::F32)
    return Tensor();
  return Tensor(emulated ? DType::F32 : inputs, rows, cols);
}

// Row t of one head: softmax over columns 0..t of scale * s, zero after.
// The FP32 row: the operations of the general row below with every rounding
// the identity, in loops that vectorise: the maximum and the sum each in
// eight interleaved lanes (fixed order, the same on every path), the step
// kernels' exp (kernels/step_math.h), quotients and zeros. One body built for
// AVX-512, AVX2 and baseline x86-64 (kernels/step_isa.h), the same bits on each.
// The maximum ignores NaN as std::fmax does (a row holding a NaN ends up all
// NaN either way: its exp joins the sum); -inf as the start changes nothing
// else, and the sign of a zero maximum does not reach exp.
[[gnu::always_inline]] inline void softmaxCausalRowF32Body(const float* __restrict s,
                                                           float* __restrict p, int valid, int T,
                                                           float scale, bool subtractMax) {
  constexpr int kLanes = 8;
  float maxValue = 0.0f;
  if (subtractMax) {
    float lane[kLanes];
    for (float& m : lane)
      m = -std::numeric_limits<float>::infinity();
    int j = 0;
    for (; j + kLanes <= valid; j += kLanes)
      for (int k = 0; k < kLanes; ++k) {
        const float v = scale * s[j + k];
        lane[k] = v > lane[k] ? v : lane[k];
      }
    for (; j < valid; ++j) {
      const float v = scale * s[j];
      lane[0] = v > lane[0] ? v : lane[0];
    }
    maxValue = lane[0];
    for (int k = 1; k < kLanes; ++k)
      maxValue = lane[k] > maxValue ? lane[k] : maxValue;
  }
  for (int j = 0; j < valid; ++j)
    p[j] = kernels::expStep(scale * s[j] - maxValue);
  const float sum = kernels::laneSum8(p, valid);
  for (int i = 0; i < valid; ++i)
    p[i] = p[i] / sum;
  for (int i = valid; i < T; ++i)
    p[i] = 0.0f;
}

MANTISSA_STEP_VARIANTS(void, softmaxCausalRowF32,
                       (const float* __restrict s, float* __restrict p, int valid, int T,
                        float scale, bool subtractMax),
                       (s, p, valid, T, scale, subtractMax))

void softmaxCausalRow(const float* s, float* p, int valid, int T, float scale,
                      SoftmaxPrecision precision) {
  const DType d = precision.dtype;
  if (d == DType::F32) {
    MANTISSA_STEP_DISPATCH(softmaxCausalRowF32, (s, p, valid, T, scale, precision.subtractMax));
    return;
  }
  float maxValue = 0.0f;
  if (precision.subtractMax) {
    maxValue = roundScalar(d, scale * s[0]);
    for (int j = 1; j < valid; ++j)
      maxValue = std::fmax(maxValue, roundScalar(d, scale * s[j]));
  }
  float sum = 0.0f;
  for (int j = 0; j < valid; ++j) {
    const float x = roundScalar(d, roundScalar(d, scale * s[j]) - maxValue);
    p[j] = roundScalar(d, std::exp(x));
    sum = roundScalar(d, sum + p[j]);
  }
  for (int j = 0; j < valid; ++j)
    p[j] = roundScalar(d, p[j] / sum);
  for (int j = valid; j < T; ++j)
    p[j] = 0.0f;
}

// dS = P * (dP - rowsum(dP * P)) * scale over rows of T (row r holds r % T + 1
// valid columns, zeros after), in place in dP. The row sum in eight
// interleaved lanes (fixed order, the same on every path), so it vectorises.
[[gnu::always_inline]] inline void softmaxCausalBackwardBody(const float* __restrict p,
                                                             float* __restrict dP, std::size_t rows,
                                                             std::size_t T, float scale) {
  constexpr std::size_t kLanes = 8;
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t valid = r % T + 1;
    const float* pr = p + r * T;
    float* dr = dP + r * T;
    float lane[kLanes] = {};
    std::size_t j = 0;
    for (; j + kLanes <= valid; j += kLanes)
      for (std::size_t k = 0; k < kLanes; ++k)
        lane[k] += pr[j + k] * dr[j + k];
    for (; j < valid; ++j)
      lane[0] += pr[j] * dr[j];
    const float dot =
        ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
    for (std::size_t i = 0; i < valid; ++i)
      dr[i] = pr[i] * (dr[i] - dot) * scale;
    for (std::size_t i = valid; i < T; ++i)
      dr[i] = 0.0f;
  }
}

MANTISSA_STEP_VARIANTS(void, softmaxCausalBackward,
                       (const float* __restrict p, float* __restrict dP, std::size_t rows,
                        std::size_t T, float scale),
                       (p, dP, rows, T, scale))

// Adds the wall time of one product to *ms (when set).
// n floats from src to dst (distinct arrays): inline vector moves.
inline void copyRow(float* __restrict dst, const float* __restrict src, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    dst[i] = src[i];
}

template <class F> void timed(double* ms, F product) {
  if (!ms) {
    product();
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  product();
  *ms +=
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

std::size_t AttentionScratch::forwardBytes() const {
  return scores.bytes() + lowTT.bytes() + o.bytes();
}

std::size_t AttentionScratch::backwardBytes() const {
  return dOLow.bytes() + q.bytes() + k.bytes() + v.bytes();
}

CausalSelfAttention::CausalSelfAttention(int batch, int context, int heads, int channels,
                                         DType matmulInputs, AccumulationPrecision accumulation,
                                         std::shared_ptr<AttentionScratch> shared)
    : m_batch(batch), m_context(context), m_heads(heads), m_channels(channels),
      m_headSize(heads > 0 ? channels / heads : 0), m_inputs(matmulInputs),
      m_accumulation(accumulation), m_low(matmulInputs != DType::F32),
      m_qk(BatchedShape{std::int64_t(batch) * heads, context, context, m_headSize, Trans::No,
                        Trans::Yes},
           matmulInputs),
      m_pv(BatchedShape{std::int64_t(batch) * heads, context, m_headSize, context}, matmulInputs),
      m_tn(BatchedShape{std::int64_t(batch) * heads, context, m_headSize, context, Trans::Yes,
                        Trans::No},
           matmulInputs) {
  if (heads <= 0 || channels % heads != 0)
    throw std::invalid_argument("CausalSelfAttention: channels must be a multiple of heads");
  if (accumulation.promoteEvery < 0)
    throw std::invalid_argument("CausalSelfAttention: promoteEvery must be 0 or positive");
  const bool emulatedSums = accumulationEmulated();
  const std::int64_t rows = std::int64_t(batch) * heads * context;
  const std::int64_t D = m_headSize, T = context;
  if (!m_low) { // the products read the FP32 copies: backward needs them
    m_qF = Tensor(DType::F32, rows, D);
    m_kF = Tensor(DType::F32, rows, D);
    m_vF = Tensor(DType::F32, rows, D);
  }
  m_q = lowTwin(m_inputs, emulatedSums, rows, D);
  m_k = lowTwin(m_inputs, emulatedSums, rows, D);
  m_v = lowTwin(m_inputs, emulatedSums, rows, D);
  m_probs = Tensor(DType::F32, rows, T);
  if (shared) {
    const auto same = [](const Tensor& a, DType dtype, std::int64_t r, std::int64_t c) {
      return a.dtype() == dtype && a.rows() == r && a.cols() == c;
    };
    const AttentionScratch& s = *shared;
    const Tensor lowShape = lowTwin(m_inputs, emulatedSums, 0, 0);
    const std::int64_t lowRows = m_low ? rows : 0;
    if (!same(s.scores, DType::F32, rows, T) || !same(s.o, DType::F32, rows, D) ||
        !same(s.q, DType::F32, rows, D) || !same(s.k, DType::F32, rows, D) ||
        !same(s.v, DType::F32, rows, D) || !same(s.lowTT, lowShape.dtype(), lowRows, m_low ? T : 0) ||
        !same(s.dOLow, lowShape.dtype(), lowRows, m_low ? D : 0))
      throw std::invalid_argument("CausalSelfAttention: the shared scratch has another shape");
    m_scratch = std::move(shared);
  } else {
    AttentionScratch own;
    own.scores = Tensor(DType::F32, rows, T);
    own.lowTT = lowTwin(m_inputs, emulatedSums, rows, T);
    own.o = Tensor(DType::F32, rows, D);
    own.dOLow = lowTwin(m_inputs, emulatedSums, rows, D);
    own.q = Tensor(DType::F32, rows, D);
    own.k = Tensor(DType::F32, rows, D);
    own.v = Tensor(DType::F32, rows, D);
    m_scratch = std::make_shared<AttentionScratch>(std::move(own));
  }
}

void CausalSelfAttention::toInputs(const Tensor& f32, Tensor& low) {
  if (!m_low)
    return;
  if (low.dtype() == DType::F32) { // rounded values for the emulated accumulator
    std::copy(f32.f32().begin(), f32.f32().end(), low.f32().begin());
    roundSpan(m_inputs, low.f32());
  } else {
    low.convertFrom(f32);
  }
}

void CausalSelfAttention::product(kernels::BatchedMatmul& batched, const Tensor& src,
                                  const Tensor& weights, Tensor& dst) {
  timed(m_matmulMs, [&] {
    if (!accumulationEmulated()) {
      batched.execute(src, weights, dst);
      return;
    }
    const BatchedShape& s = batched.shape();
    const std::size_t srcSize = std::size_t(s.m * s.k), weightSize = std::size_t(s.k * s.n),
                      dstSize = std::size_t(s.m * s.n);
    for (std::size_t g = 0; g < std::size_t(s.groups); ++g)
      kernels::matmulEmulatedAccumulation({s.m, s.n, s.k, s.transSrc, s.transWeights},
                                          src.f32().subspan(g * srcSize, srcSize),
                                          weights.f32().subspan(g * weightSize, weightSize),
                                          dst.f32().subspan(g * dstSize, dstSize),
                                          m_accumulation.dtype, m_accumulation.promoteEvery);
  });
}

CausalSelfAttention::BufferBytes CausalSelfAttention::bufferBytes() const {
  BufferBytes b;
  for (const Tensor* t : {&m_qF, &m_kF, &m_vF, &m_q, &m_k, &m_v, &m_probs})
    b.activations += t->bytes();
  b.scratchActivations = m_scratch->forwardBytes();
  b.scratchGradients = m_scratch->backwardBytes();
  return b;
}

std::string CausalSelfAttention::implementation() const {
  if (!accumulationEmulated())
    return m_qk.implementation();
  std::string sums = m_accumulation.dtype == DType::BF16 ? "BF16" : "FP16";
  return "emulated " + sums + " accumulation" +
         (m_accumulation.promoteEvery > 0
              ? ", promoted to FP32 every " + std::to_string(m_accumulation.promoteEvery)
              : std::string()) +
         " (plain loops)";
}

void CausalSelfAttention::forward(std::span<const float> qkv, std::span<float> out) {
  const std::size_t B = std::size_t(m_batch), T = std::size_t(m_context), H = std::size_t(m_heads),
                    D = std::size_t(m_headSize), C = std::size_t(m_channels);
  // Permute qkv [B, T, 3, H, D] -> q, k, v [B, H, T, D]: into the scratch
  // when the products read the 16-bit twins cast from it.
  AttentionScratch& sc = *m_scratch;
  const bool low = m_low;
  Tensor& qF = low ? sc.q : m_qF;
  Tensor& kF = low ? sc.k : m_kF;
  Tensor& vF = low ? sc.v : m_vF;
  float* q = qF.f32().data();
  float* k = kF.f32().data();
  float* v = vF.f32().data();
  // The permutes copy whole batch items: split between the OpenMP threads.
  kernels::forStepPieces(B, B * T * 3 * C, 1, [&](std::size_t b0, std::size_t b1) {
    for (std::size_t b = b0; b < b1; ++b)
      for (std::size_t t = 0; t < T; ++t) {
        const float* row = qkv.data() + (b * T + t) * 3 * C;
        for (std::size_t h = 0; h < H; ++h) {
          const std::size_t dst = ((b * H + h) * T + t) * D;
          copyRow(q + dst, row + h * D, D);
          copyRow(k + dst, row + C + h * D, D);
          copyRow(v + dst, row + 2 * C + h * D, D);
        }
      }
  });
  toInputs(qF, m_q);
  toInputs(kF, m_k);
  toInputs(vF, m_v);
  product(m_qk, low ? m_q : m_qF, low ? m_k : m_kF, sc.scores);

  const float scale = 1.0f / std::sqrt(float(m_headSize));
  const float* s = sc.scores.f32().data();
  float* p = m_probs.f32().data();
  // Rows split between the OpenMP threads (kernels/step_parallel.h).
  kernels::forStepPieces(B * H * T, B * H * T * T / 2, 1, [&](std::size_t r0, std::size_t r1) {
    for (std::size_t row = r0; row < r1; ++row) {
      const std::size_t r = row * T;
      softmaxCausalRow(s + r, p + r, int(row % T) + 1, int(T), scale, m_softmax);
    }
  });
  toInputs(m_probs, sc.lowTT);
  product(m_pv, low ? sc.lowTT : m_probs, low ? m_v : m_vF, sc.o);

  // Unpermute O [B, H, T, D] -> out [B, T, H*D].
  const float* o = sc.o.f32().data();
  kernels::forStepPieces(B, B * T * C, 1, [&](std::size_t b0, std::size_t b1) {
    for (std::size_t b = b0; b < b1; ++b)
      for (std::size_t h = 0; h < H; ++h)
        for (std::size_t t = 0; t < T; ++t) {
          const float* src = o + ((b * H + h) * T + t) * D;
          copyRow(out.data() + (b * T + t) * C + h * D, src, D);
        }
  });
}

void CausalSelfAttention::backward(std::span<const float> dout, std::span<float> dqkv) {
  const std::size_t B = std::size_t(m_batch), T = std::size_t(m_context), H = std::size_t(m_heads),
                    D = std::size_t(m_headSize), C = std::size_t(m_channels);
  AttentionScratch& sc = *m_scratch;
  Tensor& dOF = sc.o; // forward's O is done with
  float* dO = dOF.f32().data();
  kernels::forStepPieces(B, B * T * C, 1, [&](std::size_t b0, std::size_t b1) {
    for (std::size_t b = b0; b < b1; ++b)
      for (std::size_t h = 0; h < H; ++h)
        for (std::size_t t = 0; t < T; ++t) {
          const float* src = dout.data() + (b * T + t) * C + h * D;
          copyRow(dO + ((b * H + h) * T + t) * D, src, D);
        }
  });
  toInputs(dOF, sc.dOLow);
  const bool low = m_low;
  const Tensor& dOIn = low ? sc.dOLow : dOF;
  Tensor& dPF = sc.scores; // forward's S is done with
  product(m_qk, dOIn, low ? m_v : m_vF, dPF); // dP = dO v^T
  // P cast again: the values forward's O = P v read.
  toInputs(m_probs, sc.lowTT);
  product(m_tn, low ? sc.lowTT : m_probs, dOIn, sc.v); // dv = P^T dO

  // dS = P * (dP - rowsum(dP * P)) * scale, in place in dP.
  const float scale = 1.0f / std::sqrt(float(m_headSize));
  const float* p = m_probs.f32().data();
  float* dP = dPF.f32().data();
  kernels::forStepPieces(B * H * T, B * H * T * T, T, [&](std::size_t r0, std::size_t r1) {
    MANTISSA_STEP_DISPATCH(softmaxCausalBackward, (p + r0 * T, dP + r0 * T, r1 - r0, T, scale));
  });
  toInputs(dPF, sc.lowTT);
  const Tensor& dS = low ? sc.lowTT : dPF;
  product(m_pv, dS, low ? m_k : m_kF, sc.q); // dq = dS k
  product(m_tn, dS, low ? m_q : m_qF, sc.k); // dk = dS^T q

  const float* dq = sc.q.f32().data();
  const float* dk = sc.k.f32().data();
  const float* dv = sc.v.f32().data();
  kernels::forStepPieces(B, B * T * 3 * C, 1, [&](std::size_t b0, std::size_t b1) {
    for (std::size_t b = b0; b < b1; ++b)
      for (std::size_t t = 0; t < T; ++t) {
        float* row = dqkv.data() + (b * T + t) * 3 * C;
        for (std::size_t h = 0; h < H; ++h) {
          const std::size_t src = ((b * H + h) * T + t) * D;
          copyRow(row + h * D, dq + src, D);
          copyRow(row + C + h * D, dk + src, D);
          copyRow(row + 2 * C + h * D, dv + src, D);
        }
      }
  });
}

} // namespace mantissa::nn
