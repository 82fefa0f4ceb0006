// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Matmul (oneDNN) and referenceMatmul (Eigen) against each other and against
// a naive double-precision product, for every dtype, transpose combination,
// accumulate on/off and odd shapes.
//
// Tolerances. BF16/F16 inputs are the same bit patterns in both paths and
// every such value is exact in FP32, so products a*b of two inputs are exact
// in FP32 too (8x8 or 11x11 significand bits < 24): the paths differ only in
// the order of their FP32 additions. The standard bound for a K-term FP32 sum
// (Higham, Accuracy and Stability, 3.1) is
//     |computed - exact| <= gamma(K) * sum |a_k b_k|,  gamma(K) = K u / (1 - K u),
// u = 2^-24, whatever the order (FMA only tightens it). Each path is held to
// that bound against the exact (double) product, and the two paths to twice
// it against each other. Accumulating adds one more term (dst0), so K + 1.
// A 16-bit dst adds one final rounding: at most one ULP of the 16-bit format
// at the result's magnitude (2^-7 relative for BF16, 2^-10 relative plus the
// 2^-24 subnormal step for FP16).
#include "test_kernels_util.h"

#include <mantissa/kernels/matmul.h>

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>

namespace {

using mantissa::DType;
using mantissa::Tensor;
using mantissa::kernels::Matmul;
using mantissa::kernels::MatmulShape;
using mantissa::kernels::referenceMatmul;
using mantissa::kernels::Trans;
using mantissa::test::naiveMatmul;
using mantissa::test::randomTensor;
using mantissa::test::toF32;

double gamma(std::int64_t n) {
  const double u = std::ldexp(1.0, -24);
  return double(n) * u / (1.0 - double(n) * u);
}

// One ULP of the dst format at magnitude `x` (upper bound), 0 for FP32 dst.
double dstUlp(DType dst, double x) {
  switch (dst) {
  case DType::F32: return 0.0;
  case DType::BF16: return std::abs(x) * std::ldexp(1.0, -7);
  case DType::F16: return std::abs(x) * std::ldexp(1.0, -10) + std::ldexp(1.0, -24);
  }
  return 0.0;
}

// |op(src)| x |op(weights)| + |dst0| in FP32, inflated by (1 + 2 gamma) to
// cover its own rounding: the per-element scale of the summation error.
Tensor absProduct(const MatmulShape& shape, const Tensor& src, const Tensor& weights,
                  const Tensor* dst0) {
  Tensor a = toF32(src), b = toF32(weights);
  for (float& v : a.f32())
    v = std::abs(v);
  for (float& v : b.f32())
    v = std::abs(v);
  Tensor c(DType::F32, shape.m, shape.n);
  if (dst0)
    c = toF32(*dst0);
  for (float& v : c.f32())
    v = std::abs(v);
  referenceMatmul(shape, a, b, c, /*accumulate=*/true);
  for (float& v : c.f32())
    v *= float(1.0 + 2.0 * gamma(shape.k + 1));
  return c;
}

Tensor stored(DType dtype, std::int64_t rows, std::int64_t cols, Trans trans, std::uint32_t seed) {
  return trans == Trans::No ? randomTensor(dtype, rows, cols, seed)
                            : randomTensor(dtype, cols, rows, seed);
}

struct Shape {
  std::int64_t m, n, k;
};

// shape, inputs dtype, dst dtype, transSrc, transWeights, accumulate
using Case = std::tuple<Shape, DType, DType, Trans, Trans, bool>;

class MatmulAgreement : public ::testing::TestWithParam<Case> {};

TEST_P(MatmulAgreement, OneDnnMatchesEigenReferenceWithinTheFp32SummationBound) {
  const auto [dims, inputs, dstType, transSrc, transWeights, accumulate] = GetParam();
  const MatmulShape shape{dims.m, dims.n, dims.k, transSrc, transWeights};
  const Tensor src = stored(inputs, dims.m, dims.k, transSrc, 1);
  const Tensor weights = stored(inputs, dims.k, dims.n, transWeights, 2);
  const Tensor dst0 = randomTensor(dstType, dims.m, dims.n, 3);

  Tensor fast = dst0; // without accumulate these values must be overwritten
  Tensor reference = fast;
  Matmul matmul(shape, inputs, dstType, accumulate);
  matmul.execute(src, weights, fast);
  referenceMatmul(shape, src, weights, reference, accumulate);
  // Exact values on a sample of rows (every 16th and the last); the scale
  // of the error bound, |op(src)| x |op(weights)| + |dst0|, on every element.
  const std::int64_t rowStep = dims.m * dims.n * dims.k > 100000 ? 16 : 1;
  const auto exact = naiveMatmul(shape, src, weights, accumulate ? &dst0 : nullptr, rowStep);
  const Tensor scale = absProduct(shape, src, weights, accumulate ? &dst0 : nullptr);

  const Tensor fast32 = toF32(fast), reference32 = toF32(reference);
  const double g = gamma(dims.k + (accumulate ? 1 : 0));
  int reported = 0;
  for (std::int64_t i = 0; i < dims.m; ++i)
    for (std::int64_t j = 0; j < dims.n; ++j) {
      const std::size_t at = std::size_t(i * dims.n + j);
      const double f = fast32.f32()[at], r = reference32.f32()[at];
      bool ok = std::abs(f - r) <=
                2 * g * scale.f32()[at] + dstUlp(dstType, std::max(std::abs(f), std::abs(r)));
      if (mantissa::test::naiveRow(i, dims.m, rowStep)) {
        const double e = exact.value[at];
        const double one = g * exact.abs[at] + dstUlp(dstType, std::max(std::abs(f), std::abs(e)));
        ok = ok && std::abs(f - e) <= one && std::abs(r - e) <= one;
      }
      EXPECT_TRUE(ok || reported > 5)
          << "element (" << i << ", " << j << "): onednn " << f << ", eigen " << r;
      reported += ok ? 0 : 1;
    }
  EXPECT_EQ(reported, 0) << "elements outside the bound, " << matmul.implementation();
}

std::string caseName(const ::testing::TestParamInfo<Case>& info) {
  const auto [d, inputs, dst, ts, tw, acc] = info.param;
  return std::to_string(d.m) + "x" + std::to_string(d.n) + "x" + std::to_string(d.k) + "_" +
         std::string(mantissa::dtypeName(inputs)) + "_to_" + std::string(mantissa::dtypeName(dst)) +
         (ts == Trans::Yes ? "_srcT" : "") + (tw == Trans::Yes ? "_weightsT" : "") +
         (acc ? "_accumulate" : "");
}

// F32 -> F32, and for 16-bit inputs both an F32 dst and a same-format dst.
const auto kTransposes = ::testing::Values(Trans::No, Trans::Yes);
const auto kShapes = ::testing::Values(Shape{1, 1, 1}, Shape{7, 13, 5}, Shape{128, 1024, 784});

INSTANTIATE_TEST_SUITE_P(F32, MatmulAgreement,
                         ::testing::Combine(kShapes, ::testing::Values(DType::F32),
                                            ::testing::Values(DType::F32), kTransposes, kTransposes,
                                            ::testing::Bool()),
                         caseName);
// FP32 inputs rounded into a 16-bit dst (emulated where oneDNN lacks it).
INSTANTIATE_TEST_SUITE_P(F32ToHalf, MatmulAgreement,
                         ::testing::Combine(::testing::Values(Shape{1, 1, 1}, Shape{7, 13, 5}),
                                            ::testing::Values(DType::F32),
                                            ::testing::Values(DType::BF16, DType::F16), kTransposes,
                                            kTransposes, ::testing::Bool()),
                         caseName);
INSTANTIATE_TEST_SUITE_P(BF16, MatmulAgreement,
                         ::testing::Combine(kShapes, ::testing::Values(DType::BF16),
                                            ::testing::Values(DType::F32, DType::BF16), kTransposes,
                                            kTransposes, ::testing::Bool()),
                         caseName);
INSTANTIATE_TEST_SUITE_P(F16, MatmulAgreement,
                         ::testing::Combine(kShapes, ::testing::Values(DType::F16),
                                            ::testing::Values(DType::F32, DType::F16), kTransposes,
                                            kTransposes, ::testing::Bool()),
                         caseName);

// The reference itself, on a product worked out by hand:
// [1 2 3; 4 5 6] x [7 8; 9 10; 11 12] = [58 64; 139 154].
TEST(ReferenceMatmul, HandWorkedProduct) {
  Tensor a(DType::F32, 2, 3), b(DType::F32, 3, 2), c(DType::F32, 2, 2);
  for (int i = 0; i < 6; ++i) {
    a.f32()[std::size_t(i)] = float(i + 1);
    b.f32()[std::size_t(i)] = float(i + 7);
  }
  referenceMatmul({2, 2, 3}, a, b, c);
  EXPECT_EQ(c.f32()[0], 58.0f);
  EXPECT_EQ(c.f32()[1], 64.0f);
  EXPECT_EQ(c.f32()[2], 139.0f);
  EXPECT_EQ(c.f32()[3], 154.0f);
}

// Small integers: every partial sum is exact in FP32, so any correct product
// equals the naive one bit for bit, transposes included.
TEST(ReferenceMatmul, ExactOnIntegersForEveryTranspose) {
  for (Trans ts : {Trans::No, Trans::Yes})
    for (Trans tw : {Trans::No, Trans::Yes}) {
      const MatmulShape s{9, 6, 11, ts, tw};
      const Tensor a = ts == Trans::No ? randomTensor(DType::F32, 9, 11, 4, 8)
                                       : randomTensor(DType::F32, 11, 9, 4, 8);
      const Tensor b = tw == Trans::No ? randomTensor(DType::F32, 11, 6, 5, 8)
                                       : randomTensor(DType::F32, 6, 11, 5, 8);
      Tensor c(DType::F32, 9, 6), fast(DType::F32, 9, 6);
      referenceMatmul(s, a, b, c);
      Matmul(s, DType::F32).execute(a, b, fast);
      const auto exact = naiveMatmul(s, a, b);
      for (std::size_t i = 0; i < exact.value.size(); ++i) {
        ASSERT_EQ(double(c.f32()[i]), exact.value[i]) << "reference, element " << i;
        ASSERT_EQ(double(fast.f32()[i]), exact.value[i]) << "onednn, element " << i;
      }
    }
}

// Handles are re-pointed on every call: a second execute on other tensors
// must compute with those tensors, not the first ones.
TEST(Matmul, ExecuteUsesTheTensorsOfEachCall) {
  const MatmulShape s{3, 4, 2};
  for (DType inputs : {DType::F32, DType::BF16}) {
    Matmul mm(s, inputs);
    Tensor a1 = randomTensor(inputs, 3, 2, 10, 3), b1 = randomTensor(inputs, 2, 4, 11, 3);
    Tensor a2 = randomTensor(inputs, 3, 2, 12, 3), b2 = randomTensor(inputs, 2, 4, 13, 3);
    Tensor c1(DType::F32, 3, 4), c2(DType::F32, 3, 4);
    mm.execute(a1, b1, c1);
    mm.execute(a2, b2, c2);
    const auto e1 = naiveMatmul(s, a1, b1), e2 = naiveMatmul(s, a2, b2);
    for (std::size_t i = 0; i < 12; ++i) {
      EXPECT_EQ(double(c1.f32()[i]), e1.value[i]);
      EXPECT_EQ(double(c2.f32()[i]), e2.value[i]);
    }
  }
}

// The trainer and a background benchmark may run Matmuls at the same time,
// each on its own thread (and so its own oneDNN stream).
TEST(Matmul, TwoThreadsAtOnce) {
  auto work = [](DType inputs, std::uint32_t seed, bool* ok) {
    const MatmulShape s{33, 17, 29, Trans::Yes, Trans::No};
    const Tensor a = randomTensor(inputs, 29, 33, seed, 4),
                 b = randomTensor(inputs, 29, 17, seed + 1, 4);
    const auto exact = naiveMatmul(s, a, b);
    Matmul mm(s, inputs);
    Tensor c(DType::F32, 33, 17);
    *ok = true;
    for (int i = 0; i < 50; ++i) {
      mm.execute(a, b, c);
      for (std::size_t e = 0; e < exact.value.size(); ++e)
        *ok = *ok && double(c.f32()[e]) == exact.value[e];
    }
  };
  bool ok1 = false, ok2 = false;
  std::thread t1(work, DType::F32, 20u, &ok1);
  std::thread t2(work, DType::BF16, 30u, &ok2);
  t1.join();
  t2.join();
  EXPECT_TRUE(ok1);
  EXPECT_TRUE(ok2);
}

TEST(Matmul, BadOperandsGiveAClearError) {
  EXPECT_THROW(Matmul({0, 4, 4}, DType::F32), std::invalid_argument);
  Matmul mm({3, 4, 5, Trans::No, Trans::Yes}, DType::BF16);
  Tensor src(DType::BF16, 3, 5), weights(DType::BF16, 4, 5), dst(DType::F32, 3, 4);
  EXPECT_NO_THROW(mm.execute(src, weights, dst));
  Tensor wrongWeights(DType::BF16, 5, 4); // not transposed as promised
  try {
    mm.execute(src, wrongWeights, dst);
    FAIL() << "wrong weights shape must throw";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("weights"), std::string::npos) << what;
    EXPECT_NE(what.find("bf16[4, 5]"), std::string::npos) << what;
  }
  Tensor f32Src(DType::F32, 3, 5);
  EXPECT_THROW(mm.execute(f32Src, weights, dst), std::invalid_argument);
  Tensor bf16Dst(DType::BF16, 3, 4);
  EXPECT_THROW(mm.execute(src, weights, bf16Dst), std::invalid_argument);
  Tensor f16Weights(DType::F16, 4, 5);
  EXPECT_THROW(referenceMatmul(mm.shape(), src, f16Weights, dst), std::invalid_argument);
}

} // namespace
