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
