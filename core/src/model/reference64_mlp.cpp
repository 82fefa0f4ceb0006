// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The MLP in double (model/mlp.h without the recipe's roundings):
//   pre_l  = in_l . W_l + b_l          W_l [I, O] row-major, in_0 = x
//   post_l = f(pre_l)                  hidden layers; in_{l+1} = post_l
//   loss   = mean over the B rows of cross-entropy(softmax(pre_{L-1}))
// Tensors as the run stores them: "layer<l> output" pre [B, O], "layer<l>
// activation" post [B, O], "layer<l> output gradient" dpre [B, O],
// "layer<l>.W gradient" [I, O], "layer<l>.b gradient" [O].
#include "reference64.h"

#include <mantissa/model/mlp.h>

#include <algorithm>
#include <cmath>

namespace mantissa::model::ref64 {
namespace {

class MlpReference final : public Reference64 {
public:
  explicit MlpReference(const Mlp& model)
      : m_widths(model.spec().widths), m_activation(model.spec().activation),
        m_batch(model.batch()) {
    const int n = layers(), B = m_batch;
    m_x.assign(std::size_t(B) * std::size_t(m_widths.front()), 0.0);
    m_labels.assign(std::size_t(B), 0);
    m_layers.resize(std::size_t(n));
    std::size_t scratch = 0, dIn = 0;
    for (int l = 0; l < n; ++l) {
      const int I = m_widths[std::size_t(l)], O = m_widths[std::size_t(l) + 1];
      const std::string p = "layer" + std::to_string(l);
      auto& L = m_layers[std::size_t(l)];
      L.pre = m_store.add(p + " output", std::size_t(B) * O);
      if (l + 1 < n)
        L.post = m_store.add(p + " activation", std::size_t(B) * O);
      L.dpre = m_store.add(p + " output gradient", std::size_t(B) * O);
      m_params.push_back({p + ".W", std::vector<double>(std::size_t(I) * O),
                          m_store.add(p + ".W gradient", std::size_t(I) * O)});
      m_params.push_back({p + ".b", std::vector<double>(std::size_t(O)),
                          m_store.add(p + ".b gradient", std::size_t(O))});
      scratch =
          std::max({scratch, gemmScratch(true, false, I, O, B), gemmScratch(false, true, B, I, O)});
      dIn = std::max(dIn, std::size_t(B) * I);
    }
    m_scratch.assign(scratch, 0.0);
    m_dIn.assign(dIn, 0.0);
  }

private:
  struct Layer {
    double* pre = nullptr;
    double* post = nullptr;
    double* dpre = nullptr;
  };
  int layers() const { return int(m_widths.size()) - 1; }
  const double* input(int l) const {
    return l == 0 ? m_x.data() : m_layers[std::size_t(l) - 1].post;
  }
  Param& weight(int l) { return m_params[2 * std::size_t(l)]; }
  Param& bias(int l) { return m_params[2 * std::size_t(l) + 1]; }

  void loadBatch(const ShadowBatch& batch) override {
    if (batch.inputs.size() != m_x.size())
      throw std::invalid_argument("FP64 reference: the batch's inputs hold " +
                                  std::to_string(batch.inputs.size()) +
                                  " values, the model reads " + std::to_string(m_x.size()));
    checkIds(batch.labels, m_labels.size(), m_widths.back(), "labels");
    std::copy(batch.inputs.begin(), batch.inputs.end(), m_x.begin());
    std::copy(batch.labels.begin(), batch.labels.end(), m_labels.begin());
  }

  double forward() override {
    const int n = layers(), B = m_batch;
    for (int l = 0; l < n; ++l) {
      const int I = m_widths[std::size_t(l)], O = m_widths[std::size_t(l) + 1];
      auto& L = m_layers[std::size_t(l)];
      gemm(false, false, B, O, I, input(l), I, weight(l).value.data(), O, L.pre, O, false,
           m_scratch);
      const double* b = bias(l).value.data();
      for (int r = 0; r < B; ++r)
        for (int o = 0; o < O; ++o)
          L.pre[std::size_t(r) * O + o] += b[o];
      touch(L.pre);
      if (l + 1 == n)
        break;
      const std::size_t count = std::size_t(B) * O;
      for (std::size_t i = 0; i < count; ++i)
        L.post[i] = activate(L.pre[i]);
      touch(L.post);
    }
    // The gradient of the logits is written by the loss (overwritten by backward's).
    auto& last = m_layers.back();
    return softmaxXent(last.pre, m_labels.data(), B, m_widths.back(), last.dpre);
  }

  void backward() override {
    const int n = layers(), B = m_batch;
    for (int l = n - 1; l >= 0; --l) {
      const int I = m_widths[std::size_t(l)], O = m_widths[std::size_t(l) + 1];
      auto& L = m_layers[std::size_t(l)];
      if (l + 1 < n) { // dpre = dpost * f'(pre), dpost in m_dIn
        const std::size_t count = std::size_t(B) * O;
        for (std::size_t i = 0; i < count; ++i)
          L.dpre[i] = m_dIn[i] * derivative(L.pre[i], L.post[i]);
      }
      gemm(true, false, I, O, B, input(l), I, L.dpre, O, weight(l).grad, O, false, m_scratch);
      double* db = bias(l).grad;
      std::fill(db, db + O, 0.0);
      for (int r = 0; r < B; ++r)
        for (int o = 0; o < O; ++o)
          db[o] += L.dpre[std::size_t(r) * O + o];
      if (l > 0)
        gemm(false, true, B, I, O, L.dpre, O, weight(l).value.data(), O, m_dIn.data(), I, false,
             m_scratch);
    }
  }

  std::span<Param> params() override { return m_params; }

  double activate(double x) const {
    switch (m_activation) {
    case nn::Activation::Relu: return x > 0.0 ? x : 0.0;
    case nn::Activation::Gelu: return gelu(x);
    case nn::Activation::Tanh: return std::tanh(x);
    case nn::Activation::Sigmoid: return 1.0 / (1.0 + std::exp(-x));
    }
    return x;
  }
  double derivative(double x, double y) const {
    switch (m_activation) {
    case nn::Activation::Relu: return x > 0.0 ? 1.0 : 0.0;
    case nn::Activation::Gelu: return geluGrad(x);
    case nn::Activation::Tanh: return 1.0 - y * y;
    case nn::Activation::Sigmoid: return y * (1.0 - y);
    }
    return 1.0;
  }

  std::vector<int> m_widths;
  nn::Activation m_activation;
  int m_batch;
  std::vector<double> m_x;
  std::vector<std::int32_t> m_labels;
  std::vector<Layer> m_layers;
  std::vector<Param> m_params;
  std::vector<double> m_dIn;     // [B, I] gradient of layer l's input, read by layer l - 1
  std::vector<double> m_scratch; // the products' transposed operands
};

} // namespace

std::unique_ptr<Reference64> makeMlpReference(const Mlp& model) {
  return std::make_unique<MlpReference>(model);
}

} // namespace mantissa::model::ref64
