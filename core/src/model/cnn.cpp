// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Cnn: forward, backward and working-weight refresh, executing the recipe.
#include <mantissa/model/cnn.h>

#include "network_parts.h"

#include <mantissa/kernels/elementwise.h>
#include <mantissa/nn/activation.h>
#include <mantissa/nn/batchnorm2d.h>
#include <mantissa/nn/pool2d.h>
#include <mantissa/nn/softmax_xent.h>
#include <mantissa/numeric/convert.h>
#include <mantissa/telemetry/zero_loss.h>
#include <mantissa/tensor/run_state.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>

namespace mantissa::model {

using detail::allFinite;
using detail::allocated;
using detail::InParallelSection;

namespace {


void addInto(Tensor& total, const Tensor& step) {
  auto t = total.f32();
  auto s = step.f32();
  for (std::size_t i = 0; i < t.size(); ++i)
    t[i] += s[i];
}

} // namespace

Cnn::Cnn(const CnnSpec& spec, std::vector<CnnLayer> layout, int batch, const amp::Recipe& recipe,
         int accumulation, DType bnStats)
    : m_spec(spec), m_layout(std::move(layout)), m_batch(batch), m_recipe(recipe),
      m_accumulation(accumulation), m_bnStats(bnStats) {
  if (m_layout.empty() || m_layout.back().block.conv || !m_layout.front().block.conv)
    throw std::invalid_argument("Cnn: the layout must start with a convolution and end with the classifier");
  // Scaled recipes: fc layers through nn::ScaledLinear; convolutions quantized
  // per tensor under fp8-delayed and fp8-current, in the recipe's 16-bit
  // inputs under the block recipes (their blocks follow a GEMM's sum).
  const bool scaled = recipe.scaling != amp::MatmulScaling::None;
  const bool convScaled = recipe.scaling == amp::MatmulScaling::Fp8Delayed ||
                          recipe.scaling == amp::MatmulScaling::Fp8Current;
  const DType d = convScaled ? DType::F32 : recipe.matmulInputs;
  const bool low = d != DType::F32;
  m_low = low;
  const auto n = m_layout.size();
  m_params.resize(n);
  m_grads.resize(n);
  m_acts.resize(n);
  m_norm.resize(n);
  m_argmax.resize(n);
  m_underflow.resize(n);
  m_opIndex.resize(n);
  for (std::size_t l = 0; l < n; ++l) {
    const auto& L = m_layout[l];
    const std::int64_t inVals = L.inValues();
    std::int64_t wRows, wCols, preVals;
    if (L.block.conv) {
      m_opIndex[l] = static_cast<int>(m_conv.size());
      m_conv.emplace_back(batch, L.cin, L.cout, L.h, L.w, L.block.kernel, d);
      wRows = L.cout;
      wCols = std::int64_t{L.cin} * L.block.kernel * L.block.kernel;
      preVals = std::int64_t{L.cout} * L.h * L.w;
      if (convScaled) {
        const std::string p = "layer" + std::to_string(l);
        const amp::ScalingOptions o{recipe.scaling};
        m_convScaling.push_back({nn::OperandQuantizer(p + ".x", telemetry::ScaledRole::Input, o),
                                 nn::OperandQuantizer(p + ".w", telemetry::ScaledRole::Weight, o),
                                 nn::OperandQuantizer(p + ".dy", telemetry::ScaledRole::GradOutput, o),
                                 Tensor(DType::F32, batch, inVals), Tensor(DType::F32, wRows, wCols),
                                 Tensor(DType::F32, batch, preVals)});
      }
    } else {
      m_opIndex[l] = static_cast<int>(m_linear.size());
      m_linear.emplace_back(batch, L.cin, L.cout, d);
      if (scaled)
        m_scaledFc.emplace_back("layer" + std::to_string(l), batch, L.cin, L.cout,
                                amp::ScalingOptions{recipe.scaling}, std::uint64_t(l));
      wRows = L.cin;
      wCols = L.cout;
      preVals = L.cout;
    }
    auto& p = m_params[l];
    p.w = Tensor(DType::F32, wRows, wCols);
    p.b = Tensor(DType::F32, 1, L.cout);
    if (low)
      p.wLow = Tensor(d, wRows, wCols);
    auto& g = m_grads[l];
    g.w = Tensor(DType::F32, wRows, wCols);
    g.b = Tensor(DType::F32, 1, L.cout);
    if (accumulation > 1) {
      g.wStep = Tensor(DType::F32, wRows, wCols);
      g.bStep = Tensor(DType::F32, 1, L.cout);
    }
    auto& a = m_acts[l];
    if (low) {
      a.in = Tensor(d, batch, inVals);
      a.dpreLow = Tensor(d, batch, preVals);
    }
    a.pre = Tensor(DType::F32, batch, preVals);
    a.dpre = Tensor(DType::F32, batch, preVals);
    if (l + 1 < n)
      a.post = Tensor(DType::F32, batch, L.outValues());
    if (l > 0)
      a.dIn = Tensor(DType::F32, batch, inVals);
    if (L.block.batchNorm) {
      auto& nm = m_norm[l];
      for (Tensor* t : {&nm.gamma, &nm.beta, &nm.dgamma, &nm.dbeta, &nm.mean, &nm.rstd,
                        &nm.runningMean, &nm.runningVar})
        *t = Tensor(DType::F32, 1, L.cout);
      if (accumulation > 1) {
        nm.dgammaStep = Tensor(DType::F32, 1, L.cout);
        nm.dbetaStep = Tensor(DType::F32, 1, L.cout);
      }
      nm.out = Tensor(DType::F32, batch, preVals);
      nm.dout = Tensor(DType::F32, batch, preVals);
    }
    if (L.block.pool)
      m_argmax[l].assign(static_cast<std::size_t>(batch * L.outValues()), 0);
  }
  m_x = Tensor(DType::F32, batch, m_layout.front().inValues());
  m_xs = Tensor(DType::F32, batch, m_layout.front().inValues());
  m_labels.assign(static_cast<std::size_t>(batch), 0);
  m_probs = Tensor(DType::F32, batch, m_layout.back().cout);
  if (m_linear.empty())
    throw std::invalid_argument("Cnn: no classifier");
}

Cnn::~Cnn() = default;

const nn::Conv2d& Cnn::conv(int layer) const {
  return m_conv.at(static_cast<std::size_t>(m_opIndex.at(static_cast<std::size_t>(layer))));
}

void Cnn::initialize(std::uint64_t seed, float gain) {
  std::mt19937_64 rng(seed);
  for (std::size_t l = 0; l < m_layout.size(); ++l) {
    const auto& L = m_layout[l];
    const std::int64_t fanIn =
        L.block.conv ? std::int64_t{L.cin} * L.block.kernel * L.block.kernel : L.cin;
    const float bound = gain / std::sqrt(static_cast<float>(fanIn));
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
    auto& nm = m_norm[l];
    if (nm.gamma.size() > 0) {
      for (float& v : nm.gamma.f32())
        v = 1.0f;
      for (float& v : nm.beta.f32())
        v = 0.0f;
      for (float& v : nm.runningMean.f32())
        v = 0.0f;
      for (float& v : nm.runningVar.f32())
        v = 1.0f;
    }
  }
  for (auto& s : m_scaledFc)
    s.setSeed(seed);
  OpTimes ignored;
  refreshWorkingWeights(ignored);
}

void Cnn::setInputStandardization(float mean, float std) {
  if (!std::isfinite(mean) || !std::isfinite(std) || !(std > 0.0f))
    throw std::invalid_argument("Cnn: input standardization needs a finite mean and a positive "
                                "standard deviation, got mean " +
                                std::to_string(mean) + " and std " + std::to_string(std));
  m_inputMean = mean;
  m_inputStd = std;
}

const Tensor& Cnn::productInput(int l) const {
  if (m_low)
    return m_acts[static_cast<std::size_t>(l)].in;
  return fp32Input(l);
}

const Tensor& Cnn::fp32Input(int l) const {
  return l == 0 ? m_xs : m_acts[static_cast<std::size_t>(l) - 1].post;
}

std::vector<telemetry::ScaledTensorStats> Cnn::scalingStats() const {
  std::vector<telemetry::ScaledTensorStats> out;
  for (std::size_t l = 0; l < m_layout.size(); ++l) {
    const int k = m_opIndex[l];
    if (m_layout[l].block.conv) {
      if (!m_convScaling.empty())
        for (const auto* q : {&m_convScaling[std::size_t(k)].x, &m_convScaling[std::size_t(k)].w,
                              &m_convScaling[std::size_t(k)].dy})
          if (q->stats())
            out.push_back(*q->stats());
    } else if (!m_scaledFc.empty()) {
      for (auto& s : m_scaledFc[std::size_t(k)].lastStats())
        out.push_back(std::move(s));
    }
  }
  return out;
}

void Cnn::refreshWorkingWeights(OpTimes& times) {
  if (!m_low)
    return;
  ScopedTimer t(times.conversion);
  for (auto& p : m_params)
    p.wLow.convertFrom(p.w);
}

nn::XentResult Cnn::forward(OpTimes& times, int validRows) {
  const DType act = m_recipe.activations;
  const bool low = m_low;
  const int n = layers();
  const int B = m_batch;
  {
    ScopedTimer t(times.elementwise);
    nn::standardize(m_xs.f32(), m_x.f32(), m_inputMean, m_inputStd);
  }
  for (int l = 0; l < n; ++l) {
    const auto i = static_cast<std::size_t>(l);
    const auto& L = m_layout[i];
    auto& a = m_acts[i];
    const Tensor& w = low ? m_params[i].wLow : m_params[i].w;
    if (low) {
      ScopedTimer t(times.conversion);
      a.in.convertFrom(l == 0 ? m_xs : m_acts[i - 1].post);
    }
    if (L.block.conv) {
      {
        ScopedTimer t(times.convForward);
        InParallelSection p(m_sections);
        if (!m_convScaling.empty()) {
          auto& cs = m_convScaling[static_cast<std::size_t>(m_opIndex[i])];
          cs.x.quantize(fp32Input(l), cs.xq, amp::BlockAxis::Rows, false, 0);
          cs.w.quantize(m_params[i].w, cs.wq, amp::BlockAxis::Rows, false, 0);
          m_conv[static_cast<std::size_t>(m_opIndex[i])].forward(cs.xq, cs.wq, a.pre);
        } else {
          m_conv[static_cast<std::size_t>(m_opIndex[i])].forward(productInput(l), w, a.pre);
        }
      }
      {
        ScopedTimer t(times.elementwise);
        nn::addChannelBias(a.pre.f32(), m_params[i].b.f32(), B, L.cout, L.h * L.w);
      }
    } else {
      {
        ScopedTimer t(times.matmulForward);
        InParallelSection p(m_sections);
        if (!m_scaledFc.empty())
          m_scaledFc[static_cast<std::size_t>(m_opIndex[i])].forward(fp32Input(l), m_params[i].w,
                                                                      a.pre);
        else
          m_linear[static_cast<std::size_t>(m_opIndex[i])].forwardMatmul(productInput(l), w, a.pre);
      }
      ScopedTimer t(times.elementwise);
      kernels::addBias(a.pre, m_params[i].b);
    }
    {
      ScopedTimer t(times.conversion);
      roundTo(act, a.pre.f32());
    }
    if (l + 1 == n)
      break;
    const Tensor* cur = &a.pre;
    if (L.block.batchNorm) {
      auto& nm = m_norm[i];
      {
        ScopedTimer t(times.elementwise);
        if (m_training)
          nn::batchNorm2dTrainForward(nm.out.f32(), nm.mean.f32(), nm.rstd.f32(),
                                      nm.runningMean.f32(), nm.runningVar.f32(), a.pre.f32(),
                                      nm.gamma.f32(), nm.beta.f32(), B, L.cout, L.h * L.w,
                                      m_bnStats);
        else
          nn::batchNorm2dEvalForward(nm.out.f32(), a.pre.f32(), nm.gamma.f32(), nm.beta.f32(),
                                     nm.runningMean.f32(), nm.runningVar.f32(), B, L.cout,
                                     L.h * L.w);
      }
      ScopedTimer t(times.conversion);
      roundTo(act, nm.out.f32());
      cur = &nm.out;
    }
    if (L.block.pool) {
      // ReLU and pooling in one pass; both pick stored values (ReLU's +0 is
      // exact in every format), so nothing needs rounding.
      ScopedTimer t(times.elementwise);
      nn::reluMaxPool2dForward(a.post.f32(), m_argmax[i], cur->f32(), B, L.cout, L.h, L.w);
      continue;
    }
    {
      ScopedTimer t(times.elementwise);
      nn::activationForward(nn::Activation::Relu, cur->f32(), a.post.f32());
    }
    ScopedTimer t(times.conversion);
    roundTo(act, a.post.f32());
  }
  ScopedTimer t(times.loss);
  return nn::softmaxXentForward(m_acts[static_cast<std::size_t>(n) - 1].pre.f32(), m_labels,
                                validRows > 0 ? validRows : m_batch, m_layout.back().cout,
                                m_probs.f32());
}

void Cnn::backward(float scale, bool accumulate, OpTimes& times,
                   const std::function<void(int)>& layerDone) {
  const DType grad = m_recipe.gradients;
  const bool low = m_low;
  const int n = layers();
  const int B = m_batch;
  {
    ScopedTimer t(times.loss);
    nn::softmaxXentBackward(m_probs.f32(), m_labels, B, m_layout.back().cout, scale,
                            m_acts[static_cast<std::size_t>(n) - 1].dpre.f32());
  }
  for (int l = n - 1; l >= 0; --l) {
    const auto i = static_cast<std::size_t>(l);
    const auto& L = m_layout[i];
    auto& a = m_acts[i];
    auto& g = m_grads[i];
    auto& nm = m_norm[i];
    if (l + 1 < n) {
      const Tensor& dpost = m_acts[i + 1].dIn;
      Tensor& dReluIn = L.block.batchNorm ? nm.dout : a.dpre;
      {
        ScopedTimer t(times.elementwise);
        // The ReLU's gradient from dpost, routed through the pooling first
        // (one pass) in pooled blocks.
        const Tensor& reluIn = L.block.batchNorm ? nm.out : a.pre;
        if (L.block.pool)
          nn::maxPool2dReluBackward(dReluIn.f32(), dpost.f32(), m_argmax[i], reluIn.f32(), B,
                                    L.cout, L.h, L.w);
        else
          nn::activationBackward(nn::Activation::Relu, reluIn.f32(), a.post.f32(), dpost.f32(),
                                 dReluIn.f32());
      }
      if (L.block.batchNorm) {
        {
          ScopedTimer c(times.conversion);
          roundTo(grad, nm.dout.f32());
        }
        Tensor& dgamma = accumulate ? nm.dgammaStep : nm.dgamma;
        Tensor& dbeta = accumulate ? nm.dbetaStep : nm.dbeta;
        {
          ScopedTimer t(times.elementwise);
          nn::batchNorm2dBackward(a.dpre.f32(), dgamma.f32(), dbeta.f32(), nm.dout.f32(),
                                  a.pre.f32(), nm.gamma.f32(), nm.mean.f32(), nm.rstd.f32(), B,
                                  L.cout, L.h * L.w);
        }
        {
          ScopedTimer c(times.conversion);
          roundTo(grad, dgamma.f32());
          roundTo(grad, dbeta.f32());
        }
        if (accumulate) {
          ScopedTimer t(times.elementwise);
          addInto(nm.dgamma, nm.dgammaStep);
          addInto(nm.dbeta, nm.dbetaStep);
        }
      }
    }
    {
      ScopedTimer t(times.conversion);
      roundTo(grad, a.dpre.f32());
      if (low)
        a.dpreLow.convertFrom(a.dpre);
    }
    const Tensor& dy = low ? a.dpreLow : a.dpre;
    Tensor& dW = accumulate ? g.wStep : g.w;
    Tensor& db = accumulate ? g.bStep : g.b;
    const Tensor& w = low ? m_params[i].wLow : m_params[i].w;
    if (L.block.conv) {
      {
        ScopedTimer t(times.convBackward);
        InParallelSection p(m_sections);
        if (!m_convScaling.empty()) {
          auto& cs = m_convScaling[static_cast<std::size_t>(m_opIndex[i])];
          cs.dy.quantize(a.dpre, cs.dyq, amp::BlockAxis::Rows, false, 0);
          m_conv[static_cast<std::size_t>(m_opIndex[i])].backwardWeights(cs.xq, cs.dyq, dW);
        } else {
          m_conv[static_cast<std::size_t>(m_opIndex[i])].backwardWeights(productInput(l), dy, dW);
        }
      }
      ScopedTimer t(times.elementwise);
      nn::channelBiasGradient(db.f32(), a.dpre.f32(), B, L.cout, L.h * L.w);
    } else {
      {
        ScopedTimer t(times.matmulBackward);
        InParallelSection p(m_sections);
        if (!m_scaledFc.empty())
          m_scaledFc[static_cast<std::size_t>(m_opIndex[i])].backwardWeights(fp32Input(l), a.dpre,
                                                                              dW);
        else
          m_linear[static_cast<std::size_t>(m_opIndex[i])].backwardWeights(productInput(l), dy, dW);
      }
      ScopedTimer t(times.elementwise);
      kernels::biasGradient(a.dpre, db);
    }
    if (m_measureUnderflow && grad == DType::F32) {
      ScopedTimer t(times.telemetry);
      const auto c = telemetry::zeroLossCounts(dW.f32(), grad);
      m_underflow[i] = GradUnderflow{static_cast<std::int64_t>(c.nonzero), 0};
    }
    {
      ScopedTimer t(times.conversion);
      if (m_measureUnderflow && grad != DType::F32) {
        const auto z = grad == DType::BF16 ? numeric::roundTripBf16CountingZeros(dW.f32())
                                           : numeric::roundTripF16CountingZeros(dW.f32());
        m_underflow[i] = GradUnderflow{static_cast<std::int64_t>(dW.f32().size() - z.before),
                                       static_cast<std::int64_t>(z.after - z.before)};
      } else {
        roundTo(grad, dW.f32());
      }
      roundTo(grad, db.f32());
    }
    if (accumulate) {
      ScopedTimer t(times.elementwise);
      addInto(g.w, g.wStep);
      addInto(g.b, g.bStep);
    }
    if (layerDone)
      layerDone(l);
    if (l > 0) {
      if (L.block.conv) {
        ScopedTimer t(times.convBackward);
        InParallelSection p(m_sections);
        if (!m_convScaling.empty()) {
          auto& cs = m_convScaling[static_cast<std::size_t>(m_opIndex[i])];
          m_conv[static_cast<std::size_t>(m_opIndex[i])].backwardData(cs.dyq, cs.wq, a.dIn);
        } else {
          m_conv[static_cast<std::size_t>(m_opIndex[i])].backwardData(dy, w, a.dIn);
        }
      } else {
        ScopedTimer t(times.matmulBackward);
        InParallelSection p(m_sections);
        if (!m_scaledFc.empty())
          m_scaledFc[static_cast<std::size_t>(m_opIndex[i])].backwardData(a.dpre, m_params[i].w,
                                                                           a.dIn);
        else
          m_linear[static_cast<std::size_t>(m_opIndex[i])].backwardData(dy, w, a.dIn);
      }
      ScopedTimer t(times.conversion);
      roundTo(grad, a.dIn.f32());
    }
  }
}

void Cnn::shadowTensors(std::vector<ShadowTensor>& out) const {
  detail::perLayerShadowTensors(*this, m_recipe.activations, m_recipe.gradients, out);
  // BatchNorm subtracts the batch mean, so the bias of the convolution before
  // it has an exact gradient of zero: what a run holds there is rounding
  // noise, without a value to be compared with.
  std::erase_if(out, [this](const ShadowTensor& t) {
    for (std::size_t l = 0; l < m_layout.size(); ++l)
      if (m_layout[l].block.batchNorm && t.name == "layer" + std::to_string(l) + ".b gradient")
        return true;
    return false;
  });
}

std::optional<NonFiniteSite> Cnn::firstNonFinite(bool backward) const {
  const int n = layers();
  if (!backward) {
    for (int l = 0; l < n; ++l) {
      const auto i = static_cast<std::size_t>(l);
      const auto& L = m_layout[i];
      if (!allFinite(m_acts[i].pre))
        return NonFiniteSite{l, false, L.block.conv ? "conv" : "linear"};
      if (!allFinite(m_norm[i].out))
        return NonFiniteSite{l, false, "batchnorm"};
      if (!allFinite(m_acts[i].post))
        return NonFiniteSite{l, false, L.block.pool ? "maxpool" : "relu"};
    }
    return std::nullopt;
  }
  for (int l = n - 1; l >= 0; --l) {
    const auto i = static_cast<std::size_t>(l);
    const auto& L = m_layout[i];
    const std::string op = L.block.conv ? "conv" : "linear";
    if (!allFinite(m_norm[i].dout))
      return NonFiniteSite{l, true, "relu"};
    if (!allFinite(m_acts[i].dpre))
      return NonFiniteSite{l, true,
                           l + 1 == n ? "softmax-xent" : L.block.batchNorm ? "batchnorm" : "relu"};
    if (!allFinite(m_grads[i].w))
      return NonFiniteSite{l, true, op + " dW"};
    if (!allFinite(m_grads[i].b))
      return NonFiniteSite{l, true, op + " db"};
    if (!allFinite(m_norm[i].dgamma) || !allFinite(m_norm[i].dbeta))
      return NonFiniteSite{l, true, "batchnorm dgamma"};
    if (!allFinite(m_acts[i].dIn))
      return NonFiniteSite{l, true, op + " dX"};
  }
  return std::nullopt;
}

std::vector<LayerInfo> Cnn::layerInfo() const {
  std::vector<LayerInfo> info;
  for (std::size_t l = 0; l < m_layout.size(); ++l) {
    const auto& L = m_layout[l];
    const auto& p = m_params[l];
    std::string name;
    if (L.block.conv)
      name = "conv " + std::to_string(L.block.kernel) + "\u00d7" + std::to_string(L.block.kernel) +
             " " + std::to_string(L.cin) + "\u2192" + std::to_string(L.cout) +
             (L.block.batchNorm ? " +BN" : "") + (L.block.pool ? " +pool" : "");
    else
      name = "linear " + std::to_string(L.cin) + "\u2192" + std::to_string(L.cout);
    info.push_back({name, static_cast<int>(p.w.rows()), static_cast<int>(p.w.cols())});
  }
  return info;
}

std::vector<amp::RecipeRow> Cnn::opRows() const {
  const auto name = [](DType d) { return std::string(dtypeName(d)); };
  const nn::Conv2d& c = m_conv.front();
  std::vector<amp::RecipeRow> rows;
  if (!m_convScaling.empty())
    rows.push_back({"convolution inputs", amp::scalingPrecision(m_recipe.scaling),
                    "X, W and dY of every convolution quantized with one FP32 scale per tensor (" +
                        std::string(amp::matmulScalingName(m_recipe.scaling)) +
                        "), dequantized exactly, convolved in FP32; oneDNN kernel " +
                        c.implementation()});
  else
  rows.push_back({"convolution inputs", name(m_recipe.matmulInputs),
                  "X, W and dY of every convolution; oneDNN kernels: forward " +
                      c.implementation() + ", backward data " + c.backwardDataImplementation() +
                      ", backward weights " + c.backwardWeightsImplementation() +
                      (m_recipe.scaling != amp::MatmulScaling::None
                           ? std::string("; block scaling covers the fully connected layers "
                                         "only, the convolutions keep these inputs")
                           : std::string())});
  rows.push_back({"convolution accumulation", name(m_recipe.accumulation),
                  "every convolution summed in FP32 (oneDNN f32 dst)"});
  bool bn = false;
  for (const auto& l : m_layout)
    bn = bn || l.block.batchNorm;
  if (bn)
    rows.push_back({"BatchNorm statistics", name(m_bnStats),
                    m_bnStats == DType::F32
                        ? "batch mean, variance and 1/sqrt per channel in FP32; running statistics "
                          "for evaluation; backward in FP32"
                        : "running sums, mean, variance and 1/sqrt rounded to this precision after "
                          "every operation; backward in FP32"});
  {
    char text[160] = "none: the inputs as loaded";
    if (m_inputMean != 0.0f || m_inputStd != 1.0f)
      std::snprintf(text, sizeof text,
                    "(x - %.4f) / %.4f, the training set's pixel mean and standard deviation",
                    double(m_inputMean), double(m_inputStd));
    rows.push_back({"input standardization", "fp32", text});
  }
  rows.push_back({"pooling, ReLU", name(m_recipe.activations),
                  "max pooling picks stored values; ReLU outputs rounded on store"});
  return rows;
}

std::vector<Parameter> Cnn::parameters() {
  std::vector<Parameter> out;
  const bool cast = detail::optimizerCastsWorking(m_params);
  for (std::size_t l = 0; l < m_layout.size(); ++l) {
    const CnnLayer& c = m_layout[l];
    const auto cout = std::uint64_t(c.cout), cin = std::uint64_t(c.cin);
    const auto k = std::uint64_t(c.block.kernel);
    // A convolution's [Cout, Cin·k·k] is PyTorch's [Cout, Cin, k, k] in the
    // same order; a fully connected layer's [I, O] is nn.Linear's [O, I] transposed.
    detail::appendLayerParameters(out, int(l), m_params[l], m_grads[l], cast,
                                  "layers." + std::to_string(l),
                                  c.block.conv ? std::vector<std::uint64_t>{cout, cin, k, k}
                                               : std::vector<std::uint64_t>{cout, std::uint64_t(c.inValues())},
                                  !c.block.conv);
  }
  for (std::size_t l = 0; l < m_layout.size(); ++l) {
    auto& nm = m_norm[l];
    if (nm.gamma.size() == 0)
      continue;
    const std::string p = "layer" + std::to_string(l) + ".bn.";
    const std::string t = "layers." + std::to_string(l) + ".bn.";
    const std::vector<std::uint64_t> shape{std::uint64_t(nm.gamma.size())};
    out.push_back({.name = p + "gamma", .value = &nm.gamma, .grad = &nm.dgamma, .working = nullptr,
                   .decay = true, .torchName = t + "weight", .torchShape = shape});
    out.push_back({.name = p + "beta", .value = &nm.beta, .grad = &nm.dbeta, .working = nullptr,
                   .decay = true, .torchName = t + "bias", .torchShape = shape});
  }
  return out;
}

void Cnn::visitState(RunStateVisitor& v) {
  for (std::size_t l = 0; l < m_layout.size(); ++l) {
    auto& nm = m_norm[l];
    if (nm.gamma.size() == 0)
      continue;
    const std::string p = "layer" + std::to_string(l) + ".bn.";
    v.floats(p + "running_mean", nm.runningMean.f32());
    v.floats(p + "running_var", nm.runningVar.f32());
  }
  for (auto& cs : m_convScaling)
    for (auto* q : {&cs.x, &cs.w, &cs.dy})
      q->visitState(v);
  for (auto& s : m_scaledFc)
    s.visitState(v);
}

std::int64_t Cnn::parameterCount() const {
  std::int64_t n = 0;
  for (const auto& p : m_params)
    n += p.w.size() + p.b.size();
  for (const auto& nm : m_norm)
    n += nm.gamma.size() + nm.beta.size();
  return n;
}

std::map<std::string, std::size_t> Cnn::allocatedBytes() const {
  std::map<std::string, std::size_t> b{{"weights", 0},     {"master weights", 0},
                                       {"activations", 0}, {"gradients", 0},
                                       {"matmul FP32 copies", 0}, {"oneDNN scratchpad", 0}};
  const std::string params = m_recipe.masterWeights ? "master weights" : "weights";
  for (const auto& p : m_params) {
    b[params] += allocated(p.w) + allocated(p.b);
    b["weights"] += allocated(p.wLow);
  }
  for (const auto& a : m_acts) {
    b["activations"] += allocated(a.in) + allocated(a.pre) + allocated(a.post);
    b["gradients"] += allocated(a.dpre) + allocated(a.dpreLow) + allocated(a.dIn);
  }
  for (const auto& g : m_grads)
    b["gradients"] += allocated(g.w) + allocated(g.b) + allocated(g.wStep) + allocated(g.bStep);
  for (const auto& nm : m_norm) {
    b[params] += allocated(nm.gamma) + allocated(nm.beta);
    b["activations"] += allocated(nm.mean) + allocated(nm.rstd) + allocated(nm.runningMean) +
                        allocated(nm.runningVar) + allocated(nm.out);
    b["gradients"] += allocated(nm.dgamma) + allocated(nm.dbeta) + allocated(nm.dgammaStep) +
                      allocated(nm.dbetaStep) + allocated(nm.dout);
  }
  for (std::size_t l = 0; l < m_layout.size(); ++l) {
    b["activations"] += m_argmax[l].size() * sizeof(std::int32_t);
  }
  b["activations"] += allocated(m_x) + allocated(m_xs) + allocated(m_probs);
  for (const auto& c : m_conv) {
    b["matmul FP32 copies"] += c.fp32TwinBytes();
    b["oneDNN scratchpad"] += c.scratchpadBytes();
  }
  for (const auto& l : m_linear) {
    b["matmul FP32 copies"] += l.fp32TwinBytes();
    b["oneDNN scratchpad"] += l.scratchpadBytes();
  }
  return b;
}

std::vector<PlanRow> Cnn::plan() const {
  std::vector<PlanRow> rows;
  const auto& r = m_recipe;
  const std::int64_t batch = m_batch;
  const int n = layers();
  for (int l = 0; l < n; ++l) {
    const auto i = static_cast<std::size_t>(l);
    const auto& L = m_layout[i];
    const std::int64_t wr = m_params[i].w.rows(), wc = m_params[i].w.cols();
    const std::int64_t pre = m_acts[i].pre.cols();
    const std::string p = "layer" + std::to_string(l) + ".";
    if (r.masterWeights) {
      rows.push_back({p + "W (master)", TensorRole::MasterWeights, DType::F32, wr, wc});
      rows.push_back({p + "b (master)", TensorRole::MasterWeights, DType::F32, 1, L.cout});
    }
    rows.push_back({p + "W", TensorRole::Weights, r.weights, wr, wc});
    rows.push_back({p + "b", TensorRole::Weights, r.weights, 1, L.cout});
    rows.push_back({p + "in", TensorRole::Activations, r.matmulInputs, batch, L.inValues()});
    rows.push_back({p + "pre", TensorRole::Activations, r.activations, batch, pre});
    if (L.block.batchNorm) {
      if (r.masterWeights)
        rows.push_back({p + "bn.gamma, beta (master)", TensorRole::MasterWeights, DType::F32, 2,
                        L.cout});
      rows.push_back({p + "bn.gamma, beta", TensorRole::Weights, r.weights, 2, L.cout});
      rows.push_back({p + "bn.stats", TensorRole::Activations, m_bnStats, 4, L.cout});
      rows.push_back({p + "bn.out", TensorRole::Activations, r.activations, batch, pre});
      rows.push_back({p + "bn.dgamma, dbeta", TensorRole::Gradients, r.gradients, 2, L.cout});
      rows.push_back({p + "bn.dout", TensorRole::Gradients, r.gradients, batch, pre});
    }
    if (l + 1 < n)
      rows.push_back({p + "post", TensorRole::Activations, r.activations, batch, L.outValues()});
    rows.push_back({p + "dW", TensorRole::Gradients, r.gradients, wr, wc});
    rows.push_back({p + "db", TensorRole::Gradients, r.gradients, 1, L.cout});
    rows.push_back({p + "dpre", TensorRole::Gradients, r.gradients, batch, pre});
    if (l > 0)
      rows.push_back({p + "dIn", TensorRole::Gradients, r.gradients, batch, L.inValues()});
  }
  rows.push_back({"x (standardized)", TensorRole::Activations, DType::F32, batch,
                  m_layout.front().inValues()});
  rows.push_back({"probs", TensorRole::Activations, r.loss, batch, m_layout.back().cout});
  return rows;
}

} // namespace mantissa::model
