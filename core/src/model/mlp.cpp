// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Mlp: forward, backward and working-weight refresh, executing the recipe.
#include <mantissa/model/mlp.h>

#include "network_parts.h"

#include <mantissa/kernels/elementwise.h>
#include <mantissa/numeric/convert.h>
#include <mantissa/telemetry/zero_loss.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>

namespace mantissa::model {

using detail::allFinite;
using detail::allocated;
using detail::InParallelSection;

namespace {

// Values per piece of a fused elementwise pass: its arrays stay in L1.
constexpr std::size_t kPassBlock = 2048;

// FP32 -> the 16-bit matmul input dtype, to nearest-even (Tensor::convertFrom's bits).
void narrow(DType dtype, std::span<const float> src, std::span<std::uint16_t> dst) {
  if (dtype == DType::BF16)
    numeric::convertF32ToBf16(src, dst);
  else
    numeric::convertF32ToF16(src, dst);
}

} // namespace

Mlp::Mlp(const MlpSpec& spec, int batch, const amp::Recipe& recipe, int accumulation)
    : m_spec(spec), m_batch(batch), m_recipe(recipe), m_accumulation(accumulation) {
  // Scaled recipes quantize FP32 operands themselves (nn::ScaledLinear).
  const bool scaled = recipe.scaling != amp::MatmulScaling::None;
  const DType d = scaled ? DType::F32 : recipe.matmulInputs;
  const bool low = d != DType::F32;
  m_low = low;
  const int n = spec.layers();
  m_linear.reserve(static_cast<std::size_t>(n));
  m_params.resize(static_cast<std::size_t>(n));
  m_grads.resize(static_cast<std::size_t>(n));
  m_acts.resize(static_cast<std::size_t>(n));
  m_underflow.resize(static_cast<std::size_t>(n));
  for (int l = 0; l < n; ++l) {
    const int in = spec.widths[l], out = spec.widths[l + 1];
    m_linear.emplace_back(batch, in, out, d, recipe.gradients, recipe.activations);
    if (scaled)
      m_scaled.emplace_back("layer" + std::to_string(l), batch, in, out, amp::ScalingOptions{recipe.scaling},
                            std::uint64_t(l));
    const bool bf16Grads = m_linear.back().gradientsToBf16InKernel();
    auto& p = m_params[l];
    p.w = Tensor(DType::F32, in, out);
    p.b = Tensor(DType::F32, 1, out);
    if (low)
      p.wLow = Tensor(d, in, out);
    auto& g = m_grads[l];
    g.w = Tensor(DType::F32, in, out);
    g.b = Tensor(DType::F32, 1, out);
    if (accumulation > 1) {
      g.wStep = Tensor(DType::F32, in, out);
      g.bStep = Tensor(DType::F32, 1, out);
    }
    if (bf16Grads)
      g.wBf16 = Tensor(DType::BF16, in, out);
    auto& a = m_acts[l];
    if (low) {
      a.in = Tensor(d, batch, in);
      a.dpreLow = Tensor(d, batch, out);
    }
    a.pre = Tensor(DType::F32, batch, out);
    if (m_linear.back().forwardToBf16InKernel())
      a.preBf16 = Tensor(DType::BF16, batch, out);
    if (l + 1 < n)
      a.post = Tensor(DType::F32, batch, out);
    a.dpre = Tensor(DType::F32, batch, out);
    if (l > 0)
      a.dIn = Tensor(DType::F32, batch, in);
    if (l > 0 && bf16Grads)
      a.dInBf16 = Tensor(DType::BF16, batch, in);
  }
  m_x = Tensor(DType::F32, batch, spec.widths.front());
  m_labels.assign(static_cast<std::size_t>(batch), 0);
  m_probs = Tensor(DType::F32, batch, spec.widths.back());
}

void Mlp::initialize(std::uint64_t seed, float gain) {
  std::mt19937_64 rng(seed);
  for (int l = 0; l < layers(); ++l) {
    const float bound = gain / std::sqrt(static_cast<float>(m_spec.widths[l]));
    std::uniform_real_distribution<float> dist(-bound, bound);
    auto& p = m_params[l];
    for (float& v : p.w.f32())
      v = dist(rng);
    for (float& v : p.b.f32())
      v = dist(rng);
    if (!m_recipe.masterWeights) {
      roundTo(m_recipe.weights, p.w.f32());
      roundTo(m_recipe.weights, p.b.f32());
    }
  }
  for (auto& s : m_scaled)
    s.setSeed(seed);
  OpTimes ignored;
  refreshWorkingWeights(ignored);
}

const Tensor& Mlp::matmulInput(int l) const {
  if (m_low)
    return m_acts[l].in;
  return l == 0 ? m_x : m_acts[l - 1].post;
}

void Mlp::refreshWorkingWeights(OpTimes& times) {
  if (!m_low)
    return;
  // One team for all layers: each thread casts its share of the weights.
  ScopedTimer t(times.conversion);
  InParallelSection section(m_sections);
  std::size_t total = 0;
  for (const auto& p : m_params)
    total += static_cast<std::size_t>(p.w.size());
  kernels::forChunks(total, [&](std::size_t b, std::size_t e) {
    std::size_t start = 0;
    for (auto& p : m_params) {
      const auto size = static_cast<std::size_t>(p.w.size());
      const std::size_t lo = std::max(b, start), hi = std::min(e, start + size);
      if (lo < hi)
        narrow(m_recipe.matmulInputs, std::as_const(p.w).f32().subspan(lo - start, hi - lo),
               p.wLow.u16().subspan(lo - start, hi - lo));
      start += size;
    }
  });
}

nn::XentResult Mlp::forward(OpTimes& times, int validRows) {
  const DType act = m_recipe.activations;
  const DType d = m_recipe.matmulInputs; // the 16-bit operand dtype where low
  const bool low = m_low;
  const int n = layers();
  if (low) {
    ScopedTimer t(times.conversion);
    InParallelSection p(m_sections);
    kernels::convertParallel(m_x, m_acts[0].in);
  }
  for (int l = 0; l < n; ++l) {
    auto& a = m_acts[l];
    // The kernel adds the bias and rounds to BF16 where it can (same bits).
    const bool preInKernel = m_scaled.empty() && m_linear[l].forwardToBf16InKernel();
    {
      ScopedTimer t(times.matmulForward);
      InParallelSection p(m_sections);
      if (!m_scaled.empty())
        m_scaled[l].forward(matmulInput(l), m_params[l].w, a.pre);
      else if (preInKernel)
        m_linear[l].forwardToBf16(matmulInput(l), m_params[l].wLow, m_params[l].b, a.preBf16);
      else
        m_linear[l].forwardMatmul(matmulInput(l), low ? m_params[l].wLow : m_params[l].w, a.pre);
    }
    if (!preInKernel) {
      ScopedTimer t(times.elementwise);
      kernels::addBias(a.pre, m_params[l].b);
    }
    // One pass over each piece of the layer's output, while it is in cache:
    // pre rounded to the activation dtype (widened exactly where the kernel
    // rounded it), the activation, post rounded, and post cast for the next
    // product. Each value goes through the same operations as in separate
    // passes.
    const bool hidden = l + 1 < n;
    Tensor* nextIn = hidden && low ? &m_acts[l + 1].in : nullptr;
    ScopedTimer t(hidden ? times.elementwise : times.conversion);
    InParallelSection p(m_sections);
    kernels::forChunks(static_cast<std::size_t>(a.pre.size()), [&](std::size_t b, std::size_t e) {
      for (std::size_t o = b; o < e; o += kPassBlock) {
        const std::size_t len = std::min(kPassBlock, e - o);
        const auto pre = a.pre.f32().subspan(o, len);
        if (preInKernel)
          numeric::convertBf16ToF32(std::as_const(a.preBf16).u16().subspan(o, len), pre);
        else
          roundTo(act, pre);
        if (!hidden)
          continue;
        const auto post = a.post.f32().subspan(o, len);
        nn::activationForward(m_spec.activation, pre, post);
        roundTo(act, post);
        if (nextIn != nullptr)
          narrow(d, post, nextIn->u16().subspan(o, len));
      }
    });
  }
  ScopedTimer t(times.loss);
  return nn::softmaxXentForward(m_acts[n - 1].pre.f32(), m_labels,
                                validRows > 0 ? validRows : m_batch, m_spec.widths.back(),
                                m_probs.f32());
}

void Mlp::backward(float scale, bool accumulate, OpTimes& times,
                   const std::function<void(int)>& layerDone) {
  const DType grad = m_recipe.gradients;
  const DType d = m_recipe.matmulInputs; // the 16-bit operand dtype where low
  const bool low = m_low;
  const int n = layers();
  {
    ScopedTimer t(times.loss);
    nn::softmaxXentBackward(m_probs.f32(), m_labels, m_batch, m_spec.widths.back(), scale,
                            m_acts[n - 1].dpre.f32());
  }
  for (int l = n - 1; l >= 0; --l) {
    auto& a = m_acts[l];
    auto& g = m_grads[l];
    {
      // One pass over each piece: the next layer's dX made final (widened
      // exactly where its kernel rounded it, else rounded to the gradient
      // dtype), the activation's gradient, dpre rounded to the gradient dtype
      // and cast for the products.
      const bool hidden = l + 1 < n;
      Tensor* dIn = hidden ? &m_acts[l + 1].dIn : nullptr;
      const Tensor* dInBf16 =
          hidden && m_scaled.empty() && m_linear[l + 1].gradientsToBf16InKernel()
              ? &m_acts[l + 1].dInBf16
              : nullptr;
      ScopedTimer t(hidden ? times.elementwise : times.conversion);
      InParallelSection p(m_sections);
      kernels::forChunks(static_cast<std::size_t>(a.dpre.size()), [&](std::size_t b, std::size_t e) {
        for (std::size_t o = b; o < e; o += kPassBlock) {
          const std::size_t len = std::min(kPassBlock, e - o);
          const auto dpre = a.dpre.f32().subspan(o, len);
          if (hidden) {
            const auto dx = dIn->f32().subspan(o, len);
            if (dInBf16 != nullptr)
              numeric::convertBf16ToF32(dInBf16->u16().subspan(o, len), dx); // exact
            else
              roundTo(grad, dx);
            nn::activationBackward(m_spec.activation, std::as_const(a.pre).f32().subspan(o, len),
                                   std::as_const(a.post).f32().subspan(o, len), dx, dpre);
          }
          roundTo(grad, dpre);
          if (low)
            narrow(d, dpre, a.dpreLow.u16().subspan(o, len));
        }
      });
    }
    const Tensor& dy = low ? a.dpreLow : a.dpre;
    Tensor& dW = accumulate ? g.wStep : g.w;
    Tensor& db = accumulate ? g.bStep : g.b;
    // The kernel writes dW rounded to BF16 unless its underflow is counted.
    const bool dWInKernel =
        m_scaled.empty() && m_linear[l].gradientsToBf16InKernel() && !m_measureUnderflow;
    {
      ScopedTimer t(times.matmulBackward);
      InParallelSection p(m_sections);
      if (!m_scaled.empty())
        m_scaled[l].backwardWeights(matmulInput(l), dy, dW);
      else if (dWInKernel)
        m_linear[l].backwardWeightsToBf16(matmulInput(l), dy, g.wBf16);
      else
        m_linear[l].backwardWeights(matmulInput(l), dy, dW);
    }
    {
      ScopedTimer t(times.elementwise);
      InParallelSection p(m_sections);
      kernels::biasGradient(a.dpre, db);
    }
    // Underflow accounting, at telemetry steps only: the zeros of the FP32
    // accumulator before and after the rounding below, counted inside it
    // while each chunk is in cache (so its small cost shows as conversion).
    // FP32 gradients lose nothing: a count of the non-zeros is telemetry work.
    if (m_measureUnderflow && grad == DType::F32) {
      ScopedTimer t(times.telemetry);
      const auto c = telemetry::zeroLossCounts(dW.f32(), grad);
      m_underflow[l] = GradUnderflow{static_cast<std::int64_t>(c.nonzero), 0};
    }
    {
      ScopedTimer t(times.conversion);
      if (dWInKernel) {
        InParallelSection p(m_sections);
        kernels::convertParallel(g.wBf16, dW); // exact: the values are BF16 already
      } else if (m_measureUnderflow && grad != DType::F32) {
        const auto z = grad == DType::BF16 ? numeric::roundTripBf16CountingZeros(dW.f32())
                                           : numeric::roundTripF16CountingZeros(dW.f32());
        m_underflow[l] = GradUnderflow{static_cast<std::int64_t>(dW.f32().size() - z.before),
                                       static_cast<std::int64_t>(z.after - z.before)};
      } else {
        InParallelSection p(m_sections);
        kernels::roundToParallel(grad, dW.f32());
      }
      roundTo(grad, db.f32());
    }
    if (accumulate) {
      ScopedTimer t(times.elementwise);
      auto gw = g.w.f32();
      auto sw = g.wStep.f32();
      for (std::size_t i = 0; i < gw.size(); ++i)
        gw[i] += sw[i];
      auto gb = g.b.f32();
      auto sb = g.bStep.f32();
      for (std::size_t i = 0; i < gb.size(); ++i)
        gb[i] += sb[i];
    }
    if (layerDone)
      layerDone(l);
    // dX; the pass of layer l - 1 widens or rounds it (above).
    if (l > 0) {
      ScopedTimer t(times.matmulBackward);
      InParallelSection p(m_sections);
      if (!m_scaled.empty())
        m_scaled[l].backwardData(dy, m_params[l].w, a.dIn);
      else if (m_linear[l].gradientsToBf16InKernel())
        m_linear[l].backwardDataToBf16(dy, m_params[l].wLow, a.dInBf16);
      else
        m_linear[l].backwardData(dy, low ? m_params[l].wLow : m_params[l].w, a.dIn);
    }
  }
}

std::vector<telemetry::ScaledTensorStats> Mlp::scalingStats() const {
  std::vector<telemetry::ScaledTensorStats> out;
  for (const auto& s : m_scaled)
    for (auto& t : s.lastStats())
      out.push_back(std::move(t));
  return out;
}

void Mlp::shadowTensors(std::vector<ShadowTensor>& out) const {
  detail::perLayerShadowTensors(*this, m_recipe.activations, m_recipe.gradients, out);
}

std::optional<NonFiniteSite> Mlp::firstNonFinite(bool backward) const {
  const int n = layers();
  const std::string act(nn::activationName(m_spec.activation));
  if (!backward) {
    for (int l = 0; l < n; ++l) {
      if (!allFinite(m_acts[l].pre))
        return NonFiniteSite{l, false, "linear"};
      if (!allFinite(m_acts[l].post))
        return NonFiniteSite{l, false, act};
    }
    return std::nullopt;
  }
  for (int l = n - 1; l >= 0; --l) {
    if (!allFinite(m_acts[l].dpre))
      return NonFiniteSite{l, true, l + 1 == n ? "softmax-xent" : act};
    if (!allFinite(m_grads[l].w))
      return NonFiniteSite{l, true, "linear dW"};
    if (!allFinite(m_grads[l].b))
      return NonFiniteSite{l, true, "linear db"};
    if (!allFinite(m_acts[l].dIn))
      return NonFiniteSite{l, true, "linear dX"};
  }
  return std::nullopt;
}

} // namespace mantissa::model
