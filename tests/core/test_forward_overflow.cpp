// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// An FP16 overflow in the forward pass of fp16-mixed behaves as with
// PyTorch's GradScaler: the loss is inf, the gradients are non-finite, the
// step is skipped and the scale halves; the run goes on. Only an overflow
// that persists (the forward pass never sees the scale) ends the run, after
// Session::kForwardOverflowLimit skipped steps in a row. Without a skipping
// scaler the overflow is a divergence at once, as before.
#include <mantissa/train/session.h>

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

using namespace mantissa;

namespace {

constexpr int kSamples = 64;
constexpr int kFeatures = 8;

// Two classes; the samples `huge` says hold 1e5, past FP16's 65504, so the
// fp16-mixed forward pass casts them to inf. As FP32 data they are finite.
template <typename Huge>
std::shared_ptr<const data::TrainTest> dataWith(Huge huge) {
  data::Dataset d;
  d.name = "overflow";
  d.features = kFeatures;
  d.classes = 2;
  d.classNames = {"0", "1"};
  for (int i = 0; i < kSamples; ++i) {
    d.y.push_back(static_cast<std::uint8_t>(i % 2));
    for (int f = 0; f < kFeatures; ++f)
      d.x.push_back(huge(i) ? 6e4f : (i % 2 ? 0.5f : -0.5f) + 0.01f * float(f));
  }
  auto tt = std::make_shared<data::TrainTest>();
  tt->train = d;
  tt->test = d;
  return tt;
}

train::RunConfig config(const std::string& scaler, int steps) {
  train::RunConfig c;
  c.model = "mlp:8-16-2";
  c.recipe = "fp16-mixed";
  c.scaler = scaler;
  c.batch = 16;
  c.steps = steps;
  c.seed = 3;
  c.evalEvery = 0;
  return c;
}

} // namespace

TEST(ForwardOverflow, SkipsTheStepAndBacksOffLikeGradScaler) {
  // Sample 5 holds 6e4 (finite in FP16): the first layer's outputs for it
  // pass 65504 and become inf, and its logits NaN, in the steps that draw it.
  train::Session s(config("pytorch", 12), dataWith([](int i) { return i == 5; }));
  int overflowed = 0;
  while (!s.finished()) {
    const double scaleBefore = s.scaler()->scale();
    const auto& r = s.step();
    if (std::isfinite(r.loss))
      continue; // (a finite step may still be skipped: its scaled gradients overflowed)
    ++overflowed;
    EXPECT_TRUE(r.foundInf) << "step " << r.step;
    EXPECT_TRUE(r.skipped) << "step " << r.step;
    EXPECT_EQ(r.scaler.scale, scaleBefore * 0.5) << "step " << r.step; // GradScaler's backoff_factor
    ASSERT_TRUE(r.firstNonFinite.has_value());
    EXPECT_FALSE(r.firstNonFinite->backward) << r.firstNonFinite->op; // it began in the forward pass
  }
  EXPECT_FALSE(s.divergence().has_value()) << s.divergence()->message;
  EXPECT_EQ(s.stepsDone(), 12);
  EXPECT_GE(overflowed, 1);
  EXPECT_GE(s.skippedSteps(), overflowed);
  for (const auto& p : s.model().params())
    for (float v : p.w.f32())
      ASSERT_TRUE(std::isfinite(v)); // skipped steps left the weights alone
}

TEST(ForwardOverflow, PersistentOverflowEndsTheRunAfterTheLimit) {
  // Weights 10^4 times their usual size: every forward pass overflows FP16.
  train::RunConfig c = config("pytorch", 100);
  c.initGain = 1e4;
  train::Session s(c, dataWith([](int) { return false; }));
  while (!s.finished())
    s.step();
  ASSERT_TRUE(s.divergence().has_value());
  EXPECT_EQ(s.divergence()->reason, "forward overflow");
  EXPECT_FALSE(s.divergence()->backward);
  EXPECT_EQ(s.stepsDone(), train::Session::kForwardOverflowLimit);
  EXPECT_EQ(s.skippedSteps(), train::Session::kForwardOverflowLimit);
  // Backed off once per skipped step, from GradScaler's 2^16.
  EXPECT_EQ(s.scaler()->scale(), std::ldexp(1.0, 16 - train::Session::kForwardOverflowLimit));
}

TEST(ForwardOverflow, WithoutAScalerItIsADivergenceAtOnce) {
  train::Session s(config("none", 12), dataWith([](int i) { return i == 5; }));
  while (!s.finished())
    s.step();
  ASSERT_TRUE(s.divergence().has_value());
  EXPECT_EQ(s.divergence()->reason, "non-finite loss");
  EXPECT_FALSE(s.divergence()->backward);
  EXPECT_EQ(s.skippedSteps(), 0);
}
