// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The CNN model: its spec grammar and errors, its FP32 forward and loss
// against a plain double-precision reference written here with nested loops,
// its whole-network gradient against central differences of that reference
// in double, and training runs through Session in three recipes.
#include <mantissa/amp/recipe.h>
#include <mantissa/data/dataset.h>
#include <mantissa/model/cnn.h>
#include <mantissa/train/session.h>

#include "test_data_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace mantissa;
using model::CnnBlock;
using model::parseCnnSpec;

namespace {

std::string errorOf(const std::string& spec) {
  try {
    parseCnnSpec(spec);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

} // namespace

TEST(CnnSpec, LenetIsTheDocumentedStack) {
  const auto lenet = parseCnnSpec("cnn:lenet");
  ASSERT_EQ(lenet.blocks.size(), 3u);
  EXPECT_EQ(lenet.blocks[0], (CnnBlock{true, 32, 5, false, true}));
  EXPECT_EQ(lenet.blocks[1], (CnnBlock{true, 64, 5, false, true}));
  EXPECT_EQ(lenet.blocks[2], (CnnBlock{false, 128, 0, false, false}));
  EXPECT_EQ(lenet.toString(), "cnn:c32k5-p2-c64k5-p2-f128");
  EXPECT_EQ(lenet, parseCnnSpec("cnn:c32k5-p2-c64k5-p2-f128"));
  const auto bn = parseCnnSpec("cnn:lenet-bn");
  EXPECT_TRUE(bn.blocks[0].batchNorm && bn.blocks[1].batchNorm);
  EXPECT_FALSE(bn.blocks[2].batchNorm);
  EXPECT_EQ(bn.toString(), "cnn:c32k5b-p2-c64k5b-p2-f128");
}

TEST(CnnSpec, GeneralSpecsRoundTrip) {
  for (const char* s : {"cnn:c8k3", "cnn:c8k3b-c16k5-p2", "cnn:c1k5-p2-f10-f20", "cnn:c1024k3b-p2"}) {
    const auto spec = parseCnnSpec(s);
    EXPECT_EQ(spec.toString(), s);
    EXPECT_EQ(parseCnnSpec(spec.toString()), spec);
  }
  const auto s = parseCnnSpec("cnn:c4k3-c6k5b-p2-f7");
  ASSERT_EQ(s.blocks.size(), 3u);
  EXPECT_EQ(s.blocks[0], (CnnBlock{true, 4, 3, false, false}));
  EXPECT_EQ(s.blocks[1], (CnnBlock{true, 6, 5, true, true}));
  EXPECT_EQ(s.blocks[2], (CnnBlock{false, 7, 0, false, false}));
}

TEST(CnnSpec, RejectsBadSpecsWithAClearMessage) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"mlp:784-10", "starts with \"cnn:\""},
      {"cnn:", "expected cnn:lenet"},
      {"cnn:lenet5", "unknown layer \"lenet5\""},
      {"cnn:c32k7", "only 3 and 5"},
      {"cnn:c32", "needs its kernel size"},
      {"cnn:c0k3", "without leading zeros"},
      {"cnn:c032k3", "without leading zeros"},
      {"cnn:c1025k3", "exceeds 1024"},
      {"cnn:c99999999999999999999k3", "exceeds 1024"},
      {"cnn:ck3", "expected the number of channels"},
      {"cnn:p2-c8k3", "first layer must be a convolution"},
      {"cnn:f10", "first layer must be a convolution"},
      {"cnn:c8k3-p2-p2", "one pooling"},
      {"cnn:c8k3-p3", "only 2x2 pooling"},
      {"cnn:c8k3-p22", "only 2x2 pooling"},
      {"cnn:c8k3-f10-c8k3", "before the fully connected"},
      {"cnn:c8k3-f10-p2", "must follow a convolution"},
      {"cnn:c8k3-", "missing after the last"},
      {"cnn:c8k3--f10", "unknown layer"},
      {"cnn:c8k3-x1", "unknown layer"},
      {"cnn:c8k3-f0", "without leading zeros"},
      {"cnn:c8k3-f65537", "exceeds 65536"},
      {"cnn:c8k3bb", "expected \"-\""},
      {"cnn:C8k3", "unknown layer"},
  };
  for (const auto& [spec, problem] : cases) {
    const std::string e = errorOf(spec);
    EXPECT_TRUE(contains(e, problem)) << spec << " -> " << e;
    if (spec.size() < 60)
      EXPECT_TRUE(contains(e, "model \"" + spec + "\"")) << spec << " -> " << e;
  }
  std::string many = "cnn:c1k3";
  for (int i = 0; i < model::kMaxCnnBlocks; ++i)
    many += "-c1k3";
  EXPECT_TRUE(contains(errorOf(many), "layers before the classifier")) << errorOf(many);
  // Outside input is quoted printable and short.
  const std::string junk = errorOf(std::string("cnn:c8k3-\x01\xff") + std::string(200, 'z'));
  EXPECT_TRUE(contains(junk, "??")) << junk;
  EXPECT_LT(junk.size(), 400u);
}

TEST(CnnLayout, FollowsTheImageThroughTheBlocks) {
  const auto layout = model::cnnLayout(parseCnnSpec("cnn:lenet"), 784, 28, 28, 10);
  ASSERT_EQ(layout.size(), 4u);
  EXPECT_EQ(layout[0].cin, 1);
  EXPECT_EQ(layout[0].cout, 32);
  EXPECT_EQ(layout[0].ho, 14);
  EXPECT_EQ(layout[1].cin, 32);
  EXPECT_EQ(layout[1].h, 14);
  EXPECT_EQ(layout[1].ho, 7);
  EXPECT_EQ(layout[2].cin, 64 * 7 * 7);
  EXPECT_EQ(layout[2].cout, 128);
  EXPECT_EQ(layout[3].cin, 128);
  EXPECT_EQ(layout[3].cout, 10);
  EXPECT_FALSE(layout[3].block.conv);
  // Three channels of 4x4.
  const auto rgb = model::cnnLayout(parseCnnSpec("cnn:c2k3"), 48, 4, 4, 3);
  EXPECT_EQ(rgb[0].cin, 3);
}

TEST(CnnLayout, SpecsThatDoNotFitTheInputAreRejected) {
  const auto error = [](const char* spec, int f, int h, int w) {
    try {
      model::cnnLayout(parseCnnSpec(spec), f, h, w, 10);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  // 28 -> 14 -> 7 -> odd: a third pooling does not fit.
  EXPECT_TRUE(contains(error("cnn:c8k3-p2-c8k3-p2-c8k3-p2", 784, 28, 28),
                       "layer 2: 2x2 pooling needs an even image size, the input there is 7x7"))
      << error("cnn:c8k3-p2-c8k3-p2-c8k3-p2", 784, 28, 28);
  EXPECT_TRUE(contains(error("cnn:lenet", 2, 0, 0), "needs image data"));
  EXPECT_TRUE(contains(error("cnn:lenet", 785, 28, 28), "not whole 28x28 images"));
  EXPECT_TRUE(contains(error("cnn:c1024k3-c1024k3-f65536", 784, 28, 28), "parameters") ||
              contains(error("cnn:c1024k3-c1024k3-f65536", 784, 28, 28), "values per sample"));
}

TEST(CnnSession, SpiralDataIsRejectedByName) {
  train::RunConfig c;
  c.data = "spirals";
  c.model = "cnn:lenet";
  c.steps = 1;
  c.batch = 8;
  try {
    train::Session s(c);
    FAIL() << "a CNN on 2-feature data was accepted";
  } catch (const train::ConfigError& e) {
    EXPECT_TRUE(contains(e.what(), "needs image data")) << e.what();
    EXPECT_TRUE(contains(e.what(), "spirals")) << e.what();
  }
  c.model = "cnn:c8k9";
  const auto problems = c.problems();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_TRUE(contains(problems[0], "only 3 and 5")) << problems[0];
  c.model = "cnn:lenet";
  c.batchnorm = "fp8";
  ASSERT_EQ(c.problems().size(), 1u);
  EXPECT_TRUE(contains(c.problems()[0], "batchnorm")) << c.problems()[0];
}

// ---------------------------------------------------------------------------
// A plain double reference of the CNN, written from the definitions in cnn.h
// and nn/conv2d.h: nested loops, nothing shared with the model's code.

namespace {

struct RefNet {
  std::vector<model::CnnLayer> layout;
  std::vector<std::vector<double>> w, b, gamma, beta; // per layer
};

using Planes = std::vector<double>; // one sample: [C][H][W]

double referenceLoss(const RefNet& net, const std::vector<double>& x,
                     const std::vector<int>& labels, int B,
                     std::vector<std::vector<double>>* logitsOut = nullptr) {
  const int n = static_cast<int>(net.layout.size());
  // Activations of every sample, layer by layer (BatchNorm couples samples).
  std::vector<Planes> cur(static_cast<std::size_t>(B));
  const auto inVals = static_cast<std::size_t>(net.layout[0].inValues());
  for (int s = 0; s < B; ++s)
    cur[s].assign(x.begin() + static_cast<std::ptrdiff_t>(s * inVals),
                  x.begin() + static_cast<std::ptrdiff_t>((s + 1) * inVals));
  for (int l = 0; l < n; ++l) {
    const auto& L = net.layout[static_cast<std::size_t>(l)];
    const auto& W = net.w[static_cast<std::size_t>(l)];
    const auto& bias = net.b[static_cast<std::size_t>(l)];
    std::vector<Planes> next(static_cast<std::size_t>(B));
    if (L.block.conv) {
      const int k = L.block.kernel, r = k / 2, H = L.h, Wd = L.w;
      for (int s = 0; s < B; ++s) {
        Planes y(static_cast<std::size_t>(L.cout * H * Wd), 0.0);
        for (int co = 0; co < L.cout; ++co)
          for (int h = 0; h < H; ++h)
            for (int w = 0; w < Wd; ++w) {
              double acc = bias[co];
              for (int ci = 0; ci < L.cin; ++ci)
                for (int i = 0; i < k; ++i)
                  for (int j = 0; j < k; ++j) {
                    const int hh = h + i - r, ww = w + j - r;
                    if (hh < 0 || hh >= H || ww < 0 || ww >= Wd)
                      continue;
                    acc += cur[s][(ci * H + hh) * Wd + ww] * W[((co * L.cin + ci) * k + i) * k + j];
                  }
              y[(co * H + h) * Wd + w] = acc;
            }
        next[s] = std::move(y);
      }
      if (L.block.batchNorm) {
        const int N = B * H * Wd;
        for (int c = 0; c < L.cout; ++c) {
          double mean = 0.0;
          for (int s = 0; s < B; ++s)
            for (int p = 0; p < H * Wd; ++p)
              mean += next[s][c * H * Wd + p];
          mean /= N;
          double var = 0.0;
          for (int s = 0; s < B; ++s)
            for (int p = 0; p < H * Wd; ++p)
              var += (next[s][c * H * Wd + p] - mean) * (next[s][c * H * Wd + p] - mean);
          var /= N;
          for (int s = 0; s < B; ++s)
            for (int p = 0; p < H * Wd; ++p) {
              double& v = next[s][c * H * Wd + p];
              v = (v - mean) / std::sqrt(var + 1e-5) * net.gamma[l][c] + net.beta[l][c];
            }
        }
      }
      for (auto& y : next)
        for (double& v : y)
          v = std::max(v, 0.0);
      if (L.block.pool)
        for (auto& y : next) {
          Planes p(static_cast<std::size_t>(L.cout * L.ho * L.wo));
          for (int c = 0; c < L.cout; ++c)
            for (int i = 0; i < L.ho; ++i)
              for (int j = 0; j < L.wo; ++j)
                p[(c * L.ho + i) * L.wo + j] =
                    std::max({y[(c * H + 2 * i) * Wd + 2 * j], y[(c * H + 2 * i) * Wd + 2 * j + 1],
                              y[(c * H + 2 * i + 1) * Wd + 2 * j],
                              y[(c * H + 2 * i + 1) * Wd + 2 * j + 1]});
          y = std::move(p);
        }
    } else {
      for (int s = 0; s < B; ++s) {
        Planes y(static_cast<std::size_t>(L.cout));
        for (int o = 0; o < L.cout; ++o) {
          double acc = bias[o];
          for (int i = 0; i < L.cin; ++i)
            acc += cur[s][i] * W[i * L.cout + o]; // W [I, O]
          y[o] = l + 1 < n ? std::max(acc, 0.0) : acc;
        }
        next[s] = std::move(y);
      }
    }
    cur = std::move(next);
  }
  double loss = 0.0;
  for (int s = 0; s < B; ++s) {
    double m = -std::numeric_limits<double>::infinity();
    for (double v : cur[s])
      m = std::max(m, v);
    double z = 0.0;
    for (double v : cur[s])
      z += std::exp(v - m);
    loss += -(cur[s][labels[s]] - m - std::log(z));
  }
  if (logitsOut)
    *logitsOut = cur;
  return loss / B;
}

// A tiny CNN on two 6x6 channels: conv 3x3 with BatchNorm and pooling, a 5x5
// convolution on 3x3, two fully connected layers, 3 classes, batch 4.
struct Tiny {
  model::CnnSpec spec = parseCnnSpec("cnn:c3k3b-p2-c4k5-f5");
  std::vector<model::CnnLayer> layout = model::cnnLayout(spec, 72, 6, 6, 3);
  static constexpr int B = 4;
};

void fillInputs(model::Cnn& m, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& v : m.inputs())
    v = u(rng);
  int i = 0;
  for (auto& y : m.labels())
    y = i++ % 3;
}

RefNet referenceOf(const model::Cnn& m) {
  RefNet r;
  r.layout = m.layout();
  for (int l = 0; l < m.layers(); ++l) {
    const auto& p = m.params()[static_cast<std::size_t>(l)];
    r.w.emplace_back(p.w.f32().begin(), p.w.f32().end());
    r.b.emplace_back(p.b.f32().begin(), p.b.f32().end());
    const auto& nm = m.norm(l);
    r.gamma.emplace_back(nm.gamma.f32().begin(), nm.gamma.f32().end());
    r.beta.emplace_back(nm.beta.f32().begin(), nm.beta.f32().end());
  }
  return r;
}

} // namespace

TEST(CnnReference, Fp32ForwardAndLossMatchThePlainDoubleReference) {
  Tiny t;
  model::Cnn m(t.spec, t.layout, Tiny::B, amp::recipeByName("fp32"));
  m.initialize(3, 1.0f);
  fillInputs(m, 11);
  // Non-trivial BatchNorm scale and shift (the optimizer would move them).
  for (auto& p : m.parameters())
    if (p.name.find(".bn.") != std::string::npos)
      for (std::size_t i = 0; i < p.value->f32().size(); ++i)
        p.value->f32()[i] += 0.1f * static_cast<float>(i + 1);
  model::OpTimes times;
  const auto res = m.forward(times);
  const std::vector<double> x(m.inputs().begin(), m.inputs().end());
  const std::vector<int> y(m.labels().begin(), m.labels().end());
  std::vector<std::vector<double>> logits;
  const double ref = referenceLoss(referenceOf(m), x, y, Tiny::B, &logits);
  EXPECT_NEAR(res.loss, ref, 1e-5 * std::max(1.0, std::abs(ref)));
  const auto pre = m.acts().back().pre.f32();
  for (int s = 0; s < Tiny::B; ++s)
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(pre[static_cast<std::size_t>(s * 3 + c)], logits[s][c], 2e-5)
          << "sample " << s << " class " << c;
  EXPECT_GT(times.convForward, 0.0);
  EXPECT_GT(times.matmulForward, 0.0);
}

TEST(CnnGradcheck, WholeNetworkGradientMatchesCentralDifferencesInDouble) {
  Tiny t;
  model::Cnn m(t.spec, t.layout, Tiny::B, amp::recipeByName("fp32"));
  m.initialize(3, 1.5f);
  fillInputs(m, 11);
  for (auto& p : m.parameters())
    if (p.name.find(".bn.") != std::string::npos)
      for (std::size_t i = 0; i < p.value->f32().size(); ++i)
        p.value->f32()[i] += 0.05f * static_cast<float>(i + 1);
  model::OpTimes times;
  m.forward(times);
  m.backward(1.0f, false, times);
  const std::vector<double> x(m.inputs().begin(), m.inputs().end());
  const std::vector<int> y(m.labels().begin(), m.labels().end());
  RefNet ref = referenceOf(m);
  const double h = 1e-6;
  int checked = 0;
  const auto check = [&](std::vector<double>& param, std::span<const float> grad,
                         const std::string& what) {
    ASSERT_EQ(param.size(), grad.size()) << what;
    for (std::size_t i = 0; i < param.size(); ++i) {
      const double saved = param[i];
      param[i] = saved + h;
      const double plus = referenceLoss(ref, x, y, Tiny::B);
      param[i] = saved - h;
      const double minus = referenceLoss(ref, x, y, Tiny::B);
      param[i] = saved;
      const double numeric = (plus - minus) / (2.0 * h);
      EXPECT_NEAR(grad[i], numeric, 2e-5 + 2e-3 * std::abs(numeric)) << what << " index " << i;
      ++checked;
    }
  };
  for (int l = 0; l < m.layers(); ++l) {
    const auto i = static_cast<std::size_t>(l);
    check(ref.w[i], m.grads()[i].w.f32(), "layer" + std::to_string(l) + ".W");
    check(ref.b[i], m.grads()[i].b.f32(), "layer" + std::to_string(l) + ".b");
    if (!ref.gamma[i].empty()) {
      check(ref.gamma[i], m.norm(l).dgamma.f32(), "layer" + std::to_string(l) + ".bn.gamma");
      check(ref.beta[i], m.norm(l).dbeta.f32(), "layer" + std::to_string(l) + ".bn.beta");
    }
  }
  EXPECT_EQ(checked, static_cast<int>(m.parameterCount()));
}

TEST(CnnModel, EvaluationUsesTheRunningStatistics) {
  Tiny t;
  model::Cnn m(t.spec, t.layout, Tiny::B, amp::recipeByName("fp32"));
  m.initialize(3, 1.0f);
  fillInputs(m, 11);
  model::OpTimes times;
  // Fresh running statistics are mean 0, variance 1: evaluation then is
  // x / sqrt(1 + eps), not the batch-normalised values of training.
  m.setTraining(false);
  m.forward(times);
  const auto& pre = m.acts()[0].pre.f32();
  const auto& out = m.norm(0).out.f32();
  for (std::size_t i = 0; i < pre.size(); ++i)
    EXPECT_NEAR(out[i], pre[i] / std::sqrt(1.0 + 1e-5), 1e-6);
  m.setTraining(true);
  m.forward(times);
  double mean = 0.0;
  for (int s = 0; s < Tiny::B; ++s)
    for (int p = 0; p < 36; ++p)
      mean += m.norm(0).out.f32()[static_cast<std::size_t>(s * 3 * 36 + p)];
  EXPECT_NEAR(mean / (Tiny::B * 36), 0.0, 1e-5); // channel 0 normalised over the batch
}

// ---------------------------------------------------------------------------

namespace {

// Input standardization: the network on x behaves as the plain reference on
// (x - mean) / std computed in double.
TEST(CnnReference, StandardizedInputIsWhatTheFirstConvolutionSees) {
  Tiny t;
  model::Cnn m(t.spec, t.layout, Tiny::B, amp::recipeByName("fp32"));
  m.initialize(3, 1.0f);
  fillInputs(m, 12);
  m.setInputStandardization(0.3f, 0.4f);
  model::OpTimes times;
  const auto res = m.forward(times);
  std::vector<double> x;
  for (float v : m.inputs())
    x.push_back((double(v) - 0.3) / 0.4);
  const std::vector<int> y(m.labels().begin(), m.labels().end());
  const double ref = referenceLoss(referenceOf(m), x, y, Tiny::B, nullptr);
  EXPECT_NEAR(res.loss, ref, 1e-5 * std::max(1.0, std::abs(ref)));
  EXPECT_THROW(m.setInputStandardization(0.0f, 0.0f), std::invalid_argument);
  EXPECT_THROW(m.setInputStandardization(std::nanf(""), 1.0f), std::invalid_argument);
}

std::shared_ptr<const data::TrainTest> mnist() {
  static const auto d = std::make_shared<const data::TrainTest>(data::loadBuiltin("mnist"));
  return d;
}

} // namespace

class CnnSessionRecipe : public ::testing::TestWithParam<const char*> {};

TEST_P(CnnSessionRecipe, TrainsAFewStepsWithTelemetryOfEveryConvLayer) {
  train::RunConfig c;
  c.data = "mnist";
  c.model = "cnn:c8k5b-p2-c16k3-p2-f32";
  c.recipe = GetParam();
  c.batch = 32;
  c.steps = 12;
  c.lr = 0.05;
  c.telemetryEvery = 4;
  train::Session s(c, mnist());
  ASSERT_EQ(s.model().layers(), 4);
  EXPECT_FALSE(s.model().convImplementation().empty());
  int frames = 0;
  double first = 0.0, last = 0.0;
  while (!s.finished()) {
    const auto& r = s.step();
    ASSERT_FALSE(r.divergence.has_value()) << r.divergence->message;
    if (r.step == 0)
      first = r.loss;
    last = r.loss;
    EXPECT_GT(r.times.convForward, 0.0);
    EXPECT_GT(r.times.convBackward, 0.0);
    if (!r.telemetry)
      continue;
    ++frames;
    for (int l = 0; l < s.model().layers(); ++l) {
      const auto i = static_cast<std::size_t>(l);
      const auto* w = r.telemetry->find(l, telemetry::TensorClass::Weights);
      ASSERT_NE(w, nullptr) << "layer " << l;
      EXPECT_EQ(w->hist.total, s.model().params()[i].w.f32().size());
      const auto* a = r.telemetry->find(l, telemetry::TensorClass::Activations);
      ASSERT_NE(a, nullptr);
      const auto& acts = s.model().acts()[i];
      EXPECT_EQ(a->hist.total, (acts.post.size() ? acts.post : acts.pre).f32().size());
      const bool scaled = s.scaler() != nullptr;
      EXPECT_NE(r.telemetry->find(l, telemetry::TensorClass::WeightGrads, scaled), nullptr);
      EXPECT_NE(r.telemetry->find(l, telemetry::TensorClass::ActivationGrads, scaled), nullptr);
    }
  }
  EXPECT_EQ(frames, 3);
  EXPECT_LT(last, first) << GetParam();
  const auto e = s.evaluate();
  EXPECT_GT(e.accuracy, 0.3) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Recipes, CnnSessionRecipe,
                         ::testing::Values("fp32", "bf16-mixed", "fp16-mixed"),
                         [](const auto& param_info) {
                           std::string n = param_info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(CnnSessionRecipe, Fp16MixedRunsWithItsScaler) {
  train::RunConfig c;
  c.data = "mnist";
  c.model = "cnn:c8k3-p2-f16";
  c.recipe = "fp16-mixed";
  c.batch = 16;
  c.steps = 3;
  train::Session s(c, mnist());
  ASSERT_NE(s.scaler(), nullptr);
  while (!s.finished())
    s.step();
  EXPECT_FALSE(s.divergence().has_value());
}

// A user's IDX image file of another size (6x10) trains a CNN; one whose
// second pooling meets an odd size is refused naming the layer.
// A Session's CNN standardizes with the mean and (population) standard
// deviation of every training pixel, here summed independently in double;
// for the shipped Fashion-MNIST they are the numbers the README quotes.
TEST(CnnSession, StandardizesWithTheTrainingSetsPixelStatistics) {
  const auto fashion = std::make_shared<const data::TrainTest>(data::loadBuiltin("fashion"));
  long double sum = 0, squares = 0;
  for (float v : fashion->train.x)
    sum += v;
  const long double n = fashion->train.x.size();
  const long double mean = sum / n;
  for (float v : fashion->train.x)
    squares += (v - mean) * (v - mean);
  const double sd = std::sqrt(double(squares / n));
  train::RunConfig c;
  c.data = "fashion";
  c.model = "cnn:c4k3-p2-f8";
  c.batch = 8;
  c.steps = 1;
  train::Session s(c, fashion);
  const auto* cnn = dynamic_cast<const model::Cnn*>(&s.model());
  ASSERT_NE(cnn, nullptr);
  EXPECT_NEAR(cnn->inputMean(), double(mean), 1e-6);
  EXPECT_NEAR(cnn->inputStd(), sd, 1e-6);
  EXPECT_NEAR(cnn->inputMean(), 0.2877, 5e-5);
  EXPECT_NEAR(cnn->inputStd(), 0.3538, 5e-5);
  bool shown = false;
  for (const auto& row : cnn->opRows())
    shown = shown || (row.op == "input standardization" &&
                      row.note.find("0.2877") != std::string::npos);
  EXPECT_TRUE(shown) << "the op table names the standardization";
}

TEST(CnnSession, UserIdxImagesOfAnotherSize) {
  mantissa::testing::TempDir dir;
  const int n = 40, h = 6, w = 10;
  mantissa::testing::Bytes pixels, labels;
  std::mt19937 rng(3);
  for (int i = 0; i < n; ++i) {
    labels.push_back(static_cast<std::uint8_t>(i % 3));
    for (int p = 0; p < h * w; ++p)
      pixels.push_back(static_cast<std::uint8_t>((i % 3) * 80 + rng() % 40));
  }
  const auto images =
      dir.write("shapes-images-idx3-ubyte", mantissa::testing::idx(0x08, {std::uint32_t(n), h, w}, pixels));
  dir.write("shapes-labels-idx1-ubyte", mantissa::testing::idx(0x08, {std::uint32_t(n)}, labels));
  train::RunConfig c;
  c.data = images.string();
  c.model = "cnn:c4k3-p2-f8";
  c.batch = 8;
  c.steps = 4;
  train::Session s(c);
  ASSERT_EQ(s.model().layerInfo().size(), 3u);
  EXPECT_EQ(s.model().layerInfo()[1].rows, 4 * 3 * 5); // 4 channels of 3x5 after pooling
  while (!s.finished())
    s.step();
  EXPECT_FALSE(s.divergence().has_value());
  c.model = "cnn:c4k3-p2-c4k3-p2";
  try {
    train::Session bad(c);
    FAIL() << "pooling a 3x5 image was accepted";
  } catch (const train::ConfigError& e) {
    EXPECT_TRUE(contains(e.what(), "model \"cnn:c4k3-p2-c4k3-p2\": layer 1: 2x2 pooling needs an "
                                   "even image size, the input there is 3x5"))
        << e.what();
  }
}
