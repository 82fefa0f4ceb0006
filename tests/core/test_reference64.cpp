// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The FP64 reference of the shadow pass (model/shadow_reference.h):
//  - every gradient it keeps (parameters and, for the per-layer models, the
//    products' outputs) against central differences of its own forward loss
//    in double, for an MLP, a CNN with BatchNorm and pooling, and a GPT;
//  - its forward against independent double code: the GPT's logits against
//    tests/core/gpt_reference.h, the MLP's tensors against a plain loop;
//  - every tensor it keeps against the FP32 model's own buffer of that
//    tensor after the model's forward and backward (the same layout);
//  - a parameter the run lacks or of the wrong size: std::invalid_argument
//    naming it.
#include "gpt_reference.h"
#include "model/reference64.h"

#include <mantissa/amp/policy.h>
#include <mantissa/amp/recipe.h>
#include <mantissa/model/cnn.h>
#include <mantissa/model/gpt_network.h>
#include <mantissa/model/mlp.h>
#include <mantissa/model/shadow_reference.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace mantissa;

namespace {

model::ShadowBatch batchOf(model::Network& m, const std::vector<model::Parameter>& params) {
  model::ShadowBatch b;
  b.inputs = m.inputs();
  b.tokens = m.tokens();
  b.labels = m.labels();
  b.parameters = params;
  return b;
}

model::ref64::Reference64& asRef(model::ShadowReference& r) {
  auto* p = dynamic_cast<model::ref64::Reference64*>(&r);
  if (p == nullptr)
    throw std::logic_error("not an FP64 reference");
  return *p;
}

void fillInputs(model::Network& m, std::uint64_t seed, int classes) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& v : m.inputs())
    v = u(rng);
  int i = 0;
  for (auto& y : m.labels())
    y = i++ % classes;
}

// Central differences of the reference's forward loss for every value of
// `tensor` (a parameter or a forward tensor) against `grad`.
void expectGradientByDifferences(model::ref64::Reference64& r, const std::string& tensor,
                                 std::size_t count, const std::vector<double>& grad) {
  ASSERT_EQ(grad.size(), count) << tensor;
  constexpr double h = 1e-5;
  double worst = 0.0;
  for (std::size_t i = 0; i < count; ++i) {
    const double fd = (r.perturbedLoss(tensor, i, h) - r.perturbedLoss(tensor, i, -h)) / (2 * h);
    const double err = std::abs(grad[i] - fd) / (std::abs(fd) + 1e-4);
    worst = std::max(worst, err);
    EXPECT_LE(std::abs(grad[i] - fd), 1e-6 * std::abs(fd) + 1e-10)
        << tensor << "[" << i << "]: backward " << grad[i] << ", differences " << fd;
  }
  ::testing::Test::RecordProperty(tensor, std::to_string(worst));
}

std::vector<double> copyOf(std::span<const double> s) {
  return {s.begin(), s.end()};
}

// Every parameter's gradient and every "layer<l> output gradient" against
// differences (per-layer models).
void checkGradients(model::Network& m, model::ShadowReference& reference) {
  auto params = m.parameters();
  reference.run(batchOf(m, params));
  auto& r = asRef(reference);
  // Copied first: the differences rerun forward, which rewrites the loss's gradient.
  std::vector<std::pair<std::string, std::vector<double>>> grads;
  for (const auto& p : params)
    grads.emplace_back(p.name, copyOf(r.tensor(p.name + " gradient")));
  for (int l = 0; l < m.layers(); ++l)
    grads.emplace_back("layer" + std::to_string(l) + " output",
                       copyOf(r.tensor("layer" + std::to_string(l) + " output gradient")));
  for (const auto& [name, g] : grads) {
    ASSERT_FALSE(g.empty()) << name;
    std::size_t count = g.size();
    expectGradientByDifferences(r, name, count, g);
  }
}

// a against the reference r: ||a - r|| / ||r|| and every value within
// tol of the tensor's largest magnitude, or within `floor` where the exact
// tensor is zero (a convolution's bias before BatchNorm has no gradient;
// FP32 leaves rounding noise).
void expectClose(std::span<const float> a, std::span<const double> r, const std::string& name,
                 double tol, double floor = 1e-7) {
  ASSERT_EQ(a.size(), r.size()) << name;
  ASSERT_FALSE(r.empty()) << name;
  double num = 0, den = 0, big = 0;
  for (std::size_t i = 0; i < r.size(); ++i) {
    num += (a[i] - r[i]) * (a[i] - r[i]);
    den += r[i] * r[i];
    big = std::max(big, std::abs(r[i]));
  }
  EXPECT_LE(std::sqrt(num), tol * std::sqrt(den) + floor * std::sqrt(double(r.size()))) << name;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < r.size(); ++i)
    if (std::abs(a[i] - r[i]) > tol * big + floor)
      if (bad++ < 3)
        ADD_FAILURE() << name << "[" << i << "]: model " << a[i] << ", reference " << r[i];
}

// Whatever the model lists for the shadow pass (Network::shadowTensors),
// against the reference's tensor of that name.
std::size_t expectShadowTensorsClose(const model::Network& m, const model::ShadowReference& r) {
  std::vector<model::ShadowTensor> listed;
  m.shadowTensors(listed);
  for (const auto& t : listed) {
    const auto ref = r.tensor(t.name);
    EXPECT_FALSE(ref.empty()) << "the reference has no tensor '" << t.name << "'";
    if (!ref.empty())
      expectClose(t.values, ref, t.name + " (listed)", 1e-4);
  }
  return listed.size();
}

// Per-layer models: pre, post, dpre and every parameter's gradient.
void expectLayerTensorsClose(model::Network& m, const model::ShadowReference& r) {
  for (int l = 0; l < m.layers(); ++l) {
    const auto& a = m.acts()[std::size_t(l)];
    const std::string p = "layer" + std::to_string(l);
    expectClose(a.pre.f32(), r.tensor(p + " output"), p + " output", 1e-4);
    if (l + 1 < m.layers())
      expectClose(a.post.f32(), r.tensor(p + " activation"), p + " activation", 1e-4);
    else
      EXPECT_TRUE(r.tensor(p + " activation").empty());
    expectClose(a.dpre.f32(), r.tensor(p + " output gradient"), p + " output gradient", 1e-4);
  }
  for (const auto& p : m.parameters())
    expectClose(std::as_const(*p.grad).f32(), r.tensor(p.name + " gradient"), p.name + " gradient",
                1e-4);
}

struct TinyCnn {
  model::CnnSpec spec = model::parseCnnSpec("cnn:c3k3b-p2-c4k5-f5");
  std::vector<model::CnnLayer> layout = model::cnnLayout(spec, 72, 6, 6, 3);
  static constexpr int B = 4;
};

// BatchNorm's scale and shift away from 1 and 0.
void moveBatchNorm(model::Network& m) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<float> u(0.5f, 1.5f);
  for (auto& p : m.parameters())
    if (p.name.find(".bn.") != std::string::npos)
      for (float& v : p.value->f32())
        v = u(rng) - (p.name.ends_with("beta") ? 1.0f : 0.0f);
}

struct TinyGpt {
  model::GptSpec spec{2, 2, 8, 4};
  static constexpr int V = 5, B = 2;
};
// A context longer than the reference's block of 16 query rows, so that the
// causal products run on more than one block (reference64_gpt.cpp).
const model::GptSpec kLongerContext{2, 2, 8, 18};

void fillTokens(model::GptNetwork& g, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> u(0, g.gpt().vocabulary() - 1);
  for (auto& t : g.tokens())
    t = u(rng);
  for (auto& t : g.labels())
    t = u(rng);
}

// GPT-2's initialisation leaves biases at 0 and LayerNorm at 1: every value
// moved a little, so that each gradient is exercised.
void perturbGpt(model::GptNetwork& g, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> n(0.0f, 0.1f);
  for (auto& p : g.gpt().params())
    for (float& v : p.value.f32())
      v += n(rng);
  g.gpt().refreshWorkingWeights();
}

} // namespace

TEST(Fp64Reference, NamesItsPrecisionAndNoUnknownTensor) {
  model::Mlp m(model::parseMlpSpec("mlp:4-3-2"), 2, amp::recipeByName("fp32"));
  auto r = model::makeFp64Reference(m);
  EXPECT_EQ(r->precision(), "FP64");
  EXPECT_TRUE(r->tensor("layer9 output").empty());
  EXPECT_EQ(r->tensor("layer0 output").size(), 2u * 3u);
  EXPECT_EQ(r->tensor("layer0.W gradient").size(), 4u * 3u);
}

TEST(Fp64Reference, MlpGradientsMatchCentralDifferences) {
  for (const char* spec : {"mlp:5-7-6-3:gelu", "mlp:4-6-3:tanh", "mlp:4-5-3:sigmoid"}) {
    SCOPED_TRACE(spec);
    model::Mlp m(model::parseMlpSpec(spec), 4, amp::recipeByName("fp32"));
    m.initialize(7);
    fillInputs(m, 3, 3);
    auto r = model::makeFp64Reference(m);
    checkGradients(m, *r);
  }
}

TEST(Fp64Reference, CnnGradientsMatchCentralDifferences) {
  TinyCnn t;
  model::Cnn m(t.spec, t.layout, TinyCnn::B, amp::recipeByName("fp32"));
  m.initialize(3);
  m.setInputStandardization(0.3f, 0.4f);
  moveBatchNorm(m);
  fillInputs(m, 11, 3);
  auto r = model::makeFp64Reference(m);
  checkGradients(m, *r);
}

TEST(Fp64Reference, GptGradientsMatchCentralDifferences) {
  for (const model::GptSpec& spec : {TinyGpt{}.spec, kLongerContext}) {
    SCOPED_TRACE(spec.toString());
    model::GptNetwork g(spec, TinyGpt::V, TinyGpt::B, amp::parsePolicy("fp32"));
    g.initialize(1);
    perturbGpt(g, 2);
    fillTokens(g, 4);
    auto r = model::makeFp64Reference(g);
    auto params = g.parameters();
    r->run(batchOf(g, params));
    auto& ref = asRef(*r);
    std::vector<std::pair<std::string, std::vector<double>>> grads;
    for (const auto& p : params)
      grads.emplace_back(p.name, copyOf(r->tensor(p.name + " gradient")));
    EXPECT_EQ(grads.size(), 2u + 12u * 2u + 2u);
    // The longer context: the parameters whose gradients pass through every
    // block's attention backward (kept short under the sanitizers).
    const bool longer = spec.ctx == kLongerContext.ctx;
    for (const auto& [name, grad] : grads)
      if (!longer || name == "h0.qkv.w" || name == "h1.qkv.b" || name == "wpe")
        expectGradientByDifferences(ref, name, grad.size(), grad);
  }
}

TEST(Fp64Reference, GptLogitsMatchTheIndependentDoubleGpt) {
  for (const model::GptSpec& spec : {TinyGpt{}.spec, kLongerContext}) {
    SCOPED_TRACE(spec.toString());
    model::GptNetwork g(spec, TinyGpt::V, TinyGpt::B, amp::parsePolicy("fp32"));
    g.initialize(1);
    perturbGpt(g, 8);
    fillTokens(g, 9);
    auto r = model::makeFp64Reference(g);
    auto params = g.parameters();
    r->run(batchOf(g, params));

    gptref::Params P;
    for (const auto& p : g.gpt().params())
      P[p.name] = std::vector<double>(p.value.f32().begin(), p.value.f32().end());
    const gptref::Config cfg{spec.layers, spec.heads, spec.embd, spec.ctx, TinyGpt::V, TinyGpt::B};
    std::vector<double> logits;
    const std::vector<std::int32_t> tokens(g.tokens().begin(), g.tokens().end());
    const std::vector<std::int32_t> targets(g.labels().begin(), g.labels().end());
    const double loss = gptref::loss(cfg, P, tokens, targets, &logits);
    const auto mine = r->tensor("logits");
    ASSERT_EQ(mine.size(), logits.size());
    for (std::size_t i = 0; i < logits.size(); ++i)
      EXPECT_NEAR(mine[i], logits[i], 1e-12 * std::max(1.0, std::abs(logits[i]))) << i;
    EXPECT_NEAR(asRef(*r).loss(), loss, 1e-12 * loss);
  }
}

TEST(Fp64Reference, MlpForwardMatchesAPlainLoop) {
  const auto spec = model::parseMlpSpec("mlp:6-5-4-3:gelu");
  constexpr int B = 3;
  model::Mlp m(spec, B, amp::recipeByName("fp32"));
  m.initialize(21);
  fillInputs(m, 22, 3);
  auto r = model::makeFp64Reference(m);
  auto params = m.parameters();
  r->run(batchOf(m, params));

  std::vector<double> x(m.inputs().begin(), m.inputs().end());
  double loss = 0;
  for (int l = 0; l < spec.layers(); ++l) {
    const int I = spec.widths[std::size_t(l)], O = spec.widths[std::size_t(l) + 1];
    const auto W = m.params()[std::size_t(l)].w.f32();
    const auto b = m.params()[std::size_t(l)].b.f32();
    std::vector<double> pre(std::size_t(B) * O), post(pre.size());
    for (int n = 0; n < B; ++n)
      for (int o = 0; o < O; ++o) {
        double s = b[std::size_t(o)];
        for (int i = 0; i < I; ++i)
          s += x[std::size_t(n) * I + i] * double(W[std::size_t(i) * O + o]);
        pre[std::size_t(n) * O + o] = s;
        post[std::size_t(n) * O + o] =
            0.5 * s *
            (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (s + 0.044715 * s * s * s)));
      }
    const std::string name = "layer" + std::to_string(l);
    const auto rp = r->tensor(name + " output");
    ASSERT_EQ(rp.size(), pre.size());
    for (std::size_t i = 0; i < pre.size(); ++i)
      EXPECT_NEAR(rp[i], pre[i], 1e-12 * std::max(1.0, std::abs(pre[i]))) << name << " " << i;
    if (l + 1 == spec.layers()) {
      for (int n = 0; n < B; ++n) {
        double mx = -1e300, z = 0;
        for (int o = 0; o < O; ++o)
          mx = std::max(mx, pre[std::size_t(n) * O + o]);
        for (int o = 0; o < O; ++o)
          z += std::exp(pre[std::size_t(n) * O + o] - mx);
        loss +=
            std::log(z) + mx - pre[std::size_t(n) * O + std::size_t(m.labels()[std::size_t(n)])];
      }
      break;
    }
    const auto ra = r->tensor(name + " activation");
    ASSERT_EQ(ra.size(), post.size());
    for (std::size_t i = 0; i < post.size(); ++i)
      EXPECT_NEAR(ra[i], post[i], 1e-12 * std::max(1.0, std::abs(post[i]))) << name << " " << i;
    x = post;
  }
  EXPECT_NEAR(asRef(*r).loss(), loss / B, 1e-12);
}

TEST(Fp64Reference, MlpTensorsMatchTheFp32ModelsBuffers) {
  model::Mlp m(model::parseMlpSpec("mlp:20-16-12-4"), 8, amp::recipeByName("fp32"));
  m.initialize(5);
  fillInputs(m, 6, 4);
  model::OpTimes times;
  m.forward(times);
  m.backward(1.0f, false, times);
  auto r = model::makeFp64Reference(m);
  auto params = m.parameters();
  r->run(batchOf(m, params));
  expectLayerTensorsClose(m, *r);
  RecordProperty("listed", int(expectShadowTensorsClose(m, *r)));
}

TEST(Fp64Reference, CnnTensorsMatchTheFp32ModelsBuffers) {
  TinyCnn t;
  model::Cnn m(t.spec, t.layout, TinyCnn::B, amp::recipeByName("fp32"));
  m.initialize(13);
  m.setInputStandardization(0.3f, 0.4f);
  moveBatchNorm(m);
  fillInputs(m, 14, 3);
  model::OpTimes times;
  m.forward(times);
  m.backward(1.0f, false, times);
  auto r = model::makeFp64Reference(m);
  auto params = m.parameters();
  r->run(batchOf(m, params));
  expectLayerTensorsClose(m, *r);
  RecordProperty("listed", int(expectShadowTensorsClose(m, *r)));
}

TEST(Fp64Reference, GptTensorsMatchTheFp32ModelsBuffers) {
  // ctx 20: the causal products run on two blocks of query rows.
  model::GptNetwork g(model::GptSpec{2, 2, 16, 20}, 7, 3, amp::parsePolicy("fp32"));
  g.initialize(17);
  perturbGpt(g, 18);
  fillTokens(g, 19);
  model::OpTimes times;
  g.forward(times);
  g.backward(1.0f, false, times);
  auto r = model::makeFp64Reference(g);
  auto params = g.parameters();
  r->run(batchOf(g, params));
  const auto observed = g.gpt().observedActivations();
  EXPECT_EQ(observed.size(), 1u + 5u * 2u + 2u);
  for (const auto& a : observed)
    expectClose(a.values, r->tensor(a.name), a.name, 1e-4);
  for (const auto& p : g.gpt().params())
    expectClose(p.grad.f32(), r->tensor(p.name + " gradient"), p.name + " gradient", 1e-4);
  // The linear layers' outputs, which observedActivations does not list, by
  // what follows from them exactly: the GELU output is gelu(fc output) and the
  // next block's input is ln2 input + fcproj output.
  for (int l = 0; l < 2; ++l) {
    const std::string h = "h" + std::to_string(l) + ".";
    const auto fc = r->tensor(h + "fc output");
    const auto ge = r->tensor(h + "gelu output");
    ASSERT_EQ(fc.size(), ge.size());
    for (std::size_t i = 0; i < fc.size(); ++i)
      EXPECT_NEAR(ge[i], model::ref64::gelu(fc[i]), 1e-15);
    const auto r2 = r->tensor(h + "ln2 input");
    const auto x = r->tensor(h + "ln1 input");
    const auto ap = r->tensor(h + "attproj output");
    ASSERT_EQ(r2.size(), ap.size());
    for (std::size_t i = 0; i < r2.size(); ++i)
      EXPECT_EQ(r2[i], x[i] + ap[i]);
    const auto next = r->tensor(l == 0 ? "h1.ln1 input" : "lnf input");
    const auto fp = r->tensor(h + "fcproj output");
    for (std::size_t i = 0; i < next.size(); ++i)
      EXPECT_EQ(next[i], r2[i] + fp[i]);
    EXPECT_EQ(r->tensor(h + "qkv output").size(), 3 * 20 * 3 * 16u);
  }
  RecordProperty("listed", int(expectShadowTensorsClose(g, *r)));
}

TEST(Fp64Reference, NamesAParameterTheRunLacksOrWhoseSizeDiffers) {
  model::Mlp m(model::parseMlpSpec("mlp:4-3-2"), 2, amp::recipeByName("fp32"));
  m.initialize(1);
  auto r = model::makeFp64Reference(m);
  auto params = m.parameters();
  auto missing = params;
  missing.erase(std::find_if(missing.begin(), missing.end(),
                             [](const model::Parameter& p) { return p.name == "layer1.b"; }));
  try {
    r->run(batchOf(m, missing));
    ADD_FAILURE() << "accepted a run without layer1.b";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'layer1.b'"), std::string::npos) << e.what();
  }
  Tensor wrong(DType::F32, 1, 5);
  auto resized = params;
  for (auto& p : resized)
    if (p.name == "layer0.W")
      p.value = &wrong;
  try {
    r->run(batchOf(m, resized));
    ADD_FAILURE() << "accepted layer0.W of 5 values";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'layer0.W'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("5"), std::string::npos) << e.what();
  }

  TinyGpt t;
  model::GptNetwork g(t.spec, TinyGpt::V, TinyGpt::B, amp::parsePolicy("fp32"));
  g.initialize(1);
  auto rg = model::makeFp64Reference(g);
  auto gp = g.parameters();
  gp.erase(std::find_if(gp.begin(), gp.end(),
                        [](const model::Parameter& p) { return p.name == "h1.fc.w"; }));
  try {
    rg->run(batchOf(g, gp));
    ADD_FAILURE() << "accepted a run without h1.fc.w";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'h1.fc.w'"), std::string::npos) << e.what();
  }
  // A token outside the vocabulary is named too.
  auto all = g.parameters();
  g.tokens()[3] = TinyGpt::V;
  try {
    rg->run(batchOf(g, all));
    ADD_FAILURE() << "accepted token " << TinyGpt::V;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("tokens[3]"), std::string::npos) << e.what();
  }
}
