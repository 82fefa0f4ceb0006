// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Policies with any element format: matmul-inputs=FORMAT, element=,
// grad-element= and block-scale= parse, round-trip and fail naming the field;
// a scaled product under fp8-e4m3fnuz quantizes its operands to the values of
// an E4M3FNUZ rounding written here from the published definition (bias 8, no
// infinities, 0x80 the one NaN, no negative zero, max 240).
#include <mantissa/amp/policy.h>
#include <mantissa/amp/recipe.h>
#include <mantissa/nn/scaled_linear.h>
#include <mantissa/tensor/tensor.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace mantissa;
using amp::MatmulScaling;
using amp::OpClass;

namespace {

std::string errorOf(std::string_view spec) {
  try {
    amp::parsePolicy(spec);
  } catch (const amp::PolicyError& e) {
    return e.what();
  }
  return "no error";
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// E4M3FNUZ from its definition: S.EEEE.MMM, bias 8; E = 0 is subnormal
// (M/8 x 2^-7); 0x80 is NaN; no infinities. Every finite pattern's value with
// its code, so that ties go to the even code.
struct Fnuz {
  std::vector<std::pair<double, int>> values; // non-negative finite, ascending
  Fnuz() {
    for (int code = 0; code < 0x80; ++code) {
      const int e = code >> 3, m = code & 7;
      const double v = e == 0 ? std::ldexp(m / 8.0, -7) : std::ldexp(1.0 + m / 8.0, e - 8);
      values.emplace_back(v, code);
    }
    std::sort(values.begin(), values.end());
  }
  // Nearest, ties to the even code, saturating at 240; -0 becomes +0.
  double round(double x) const {
    if (std::isnan(x))
      return x;
    const double a = std::fabs(x);
    if (a >= values.back().first)
      return std::copysign(values.back().first, x);
    auto hi = std::lower_bound(values.begin(), values.end(), std::make_pair(a, -1));
    auto lo = hi == values.begin() ? hi : hi - 1;
    double best;
    if (hi->first == a)
      best = a;
    else {
      const double dl = a - lo->first, dh = hi->first - a;
      best = dl < dh ? lo->first : dh < dl ? hi->first : (lo->second % 2 == 0 ? lo->first : hi->first);
    }
    return best == 0.0 ? 0.0 : std::copysign(best, x);
  }
};

Tensor tensorOf(int rows, int cols, const std::vector<float>& v) {
  Tensor t(DType::F32, rows, cols);
  std::copy(v.begin(), v.end(), t.f32().begin());
  return t;
}

} // namespace

TEST(PolicyFormats, MatmulInputsTakeAnyElementFormat) {
  const amp::Policy p = amp::parsePolicy("bf16-mixed,matmul-inputs=e3m4");
  EXPECT_EQ(p.scaling.scheme, MatmulScaling::Unscaled);
  EXPECT_EQ(p.scaling.element, "fp8-e3m4");
  EXPECT_EQ(p[OpClass::MatmulInputs], DType::BF16) << "the other products take bf16";
  EXPECT_EQ(p.toSpec(), "bf16-mixed,matmul-inputs=fp8-e3m4");
  EXPECT_EQ(amp::parsePolicy(p.toSpec()), p);
  // A spec's own fields stay with it.
  const amp::Policy c = amp::parsePolicy("fp32,matmul-inputs=e4m3:bias=9,special=fnuz,softmax=bf16");
  EXPECT_EQ(c.scaling.scheme, MatmulScaling::Unscaled);
  EXPECT_EQ(c.scaling.element, "e4m3:bias=9,special=fnuz,subnormals=yes");
  EXPECT_EQ(c[OpClass::Softmax], DType::BF16);
  EXPECT_EQ(amp::parsePolicy(c.toSpec()), c) << c.toSpec();
  // fp16 by a spec is the fp16 precision.
  EXPECT_EQ(amp::parsePolicy("fp32,matmul-inputs=e5m10")[OpClass::MatmulInputs], DType::F16);
  EXPECT_EQ(amp::parsePolicy("fp32,matmul-inputs=e5m10").scaling.scheme, MatmulScaling::None);
}

TEST(PolicyFormats, RecipesTakeAnyElementFormatAndScale) {
  const amp::Policy p =
      amp::parsePolicy("bf16-mixed,matmul-inputs=fp8-current,element=fp8-e4m3fnuz");
  EXPECT_EQ(p.scaling.scheme, MatmulScaling::Fp8Current);
  EXPECT_EQ(amp::operandElement(p.scaling, telemetry::ScaledRole::Input).maxFinite(), 240.0);
  EXPECT_EQ(amp::operandElement(p.scaling, telemetry::ScaledRole::GradOutput).name, "fp8-e4m3fnuz");
  EXPECT_EQ(amp::parsePolicy(p.toSpec()), p) << p.toSpec();
  // A recipe as the base: the same policy.
  EXPECT_EQ(amp::parsePolicy("fp8-current,element=fp8-e4m3fnuz").scaling, p.scaling);
  const amp::Policy g = amp::parsePolicy(
      "fp8-delayed,element=fp8-e4m3fnuz,grad-element=fp8-e5m2fnuz");
  EXPECT_EQ(amp::operandElement(g.scaling, telemetry::ScaledRole::Weight).name, "fp8-e4m3fnuz");
  EXPECT_EQ(amp::operandElement(g.scaling, telemetry::ScaledRole::GradOutput).maxFinite(), 57344.0);
  EXPECT_EQ(amp::parsePolicy(g.toSpec()), g) << g.toSpec();
  const amp::Policy mx = amp::parsePolicy("bf16-mixed,matmul-inputs=mxfp8,element=e3m2,block-scale=ue4m3");
  EXPECT_EQ(mx.scaling.blockScale, amp::BlockScale::Ue4m3);
  EXPECT_EQ(amp::operandElement(mx.scaling, telemetry::ScaledRole::Input).name, "fp6-e3m2");
  EXPECT_EQ(amp::parsePolicy(mx.toSpec()), mx) << mx.toSpec();
  EXPECT_EQ(amp::parsePolicy("nvfp4,block-scale=e8m0").scaling.blockScale, amp::BlockScale::E8m0);
  const auto rows = amp::policyTable(p);
  EXPECT_TRUE(contains(rows.front().precision, "fp8-e4m3fnuz")) << rows.front().precision;
}

TEST(PolicyFormats, BadSpecsNameTheField) {
  EXPECT_TRUE(contains(errorOf("fp32,matmul-inputs=fp8-current,element=e4m3:bias=x"),
                       "element: bias:"))
      << errorOf("fp32,matmul-inputs=fp8-current,element=e4m3:bias=x");
  EXPECT_TRUE(contains(errorOf("fp32,matmul-inputs=fp8-current,element=e3m2"),
                       "element: fp6-e3m2 has 6 bits; fp8-current takes an 8-bit element format"))
      << errorOf("fp32,matmul-inputs=fp8-current,element=e3m2");
  EXPECT_TRUE(contains(errorOf("fp32,matmul-inputs=mxfp8,element=e8m20"),
                       "element: e8m20"))
      << errorOf("fp32,matmul-inputs=mxfp8,element=e8m20");
  EXPECT_TRUE(contains(errorOf("fp32,matmul-inputs=mxfp8,element=e8m20"), "29 bits"));
  EXPECT_TRUE(contains(errorOf("fp32,matmul-inputs=mxfp8,element=fp32"), "element: fp32 has 32 bits"))
      << errorOf("fp32,matmul-inputs=mxfp8,element=fp32");
  EXPECT_TRUE(contains(errorOf("fp32,matmul-inputs=e6m11"), "matmul-inputs: "))
      << errorOf("fp32,matmul-inputs=e6m11");
  EXPECT_TRUE(contains(errorOf("fp32,matmul-inputs=e6m11"), "18 bits"));
  EXPECT_TRUE(contains(errorOf("fp32,matmul-inputs=ue4m3"), "matmul-inputs: ue4m3 has no sign bit"))
      << errorOf("fp32,matmul-inputs=ue4m3");
  EXPECT_TRUE(contains(errorOf("fp32,matmul-inputs=e4m3:special=bogus"), "matmul-inputs: special:"))
      << errorOf("fp32,matmul-inputs=e4m3:special=bogus");
  EXPECT_TRUE(contains(errorOf("fp32,matmul-inputs=e4m3:bias=200"), "FP32's normal range"))
      << errorOf("fp32,matmul-inputs=e4m3:bias=200");
  EXPECT_TRUE(contains(errorOf("fp32,matmul-inputs=fp8-delayed,grad-element=e5m2:sign=no"),
                       "grad-element: "))
      << errorOf("fp32,matmul-inputs=fp8-delayed,grad-element=e5m2:sign=no");
  EXPECT_TRUE(contains(errorOf("fp32,element=e4m3"), "element and grad-element need matmul-inputs="));
  EXPECT_TRUE(contains(errorOf("fp32,matmul-inputs=e3m4,element=e4m3"),
                       "element: matmul-inputs already names the element format"));
  EXPECT_TRUE(contains(errorOf("fp32,matmul-inputs=fp8-current,block-scale=ue4m3"),
                       "block-scale needs matmul-inputs=mxfp8 or nvfp4"));
  EXPECT_TRUE(contains(errorOf("fp32,matmul-inputs=mxfp8,block-scale=e4m3"),
                       "block-scale is e8m0 or ue4m3, got \"e4m3\""));
  EXPECT_TRUE(contains(errorOf("fp32,matmul-inputs=fp9"), "unknown precision \"fp9\" for matmul-inputs"));
  EXPECT_TRUE(contains(errorOf("all-fp16,matmul-inputs=e3m4"), "16-bit matmul-accumulation"));
  EXPECT_EQ(errorOf("bf16-pure-sr,softmax=fp32"), "no error"); // its update rounding comes along
  EXPECT_TRUE(contains(errorOf("bf16-mixd"), "did you mean \"bf16-mixed\"?")) << errorOf("bf16-mixd");
}

TEST(PolicyFormats, Fp8CurrentInE4m3FnuzEqualsTheDefinitionsRounding) {
  const Fnuz fnuz;
  EXPECT_EQ(fnuz.values.back().first, 240.0);
  EXPECT_EQ(fnuz.values[1].first, std::ldexp(1.0, -10)); // min subnormal
  const int B = 6, I = 40, O = 5;
  std::mt19937 rng(7);
  std::normal_distribution<float> n(0.0f, 1.0f);
  std::vector<float> xs(B * I), ws(I * O);
  for (float& v : xs)
    v = n(rng) * 2.0f;
  for (float& v : ws)
    v = n(rng) * 0.03f;
  xs[3] = -1e-9f; // rounds to zero: +0 in FNUZ
  xs[4] = 1e-9f;
  xs[5] = -0.0f;
  amp::ScalingOptions o;
  o.scheme = MatmulScaling::Fp8Current;
  o.element = "fp8-e4m3fnuz";
  nn::ScaledLinear layer("l", B, I, O, o, 0);
  Tensor x = tensorOf(B, I, xs), w = tensorOf(I, O, ws), y(DType::F32, B, O);
  layer.forward(x, w, y);
  auto expect = [&](const std::vector<float>& v, const Tensor& q, const char* what) {
    float amax = 0;
    for (float a : v)
      amax = std::max(amax, std::fabs(a));
    const float scale = 240.0f / amax, inv = 1.0f / scale; // FP32, the recipe's formula
    double maxElement = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const double element = fnuz.round(double(v[i] * scale));
      maxElement = std::max(maxElement, std::fabs(element));
      const float want = float(element * double(inv));
      const float got = q.f32()[i];
      EXPECT_EQ(got, want) << what << "[" << i << "] = " << v[i];
      if (got == 0.0f) {
        EXPECT_FALSE(std::signbit(got)) << what << "[" << i << "]: FNUZ has no -0";
      }
    }
    EXPECT_EQ(maxElement, 240.0) << what;
  };
  expect(xs, layer.quantizedInput(), "x");
  expect(ws, layer.quantizedWeights(), "w");
  // The element rounding itself: NaN stays NaN (0x80), overflow saturates at 240.
  const numeric::FloatFormat f = amp::operandElement(o, telemetry::ScaledRole::Input);
  EXPECT_TRUE(std::isnan(amp::roundElement(std::numeric_limits<float>::quiet_NaN(), f).value));
  EXPECT_EQ(amp::roundElement(1e6f, f).value, 240.0f);
  EXPECT_TRUE(amp::roundElement(1e6f, f).saturated);
  EXPECT_EQ(amp::roundElement(-248.0f, f).value, -240.0f);
  EXPECT_FALSE(std::signbit(amp::roundElement(-1e-6f, f).value));
  for (int k = -1200; k <= 1200; ++k) { // every tie and step of the lower binades
    const float v = std::ldexp(float(k), -14);
    EXPECT_EQ(double(amp::roundElement(v, f).value), fnuz.round(double(v))) << v;
  }
}

// matmul-inputs=e3m4: the operands are rounded to E3M4 (bias 3, max 15.5) with
// no scale.
TEST(PolicyFormats, UnscaledOperandsAreTheFormatsValues) {
  amp::ScalingOptions o;
  o.scheme = MatmulScaling::Unscaled;
  o.element = "e3m4";
  const std::vector<float> xs{0.1f, -3.3f, 100.0f, 0.0078125f, 1.03125f, -1.09375f};
  nn::ScaledLinear layer("l", 1, 6, 1, o, 0);
  Tensor x = tensorOf(1, 6, xs), w = tensorOf(6, 1, {1, 1, 1, 1, 1, 1}), y(DType::F32, 1, 1);
  layer.forward(x, w, y);
  // E3M4: 16 steps per binade, normals from 2^-2, subnormal step 2^-6.
  const std::vector<float> want{0.09375f /* 6 x 2^-6 */, -3.25f, 15.5f, 0.0f /* tie to even 0 */,
                                1.0f /* tie to even */, -1.125f /* tie to even */};
  for (std::size_t i = 0; i < xs.size(); ++i)
    EXPECT_EQ(layer.quantizedInput().f32()[i], want[i]) << xs[i];
}

// mxfp8 with E4M3FNUZ elements and its E8M0 scale: each block of 32 along the
// row has scale 2^(floor(log2 amax) - 7) (emax of E4M3FNUZ is 7, max 240), and
// each value is its FNUZ rounding times that scale.
TEST(PolicyFormats, MxBlocksTakeAnyElementFormat) {
  const Fnuz fnuz;
  std::mt19937 rng(3);
  std::normal_distribution<float> n(0.0f, 1.0f);
  std::vector<float> in(64), out(64);
  for (std::size_t i = 0; i < in.size(); ++i)
    in[i] = n(rng) * (i < 32 ? 0.01f : 300.0f);
  amp::OperandRequest rq;
  rq.scheme = MatmulScaling::Mxfp8;
  rq.format = amp::operandElement(
      amp::parsePolicy("fp32,matmul-inputs=mxfp8,element=fp8-e4m3fnuz").scaling,
      telemetry::ScaledRole::Input);
  rq.rows = 1;
  rq.cols = 64;
  const auto stats = amp::quantizeOperand(in, out, rq);
  EXPECT_EQ(stats.format, "fp8-e4m3fnuz");
  for (std::size_t b = 0; b < 2; ++b) {
    float amax = 0;
    for (std::size_t i = 32 * b; i < 32 * b + 32; ++i)
      amax = std::max(amax, std::fabs(in[i]));
    const int e = int(std::floor(std::log2(double(amax)))) - 7;
    for (std::size_t i = 32 * b; i < 32 * b + 32; ++i)
      EXPECT_EQ(double(out[i]), fnuz.round(std::ldexp(double(in[i]), -e)) * std::ldexp(1.0, e))
          << "block " << b << " value " << i;
  }
}
