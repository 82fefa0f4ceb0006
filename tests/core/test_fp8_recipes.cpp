// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The FP8 and microscaling recipes: delayed scaling against a hand-worked
// amax sequence, quantized products against a plain double loop built from
// the format definitions (every E4M3 / E5M2 value decoded from its fields),
// E5M2 on the backward, stochastic rounding's mean and seeding, recipe and
// policy names, and the scaling telemetry's JSON.
#include <mantissa/amp/policy.h>
#include <mantissa/amp/recipe.h>
#include <mantissa/amp/scaling.h>
#include <mantissa/numeric/block_quant.h>
#include <mantissa/nn/scaled_linear.h>
#include <mantissa/telemetry/frame.h>
#include <mantissa/telemetry/scaling.h>
#include <mantissa/train/run_log.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <vector>

using namespace mantissa;
using amp::AmaxCompute;
using amp::DelayedScale;
using amp::MatmulScaling;
using telemetry::ScaledRole;

namespace {

// Every finite non-negative value of a small float format with E exponent and
// M mantissa bits, bias 2^(E-1) - 1, from its fields. E4M3 (OCP E4M3FN): the
// top exponent is a normal binade whose all-ones mantissa is NaN; E5M2: IEEE-like
// (top exponent is Inf/NaN).
std::vector<double> formatValues(int E, int M, bool fn) {
  const int bias = (1 << (E - 1)) - 1;
  std::vector<double> v;
  for (int e = 0; e < (1 << E); ++e)
    for (int m = 0; m < (1 << M); ++m) {
      if (e == (1 << E) - 1 && (!fn || m == (1 << M) - 1))
        continue; // Inf / NaN codes
      v.push_back(e == 0 ? std::ldexp(double(m) / (1 << M), 1 - bias)
                         : std::ldexp(1.0 + double(m) / (1 << M), e - bias));
    }
  std::sort(v.begin(), v.end());
  return v;
}

// Round to nearest of `values` (sorted, non-negative), ties to the one with an
// even mantissa code (its index is even within the sorted list, as codes are
// consecutive); values beyond the largest saturate to it.
double nearestOf(const std::vector<double>& values, double x) {
  const double a = std::fabs(x);
  if (a >= values.back())
    return std::copysign(values.back(), x);
  const auto hi = std::upper_bound(values.begin(), values.end(), a);
  const auto lo = hi - 1;
  const double dl = a - *lo, dh = *hi - a;
  const bool upper = dh < dl || (dh == dl && (hi - values.begin()) % 2 == 0);
  return std::copysign(upper ? *hi : *lo, x);
}

const std::vector<double>& e4m3() {
  static const auto v = formatValues(4, 3, true);
  return v;
}
const std::vector<double>& e5m2() {
  static const auto v = formatValues(5, 2, false);
  return v;
}

Tensor tensor(int rows, int cols, const std::vector<float>& values) {
  Tensor t(DType::F32, rows, cols);
  std::copy(values.begin(), values.end(), t.f32().begin());
  return t;
}

std::vector<float> randomValues(std::size_t n, std::uint64_t seed, float spread = 1.0f) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(0.0f, spread);
  std::vector<float> v(n);
  for (auto& x : v)
    x = d(rng);
  return v;
}

} // namespace

TEST(Fp8Formats, ReferenceValueSetsMatchTheSpecExtremes) {
  EXPECT_EQ(e4m3().back(), 448.0);
  EXPECT_EQ(e4m3()[1], std::ldexp(1.0, -9)); // smallest subnormal
  EXPECT_EQ(e5m2().back(), 57344.0);
  EXPECT_EQ(e5m2()[1], std::ldexp(1.0, -16));
}

TEST(Fp8Formats, RoundElementIsNearestEvenOverTheWholeRange) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> exponent(-20.0, 17.0);
  for (int i = 0; i < 20000; ++i) {
    const float x = static_cast<float>(std::exp2(exponent(rng)) * (i % 2 ? -1 : 1));
    EXPECT_EQ(amp::roundElement(x, numeric::FormatId::Fp8E4M3).value, nearestOf(e4m3(), x)) << x;
    EXPECT_EQ(amp::roundElement(x, numeric::FormatId::Fp8E5M2).value, nearestOf(e5m2(), x)) << x;
  }
  // Ties: 448 + 16 lies halfway between 448 and the missing 480: stays 448, not saturated.
  const auto tie = amp::roundElement(464.0f, numeric::FormatId::Fp8E4M3);
  EXPECT_EQ(tie.value, 448.0f);
  EXPECT_FALSE(tie.saturated);
  const auto past = amp::roundElement(465.0f, numeric::FormatId::Fp8E4M3);
  EXPECT_EQ(past.value, 448.0f);
  EXPECT_TRUE(past.saturated);
}

// Transformer Engine's amax_and_scale_update by hand: history of 3, FP8_MAX 448.
TEST(DelayedScaling, HandWorkedAmaxSequenceWithMaxOverTheWindow) {
  DelayedScale s(448.0f, 3, AmaxCompute::Max, 0);
  EXPECT_EQ(s.scale(), 1.0f); // before any amax: TE's initial scale
  const float amax[] = {2, 8, 1, 0.5f, 0.25f, 0, 0, 0};
  // window after each update -> its max -> 448 / max (kept when the max is 0)
  const float expected[] = {224, 56, 56, 56, 448, 896, 1792, 1792};
  const float historyMax[] = {2, 8, 8, 8, 1, 0.5f, 0.25f, 0};
  for (int i = 0; i < 8; ++i) {
    s.update(amax[i]);
    EXPECT_EQ(s.scale(), expected[i]) << "after amax #" << i;
    EXPECT_EQ(s.historyAmax(), historyMax[i]) << i;
  }
  EXPECT_EQ(s.filled(), 3);
}

TEST(DelayedScaling, MostRecentUsesOnlyTheLastAmax) {
  DelayedScale s(448.0f, 1024, AmaxCompute::MostRecent, 0);
  const float amax[] = {2, 8, 1, 0.5f, 0};
  const float expected[] = {224, 56, 448, 896, 896};
  for (int i = 0; i < 5; ++i) {
    s.update(amax[i]);
    EXPECT_EQ(s.scale(), expected[i]) << i;
  }
}

TEST(DelayedScaling, MarginDividesByPowersOfTwoAndNonFiniteAmaxKeepsTheScale) {
  DelayedScale s(448.0f, 4, AmaxCompute::MostRecent, 2);
  s.update(2.0f);
  EXPECT_EQ(s.scale(), 56.0f); // (448 / 2) / 2^2
  s.update(std::numeric_limits<float>::infinity());
  EXPECT_EQ(s.scale(), 56.0f);
  DelayedScale e5(57344.0f, 16, AmaxCompute::Max, 0);
  e5.update(8.0f);
  EXPECT_EQ(e5.scale(), 7168.0f);
}

TEST(DelayedScaling, FirstStepQuantizesWithScaleOneThenWithTheRecordedAmax) {
  // amax 2^-10: below E4M3's smallest subnormal 2^-9 at scale 1, so the first
  // step loses the tensor; the second step's scale 448 / 2^-10 keeps it.
  amp::ScalingOptions o{MatmulScaling::Fp8Delayed};
  nn::OperandQuantizer q("t.x", ScaledRole::Input, o);
  Tensor in = tensor(1, 4, {std::ldexp(1.0f, -10), -std::ldexp(1.0f, -11), std::ldexp(1.0f, -13), 0});
  Tensor out(DType::F32, 1, 4);
  q.quantize(in, out, amp::BlockAxis::Rows, false, 1);
  EXPECT_EQ(q.stats()->scale, 1.0);
  EXPECT_EQ(q.stats()->fractionLostToZero, 0.75);
  EXPECT_EQ(q.stats()->history, 0);
  q.quantize(in, out, amp::BlockAxis::Rows, false, 1);
  EXPECT_EQ(q.stats()->scale, 448.0 * 1024.0);
  EXPECT_EQ(q.stats()->amaxHistory, std::ldexp(1.0, -10));
  EXPECT_EQ(q.stats()->fractionLostToZero, 0.0);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(out.f32()[std::size_t(i)], in.f32()[std::size_t(i)]); // all exact in E4M3 x scale
}

// Y = X W with both operands per-tensor scaled to E4M3 (current scaling),
// against the double loop over dequant(quant(.)) from the definitions.
TEST(ScaledMatmul, PerTensorProductEqualsTheDoubleLoopOverDequantizedOperands) {
  const int B = 5, I = 24, O = 7;
  const auto xs = randomValues(B * I, 1, 3.0f), ws = randomValues(I * O, 2, 0.05f);
  auto dequant = [](const std::vector<float>& v) {
    float amax = 0;
    for (float x : v)
      amax = std::max(amax, std::fabs(x));
    const float scale = 448.0f / amax, inv = 1.0f / scale; // FP32, as TE
    std::vector<double> d;
    for (float x : v)
      d.push_back(double(float(nearestOf(e4m3(), double(x * scale)) * double(inv))));
    return d;
  };
  const auto xd = dequant(xs), wd = dequant(ws);
  nn::ScaledLinear layer("l", B, I, O, amp::ScalingOptions{MatmulScaling::Fp8Current}, 0);
  Tensor x = tensor(B, I, xs), w = tensor(I, O, ws), y(DType::F32, B, O);
  layer.forward(x, w, y);
  for (int b = 0; b < B; ++b)
    for (int o = 0; o < O; ++o) {
      double ref = 0, mag = 0;
      for (int i = 0; i < I; ++i) {
        ref += xd[std::size_t(b * I + i)] * wd[std::size_t(i * O + o)];
        mag += std::fabs(xd[std::size_t(b * I + i)] * wd[std::size_t(i * O + o)]);
      }
      EXPECT_NEAR(y.f32()[std::size_t(b * O + o)], ref, 1e-6 * mag + 1e-12) << b << "," << o;
    }
}

// MXFP8 blocks of 32 along the sum: each block's scale 2^(floor(log2 amax) - 8).
TEST(ScaledMatmul, MxBlocksRunAlongTheReductionDimensionOfEachOperand) {
  const int B = 3, I = 64, O = 5;
  auto xs = randomValues(B * I, 3, 1.0f), ws = randomValues(I * O, 4, 0.1f);
  xs[5] = 1000.0f; // one block of row 0 scaled far up: its neighbours lose precision
  ws[7 * O + 2] = -30.0f;
  auto mx = [](std::vector<double> block) {
    double amax = 0;
    for (double v : block)
      amax = std::max(amax, std::fabs(v));
    const int e = std::ilogb(amax) - 8; // E4M3's largest normal is 1.75 x 2^8
    for (double& v : block)
      v = nearestOf(e4m3(), std::ldexp(v, -e)) * std::ldexp(1.0, e);
    return block;
  };
  std::vector<double> xd(xs.size()), wd(ws.size());
  for (int b = 0; b < B; ++b) // X [B, I]: blocks of 32 along each row
    for (int k = 0; k < I; k += 32) {
      std::vector<double> blk(xs.begin() + b * I + k, xs.begin() + b * I + k + 32);
      blk = mx(blk);
      std::copy(blk.begin(), blk.end(), xd.begin() + b * I + k);
    }
  for (int o = 0; o < O; ++o) // W [I, O]: blocks of 32 down each column
    for (int k = 0; k < I; k += 32) {
      std::vector<double> blk;
      for (int i = k; i < k + 32; ++i)
        blk.push_back(ws[std::size_t(i * O + o)]);
      blk = mx(blk);
      for (int i = k; i < k + 32; ++i)
        wd[std::size_t(i * O + o)] = blk[std::size_t(i - k)];
    }
  nn::ScaledLinear layer("l", B, I, O, amp::ScalingOptions{MatmulScaling::Mxfp8}, 0);
  Tensor x = tensor(B, I, xs), w = tensor(I, O, ws), y(DType::F32, B, O);
  layer.forward(x, w, y);
  for (std::size_t i = 0; i < xd.size(); ++i)
    ASSERT_EQ(layer.quantizedInput().f32()[i], xd[i]) << i;
  for (std::size_t i = 0; i < wd.size(); ++i)
    ASSERT_EQ(layer.quantizedWeights().f32()[i], wd[i]) << i;
  for (int b = 0; b < B; ++b)
    for (int o = 0; o < O; ++o) {
      double ref = 0, mag = 0;
      for (int i = 0; i < I; ++i) {
        ref += xd[std::size_t(b * I + i)] * wd[std::size_t(i * O + o)];
        mag += std::fabs(xd[std::size_t(b * I + i)] * wd[std::size_t(i * O + o)]);
      }
      EXPECT_NEAR(y.f32()[std::size_t(b * O + o)], ref, 1e-6 * mag);
    }
}

// The fast operand quantizer agrees bit for bit with numeric::quantize (the
// block quantizers of the `quantize` CLI) on the block recipes.
TEST(ScaledMatmul, BlockOperandsEqualNumericQuantize) {
  const int R = 6, C = 200;
  auto v = randomValues(R * C, 5, 2.0f);
  v[17] = 0.0f;
  v[300] = 3e-6f;
  const std::vector<double> d(v.begin(), v.end());
  const std::pair<MatmulScaling, numeric::BlockScheme> cases[] = {
      {MatmulScaling::Mxfp8, numeric::BlockScheme::Mxfp8E4M3},
      {MatmulScaling::Nvfp4, numeric::BlockScheme::Nvfp4},
      {MatmulScaling::Fp8Block, numeric::BlockScheme::Fp8Block}};
  for (const auto& [scheme, block] : cases)
    for (const bool weightBlocks : {false, true}) {
      if (weightBlocks && scheme != MatmulScaling::Fp8Block)
        continue;
      amp::OperandRequest rq;
      rq.scheme = scheme;
      rq.element = amp::operandFormat(scheme, ScaledRole::Input);
      rq.rows = R;
      rq.cols = C;
      rq.weightBlocks = weightBlocks;
      std::vector<float> out(v.size());
      const auto stats = amp::quantizeOperand(v, out, rq);
      numeric::QuantizeOptions qo;
      qo.cols = C;
      qo.weightBlocks = weightBlocks;
      const auto q = numeric::quantize(d, block, qo);
      for (std::size_t i = 0; i < v.size(); ++i)
        ASSERT_EQ(out[i], static_cast<float>(q.dequantized[i]))
            << amp::matmulScalingName(scheme) << " element " << i;
      const auto ref = numeric::quantStats(d, q);
      EXPECT_EQ(stats.blocks, std::int64_t(ref.blocks));
      EXPECT_EQ(stats.blocksClipped, std::int64_t(ref.blocksMaxClipped));
      EXPECT_DOUBLE_EQ(stats.fractionLostToZero, ref.fractionLostToZero);
      EXPECT_DOUBLE_EQ(stats.fractionSubnormal, ref.fractionSubnormal);
      // (the products use the dequantized values rounded to FP32; quantStats the exact ones)
      EXPECT_NEAR(stats.sqnrDb, ref.sqnrDb, 1e-5);
    }
}

TEST(ScaledMatmul, HybridRecipesQuantizeTheBackwardGradientToE5M2) {
  const int B = 4, I = 16, O = 8;
  for (const MatmulScaling scheme : {MatmulScaling::Fp8Delayed, MatmulScaling::Fp8Current}) {
    nn::ScaledLinear layer("l", B, I, O, amp::ScalingOptions{scheme}, 0);
    Tensor x = tensor(B, I, randomValues(B * I, 8)), w = tensor(I, O, randomValues(I * O, 9, 0.1f));
    Tensor y(DType::F32, B, O), dw(DType::F32, I, O), dx(DType::F32, B, I);
    // dY spread over many binades: E5M2's range, not E4M3's precision.
    std::vector<float> g(B * O);
    for (std::size_t i = 0; i < g.size(); ++i)
      g[i] = std::ldexp(1.0f + float(i % 7) / 7.0f, -int(i % 20)) * (i % 3 ? 1.0f : -1.0f);
    Tensor dy = tensor(B, O, g);
    for (int step = 0; step < 2; ++step) { // step 1: delayed scaling has a real scale
      layer.forward(x, w, y);
      layer.backwardWeights(x, dy, dw);
      layer.backwardData(dy, w, dx);
    }
    const auto stats = layer.lastStats();
    ASSERT_EQ(stats.size(), 3u);
    EXPECT_EQ(stats[0].format, "fp8-e4m3");
    EXPECT_EQ(stats[1].format, "fp8-e4m3");
    EXPECT_EQ(stats[2].format, "fp8-e5m2");
    EXPECT_EQ(stats[2].name, "l.dy");
    const float scale = static_cast<float>(stats[2].scale);
    bool outsideE4M3 = false;
    for (std::size_t i = 0; i < g.size(); ++i) {
      const double q = double(float(nearestOf(e5m2(), double(g[i] * scale)) * double(1.0f / scale)));
      ASSERT_EQ(layer.quantizedGradient().f32()[i], q) << amp::matmulScalingName(scheme) << " " << i;
      const double e4 = double(float(nearestOf(e4m3(), double(g[i] * scale)) * double(1.0f / scale)));
      outsideE4M3 = outsideE4M3 || e4 != q;
    }
    EXPECT_TRUE(outsideE4M3) << "the gradient would have quantized the same in E4M3";
  }
}

TEST(StochasticRounding, MeanEqualsTheValueAndSeedsRepeat) {
  // 2.25 lies a quarter of the way from 2 to 3 (E2M1 neighbours): P(3) = 1/4.
  std::mt19937 rng(11);
  const int n = 200000;
  double sum = 0;
  int ups = 0;
  for (int i = 0; i < n; ++i) {
    const float r = amp::roundElement(2.25f, numeric::FormatId::Fp4E2M1, rng()).value;
    ASSERT_TRUE(r == 2.0f || r == 3.0f) << r;
    ups += r == 3.0f;
    sum += r;
  }
  const double sigma = std::sqrt(0.25 * 0.75 / n);
  EXPECT_NEAR(double(ups) / n, 0.25, 5 * sigma);
  EXPECT_NEAR(sum / n, 2.25, 5 * sigma);

  // The whole nvfp4 gradient path: averaged over seeds, each dequantized value
  // approaches the input (the scales do not depend on the random bits).
  const auto v = randomValues(64, 12, 0.01f);
  amp::OperandRequest rq;
  rq.scheme = MatmulScaling::Nvfp4;
  rq.element = numeric::FormatId::Fp4E2M1;
  rq.rows = 4;
  rq.cols = 16;
  rq.stochastic = true;
  std::vector<double> mean(v.size(), 0.0);
  std::vector<float> out(v.size()), again(v.size());
  const int seeds = 4000;
  for (int s = 0; s < seeds; ++s) {
    rq.seed = std::uint64_t(s) + 1;
    amp::quantizeOperand(v, out, rq);
    for (std::size_t i = 0; i < v.size(); ++i)
      mean[i] += out[i] / seeds;
  }
  rq.seed = 77;
  amp::quantizeOperand(v, out, rq);
  amp::quantizeOperand(v, again, rq);
  EXPECT_EQ(out, again); // same seed, same bits
  rq.seed = 78;
  amp::quantizeOperand(v, again, rq);
  EXPECT_NE(out, again);
  rq.stochastic = false;
  std::vector<float> nearest(v.size());
  amp::quantizeOperand(v, nearest, rq);
  double biasNearest = 0, biasStochastic = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    // The E2M1 step around v is at most a third of its block's amax (4 -> 6 of
    // 6); a draw is off by at most one step, so the mean of `seeds` draws is
    // within a few step / (2 sqrt(seeds)) of v.
    float blockAmax = 0;
    for (std::size_t j = i / 16 * 16; j < i / 16 * 16 + 16; ++j)
      blockAmax = std::max(blockAmax, std::fabs(v[j]));
    // A block's maximum can sit above 6 x its E4M3 block scale (rounded to
    // nearest) and is clamped, by any rounding: left out.
    if (std::fabs(v[i]) == blockAmax)
      continue;
    EXPECT_NEAR(mean[i], v[i], 5 * (blockAmax / 3) / (2 * std::sqrt(double(seeds)))) << i;
    biasNearest += std::fabs(nearest[i] - v[i]);
    biasStochastic += std::fabs(mean[i] - v[i]);
  }
  EXPECT_LT(biasStochastic, biasNearest / 4);
}

TEST(Fp8Recipes, NamesListedAndTyposSuggested) {
  for (const char* name : {"fp8-delayed", "fp8-current", "fp8-block", "mxfp8", "nvfp4"}) {
    const amp::Recipe* r = amp::findRecipe(name);
    ASSERT_NE(r, nullptr) << name;
    EXPECT_EQ(amp::matmulScalingName(r->scaling), name);
    EXPECT_TRUE(r->masterWeights);
  }
  try {
    amp::recipeByName("fp8-delayd");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'fp8-delayed'?"), std::string::npos)
        << e.what();
  }
  try {
    amp::recipeByName("mxfp9");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'mxfp8'?"), std::string::npos) << e.what();
  }
}

TEST(Fp8Policy, SchemeKeysParseRoundTripAndFailClearly) {
  const auto p = amp::parsePolicy("autocast-cpu-bf16,matmul-inputs=fp8-delayed,fp8-history=16,"
                                  "fp8-amax=most-recent,fp8-margin=1");
  EXPECT_EQ(p.scaling.scheme, MatmulScaling::Fp8Delayed);
  EXPECT_EQ(p.scaling.historyLength, 16);
  EXPECT_EQ(p.scaling.amaxCompute, AmaxCompute::MostRecent);
  EXPECT_EQ(p.scaling.margin, 1);
  EXPECT_EQ(p[amp::OpClass::MatmulInputs], DType::BF16);
  EXPECT_EQ(amp::parsePolicy(p.toSpec()), p) << p.toSpec();
  EXPECT_EQ(amp::parsePolicy("fp32,matmul-inputs=nvfp4").toSpec(), "fp32,matmul-inputs=nvfp4");
  auto message = [](const char* spec) {
    try {
      amp::parsePolicy(spec);
    } catch (const amp::PolicyError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("fp32,matmul-inputs=mxfp9").find("did you mean \"mxfp8\"?"), std::string::npos);
  EXPECT_NE(message("fp32,matmul-inputs=fp8-delayed,fp8-amax=maximum").find("most-recent"),
            std::string::npos);
  EXPECT_NE(message("fp32,fp8-history=16").find("need matmul-inputs=fp8-delayed"),
            std::string::npos);
  EXPECT_NE(message("fp32,matmul-inputs=mxfp8,fp8-margin=2").find("fp8-margin needs"),
            std::string::npos);
  EXPECT_NE(message("fp32,matmul-inputs=fp8-delayed,fp8-history=0").find("from 1 to 65536"),
            std::string::npos);
  EXPECT_NE(message("all-fp16,matmul-inputs=fp8-current").find("16-bit matmul-accumulation"),
            std::string::npos);
  EXPECT_NE(message("fp32,fp8-histroy=4").find("did you mean \"fp8-history\"?"), std::string::npos);
}

TEST(ScalingTelemetry, JsonRoundTripAndBadFieldsNamed) {
  telemetry::ScalingFrame f;
  f.step = 12;
  telemetry::ScaledTensorStats s;
  s.name = "h0.qkv.x";
  s.format = "fp8-e4m3";
  s.scale = 120.5;
  s.scaleMin = 100;
  s.scaleMax = 130;
  s.amax = 3.7;
  s.amaxHistory = 3.8;
  s.history = 13;
  s.count = 1000;
  s.fractionSaturated = 0.001;
  s.fractionLostToZero = 0.01;
  s.fractionSubnormal = 0.02;
  s.sqnrDb = 31.25;
  s.blocks = 4;
  s.blocksClipped = 1;
  f.tensors.push_back(s);
  s.name = "h0.qkv.dy";
  s.role = ScaledRole::GradOutput;
  s.sqnrDb = std::numeric_limits<double>::infinity(); // written as null, read as NaN
  f.tensors.push_back(s);
  const auto back = telemetry::scalingFromJson(telemetry::toJson(f));
  ASSERT_EQ(back.tensors.size(), 2u);
  EXPECT_EQ(back.tensors[0], f.tensors[0]);
  EXPECT_TRUE(std::isnan(back.tensors[1].sqnrDb));
  EXPECT_EQ(back.tensors[1].role, ScaledRole::GradOutput);
  EXPECT_NE(back.find("h0.qkv.dy"), nullptr);

  nlohmann::json bad = telemetry::toJson(f);
  bad["tensors"][1]["saturated"] = 1.5;
  try {
    telemetry::scalingFromJson(bad);
    FAIL();
  } catch (const telemetry::TelemetryJsonError& e) {
    EXPECT_NE(std::string(e.what()).find("tensors[1].saturated"), std::string::npos) << e.what();
  }
  bad = telemetry::toJson(f);
  bad["tensors"][0]["role"] = "dx";
  EXPECT_THROW(telemetry::scalingFromJson(bad), telemetry::TelemetryJsonError);
  bad = telemetry::toJson(f);
  bad["tensors"][0]["blocks_clipped"] = 5; // more than its 4 blocks
  EXPECT_THROW(telemetry::scalingFromJson(bad), telemetry::TelemetryJsonError);

  // In a run log: a step row's frame is read into RunLog::scaling; a frame of
  // another step is refused with the line's position.
  train::RunLogBuilder builder;
  builder.add({{"step", 12}, {"loss", 1.0}, {"scaling", telemetry::toJson(f)}}, "run.jsonl:1");
  ASSERT_EQ(builder.log().scaling.size(), 1u);
  EXPECT_EQ(builder.log().scaling[0].step, 12);
  EXPECT_EQ(builder.log().scaling[0].tensors[0], f.tensors[0]);
  EXPECT_FALSE(builder.log().steps[0].raw.contains("scaling"));
  const std::string text = train::runLogText(builder.log());
  EXPECT_NE(text.find("\"scaling\""), std::string::npos);
  try {
    builder.add({{"step", 13}, {"loss", 1.0}, {"scaling", telemetry::toJson(f)}}, "run.jsonl:2");
    FAIL();
  } catch (const train::RunLogError& e) {
    EXPECT_NE(std::string(e.what()).find("run.jsonl:2"), std::string::npos) << e.what();
  }
}
