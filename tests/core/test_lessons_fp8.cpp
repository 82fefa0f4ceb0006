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
#include <iostream>
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

namespace {

// The three formats from their definitions: sign, e exponent bits, m fraction
// bits, bias; E4M3 (OCP FN) loses S.1111.111 to NaN, E4M3FNUZ only 0x80, E3M4
// (IEEE rule) its whole top exponent. Nearest, ties to the even code,
// saturating at max.
struct Grid {
  std::vector<std::pair<double, int>> values; // non-negative, ascending, with codes
  double minNormal = 0;
  Grid(int e, int m, int bias, bool ieeeTop, bool fnTop) {
    const int top = (1 << e) - 1;
    for (int code = 0; code < (1 << (e + m)); ++code) {
      const int ex = code >> m, man = code & ((1 << m) - 1);
      if ((ieeeTop && ex == top) || (fnTop && ex == top && man == (1 << m) - 1))
        continue;
      values.emplace_back(ex == 0 ? std::ldexp(double(man), 1 - bias - m)
                                  : std::ldexp(1.0 + std::ldexp(double(man), -m), ex - bias),
                          code);
    }
    minNormal = std::ldexp(1.0, 1 - bias);
  }
  double max() const { return values.back().first; }
  double round(double x) const {
    const double a = std::fabs(x);
    if (a >= max())
      return std::copysign(max(), x);
    auto hi = std::lower_bound(values.begin(), values.end(), std::make_pair(a, -1));
    if (hi->first == a)
      return x;
    auto lo = hi - 1;
    const double dl = a - lo->first, dh = hi->first - a;
    const double r = dl < dh ? lo->first : dh < dl ? hi->first : (lo->second % 2 == 0 ? lo->first : hi->first);
    return r == 0.0 ? 0.0 : std::copysign(r, x);
  }
};

} // namespace

// The E4M3 / E4M3FNUZ / E3M4 figure: each row's numbers recomputed from the
// demo's own gradient tensor with the grids above, in double.
TEST(LessonFp8, VariantsMatchADoubleReferenceOnTheSameGradients) {
  const Fp8VariantsDemo d = fp8VariantsDemo();
  ASSERT_EQ(d.rows.size(), 3u);
  ASSERT_EQ(d.gradients.size(), 784u * 128u);
  const Grid grids[] = {Grid(4, 3, 7, false, true), Grid(4, 3, 8, false, false), Grid(3, 4, 3, true, false)};
  const char* names[] = {"fp8-e4m3", "fp8-e4m3fnuz", "fp8-e3m4"};
  EXPECT_EQ(grids[0].max(), 448.0);
  EXPECT_EQ(grids[1].max(), 240.0);
  EXPECT_EQ(grids[2].max(), 15.5);
  float amax = 0;
  for (float x : d.gradients)
    amax = std::max(amax, std::fabs(x));
  for (std::size_t k = 0; k < 3; ++k) {
    const Fp8VariantRow& row = d.rows[k];
    EXPECT_EQ(row.format, names[k]);
    EXPECT_EQ(row.maxFinite, grids[k].max());
    EXPECT_EQ(row.minSubnormal, grids[k].values[1].first);
    EXPECT_DOUBLE_EQ(row.binades, std::log2(grids[k].max() / grids[k].values[1].first));
    for (const bool scaled : {false, true}) {
      const float scale = scaled ? float(grids[k].max()) / amax : 1.0f;
      const float inverse = 1.0f / scale;
      double signal = 0, noise = 0;
      std::size_t nonZero = 0, lost = 0, subnormal = 0;
      for (const float x : d.gradients) {
        const double element = grids[k].round(double(x * scale));
        const float q = float(element) * inverse;
        signal += double(x) * double(x);
        noise += (double(x) - double(q)) * (double(x) - double(q));
        nonZero += x != 0.0f;
        lost += x != 0.0f && q == 0.0f;
        subnormal += element != 0.0 && std::fabs(element) < grids[k].minNormal;
      }
      const Fp8VariantStats& s = scaled ? row.scaled : row.cast;
      EXPECT_EQ(s.scale, scale) << names[k];
      EXPECT_NEAR(s.sqnrDb, 10 * std::log10(signal / noise), 1e-9) << names[k] << " scaled " << scaled;
      EXPECT_DOUBLE_EQ(s.lostToZero, double(lost) / double(nonZero)) << names[k] << " scaled " << scaled;
      EXPECT_DOUBLE_EQ(s.subnormal, double(subnormal) / double(d.gradients.size())) << names[k];
    }
  }
  // What the lesson says: the FNUZ bias keeps more of the raw gradients than
  // E4M3, E3M4's narrow range keeps fewest; scaled, E3M4's extra mantissa bit
  // gives it the highest SQNR.
  EXPECT_LT(d.rows[1].cast.lostToZero, d.rows[0].cast.lostToZero);
  EXPECT_GT(d.rows[2].cast.lostToZero, d.rows[0].cast.lostToZero);
  EXPECT_GT(d.rows[2].scaled.sqnrDb, d.rows[0].scaled.sqnrDb);
  const DemoOutput o = runDemo("fp8-variants");
  for (const std::string& line : o.lines)
    std::cout << line << "\n";
  EXPECT_EQ(o.categories, (std::vector<std::string>{"fp8-e4m3", "fp8-e4m3fnuz", "fp8-e3m4"}));
  ASSERT_EQ(o.series.size(), 2u);
}
