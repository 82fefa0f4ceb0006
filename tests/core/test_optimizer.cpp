// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Optimizers against hand-computed PyTorch update sequences, the update
// rounding rules of the pure-BF16 recipes, and the blocked / threaded /
// observed step against plain loops.
#include <mantissa/amp/optimizer.h>
#include <mantissa/model/mlp.h>
#include <mantissa/numeric/convert.h>

#include <gtest/gtest.h>

#include <bit>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

using namespace mantissa;
using amp::Optimizer;
using amp::OptimizerConfig;
using amp::recipeByName;

namespace {

struct Params {
  std::vector<float> value;
  std::vector<float> grad;
  std::vector<amp::Slot> slots() { return {amp::Slot{"p", value, grad}}; }
};

} // namespace

TEST(Sgd, MomentumSequenceMatchesTorch) {
  // torch.optim.SGD(lr=0.1, momentum=0.9), w=1, constant g=0.5:
  // buf 0.5, 0.95, 1.355 -> w 0.95, 0.855, 0.7195
  Params p{{1.0f}, {0.5f}};
  Optimizer opt(OptimizerConfig{}, recipeByName("fp32"), p.slots(), 1);
  const double expected[] = {0.95, 0.855, 0.7195};
  for (double e : expected) {
    opt.step(0.1);
    EXPECT_NEAR(p.value[0], e, 1e-6);
  }
}

TEST(AdamW, FirstStepsMatchTheClosedForm) {
  // Step 1: m^ = g, v^ = g^2 -> w = w (1 - lr wd) - lr g / (|g| + eps).
  Params p{{1.0f}, {0.5f}};
  OptimizerConfig c;
  c.kind = amp::OptimizerKind::AdamW;
  c.weightDecay = 0.1;
  Optimizer opt(c, recipeByName("fp32"), p.slots(), 1);
  opt.step(0.01);
  EXPECT_NEAR(p.value[0], 1.0 * (1 - 0.001) - 0.01 * 0.5 / (0.5 + 1e-8), 1e-6);
  // Step 2 with g = -0.5: m = 0.9*0.05 - 0.05 = -0.005, v = 0.999*2.5e-4 + 2.5e-7
  p.grad[0] = -0.5f;
  const double w1 = p.value[0];
  opt.step(0.01);
  const double m = 0.9 * 0.05 + 0.1 * -0.5, v = 0.999 * 0.00025 + 0.001 * 0.25;
  const double mHat = m / (1 - 0.81), vHat = v / (1 - 0.999 * 0.999);
  EXPECT_NEAR(p.value[0], w1 * (1 - 0.001) - 0.01 * mHat / (std::sqrt(vHat) + 1e-8), 1e-6);
}

// nanoGPT's parameter groups: weight decay on the slots that ask for it
// (matrices, embeddings) and none on the others (biases, LayerNorm).
TEST(AdamW, WeightDecayOnlyOnSlotsThatDecay) {
  std::vector<float> w{1.0f}, gw{0.5f}, b{1.0f}, gb{0.5f};
  OptimizerConfig c;
  c.kind = amp::OptimizerKind::AdamW;
  c.weightDecay = 0.1;
  Optimizer opt(c, recipeByName("fp32"),
                {amp::Slot{.name = "w", .value = w, .grad = gw, .decay = true},
                 amp::Slot{.name = "b", .value = b, .grad = gb, .decay = false}},
                1);
  opt.step(0.01);
  EXPECT_NEAR(w[0], 1.0 * (1 - 0.001) - 0.01 * 0.5 / (0.5 + 1e-8), 1e-6);
  EXPECT_NEAR(b[0], 1.0 - 0.01 * 0.5 / (0.5 + 1e-8), 1e-6);
}

TEST(UpdateRounding, PureBf16NearestLosesUpdatesBelowHalfAnUlp) {
  // BF16 ULP at 1.0 (just below: 2^-8): an update of -1e-3 rounds back to 1.
  Params p{std::vector<float>(64, 1.0f), std::vector<float>(64, 1.0f)};
  OptimizerConfig c;
  c.momentum = 0.0;
  Optimizer opt(c, recipeByName("bf16-pure"), p.slots(), 1);
  for (int i = 0; i < 10; ++i)
    opt.step(1e-3);
  EXPECT_EQ(p.value[0], 1.0f);
  EXPECT_EQ(opt.lastStats()[0].nonzero, 64);
  EXPECT_EQ(opt.lastStats()[0].unchanged, 64);
  // The master-weight recipe keeps every update.
  Params q{std::vector<float>(64, 1.0f), std::vector<float>(64, 1.0f)};
  Optimizer master(c, recipeByName("bf16-mixed"), q.slots(), 1);
  for (int i = 0; i < 10; ++i)
    master.step(1e-3);
  EXPECT_NEAR(q.value[0], 0.99f, 1e-6);
  EXPECT_EQ(master.lastStats()[0].unchanged, 0);
}

TEST(UpdateRounding, StochasticIsUnbiasedAndSeeded) {
  // 100 steps of -1e-3 from 1.0: expected 0.9. Each SR draw has a standard
  // deviation below one ULP (2^-8 .. 2^-9 here); over 100 steps and averaged
  // over 4096 weights the mean's deviation is ~1e-3 / 64: 5e-3 is 30 sigma.
  const std::size_t n = 4096;
  Params p{std::vector<float>(n, 1.0f), std::vector<float>(n, 1.0f)};
  OptimizerConfig c;
  c.momentum = 0.0;
  Optimizer opt(c, recipeByName("bf16-pure-sr"), p.slots(), 42);
  for (int i = 0; i < 100; ++i)
    opt.step(1e-3);
  const double mean = std::accumulate(p.value.begin(), p.value.end(), 0.0) / n;
  EXPECT_NEAR(mean, 0.9, 5e-3);
  for (float v : p.value) // every stored value is a BF16 value
    EXPECT_EQ(numeric::bf16ToF32(numeric::f32ToBf16(v)), v);
  // Same seed, same values; another seed, other values.
  Params a{std::vector<float>(n, 1.0f), std::vector<float>(n, 1.0f)};
  Params b{std::vector<float>(n, 1.0f), std::vector<float>(n, 1.0f)};
  Optimizer oa(c, recipeByName("bf16-pure-sr"), a.slots(), 42);
  Optimizer ob(c, recipeByName("bf16-pure-sr"), b.slots(), 43);
  for (int i = 0; i < 100; ++i) {
    oa.step(1e-3);
    ob.step(1e-3);
  }
  EXPECT_EQ(a.value, p.value);
  EXPECT_NE(b.value, p.value);
}

TEST(UpdateRounding, KahanCarriesTheLostPart) {
  Params p{{1.0f}, {1.0f}};
  OptimizerConfig c;
  c.momentum = 0.0;
  Optimizer opt(c, recipeByName("bf16-pure-kahan"), p.slots(), 1);
  for (int i = 0; i < 100; ++i)
    opt.step(1e-3);
  // Within one BF16 ULP at 0.9 (2^-8) of the exact 0.9.
  EXPECT_NEAR(p.value[0], 0.9, 1.0 / 256);
  EXPECT_EQ(numeric::bf16ToF32(numeric::f32ToBf16(p.value[0])), p.value[0]);
}

TEST(GradClip, GlobalNormAndFactorFollowTorch) {
  std::vector<float> v1(3), g1{3.0f, 0.0f, 0.0f}, v2(1), g2{4.0f};
  std::vector<amp::Slot> slots{{"a", v1, g1}, {"b", v2, g2}};
  const double norm = amp::globalGradNorm(slots);
  EXPECT_DOUBLE_EQ(norm, 5.0);
  std::vector<std::span<float>> grads{g1, g2};
  EXPECT_DOUBLE_EQ(amp::clipByGlobalNorm(grads, norm, 10.0), 1.0);
  EXPECT_EQ(g1[0], 3.0f);
  const double f = amp::clipByGlobalNorm(grads, norm, 1.0);
  EXPECT_NEAR(f, 1.0 / (5.0 + 1e-6), 1e-12);
  EXPECT_NEAR(g1[0], 0.6f, 1e-6);
  EXPECT_NEAR(g2[0], 0.8f, 1e-6);
}

// Against a long double sum (64-bit significand) of the exact squares: a
// million gradients over 40 binades, plus a tail that is not a whole number
// of partial sums. A single FP32 running sum misses this by ~1e-4; and
// squares past FP32's range (|g| > 2^64) stay finite.
TEST(GradClip, SumOfSquaresIsAccurateAndDoesNotOverflow) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> logMag(-30.0f, 10.0f);
  std::vector<float> g((1u << 20) + 5);
  long double want = 0.0L;
  for (float& v : g) {
    v = std::exp2(logMag(rng)) * (rng() & 1 ? -1.0f : 1.0f);
    want += static_cast<long double>(v) * static_cast<long double>(v);
  }
  const double got = amp::sumOfSquares(g);
  EXPECT_NEAR(got, static_cast<double>(want), 1e-13 * static_cast<double>(want));
  const std::vector<float> huge{0x1p100f, -0x1p100f, 0x1p50f};
  EXPECT_EQ(amp::sumOfSquares(huge), 0x1p201 + 0x1p100);
  EXPECT_EQ(amp::sumOfSquares(std::span<const float>{}), 0.0);
}

TEST(OptimizerPlan, StateBytesFollowTheRecipe) {
  Params p{std::vector<float>(100), std::vector<float>(100)};
  OptimizerConfig adam;
  adam.kind = amp::OptimizerKind::AdamW;
  auto bytes = [&](const OptimizerConfig& c, std::string_view recipe) {
    Optimizer o(c, recipeByName(recipe), p.slots(), 1);
    const auto rows = o.plan();
    return model::bytesFor(rows, model::TensorRole::OptimizerState);
  };
  EXPECT_EQ(bytes(OptimizerConfig{}, "fp32"), 400u);      // momentum FP32
  EXPECT_EQ(bytes(adam, "bf16-mixed"), 800u);             // m, v FP32
  EXPECT_EQ(bytes(adam, "bf16-pure"), 400u);              // m, v BF16
  EXPECT_EQ(bytes(OptimizerConfig{}, "bf16-pure-kahan"), 400u); // momentum + c, BF16
}

// ---- Blocked, threaded, observed steps against the plain loops ----

namespace {

// The update rules of optimizer.h as one straightforward loop per phase over
// whole slots on one thread: the implementation before blocking, threads and
// observers, kept here as the reference the optimizer must match bit for bit.
class ReferenceOptimizer {
public:
  ReferenceOptimizer(OptimizerConfig c, const amp::Recipe& r, std::vector<amp::Slot> slots,
                     std::uint64_t seed)
      : m_c(c), m_r(r), m_slots(std::move(slots)), m_rng(seed ^ 0x9e3779b97f4a7c15ull) {
    for (const auto& s : m_slots) {
      m_m1.emplace_back(s.value.size(), 0.0f);
      m_m2.emplace_back(s.value.size(), 0.0f);
      m_k.emplace_back(s.value.size(), 0.0f);
    }
  }

  void step(double lr) {
    ++m_t;
    const float flr = static_cast<float>(lr);
    for (std::size_t s = 0; s < m_slots.size(); ++s) {
      const float wd = m_slots[s].decay ? static_cast<float>(m_c.weightDecay) : 0.0f;
      float* w = m_slots[s].value.data();
      const float* g = m_slots[s].grad.data();
      const std::size_t n = m_slots[s].value.size();
      std::vector<float> u(n), next(n);
      auto& m1 = m_m1[s];
      auto& m2 = m_m2[s];
      if (m_c.kind == amp::OptimizerKind::AdamW) {
        const float b1 = static_cast<float>(m_c.beta1), b2 = static_cast<float>(m_c.beta2);
        for (std::size_t i = 0; i < n; ++i) {
          m1[i] = b1 * m1[i] + (1.0f - b1) * g[i];
          m2[i] = b2 * m2[i] + (1.0f - b2) * g[i] * g[i];
        }
        model::roundTo(m_r.optimizerState, m1);
        model::roundTo(m_r.optimizerState, m2);
        const float bias1 = static_cast<float>(1.0 - std::pow(m_c.beta1, double(m_t)));
        const float bias2Sqrt =
            static_cast<float>(std::sqrt(1.0 - std::pow(m_c.beta2, double(m_t))));
        const float eps = static_cast<float>(m_c.eps);
        for (std::size_t i = 0; i < n; ++i)
          u[i] = -flr * wd * w[i] - flr * (m1[i] / bias1) / (std::sqrt(m2[i]) / bias2Sqrt + eps);
      } else {
        const float momentum = m_t == 1 ? 0.0f : static_cast<float>(m_c.momentum);
        for (std::size_t i = 0; i < n; ++i)
          m1[i] = momentum * m1[i] + (g[i] + wd * w[i]);
        model::roundTo(m_r.optimizerState, m1);
        for (std::size_t i = 0; i < n; ++i)
          u[i] = -flr * m1[i];
      }
      const DType wt = m_r.weights;
      for (std::size_t i = 0; i < n; ++i) {
        if (m_r.masterWeights || wt == DType::F32) {
          next[i] = w[i] + u[i];
        } else if (m_r.updateRounding == amp::UpdateRounding::Nearest) {
          next[i] = roundNearest(wt, w[i] + u[i]);
        } else if (m_r.updateRounding == amp::UpdateRounding::Stochastic) {
          const float v = w[i] + u[i];
          const std::uint32_t random = nextRandom();
          next[i] = wt == DType::BF16 ? numeric::bf16ToF32(numeric::f32ToBf16Stochastic(v, random))
                                      : numeric::f16ToF32(numeric::f32ToF16Stochastic(v, random));
        } else { // Kahan
          const float y = u[i] - m_k[s][i];
          const float t = roundNearest(wt, w[i] + y);
          m_k[s][i] = roundNearest(m_r.optimizerState, (t - w[i]) - y);
          next[i] = t;
        }
      }
      std::copy(next.begin(), next.end(), w);
      m_updates.push_back(std::move(u));
    }
  }
  std::vector<std::vector<float>> m_updates; // every slot's u, step after step

private:
  static float roundNearest(DType d, float v) {
    if (d == DType::BF16)
      return numeric::bf16ToF32(numeric::f32ToBf16(v));
    if (d == DType::F16)
      return numeric::f16ToF32(numeric::f32ToF16(v));
    return v;
  }
  std::uint32_t nextRandom() {
    std::uint64_t z = (m_rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return static_cast<std::uint32_t>((z ^ (z >> 31)) >> 32);
  }
  OptimizerConfig m_c;
  const amp::Recipe& m_r;
  std::vector<amp::Slot> m_slots;
  std::vector<std::vector<float>> m_m1, m_m2, m_k;
  std::uint64_t m_rng;
  std::int64_t m_t = 0;
};

// Sees every block; checks each value is shown once, before its update.
class CheckingObserver final : public amp::StepObserver {
public:
  explicit CheckingObserver(const std::vector<amp::Slot>& slots) : m_slots(slots) {
    for (const auto& s : slots)
      m_seen.emplace_back(s.value.size(), 0);
  }
  bool beginSlot(std::size_t slot) override { return slot != 1; } // slot 1 not observed
  void block(std::size_t slot, int worker, std::size_t offset, std::span<const float> w,
             std::span<const float> g, std::span<const float> u) override {
    EXPECT_GE(worker, 0);
    EXPECT_LT(worker, Optimizer::kMaxWorkers);
    EXPECT_EQ(g.size(), w.size());
    EXPECT_EQ(u.size(), w.size());
    EXPECT_EQ(w.data(), m_slots[slot].value.data() + offset); // the stored weights themselves
    EXPECT_EQ(g.data(), m_slots[slot].grad.data() + offset);
    std::lock_guard lock(m_mutex); // blocks come from the workers at once
    for (std::size_t i = 0; i < w.size(); ++i)
      ++m_seen[slot][offset + i];
    m_before.emplace_back(slot, offset, std::vector<float>(w.begin(), w.end()));
  }
  void endSlot(std::size_t slot, const amp::UpdateStats&) override { m_ended.push_back(slot); }

  std::vector<std::vector<int>> m_seen;
  std::vector<std::size_t> m_ended;
  std::vector<std::tuple<std::size_t, std::size_t, std::vector<float>>> m_before;

private:
  const std::vector<amp::Slot>& m_slots;
  std::mutex m_mutex;
};

std::vector<float> randomVector(std::size_t n, std::mt19937& rng, float scale) {
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v)
    x = normal(rng);
  return v;
}

} // namespace

// Every recipe and both optimizers: a slot large enough to be split between
// threads (not a whole number of blocks), a tiny one, and an unobserved one,
// 4 steps with new gradients each. Weights and updates must equal the plain
// loops' bit for bit, observed or not; the weights also where the updates
// are not kept.
TEST(OptimizerBlocks, MatchThePlainLoopsBitForBitObservedOrNot) {
  ASSERT_GE(Optimizer::kParallelMin, 4096u);
  const std::size_t sizes[] = {Optimizer::kParallelMin + 4097, 3, 5000};
  for (const auto& recipe : amp::recipes()) {
    for (auto kind : {amp::OptimizerKind::Sgd, amp::OptimizerKind::AdamW}) {
      OptimizerConfig c;
      c.kind = kind;
      c.weightDecay = 0.01;
      std::mt19937 rng(11);
      std::vector<std::vector<float>> w0, grads;
      for (std::size_t n : sizes) {
        w0.push_back(randomVector(n, rng, 0.05f));
        model::roundTo(recipe.masterWeights ? DType::F32 : recipe.weights, w0.back());
        grads.push_back(std::vector<float>(n));
      }
      auto wRef = w0, wPlain = w0, wSeen = w0, wLean = w0;
      auto slotsOf = [&](std::vector<std::vector<float>>& w) {
        std::vector<amp::Slot> s;
        for (std::size_t i = 0; i < w.size(); ++i)
          s.push_back({"p" + std::to_string(i), w[i], grads[i]});
        return s;
      };
      ReferenceOptimizer ref(c, recipe, slotsOf(wRef), 5);
      Optimizer plain(c, recipe, slotsOf(wPlain), 5);
      const auto seenSlots = slotsOf(wSeen);
      Optimizer seen(c, recipe, seenSlots, 5);
      // Updates not kept; working copies: slot 0 in BF16, slot 2 in FP16.
      std::vector<std::uint16_t> low0(sizes[0]), low2(sizes[2]);
      auto leanSlots = slotsOf(wLean);
      leanSlots[0].working = low0;
      leanSlots[0].workingType = DType::BF16;
      leanSlots[2].working = low2;
      leanSlots[2].workingType = DType::F16;
      Optimizer lean(c, recipe, leanSlots, 5);
      for (int t = 0; t < 4; ++t) {
        for (auto& g : grads) {
          const auto fresh = randomVector(g.size(), rng, 1e-2f);
          std::copy(fresh.begin(), fresh.end(), g.begin());
        }
        const auto before = wSeen;
        CheckingObserver observer(seenSlots);
        ref.step(1e-2);
        plain.step(1e-2);
        seen.step(1e-2, &observer);
        lean.step(1e-2, nullptr, /*keepUpdates=*/false);
        const std::string what = std::string(recipe.name) + " " +
                                 std::string(amp::optimizerName(kind)) + " step " +
                                 std::to_string(t);
        for (std::size_t s = 0; s < wRef.size(); ++s) {
          ASSERT_EQ(0, std::memcmp(wRef[s].data(), wPlain[s].data(), 4 * wRef[s].size())) << what;
          ASSERT_EQ(0, std::memcmp(wRef[s].data(), wSeen[s].data(), 4 * wRef[s].size())) << what;
          ASSERT_EQ(0, std::memcmp(wRef[s].data(), wLean[s].data(), 4 * wRef[s].size())) << what;
          const auto& u = ref.m_updates[ref.m_updates.size() - wRef.size() + s];
          const auto su = seen.lastUpdate(s);
          ASSERT_EQ(0, std::memcmp(u.data(), su.data(), 4 * u.size())) << what;
          // Observed slots: every value once; unobserved: none.
          const int expected = s == 1 ? 0 : 1;
          EXPECT_EQ(std::count(observer.m_seen[s].begin(), observer.m_seen[s].end(), expected),
                    static_cast<std::ptrdiff_t>(wRef[s].size()))
              << what << " slot " << s;
        }
        EXPECT_EQ(observer.m_ended, (std::vector<std::size_t>{0, 2})) << what;
        // The weights shown are the ones before the update.
        for (const auto& [slot, offset, values] : observer.m_before)
          ASSERT_TRUE(std::equal(values.begin(), values.end(), before[slot].begin() +
                                                                   static_cast<std::ptrdiff_t>(offset)))
              << what;
        EXPECT_EQ(plain.lastStats()[0].unchanged, seen.lastStats()[0].unchanged) << what;
        EXPECT_EQ(plain.lastStats()[0].nonzero, seen.lastStats()[0].nonzero) << what;
        EXPECT_EQ(plain.lastStats()[0].unchanged, lean.lastStats()[0].unchanged) << what;
        // The working copies: the updated weights cast to nearest-even. BF16 by
        // its bit rule (FP32 subnormals read as zero); FP16 by the scalar cast.
        for (std::size_t i = 0; i < low0.size(); ++i) {
          std::uint32_t u = std::bit_cast<std::uint32_t>(wRef[0][i]);
          if ((u & 0x7F800000u) == 0)
            u &= 0x80000000u;
          ASSERT_EQ(low0[i], std::uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16)) << what << " " << i;
        }
        for (std::size_t i = 0; i < low2.size(); ++i)
          ASSERT_EQ(low2[i], numeric::f32ToF16(wRef[2][i])) << what << " " << i;
        EXPECT_EQ(plain.lastStats()[0].nonzero, lean.lastStats()[0].nonzero) << what;
      }
    }
  }
}

// ---- The update and the BF16 working cast in one pass ----

namespace {

// FP32 -> BF16 by its bit rule, written out: nearest-even; FP32 subnormals
// read as zero (keeping the sign); NaN keeps its top bits with the quiet bit
// 0x0040 set; overflow to inf by the carry into the exponent.
std::uint16_t bf16Rule(float x) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t magnitude = u & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u)
    return static_cast<std::uint16_t>((u >> 16) | 0x0040u);
  if (magnitude < 0x00800000u)
    return static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  return static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

} // namespace

// The single-pass update + VCVTNEPS2BF16 cast of unobserved steps that keep
// no updates (master weights with a BF16 working copy), against the plain
// scalar loops of ReferenceOptimizer and the bit rule above: SGD and AdamW,
// every recipe (the pass applies to those with FP32 state and master
// weights; the others, nearest, stochastic and Kahan update rounding, take
// their own path and must match too), slots split between two workers, a
// tail shorter than a vector, a slot without weight decay, and gradients and
// weights with NaN, infinities, subnormals and swamped updates. The counts of
// non-zero and swamped updates must equal the reference's.
TEST(FusedBf16Update, MatchesTheScalarLoopsAndCastBitForBit) {
  if (!Optimizer::castsBf16InUpdatePass())
    GTEST_SKIP() << "this CPU lacks AVX-512 BF16 (VCVTNEPS2BF16): the optimizer casts after "
                    "each block's update instead";
  const std::size_t sizes[] = {Optimizer::kParallelMin + 4097, 37, 16};
  for (const auto& recipe : amp::recipes()) {
    for (auto kind : {amp::OptimizerKind::Sgd, amp::OptimizerKind::AdamW}) {
      OptimizerConfig c;
      c.kind = kind;
      c.weightDecay = 0.05;
      std::mt19937 rng(23);
      std::vector<std::vector<float>> w0, grads;
      for (std::size_t n : sizes) {
        w0.push_back(randomVector(n, rng, 0.05f));
        auto& w = w0.back();
        if (n > 100) {
          w[5] = 1e-39f;   // FP32 subnormal: its BF16 copy is zero
          w[6] = -3e-39f;
          w[7] = 3.0e38f;  // near the top: BF16 rounds it to inf
        }
        if (n == 37)
          w[3] = 1e6f; // no weight decay here: its small updates are swamped in FP32
        model::roundTo(recipe.masterWeights ? DType::F32 : recipe.weights, w);
        grads.push_back(std::vector<float>(n));
      }
      auto wRef = w0, wFused = w0;
      auto slotsOf = [&](std::vector<std::vector<float>>& w) {
        std::vector<amp::Slot> out;
        for (std::size_t i = 0; i < w.size(); ++i) {
          amp::Slot slot{"p" + std::to_string(i), w[i], grads[i]};
          slot.decay = i != 1;
          out.push_back(std::move(slot));
        }
        return out;
      };
      ReferenceOptimizer ref(c, recipe, slotsOf(wRef), 9);
      std::vector<std::vector<std::uint16_t>> low;
      auto fusedSlots = slotsOf(wFused);
      for (auto& slot : fusedSlots) {
        low.emplace_back(slot.value.size());
        slot.working = low.back();
        slot.workingType = DType::BF16;
      }
      Optimizer fused(c, recipe, fusedSlots, 9);
      for (int t = 0; t < 3; ++t) {
        for (auto& g : grads) {
          const auto fresh = randomVector(g.size(), rng, 1e-2f);
          std::copy(fresh.begin(), fresh.end(), g.begin());
        }
        if (t == 2) { // non-finite gradients in the big slot's last step
          grads[0][100] = std::numeric_limits<float>::quiet_NaN();
          grads[0][101] = std::numeric_limits<float>::infinity();
          grads[0][102] = -std::numeric_limits<float>::infinity();
        }
        grads[1][3] = 1e-4f;
        const auto before = wRef;
        ref.step(2e-3);
        fused.step(2e-3, nullptr, /*keepUpdates=*/false);
        const std::string what = std::string(recipe.name) + " " +
                                 std::string(amp::optimizerName(kind)) + " step " +
                                 std::to_string(t);
        for (std::size_t s = 0; s < wRef.size(); ++s) {
          ASSERT_EQ(0, std::memcmp(wRef[s].data(), wFused[s].data(), 4 * wRef[s].size()))
              << what << " slot " << s;
          for (std::size_t i = 0; i < low[s].size(); ++i)
            ASSERT_EQ(low[s][i], bf16Rule(wRef[s][i])) << what << " slot " << s << " value " << i;
          std::int64_t nonzero = 0, unchanged = 0;
          const auto& u = ref.m_updates[ref.m_updates.size() - wRef.size() + s];
          for (std::size_t i = 0; i < u.size(); ++i) {
            nonzero += u[i] != 0.0f ? 1 : 0;
            unchanged += u[i] != 0.0f && wRef[s][i] == before[s][i] ? 1 : 0;
          }
          EXPECT_EQ(fused.lastStats()[s].nonzero, nonzero) << what << " slot " << s;
          EXPECT_EQ(fused.lastStats()[s].unchanged, unchanged) << what << " slot " << s;
        }
        if (recipe.masterWeights) {
          EXPECT_GT(fused.lastStats()[1].unchanged, 0) << what << ": the swamped update of 1e6";
        }
      }
    }
  }
}
