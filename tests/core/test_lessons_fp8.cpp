// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Lesson 8, FP8 and microscaling: its claims checked on the numbers the demo
// measures (a short MLP run's first layer, every block scheme), and those
// numbers checked against plain double references where one is simple.
#include <mantissa/lessons/demo_registry.h>
#include <mantissa/lessons/demos.h>
#include <mantissa/train/session.h>

#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>

using namespace mantissa;
using namespace mantissa::lessons;

namespace {

const Fp8SchemesDemo& demo() {
  static const Fp8SchemesDemo d = fp8SchemesDemo();
  return d;
}

const Fp8SchemeRow& scheme(const std::string& name) {
  for (const auto& r : demo().schemes)
    if (r.scheme == name)
      return r;
  ADD_FAILURE() << "no scheme " << name;
  return demo().schemes.front();
}

const Fp8RoundingRow& rounding(const std::string& name, const std::string& mode) {
  for (const auto& r : demo().rounding)
    if (r.scheme == name && r.rounding == mode)
      return r;
  ADD_FAILURE() << "no row " << name << " " << mode;
  return demo().rounding.front();
}

} // namespace

TEST(LessonFp8, MeasuresEverySchemeOnTheTrainedLayer) {
  const Fp8SchemesDemo& d = demo();
  EXPECT_EQ(d.rows, 128u);
  EXPECT_EQ(d.cols, 784u);
  ASSERT_EQ(d.schemes.size(), 9u);
  for (const auto& r : d.schemes) {
    EXPECT_EQ(r.weights.count, 128u * 784u) << r.scheme;
    EXPECT_EQ(r.gradients.count, 128u * 784u) << r.scheme;
  }
  // Block counts follow from the shape: 784 inputs make 25 blocks of 32 per
  // output (the last 16 wide), 49 of 16; 128 x 784 is 1 x 7 blocks of 128 x 128.
  EXPECT_EQ(scheme("mxfp8-e4m3").weights.blocks, 128u * 25u);
  EXPECT_EQ(scheme("nvfp4").weights.blocks, 128u * 49u);
  EXPECT_EQ(scheme("fp8-block").weights.blocks, 7u);
  EXPECT_EQ(scheme("fp8-tensor").weights.blocks, 1u);
}

// The lesson's claims, each on the measured rows.
TEST(LessonFp8, ClaimsHoldOnTheMeasuredRows) {
  // "One scale per block follows the gradients' local range: fewer of them
  // are lost to zero than under one scale for the whole tensor."
  EXPECT_LT(scheme("mxfp8-e4m3").gradients.fractionLostToZero, scheme("fp8-tensor").gradients.fractionLostToZero);
  // "Three mantissa bits against two: E4M3 beats E5M2 by several dB."
  EXPECT_GT(scheme("mxfp8-e4m3").weights.sqnrDb, scheme("mxfp8-e5m2").weights.sqnrDb + 3.0);
  EXPECT_GT(scheme("mxfp8-e4m3").gradients.sqnrDb, scheme("mxfp8-e5m2").gradients.sqnrDb + 3.0);
  // "Four bits cost about ten dB against eight."
  EXPECT_GT(scheme("mxfp8-e4m3").weights.sqnrDb, scheme("mxfp4").weights.sqnrDb + 8.0);
  // "NVFP4's 16-value blocks with E4M3 scales do better than MXFP4's 32-value
  // blocks with power-of-two scales."
  EXPECT_GT(scheme("nvfp4").weights.sqnrDb, scheme("mxfp4").weights.sqnrDb);
  EXPECT_GT(scheme("nvfp4").gradients.sqnrDb, scheme("mxfp4").gradients.sqnrDb);
  // "Floor rounding of the shared exponent clips block maxima; ceil and
  // rceil never do, and on MXFP8 rceil's SQNR is the better for it."
  EXPECT_GT(rounding("mxfp8-e4m3", "floor").gradients.blocksMaxClipped, 0u);
  EXPECT_GT(rounding("mxfp4", "floor").gradients.blocksMaxClipped, 0u);
  for (const char* s : {"mxfp8-e4m3", "mxfp4"})
    for (const char* mode : {"ceil", "rceil"}) {
      EXPECT_EQ(rounding(s, mode).gradients.blocksMaxClipped, 0u) << s << " " << mode;
      EXPECT_EQ(rounding(s, mode).gradients.fractionSaturated, 0.0) << s << " " << mode;
    }
  EXPECT_GT(rounding("mxfp8-e4m3", "rceil").gradients.sqnrDb, rounding("mxfp8-e4m3", "floor").gradients.sqnrDb);
  // "Ceil pays with range: a binade more of small values lost to zero."
  EXPECT_GT(rounding("mxfp4", "ceil").gradients.fractionLostToZero,
            rounding("mxfp4", "floor").gradients.fractionLostToZero);
  // The figure: one category per scheme, one bar per scheme and tensor.
  const DemoOutput o = runDemo("fp8-schemes");
  EXPECT_EQ(o.categories.size(), 9u);
  ASSERT_EQ(o.series.size(), 2u);
  EXPECT_EQ(o.series[0].y.size(), 9u);
}

namespace {

// E4M3 (bias 7, 3 fraction bits, max 448) rounding to nearest even, by hand.
double e4m3(double x) {
  const double a = std::fabs(x);
  if (a == 0.0)
    return 0.0;
  const int e = std::max(int(std::floor(std::log2(a))), -6);
  const double quantum = std::ldexp(1.0, e - 3);
  return std::copysign(std::min(std::nearbyint(a / quantum) * quantum, 448.0), x);
}

} // namespace

// The demo's fp8-tensor row against the same run's gradients quantized by
// hand: FP32 scale amax / 448, each value / scale in FP32, rounded to E4M3.
TEST(LessonFp8, PerTensorRowMatchesAnE4M3ReferenceOnTheSameRun) {
  train::RunConfig config;
  config.model = "mlp:784-128-10";
  config.recipe = "fp32";
  config.batch = 64;
  config.epochs = 0;
  config.steps = demo().steps;
  config.seed = 1;
  config.evalEvery = 0;
  config.telemetryEvery = 0;
  train::Session session(config);
  while (!session.finished())
    session.step();
  const auto g = session.model().grads()[0].w.f32();
  double amax = 0;
  for (float v : g)
    amax = std::max(amax, std::fabs(double(v)));
  const float scale = float(amax) / 448.0f;
  std::size_t lost = 0, subnormal = 0;
  double signal = 0, noise = 0;
  for (float v : g) {
    const double q = e4m3(double(v / scale));
    lost += (v != 0 && q == 0) ? 1 : 0;
    subnormal += (q != 0 && std::fabs(q) < std::ldexp(1.0, -6)) ? 1 : 0;
    signal += double(v) * double(v);
    noise += (double(v) - q * double(scale)) * (double(v) - q * double(scale));
  }
  const auto& s = scheme("fp8-tensor").gradients;
  const double n = double(g.size());
  EXPECT_EQ(s.fractionLostToZero, double(lost) / n);
  EXPECT_EQ(s.fractionSubnormal, double(subnormal) / n);
  EXPECT_NEAR(s.sqnrDb, 10 * std::log10(signal / noise), 1e-6);
}
