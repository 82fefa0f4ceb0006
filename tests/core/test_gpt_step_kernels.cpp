// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The GPT step's own kernels (kernels/step_isa.h): LayerNorm forward and
// backward, AdamW with FP32 state, the FP32 attention softmax, and exp, tanh
// and GELU (kernels/step_math.h). Each is checked against its rule written out
// here, scalar and in the documented order (bit for bit), or against double
// precision; each runs on every instruction set this CPU has (AVX-512, AVX2,
// portable) and must give the same bits on each.
#include <mantissa/amp/optimizer.h>
#include <mantissa/amp/recipe.h>
#include <mantissa/kernels/step_isa.h>
#include <mantissa/kernels/step_math.h>
#include <mantissa/nn/activation.h>
#include <mantissa/nn/attention.h>
#include <mantissa/nn/norm.h>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <omp.h>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace mantissa;
using kernels::StepIsa;

std::vector<StepIsa> availableIsas() {
  std::vector<StepIsa> out;
  for (StepIsa isa : {StepIsa::Avx512, StepIsa::Avx2, StepIsa::Portable})
    if (kernels::stepIsaAvailable(isa))
      out.push_back(isa);
  return out;
}

// Runs fn with every step kernel on `isa`, then back to CPUID's choice.
template <class F> void onIsa(StepIsa isa, F fn) {
  kernels::forceStepIsa(isa);
  fn();
  kernels::forceStepIsa(std::nullopt);
}

std::uint32_t bits(float v) {
  return std::bit_cast<std::uint32_t>(v);
}

std::vector<float> normalValues(std::size_t n, float mean, float stddev, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(mean, stddev);
  std::vector<float> v(n);
  for (float& x : v)
    x = normal(rng);
  return v;
}

TEST(StepIsa, ThePortablePathIsAlwaysThereAndMissingOnesAreRefused) {
  EXPECT_TRUE(kernels::stepIsaAvailable(StepIsa::Portable));
  EXPECT_TRUE(kernels::stepIsaAvailable(kernels::stepIsa()));
  for (StepIsa isa : {StepIsa::Avx512, StepIsa::Avx2})
    if (!kernels::stepIsaAvailable(isa)) {
      EXPECT_THROW(kernels::forceStepIsa(isa), std::invalid_argument) << kernels::stepIsaName(isa);
    }
  onIsa(StepIsa::Portable, [] { EXPECT_EQ(kernels::stepIsa(), StepIsa::Portable); });
  if (!kernels::stepIsaAvailable(StepIsa::Avx512))
    GTEST_SKIP() << "this CPU has no AVX-512: its path is not run by these tests";
}

// LayerNorm forward, FP32 statistics, row by row in column order:
// mean = (sum_c x) / C, var = (sum_c (x - mean)^2) / C, rstd = 1 / sqrt(var + eps),
// out = (x - mean) * rstd * w + b.
struct LayerNormCase {
  int N, C;
};

class LayerNormKernels : public ::testing::TestWithParam<LayerNormCase> {};

TEST_P(LayerNormKernels, ForwardIsTheRowByRowRuleBitForBitOnEveryPath) {
  const auto [N, C] = GetParam();
  const auto x = normalValues(static_cast<std::size_t>(N) * C, 0.3f, 2.0f, 1);
  const auto w = normalValues(static_cast<std::size_t>(C), 1.0f, 0.2f, 2);
  const auto b = normalValues(static_cast<std::size_t>(C), 0.0f, 0.1f, 3);
  std::vector<float> wantOut(x.size()), wantMean(static_cast<std::size_t>(N)),
      wantRstd(static_cast<std::size_t>(N));
  for (int n = 0; n < N; ++n) {
    const float* r = x.data() + std::size_t(n) * C;
    float sum = 0.0f;
    for (int c = 0; c < C; ++c)
      sum += r[c];
    const float m = sum / float(C);
    float sq = 0.0f;
    for (int c = 0; c < C; ++c)
      sq += (r[c] - m) * (r[c] - m);
    const float s = 1.0f / std::sqrt(sq / float(C) + nn::kNormEps);
    for (int c = 0; c < C; ++c)
      wantOut[std::size_t(n) * C + c] = (r[c] - m) * s * w[std::size_t(c)] + b[std::size_t(c)];
    wantMean[std::size_t(n)] = m;
    wantRstd[std::size_t(n)] = s;
    // The statistics are those of double precision, to FP32 accuracy.
    double dm = 0.0, dv = 0.0;
    for (int c = 0; c < C; ++c)
      dm += r[c];
    dm /= C;
    for (int c = 0; c < C; ++c)
      dv += (r[c] - dm) * (r[c] - dm);
    EXPECT_NEAR(m, dm, 1e-5 * (1.0 + std::fabs(dm))) << "row " << n;
    EXPECT_NEAR(s, 1.0 / std::sqrt(dv / C + 1e-5), 1e-5 * s) << "row " << n;
  }
  for (StepIsa isa : availableIsas())
    onIsa(isa, [&] {
      std::vector<float> out(x.size()), mean(static_cast<std::size_t>(N)),
          rstd(static_cast<std::size_t>(N));
      nn::layerNormForward(out, mean, rstd, x, w, b, N, C);
      const char* path = kernels::stepIsaName(isa);
      for (std::size_t n = 0; n < static_cast<std::size_t>(N); ++n) {
        ASSERT_EQ(bits(mean[n]), bits(wantMean[n])) << path << " mean row " << n;
        ASSERT_EQ(bits(rstd[n]), bits(wantRstd[n])) << path << " rstd row " << n;
      }
      for (std::size_t i = 0; i < out.size(); ++i)
        ASSERT_EQ(bits(out[i]), bits(wantOut[i])) << path << " out[" << i << "]";
    });
}

// Backward, accumulating into din, dw and db: per row g = dout * w,
// xhat = (x - mean) * rstd, gMean = (sum_c g) / C, gxMean = (sum_c g * xhat) / C
// (column order), din += rstd * (g - gMean - xhat * gxMean); dw += dout * xhat and
// db += dout summed over the rows in row order.
TEST_P(LayerNormKernels, BackwardIsTheRowByRowRuleBitForBitOnEveryPath) {
  const auto [N, C] = GetParam();
  const auto x = normalValues(static_cast<std::size_t>(N) * C, -0.2f, 1.5f, 4);
  const auto dout = normalValues(static_cast<std::size_t>(N) * C, 0.0f, 0.01f, 5);
  const auto w = normalValues(static_cast<std::size_t>(C), 1.0f, 0.2f, 6);
  const auto b = normalValues(static_cast<std::size_t>(C), 0.0f, 0.1f, 7);
  const auto din0 =
      normalValues(static_cast<std::size_t>(N) * C, 0.0f, 0.003f, 8); // accumulated into
  const auto dw0 = normalValues(static_cast<std::size_t>(C), 0.0f, 0.5f, 9);
  const auto db0 = normalValues(static_cast<std::size_t>(C), 0.0f, 0.5f, 10);
  std::vector<float> out(x.size()), mean(static_cast<std::size_t>(N)),
      rstd(static_cast<std::size_t>(N));
  nn::layerNormForward(out, mean, rstd, x, w, b, N, C);
  std::vector<float> wantDin = din0, wantDw = dw0, wantDb = db0;
  for (int n = 0; n < N; ++n) {
    const std::size_t o = std::size_t(n) * C;
    const float m = mean[std::size_t(n)], s = rstd[std::size_t(n)];
    float gSum = 0.0f, gxSum = 0.0f;
    for (int c = 0; c < C; ++c) {
      const float xhat = (x[o + c] - m) * s;
      const float g = dout[o + c] * w[std::size_t(c)];
      gSum += g;
      gxSum += g * xhat;
    }
    const float gMean = gSum / float(C), gxMean = gxSum / float(C);
    for (int c = 0; c < C; ++c) {
      const float xhat = (x[o + c] - m) * s;
      wantDw[std::size_t(c)] += dout[o + c] * xhat;
      wantDb[std::size_t(c)] += dout[o + c];
      wantDin[o + c] += s * (dout[o + c] * w[std::size_t(c)] - gMean - xhat * gxMean);
    }
  }
  for (StepIsa isa : availableIsas())
    onIsa(isa, [&] {
      std::vector<float> din = din0, dw = dw0, db = db0;
      nn::layerNormBackward(din, dw, db, dout, x, w, mean, rstd, N, C);
      const char* path = kernels::stepIsaName(isa);
      for (std::size_t c = 0; c < static_cast<std::size_t>(C); ++c) {
        ASSERT_EQ(bits(dw[c]), bits(wantDw[c])) << path << " dw[" << c << "]";
        ASSERT_EQ(bits(db[c]), bits(wantDb[c])) << path << " db[" << c << "]";
      }
      for (std::size_t i = 0; i < din.size(); ++i)
        ASSERT_EQ(bits(din[i]), bits(wantDin[i])) << path << " din[" << i << "]";
    });
}

// The GPT's shape (B*T = 768 rows of 128), rows and columns that are no
// whole block or tile (53 rows: three blocks of 16 and 5 left; 200 columns:
// three tiles of 64 and 8), and fewer rows than a block.
INSTANTIATE_TEST_SUITE_P(Shapes, LayerNormKernels,
                         ::testing::Values(LayerNormCase{768, 128}, LayerNormCase{53, 200},
                                           LayerNormCase{7, 33}));

// AdamW (torch.optim.AdamW) written out in FP32, in the order optimizer.h
// documents: m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g g,
// u = -lr wd w - lr (m / (1 - b1^t)) / (sqrt(v) / sqrt(1 - b2^t) + eps), w += u.
struct AdamwReference {
  std::vector<float> w, m, v, u;
  std::int64_t nonzero = 0, unchanged = 0; // the last step's: u != 0, and w + u == w
  void step(const std::vector<float>& g, int t, float lr, const amp::OptimizerConfig& c,
            bool decay) {
    const float b1 = float(c.beta1), b2 = float(c.beta2), eps = float(c.eps);
    const float wd = decay ? float(c.weightDecay) : 0.0f;
    const float bias1 = float(1.0 - std::pow(c.beta1, double(t)));
    const float bias2Sqrt = float(std::sqrt(1.0 - std::pow(c.beta2, double(t))));
    nonzero = unchanged = 0;
    for (std::size_t i = 0; i < w.size(); ++i) {
      m[i] = b1 * m[i] + (1.0f - b1) * g[i];
      v[i] = b2 * v[i] + (1.0f - b2) * g[i] * g[i];
      u[i] = -lr * wd * w[i] - lr * (m[i] / bias1) / (std::sqrt(v[i]) / bias2Sqrt + eps);
      nonzero += u[i] != 0.0f ? 1 : 0;
      unchanged += u[i] != 0.0f && w[i] + u[i] == w[i] ? 1 : 0;
      w[i] = w[i] + u[i];
    }
  }
};

// Sees every slot's blocks and keeps nothing: the observed path of step().
class Watcher final : public amp::StepObserver {
public:
  bool beginSlot(std::size_t) override { return true; }
  void block(std::size_t, int, std::size_t, std::span<const float>, std::span<const float>,
             std::span<const float>) override {
    ++blocks;
  }
  void endSlot(std::size_t, const amp::UpdateStats&) override {}
  int blocks = 0;
};

TEST(AdamwKernel, EveryPathIsTheScalarRuleBitForBitAndTracksDoublePrecision) {
  amp::OptimizerConfig config;
  config.kind = amp::OptimizerKind::AdamW;
  config.beta1 = 0.9;
  config.beta2 = 0.99;
  config.weightDecay = 0.1;
  // A slot split between threads with an odd tail, one of a block and a few
  // values, another without weight decay.
  const std::size_t sizes[] = {amp::Optimizer::kParallelMin + 4096 + 77, 4096, 13, 1000};
  const bool decays[] = {true, true, true, false};
  const int steps = 4;
  const float lrs[steps] = {1e-3f, 8e-4f, 5e-4f, 2e-4f};
  std::vector<std::vector<std::vector<float>>> grads; // [step][slot]
  for (int t = 0; t < steps; ++t) {
    grads.emplace_back();
    for (std::size_t s = 0; s < std::size(sizes); ++s) {
      auto g = normalValues(sizes[s], 0.0f, 0.05f, unsigned(100 + 10 * t + s));
      for (std::size_t i = 0; i < g.size(); i += 97)
        g[i] = 0.0f; // zero gradients: a zero update where decay is off
      grads.back().push_back(std::move(g));
    }
  }
  std::vector<AdamwReference> want;
  for (std::size_t s = 0; s < std::size(sizes); ++s) {
    AdamwReference r;
    r.w = normalValues(sizes[s], 0.0f, 0.02f, unsigned(50 + s));
    r.m.assign(sizes[s], 0.0f);
    r.v.assign(sizes[s], 0.0f);
    r.u.assign(sizes[s], 0.0f);
    want.push_back(std::move(r));
  }
  const auto initial = want;
  for (int t = 0; t < steps; ++t)
    for (std::size_t s = 0; s < std::size(sizes); ++s)
      want[s].step(grads[std::size_t(t)][s], t + 1, lrs[t], config, decays[s]);

  // The same steps in double: the FP32 weights follow them closely.
  for (std::size_t s = 0; s < std::size(sizes); ++s)
    for (std::size_t i = 0; i < sizes[s]; i += 61) {
      double w = initial[s].w[i], m = 0.0, v = 0.0;
      for (int t = 0; t < steps; ++t) {
        const double g = grads[std::size_t(t)][s][i], lr = lrs[t];
        m = 0.9 * m + 0.1 * g;
        v = 0.99 * v + 0.01 * g * g;
        const double mhat = m / (1.0 - std::pow(0.9, t + 1)),
                     vhat = v / (1.0 - std::pow(0.99, t + 1));
        w = w * (1.0 - lr * (decays[s] ? 0.1 : 0.0)) - lr * mhat / (std::sqrt(vhat) + 1e-8);
      }
      ASSERT_NEAR(want[s].w[i], w, 1e-6) << "slot " << s << " [" << i << "]";
    }

  // FP32 weights (fp32) and master weights (bf16-mixed) take the fused pass;
  // observed, updates kept or not: the same bits on every path.
  for (const char* recipe : {"fp32", "bf16-mixed"})
    for (const int mode : {0, 1, 2}) // 0 fused, keeping u; 1 fused, not keeping u; 2 observed
      for (StepIsa isa : availableIsas())
        onIsa(isa, [&] {
          auto state = initial;
          std::vector<std::vector<float>> g(std::size(sizes));
          std::vector<amp::Slot> slots;
          for (std::size_t s = 0; s < std::size(sizes); ++s) {
            g[s].resize(sizes[s]);
            slots.push_back({"s" + std::to_string(s), state[s].w, g[s]});
            slots.back().decay = decays[s];
          }
          amp::Optimizer opt(config, amp::recipeByName(recipe), std::move(slots), 1);
          Watcher watcher;
          for (int t = 0; t < steps; ++t) {
            for (std::size_t s = 0; s < std::size(sizes); ++s)
              g[s] = grads[std::size_t(t)][s];
            opt.step(lrs[t], mode == 2 ? &watcher : nullptr, mode != 1);
          }
          const std::string what = std::string(recipe) + " mode " + std::to_string(mode) + " " +
                                   kernels::stepIsaName(isa);
          if (mode == 2) {
            EXPECT_GT(watcher.blocks, 0) << what;
          }
          for (std::size_t s = 0; s < std::size(sizes); ++s) {
            for (std::size_t i = 0; i < sizes[s]; ++i)
              ASSERT_EQ(bits(state[s].w[i]), bits(want[s].w[i]))
                  << what << " slot " << s << " w[" << i << "]";
            if (mode != 1) {
              const auto u = opt.lastUpdate(s);
              for (std::size_t i = 0; i < sizes[s]; ++i)
                ASSERT_EQ(bits(u[i]), bits(want[s].u[i]))
                    << what << " slot " << s << " u[" << i << "]";
            }
            EXPECT_EQ(opt.lastStats()[s].nonzero, want[s].nonzero) << what << " slot " << s;
            EXPECT_EQ(opt.lastStats()[s].unchanged, want[s].unchanged) << what << " slot " << s;
          }
        });
}

// The FP32 attention softmax: every row of probabilities is the causal
// softmax of the scaled scores q.k / sqrt(D) in double precision (scores
// computed here from the same q and k), the masked entries are 0, and scores
// far beyond exp's range (max subtraction) stay finite.
TEST(AttentionSoftmax, Fp32RowsAreTheDoublePrecisionSoftmaxOfTheScores) {
  const int B = 2, T = 37, H = 3, C = 24, D = C / H;
  nn::CausalSelfAttention attention(B, T, H, C, DType::F32);
  auto qkv = normalValues(std::size_t(B) * T * 3 * C, 0.0f, 4.0f, 21); // scores up to ~±100
  std::vector<float> out(std::size_t(B) * T * C);
  attention.forward(qkv, out);
  const auto probs = attention.probs().f32();
  double worst = 0.0;
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h)
      for (int t = 0; t < T; ++t) {
        const float* p = probs.data() + ((std::size_t(b) * H + h) * T + t) * T;
        std::vector<double> s(std::size_t(t) + 1);
        double mx = -1e300;
        for (int j = 0; j <= t; ++j) {
          double dot = 0.0;
          for (int d = 0; d < D; ++d)
            dot += double(qkv[(std::size_t(b) * T + t) * 3 * C + std::size_t(h) * D + d]) *
                   double(qkv[(std::size_t(b) * T + j) * 3 * C + C + std::size_t(h) * D + d]);
          s[std::size_t(j)] = dot / std::sqrt(double(D));
          mx = std::max(mx, s[std::size_t(j)]);
        }
        double z = 0.0;
        for (double v : s)
          z += std::exp(v - mx);
        for (int j = 0; j <= t; ++j) {
          ASSERT_TRUE(std::isfinite(p[j]));
          worst = std::max(worst, std::fabs(p[j] - std::exp(s[std::size_t(j)] - mx) / z));
        }
        for (int j = t + 1; j < T; ++j)
          ASSERT_EQ(bits(p[j]), 0u) << "masked entry " << j << " of row " << t;
      }
  // FP32 scores of magnitude ~100 carry an absolute error of ~1e-5 into exp.
  EXPECT_LT(worst, 1e-4);
}

// A NaN in one position's query makes exactly that position's rows NaN (the
// maximum ignores it as std::fmax does, but its exp joins the sum); the
// other rows are untouched.
TEST(AttentionSoftmax, ANaNScoreMakesOnlyItsRowNaN) {
  const int B = 1, T = 8, H = 1, C = 4;
  nn::CausalSelfAttention attention(B, T, H, C, DType::F32);
  auto qkv = normalValues(std::size_t(B) * T * 3 * C, 0.0f, 1.0f, 22);
  qkv[std::size_t(5) * 3 * C] = std::numeric_limits<float>::quiet_NaN(); // q of position 5
  std::vector<float> out(std::size_t(B) * T * C);
  attention.forward(qkv, out);
  const auto probs = attention.probs().f32();
  for (int t = 0; t < T; ++t)
    for (int j = 0; j <= t; ++j)
      EXPECT_EQ(std::isnan(probs[std::size_t(t) * T + j]), t == 5) << "row " << t << " col " << j;
}

// The error of y against the double-precision value want, in units of the
// float spacing at want (the spacing of subnormals below the normal range).
double ulpError(float y, double want) {
  if (std::isinf(want) || std::isinf(y))
    return double(y) == want ? 0.0 : std::numeric_limits<double>::infinity();
  const double a = std::fabs(want);
  const double minNormal = double(std::numeric_limits<float>::min());
  const double ulp = a < minNormal ? std::ldexp(1.0, -149) : std::ldexp(1.0, std::ilogb(a) - 23);
  return std::fabs(double(y) - want) / ulp;
}

// Every float from lo to hi with its bit pattern stepped by `stride`, plus lo
// and hi themselves.
std::vector<float> floatsBetween(float lo, float hi, std::uint32_t stride) {
  std::vector<float> out;
  auto push = [&](float from, float to) { // same sign, |from| <= |to|
    for (std::uint32_t b = bits(from); b < bits(to); b += stride)
      out.push_back(std::bit_cast<float>(b));
  };
  if (lo < 0.0f) {
    push(-0.0f, lo);
    push(0.0f, hi);
  } else {
    push(lo, hi);
  }
  out.push_back(lo);
  out.push_back(hi);
  return out;
}

// On every path this CPU has: fn(out) fills out; all paths give the same bits.
template <class F> std::vector<float> sameOnEveryIsa(const char* what, F fn) {
  std::vector<float> first;
  for (StepIsa isa : availableIsas()) {
    std::vector<float> out;
    onIsa(isa, [&] { out = fn(); });
    if (first.empty()) {
      first = out;
      continue;
    }
    EXPECT_EQ(out.size(), first.size());
    for (std::size_t i = 0; i < out.size() && i < first.size(); ++i)
      if (bits(out[i]) != bits(first[i])) {
        ADD_FAILURE() << what << " on " << kernels::stepIsaName(isa) << " differs from "
                      << kernels::stepIsaName(availableIsas().front()) << " at " << i << ": "
                      << out[i] << " vs " << first[i];
        break;
      }
  }
  return first;
}

// exp over its whole range against double-precision std::exp: within 2 ulp
// wherever the result is a normal float, within 1 subnormal spacing below;
// exactly 0 far below, inf above the largest float, NaN for NaN. The same
// bits on every instruction set.
TEST(StepMath, ExpIsWithinTwoUlpOfDoublePrecisionOverTheWholeRange) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const float kNaN = std::numeric_limits<float>::quiet_NaN();
  auto x = floatsBetween(-110.0f, 95.0f, 97);
  for (float v : {-kInf, kInf, kNaN, -0.0f, 0.0f, -87.3365f, -103.97f, -103.98f, 88.7228f, 88.7229f,
                  1e-30f, -1e-30f})
    x.push_back(v);
  const auto y = sameOnEveryIsa("exp", [&] {
    std::vector<float> out(x.size());
    kernels::expSpan(x, out);
    return out;
  });
  double worstNormal = 0.0, worstSub = 0.0;
  float worstAt = 0.0f;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(y[i]));
      continue;
    }
    const double want = std::exp(double(x[i]));
    if (want > double(std::numeric_limits<float>::max())) {
      ASSERT_EQ(y[i], kInf) << "exp(" << x[i] << ")";
      continue;
    }
    if (want < std::ldexp(1.0, -150) * 0.999) { // below half the smallest subnormal
      ASSERT_EQ(bits(y[i]), 0u) << "exp(" << x[i] << ")";
      continue;
    }
    const double e = ulpError(y[i], want);
    if (want >= double(std::numeric_limits<float>::min())) {
      if (e > worstNormal)
        worstAt = x[i];
      worstNormal = std::max(worstNormal, e);
    } else {
      worstSub = std::max(worstSub, e);
    }
  }
  RecordProperty("exp_max_ulp", std::to_string(worstNormal));
  std::printf("exp: max %.3f ulp (at %.9g) for normal results, %.3f subnormal spacings below\n",
              worstNormal, double(worstAt), worstSub);
  EXPECT_LE(worstNormal, 2.0);
  EXPECT_LE(worstSub, 1.0);
}

// tanh against double-precision std::tanh: within 3 ulp everywhere (the
// polynomial near 0 keeps the relative accuracy of small values), odd,
// +-1 for large inputs, NaN for NaN; the same bits on every instruction set.
TEST(StepMath, TanhIsWithinThreeUlpOfDoublePrecisionOverTheWholeRange) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  auto x = floatsBetween(-100.0f, 100.0f, 61);
  for (float v : {-kInf, kInf, std::numeric_limits<float>::quiet_NaN(), -0.0f, 0.0f, 0.625f,
                  -0.625f, std::nextafter(0.625f, 0.0f), 1e-38f, 1e-45f, 9.0f, 1e30f})
    x.push_back(v);
  const auto y = sameOnEveryIsa("tanh", [&] {
    std::vector<float> out(x.size());
    kernels::tanhSpan(x, out);
    return out;
  });
  double worst = 0.0;
  float worstAt = 0.0f;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(y[i]));
      continue;
    }
    const double e = ulpError(y[i], std::tanh(double(x[i])));
    if (e > worst)
      worstAt = x[i];
    worst = std::max(worst, e);
    ASSERT_EQ(std::signbit(y[i]), std::signbit(x[i])) << "tanh(" << x[i] << ")";
  }
  std::printf("tanh: max %.3f ulp (at %.9g)\n", worst, double(worstAt));
  EXPECT_LE(worst, 3.0);
  EXPECT_EQ(y[y.size() - 12], -1.0f); // tanh(-inf)
  EXPECT_EQ(y[y.size() - 11], 1.0f);  // tanh(inf)
}

// GELU (tanh form) and its derivative against the same formulas in double
// precision. The float argument a = sqrt(2/pi) (x + 0.044715 x^3) carries a
// rounding error of a few units in its last place, which the function
// amplifies by |2a| (1 - s) where s = 0.5 (1 + tanh a): the bound is 3 ulp
// plus that amplification of 3 units of a's last place. Large negative x
// goes to -0 and large positive x to x; NaN propagates. Forward and backward
// give the same bits on every instruction set.
TEST(StepMath, GeluAndItsDerivativeTrackDoublePrecisionOnEveryPath) {
  auto x = floatsBetween(-30.0f, 30.0f, 211);
  for (float v : {std::numeric_limits<float>::quiet_NaN(), -1e30f, 1e30f, -0.0f, 0.0f})
    x.push_back(v);
  const auto dy = normalValues(x.size(), 0.0f, 1.0f, 31);
  std::vector<float> none(x.size());
  const auto y = sameOnEveryIsa("GELU forward", [&] {
    std::vector<float> out(x.size());
    nn::activationForward(nn::Activation::Gelu, x, out);
    return out;
  });
  const auto dx = sameOnEveryIsa("GELU backward", [&] {
    std::vector<float> out(x.size());
    nn::activationBackward(nn::Activation::Gelu, x, none, dy, out);
    return out;
  });
  constexpr double k = 0.7978845608028654, c = 0.044715;
  double worstY = 0.0, worstDx = 0.0, worstPlainY = 0.0;
  float worstYAt = 0.0f;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = x[i];
    if (std::isnan(v)) {
      EXPECT_TRUE(std::isnan(y[i]));
      EXPECT_TRUE(std::isnan(dx[i]));
      continue;
    }
    if (std::fabs(v) > 1e3) { // outside, GELU is x or -0 and its slope 1 or 0
      EXPECT_EQ(y[i], v > 0 ? x[i] : 0.0f);
      EXPECT_EQ(dx[i], v > 0 ? dy[i] : 0.0f);
      continue;
    }
    const double a = k * (v + c * v * v * v);
    // 0.5 (1 + tanh a) = 1 / (1 + e^-2a): the second form, because 1 + tanh a
    // cancels in double too once a is below about -18.
    const double s = a >= 0.0 ? 0.5 * (1.0 + std::tanh(a)) : 1.0 / (1.0 + std::exp(-2.0 * a));
    const double oneMinusS = 1.0 / (1.0 + std::exp(2.0 * a));
    const double wantY = v * s;
    const double wantDx =
        double(dy[i]) * (s + 2.0 * v * s * oneMinusS * k * (1.0 + 3.0 * c * v * v));
    const double amplify = 2.0 * std::fabs(a) * oneMinusS;
    const double eY = ulpError(y[i], wantY) / (3.0 + 3.0 * amplify);
    if (eY > worstY)
      worstYAt = x[i];
    worstY = std::max(worstY, eY);
    if (std::fabs(v) <= 3.0)
      worstPlainY = std::max(worstPlainY, ulpError(y[i], wantY));
    // The derivative: relative to the larger of its two terms' magnitudes
    // (down to 1e-30 of dy: smaller terms are products of subnormal floats).
    const double scaleDx =
        std::fabs(double(dy[i])) *
        std::max({s, std::fabs(2.0 * v * s * oneMinusS * k * (1.0 + 3.0 * c * v * v)), 1e-30});
    if (scaleDx > 0.0)
      worstDx = std::max(worstDx, std::fabs(double(dx[i]) - wantDx) / scaleDx);
  }
  std::printf(
      "GELU: max %.3f (at %.9g) of the bound (3 ulp + 3 ulp of a times |2a|(1-s)); %.3f ulp for "
      "|x| <= 3; derivative: max relative error %.3g\n",
      worstY, double(worstYAt), worstPlainY, worstDx);
  EXPECT_LE(worstY, 1.0);
  EXPECT_LT(worstDx, 2e-5); // measured 1.2e-5, in the tail where a's rounding is amplified
}

// The FP32 attention softmax, forward and backward, gives the same bits on
// every instruction set.
TEST(AttentionSoftmax, Fp32ForwardAndBackwardAreTheSameBitsOnEveryPath) {
  const int B = 2, T = 37, H = 3, C = 24;
  const auto qkv = normalValues(std::size_t(B) * T * 3 * C, 0.0f, 2.0f, 23);
  const auto dout = normalValues(std::size_t(B) * T * C, 0.0f, 1.0f, 24);
  sameOnEveryIsa("attention forward and backward", [&] {
    nn::CausalSelfAttention attention(B, T, H, C, DType::F32);
    std::vector<float> out(std::size_t(B) * T * C), dqkv(qkv.size());
    attention.forward(qkv, out);
    attention.backward(dout, dqkv);
    std::vector<float> all(attention.probs().f32().begin(), attention.probs().f32().end());
    all.insert(all.end(), out.begin(), out.end());
    all.insert(all.end(), dqkv.begin(), dqkv.end());
    return all;
  });
}

} // namespace
