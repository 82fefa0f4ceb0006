// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Conv2d (oneDNN convolution primitives) and its channel bias, against a
// plain nested-loop convolution in double and against central finite
// differences, for FP32, BF16 and FP16 inputs.
//
// Error bounds. For every output element the reference also sums |terms|
// (the products x*w, or dy*w, or dy*x) in double: S. Any order of summing K
// terms in FP32 (sequential, blocked, a tree across threads, FMA chains)
// is within gamma_K * S of the exact sum, gamma_K = K u / (1 - K u),
// u = 2^-24 (Higham, Accuracy and Stability of Numerical Algorithms, 4.2).
//  - BF16 / FP16 inputs are rounded to their format before both the layer
//    and the reference see them. A product of two BF16 values (8 x 8
//    significant bits) or two FP16 values (11 x 11) fits in FP32's 24 bits,
//    so every product is exact in FP32 (the inputs here are O(1), far from
//    FP32's subnormals, so AVX512_BF16's flushing never applies): the only
//    error left is the FP32 summation order, bounded by gamma_K * S.
//  - FP32 inputs: each product adds one rounding, u * |term|, so the bound
//    is gamma_{K+1} * S.
// K is Cin*k*k (forward), Cout*k*k (backward data), B*H*W (backward weights).
#include <mantissa/kernels/matmul.h>
#include <mantissa/nn/conv2d.h>

#include "test_kernels_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace mantissa;
using test::randomTensor;
using test::toF32;

namespace {

struct Shape {
  int B, Cin, Cout, H, W, k;
};

std::string shapeName(const Shape& s) {
  return "B" + std::to_string(s.B) + "_Cin" + std::to_string(s.Cin) + "_Cout" +
         std::to_string(s.Cout) + "_" + std::to_string(s.H) + "x" + std::to_string(s.W) + "_k" +
         std::to_string(s.k);
}

// Value and sum of |terms| of every output element, in double.
struct Reference {
  std::vector<double> value, abs;
};

// y[b,co,h,w] = sum_{ci,i,j} x[b,ci,h+i-p,w+j-p] * w[co,ci,i,j]
Reference refForward(const Shape& s, const std::vector<float>& x, const std::vector<float>& w) {
  const int p = s.k / 2;
  Reference r{std::vector<double>(std::size_t(s.B) * s.Cout * s.H * s.W), {}};
  r.abs = r.value;
  for (int b = 0; b < s.B; ++b)
    for (int co = 0; co < s.Cout; ++co)
      for (int h = 0; h < s.H; ++h)
        for (int ww = 0; ww < s.W; ++ww) {
          double sum = 0, abs = 0;
          for (int ci = 0; ci < s.Cin; ++ci)
            for (int i = 0; i < s.k; ++i)
              for (int j = 0; j < s.k; ++j) {
                const int hh = h + i - p, wc = ww + j - p;
                if (hh < 0 || hh >= s.H || wc < 0 || wc >= s.W)
                  continue;
                const double t = double(x[((std::size_t(b) * s.Cin + ci) * s.H + hh) * s.W + wc]) *
                                 double(w[((std::size_t(co) * s.Cin + ci) * s.k + i) * s.k + j]);
                sum += t;
                abs += std::abs(t);
              }
          const std::size_t o = ((std::size_t(b) * s.Cout + co) * s.H + h) * s.W + ww;
          r.value[o] = sum;
          r.abs[o] = abs;
        }
  return r;
}

// dx[b,ci,h,w] = sum_{co,i,j} dy[b,co,h-i+p,w-j+p] * w[co,ci,i,j]
Reference refBackwardData(const Shape& s, const std::vector<float>& dy,
                          const std::vector<float>& w) {
  const int p = s.k / 2;
  Reference r{std::vector<double>(std::size_t(s.B) * s.Cin * s.H * s.W), {}};
  r.abs = r.value;
  for (int b = 0; b < s.B; ++b)
    for (int ci = 0; ci < s.Cin; ++ci)
      for (int h = 0; h < s.H; ++h)
        for (int ww = 0; ww < s.W; ++ww) {
          double sum = 0, abs = 0;
          for (int co = 0; co < s.Cout; ++co)
            for (int i = 0; i < s.k; ++i)
              for (int j = 0; j < s.k; ++j) {
                const int ho = h - i + p, wo = ww - j + p;
                if (ho < 0 || ho >= s.H || wo < 0 || wo >= s.W)
                  continue;
                const double t =
                    double(dy[((std::size_t(b) * s.Cout + co) * s.H + ho) * s.W + wo]) *
                    double(w[((std::size_t(co) * s.Cin + ci) * s.k + i) * s.k + j]);
                sum += t;
                abs += std::abs(t);
              }
          const std::size_t o = ((std::size_t(b) * s.Cin + ci) * s.H + h) * s.W + ww;
          r.value[o] = sum;
          r.abs[o] = abs;
        }
  return r;
}

// dw[co,ci,i,j] = sum_{b,h,w} dy[b,co,h,w] * x[b,ci,h+i-p,w+j-p]
Reference refBackwardWeights(const Shape& s, const std::vector<float>& x,
                             const std::vector<float>& dy) {
  const int p = s.k / 2;
  Reference r{std::vector<double>(std::size_t(s.Cout) * s.Cin * s.k * s.k), {}};
  r.abs = r.value;
  for (int co = 0; co < s.Cout; ++co)
    for (int ci = 0; ci < s.Cin; ++ci)
      for (int i = 0; i < s.k; ++i)
        for (int j = 0; j < s.k; ++j) {
          double sum = 0, abs = 0;
          for (int b = 0; b < s.B; ++b)
            for (int h = 0; h < s.H; ++h)
              for (int ww = 0; ww < s.W; ++ww) {
                const int hh = h + i - p, wc = ww + j - p;
                if (hh < 0 || hh >= s.H || wc < 0 || wc >= s.W)
                  continue;
                const double t =
                    double(dy[((std::size_t(b) * s.Cout + co) * s.H + h) * s.W + ww]) *
                    double(x[((std::size_t(b) * s.Cin + ci) * s.H + hh) * s.W + wc]);
                sum += t;
                abs += std::abs(t);
              }
          const std::size_t o = ((std::size_t(co) * s.Cin + ci) * s.k + i) * s.k + j;
          r.value[o] = sum;
          r.abs[o] = abs;
        }
  return r;
}

double gamma(int K) {
  const double u = std::ldexp(1.0, -24);
  return K * u / (1.0 - K * u);
}

std::vector<float> values(const Tensor& t) {
  const Tensor wide = toF32(t);
  return {wide.f32().begin(), wide.f32().end()};
}

// Every element of `got` within gamma_K * S (+ the smallest normal, for
// terms that cancel to zero exactly) of the reference.
void expectWithinBound(const char* what, const Tensor& got, const Reference& ref, int K) {
  ASSERT_EQ(std::size_t(got.size()), ref.value.size()) << what;
  const double g = gamma(K);
  int bad = 0;
  for (std::size_t i = 0; i < ref.value.size(); ++i) {
    const double bound = g * ref.abs[i] + 1e-37;
    const double err = std::abs(double(got.f32()[i]) - ref.value[i]);
    if (err > bound && ++bad <= 5)
      ADD_FAILURE() << what << "[" << i << "] = " << got.f32()[i] << ", reference "
                    << ref.value[i] << ", error " << err << " > bound " << bound;
  }
  EXPECT_EQ(bad, 0) << what << ": elements outside the summation-order bound";
}

std::string dtypeLabel(DType d) {
  return d == DType::F32 ? "F32" : d == DType::BF16 ? "BF16" : "F16";
}

} // namespace

class Conv2dReference : public ::testing::TestWithParam<std::tuple<Shape, DType>> {};

TEST_P(Conv2dReference, AllThreeProductsMatchNestedLoopsInDouble) {
  const auto [s, dtype] = GetParam();
  nn::Conv2d conv(s.B, s.Cin, s.Cout, s.H, s.W, s.k, dtype);
  const std::int64_t hw = std::int64_t(s.H) * s.W;
  const Tensor x = randomTensor(dtype, s.B, s.Cin * hw, 11);
  const Tensor w = randomTensor(dtype, s.Cout, std::int64_t(s.Cin) * s.k * s.k, 12);
  const Tensor dy = randomTensor(dtype, s.B, s.Cout * hw, 13);
  const auto xv = values(x), wv = values(w), dyv = values(dy);

  // Outputs start as garbage: every product must overwrite its result.
  Tensor y(DType::F32, s.B, s.Cout * hw), dx(DType::F32, s.B, s.Cin * hw),
      dw(DType::F32, s.Cout, std::int64_t(s.Cin) * s.k * s.k);
  for (Tensor* t : {&y, &dx, &dw})
    std::fill(t->f32().begin(), t->f32().end(), 1e30f);

  conv.forward(x, w, y);
  conv.backwardData(dy, w, dx);
  conv.backwardWeights(x, dy, dw);

  const int extra = dtype == DType::F32 ? 1 : 0; // the FP32 product's own rounding
  expectWithinBound("y", y, refForward(s, xv, wv), s.Cin * s.k * s.k + extra);
  expectWithinBound("dx", dx, refBackwardData(s, dyv, wv), s.Cout * s.k * s.k + extra);
  expectWithinBound("dw", dw, refBackwardWeights(s, xv, dyv), s.B * s.H * s.W + extra);

  // The label says what ran.
  const std::string impl = conv.implementation();
  EXPECT_FALSE(impl.empty());
  if (dtype == DType::F32) {
    EXPECT_FALSE(conv.emulated()) << impl;
  } else {
    const std::string tag = std::string(" (emulated: ") + (dtype == DType::BF16 ? "BF16" : "FP16") +
                            " storage, FP32 compute)";
    for (const std::string& label : {conv.implementation(), conv.backwardDataImplementation(),
                                     conv.backwardWeightsImplementation()})
      if (conv.emulated() && label.find(tag) == std::string::npos)
        ADD_FAILURE() << "emulated product not labelled: " << label;
    if (!conv.emulated()) {
      EXPECT_EQ(impl.find("emulated"), std::string::npos) << impl;
    } else {
      // The forward product's FP32 twins of x and w at least.
      EXPECT_GE(conv.fp32TwinBytes(), 4 * std::size_t(x.size() + w.size()));
    }
  }
  std::cout << shapeName(s) << " " << dtypeLabel(dtype) << ": " << conv.implementation() << " | "
            << conv.backwardDataImplementation() << " | " << conv.backwardWeightsImplementation()
            << "\n";
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, Conv2dReference,
    ::testing::Combine(::testing::Values(Shape{2, 1, 4, 7, 9, 3}, Shape{3, 2, 3, 5, 5, 5},
                                         Shape{2, 3, 8, 8, 6, 3}, Shape{1, 1, 1, 4, 4, 5},
                                         Shape{2, 4, 5, 11, 7, 5}, Shape{4, 16, 16, 6, 6, 3}),
                       ::testing::Values(DType::F32, DType::BF16, DType::F16)),
    [](const auto& param) {
      return shapeName(std::get<0>(param.param)) + "_" + dtypeLabel(std::get<1>(param.param));
    });

// Finite differences: L = sum g * (conv(x, w) + bias) for a fixed g, so
// dL/dx = backwardData(g), dL/dw = backwardWeights(x, g), dL/db = channel sums
// of g. L is linear in each input, so the central difference has no
// truncation error; what remains is FP32 rounding of y (a few u * |y|) over
// 2h, summed in double over the outputs: below 1e-3 here.
TEST(Conv2dGradcheck, BackwardMatchesCentralDifferences) {
  for (const Shape s : {Shape{2, 2, 3, 5, 6, 3}, Shape{1, 1, 2, 7, 5, 5}}) {
    SCOPED_TRACE(shapeName(s));
    const std::int64_t hw = std::int64_t(s.H) * s.W;
    nn::Conv2d conv(s.B, s.Cin, s.Cout, s.H, s.W, s.k, DType::F32);
    Tensor x = randomTensor(DType::F32, s.B, s.Cin * hw, 21);
    Tensor w = randomTensor(DType::F32, s.Cout, std::int64_t(s.Cin) * s.k * s.k, 22);
    Tensor bias = randomTensor(DType::F32, 1, s.Cout, 23);
    const Tensor g = randomTensor(DType::F32, s.B, s.Cout * hw, 24);
    Tensor y(DType::F32, s.B, s.Cout * hw);

    auto loss = [&] {
      conv.forward(x, w, y);
      nn::addChannelBias(y.f32(), bias.f32(), s.B, s.Cout, int(hw));
      double sum = 0;
      for (std::size_t i = 0; i < std::size_t(y.size()); ++i)
        sum += double(g.f32()[i]) * double(y.f32()[i]);
      return sum;
    };
    Tensor dx(DType::F32, s.B, s.Cin * hw), dw(DType::F32, w.rows(), w.cols());
    Tensor db(DType::F32, 1, s.Cout);
    conv.backwardData(g, w, dx);
    conv.backwardWeights(x, g, dw);
    nn::channelBiasGradient(db.f32(), g.f32(), s.B, s.Cout, int(hw));

    const float h = 1e-2f;
    auto check = [&](const char* name, Tensor& param, const Tensor& grad) {
      for (std::size_t i = 0; i < std::size_t(param.size()); ++i) {
        const float saved = param.f32()[i];
        param.f32()[i] = saved + h;
        const double plus = loss();
        param.f32()[i] = saved - h;
        const double minus = loss();
        param.f32()[i] = saved;
        EXPECT_NEAR(grad.f32()[i], (plus - minus) / (2.0 * double(h)), 1e-3) << name << "[" << i << "]";
      }
    };
    check("x", x, dx);
    check("w", w, dw);
    check("bias", bias, db);
  }
}

TEST(Conv2dBias, AddsAndSumsPerChannel) {
  // y [2 samples, 3 channels, 2 pixels]
  std::vector<float> y(12, 1.0f);
  const std::vector<float> bias{0.5f, -2.0f, 4.0f};
  nn::addChannelBias(y, bias, 2, 3, 2);
  EXPECT_EQ(y, (std::vector<float>{1.5f, 1.5f, -1.0f, -1.0f, 5.0f, 5.0f,
                                   1.5f, 1.5f, -1.0f, -1.0f, 5.0f, 5.0f}));
  const std::vector<float> dy{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  std::vector<float> db{100.0f, 100.0f, 100.0f};
  nn::channelBiasGradient(db, dy, 2, 3, 2);
  EXPECT_EQ(db, (std::vector<float>{1 + 2 + 7 + 8, 3 + 4 + 9 + 10, 5 + 6 + 11 + 12}));
  nn::channelBiasGradient(db, dy, 2, 3, 2, /*accumulate=*/true);
  EXPECT_EQ(db, (std::vector<float>{36, 52, 68}));
  EXPECT_THROW(nn::addChannelBias(y, bias, 2, 3, 3), std::invalid_argument);
  EXPECT_THROW(nn::channelBiasGradient(std::span<float>(db).first(2), dy, 2, 3, 2),
               std::invalid_argument);
}

// The bias gradient sums each channel in the documented order (b, then
// pixel): bit for bit a plain float loop in that order, for channel counts
// that fill the kernel's groups of channels and leave a remainder, and with
// accumulation. Values of mixed magnitude make any other order round differently.
TEST(Conv2dBias, GradientSumsInTheDocumentedOrder) {
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> mag(-20.0f, 20.0f);
  for (const int C : {32, 13, 3}) {
    const int B = 5, HW = 49;
    std::vector<float> dy(std::size_t(B) * C * HW);
    for (float& v : dy)
      v = std::ldexp(1.0f + 0.1f * mag(rng), int(mag(rng)));
    std::vector<float> db(std::size_t(C), 0.25f);
    nn::channelBiasGradient(db, dy, B, C, HW, /*accumulate=*/true);
    for (int c = 0; c < C; ++c) {
      float sum = 0.25f;
      for (int b = 0; b < B; ++b)
        for (int p = 0; p < HW; ++p)
          sum += dy[(std::size_t(b) * C + std::size_t(c)) * HW + std::size_t(p)];
      ASSERT_EQ(db[std::size_t(c)], sum) << "C " << C << " channel " << c;
    }
  }
}

// The native BF16 kernels against FP32 compute of the same BF16 values (the
// emulated path's arithmetic): both form exact products and differ only in
// FP32 summation order, so each is within gamma_K * S of the exact sum and
// they are within 2 gamma_K * S of each other. LeNet's two convolutions.
TEST(Conv2dBf16, NativeMatchesFp32ComputeOfTheSameValues) {
  for (const Shape s : {Shape{8, 1, 32, 28, 28, 5}, Shape{8, 32, 64, 14, 14, 5}}) {
    SCOPED_TRACE(shapeName(s));
    nn::Conv2d native(s.B, s.Cin, s.Cout, s.H, s.W, s.k, DType::BF16);
    if (native.emulated())
      GTEST_SKIP() << "oneDNN has no native BF16 convolution on this CPU: "
                   << native.implementation() << " | " << native.backwardDataImplementation()
                   << " | " << native.backwardWeightsImplementation();
    nn::Conv2d fp32(s.B, s.Cin, s.Cout, s.H, s.W, s.k, DType::F32);
    const std::int64_t hw = std::int64_t(s.H) * s.W;
    const Tensor x = randomTensor(DType::BF16, s.B, s.Cin * hw, 31);
    const Tensor w = randomTensor(DType::BF16, s.Cout, std::int64_t(s.Cin) * s.k * s.k, 32);
    const Tensor dy = randomTensor(DType::BF16, s.B, s.Cout * hw, 33);
    const Tensor xf = toF32(x), wf = toF32(w), dyf = toF32(dy);
    Tensor y1(DType::F32, s.B, s.Cout * hw), y2 = y1;
    Tensor dx1(DType::F32, s.B, s.Cin * hw), dx2 = dx1;
    Tensor dw1(DType::F32, w.rows(), w.cols()), dw2 = dw1;
    native.forward(x, w, y1);
    fp32.forward(xf, wf, y2);
    native.backwardData(dy, w, dx1);
    fp32.backwardData(dyf, wf, dx2);
    native.backwardWeights(x, dy, dw1);
    fp32.backwardWeights(xf, dyf, dw2);
    // S from the double reference; the bound is 2 gamma_K * S.
    auto compare = [](const char* what, const Tensor& a, const Tensor& b, const Reference& ref,
                      int K) {
      int bad = 0;
      for (std::size_t i = 0; i < ref.abs.size(); ++i)
        if (std::abs(double(a.f32()[i]) - double(b.f32()[i])) > 2 * gamma(K) * ref.abs[i] + 1e-37 &&
            ++bad <= 5)
          ADD_FAILURE() << what << "[" << i << "]: native " << a.f32()[i] << ", FP32 compute "
                        << b.f32()[i];
      EXPECT_EQ(bad, 0) << what;
    };
    const auto xv = values(x), wv = values(w), dyv = values(dy);
    compare("y", y1, y2, refForward(s, xv, wv), s.Cin * s.k * s.k);
    compare("dx", dx1, dx2, refBackwardData(s, dyv, wv), s.Cout * s.k * s.k);
    compare("dw", dw1, dw2, refBackwardWeights(s, xv, dyv), s.B * s.H * s.W);
  }
}

TEST(Conv2dErrors, RejectsBadShapesAndOperands) {
  for (int k : {1, 2, 4, 7}) {
    try {
      nn::Conv2d conv(1, 1, 1, 8, 8, k, DType::F32);
      ADD_FAILURE() << "kernel " << k << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("kernel size " + std::to_string(k)), std::string::npos)
          << e.what();
    }
  }
  EXPECT_THROW(nn::Conv2d(0, 1, 1, 8, 8, 3, DType::F32), std::invalid_argument);
  EXPECT_THROW(nn::Conv2d(1, 1, 1, 8, -8, 3, DType::F32), std::invalid_argument);

  nn::Conv2d conv(2, 3, 4, 5, 6, 3, DType::BF16);
  const Tensor x(DType::BF16, 2, 3 * 30), w(DType::BF16, 4, 27), dy(DType::BF16, 2, 4 * 30);
  Tensor y(DType::F32, 2, 4 * 30), dx(DType::F32, 2, 3 * 30), dw(DType::F32, 4, 27);
  const Tensor xF32(DType::F32, 2, 3 * 30), wShort(DType::BF16, 4, 26);
  try {
    conv.forward(xF32, w, y);
    ADD_FAILURE() << "F32 x accepted by a BF16 layer";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("x is f32[2, 90], expected bf16[2, 90]"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(conv.backwardData(dy, wShort, dx), std::invalid_argument);
  EXPECT_THROW(conv.backwardWeights(x, dy, y), std::invalid_argument);
  EXPECT_NO_THROW(conv.forward(x, w, y));
  EXPECT_NO_THROW(conv.backwardData(dy, w, dx));
  EXPECT_NO_THROW(conv.backwardWeights(x, dy, dw));
}
