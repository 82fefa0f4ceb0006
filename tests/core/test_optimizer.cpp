// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Optimizers against hand-computed PyTorch update sequences, and the update
// rounding rules of the pure-BF16 recipes.
#include <mantissa/amp/optimizer.h>
#include <mantissa/numeric/convert.h>

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

using namespace mantissa;
using amp::Optimizer;
using amp::OptimizerConfig;
using amp::recipeByName;

namespace {

struct Params {
  std::vector<float> value;
  std::vector<float> grad;
  std::vector<amp::Slot> slots() { return {amp::Slot{"p", value, grad}}; }
};

} // namespace

TEST(Sgd, MomentumSequenceMatchesTorch) {
  // torch.optim.SGD(lr=0.1, momentum=0.9), w=1, constant g=0.5:
  // buf 0.5, 0.95, 1.355 -> w 0.95, 0.855, 0.7195
  Params p{{1.0f}, {0.5f}};
  Optimizer opt(OptimizerConfig{}, recipeByName("fp32"), p.slots(), 1);
  const double expected[] = {0.95, 0.855, 0.7195};
  for (double e : expected) {
    opt.step(0.1);
    EXPECT_NEAR(p.value[0], e, 1e-6);
  }
}

TEST(AdamW, FirstStepsMatchTheClosedForm) {
  // Step 1: m^ = g, v^ = g^2 -> w = w (1 - lr wd) - lr g / (|g| + eps).
  Params p{{1.0f}, {0.5f}};
  OptimizerConfig c;
  c.kind = amp::OptimizerKind::AdamW;
  c.weightDecay = 0.1;
  Optimizer opt(c, recipeByName("fp32"), p.slots(), 1);
  opt.step(0.01);
  EXPECT_NEAR(p.value[0], 1.0 * (1 - 0.001) - 0.01 * 0.5 / (0.5 + 1e-8), 1e-6);
  // Step 2 with g = -0.5: m = 0.9*0.05 - 0.05 = -0.005, v = 0.999*2.5e-4 + 2.5e-7
  p.grad[0] = -0.5f;
  const double w1 = p.value[0];
  opt.step(0.01);
  const double m = 0.9 * 0.05 + 0.1 * -0.5, v = 0.999 * 0.00025 + 0.001 * 0.25;
  const double mHat = m / (1 - 0.81), vHat = v / (1 - 0.999 * 0.999);
  EXPECT_NEAR(p.value[0], w1 * (1 - 0.001) - 0.01 * mHat / (std::sqrt(vHat) + 1e-8), 1e-6);
}

TEST(UpdateRounding, PureBf16NearestLosesUpdatesBelowHalfAnUlp) {
  // BF16 ULP at 1.0 (just below: 2^-8): an update of -1e-3 rounds back to 1.
  Params p{std::vector<float>(64, 1.0f), std::vector<float>(64, 1.0f)};
  OptimizerConfig c;
  c.momentum = 0.0;
  Optimizer opt(c, recipeByName("bf16-pure"), p.slots(), 1);
  for (int i = 0; i < 10; ++i)
    opt.step(1e-3);
  EXPECT_EQ(p.value[0], 1.0f);
  EXPECT_EQ(opt.lastStats()[0].nonzero, 64);
  EXPECT_EQ(opt.lastStats()[0].unchanged, 64);
  // The master-weight recipe keeps every update.
  Params q{std::vector<float>(64, 1.0f), std::vector<float>(64, 1.0f)};
  Optimizer master(c, recipeByName("bf16-mixed"), q.slots(), 1);
  for (int i = 0; i < 10; ++i)
    master.step(1e-3);
  EXPECT_NEAR(q.value[0], 0.99f, 1e-6);
  EXPECT_EQ(master.lastStats()[0].unchanged, 0);
}

TEST(UpdateRounding, StochasticIsUnbiasedAndSeeded) {
  // 100 steps of -1e-3 from 1.0: expected 0.9. Each SR draw has a standard
  // deviation below one ULP (2^-8 .. 2^-9 here); over 100 steps and averaged
  // over 4096 weights the mean's deviation is ~1e-3 / 64: 5e-3 is 30 sigma.
  const std::size_t n = 4096;
  Params p{std::vector<float>(n, 1.0f), std::vector<float>(n, 1.0f)};
  OptimizerConfig c;
  c.momentum = 0.0;
  Optimizer opt(c, recipeByName("bf16-pure-sr"), p.slots(), 42);
  for (int i = 0; i < 100; ++i)
    opt.step(1e-3);
  const double mean = std::accumulate(p.value.begin(), p.value.end(), 0.0) / n;
  EXPECT_NEAR(mean, 0.9, 5e-3);
  for (float v : p.value) // every stored value is a BF16 value
    EXPECT_EQ(numeric::bf16ToF32(numeric::f32ToBf16(v)), v);
  // Same seed, same values; another seed, other values.
  Params a{std::vector<float>(n, 1.0f), std::vector<float>(n, 1.0f)};
  Params b{std::vector<float>(n, 1.0f), std::vector<float>(n, 1.0f)};
  Optimizer oa(c, recipeByName("bf16-pure-sr"), a.slots(), 42);
  Optimizer ob(c, recipeByName("bf16-pure-sr"), b.slots(), 43);
  for (int i = 0; i < 100; ++i) {
    oa.step(1e-3);
    ob.step(1e-3);
  }
  EXPECT_EQ(a.value, p.value);
  EXPECT_NE(b.value, p.value);
}

TEST(UpdateRounding, KahanCarriesTheLostPart) {
  Params p{{1.0f}, {1.0f}};
  OptimizerConfig c;
  c.momentum = 0.0;
  Optimizer opt(c, recipeByName("bf16-pure-kahan"), p.slots(), 1);
  for (int i = 0; i < 100; ++i)
    opt.step(1e-3);
  // Within one BF16 ULP at 0.9 (2^-8) of the exact 0.9.
  EXPECT_NEAR(p.value[0], 0.9, 1.0 / 256);
  EXPECT_EQ(numeric::bf16ToF32(numeric::f32ToBf16(p.value[0])), p.value[0]);
}

TEST(GradClip, GlobalNormAndFactorFollowTorch) {
  std::vector<float> v1(3), g1{3.0f, 0.0f, 0.0f}, v2(1), g2{4.0f};
  std::vector<amp::Slot> slots{{"a", v1, g1}, {"b", v2, g2}};
  const double norm = amp::globalGradNorm(slots);
  EXPECT_DOUBLE_EQ(norm, 5.0);
  std::vector<std::span<float>> grads{g1, g2};
  EXPECT_DOUBLE_EQ(amp::clipByGlobalNorm(grads, norm, 10.0), 1.0);
  EXPECT_EQ(g1[0], 3.0f);
  const double f = amp::clipByGlobalNorm(grads, norm, 1.0);
  EXPECT_NEAR(f, 1.0 / (5.0 + 1e-6), 1e-12);
  EXPECT_NEAR(g1[0], 0.6f, 1e-6);
  EXPECT_NEAR(g2[0], 0.8f, 1e-6);
}

TEST(OptimizerPlan, StateBytesFollowTheRecipe) {
  Params p{std::vector<float>(100), std::vector<float>(100)};
  OptimizerConfig adam;
  adam.kind = amp::OptimizerKind::AdamW;
  auto bytes = [&](const OptimizerConfig& c, std::string_view recipe) {
    Optimizer o(c, recipeByName(recipe), p.slots(), 1);
    const auto rows = o.plan();
    return model::bytesFor(rows, model::TensorRole::OptimizerState);
  };
  EXPECT_EQ(bytes(OptimizerConfig{}, "fp32"), 400u);      // momentum FP32
  EXPECT_EQ(bytes(adam, "bf16-mixed"), 800u);             // m, v FP32
  EXPECT_EQ(bytes(adam, "bf16-pure"), 400u);              // m, v BF16
  EXPECT_EQ(bytes(OptimizerConfig{}, "bf16-pure-kahan"), 400u); // momentum + c, BF16
}
