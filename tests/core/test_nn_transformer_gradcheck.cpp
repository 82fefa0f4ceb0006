// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The transformer ops, forward against plain double-precision formulas
// written here and backward against central finite differences.
//
// Each check takes L = sum_i out_i * r_i for fixed random r (so dL/dout = r),
// perturbs one input by +-h, runs the FP32 forward and forms
// (L+ - L-) / 2h in double. With h = 1e-2 the truncation error is O(h^2)
// times the third derivative, about 1e-4 here, and FP32 rounding of the
// outputs adds ~1e-6 / 2h = 5e-5; the tolerance is 2e-3 of the largest
// gradient plus 2e-4. Backward ops that accumulate are checked on gradients
// pre-filled with a known value, so accumulation is tested too.
#include <mantissa/nn/attention.h>
#include <mantissa/nn/embedding.h>
#include <mantissa/nn/norm.h>
#include <mantissa/nn/residual.h>
#include <mantissa/nn/tied_head.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

using namespace mantissa;

namespace {

std::vector<float> randomValues(std::size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v)
    x = dist(rng);
  return v;
}

double dotD(std::span<const float> a, std::span<const float> b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
    s += double(a[i]) * double(b[i]);
  return s;
}

// Central differences of L(x) = dot(forward(x), r) for every element of x,
// compared with `analytic`.
void expectGradient(std::vector<float>& x, const std::vector<float>& analytic,
                    const std::function<double()>& loss, const char* what, float h = 1e-2f) {
  ASSERT_EQ(x.size(), analytic.size());
  std::vector<double> numeric(x.size());
  double scale = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float keep = x[i];
    x[i] = keep + h;
    const double plus = loss();
    x[i] = keep - h;
    const double minus = loss();
    x[i] = keep;
    numeric[i] = (plus - minus) / (2.0 * double(h));
    scale = std::max(scale, std::abs(numeric[i]));
  }
  ASSERT_GT(scale, 1e-3) << what << ": gradient vanishes, the check would prove nothing";
  for (std::size_t i = 0; i < x.size(); ++i)
    ASSERT_NEAR(analytic[i], numeric[i], 2e-3 * scale + 2e-4) << what << " element " << i;
}

Tensor tensorOf(const std::vector<float>& v, std::int64_t rows, std::int64_t cols) {
  Tensor t(DType::F32, rows, cols);
  std::copy(v.begin(), v.end(), t.f32().begin());
  return t;
}

} // namespace

TEST(EmbeddingOp, ForwardIsTokenRowPlusPositionRow) {
  const int T = 3, C = 4, V = 5;
  const std::vector<std::int32_t> tokens{4, 0, 4, 1, 1, 2};
  const auto wte = randomValues(V * C, -1, 1, 1), wpe = randomValues(T * C, -1, 1, 2);
  std::vector<float> out(tokens.size() * C);
  nn::embeddingForward(out, tokens, wte, wpe, T, C);
  for (std::size_t n = 0; n < tokens.size(); ++n)
    for (int c = 0; c < C; ++c)
      EXPECT_EQ(out[n * C + c], wte[std::size_t(tokens[n]) * C + c] + wpe[(n % T) * C + c]);
}

TEST(EmbeddingOp, BackwardMatchesCentralDifferencesAndAccumulates) {
  const int T = 3, C = 4, V = 5;
  const std::vector<std::int32_t> tokens{4, 0, 4, 1, 1, 2}; // repeated tokens add up
  auto wte = randomValues(V * C, -1, 1, 1), wpe = randomValues(T * C, -1, 1, 2);
  const auto r = randomValues(tokens.size() * C, -1, 1, 3);
  std::vector<float> dwte(wte.size(), 0.5f), dwpe(wpe.size(), -0.25f);
  nn::embeddingBackward(dwte, dwpe, r, tokens, T, C);
  for (float& v : dwte)
    v -= 0.5f;
  for (float& v : dwpe)
    v += 0.25f;
  std::vector<float> out(r.size());
  auto loss = [&] {
    nn::embeddingForward(out, tokens, wte, wpe, T, C);
    return dotD(out, r);
  };
  expectGradient(wte, dwte, loss, "dwte");
  expectGradient(wpe, dwpe, loss, "dwpe");
}

TEST(LayerNormOp, ForwardMatchesDoubleFormula) {
  const int N = 3, C = 16;
  const auto x = randomValues(N * C, -3, 3, 4), w = randomValues(C, 0.5, 1.5, 5),
             b = randomValues(C, -0.5, 0.5, 6);
  std::vector<float> out(x.size()), mean(N), rstd(N);
  nn::layerNormForward(out, mean, rstd, x, w, b, N, C);
  for (int n = 0; n < N; ++n) {
    double m = 0, v = 0;
    for (int c = 0; c < C; ++c)
      m += x[n * C + c];
    m /= C;
    for (int c = 0; c < C; ++c)
      v += (x[n * C + c] - m) * (x[n * C + c] - m);
    v /= C;
    const double s = 1.0 / std::sqrt(v + 1e-5);
    EXPECT_NEAR(mean[n], m, 1e-6);
    EXPECT_NEAR(rstd[n], s, 1e-5 * s);
    for (int c = 0; c < C; ++c)
      EXPECT_NEAR(out[n * C + c], (x[n * C + c] - m) * s * w[c] + b[c], 1e-5);
  }
}

TEST(LayerNormOp, BackwardMatchesCentralDifferencesAndAccumulates) {
  const int N = 3, C = 16;
  auto x = randomValues(N * C, -3, 3, 4), w = randomValues(C, 0.5, 1.5, 5),
       b = randomValues(C, -0.5, 0.5, 6);
  const auto r = randomValues(N * C, -1, 1, 7);
  std::vector<float> out(x.size()), mean(N), rstd(N);
  nn::layerNormForward(out, mean, rstd, x, w, b, N, C);
  std::vector<float> dx(x.size(), 1.0f), dw(C, 1.0f), db(C, 1.0f);
  nn::layerNormBackward(dx, dw, db, r, x, w, mean, rstd, N, C);
  for (auto* g : {&dx, &dw, &db})
    for (float& v : *g)
      v -= 1.0f;
  auto loss = [&] {
    nn::layerNormForward(out, mean, rstd, x, w, b, N, C);
    return dotD(out, r);
  };
  expectGradient(x, dx, loss, "dx");
  expectGradient(w, dw, loss, "dw");
  expectGradient(b, db, loss, "db");
}

TEST(RmsNormOp, ForwardAndBackwardMatchDoubleAndCentralDifferences) {
  const int N = 3, C = 16;
  auto x = randomValues(N * C, -3, 3, 8), w = randomValues(C, 0.5, 1.5, 9);
  const auto r = randomValues(N * C, -1, 1, 10);
  std::vector<float> out(x.size()), rrms(N);
  nn::rmsNormForward(out, rrms, x, w, N, C);
  for (int n = 0; n < N; ++n) {
    double ms = 0;
    for (int c = 0; c < C; ++c)
      ms += double(x[n * C + c]) * x[n * C + c];
    const double s = 1.0 / std::sqrt(ms / C + 1e-5);
    for (int c = 0; c < C; ++c)
      EXPECT_NEAR(out[n * C + c], x[n * C + c] * s * w[c], 1e-5);
  }
  std::vector<float> dx(x.size(), 2.0f), dw(C, 2.0f);
  nn::rmsNormBackward(dx, dw, r, x, w, rrms, N, C);
  for (auto* g : {&dx, &dw})
    for (float& v : *g)
      v -= 2.0f;
  auto loss = [&] {
    nn::rmsNormForward(out, rrms, x, w, N, C);
    return dotD(out, r);
  };
  expectGradient(x, dx, loss, "dx");
  expectGradient(w, dw, loss, "dw");
}

TEST(NormStatistics, SixteenBitStatisticsDifferFromFp32AndBf16LosesMore) {
  // Rows with a large common offset: the mean in BF16 (8 significant bits)
  // cannot hold 100 + small deviations, so the normalised values go wrong.
  const int N = 4, C = 128;
  auto x = randomValues(N * C, -1, 1, 11);
  for (float& v : x)
    v += 100.0f;
  const std::vector<float> w(C, 1.0f), b(C, 0.0f);
  std::vector<float> ref(x.size()), out(x.size()), mean(N), rstd(N);
  nn::layerNormForward(ref, mean, rstd, x, w, b, N, C);
  auto maxErr = [&](DType stats) {
    nn::layerNormForward(out, mean, rstd, x, w, b, N, C, stats);
    double e = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
      e = std::max(e, std::abs(double(out[i]) - ref[i]));
    return e;
  };
  const double bf16 = maxErr(DType::BF16), f16 = maxErr(DType::F16);
  EXPECT_GT(bf16, 0.5) << "BF16 statistics should visibly corrupt the normalised values";
  EXPECT_GT(bf16, f16);
}

TEST(ResidualOp, ForwardAddsAndBackwardPassesGradientToBoth) {
  const auto a = randomValues(10, -1, 1, 12), b = randomValues(10, -1, 1, 13),
             d = randomValues(10, -1, 1, 14);
  std::vector<float> out(10), da(10, 1.0f), db(10, -1.0f);
  nn::residualForward(out, a, b);
  nn::residualBackward(da, db, d);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(out[i], a[i] + b[i]);
    EXPECT_EQ(da[i], 1.0f + d[i]);
    EXPECT_EQ(db[i], -1.0f + d[i]);
  }
  // A BF16 stream: 1 + 2^-9 is not a BF16 value and rounds to 1.
  std::vector<float> one{1.0f}, tiny{0x1p-9f}, sum(1);
  nn::residualForward(sum, one, tiny, DType::BF16);
  EXPECT_EQ(sum[0], 1.0f);
  nn::residualForward(sum, one, tiny, DType::F32);
  EXPECT_EQ(sum[0], 1.0f + 0x1p-9f);
}

namespace {

// Causal attention in double, written from the definition.
std::vector<double> attentionDouble(const std::vector<float>& qkv, int B, int T, int H, int C) {
  const int D = C / H;
  std::vector<double> out(std::size_t(B) * T * C);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h)
      for (int t = 0; t < T; ++t) {
        auto at = [&](int tt, int part, int d) {
          return double(qkv[(std::size_t(b) * T + tt) * 3 * C + part * C + h * D + d]);
        };
        std::vector<double> s(t + 1);
        double m = -1e300;
        for (int j = 0; j <= t; ++j) {
          double dot = 0;
          for (int d = 0; d < D; ++d)
            dot += at(t, 0, d) * at(j, 1, d);
          s[j] = dot / std::sqrt(double(D));
          m = std::max(m, s[j]);
        }
        double z = 0;
        for (double& v : s)
          z += (v = std::exp(v - m));
        for (int d = 0; d < D; ++d) {
          double o = 0;
          for (int j = 0; j <= t; ++j)
            o += s[j] / z * at(j, 2, d);
          out[(std::size_t(b) * T + t) * C + h * D + d] = o;
        }
      }
  return out;
}

} // namespace

TEST(AttentionOp, ForwardMatchesDoubleDefinition) {
  const int B = 2, T = 5, H = 2, C = 8;
  const auto qkv = randomValues(std::size_t(B) * T * 3 * C, -2, 2, 15);
  nn::CausalSelfAttention attn(B, T, H, C, DType::F32);
  std::vector<float> out(std::size_t(B) * T * C);
  attn.forward(qkv, out);
  const auto ref = attentionDouble(qkv, B, T, H, C);
  for (std::size_t i = 0; i < out.size(); ++i)
    EXPECT_NEAR(out[i], ref[i], 1e-5) << i;
  // Causal: every probability above the diagonal is exactly zero, rows sum to 1.
  const auto p = attn.probs().f32();
  for (std::size_t r = 0; r < std::size_t(B * H * T); ++r) {
    double sum = 0;
    for (std::size_t j = 0; j < std::size_t(T); ++j) {
      if (j > r % T) {
        EXPECT_EQ(p[r * T + j], 0.0f);
      }
      sum += p[r * T + j];
    }
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
}

TEST(AttentionOp, BackwardMatchesCentralDifferences) {
  const int B = 2, T = 4, H = 2, C = 8;
  auto qkv = randomValues(std::size_t(B) * T * 3 * C, -1.5, 1.5, 16);
  const auto r = randomValues(std::size_t(B) * T * C, -1, 1, 17);
  nn::CausalSelfAttention attn(B, T, H, C, DType::F32);
  std::vector<float> out(r.size()), dqkv(qkv.size(), 7.0f); // overwritten, not accumulated
  attn.forward(qkv, out);
  attn.backward(r, dqkv);
  // Keys and values of later positions do not reach earlier outputs: their
  // gradient comes only from the queries that see them.
  expectGradient(qkv, dqkv, [&] {
    attn.forward(qkv, out);
    return dotD(out, r);
  }, "dqkv");
}

TEST(AttentionOp, Bf16ProductsStayCloseToFp32) {
  const int B = 2, T = 8, H = 2, C = 16;
  const auto qkv = randomValues(std::size_t(B) * T * 3 * C, -1, 1, 18);
  nn::CausalSelfAttention f32(B, T, H, C, DType::F32), bf16(B, T, H, C, DType::BF16);
  std::vector<float> a(std::size_t(B) * T * C), b(a.size());
  f32.forward(qkv, a);
  bf16.forward(qkv, b);
  double maxDiff = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    maxDiff = std::max(maxDiff, std::abs(double(a[i]) - b[i]));
  EXPECT_GT(maxDiff, 0.0) << "BF16 inputs must change the result";
  EXPECT_LT(maxDiff, 3e-2) << "8 significant bits: a few 2^-8 relative";
}

TEST(AttentionOp, Fp16SoftmaxWithoutMaxSubtractionOverflowsWhereFp32DoesNot) {
  // Scores of 16 after the 1/sqrt(D) scale: exp(16) = 8.9e6 > 65504.
  const int B = 1, T = 3, H = 1, C = 4;
  std::vector<float> qkv(std::size_t(T) * 3 * C, 0.0f);
  for (int t = 0; t < T; ++t)
    for (int d = 0; d < C; ++d) {
      qkv[std::size_t(t) * 3 * C + d] = 4.0f;         // q
      qkv[std::size_t(t) * 3 * C + C + d] = 2.0f;     // k: q.k = 32, / sqrt(4) = 16
      qkv[std::size_t(t) * 3 * C + 2 * C + d] = 1.0f; // v
    }
  std::vector<float> out(std::size_t(T) * C);
  nn::CausalSelfAttention attn(B, T, H, C, DType::F32);
  attn.setSoftmaxPrecision({DType::F16, true});
  attn.forward(qkv, out);
  for (float v : out) // three probabilities of 1/3 rounded to FP16 sum to 0.99976
    EXPECT_NEAR(v, 1.0f, 2.5e-4f);
  attn.setSoftmaxPrecision({DType::F32, false});
  attn.forward(qkv, out);
  for (float v : out)
    EXPECT_FLOAT_EQ(v, 1.0f);
  attn.setSoftmaxPrecision({DType::F16, false});
  attn.forward(qkv, out);
  for (float v : out)
    EXPECT_TRUE(std::isnan(v)) << "inf / inf in FP16 gives NaN";
}

namespace {

struct AttentionErrors {
  double forward = 0;  // largest relative error of the outputs
  double backward = 0; // largest relative error of dv
};

// One head over T positions with q = 0, so every row's probabilities are
// uniform over its causal prefix: row t's output is the mean of v_0..v_t and,
// with dO = 1, dv_j = sum over t >= j of 1 / (t + 1). Both are long sums
// (up to T = 1024 terms) whose exact values are known in double.
AttentionErrors uniformAttentionErrors(nn::AccumulationPrecision accumulation) {
  const int B = 1, T = 1024, H = 1, C = 2;
  std::vector<float> qkv(std::size_t(T) * 3 * C, 0.0f);
  for (int t = 0; t < T; ++t)
    for (int d = 0; d < C; ++d)
      qkv[std::size_t(t) * 3 * C + 2 * C + d] = 1.0f + float(t % 89) / 128.0f + float(d) / 4.0f;
  nn::CausalSelfAttention attn(B, T, H, C, DType::F32, accumulation);
  std::vector<float> out(std::size_t(T) * C), dout(out.size(), 1.0f), dqkv(qkv.size());
  attn.forward(qkv, out);
  attn.backward(dout, dqkv);
  AttentionErrors e;
  for (int d = 0; d < C; ++d) {
    double sum = 0;
    for (int t = 0; t < T; ++t) {
      sum += qkv[std::size_t(t) * 3 * C + 2 * C + d];
      const double want = sum / (t + 1);
      e.forward = std::max(e.forward, std::abs(out[std::size_t(t) * C + d] - want) / want);
    }
    double tail = 0;
    for (int j = T - 1; j >= 0; --j) {
      tail += 1.0 / (j + 1);
      const double got = dqkv[std::size_t(j) * 3 * C + 2 * C + d];
      e.backward = std::max(e.backward, std::abs(got - tail) / tail);
    }
  }
  return e;
}

} // namespace

// Attention's products with the accumulator emulated in 16 bits: rounding
// the running sum after every addition loses far more than FP32 does, and
// promoting the partial sums to FP32 every N_C products wins most of it back.
TEST(AttentionOp, SixteenBitAccumulationOfTheProductsLosesWhatPromotionKeeps) {
  const AttentionErrors fp32 = uniformAttentionErrors({});
  const AttentionErrors fp16 = uniformAttentionErrors({DType::F16, 0});
  const AttentionErrors bf16 = uniformAttentionErrors({DType::BF16, 0});
  const AttentionErrors promoted = uniformAttentionErrors({DType::F16, 16});
  // FP32: a few units of 2^-24 per addition at most.
  EXPECT_LT(fp32.forward, 1e-5);
  EXPECT_LT(fp32.backward, 1e-5);
  // FP16 (unit roundoff u = 2^-11 = 4.9e-4) and BF16 (2^-8 = 3.9e-3) sums
  // over a thousand terms drift by tens of units: once the sum is large
  // against the terms, each addition loses up to half a unit.
  EXPECT_GT(fp16.forward, 5e-3);
  EXPECT_GT(fp16.backward, 5e-3);
  EXPECT_GT(bf16.forward, 5e-2);
  EXPECT_GT(bf16.backward, 5e-2);
  // Promoted every 16 products: each partial sum has at most 16 terms, so
  // the error stays within a few units u of FP16, whatever the length.
  EXPECT_LT(promoted.forward, 4 * 0x1p-11);
  EXPECT_LT(promoted.backward, 4 * 0x1p-11);
  EXPECT_LT(promoted.forward, fp16.forward / 8);
  EXPECT_LT(promoted.backward, fp16.backward / 8);
  std::printf("max relative error, forward / dv: fp32 %.2e / %.2e, fp16 %.2e / %.2e, "
              "bf16 %.2e / %.2e, fp16 promoted every 16 %.2e / %.2e\n",
              fp32.forward, fp32.backward, fp16.forward, fp16.backward, bf16.forward,
              bf16.backward, promoted.forward, promoted.backward);
}

TEST(AttentionOp, EmulatedAccumulationIsNamedInTheImplementation) {
  nn::CausalSelfAttention plain(1, 4, 1, 4, DType::BF16);
  nn::CausalSelfAttention summed(1, 4, 1, 4, DType::BF16, {DType::F16, 128});
  EXPECT_FALSE(plain.accumulationEmulated());
  EXPECT_TRUE(summed.accumulationEmulated());
  EXPECT_EQ(summed.implementation(),
            "emulated FP16 accumulation, promoted to FP32 every 128 (plain loops)");
  EXPECT_THROW(nn::CausalSelfAttention(1, 4, 1, 4, DType::F32, {DType::F16, -1}),
               std::invalid_argument);
}

TEST(TiedHeadOp, LogitsAreRowsDotEmbeddingAndBackwardMatchesCentralDifferences) {
  const int N = 6, C = 4, V = 5;
  auto x = randomValues(std::size_t(N) * C, -1, 1, 19), wte = randomValues(std::size_t(V) * C, -1, 1, 20);
  const auto r = randomValues(std::size_t(N) * V, -1, 1, 21);
  nn::TiedHead head(N, C, V, DType::F32);
  Tensor logits(DType::F32, N, V);
  head.forward(tensorOf(x, N, C), tensorOf(wte, V, C), logits);
  for (int n = 0; n < N; ++n)
    for (int v = 0; v < V; ++v) {
      double dot = 0;
      for (int c = 0; c < C; ++c)
        dot += double(x[n * C + c]) * wte[v * C + c];
      EXPECT_NEAR(logits.f32()[std::size_t(n) * V + v], dot, 1e-6);
    }
  Tensor dx(DType::F32, N, C), dwte = tensorOf(std::vector<float>(std::size_t(V) * C, 3.0f), V, C);
  const Tensor dlogits = tensorOf(r, N, V);
  head.backwardData(dlogits, tensorOf(wte, V, C), dx);
  head.backwardWeights(dlogits, tensorOf(x, N, C), dwte);
  std::vector<float> gx(dx.f32().begin(), dx.f32().end()), gw(dwte.f32().begin(), dwte.f32().end());
  for (float& v : gw)
    v -= 3.0f; // accumulated onto the embedding's gradient
  auto loss = [&] {
    head.forward(tensorOf(x, N, C), tensorOf(wte, V, C), logits);
    return dotD(logits.f32(), r);
  };
  expectGradient(x, gx, loss, "dx");
  expectGradient(wte, gw, loss, "dwte");
}
