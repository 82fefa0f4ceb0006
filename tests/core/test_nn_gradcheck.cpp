// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Finite-difference gradient checks, layer by layer. Central differences in
// FP32 with step h; the tolerance is stated per check and per precision:
//  - FP32 layers: the FD error is O(h^2) plus FP32 rounding of the loss
//    divided by 2h, a few 1e-4 at most for these sizes;
//  - BF16 / FP16 matmul inputs: the analytic gradient uses inputs rounded to
//    8 / 11 significant bits, so it may differ from the FP32 finite
//    difference by a few of those ULPs relative to the gradient's scale.
#include <mantissa/nn/activation.h>
#include <mantissa/nn/linear.h>
#include <mantissa/nn/softmax_xent.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace mantissa;

namespace {

std::vector<float> randomValues(std::size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v)
    x = dist(rng);
  return v;
}

double maxAbs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v)
    m = std::max(m, std::abs(x));
  return m;
}

} // namespace

class ActivationGradcheck : public ::testing::TestWithParam<nn::Activation> {};

TEST_P(ActivationGradcheck, MatchesCentralDifferences) {
  const nn::Activation act = GetParam();
  auto x = randomValues(200, -3.0f, 3.0f, 7);
  for (float& v : x) // keep ReLU's kink out of the difference stencil
    if (std::abs(v) < 0.05f)
      v = 0.5f;
  const auto dy = randomValues(x.size(), -1.0f, 1.0f, 8);
  std::vector<float> y(x.size()), dx(x.size());
  nn::activationForward(act, x, y);
  nn::activationBackward(act, x, y, dy, dx);
  const float h = 1e-2f;
  for (std::size_t i = 0; i < x.size(); ++i) {
    float plus = 0.0f, minus = 0.0f;
    const float xp = x[i] + h, xm = x[i] - h;
    nn::activationForward(act, std::span<const float>(&xp, 1), std::span<float>(&plus, 1));
    nn::activationForward(act, std::span<const float>(&xm, 1), std::span<float>(&minus, 1));
    const double numeric = dy[i] * (double(plus) - double(minus)) / (2.0 * h);
    EXPECT_NEAR(dx[i], numeric, 1e-3) << nn::activationName(act) << " at x=" << x[i];
  }
}

INSTANTIATE_TEST_SUITE_P(All, ActivationGradcheck,
                         ::testing::Values(nn::Activation::Relu, nn::Activation::Gelu,
                                           nn::Activation::Tanh, nn::Activation::Sigmoid),
                         [](const auto& p) { return std::string(nn::activationName(p.param)); });

TEST(ActivationValues, MatchClosedForms) {
  const std::vector<float> x{-2.0f, -0.5f, 0.0f, 0.5f, 2.0f};
  std::vector<float> y(x.size());
  nn::activationForward(nn::Activation::Gelu, x, y);
  // GELU tanh approximation at 1 and 2 computed by hand in double:
  // 0.5*2*(1+tanh(0.79788456*(2+0.044715*8))) = 1.95459769...
  EXPECT_NEAR(y[4], 1.9545977, 1e-6);
  EXPECT_NEAR(y[0], -0.0454023, 1e-6);
  nn::activationForward(nn::Activation::Sigmoid, x, y);
  EXPECT_NEAR(y[2], 0.5f, 0.0f);
  EXPECT_NEAR(y[4], 0.8807970779778823, 1e-7);
  EXPECT_EQ(nn::parseActivation("gelu"), nn::Activation::Gelu);
  EXPECT_FALSE(nn::parseActivation("swish").has_value());
}

TEST(SoftmaxXent, GradientMatchesCentralDifferences) {
  const int batch = 4, classes = 5;
  auto logits = randomValues(batch * classes, -2.0f, 2.0f, 11);
  const std::vector<std::int32_t> labels{0, 3, 4, 1};
  std::vector<float> probs(logits.size()), dlogits(logits.size());
  nn::softmaxXentForward(logits, labels, batch, classes, probs);
  nn::softmaxXentBackward(probs, labels, batch, classes, 1.0f, dlogits);
  const float h = 1e-2f;
  for (std::size_t i = 0; i < logits.size(); ++i) {
    auto bumped = logits;
    bumped[i] += h;
    const double plus = nn::softmaxXentForward(bumped, labels, batch, classes, probs).loss;
    bumped[i] -= 2 * h;
    const double minus = nn::softmaxXentForward(bumped, labels, batch, classes, probs).loss;
    EXPECT_NEAR(dlogits[i], (plus - minus) / (2.0 * h), 2e-4) << "logit " << i;
  }
}

TEST(SoftmaxXent, LossAndScaleFromClosedForm) {
  // Two classes with logits (0, ln 3): softmax = (1/4, 3/4).
  const std::vector<float> logits{0.0f, std::log(3.0f)};
  const std::vector<std::int32_t> label{0};
  std::vector<float> probs(2), d(2);
  const auto r = nn::softmaxXentForward(logits, label, 1, 2, probs);
  EXPECT_NEAR(r.loss, std::log(4.0), 1e-6);
  EXPECT_EQ(r.correct, 0);
  nn::softmaxXentBackward(probs, label, 1, 2, 1024.0f, d);
  EXPECT_NEAR(d[0], 1024.0 * (0.25 - 1.0), 1e-3);
  EXPECT_NEAR(d[1], 1024.0 * 0.75, 1e-3);
  // Huge logits stay finite: the log-sum-exp subtracts the max.
  const std::vector<float> big{1000.0f, -1000.0f};
  EXPECT_NEAR(nn::softmaxXentForward(big, label, 1, 2, probs).loss, 0.0, 1e-6);
}

namespace {

// L = sum(r . (x W)) as a function of one perturbed entry, in double from the
// FP32 matmul result.
double linearLoss(nn::Linear& lin, const Tensor& x, const Tensor& w, const std::vector<float>& r) {
  Tensor xIn(lin.inputs(), x.rows(), x.cols()), wIn(lin.inputs(), w.rows(), w.cols());
  Tensor y(DType::F32, x.rows(), w.cols());
  xIn.convertFrom(x);
  wIn.convertFrom(w);
  lin.forwardMatmul(xIn, wIn, y);
  double sum = 0.0;
  for (std::size_t i = 0; i < r.size(); ++i)
    sum += double(r[i]) * y.f32()[i];
  return sum;
}

struct LinearCase {
  DType dtype;
  double relTol; // of the largest gradient entry
};

void PrintTo(const LinearCase& c, std::ostream* os) {
  *os << dtypeName(c.dtype);
}

} // namespace

class LinearGradcheck : public ::testing::TestWithParam<LinearCase> {};

TEST_P(LinearGradcheck, BothBackwardProductsMatchCentralDifferences) {
  const auto [dtype, relTol] = GetParam();
  const int batch = 5, in = 7, out = 3;
  nn::Linear lin(batch, in, out, dtype);
  Tensor x(DType::F32, batch, in), w(DType::F32, in, out), dy(DType::F32, batch, out);
  std::ranges::copy(randomValues(x.size(), -1, 1, 1), x.f32().begin());
  std::ranges::copy(randomValues(w.size(), -1, 1, 2), w.f32().begin());
  const auto r = randomValues(dy.size(), -1, 1, 3);
  std::ranges::copy(r, dy.f32().begin());

  Tensor xIn(dtype, batch, in), wIn(dtype, in, out), dyIn(dtype, batch, out);
  xIn.convertFrom(x);
  wIn.convertFrom(w);
  dyIn.convertFrom(dy);
  Tensor dx(DType::F32, batch, in), dw(DType::F32, in, out);
  lin.backwardData(dyIn, wIn, dx);
  lin.backwardWeights(xIn, dyIn, dw);

  nn::Linear ref(batch, in, out, DType::F32); // the FP32 function being differentiated
  const float h = 1e-2f;
  auto numericGrad = [&](Tensor& t) {
    std::vector<double> g(static_cast<std::size_t>(t.size()));
    for (std::size_t i = 0; i < g.size(); ++i) {
      const float saved = t.f32()[i];
      t.f32()[i] = saved + h;
      const double plus = linearLoss(ref, x, w, r);
      t.f32()[i] = saved - h;
      const double minus = linearLoss(ref, x, w, r);
      t.f32()[i] = saved;
      g[i] = (plus - minus) / (2.0 * h);
    }
    return g;
  };
  const auto gx = numericGrad(x);
  const auto gw = numericGrad(w);
  const double tolX = relTol * maxAbs(gx), tolW = relTol * maxAbs(gw);
  for (std::size_t i = 0; i < gx.size(); ++i)
    EXPECT_NEAR(dx.f32()[i], gx[i], tolX) << "dX[" << i << "] " << dtypeName(dtype);
  for (std::size_t i = 0; i < gw.size(); ++i)
    EXPECT_NEAR(dw.f32()[i], gw[i], tolW) << "dW[" << i << "] " << dtypeName(dtype);
}

// FP32: 1e-3 covers the FD error. BF16: 8 significant bits -> each input off
// by up to 2^-9 relative; summed over K <= 7 terms with signs, 3% of the
// largest entry bounds it. FP16: 11 bits -> 0.5%.
INSTANTIATE_TEST_SUITE_P(PerPrecision, LinearGradcheck,
                         ::testing::Values(LinearCase{DType::F32, 1e-3},
                                           LinearCase{DType::BF16, 3e-2},
                                           LinearCase{DType::F16, 5e-3}),
                         [](const auto& p) { return std::string(dtypeName(p.param.dtype)); });
