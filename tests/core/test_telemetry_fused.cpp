// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Telemetry taken inside the optimizer's loop: the collector's block path
// (beginParameters / observeParameterBlock / endParameters) against its
// separate path (observe, observeUpdate) and an ilogb reference on
// adversarial tensors cut into uneven blocks from two workers; the AVX2 and
// portable kernels; and a training session's frame against the tensors
// themselves, in the recipes where the optimizer reads the gradients as
// stored and where it does not (loss scaling, clipping).
#include "ilogb_reference.h"

#include <mantissa/telemetry/collector.h>
#include <mantissa/train/session.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace {

// The sum of the values' bit patterns, the plain loop (TensorTelemetry::bits).
std::uint64_t bitSumReference(std::span<const float> v) {
  std::uint64_t sum = 0;
  for (const float x : v)
    sum += std::bit_cast<std::uint32_t>(x);
  return sum;
}


namespace tl = mantissa::telemetry;
using tl::testing::ilogbReference;
namespace train = mantissa::train;
using mantissa::DType;
using tl::TensorClass;

// The spec boundaries (2^-149, 2^-133, 2^-126, 2^-25, 2^-24, 2^-14, 65504,
// 448, 57344, ...) and their neighbours, both signs, specials, then
// gradient-like values over 60 binades with exact zeros.
std::vector<float> adversarial(std::size_t n, unsigned seed) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> base = {0.0f,
                             std::ldexp(1.0f, -149),
                             std::ldexp(3.0f, -149),
                             std::ldexp(1.0f, -133),
                             std::ldexp(1.0f, -127),
                             std::ldexp(1.0f, -126),
                             std::ldexp(1.0f, -25),
                             std::ldexp(1.0f, -24),
                             std::ldexp(1.0f, -17),
                             std::ldexp(1.0f, -14) - std::ldexp(1.0f, -25),
                             std::ldexp(1.0f, -14) - std::ldexp(1.0f, -17),
                             std::ldexp(1.0f, -14),
                             std::ldexp(1.0f, -10),
                             std::ldexp(1.0f, -6) - std::ldexp(1.0f, -10),
                             448.0f,
                             464.0f,
                             57344.0f,
                             61440.0f,
                             65504.0f,
                             65520.0f,
                             std::numeric_limits<float>::max(),
                             inf,
                             std::numeric_limits<float>::quiet_NaN(),
                             std::bit_cast<float>(0x7f800001u)};
  std::vector<float> v;
  for (float b : base)
    for (float x : {b, std::nextafter(b, 0.0f), std::nextafter(b, inf)}) {
      v.push_back(x);
      v.push_back(-x);
    }
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> logMag(-45.0f, 15.0f);
  while (v.size() < n)
    v.push_back(rng() % 16 == 0 ? 0.0f : std::exp2(logMag(rng)) * ((rng() & 1) ? 1.0f : -1.0f));
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

struct Tensors {
  std::vector<float> w, g, u;
};

Tensors adversarialTensors(std::size_t n) {
  Tensors t{adversarial(n, 1), adversarial(n, 2), adversarial(n, 3)};
  // Updates next to the weights they may be swamped by: half an FP32 ULP
  // (a tie), just under and just over.
  for (std::size_t i = 0; i < n; i += 7) {
    const float w = t.w[i];
    if (!std::isfinite(w) || w == 0.0f)
      continue;
    const float ulp =
        std::nextafter(std::fabs(w), std::numeric_limits<float>::infinity()) - std::fabs(w);
    const float f[] = {0.5f, 0.4999f, 0.5001f};
    t.u[i] = f[i % 3] * ulp * ((i & 8) ? 1.0f : -1.0f);
  }
  return t;
}

// The block path: uneven blocks, alternately from worker 0 and worker 1.
std::shared_ptr<const tl::TelemetryFrame> blockPath(const Tensors& t, DType working,
                                                    bool withGrads) {
  tl::TelemetryCollector c(1);
  c.beginParameters(3, working, true, withGrads);
  std::mt19937 rng(4);
  int worker = 0;
  for (std::size_t off = 0; off < t.w.size();) {
    const std::size_t n = std::min<std::size_t>(1 + rng() % 5000, t.w.size() - off);
    const std::span<const float> w(t.w.data() + off, n), g(t.g.data() + off, n),
        u(t.u.data() + off, n);
    c.observeParameterBlock(worker, w, withGrads ? g : std::span<const float>{}, u);
    worker = 1 - worker;
    off += n;
  }
  c.endParameters();
  return c.finish(5);
}

std::shared_ptr<const tl::TelemetryFrame> separatePath(const Tensors& t, DType working,
                                                       bool withGrads) {
  tl::TelemetryCollector c(1);
  c.observe(3, TensorClass::Weights, t.w);
  if (withGrads)
    c.observe(3, TensorClass::WeightGrads, t.g);
  c.observeUpdate(3, t.w, t.u, working);
  return c.finish(5);
}

void expectSameEntries(const tl::TelemetryFrame& a, const tl::TelemetryFrame& b,
                       const std::string& what) {
  ASSERT_EQ(a.tensors.size(), b.tensors.size()) << what;
  for (const auto& t : b.tensors) {
    const tl::TensorTelemetry* same = a.find(t.layer, t.cls, t.scaled);
    ASSERT_NE(same, nullptr) << what << " " << tl::tensorClassName(t.cls);
    EXPECT_EQ(*same, t) << what << " " << tl::tensorClassName(t.cls);
  }
  ASSERT_EQ(a.swamped.size(), b.swamped.size()) << what;
  for (std::size_t l = 0; l < a.swamped.size(); ++l) {
    if (std::isnan(b.swamped[l]))
      EXPECT_TRUE(std::isnan(a.swamped[l])) << what << " layer " << l;
    else
      EXPECT_EQ(a.swamped[l], b.swamped[l]) << what << " layer " << l;
  }
}

} // namespace

TEST(FusedTelemetry, BlocksFromTwoWorkersEqualTheSeparatePath) {
  const Tensors t = adversarialTensors(70000);
  for (DType working : {DType::F32, DType::BF16, DType::F16}) {
    for (bool grads : {true, false}) {
      const auto fused = blockPath(t, working, grads);
      const auto separate = separatePath(t, working, grads);
      expectSameEntries(*fused, *separate,
                        std::string(mantissa::dtypeName(working)) + (grads ? " grads" : ""));
      EXPECT_EQ(fused->tensors.size(), grads ? 3u : 2u);
      // And against the ilogb reference, not only against the other path.
      EXPECT_EQ(fused->find(3, TensorClass::Weights)->hist, ilogbReference(t.w));
      EXPECT_EQ(fused->find(3, TensorClass::Updates)->hist, ilogbReference(t.u));
      EXPECT_EQ(fused->find(3, TensorClass::Weights)->bits, bitSumReference(t.w));
      EXPECT_EQ(fused->find(3, TensorClass::Updates)->bits, bitSumReference(t.u));
      if (grads) {
        EXPECT_EQ(fused->find(3, TensorClass::WeightGrads)->bits, bitSumReference(t.g));
        EXPECT_EQ(fused->find(3, TensorClass::WeightGrads)->hist, ilogbReference(t.g));
        EXPECT_EQ(fused->find(3, TensorClass::WeightGrads)->fractions, tl::castFractions(t.g));
      }
      EXPECT_EQ(fused->find(3, TensorClass::Weights)->fractions, tl::castFractions(t.w));
      EXPECT_EQ(fused->swamped[3], tl::swampedFraction(t.w, t.u, working));
    }
  }
}

// The optimizer's own count of unchanged FP32 weights replaces the per-block
// swamping check only when the layer's weights (observed before) are all
// finite; with an inf among them the blocks are checked, whatever is passed.
// As Optimizer::applyUpdate counts in FP32: non-zero updates that leave w + u == w.
std::uint64_t unchangedCount(const Tensors& t) {
  std::uint64_t unchanged = 0;
  for (std::size_t i = 0; i < t.w.size(); ++i)
    unchanged += (t.u[i] != 0.0f && t.w[i] + t.u[i] == t.w[i]) ? 1 : 0;
  return unchanged;
}

// The optimizer's unchanged count stands in for the swamped count, less the
// lanes of inf or NaN weights (which it takes in), found block by block.
TEST(FusedTelemetry, UnchangedCountStandsInForSwampingLessNonFiniteWeights) {
  Tensors t = adversarialTensors(20000);
  for (float& w : t.w) // finite weights first
    if (!std::isfinite(w))
      w = 1.0f;
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Non-finite weights beside every kind of update: finite, zero, +-inf, NaN.
  const std::vector<std::pair<std::size_t, float>> spoilers = {
      {123, inf}, {124, -inf}, {12345, nan}, {12346, inf}, {19999, -inf}};
  const float kinds[] = {1e-3f, 0.0f, inf, -inf, nan};
  for (bool spoiled : {false, true}) {
    if (spoiled)
      for (std::size_t k = 0; k < spoilers.size(); ++k) {
        t.w[spoilers[k].first] = spoilers[k].second;
        t.u[spoilers[k].first] = kinds[k];
      }
    const std::uint64_t unchanged = unchangedCount(t);
    const double expected = tl::swampedFraction(t.w, t.u, DType::F32);
    // The weights observed before (the Weights entry says whether they are finite).
    {
      tl::TelemetryCollector c(1);
      c.observe(0, TensorClass::Weights, t.w);
      c.beginParameters(0, DType::F32, false, false, true);
      c.observeParameterBlock(0, std::span(t.w).first(9000), {}, std::span(t.u).first(9000));
      c.observeParameterBlock(1, std::span(t.w).subspan(9000), {}, std::span(t.u).subspan(9000));
      c.endParameters(unchanged);
      const auto frame = c.finish(0);
      EXPECT_EQ(frame->swamped[0], expected) << spoiled;
      EXPECT_EQ(frame->find(0, TensorClass::Updates)->hist, ilogbReference(t.u)) << spoiled;
    }
    // The weights counted in the blocks themselves.
    {
      tl::TelemetryCollector c(1);
      c.beginParameters(0, DType::F32, true, false, true);
      for (std::size_t off = 0; off < t.w.size(); off += 4096) {
        const std::size_t n = std::min<std::size_t>(4096, t.w.size() - off);
        c.observeParameterBlock(static_cast<int>(off / 4096 % 2), std::span(t.w).subspan(off, n),
                                {}, std::span(t.u).subspan(off, n));
      }
      c.endParameters(unchanged);
      const auto frame = c.finish(0);
      EXPECT_EQ(frame->swamped[0], expected) << spoiled;
      EXPECT_EQ(frame->find(0, TensorClass::Weights)->hist, ilogbReference(t.w)) << spoiled;
    }
  }
  t.w[123] = 1.0f;
  tl::TelemetryCollector c(1); // promised, then not given
  c.observe(0, TensorClass::Weights, t.w);
  c.beginParameters(0, DType::F32, false, false, true);
  c.observeParameterBlock(0, t.w, {}, t.u);
  EXPECT_THROW(c.endParameters(), std::logic_error);
}

// Part of the weights counted apart (scanInto, on another thread before the
// step), the rest in the blocks: one Weights entry equal to the whole
// tensor's, and the swamping exact wherever the non-finite weights are.
TEST(FusedTelemetry, WeightsCountedApartAndInBlocksMakeOneEntry) {
  Tensors t = adversarialTensors(30000);
  for (std::size_t split :
       {std::size_t{0}, std::size_t{4096}, std::size_t{12288}, std::size_t{30000}}) {
    for (int spoil : {-1, 5, 20000}) { // no non-finite weight, one before or after the split
      Tensors v = t;
      for (float& w : v.w)
        if (!std::isfinite(w))
          w = -2.0f;
      if (spoil >= 0) {
        v.w[static_cast<std::size_t>(spoil)] = std::numeric_limits<float>::infinity();
        v.u[static_cast<std::size_t>(spoil)] = 1.0f;
      }
      tl::TensorScan apart;
      tl::scanInto(std::span(v.w).subspan(split), apart);
      tl::TelemetryCollector c(1);
      c.beginParameters(2, DType::F32, true, false, true);
      c.addWeightCounts(apart);
      for (std::size_t off = 0; off < v.w.size(); off += 4096) {
        const std::size_t n = std::min<std::size_t>(4096, v.w.size() - off);
        c.observeParameterBlock(off < split ? 0 : 1, std::span(v.w).subspan(off, n), {},
                                std::span(v.u).subspan(off, n), off < split);
      }
      c.endParameters(unchangedCount(v));
      const auto frame = c.finish(0);
      const std::string what = "split " + std::to_string(split) + " spoil " + std::to_string(spoil);
      ASSERT_EQ(frame->tensors.size(), 2u) << what;
      const tl::TensorTelemetry* w = frame->find(2, TensorClass::Weights, false);
      ASSERT_NE(w, nullptr) << what;
      EXPECT_EQ(w->hist, ilogbReference(v.w)) << what;
      EXPECT_EQ(w->bits, bitSumReference(v.w)) << what; // counted apart and in blocks
      EXPECT_EQ(w->fractions, tl::castFractions(v.w)) << what;
      EXPECT_EQ(frame->find(2, TensorClass::Updates, false)->hist, ilogbReference(v.u)) << what;
      EXPECT_EQ(frame->swamped[2], tl::swampedFraction(v.w, v.u, DType::F32)) << what;
    }
  }
  tl::TelemetryCollector c(1);
  EXPECT_THROW(c.addWeightCounts({}), std::logic_error); // no layer open
  c.beginParameters(0, DType::F32, false, false);
  EXPECT_THROW(c.addWeightCounts({}), std::logic_error); // no Weights entry to add to
}

// Weights and updates counted apart (Session's background, FP32 working
// precision): the same entries and swamped fraction as the blocks give, the
// swamped count taken from the optimizer's unchanged count; refused beside
// an inf or NaN weight, where that count is not the swamped count.
TEST(FusedTelemetry, WeightsAndUpdatesCountedApartRecordWhatTheBlocksRecord) {
  Tensors v = adversarialTensors(30000);
  for (float& w : v.w)
    if (!std::isfinite(w))
      w = -2.0f;
  tl::TensorScan weights, updates;
  tl::scanInto(v.w, weights);
  tl::scanInto(v.u, updates);
  tl::TelemetryCollector apart(1), blocks(1);
  apart.recordParameters(1, weights, updates, unchangedCount(v));
  blocks.beginParameters(1, DType::F32, true, false, true);
  blocks.observeParameterBlock(0, v.w, {}, v.u);
  blocks.endParameters(unchangedCount(v));
  const auto a = apart.finish(0), b = blocks.finish(0);
  ASSERT_EQ(a->tensors.size(), 2u);
  for (const TensorClass cls : {TensorClass::Weights, TensorClass::Updates}) {
    ASSERT_NE(a->find(1, cls, false), nullptr) << tl::tensorClassName(cls);
    EXPECT_EQ(a->find(1, cls, false)->hist, b->find(1, cls, false)->hist);
    EXPECT_EQ(a->find(1, cls, false)->fractions, b->find(1, cls, false)->fractions);
  }
  EXPECT_EQ(a->find(1, TensorClass::Weights, false)->hist, ilogbReference(v.w));
  EXPECT_EQ(a->find(1, TensorClass::Updates, false)->hist, ilogbReference(v.u));
  ASSERT_EQ(a->swamped.size(), 2u);
  EXPECT_EQ(a->swamped[1], tl::swampedFraction(v.w, v.u, DType::F32));

  v.w[77] = std::numeric_limits<float>::quiet_NaN();
  tl::TensorScan spoiled;
  tl::scanInto(v.w, spoiled);
  tl::TelemetryCollector c(1);
  EXPECT_THROW(c.recordParameters(0, spoiled, updates, unchangedCount(v)), std::invalid_argument);
  c.beginParameters(0, DType::F32, true, false);
  EXPECT_THROW(c.recordParameters(0, weights, updates, 0), std::logic_error);
}

// scanInto counts what observe() counts, and counts of parts add up.
TEST(FusedTelemetry, ScanIntoCountsWhatObserveCounts) {
  const std::vector<float> v = adversarial(50001, 9);
  for (std::size_t cut : {std::size_t{0}, std::size_t{1}, std::size_t{2047}, std::size_t{25000}}) {
    tl::TensorScan scan;
    tl::scanInto(std::span(v).first(cut), scan);
    tl::scanInto(std::span(v).subspan(cut), scan);
    tl::TelemetryCollector direct(1), recorded(1);
    direct.observe(1, TensorClass::Weights, v);
    recorded.record(1, TensorClass::Weights, scan);
    EXPECT_EQ(recorded.finish(0)->tensors[0], direct.finish(0)->tensors[0]) << cut;
  }
}

TEST(FusedTelemetry, PortableKernelsGiveTheSameFrame) {
  const Tensors t = adversarialTensors(40000);
  const auto avx2 = blockPath(t, DType::BF16, true);
  tl::setForcePortableTelemetry(true);
  const auto portable = blockPath(t, DType::BF16, true);
  tl::setForcePortableTelemetry(false);
  expectSameEntries(*portable, *avx2, "portable vs AVX2");
}

TEST(FusedTelemetry, CallsOutOfOrderAndBadBlocksAreErrors) {
  tl::TelemetryCollector c(1);
  const std::vector<float> v = {1.0f, 2.0f};
  EXPECT_THROW(c.observeParameterBlock(0, v, v, v), std::logic_error);
  EXPECT_THROW(c.endParameters(), std::logic_error);
  EXPECT_THROW(c.beginParameters(-1, DType::F32, true, true), std::invalid_argument);
  c.beginParameters(0, DType::F32, true, true);
  EXPECT_THROW(c.beginParameters(1, DType::F32, true, true), std::logic_error);
  EXPECT_THROW(c.observeUpdate(0, v, v, DType::F32), std::logic_error);
  EXPECT_THROW(c.observeParameterBlock(2, v, v, v), std::invalid_argument);
  EXPECT_THROW(c.observeParameterBlock(0, v, std::vector<float>{1.0f}, v), std::invalid_argument);
  c.observeParameterBlock(1, v, v, v);
  c.endParameters();
  const auto frame = c.finish(0);
  EXPECT_EQ(frame->tensors.size(), 3u);
  EXPECT_EQ(frame->find(0, TensorClass::Weights)->hist.total, 2u);
}

// ---- A training session's frame against the tensors themselves ----

namespace {

std::shared_ptr<const mantissa::data::TrainTest> mnist() {
  static const auto data =
      std::make_shared<const mantissa::data::TrainTest>(mantissa::data::loadBuiltin("mnist"));
  return data;
}

// Layer 0 has 100,352 weights: split between two workers.
train::RunConfig config(const std::string& recipe) {
  train::RunConfig c;
  c.model = "mlp:784-128-10";
  c.recipe = recipe;
  c.batch = 32;
  c.steps = 10;
  c.seed = 3;
  c.telemetryEvery = 1;
  return c;
}

std::vector<std::vector<float>> copyWeights(const train::Session& s) {
  std::vector<std::vector<float>> w;
  for (int l = 0; l < s.model().layers(); ++l) {
    const auto v = s.model().params()[l].w.f32();
    w.emplace_back(v.begin(), v.end());
  }
  return w;
}

void expectEntry(const tl::TelemetryFrame& f, int layer, TensorClass cls, bool scaled,
                 const std::vector<float>& values, const std::string& what) {
  const tl::TensorTelemetry* t = f.find(layer, cls, scaled);
  ASSERT_NE(t, nullptr) << what << " layer " << layer << " " << tl::tensorClassName(cls);
  EXPECT_EQ(t->hist, ilogbReference(values))
      << what << " layer " << layer << " " << tl::tensorClassName(cls);
  EXPECT_EQ(t->fractions, tl::castFractions(values))
      << what << " layer " << layer << " " << tl::tensorClassName(cls);
}

} // namespace

// Every step, the entries are those of the tensors. bf16-mixed and fp32
// (FP32 working precision): weights, activations and gradients counted in
// the background during the step, updates after the optimizer, swamping from
// the unchanged count. bf16-pure (BF16 weights): the updates in the
// optimizer's loop, swamping counted block by block. Without gradient
// accumulation activations and gradients are handed over as backward
// produces them; with it, after the last micro-batch (activations and their
// gradients of that micro-batch, the weight gradients summed).
TEST(FusedTelemetry, SessionFrameHoldsTheWeightsBeforeTheUpdateGradientsAsStoredAndUpdates) {
  for (const auto& [recipe, working, accumulation] :
       {std::tuple{"bf16-mixed", DType::F32, 1}, std::tuple{"fp32", DType::F32, 1},
        std::tuple{"bf16-pure", DType::BF16, 1}, std::tuple{"bf16-mixed", DType::F32, 3}}) {
    auto c = config(recipe);
    c.gradAccumulation = accumulation;
    train::Session s(c, mnist());
    for (int step = 0; step < 4; ++step) {
      const auto before = copyWeights(s);
      const auto& r = s.step();
      ASSERT_TRUE(r.telemetry);
      ASSERT_EQ(r.telemetry->tensors.size(), 5u * static_cast<std::size_t>(s.model().layers()));
      // The frame's cost is the step's telemetry time (counts taken apart included).
      EXPECT_GT(r.telemetry->telemetryMs, 0.0) << recipe;
      EXPECT_LE(r.telemetry->telemetryMs, r.times.telemetry) << recipe;
      for (int l = 0; l < s.model().layers(); ++l) {
        // No scaler, no multiplier, no clipping: the gradients are still as stored.
        const auto g = s.model().grads()[l].w.f32();
        const auto u = s.optimizer().lastUpdate(static_cast<std::size_t>(2 * l));
        const auto& w = before[static_cast<std::size_t>(l)];
        expectEntry(*r.telemetry, l, TensorClass::Weights, false, w, recipe);
        expectEntry(*r.telemetry, l, TensorClass::WeightGrads, false, {g.begin(), g.end()}, recipe);
        expectEntry(*r.telemetry, l, TensorClass::Updates, false, {u.begin(), u.end()}, recipe);
        const auto& a = s.model().acts()[static_cast<std::size_t>(l)];
        const auto act = a.post.size() ? a.post.f32() : a.pre.f32();
        const auto dact = a.dpre.f32();
        expectEntry(*r.telemetry, l, TensorClass::Activations, false, {act.begin(), act.end()},
                    recipe);
        expectEntry(*r.telemetry, l, TensorClass::ActivationGrads, false,
                    {dact.begin(), dact.end()}, recipe);
        EXPECT_EQ(r.telemetry->find(l, TensorClass::WeightGrads, true), nullptr);
        EXPECT_EQ(r.telemetry->swamped[static_cast<std::size_t>(l)],
                  tl::swampedFraction(w, u, working))
            << recipe << " layer " << l;
      }
    }
  }
}

TEST(FusedTelemetry, ClippedGradientsAreObservedAsStoredBeforeClipping) {
  // Same seed, same first batch: the unclipped run's gradients after its
  // first step are what backward stored in the clipped run too.
  train::Session plain(config("bf16-mixed"), mnist());
  auto clippedConfig = config("bf16-mixed");
  clippedConfig.clipNorm = 1e-3; // far below the gradient norm: clips
  train::Session clipped(clippedConfig, mnist());
  plain.step();
  const auto& r = clipped.step();
  ASSERT_TRUE(r.telemetry);
  ASSERT_LT(r.clipFactor, 1.0);
  for (int l = 0; l < plain.model().layers(); ++l) {
    const auto g = plain.model().grads()[l].w.f32();
    expectEntry(*r.telemetry, l, TensorClass::WeightGrads, false, {g.begin(), g.end()}, "clipped");
  }
}

TEST(FusedTelemetry, LossScaledRecipesKeepBothGradientViewsAndFusedWeights) {
  train::Session s(config("fp16-mixed"), mnist());
  const auto before = copyWeights(s);
  const auto& r = s.step();
  ASSERT_TRUE(r.telemetry);
  ASSERT_FALSE(r.skipped);
  for (int l = 0; l < s.model().layers(); ++l) {
    expectEntry(*r.telemetry, l, TensorClass::Weights, false, before[static_cast<std::size_t>(l)],
                "fp16-mixed");
    EXPECT_NE(r.telemetry->find(l, TensorClass::WeightGrads, true), nullptr);
    EXPECT_NE(r.telemetry->find(l, TensorClass::WeightGrads, false), nullptr);
    EXPECT_NE(r.telemetry->find(l, TensorClass::Updates, false), nullptr);
  }
}

// Telemetry must not change training: weights and the gradient norm (whose
// sum telemetry shares in some recipes) bit for bit with and without it,
// every recipe, both optimizers, with and without clipping by that norm.
TEST(FusedTelemetry, TrainingIsBitIdenticalWithAndWithoutTelemetry) {
  for (const auto& recipe : mantissa::amp::recipes()) {
    for (const char* optimizer : {"sgd", "adamw"}) {
      for (double clip : {0.0, 0.05}) {
        auto on = config(std::string(recipe.name));
        on.optimizer = optimizer;
        on.weightDecay = 0.01;
        on.clipNorm = clip;
        auto off = on;
        off.telemetryEvery = 0;
        const std::string what =
            std::string(recipe.name) + " " + optimizer + (clip > 0.0 ? " clipped" : "");
        train::Session a(on, mnist()), b(off, mnist());
        bool clipped = false;
        for (int i = 0; i < 3; ++i) {
          const auto& ra = a.step();
          ASSERT_TRUE(ra.telemetry);
          const double normA = ra.gradNorm;
          clipped |= ra.clipFactor < 1.0;
          const auto& rb = b.step();
          EXPECT_EQ(std::bit_cast<std::uint64_t>(normA), std::bit_cast<std::uint64_t>(rb.gradNorm))
              << what << " step " << i;
        }
        if (clip > 0.0 && !std::string(recipe.name).starts_with("fp16")) {
          EXPECT_TRUE(clipped) << what; // the norm decided the update
        }
        const auto wa = copyWeights(a), wb = copyWeights(b);
        for (std::size_t l = 0; l < wa.size(); ++l)
          EXPECT_EQ(0, std::memcmp(wa[l].data(), wb[l].data(), 4 * wa[l].size()))
              << what << " layer " << l;
      }
    }
  }
}
