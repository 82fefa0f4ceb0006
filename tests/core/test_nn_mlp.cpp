// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The MLP: spec parsing, the tensor plan, a whole-model finite-difference
// check, and that each recipe's storage rules are what the model executes.
#include <mantissa/model/mlp.h>
#include <mantissa/numeric/convert.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string_view>
#include <utility>

using namespace mantissa;
using model::Mlp;

TEST(MlpSpec, ParsesWidthsAndActivation) {
  const auto s = model::parseMlpSpec("mlp:784-256-256-10");
  EXPECT_EQ(s.widths, (std::vector<int>{784, 256, 256, 10}));
  EXPECT_EQ(s.activation, nn::Activation::Relu);
  EXPECT_EQ(s.layers(), 3);
  const auto g = model::parseMlpSpec("mlp:2-16-2:gelu");
  EXPECT_EQ(g.activation, nn::Activation::Gelu);
  EXPECT_EQ(g.toString(), "mlp:2-16-2:gelu");
}

TEST(MlpSpec, RejectsBadSpecsWithAClearMessage) {
  for (const char* bad : {"", "mlp:", "mlp:784", "cnn:1-2", "mlp:784--10", "mlp:784-10-",
                          "mlp:784-x-10", "mlp:784-0-10", "mlp:784-10:swish", "mlp:784-1",
                          "mlp:784-99999999999-10"}) {
    try {
      model::parseMlpSpec(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("model spec"), std::string::npos) << e.what();
    }
  }
}

TEST(MlpPlan, BytesFollowTheRecipe) {
  const auto spec = model::parseMlpSpec("mlp:784-256-10");
  auto bytesOf = [&](std::string_view recipe, model::TensorRole role) {
    Mlp m(spec, 128, amp::recipeByName(recipe));
    std::size_t total = 0;
    for (const auto& row : m.plan())
      if (row.role == role)
        total += row.bytes();
    return total;
  };
  const std::size_t params = 784 * 256 + 256 + 256 * 10 + 10; // 203530
  EXPECT_EQ(bytesOf("fp32", model::TensorRole::Weights), params * 4);
  EXPECT_EQ(bytesOf("fp32", model::TensorRole::MasterWeights), 0u);
  EXPECT_EQ(bytesOf("bf16-mixed", model::TensorRole::Weights), params * 2);
  EXPECT_EQ(bytesOf("bf16-mixed", model::TensorRole::MasterWeights), params * 4);
  EXPECT_EQ(bytesOf("bf16-pure", model::TensorRole::MasterWeights), 0u);
  // Activations at B=128: in (784, 256), pre (256, 10), post (256), probs (10).
  const std::size_t acts = 128 * (784 + 256 + 256 + 10 + 256 + 10);
  EXPECT_EQ(bytesOf("fp32", model::TensorRole::Activations), acts * 4);
  EXPECT_EQ(bytesOf("bf16-mixed", model::TensorRole::Activations), (acts - 128 * 10) * 2 + 128 * 10 * 4);
}

namespace {

double lossOf(Mlp& m) {
  model::OpTimes t;
  return m.forward(t).loss;
}

void fillBatch(Mlp& m, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& v : m.inputs())
    v = dist(rng);
  const int classes = m.spec().widths.back();
  for (std::size_t i = 0; i < m.labels().size(); ++i)
    m.labels()[i] = static_cast<std::int32_t>(i % classes);
}

} // namespace

class MlpGradcheck : public ::testing::TestWithParam<std::string> {};

// Whole model, FP32 recipe: every weight and bias of every layer against
// central differences of the mean loss (h = 1e-3; the loss is O(1), its FP32
// rounding over 2h is ~3e-5; tolerance 2e-4 absolute + 2% relative).
TEST_P(MlpGradcheck, Fp32MatchesCentralDifferences) {
  Mlp m(model::parseMlpSpec("mlp:6-5-4-3:" + GetParam()), 4, amp::recipeByName("fp32"));
  fillBatch(m, 6);
  model::OpTimes t;
  // Central differences are only valid where the stencil does not cross a
  // ReLU kink: take the first init seed whose hidden pre-activations all lie
  // at least 0.01 from zero (a 1e-3 step moves them by less than that).
  std::uint64_t seed = 5;
  for (;; ++seed) {
    ASSERT_LT(seed, 200u) << "no kink-free seed found";
    m.initialize(seed, 1.5f);
    m.forward(t);
    float nearest = 1.0f;
    for (int l = 0; l + 1 < m.layers(); ++l)
      for (float v : m.acts()[l].pre.f32())
        nearest = std::min(nearest, std::abs(v));
    if (nearest > 0.01f)
      break;
  }
  m.forward(t);
  m.backward(1.0f, false, t);
  const float h = 1e-3f;
  for (int l = 0; l < m.layers(); ++l) {
    for (auto [param, grad] : {std::pair{&m.params()[l].w, &m.grads()[l].w},
                               std::pair{&m.params()[l].b, &m.grads()[l].b}}) {
      for (std::size_t i = 0; i < param->f32().size(); ++i) {
        const float saved = param->f32()[i];
        param->f32()[i] = saved + h;
        const double plus = lossOf(m);
        param->f32()[i] = saved - h;
        const double minus = lossOf(m);
        param->f32()[i] = saved;
        const double numeric = (plus - minus) / (2.0 * h);
        EXPECT_NEAR(grad->f32()[i], numeric, 2e-4 + 2e-2 * std::abs(numeric))
            << GetParam() << " layer " << l << " index " << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Activations, MlpGradcheck,
                         ::testing::Values("relu", "gelu", "tanh", "sigmoid"));

TEST(MlpRecipe, LossScaleMultipliesTheGradient) {
  Mlp a(model::parseMlpSpec("mlp:6-5-3"), 4, amp::recipeByName("fp32"));
  Mlp b(model::parseMlpSpec("mlp:6-5-3"), 4, amp::recipeByName("fp32"));
  for (Mlp* m : {&a, &b}) {
    m->initialize(1);
    fillBatch(*m, 2);
  }
  model::OpTimes t;
  a.forward(t);
  a.backward(1.0f, false, t);
  b.forward(t);
  b.backward(1024.0f, false, t); // a power of two: exact scaling in FP32
  for (std::size_t i = 0; i < a.grads()[0].w.f32().size(); ++i)
    EXPECT_EQ(a.grads()[0].w.f32()[i] * 1024.0f, b.grads()[0].w.f32()[i]);
}

namespace {

bool allRepresentable(DType dtype, std::span<const float> values) {
  return std::ranges::all_of(values, [&](float v) {
    const float r = dtype == DType::BF16 ? numeric::bf16ToF32(numeric::f32ToBf16(v))
                                         : numeric::f16ToF32(numeric::f32ToF16(v));
    return r == v || std::isnan(v);
  });
}

} // namespace

// The recipe table is what runs: values stored "in BF16/FP16" are exactly
// representable in that format, and the FP32 recipe keeps values that are not.
TEST(MlpRecipe, StoredValuesAreExactlyInTheRecipesFormats) {
  for (std::string_view name : {"bf16-mixed", "fp16-mixed", "bf16-pure"}) {
    const auto& recipe = amp::recipeByName(name);
    Mlp m(model::parseMlpSpec("mlp:20-16-10"), 8, recipe);
    m.initialize(3);
    fillBatch(m, 4);
    model::OpTimes t;
    m.forward(t);
    m.backward(1.0f, false, t);
    const auto& a = m.acts();
    EXPECT_TRUE(allRepresentable(recipe.activations, a[0].pre.f32())) << name;
    EXPECT_TRUE(allRepresentable(recipe.activations, a[0].post.f32())) << name;
    EXPECT_TRUE(allRepresentable(recipe.gradients, a[1].dpre.f32())) << name;
    EXPECT_TRUE(allRepresentable(recipe.gradients, m.grads()[0].w.f32())) << name;
    EXPECT_TRUE(allRepresentable(recipe.gradients, a[1].dIn.f32())) << name;
    EXPECT_EQ(allRepresentable(recipe.weights, m.params()[0].w.f32()), !recipe.masterWeights)
        << name << ": the master copy keeps FP32 values, the pure recipe does not";
  }
  Mlp f(model::parseMlpSpec("mlp:20-16-10"), 8, amp::recipeByName("fp32"));
  f.initialize(3);
  fillBatch(f, 4);
  model::OpTimes t;
  f.forward(t);
  EXPECT_FALSE(allRepresentable(DType::BF16, f.acts()[0].pre.f32()));
}

TEST(MlpRecipe, Bf16MixedGradientsTrackFp32) {
  // Same weights and batch; BF16 matmul inputs change the gradient by a few
  // BF16 ULPs (2^-8 relative) of its scale, not more: 5% of the layer's max.
  Mlp ref(model::parseMlpSpec("mlp:30-20-10:tanh"), 16, amp::recipeByName("fp32"));
  Mlp low(model::parseMlpSpec("mlp:30-20-10:tanh"), 16, amp::recipeByName("bf16-mixed"));
  for (Mlp* m : {&ref, &low}) {
    m->initialize(9);
    fillBatch(*m, 10);
    model::OpTimes t;
    m->forward(t);
    m->backward(1.0f, false, t);
  }
  for (int l = 0; l < 2; ++l) {
    const auto g = ref.grads()[l].w.f32();
    const auto h = low.grads()[l].w.f32();
    float scale = 0.0f;
    for (float v : g)
      scale = std::max(scale, std::abs(v));
    for (std::size_t i = 0; i < g.size(); ++i)
      EXPECT_NEAR(h[i], g[i], 0.05f * scale) << "layer " << l << " index " << i;
  }
}

// Underflow accounting at a telemetry step (counted inside the rounding of
// each weight-gradient accumulator): the non-zero values rounding could lose
// less those it took to zero are exactly the non-zeros stored, and a small
// enough scale loses some in FP16. Zeroed input features give exactly-zero
// rows of layer 0's gradient, which count as neither.
TEST(MlpUnderflow, CountsTheAccumulatorsNonZerosAndThoseRoundedToZero) {
  for (const auto& [name, scale] : {std::pair{"fp16-mixed-noscale", 0x1p-14f},
                                    std::pair{"bf16-mixed", 1.0f}, std::pair{"fp32", 1.0f}}) {
    Mlp m(model::parseMlpSpec("mlp:20-16-10"), 32, amp::recipeByName(name));
    m.initialize(5);
    fillBatch(m, 6);
    auto x = m.inputs();
    for (std::size_t r = 0; r < 32; ++r)
      std::fill_n(x.begin() + static_cast<std::ptrdiff_t>(r * 20), 4, 0.0f);
    m.setMeasureUnderflow(true);
    model::OpTimes t;
    m.forward(t);
    m.backward(scale, false, t);
    std::int64_t lost = 0;
    for (int l = 0; l < 2; ++l) {
      const auto& u = m.underflow()[static_cast<std::size_t>(l)];
      const auto stored = m.grads()[l].w.f32();
      const auto nonzeros = std::ranges::count_if(stored, [](float v) { return v != 0.0f; });
      EXPECT_EQ(u.nonzero - u.lostToZero, nonzeros) << name << " layer " << l;
      if (l == 0) { // the zeroed features' rows of dW
        EXPECT_LE(u.nonzero, static_cast<std::int64_t>(stored.size()) - 4 * 16) << name;
      }
      lost += u.lostToZero;
    }
    if (std::string_view(name) == "fp16-mixed-noscale") {
      EXPECT_GT(lost, 0) << name;
    } else {
      EXPECT_EQ(lost, 0) << name;
    }
  }
}

TEST(MlpDivergence, ReportsTheFirstNonFiniteOp) {
  Mlp m(model::parseMlpSpec("mlp:6-5-3"), 4, amp::recipeByName("fp32"));
  m.initialize(1);
  fillBatch(m, 2);
  m.params()[1].w.f32()[2] = std::numeric_limits<float>::infinity();
  model::OpTimes t;
  const auto r = m.forward(t);
  EXPECT_FALSE(std::isfinite(r.loss));
  const auto site = m.firstNonFinite(false);
  ASSERT_TRUE(site.has_value());
  EXPECT_EQ(site->layer, 1);
  EXPECT_FALSE(site->backward);
  EXPECT_EQ(site->op, "linear");
  EXPECT_FALSE(m.firstNonFinite(false).has_value() && site->layer == 0);
}

TEST(MlpRecipe, GradientAccumulationSumsMicroBatches) {
  // Two micro-batches at scale 1/2 each (a power of two: exact) accumulate
  // to the mean of the two batches' gradients.
  const auto spec = model::parseMlpSpec("mlp:6-5-3");
  Mlp acc(spec, 4, amp::recipeByName("fp32"), 2);
  Mlp one(spec, 4, amp::recipeByName("fp32"));
  acc.initialize(1);
  one.initialize(1);
  model::OpTimes t;
  std::vector<std::vector<float>> single;
  for (unsigned batch : {2u, 3u}) {
    fillBatch(one, batch);
    one.forward(t);
    one.backward(1.0f, false, t);
    const auto g = one.grads()[0].w.f32();
    single.emplace_back(g.begin(), g.end());
    fillBatch(acc, batch);
    acc.forward(t);
    acc.backward(0.5f, batch == 3u, t);
  }
  const auto g = acc.grads()[0].w.f32();
  for (std::size_t i = 0; i < g.size(); ++i)
    EXPECT_FLOAT_EQ(g[i], 0.5f * (single[0][i] + single[1][i])) << i;
}
