// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// 2x2 max pooling and BatchNorm2d: hand-worked values, central finite
// differences (loss summed in double), and BatchNorm's running statistics
// against torch.nn.BatchNorm2d's documented update computed here in double.
#include <mantissa/nn/activation.h>
#include <mantissa/nn/batchnorm2d.h>
#include <mantissa/nn/pool2d.h>
#include <mantissa/nn/precision.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <iostream>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
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

double dot(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    s += double(a[i]) * double(b[i]);
  return s;
}

} // namespace

TEST(MaxPool2d, WorkedExample) {
  // One 4x4 plane:
  //   1  5 | 2  2
  //   3 -1 | 2  7
  //   -----+-----
  //   0  0 | 9  8
  //  -4  0 | 8  9
  const std::vector<float> in{1, 5, 2, 2, 3, -1, 2, 7, 0, 0, 9, 8, -4, 0, 8, 9};
  std::vector<float> out(4);
  std::vector<std::int32_t> argmax(4);
  nn::maxPool2dForward(out, argmax, in, 1, 1, 4, 4);
  EXPECT_EQ(out, (std::vector<float>{5, 7, 0, 9}));
  // Ties: window (1,0) holds 0 at positions 8, 9 and 13: the first (8) wins;
  // window (1,1) holds 9 at 10 and 15: 10 wins.
  EXPECT_EQ(argmax, (std::vector<std::int32_t>{1, 7, 8, 10}));

  const std::vector<float> dout{0.5f, -1.0f, 2.0f, 3.0f};
  std::vector<float> din(16, 123.0f); // overwritten everywhere
  nn::maxPool2dBackward(din, dout, argmax, 1, 1, 4, 4);
  EXPECT_EQ(din, (std::vector<float>{0, 0.5f, 0, 0, 0, 0, 0, -1.0f, 2.0f, 0, 3.0f, 0, 0, 0, 0, 0}));
}

TEST(MaxPool2d, TiesGoToTheFirstInRowMajorOrderAndNanWins) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Four 2x2 planes (B=2, C=2): all equal; equal maximum at 1 and 3;
  // -0 before +0 (they compare equal: the first wins); NaN after a larger value.
  const std::vector<float> in{4, 4, 4, 4, 1, 6, 2, 6, -0.0f, 0.0f, -1, -1, 7, 1, nan, 2};
  std::vector<float> out(4);
  std::vector<std::int32_t> argmax(4);
  nn::maxPool2dForward(out, argmax, in, 2, 2, 2, 2);
  EXPECT_EQ(argmax, (std::vector<std::int32_t>{0, 1, 0, 2}));
  EXPECT_EQ(out[0], 4.0f);
  EXPECT_EQ(out[1], 6.0f);
  EXPECT_TRUE(std::signbit(out[2])); // the first zero, -0
  EXPECT_TRUE(std::isnan(out[3]));
  std::vector<float> din(16);
  nn::maxPool2dBackward(din, std::vector<float>{1, 2, 3, 4}, argmax, 2, 2, 2, 2);
  EXPECT_EQ(din, (std::vector<float>{1, 0, 0, 0, 0, 2, 0, 0, 3, 0, 0, 0, 0, 0, 4, 0}));
}

TEST(MaxPool2d, BackwardMatchesCentralDifferences) {
  const int B = 2, C = 3, H = 6, W = 8;
  const std::size_t n = std::size_t(B) * C * H * W;
  // Distinct values 0.1 apart, shuffled: no window's maximum is within h of
  // another element, so the difference stencil never changes the argmax.
  std::vector<float> in(n);
  std::iota(in.begin(), in.end(), 0.0f);
  std::shuffle(in.begin(), in.end(), std::mt19937(5));
  for (float& v : in)
    v = v * 0.1f - 10.0f;
  const auto dout = randomValues(n / 4, -1.0f, 1.0f, 6);
  std::vector<float> out(n / 4), din(n);
  std::vector<std::int32_t> argmax(n / 4);
  nn::maxPool2dForward(out, argmax, in, B, C, H, W);
  nn::maxPool2dBackward(din, dout, argmax, B, C, H, W);
  const float h = 1e-2f;
  for (std::size_t i = 0; i < n; ++i) {
    const float saved = in[i];
    in[i] = saved + h;
    nn::maxPool2dForward(out, argmax, in, B, C, H, W);
    const double plus = dot(dout, out);
    in[i] = saved - h;
    nn::maxPool2dForward(out, argmax, in, B, C, H, W);
    const double minus = dot(dout, out);
    in[i] = saved;
    // The perturbed value moves by h exactly up to the rounding of saved +- h.
    EXPECT_NEAR(din[i], (plus - minus) / (2.0 * double(h)), 1e-4) << "element " << i;
  }
}

// The pooling kernels against a plain reference written from the contract in
// pool2d.h (scan each window in row-major order, replace on strictly greater
// or on the first NaN), on the LeNet plane sizes and odd widths that leave
// vector tails, with values drawn from a small set so ties, -0/+0 and NaN
// meet in every position of a window.
TEST(MaxPool2d, MatchesPlainWindowScanOnTiesZerosAndNans) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float pool[] = {-1.0f, -0.0f, 0.0f, 0.5f, 0.5f, 2.0f, nan, -nan};
  std::mt19937 rng(11);
  struct Shape { int B, C, H, W; };
  for (const Shape sh : {Shape{2, 3, 28, 28}, Shape{3, 5, 14, 14}, Shape{1, 2, 2, 2},
                         Shape{2, 2, 6, 34}, Shape{1, 1, 4, 66}}) {
    const std::size_t n = std::size_t(sh.B) * sh.C * sh.H * sh.W;
    std::vector<float> in(n);
    for (float& v : in)
      v = pool[rng() % 8];
    std::vector<float> out(n / 4);
    std::vector<std::int32_t> argmax(n / 4);
    nn::maxPool2dForward(out, argmax, in, sh.B, sh.C, sh.H, sh.W);
    const auto dout = randomValues(n / 4, -1.0f, 1.0f, 12);
    std::vector<float> din(n, 99.0f);
    nn::maxPool2dBackward(din, dout, argmax, sh.B, sh.C, sh.H, sh.W);
    const int Ho = sh.H / 2, Wo = sh.W / 2;
    std::size_t o = 0;
    for (int q = 0; q < sh.B * sh.C; ++q) {
      const std::size_t plane = std::size_t(q) * sh.H * sh.W;
      for (int i = 0; i < Ho; ++i)
        for (int j = 0; j < Wo; ++j, ++o) {
          const int pos[4] = {2 * i * sh.W + 2 * j, 2 * i * sh.W + 2 * j + 1,
                              (2 * i + 1) * sh.W + 2 * j, (2 * i + 1) * sh.W + 2 * j + 1};
          int best = pos[0];
          for (int t = 1; t < 4; ++t) {
            if (std::isnan(in[plane + best]))
              break;
            if (std::isnan(in[plane + pos[t]]) || in[plane + pos[t]] > in[plane + best])
              best = pos[t];
          }
          ASSERT_EQ(argmax[o], best) << "shape " << sh.H << "x" << sh.W << " output " << o;
          const float want = in[plane + best];
          ASSERT_TRUE(std::isnan(want) ? std::isnan(out[o])
                                       : out[o] == want && std::signbit(out[o]) == std::signbit(want))
              << "output " << o;
          for (int p : pos)
            ASSERT_EQ(din[plane + p], p == best ? dout[o] : 0.0f) << "din at " << plane + p;
        }
    }
    // The fused ReLU + pooling pair against the two ops in turn, bit for bit.
    std::vector<float> relu(n), reluDin(n), pooled(n / 4), fused(n / 4), fusedDin(n, 99.0f);
    std::vector<std::int32_t> pooledArg(n / 4), fusedArg(n / 4);
    nn::activationForward(nn::Activation::Relu, in, relu);
    nn::maxPool2dForward(pooled, pooledArg, relu, sh.B, sh.C, sh.H, sh.W);
    nn::reluMaxPool2dForward(fused, fusedArg, in, sh.B, sh.C, sh.H, sh.W);
    EXPECT_EQ(fusedArg, pooledArg);
    for (std::size_t i = 0; i < n / 4; ++i)
      ASSERT_EQ(std::bit_cast<std::uint32_t>(fused[i]), std::bit_cast<std::uint32_t>(pooled[i]))
          << "fused output " << i;
    nn::maxPool2dBackward(din, dout, pooledArg, sh.B, sh.C, sh.H, sh.W);
    nn::activationBackward(nn::Activation::Relu, in, relu, din, reluDin);
    nn::maxPool2dReluBackward(fusedDin, dout, fusedArg, in, sh.B, sh.C, sh.H, sh.W);
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(std::bit_cast<std::uint32_t>(fusedDin[i]), std::bit_cast<std::uint32_t>(reluDin[i]))
          << "fused din " << i;
  }
  std::cout << "[ info ] pooling kernels: " << (nn::maxPool2dAvx512() ? "AVX-512" : "plain")
            << "\n";
}

TEST(MaxPool2d, RejectsOddSizesAndWrongSpans) {
  std::vector<float> in(2 * 5 * 4), out(2 * 5 * 4 / 4);
  std::vector<std::int32_t> argmax(out.size());
  try {
    nn::maxPool2dForward(out, argmax, in, 2, 1, 5, 4);
    ADD_FAILURE() << "odd height accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("must be even"), std::string::npos) << e.what();
  }
  std::vector<float> in44(16), out44(4);
  EXPECT_THROW(nn::maxPool2dForward(out44, std::span<std::int32_t>(argmax).first(3), in44, 1, 1, 4, 4),
               std::invalid_argument);
  std::vector<std::int32_t> outside{0, 2, 8, 10}; // window (0,0) must hold 0, 1, 4 or 5: 0 ok;
  outside[1] = 0;                                 // window (0,1) cannot point at 0
  std::vector<float> din(16);
  EXPECT_THROW(nn::maxPool2dBackward(din, out44, outside, 1, 1, 4, 4), std::invalid_argument);
}

TEST(Relu, ForwardAndBackwardOnConvActivations) {
  // The CNN's ReLU is nn::Activation::Relu applied to the whole [B, C*H*W] row.
  const std::vector<float> x{-2.0f, -0.0f, 0.0f, 3.0f};
  std::vector<float> y(4), dx(4);
  nn::activationForward(nn::Activation::Relu, x, y);
  EXPECT_EQ(y, (std::vector<float>{0, 0, 0, 3}));
  nn::activationBackward(nn::Activation::Relu, x, y, std::vector<float>{1, 1, 1, 1}, dx);
  EXPECT_EQ(dx[0], 0.0f);
  EXPECT_EQ(dx[3], 1.0f);
}

namespace {

struct BnCase {
  int B, C, HW;
};

} // namespace

TEST(BatchNorm2d, TrainingForwardMatchesDoubleFormula) {
  const BnCase s{3, 4, 10};
  const std::size_t n = std::size_t(s.B) * s.C * s.HW;
  const auto in = randomValues(n, -2.0f, 3.0f, 41);
  const auto gamma = randomValues(s.C, 0.5f, 1.5f, 42), beta = randomValues(s.C, -1.0f, 1.0f, 43);
  std::vector<float> out(n), mean(s.C), rstd(s.C), rm(s.C, 0.0f), rv(s.C, 1.0f);
  nn::batchNorm2dTrainForward(out, mean, rstd, rm, rv, in, gamma, beta, s.B, s.C, s.HW);
  const int N = s.B * s.HW;
  for (int c = 0; c < s.C; ++c) {
    double m = 0, v = 0;
    for (int b = 0; b < s.B; ++b)
      for (int p = 0; p < s.HW; ++p)
        m += in[(std::size_t(b) * s.C + c) * s.HW + p];
    m /= N;
    for (int b = 0; b < s.B; ++b)
      for (int p = 0; p < s.HW; ++p)
        v += std::pow(in[(std::size_t(b) * s.C + c) * s.HW + p] - m, 2);
    v /= N; // biased
    const double r = 1.0 / std::sqrt(v + 1e-5);
    EXPECT_NEAR(mean[c], m, 1e-6);
    EXPECT_NEAR(rstd[c], r, 1e-6 * r);
    for (int b = 0; b < s.B; ++b)
      for (int p = 0; p < s.HW; ++p) {
        const std::size_t i = (std::size_t(b) * s.C + c) * s.HW + p;
        EXPECT_NEAR(out[i], (in[i] - m) * r * gamma[c] + beta[c], 1e-5);
      }
  }
}

// torch.nn.BatchNorm2d (documentation, "momentum"): running_mean =
// (1 - momentum) * running_mean + momentum * batch_mean, and running_var
// likewise with the UNBIASED batch variance (divided by N - 1), starting from
// mean 0 and variance 1. Three steps on different batches, in double here.
TEST(BatchNorm2d, RunningStatisticsFollowPyTorchsUpdate) {
  const BnCase s{4, 3, 9};
  const std::size_t n = std::size_t(s.B) * s.C * s.HW;
  const int N = s.B * s.HW;
  const auto gamma = randomValues(s.C, 0.5f, 1.5f, 51), beta = randomValues(s.C, -1.0f, 1.0f, 52);
  std::vector<float> out(n), mean(s.C), rstd(s.C), rm(s.C, 0.0f), rv(s.C, 1.0f);
  std::vector<double> expectMean(s.C, 0.0), expectVar(s.C, 1.0);
  for (unsigned step = 0; step < 3; ++step) {
    const auto in = randomValues(n, -1.0f + float(step), 2.0f + 2.0f * float(step), 60 + step);
    nn::batchNorm2dTrainForward(out, mean, rstd, rm, rv, in, gamma, beta, s.B, s.C, s.HW);
    for (int c = 0; c < s.C; ++c) {
      double m = 0, ss = 0;
      for (int b = 0; b < s.B; ++b)
        for (int p = 0; p < s.HW; ++p)
          m += in[(std::size_t(b) * s.C + c) * s.HW + p];
      m /= N;
      for (int b = 0; b < s.B; ++b)
        for (int p = 0; p < s.HW; ++p)
          ss += std::pow(in[(std::size_t(b) * s.C + c) * s.HW + p] - m, 2);
      expectMean[c] = 0.9 * expectMean[c] + 0.1 * m;
      expectVar[c] = 0.9 * expectVar[c] + 0.1 * ss / (N - 1);
      EXPECT_NEAR(rm[c], expectMean[c], 1e-6) << "step " << step << " channel " << c;
      EXPECT_NEAR(rv[c], expectVar[c], 1e-6 * expectVar[c]) << "step " << step << " channel " << c;
    }
  }
}

TEST(BatchNorm2d, EvalUsesRunningStatisticsNotTheBatch) {
  const BnCase s{2, 2, 8};
  const std::size_t n = std::size_t(s.B) * s.C * s.HW;
  const auto in = randomValues(n, 1.0f, 4.0f, 71);
  const std::vector<float> gamma{1.5f, 0.5f}, beta{0.25f, -1.0f};
  const std::vector<float> rm{0.5f, -1.0f}, rv{2.0f, 0.25f};
  std::vector<float> evalOut(n), trainOut(n), mean(2), rstd(2);
  nn::batchNorm2dEvalForward(evalOut, in, gamma, beta, rm, rv, s.B, s.C, s.HW);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t c = (i / std::size_t(s.HW)) % 2;
    EXPECT_NEAR(evalOut[i], (in[i] - rm[c]) / std::sqrt(double(rv[c]) + 1e-5) * gamma[c] + beta[c],
                1e-5);
  }
  // The same batch in training mode normalizes with its own statistics:
  // every channel of the output then has mean beta and variance ~gamma^2.
  std::vector<float> rm2 = rm, rv2 = rv;
  nn::batchNorm2dTrainForward(trainOut, mean, rstd, rm2, rv2, in, gamma, beta, s.B, s.C, s.HW);
  for (int c = 0; c < 2; ++c) {
    double m = 0;
    for (int b = 0; b < s.B; ++b)
      for (int p = 0; p < s.HW; ++p)
        m += trainOut[(std::size_t(b) * s.C + c) * s.HW + p];
    EXPECT_NEAR(m / (s.B * s.HW), beta[c], 1e-5);
  }
  EXPECT_GT(std::abs(trainOut[0] - evalOut[0]), 0.1f);
  // Evaluation changed nothing; training moved the running stats.
  EXPECT_NE(rm2, rm);
  EXPECT_NE(rv2, rv);
}

TEST(BatchNorm2d, BackwardMatchesCentralDifferences) {
  const BnCase s{3, 2, 6};
  const std::size_t n = std::size_t(s.B) * s.C * s.HW;
  auto in = randomValues(n, -1.0f, 2.0f, 81);
  auto gamma = randomValues(s.C, 0.5f, 1.5f, 82), beta = randomValues(s.C, -0.5f, 0.5f, 83);
  const auto dout = randomValues(n, -1.0f, 1.0f, 84);
  std::vector<float> out(n), mean(s.C), rstd(s.C), rm(s.C), rv(s.C);
  auto loss = [&] {
    nn::batchNorm2dTrainForward(out, mean, rstd, rm, rv, in, gamma, beta, s.B, s.C, s.HW);
    return dot(dout, out);
  };
  loss();
  std::vector<float> din(n, 99.0f), dgamma(s.C, 99.0f), dbeta(s.C, 99.0f);
  nn::batchNorm2dBackward(din, dgamma, dbeta, dout, in, gamma, mean, rstd, s.B, s.C, s.HW);
  // Truncation O(h^2) of a smooth function plus FP32 rounding of the outputs
  // (~1e-7 * 36 terms) over 2h: a few 1e-4 at most for h = 1e-2.
  const float h = 1e-2f;
  auto check = [&](const char* name, std::vector<float>& param, const std::vector<float>& grad) {
    for (std::size_t i = 0; i < param.size(); ++i) {
      const float saved = param[i];
      param[i] = saved + h;
      const double plus = loss();
      param[i] = saved - h;
      const double minus = loss();
      param[i] = saved;
      EXPECT_NEAR(grad[i], (plus - minus) / (2.0 * double(h)), 2e-3) << name << "[" << i << "]";
    }
  };
  check("in", in, din);
  check("gamma", gamma, dgamma);
  check("beta", beta, dbeta);
}

// BF16 statistics, worked by hand. One channel, B = 2 planes of 16 values:
// plane 0 is 256 then fifteen 0.5s, plane 1 is sixteen 0.5s. BF16 has 8
// significant bits, so next to 256 its spacing is 2 and 256 + 0.5 rounds
// back to 256: plane 0 sums to 256 (FP32: 263.5), plane 1 to 8 exactly, the
// total to 264 and the mean to 264 / 32 = 8.25 (FP32: 271.5 / 32 = 8.484375).
TEST(BatchNorm2d, Bf16StatisticsSwampLikeA16BitReduction) {
  std::vector<float> in(32, 0.5f);
  in[0] = 256.0f;
  const std::vector<float> gamma{1.0f}, beta{0.0f};
  std::vector<float> out(32), mean(1), rstd(1), rm{0.0f}, rv{1.0f};
  nn::batchNorm2dTrainForward(out, mean, rstd, rm, rv, in, gamma, beta, 2, 1, 16, DType::BF16);
  EXPECT_EQ(mean[0], 8.25f);
  std::vector<float> rm32{0.0f}, rv32{1.0f}, mean32(1), rstd32(1);
  nn::batchNorm2dTrainForward(out, mean32, rstd32, rm32, rv32, in, gamma, beta, 2, 1, 16);
  EXPECT_EQ(mean32[0], 8.484375f);
  // Everything BF16 statistics keep is a BF16 value.
  for (float v : {mean[0], rstd[0], rm[0], rv[0]})
    EXPECT_EQ(nn::roundScalar(DType::BF16, v), v) << v;
  EXPECT_EQ(rm[0], nn::roundScalar(DType::BF16, 0.825f));
}

TEST(BatchNorm2d, RejectsBadSizes) {
  std::vector<float> in(8), out(8), mean(2), rstd(2), rm(2), rv(2), g(2), b(2);
  EXPECT_THROW(nn::batchNorm2dTrainForward(out, mean, rstd, rm, rv, in, g, b, 2, 2, 3),
               std::invalid_argument);
  // One value per channel: no unbiased variance.
  std::vector<float> one(2), oneOut(2);
  try {
    nn::batchNorm2dTrainForward(oneOut, mean, rstd, rm, rv, one, g, b, 1, 2, 1);
    ADD_FAILURE() << "N = 1 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("at least 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(nn::batchNorm2dEvalForward(out, in, g, std::span<const float>(b).first(1), rm, rv,
                                          2, 2, 2),
               std::invalid_argument);
}
