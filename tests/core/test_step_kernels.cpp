// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The training step's elementwise, conversion, norm and finite-check loops,
// spread over threads and built for AVX-512/AVX2/baseline, against plain
// scalar loops written out here: every bit equal, on tensors large enough to
// be split between threads and with a tail that is not a whole vector. The
// casts are checked on NaN payloads, infinities, subnormals, overflow and
// ties, by the rounding rules written from the bit layouts.
#include <mantissa/amp/loss_scaler.h>
#include <mantissa/amp/optimizer.h>
#include <mantissa/amp/recipe.h>
#include <mantissa/data/dataset.h>
#include <mantissa/kernels/elementwise.h>
#include <mantissa/model/mlp.h>
#include <mantissa/nn/activation.h>
#include <mantissa/train/session.h>

#include <gtest/gtest.h>

#include <omp.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace mantissa;

// FP32 -> BF16 bits, nearest-even; FP32 subnormals read as zero (sign kept,
// as VCVTNEPS2BF16); NaN keeps its top half with the quiet bit set.
std::uint16_t bf16Reference(float value) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(value);
  if ((u & 0x7F800000u) == 0)
    u &= 0x80000000u;
  if ((u & 0x7FFFFFFFu) > 0x7F800000u)
    return std::uint16_t((u >> 16) | 0x0040u);
  return std::uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

// FP32 -> FP16 bits, nearest-even, in double arithmetic: the FP16 grid near
// |x| has spacing 2^(e - 10) (e >= -14: subnormals below 2^-14); |x| at or
// past 65520 (halfway to the next power of two after 65504) is inf. NaN keeps
// its top 10 payload bits with the quiet bit set.
std::uint16_t f16Reference(float value) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(value);
  const std::uint16_t sign = std::uint16_t((u >> 16) & 0x8000u);
  if (std::isnan(value))
    return std::uint16_t(sign | 0x7E00u | ((u >> 13) & 0x3FFu));
  const double a = std::fabs(double(value));
  if (a >= 65520.0)
    return std::uint16_t(sign | 0x7C00u);
  if (a == 0.0)
    return sign;
  const int e = std::max(std::ilogb(a), -14);
  const double q = std::ldexp(1.0, e - 10);
  const double n = std::nearbyint(a / q); // default mode: to nearest, ties to even
  const double r = n * q;                 // exact
  if (r == 0.0)
    return sign;
  if (r < 0x1p-14) // subnormal: the count of 2^-24 steps
    return std::uint16_t(sign | std::uint16_t(std::ldexp(r, 24)));
  const int re = std::ilogb(r); // rounding may have carried into the next binade
  const auto frac = std::uint16_t(std::ldexp(r, 10 - re) - 1024.0);
  return std::uint16_t(sign | std::uint16_t((re + 15) << 10) | frac);
}

float widenBf16Reference(std::uint16_t b) {
  return std::bit_cast<float>(std::uint32_t(b) << 16);
}

// FP16 bits -> FP32, exactly (NaN made quiet, payload kept).
float widenF16Reference(std::uint16_t h) {
  const bool negative = (h & 0x8000u) != 0;
  const unsigned exp = (h >> 10) & 0x1Fu, frac = h & 0x3FFu;
  if (exp == 31) {
    if (frac == 0)
      return negative ? -INFINITY : INFINITY;
    return std::bit_cast<float>((negative ? 0x80000000u : 0u) | 0x7FC00000u | (frac << 13));
  }
  const double mag = exp == 0 ? std::ldexp(double(frac), -24)
                              : std::ldexp(double(1024 + frac), int(exp) - 25);
  return float(negative ? -mag : mag);
}

// Values that exercise every rule of the casts, then random ones of all
// magnitudes; n is not a multiple of any vector width.
std::vector<float> hardValues(std::size_t n, unsigned seed) {
  std::vector<float> v;
  const std::uint32_t special[] = {
      0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, // zeros, infinities
      0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0x7FA5A5A5u, 0xFFBFFFFFu, // NaNs, signalling too
      0x00000001u, 0x807FFFFFu, 0x00400000u, 0x00800000u, 0x80800000u, // subnormals, least normals
      0x3F808000u, 0x3F818000u, 0x3F808001u, 0x3F807FFFu, // BF16 ties (even/odd) and neighbours
      0x7F7FFFFFu, 0x7F7F8000u, 0x7F7F7FFFu, 0xFF7FFFFFu, // BF16 overflow to inf or not
      0x3F801000u, 0x3F803000u, 0x3F801001u, // FP16 ties at 1 + 2^-11, 1 + 3 * 2^-11
      0x477FF000u, 0x477FEFFFu, 0x477FE000u, 0xC77FF000u, // FP16 65520 (inf), 65504
      0x33800000u, 0x33000000u, 0x33000001u, 0x33C00000u, 0x387FE000u, // FP16 subnormal edges
  };
  for (std::uint32_t s : special)
    v.push_back(std::bit_cast<float>(s));
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::uint32_t> bits;
  std::uniform_real_distribution<float> logMag(-30.0f, 20.0f);
  while (v.size() < n) {
    if (v.size() % 7 == 0) // any bit pattern, NaNs and subnormals included
      v.push_back(std::bit_cast<float>(bits(rng)));
    else if (v.size() % 7 == 1) // a BF16 tie: low half exactly 0x8000
      v.push_back(std::bit_cast<float>((bits(rng) & 0xFFFF0000u) | 0x8000u));
    else
      v.push_back(std::exp2(logMag(rng)) * (rng() & 1 ? -1.0f : 1.0f));
  }
  return v;
}

Tensor tensorOf(const std::vector<float>& values, std::int64_t cols) {
  Tensor t(DType::F32, std::int64_t(values.size()) / cols, cols);
  std::memcpy(t.data<float>(), values.data(), t.bytes());
  return t;
}

bool multiThreaded() {
  return omp_get_max_threads() > 1;
}

// 3 * 2^15 + 77 values: split between threads, with an odd tail.
constexpr std::int64_t kCols = 1031, kRows = 96;

TEST(StepKernels, ForChunksCoversEachIndexOnceInPieces) {
  for (std::size_t n : {std::size_t{0}, std::size_t{5}, kernels::kParallelMinValues * 2 + 77,
                        kernels::kParallelMinValues * 5 + 1}) {
    std::vector<int> hits(n, 0);
    int pieces = 0;
    kernels::forChunks(n, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i)
        ++hits[i];
#pragma omp atomic
      ++pieces;
      EXPECT_EQ(b % 64, 0u) << b;
    });
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(hits[i], 1) << "n " << n << " index " << i;
    if (n >= 2 * kernels::kParallelMinValues && multiThreaded()) {
      EXPECT_GE(pieces, 2) << "n " << n;
    }
    if (n > 0 && n < 2 * kernels::kParallelMinValues) {
      EXPECT_EQ(pieces, 1) << "n " << n;
    }
  }
}

TEST(StepKernels, Bf16CastsMatchTheRoundingRuleBitForBit) {
  const auto values = hardValues(std::size_t(kRows * kCols), 1);
  const Tensor x = tensorOf(values, kCols);
  Tensor low(DType::BF16, kRows, kCols);
  kernels::convertParallel(x, low);
  for (std::size_t i = 0; i < values.size(); ++i)
    ASSERT_EQ(low.u16()[i], bf16Reference(values[i]))
        << "index " << i << " bits 0x" << std::hex << std::bit_cast<std::uint32_t>(values[i]);
  // Widening: every BF16 pattern's exact value, NaN payloads included.
  Tensor back(DType::F32, kRows, kCols);
  for (std::size_t i = 0; i < values.size(); ++i)
    low.u16()[i] = std::uint16_t(i * 40503u); // all 65536 patterns, scrambled
  kernels::convertParallel(low, back);
  for (std::size_t i = 0; i < values.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(back.f32()[i]),
              std::bit_cast<std::uint32_t>(widenBf16Reference(low.u16()[i])))
        << "pattern 0x" << std::hex << low.u16()[i];
  // In place through BF16 and back.
  std::vector<float> rounded = values;
  kernels::roundToParallel(DType::BF16, rounded);
  for (std::size_t i = 0; i < values.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(rounded[i]),
              std::uint32_t(bf16Reference(values[i])) << 16)
        << "index " << i;
  // F32: unchanged, bit for bit.
  std::vector<float> same = values;
  kernels::roundToParallel(DType::F32, same);
  EXPECT_EQ(0, std::memcmp(same.data(), values.data(), 4 * values.size()));
}

TEST(StepKernels, F16CastsMatchTheRoundingRuleBitForBit) {
  const auto values = hardValues(std::size_t(kRows * kCols), 2);
  const Tensor x = tensorOf(values, kCols);
  Tensor low(DType::F16, kRows, kCols);
  kernels::convertParallel(x, low);
  for (std::size_t i = 0; i < values.size(); ++i)
    ASSERT_EQ(low.u16()[i], f16Reference(values[i]))
        << "index " << i << " bits 0x" << std::hex << std::bit_cast<std::uint32_t>(values[i]);
  Tensor back(DType::F32, kRows, kCols);
  for (std::size_t i = 0; i < values.size(); ++i)
    low.u16()[i] = std::uint16_t(i * 40503u);
  kernels::convertParallel(low, back);
  for (std::size_t i = 0; i < values.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(back.f32()[i]),
              std::bit_cast<std::uint32_t>(widenF16Reference(low.u16()[i])))
        << "pattern 0x" << std::hex << low.u16()[i];
  std::vector<float> rounded = values;
  kernels::roundToParallel(DType::F16, rounded);
  for (std::size_t i = 0; i < values.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(rounded[i]),
              std::bit_cast<std::uint32_t>(widenF16Reference(f16Reference(values[i]))))
        << "index " << i;
}

TEST(StepKernels, ConvertParallelRefusesMismatchedShapes) {
  Tensor a(DType::F32, 4, 8);
  Tensor b(DType::BF16, 8, 4);
  try {
    kernels::convertParallel(a, b);
    FAIL() << "a shape mismatch must throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("f32[4, 8]"), std::string::npos) << e.what();
  }
}

// Column sums in row order in FP32, written out: the split by columns must
// not change a single bit, with and without accumulation.
TEST(StepKernels, BiasGradientIsTheRowOrderColumnSumBitForBit) {
  std::mt19937 rng(4);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> values(std::size_t(kRows * kCols));
  for (std::size_t i = 0; i < values.size(); ++i) // magnitudes far apart: order matters
    values[i] = normal(rng) * std::exp2(float(int(i % 23) - 11));
  const Tensor dY = tensorOf(values, kCols);
  Tensor db(DType::F32, 1, kCols);
  std::vector<float> want(std::size_t(kCols), 0.0f);
  for (std::int64_t r = 0; r < kRows; ++r)
    for (std::int64_t c = 0; c < kCols; ++c)
      want[std::size_t(c)] += values[std::size_t(r * kCols + c)];
  kernels::biasGradient(dY, db);
  for (std::int64_t c = 0; c < kCols; ++c)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(db.f32()[std::size_t(c)]),
              std::bit_cast<std::uint32_t>(want[std::size_t(c)]))
        << "column " << c;
  for (std::int64_t r = 0; r < kRows; ++r)
    for (std::int64_t c = 0; c < kCols; ++c)
      want[std::size_t(c)] += values[std::size_t(r * kCols + c)];
  kernels::biasGradient(dY, db, /*accumulate=*/true);
  for (std::int64_t c = 0; c < kCols; ++c)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(db.f32()[std::size_t(c)]),
              std::bit_cast<std::uint32_t>(want[std::size_t(c)]))
        << "column " << c << " accumulated";
}

// ReLU: x > 0 ? x : 0 and x > 0 ? dy : 0, so NaN and -0 give +0.
TEST(StepKernels, ReluAndItsGradientMatchTheScalarRuleBitForBit) {
  const auto x = hardValues(std::size_t(kRows * kCols), 5);
  const auto dy = hardValues(std::size_t(kRows * kCols), 6);
  std::vector<float> y(x.size()), dx(x.size());
  nn::activationForward(nn::Activation::Relu, x, y);
  nn::activationBackward(nn::Activation::Relu, x, y, dy, dx);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float fy = x[i] > 0.0f ? x[i] : 0.0f;
    const float fdx = x[i] > 0.0f ? dy[i] : 0.0f;
    ASSERT_EQ(std::bit_cast<std::uint32_t>(y[i]), std::bit_cast<std::uint32_t>(fy)) << i;
    ASSERT_EQ(std::bit_cast<std::uint32_t>(dx[i]), std::bit_cast<std::uint32_t>(fdx)) << i;
  }
}

// The norm: per slot, eight partial sums in double (value i into sum i mod 8,
// in index order), combined as (0+4)+(2+6) + (1+5)+(3+7); the slots added in
// order, then the square root. Large slots are shared between threads.
TEST(StepKernels, GlobalGradNormFollowsTheDocumentedOrderBitForBit) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> logMag(-40.0f, 10.0f);
  const std::size_t sizes[] = {802816, 1024, 1048576 + 3, 1024, 10240, 10, 77};
  std::vector<std::vector<float>> grads, values;
  std::vector<amp::Slot> slots;
  for (std::size_t n : sizes) {
    std::vector<float> g(n);
    for (float& v : g)
      v = std::exp2(logMag(rng)) * (rng() & 1 ? -1.0f : 1.0f);
    grads.push_back(std::move(g));
    values.emplace_back(n, 0.0f);
  }
  for (std::size_t s = 0; s < grads.size(); ++s)
    slots.push_back({"s" + std::to_string(s), values[s], grads[s]});
  double total = 0.0;
  for (const auto& g : grads) {
    std::array<double, 8> acc{};
    for (std::size_t i = 0; i < g.size(); ++i)
      acc[i % 8] += double(g[i]) * double(g[i]);
    total += ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
  }
  const double want = std::sqrt(total);
  const double got = amp::globalGradNorm(slots);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(want))
      << got << " vs " << want;
}

TEST(StepKernels, UnscaleAndCheckScalesEachValueAndFindsAnyNonFinite) {
  const auto base = hardValues(std::size_t(kRows * kCols), 8);
  std::vector<float> finite;
  for (float v : base)
    if (std::isfinite(v))
      finite.push_back(v);
  const float inv = 0x1p-13f * 1.5f;
  std::vector<float> g = finite;
  EXPECT_FALSE(amp::LossScaler::unscaleAndCheck(g, inv));
  for (std::size_t i = 0; i < g.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(g[i]), std::bit_cast<std::uint32_t>(finite[i] * inv))
        << i;
  // One inf or NaN anywhere (the last piece too) is found, scaled or not.
  for (const std::size_t at : {std::size_t{0}, finite.size() / 2 + 1, finite.size() - 1})
    for (const float bad : {INFINITY, -INFINITY, NAN})
      for (const float scale : {1.0f, inv}) {
        std::vector<float> h = finite;
        h[at] = bad;
        EXPECT_TRUE(amp::LossScaler::unscaleAndCheck(h, scale)) << "at " << at << " " << bad;
      }
}

// The MLP's fused passes on the benchmark's shapes (split between threads):
// each stored tensor equals the scalar rules applied to the tensor it comes
// from: post = rne(relu(pre)), the next product's input = bf16(post),
// dpre = rne(relu'(pre) dIn), its BF16 copy, db = the row-order column sums
// of dpre, and the working weights = bf16(master) after a refresh.
TEST(StepKernels, MlpFusedPassesEqualTheScalarRulesOnTheBenchmarkShapes) {
  const auto& recipe = amp::recipeByName("bf16-mixed");
  const int batch = 128;
  model::Mlp m(model::parseMlpSpec("mlp:784-1024-1024-10"), batch, recipe);
  m.initialize(3);
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
  for (float& v : m.inputs())
    v = pixel(rng);
  for (int i = 0; i < batch; ++i)
    m.labels()[std::size_t(i)] = i % 10;
  model::OpTimes times;
  m.forward(times);
  m.backward(1.0f, false, times);
  const int n = m.layers();
  for (std::size_t i = 0; i < m.inputs().size(); ++i)
    ASSERT_EQ(m.acts()[0].in.u16()[i], bf16Reference(m.inputs()[i])) << "x[" << i << "]";
  for (int l = 0; l < n; ++l) {
    const auto& a = m.acts()[std::size_t(l)];
    for (std::size_t i = 0; i < a.pre.f32().size(); ++i) // BF16 values, as rounded
      ASSERT_EQ(std::bit_cast<std::uint32_t>(a.pre.f32()[i]) & 0xFFFFu, 0u) << l << " pre " << i;
    if (l + 1 < n) {
      const auto& next = m.acts()[std::size_t(l) + 1];
      for (std::size_t i = 0; i < a.post.f32().size(); ++i) {
        const float p = a.pre.f32()[i];
        const float post = widenBf16Reference(bf16Reference(p > 0.0f ? p : 0.0f));
        ASSERT_EQ(std::bit_cast<std::uint32_t>(a.post.f32()[i]), std::bit_cast<std::uint32_t>(post))
            << "layer " << l << " post[" << i << "]";
        ASSERT_EQ(next.in.u16()[i], bf16Reference(post)) << "layer " << l + 1 << " in[" << i << "]";
        const float g = p > 0.0f ? next.dIn.f32()[i] : 0.0f;
        const float dpre = widenBf16Reference(bf16Reference(g));
        ASSERT_EQ(std::bit_cast<std::uint32_t>(a.dpre.f32()[i]), std::bit_cast<std::uint32_t>(dpre))
            << "layer " << l << " dpre[" << i << "]";
      }
    }
    for (std::size_t i = 0; i < a.dpre.f32().size(); ++i)
      ASSERT_EQ(a.dpreLow.u16()[i], bf16Reference(a.dpre.f32()[i])) << "layer " << l << " dpreLow";
    const int out = m.spec().widths[std::size_t(l) + 1];
    std::vector<float> db(std::size_t(out), 0.0f);
    for (int r = 0; r < batch; ++r)
      for (int c = 0; c < out; ++c)
        db[std::size_t(c)] += a.dpre.f32()[std::size_t(r * out + c)];
    for (int c = 0; c < out; ++c) // db rounded to BF16 (the gradient dtype)
      ASSERT_EQ(std::bit_cast<std::uint32_t>(m.grads()[std::size_t(l)].b.f32()[std::size_t(c)]),
                std::uint32_t(bf16Reference(db[std::size_t(c)])) << 16)
          << "layer " << l << " db[" << c << "]";
  }
  // New master weights (any values), then the working copies.
  std::uniform_real_distribution<float> w(-0.1f, 0.1f);
  for (auto& p : m.params())
    for (float& v : p.w.f32())
      v = w(rng);
  m.refreshWorkingWeights(times);
  for (const auto& p : m.params())
    for (std::size_t i = 0; i < p.w.f32().size(); ++i)
      ASSERT_EQ(p.wLow.u16()[i], bf16Reference(p.w.f32()[i])) << "wLow[" << i << "]";
}

// Through a training run: after optimizer steps (telemetry steps among them,
// where the optimizer's blocks are observed) every layer's working copy is
// its updated weights cast to BF16, for the MLP and the CNN.
TEST(StepKernels, WorkingWeightsAfterEachStepAreTheUpdatedWeightsCast) {
  struct Case {
    const char* data;
    const char* model;
    int batch;
  };
  for (const Case k : {Case{"mnist", "mlp:784-256-10", 64}, Case{"fashion", "cnn:lenet", 16}}) {
    train::RunConfig c;
    c.data = k.data;
    c.model = k.model;
    c.recipe = "bf16-mixed";
    c.batch = k.batch;
    c.steps = 4;
    c.telemetryEvery = 2;
    train::Session s(c, std::make_shared<const data::TrainTest>(data::loadDataSpec(k.data)));
    for (int step = 0; step < 3; ++step) {
      s.step();
      for (int l = 0; l < s.model().layers(); ++l) {
        const auto& p = s.model().params()[std::size_t(l)];
        ASSERT_EQ(p.wLow.size(), p.w.size()) << k.model;
        for (std::size_t i = 0; i < p.w.f32().size(); ++i)
          ASSERT_EQ(p.wLow.u16()[i], bf16Reference(p.w.f32()[i]))
              << k.model << " step " << step << " layer " << l << " [" << i << "]";
      }
    }
  }
}

} // namespace
