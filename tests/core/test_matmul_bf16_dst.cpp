// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// A BF16 matmul whose FP32 result is rounded to BF16 right away may let
// oneDNN's kernel write the BF16 result itself (Matmul::roundingToBf16):
// half the bytes written, and the same bits. The truth is the explicit two-
// step computation: the same kernel writing FP32, then each value rounded to
// nearest, ties to even, by the rule VCVTNEPS2BF16 follows (FP32 subnormals
// read as zero, NaN made quiet), written out here from the bit layout.
#include <mantissa/amp/recipe.h>
#include <mantissa/kernels/matmul.h>
#include <mantissa/kernels/matmul_path.h>
#include <mantissa/model/mlp.h>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace mantissa;
using kernels::Matmul;
using kernels::MatmulPath;
using kernels::MatmulShape;
using kernels::Trans;

// FP32 -> BF16 bits, round to nearest, ties to even; subnormal inputs read
// as zero (sign kept); NaN keeps its top half with the quiet bit set.
std::uint16_t roundToBf16(float value) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(value);
  if ((u & 0x7F800000u) == 0)
    u &= 0x80000000u; // subnormal or zero
  if ((u & 0x7FFFFFFFu) > 0x7F800000u)
    return std::uint16_t((u >> 16) | 0x0040u); // NaN
  const std::uint32_t lsb = (u >> 16) & 1u;
  return std::uint16_t((u + 0x7FFFu + lsb) >> 16);
}

bool haveTwins() {
  return kernels::bf16Support().native();
}

struct Kind {
  const char* name;
  // A BF16 value for operand a (0) or b (1), element index i.
  std::function<float(std::mt19937&, int)> draw;
};

std::uint16_t bf16Bits(float exactBf16) {
  return std::uint16_t(std::bit_cast<std::uint32_t>(exactBf16) >> 16);
}

float truncateToBf16(float v) {
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(v) & 0xFFFF0000u);
}

std::vector<Kind> kinds() {
  return {
      // Gaussian values over a wide exponent range.
      {"wide",
       [](std::mt19937& r, int) {
         std::normal_distribution<float> n;
         std::uniform_int_distribution<int> e(-20, 20);
         return truncateToBf16(std::ldexp(n(r), e(r)));
       }},
      // Few significant bits: sums land exactly halfway between BF16 neighbours.
      {"ties",
       [](std::mt19937& r, int which) {
         static const float a[] = {0.0f, 1.0f, -1.0f, 1.0078125f, -1.0078125f,
                                   0.00390625f, -0.00390625f, 0.01171875f, 0.5f, 2.0f};
         static const float b[] = {0.0f, 1.0f, -1.0f, 0.5f, 1.015625f, -1.015625f, 0.25f};
         std::uniform_int_distribution<int> pick(0, which == 0 ? 9 : 6);
         return which == 0 ? a[pick(r)] : b[pick(r)];
       }},
      // Products around 2^-126 and below: FP32 subnormal sums, flushed.
      {"tiny",
       [](std::mt19937& r, int) {
         std::uniform_real_distribution<float> m(1.0f, 2.0f);
         std::uniform_int_distribution<int> e(-70, -58);
         std::bernoulli_distribution neg(0.5);
         return truncateToBf16((neg(r) ? -1.0f : 1.0f) * std::ldexp(m(r), e(r)));
       }},
      // Products near FP32's largest: sums that round to BF16 infinity or overflow.
      {"huge",
       [](std::mt19937& r, int) {
         std::uniform_real_distribution<float> m(1.0f, 2.0f);
         std::uniform_int_distribution<int> e(60, 63);
         std::bernoulli_distribution neg(0.3);
         return truncateToBf16((neg(r) ? -1.0f : 1.0f) * std::ldexp(m(r), e(r)));
       }},
  };
}

Tensor operand(std::int64_t rows, std::int64_t cols, const Kind& kind, int which, std::mt19937& r) {
  Tensor t(DType::BF16, rows, cols);
  auto u = t.u16();
  for (std::size_t i = 0; i < u.size(); ++i)
    u[i] = bf16Bits(kind.draw(r, which));
  return t;
}

struct Tally {
  std::int64_t values = 0, ties = 0, subnormal = 0, toInfinity = 0, nan = 0;
};

// Every element: the twin's BF16 equals the FP32 result rounded. Returns false on the first mismatch.
bool sameBits(const Tensor& f32, const Tensor& bf16, const std::string& where, Tally& t) {
  const auto wide = f32.f32();
  const auto low = bf16.u16();
  for (std::size_t i = 0; i < wide.size(); ++i) {
    const float v = wide[i];
    const std::uint32_t u = std::bit_cast<std::uint32_t>(v);
    ++t.values;
    t.ties += std::isfinite(v) && (u & 0xFFFFu) == 0x8000u;
    t.subnormal += std::fpclassify(v) == FP_SUBNORMAL;
    t.toInfinity += std::isfinite(v) && std::isinf(std::bit_cast<float>(std::uint32_t(roundToBf16(v)) << 16));
    t.nan += std::isnan(v);
    const std::uint16_t want = roundToBf16(v);
    if (low[i] != want) {
      ADD_FAILURE() << where << " element " << i << ": FP32 result 0x" << std::hex << u
                    << " rounds to 0x" << want << ", the kernel wrote 0x" << low[i];
      return false;
    }
  }
  return true;
}

TEST(MatmulBf16Dst, TheKernelWritesTheBitsOfTheFp32ResultRoundedToNearestEven) {
  if (!haveTwins())
    GTEST_SKIP() << "no native BF16 kernel on this CPU (" << kernels::bf16Support().label
                 << "): every BF16 product is rounded after the FP32 result";
  // The MLP benchmark's products (forward, dX, dW of 784-1024-1024-10 at
  // batch 128), odd sizes, and long reductions oneDNN splits over K.
  const std::vector<MatmulShape> shapes = {
      {128, 1024, 784},           {128, 1024, 1024},          {128, 10, 1024},
      {128, 784, 1024, Trans::No, Trans::Yes},  {128, 1024, 10, Trans::No, Trans::Yes},
      {784, 1024, 128, Trans::Yes, Trans::No},  {1024, 10, 128, Trans::Yes, Trans::No},
      {1, 1, 1},                  {3, 5, 7},                  {17, 33, 65, Trans::Yes, Trans::Yes},
      {8, 8, 8192},               {2, 3, 20000},              {64, 48, 4096, Trans::No, Trans::Yes},
      {255, 129, 300, Trans::Yes, Trans::No}};
  std::mt19937 rng(2026);
  Tally tally;
  int compared = 0;
  for (const auto& s : shapes) {
    const Matmul fp32Dst(s, DType::BF16, DType::F32, false, MatmulPath::Native);
    auto twin = fp32Dst.roundingToBf16();
    ASSERT_TRUE(twin.has_value()) << "no twin for " << s.m << "x" << s.n << "x" << s.k << " ("
                                  << fp32Dst.implementation() << ")";
    EXPECT_TRUE(twin->roundsInKernel());
    EXPECT_EQ(twin->dst(), DType::BF16);
    EXPECT_EQ(twin->implementation(), fp32Dst.implementation());
    for (const auto& kind : kinds()) {
      const auto srcRows = s.transSrc == Trans::No ? s.m : s.k;
      const auto srcCols = s.transSrc == Trans::No ? s.k : s.m;
      const auto wRows = s.transWeights == Trans::No ? s.k : s.n;
      const auto wCols = s.transWeights == Trans::No ? s.n : s.k;
      const Tensor a = operand(srcRows, srcCols, kind, 0, rng);
      const Tensor b = operand(wRows, wCols, kind, 1, rng);
      Tensor wide(DType::F32, s.m, s.n), low(DType::BF16, s.m, s.n);
      Matmul(s, DType::BF16, DType::F32, false, MatmulPath::Native).execute(a, b, wide);
      twin->execute(a, b, low);
      const std::string where = std::string(kind.name) + " " + std::to_string(s.m) + "x" +
                                std::to_string(s.n) + "x" + std::to_string(s.k);
      ASSERT_TRUE(sameBits(wide, low, where, tally));
      ++compared;
    }
  }
  std::printf("%d products, %lld values: %lld ties, %lld FP32 subnormals, %lld rounded to "
              "infinity, %lld NaN; all bits equal\n",
              compared, static_cast<long long>(tally.values), static_cast<long long>(tally.ties),
              static_cast<long long>(tally.subnormal), static_cast<long long>(tally.toInfinity),
              static_cast<long long>(tally.nan));
  // Ties, the case where rounding rules differ most often, did occur.
  EXPECT_GT(tally.ties, 1000);
}

// The forward product with its bias: the kernel adds the FP32 bias to the
// FP32 result, then rounds once, as a separate FP32 bias add and rounding do.
TEST(MatmulBf16Dst, WithABiasTheKernelWritesTheFp32SumRounded) {
  if (!haveTwins())
    GTEST_SKIP() << "no native BF16 kernel on this CPU (" << kernels::bf16Support().label << ")";
  const std::vector<MatmulShape> shapes = {{128, 1024, 784}, {128, 1024, 1024}, {128, 10, 1024},
                                           {1, 1, 1},        {3, 5, 7},         {8, 8, 8192},
                                           {2, 3, 20000},    {255, 129, 300},   {17, 33, 65, Trans::Yes, Trans::Yes}};
  std::mt19937 rng(77);
  Tally tally;
  for (const auto& s : shapes) {
    const Matmul fp32Dst(s, DType::BF16, DType::F32, false, MatmulPath::Native);
    auto twin = fp32Dst.roundingToBf16(true);
    ASSERT_TRUE(twin.has_value()) << s.m << "x" << s.n << "x" << s.k;
    for (const auto& kind : kinds()) {
      const auto srcRows = s.transSrc == Trans::No ? s.m : s.k;
      const auto srcCols = s.transSrc == Trans::No ? s.k : s.m;
      const auto wRows = s.transWeights == Trans::No ? s.k : s.n;
      const auto wCols = s.transWeights == Trans::No ? s.n : s.k;
      const Tensor a = operand(srcRows, srcCols, kind, 0, rng);
      const Tensor b = operand(wRows, wCols, kind, 1, rng);
      // Bias values of the same kind, FP32 (not only BF16 values) for the "wide" kind.
      Tensor bias(DType::F32, 1, s.n);
      std::normal_distribution<float> n;
      for (float& v : bias.f32())
        v = std::string(kind.name) == "wide" ? n(rng) : kind.draw(rng, 0);
      Tensor wide(DType::F32, s.m, s.n), low(DType::BF16, s.m, s.n);
      Matmul(s, DType::BF16, DType::F32, false, MatmulPath::Native).execute(a, b, wide);
      for (std::int64_t i = 0; i < s.m; ++i)
        for (std::int64_t j = 0; j < s.n; ++j)
          wide.f32()[std::size_t(i * s.n + j)] += bias.f32()[std::size_t(j)];
      twin->execute(a, b, bias, low);
      ASSERT_TRUE(sameBits(wide, low,
                           std::string(kind.name) + " + bias " + std::to_string(s.m) + "x" +
                               std::to_string(s.n) + "x" + std::to_string(s.k),
                           tally));
    }
  }
  std::printf("%lld values: %lld ties, %lld FP32 subnormals, %lld NaN; all bits equal\n",
              static_cast<long long>(tally.values), static_cast<long long>(tally.ties),
              static_cast<long long>(tally.subnormal), static_cast<long long>(tally.nan));
  EXPECT_GT(tally.ties, 300);
  // A bias Matmul wants its bias, and the plain one refuses one.
  const MatmulShape s{4, 4, 4};
  auto twin = Matmul(s, DType::BF16, DType::F32, false, MatmulPath::Native).roundingToBf16(true);
  Tensor a(DType::BF16, 4, 4), b(DType::BF16, 4, 4), d(DType::BF16, 4, 4), bias(DType::F32, 1, 4);
  EXPECT_THROW(twin->execute(a, b, d), std::invalid_argument);
  EXPECT_THROW(Matmul(s, DType::BF16, DType::F32, false, MatmulPath::Native).execute(a, b, bias, d),
               std::invalid_argument);
}

TEST(MatmulBf16Dst, OverflowInfinitiesAndNaNsComeOutAsTheRoundedFp32ResultSays) {
  if (!haveTwins())
    GTEST_SKIP() << "no native BF16 kernel on this CPU (" << kernels::bf16Support().label << ")";
  const MatmulShape s{16, 32, 64};
  Tensor a(DType::BF16, s.m, s.k), b(DType::BF16, s.k, s.n);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> pick(0, 9);
  // Mostly ones; some +-inf and NaN: rows with inf*0, inf-inf, NaN.
  const std::uint16_t specials[] = {0x7F80, 0xFF80, 0x7FC0, 0x0000};
  for (auto& v : a.u16())
    v = pick(rng) == 0 ? specials[pick(rng) % 4] : 0x3F80;
  for (auto& v : b.u16())
    v = pick(rng) == 0 ? 0x0000 : 0x3F80;
  // Rows 0..3 x columns 0..3: one product 1.4140625 * 2^64 x 1.4140625 * 2^63
  // = 1.99954... * 2^127, finite in FP32 but past BF16's largest finite plus
  // half an ulp, so it rounds to infinity.
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < s.k; ++k)
      a.u16()[std::size_t(i * s.k + k)] = k == 0 ? 0x5FB5 : 0x0000;
  for (int j = 0; j < 4; ++j)
    b.u16()[std::size_t(j)] = 0x5F35;
  const Matmul fp32Dst(s, DType::BF16, DType::F32, false, MatmulPath::Native);
  auto twin = fp32Dst.roundingToBf16();
  ASSERT_TRUE(twin.has_value());
  Tensor wide(DType::F32, s.m, s.n), low(DType::BF16, s.m, s.n);
  Matmul(s, DType::BF16, DType::F32, false, MatmulPath::Native).execute(a, b, wide);
  twin->execute(a, b, low);
  Tally t;
  EXPECT_TRUE(sameBits(wide, low, "specials", t));
  EXPECT_GT(t.nan, 0);
  EXPECT_EQ(t.toInfinity, 16);
}

TEST(MatmulBf16Dst, NoTwinWhereTheBitsCouldDiffer) {
  const MatmulShape s{32, 48, 64};
  // Accumulating into dst, FP32 compute (Mantissa rounds), FP16 and FP32
  // inputs, a dst that is already 16-bit: no twin.
  EXPECT_FALSE(Matmul(s, DType::BF16, DType::F32, true, MatmulPath::Native).roundingToBf16());
  EXPECT_FALSE(Matmul(s, DType::BF16, DType::F32, false, MatmulPath::Fp32Compute).roundingToBf16());
  EXPECT_FALSE(Matmul(s, DType::F16, DType::F32, false, MatmulPath::Native).roundingToBf16());
  EXPECT_FALSE(Matmul(s, DType::F32, DType::F32, false, MatmulPath::Native).roundingToBf16());
  EXPECT_FALSE(Matmul(s, DType::BF16, DType::BF16, false, MatmulPath::Native).roundingToBf16());
  // Without BF16 arithmetic (oneDNN emulating it, or none) there is none either.
  const bool twin = Matmul(s, DType::BF16, DType::F32, false, MatmulPath::Native).roundingToBf16().has_value();
  EXPECT_EQ(twin, kernels::bf16Support().native()) << kernels::bf16Support().label;
}

// The MLP in bf16-mixed: pre (bias included), dW and dX are what the
// explicit route gives (FP32 product of the same BF16 operands, the bias
// added in FP32, then rounded), on a step that lets the kernel round and on
// one that counts underflow.
TEST(MatmulBf16Dst, MlpActivationsAndGradientsAreTheFp32ProductsRounded) {
  if (!haveTwins())
    GTEST_SKIP() << "no native BF16 kernel on this CPU (" << kernels::bf16Support().label << ")";
  const auto& recipe = amp::recipeByName("bf16-mixed");
  const int batch = 32;
  model::Mlp m(model::parseMlpSpec("mlp:64-96-80-10"), batch, recipe);
  m.initialize(5);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
  for (float& v : m.inputs())
    v = pixel(rng);
  for (int i = 0; i < batch; ++i)
    m.labels()[std::size_t(i)] = i % 10;
  for (const auto& u : m.matmulUses())
    EXPECT_NE(u.result.find("rounded by the kernel"), std::string::npos)
        << u.product << " " << u.result;

  for (const bool countUnderflow : {false, true}) {
    m.setMeasureUnderflow(countUnderflow);
    model::OpTimes times;
    m.forward(times);
    m.backward(1.0f, false, times);
    for (int l = 0; l < m.layers(); ++l) {
      const auto& a = m.acts()[std::size_t(l)];
      const int in = m.spec().widths[std::size_t(l)], out = m.spec().widths[std::size_t(l) + 1];
      // pre = round(in . W + b): the FP32 product, the bias added in FP32, one rounding.
      Tensor pre(DType::F32, batch, out);
      Matmul({batch, out, in}, DType::BF16, DType::F32, false, MatmulPath::Native)
          .execute(a.in, m.params()[std::size_t(l)].wLow, pre);
      for (std::size_t i = 0; i < pre.f32().size(); ++i) {
        const float sum = pre.f32()[i] + m.params()[std::size_t(l)].b.f32()[i % std::size_t(out)];
        ASSERT_EQ(std::bit_cast<std::uint32_t>(a.pre.f32()[i]), std::uint32_t(roundToBf16(sum)) << 16)
            << "layer " << l << " pre[" << i << "]";
      }
      Tensor dW(DType::F32, in, out);
      Matmul({in, out, batch, Trans::Yes, Trans::No}, DType::BF16, DType::F32, false,
             MatmulPath::Native)
          .execute(a.in, a.dpreLow, dW);
      for (std::size_t i = 0; i < dW.f32().size(); ++i)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(m.grads()[std::size_t(l)].w.f32()[i]),
                  std::uint32_t(roundToBf16(dW.f32()[i])) << 16)
            << "layer " << l << " dW[" << i << "], counting underflow " << countUnderflow;
      if (l == 0)
        continue;
      Tensor dX(DType::F32, batch, in);
      Matmul({batch, in, out, Trans::No, Trans::Yes}, DType::BF16, DType::F32, false,
             MatmulPath::Native)
          .execute(a.dpreLow, m.params()[std::size_t(l)].wLow, dX);
      for (std::size_t i = 0; i < dX.f32().size(); ++i)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(a.dIn.f32()[i]),
                  std::uint32_t(roundToBf16(dX.f32()[i])) << 16)
            << "layer " << l << " dX[" << i << "]";
    }
  }
}

} // namespace
