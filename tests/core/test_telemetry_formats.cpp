// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Cast fractions for the formats a run names (--telemetry-formats): each
// format's to-zero, subnormal and overflow fractions from the collector's one
// pass, in every path (observe, a loss-scaled observe, parameter blocks,
// counts taken apart), against a plain double reference written here: every
// value of the format from its definition, and each input rounded to the
// nearest of them (ties to the even code).
#include <mantissa/numeric/format_spec.h>
#include <mantissa/telemetry/collector.h>
#include <mantissa/telemetry/tensor_scan.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

namespace tl = mantissa::telemetry;
namespace nm = mantissa::numeric;
using tl::TensorClass;

// A sign/exponent/mantissa format from its definition.
struct Definition {
  int e, m, bias;
  bool fnuz;       // no infinities, 0x80 NaN: the top exponent holds numbers
  bool ieee;       // the top exponent is inf / NaN
  bool subnormals;
};

struct Reference {
  std::vector<std::pair<double, int>> grid; // non-negative finite values and their codes, ascending
  double max = 0, minNormal = 0;
  explicit Reference(const Definition& d) {
    const int topExponent = (1 << d.e) - 1;
    for (int code = 0; code < (1 << (d.e + d.m)); ++code) {
      const int ex = code >> d.m, man = code & ((1 << d.m) - 1);
      if (d.ieee && ex == topExponent)
        continue;
      double v;
      if (ex == 0)
        v = d.subnormals ? std::ldexp(double(man), 1 - d.bias - d.m) : 0.0;
      else
        v = std::ldexp(1.0 + std::ldexp(double(man), -d.m), ex - d.bias);
      if (ex == 0 && !d.subnormals && man != 0)
        continue;
      grid.emplace_back(v, code);
    }
    std::sort(grid.begin(), grid.end());
    max = grid.back().first;
    minNormal = std::ldexp(1.0, 1 - d.bias);
    // One step past max (the code after it), so that rounding can overflow.
    const double ulp = std::ldexp(1.0, int(std::floor(std::log2(max))) - d.m);
    grid.emplace_back(max + ulp, grid.back().second + 1);
  }
  // Nearest grid value to a >= 0, ties to the even code; +inf past the grid.
  double round(double a) const {
    if (a > grid.back().first)
      return HUGE_VAL;
    auto hi = std::lower_bound(grid.begin(), grid.end(), std::make_pair(a, -1));
    if (hi->first == a)
      return a;
    auto lo = hi - 1;
    const double dl = a - lo->first, dh = hi->first - a;
    return dl < dh ? lo->first : dh < dl ? hi->first : (lo->second % 2 == 0 ? lo->first : hi->first);
  }
  tl::CastFractions fractions(const std::vector<float>& values, double scale) const {
    std::uint64_t total = 0, zeros = 0, nan = 0, toZero = 0, sub = 0, over = 0;
    for (const float x : values) {
      const float v = float(double(x) * scale); // exact: scale is a power of two
      ++total;
      if (std::isnan(v)) {
        ++nan;
        continue;
      }
      const double r = std::isinf(v) ? HUGE_VAL : round(std::fabs(double(v)));
      zeros += v == 0.0f;
      toZero += r == 0.0;
      sub += r != 0.0 && r < minNormal;
      over += r > max;
    }
    tl::CastCounts c;
    c.total = total;
    c.zeros = zeros;
    c.nan = nan;
    c.toZero = toZero;
    c.toSubnormal = sub;
    c.overflow = over;
    return tl::toFractions(c);
  }
};

nm::FloatFormat format(const char* spec) {
  const nm::FormatParse p = nm::parseFormatSpec(spec);
  EXPECT_TRUE(p.format.has_value()) << spec << ": " << p.error;
  return *p.format;
}

// Values across every region of the formats, exact ties included.
std::vector<float> values() {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> logMag(-24.0f, 20.0f);
  std::vector<float> v;
  for (int i = 0; i < 60000; ++i)
    v.push_back((rng() % 16 == 0 ? 0.0f : std::exp2(logMag(rng))) * ((rng() & 1) ? 1.0f : -1.0f));
  for (const double t : {std::ldexp(1.0, -11), std::ldexp(1.0, -10), std::ldexp(1.0, -8),
                         std::ldexp(1.0, -7) - std::ldexp(1.0, -11), 248.0, 256.0, 240.0, 247.9,
                         std::ldexp(1.0, -7), std::ldexp(1.0, -8), 15.75, 15.5, 15.76, 16.0,
                         std::ldexp(1.0, -3), 0.25 - std::ldexp(1.0, -7)})
    for (const double s : {1.0, -1.0})
      v.push_back(float(t * s));
  v.push_back(std::numeric_limits<float>::infinity());
  v.push_back(std::numeric_limits<float>::quiet_NaN());
  return v;
}

const char* const kSpecs[] = {"fp8-e4m3fnuz", "e3m4", "e4m3:bias=6,special=fn,subnormals=no"};
const Definition kDefinitions[] = {
    {4, 3, 8, true, false, true},   // E4M3FNUZ: max 240, min subnormal 2^-10
    {3, 4, 3, false, true, true},   // E3M4 (ml_dtypes): IEEE rule, max 15.5
    {4, 3, 6, false, false, false}, // custom fn without subnormals (S.1111.111 NaN)
};

void expectFractions(const tl::TensorTelemetry& t, const std::vector<float>& v, double scale,
                     const char* where) {
  ASSERT_EQ(t.formatFractions.size(), 3u) << where;
  for (std::size_t k = 0; k < 3; ++k) {
    Definition d = kDefinitions[k];
    Reference ref(d);
    if (k == 2) // fn: the all-ones pattern is NaN, so max is one step lower
      ref = [&] {
        Reference r(d);
        r.grid.pop_back(); // the step past
        r.grid.pop_back(); // S.1111.111
        r.max = r.grid.back().first;
        const double ulp = std::ldexp(1.0, int(std::floor(std::log2(r.max))) - d.m);
        r.grid.emplace_back(r.max + ulp, r.grid.back().second + 1);
        return r;
      }();
    const tl::CastFractions want = ref.fractions(v, scale);
    const tl::CastFractions got = t.formatFractions[k];
    EXPECT_DOUBLE_EQ(got.toZero, want.toZero) << where << " " << kSpecs[k];
    EXPECT_DOUBLE_EQ(got.toSubnormal, want.toSubnormal) << where << " " << kSpecs[k];
    EXPECT_DOUBLE_EQ(got.overflow, want.overflow) << where << " " << kSpecs[k];
    EXPECT_DOUBLE_EQ(got.nonzeroLostToZero, want.nonzeroLostToZero) << where << " " << kSpecs[k];
  }
}

std::vector<nm::FloatFormat> runFormats() {
  // fp16 and bf16 are two of the four built-in targets: not repeated.
  std::string error;
  const auto f = tl::parseCastFormatList(
      "fp16,bf16,fp8-e4m3fnuz,e3m4,e4m3:bias=6,special=fn,subnormals=no", error);
  EXPECT_TRUE(f.has_value()) << error;
  return f ? *f : std::vector<nm::FloatFormat>{};
}

} // namespace

TEST(TelemetryFormats, ReferenceHasThePublishedExtremes) {
  EXPECT_EQ(Reference(kDefinitions[0]).max, 240.0);
  EXPECT_EQ(Reference(kDefinitions[0]).grid[1].first, std::ldexp(1.0, -10));
  EXPECT_EQ(Reference(kDefinitions[1]).max, 15.5);
  EXPECT_EQ(format(kSpecs[0]).maxFinite(), 240.0);
}

TEST(TelemetryFormats, EveryPathCountsTheNamedFormatsAsTheDoubleReference) {
  const std::vector<float> v = values();
  tl::TelemetryCollector c(1);
  c.setCastFormats(runFormats());
  ASSERT_EQ(c.castView()->formats.size(), 3u);
  c.observe(0, TensorClass::Activations, v, 1.0f);
  c.observe(1, TensorClass::WeightGrads, v, 1024.0f); // both views: v x 1024 as given, and v / 1024
  std::vector<float> w(v.size(), 1.0f);
  c.beginParameters(2, mantissa::DType::F32, true, true);
  c.observeParameterBlock(0, std::span(v).first(30000), std::span(v).first(30000),
                          std::span(w).first(30000));
  c.observeParameterBlock(1, std::span(v).subspan(30000), std::span(v).subspan(30000),
                          std::span(w).subspan(30000));
  c.endParameters();
  tl::TensorScan apart = c.emptyScan();
  tl::scanInto(v, apart);
  c.record(3, TensorClass::Activations, apart);
  const auto frame = c.finish(7);
  EXPECT_EQ(frame->castFormats,
            (std::vector<std::string>{"fp8-e4m3fnuz", "fp8-e3m4", format(kSpecs[2]).name}));
  expectFractions(*frame->find(0, TensorClass::Activations), v, 1.0, "observe");
  expectFractions(*frame->find(1, TensorClass::WeightGrads, true), v, 1.0, "scaled view");
  expectFractions(*frame->find(1, TensorClass::WeightGrads, false), v, 1.0 / 1024, "unscaled view");
  expectFractions(*frame->find(2, TensorClass::Weights), v, 1.0, "parameter blocks");
  expectFractions(*frame->find(2, TensorClass::WeightGrads), v, 1.0, "parameter blocks");
  expectFractions(*frame->find(3, TensorClass::Activations), v, 1.0, "counted apart");

  // The run log's JSON carries them by name and reads them back.
  const nlohmann::json j = tl::toJson(*frame);
  EXPECT_TRUE(j["tensors"][0]["cast"].contains("fp8-e4m3fnuz"));
  EXPECT_EQ(j["cast_formats"][1], "fp8-e3m4");
  const tl::TelemetryFrame back = tl::fromJson(j);
  EXPECT_EQ(back.castFormats, frame->castFormats);
  ASSERT_EQ(back.tensors.size(), frame->tensors.size());
  for (std::size_t i = 0; i < back.tensors.size(); ++i)
    for (std::size_t k = 0; k < 3; ++k)
      EXPECT_DOUBLE_EQ(back.tensors[i].formatFractions[k].overflow,
                       frame->tensors[i].formatFractions[k].overflow);
  nlohmann::json missing = j;
  missing["tensors"][0]["cast"].erase("fp8-e3m4");
  EXPECT_THROW(tl::fromJson(missing), tl::TelemetryJsonError);
}

TEST(TelemetryFormats, CountsAgainstOtherFormatsAreRefused) {
  tl::TelemetryCollector c(1);
  c.setCastFormats(runFormats());
  tl::TensorScan builtin; // the four targets only
  tl::scanInto(std::vector<float>{1.0f, 2.0f}, builtin);
  EXPECT_THROW(c.record(0, TensorClass::Activations, builtin), std::invalid_argument);
}

TEST(TelemetryFormats, BadListsNameTheFormat) {
  std::string error;
  EXPECT_FALSE(tl::parseCastFormatList("fp16,e4m3:bias=x", error));
  EXPECT_NE(error.find("bias"), std::string::npos) << error;
  EXPECT_FALSE(tl::parseCastFormatList("fp16,e8m20", error));
  EXPECT_NE(error.find("29 bits"), std::string::npos) << error;
  EXPECT_FALSE(tl::parseCastFormatList("ue4m3", error));
  EXPECT_NE(error.find("ue4m3"), std::string::npos) << error;
  EXPECT_FALSE(tl::parseCastFormatList("e3m4,e2m5,e5m2fnuz,e4m3fnuz,e2m3", error));
  EXPECT_NE(error.find("at most 4"), std::string::npos) << error;
  EXPECT_FALSE(tl::parseCastFormatList("e4m3:bias=200", error));
  EXPECT_NE(error.find("outside FP32"), std::string::npos) << error;
}
