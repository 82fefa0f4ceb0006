// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The residual MLP ("resmlp:"): its gradients against central differences
// of a forward pass written here in double, learning on MNIST through
// Session (a loss bar below chance), and bf16-mixed against fp32.
#include <mantissa/amp/recipe.h>
#include <mantissa/data/dataset.h>
#include <mantissa/model/model_registry.h>
#include <mantissa/train/session.h>
#include <mantissa/train/shadow.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace mantissa;

namespace {

// The network's parameters by name, as doubles.
using Params = std::map<std::string, std::vector<double>>;

double geluD(double u) {
  return 0.5 * u * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (u + 0.044715 * u * u * u)));
}

// The model's definition, in double: h = x·Wp + bp; per block
// h += gelu(LN(h)·W1 + b1)·W2 + b2; logits = h·Wh + bh; mean cross-entropy.
double lossD(const Params& p, const std::vector<double>& x, const std::vector<int>& y, int B, int F,
             int D, int blocks, int C) {
  const auto linear = [&](const std::vector<double>& in, int I, int O, int l) {
    const auto& W = p.at("layer" + std::to_string(l) + ".W");
    const auto& b = p.at("layer" + std::to_string(l) + ".b");
    std::vector<double> out(std::size_t(B) * O);
    for (int i = 0; i < B; ++i)
      for (int o = 0; o < O; ++o) {
        double s = b[o];
        for (int k = 0; k < I; ++k)
          s += in[std::size_t(i) * I + k] * W[std::size_t(k) * O + o];
        out[std::size_t(i) * O + o] = s;
      }
    return out;
  };
  std::vector<double> h = linear(x, F, D, 0);
  for (int k = 0; k < blocks; ++k) {
    const auto& g = p.at("block" + std::to_string(k) + ".ln.gamma");
    const auto& be = p.at("block" + std::to_string(k) + ".ln.beta");
    std::vector<double> n(h.size());
    for (int i = 0; i < B; ++i) {
      double mean = 0, var = 0;
      for (int j = 0; j < D; ++j)
        mean += h[std::size_t(i) * D + j] / D;
      for (int j = 0; j < D; ++j)
        var += std::pow(h[std::size_t(i) * D + j] - mean, 2) / D;
      for (int j = 0; j < D; ++j)
        n[std::size_t(i) * D + j] = (h[std::size_t(i) * D + j] - mean) / std::sqrt(var + 1e-5) * g[j] + be[j];
    }
    auto u = linear(n, D, D, 1 + 2 * k);
    for (double& v : u)
      v = geluD(v);
    const auto v = linear(u, D, D, 2 + 2 * k);
    for (std::size_t i = 0; i < h.size(); ++i)
      h[i] += v[i];
  }
  const auto logits = linear(h, D, C, 1 + 2 * blocks);
  double loss = 0;
  for (int i = 0; i < B; ++i) {
    double m = -1e300;
    for (int c = 0; c < C; ++c)
      m = std::max(m, logits[std::size_t(i) * C + c]);
    double z = 0;
    for (int c = 0; c < C; ++c)
      z += std::exp(logits[std::size_t(i) * C + c] - m);
    loss += std::log(z) + m - logits[std::size_t(i) * C + y[i]];
  }
  return loss / B;
}

std::unique_ptr<model::Network> build(const std::string& spec, int batch, const amp::Recipe& recipe,
                                      int features, int classes) {
  data::Dataset shape;
  shape.name = "shape";
  shape.features = features;
  shape.classes = classes;
  model::ModelBuild b;
  b.spec = spec;
  b.batch = batch;
  b.recipe = &recipe;
  b.images = &shape;
  return model::modelKind(spec).build(b);
}

std::shared_ptr<const data::TrainTest> mnist() {
  static const auto d = std::make_shared<const data::TrainTest>(data::loadBuiltin("mnist"));
  return d;
}

train::RunConfig mnistRun(const char* recipe, int steps) {
  train::RunConfig c;
  c.data = "mnist";
  c.model = "resmlp:784-32x2-10";
  c.recipe = recipe;
  c.batch = 32;
  c.steps = steps;
  c.lr = 0.05;
  return c;
}

} // namespace

TEST(ResMlp, IsRegisteredAsAnImageModel) {
  const auto& kind = model::modelKind("resmlp:784-256x2-10");
  EXPECT_EQ(std::string(kind.name), "resmlp");
  EXPECT_EQ(kind.input, model::ModelInput::Images);
  EXPECT_FALSE(kind.offered.empty());
  train::RunConfig c;
  c.model = "resmlp:784-256-10";
  const auto problems = c.problems();
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems.front().find("WIDTHxBLOCKS"), std::string::npos) << problems.front();
}

// Every parameter's gradient against central differences of lossD, with the
// LayerNorm scales and shifts moved off 1 and 0 so that their gradients count.
TEST(ResMlp, GradientsMatchCentralDifferencesInDouble) {
  const int B = 5, F = 7, D = 6, blocks = 2, C = 4;
  auto net = build("resmlp:7-6x2-4", B, amp::recipeByName("fp32"), F, C);
  net->initialize(3);
  std::mt19937 rng(11);
  std::normal_distribution<float> n01(0.0f, 1.0f);
  Params p;
  for (const auto& par : net->parameters()) {
    if (par.name.find(".ln.") != std::string::npos)
      for (float& v : par.value->f32())
        v += 0.3f * n01(rng);
    p[par.name].assign(par.value->f32().begin(), par.value->f32().end());
  }
  model::OpTimes times;
  net->refreshWorkingWeights(times);
  std::vector<double> x(std::size_t(B) * F);
  std::vector<int> y(B);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = net->inputs()[i] = n01(rng);
  for (int i = 0; i < B; ++i)
    y[i] = net->labels()[i] = int(rng() % C);
  const auto fwd = net->forward(times);
  const double truth = lossD(p, x, y, B, F, D, blocks, C);
  EXPECT_NEAR(fwd.loss, truth, 1e-5 * truth);
  net->backward(1.0f, false, times);
  int checked = 0;
  for (const auto& par : net->parameters()) {
    const auto g = par.grad->f32();
    for (std::size_t i = 0; i < g.size(); i += 3) {
      Params plus = p, minus = p;
      const double h = 1e-5;
      plus[par.name][i] += h;
      minus[par.name][i] -= h;
      const double fd = (lossD(plus, x, y, B, F, D, blocks, C) - lossD(minus, x, y, B, F, D, blocks, C)) / (2 * h);
      EXPECT_NEAR(g[i], fd, 2e-4 + 2e-3 * std::abs(fd)) << par.name << "[" << i << "]";
      ++checked;
    }
  }
  EXPECT_GT(checked, 60);
}

// Trained on MNIST through Session: the test loss ends far below chance
// (ln 10 = 2.303, what an untrained or unlearning model gives).
TEST(ResMlp, LearnsMnistThroughSession) {
  train::Session s(mnistRun("fp32", 200), mnist());
  const auto before = s.evaluate();
  EXPECT_GT(before.loss, 1.9); // untrained: near chance
  while (!s.finished())
    ASSERT_FALSE(s.step().divergence.has_value());
  const auto after = s.evaluate();
  EXPECT_LT(after.loss, 0.5 * std::log(10.0)) << after.loss;
  EXPECT_GT(after.accuracy, 0.75);
}

// bf16-mixed rounds the products' operands and the activations: its losses
// differ from fp32's from the first steps, but stay close.
TEST(ResMlp, Bf16MixedDiffersFromFp32ButStaysClose) {
  train::Session f(mnistRun("fp32", 60), mnist());
  train::Session b(mnistRun("bf16-mixed", 60), mnist());
  double maxDiff = 0.0;
  int differing = 0;
  while (!f.finished()) {
    const double lf = f.step().loss, lb = b.step().loss;
    maxDiff = std::max(maxDiff, std::abs(lf - lb));
    differing += lf != lb;
  }
  EXPECT_GT(differing, 50);
  EXPECT_LT(maxDiff, 0.1);
  const double ef = f.evaluate().loss, eb = b.evaluate().loss;
  EXPECT_NE(ef, eb);
  EXPECT_NEAR(eb, ef, 0.05 * ef);
}

// No FP64 shadow reference for this model: asking for one names it.
TEST(ResMlp, Fp64ShadowIsRefusedNamingTheModel) {
  train::Session s(mnistRun("fp32", 2), mnist());
  try {
    s.requestShadow(train::ShadowPrecision::F64);
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("resmlp:784-32x2-10"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no FP64 reference"), std::string::npos) << e.what();
  }
}

// Against its FP32 shadow, a bf16-mixed run names every tensor of forward and
// backward (each block's LayerNorm, GELU and residual sum among them), each
// off by BF16 rounding: not exact, and under 5% as a whole.
TEST(ResMlp, Bf16MixedAgainstItsFp32ShadowNamesEveryTensor) {
  auto c = mnistRun("bf16-mixed", 3);
  c.telemetryEvery = 2;
  c.shadow = "fp32";
  train::Session s(c, mnist());
  std::shared_ptr<const train::ShadowFrame> frame;
  while (!s.finished())
    if (const auto& r = s.step(); r.shadow)
      frame = r.shadow;
  ASSERT_TRUE(frame);
  // 6 linear layers: 6 outputs, 2 blocks x (LayerNorm, GELU, residual sum);
  // backward: 6 output gradients, 12 W and b gradients, 2 x (gamma, beta).
  EXPECT_EQ(frame->tensors.size(), 6u + 2 * 3 + 6 + 12 + 2 * 2);
  for (const char* name : {"block1 LayerNorm output", "layer3 gelu", "layer4 residual sum",
                           "layer0.W gradient", "block0.ln.gamma gradient"}) {
    const auto it = std::find_if(frame->tensors.begin(), frame->tensors.end(),
                                 [&](const auto& e) { return e.tensor == name; });
    ASSERT_NE(it, frame->tensors.end()) << name;
  }
  for (const auto& e : frame->tensors) {
    EXPECT_GT(e.tensorRelative, 0.0) << e.tensor;
    EXPECT_LT(e.tensorRelative, 0.05) << e.tensor;
  }
}
