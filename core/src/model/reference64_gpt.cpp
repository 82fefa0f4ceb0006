// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The GPT in double (model/gpt.h without the policy's roundings). N = B*T
// rows, C channels, H heads of D = C/H, V vocabulary; Linear W [in, out].
//   x0   = wte[token] + wpe[t]                          "embedding output"
//   block l: x = its input                              "h<l>.ln1 input"
//     qkv  = ln1(x) . Wqkv + bqkv        [N, 3C]         "h<l>.qkv output"
//     P    = softmax(q k^T / sqrt(D), causal)           "h<l>.attention probs"
//            [B*H*T, T]: row (b*H + h)*T + t, column s, 0 where s > t
//     y    = P v, head h in columns h*D..  [N, C]       "h<l>.attention output"
//     a    = y . Wap + bap                              "h<l>.attproj output"
//     r    = x + a                                      "h<l>.ln2 input"
//     f    = ln2(r) . Wfc + bfc          [N, 4C]         "h<l>.fc output"
//     g    = gelu(f) (tanh form)                        "h<l>.gelu output"
//     p    = g . Wfp + bfp                              "h<l>.fcproj output"
//     next x = r + p
//   xL   = the last block's output                      "lnf input"
//   logits = lnf(xL) . wte^T             [N, V]          "logits"
//   loss = mean over the N positions of cross-entropy
// LayerNorm: (x - mean) / sqrt(biased var + 1e-5) * w + b over the C channels.
#include "reference64.h"

#include <mantissa/model/gpt_network.h>

#include <algorithm>
#include <cmath>

namespace mantissa::model::ref64 {
namespace {

constexpr double kNormEps = 1e-5;

class GptReference final : public Reference64 {
public:
  explicit GptReference(const GptNetwork& network) {
    const Gpt& model = network.gpt();
    const GptSpec& spec = model.spec();
    m_B = model.batch();
    m_T = spec.ctx;
    m_C = spec.embd;
    m_H = spec.heads;
    m_V = model.vocabulary();
    const int N = m_B * m_T, C = m_C, T = m_T, V = m_V;
    const auto NC = std::size_t(N) * C;
    m_tokens.assign(std::size_t(N), 0);
    m_targets.assign(std::size_t(N), 0);
    auto param = [&](const std::string& name, std::size_t count) {
      m_params.push_back(
          {name, std::vector<double>(count), m_store.add(name + " gradient", count)});
      return m_params.size() - 1;
    };
    m_wte = param("wte", std::size_t(V) * C);
    m_wpe = param("wpe", std::size_t(T) * C);
    m_encoded = m_store.add("embedding output", NC);
    m_blocks.resize(std::size_t(spec.layers));
    for (int l = 0; l < spec.layers; ++l) {
      Block& b = m_blocks[std::size_t(l)];
      const std::string h = "h" + std::to_string(l) + ".";
      b.ln1w = param(h + "ln1.w", std::size_t(C));
      param(h + "ln1.b", std::size_t(C));
      b.qkvw = param(h + "qkv.w", std::size_t(C) * 3 * C);
      param(h + "qkv.b", std::size_t(3) * C);
      b.apw = param(h + "attproj.w", std::size_t(C) * C);
      param(h + "attproj.b", std::size_t(C));
      b.ln2w = param(h + "ln2.w", std::size_t(C));
      param(h + "ln2.b", std::size_t(C));
      b.fcw = param(h + "fc.w", std::size_t(C) * 4 * C);
      param(h + "fc.b", std::size_t(4) * C);
      b.fpw = param(h + "fcproj.w", std::size_t(4) * C * C);
      param(h + "fcproj.b", std::size_t(C));
      b.x = m_store.add(h + "ln1 input", NC);
      b.qkv = m_store.add(h + "qkv output", 3 * NC);
      b.probs = m_store.add(h + "attention probs", std::size_t(m_B) * m_H * T * T);
      b.atty = m_store.add(h + "attention output", NC);
      b.attproj = m_store.add(h + "attproj output", NC);
      b.r = m_store.add(h + "ln2 input", NC);
      b.fch = m_store.add(h + "fc output", 4 * NC);
      b.gelu = m_store.add(h + "gelu output", 4 * NC);
      b.fcproj = m_store.add(h + "fcproj output", NC);
      b.geluS.assign(4 * NC, 0.0);
      b.ln1.assign(NC, 0.0);
      b.ln2.assign(NC, 0.0);
      b.ln1Mean.assign(std::size_t(N), 0.0);
      b.ln1Rstd.assign(std::size_t(N), 0.0);
      b.ln2Mean.assign(std::size_t(N), 0.0);
      b.ln2Rstd.assign(std::size_t(N), 0.0);
    }
    m_lnfw = param("lnf.w", std::size_t(C));
    param("lnf.b", std::size_t(C));
    m_xL = m_store.add("lnf input", NC);
    m_logits = m_store.add("logits", std::size_t(N) * V);
    m_lnf.assign(NC, 0.0);
    m_lnfMean.assign(std::size_t(N), 0.0);
    m_lnfRstd.assign(std::size_t(N), 0.0);
    m_dlogits.assign(std::size_t(N) * V, 0.0);
    m_dres.assign(NC, 0.0);
    m_dln.assign(NC, 0.0);
    m_datty.assign(NC, 0.0);
    m_dqkv.assign(3 * NC, 0.0);
    m_dfch.assign(4 * NC, 0.0);
    std::size_t scratch = 0;
    for (const auto& [in, out] : {std::pair{C, 3 * C}, {C, C}, {C, 4 * C}, {4 * C, C}})
      scratch =
          std::max({scratch, gemmScratch(false, false, N, out, in),
                    gemmScratch(true, false, in, out, N), gemmScratch(false, true, N, in, out)});
    scratch = std::max({scratch, gemmScratch(false, true, N, V, C),
                        gemmScratch(true, false, V, C, N), gemmScratch(false, false, N, C, V)});
    m_scratch.assign(scratch, 0.0);
    // Per thread: dP [T, T] and the attention products' transposed operands.
    const int D = C / m_H;
    std::size_t attention = 0;
    for (int t0 = 0; t0 < T; t0 += kRows) {
      const int rows = std::min(kRows, T - t0);
      attention = std::max({attention, gemmScratch(false, true, rows, t0 + rows, D),
                            gemmScratch(true, false, rows, D, T - t0),
                            gemmScratch(false, false, rows, D, t0 + rows)});
    }
    m_threadScratch = std::size_t(T) * T + attention;
    m_threads = threads();
    m_attention.assign(m_threadScratch * std::size_t(m_threads), 0.0);
  }

private:
  struct Block {
    std::size_t ln1w, qkvw, apw, ln2w, fcw, fpw; // parameter indices; each bias follows its weight
    double *x, *qkv, *probs, *atty, *attproj, *r, *fch, *gelu, *fcproj;
    std::vector<double> ln1, ln2, ln1Mean, ln1Rstd, ln2Mean, ln2Rstd;
    std::vector<double> geluS; // [N, 4C] 0.5 (1 + tanh) of the GELU, for backward
  };

  const double* value(std::size_t i) const { return m_params[i].value.data(); }
  double* grad(std::size_t i) { return m_params[i].grad; }

  void loadBatch(const ShadowBatch& batch) override {
    checkIds(batch.tokens, m_tokens.size(), m_V, "tokens");
    checkIds(batch.labels, m_targets.size(), m_V, "labels");
    std::copy(batch.tokens.begin(), batch.tokens.end(), m_tokens.begin());
    std::copy(batch.labels.begin(), batch.labels.end(), m_targets.begin());
  }

  // Rows per piece of the row-wise loops spread over the team.
  std::size_t rowPiece() const { return std::max<std::size_t>(1, 8192 / std::size_t(m_C)); }

  void layerNorm(double* out, double* mean, double* rstd, const double* in, std::size_t w) const {
    const int N = m_B * m_T, C = m_C;
    const double* g = value(w);
    const double* b = value(w + 1);
    forPieces(
        std::size_t(N),
        [&](std::size_t n0, std::size_t n1) {
          for (std::size_t n = n0; n < n1; ++n) {
            const double* x = in + n * C;
            double* y = out + n * C;
            double s = 0.0;
            for (int c = 0; c < C; ++c)
              s += x[c];
            const double mu = s / C;
            double v = 0.0;
            for (int c = 0; c < C; ++c)
              v += (x[c] - mu) * (x[c] - mu);
            const double rs = 1.0 / std::sqrt(v / C + kNormEps);
            mean[n] = mu;
            rstd[n] = rs;
            for (int c = 0; c < C; ++c)
              y[c] = (x[c] - mu) * rs * g[c] + b[c];
          }
        },
        rowPiece());
  }

  // dx += LayerNorm backward of dy; the weight's and bias's gradients overwritten.
  void layerNormBackward(double* dx, const double* dy, const double* in, const double* mean,
                         const double* rstd, std::size_t w) {
    const int N = m_B * m_T, C = m_C;
    const double* g = value(w);
    forPieces(
        std::size_t(N),
        [&](std::size_t n0, std::size_t n1) {
          for (std::size_t n = n0; n < n1; ++n) {
            const double* x = in + n * C;
            const double* d = dy + n * C;
            double* o = dx + n * C;
            const double mu = mean[n], rs = rstd[n];
            double sum = 0.0, dot = 0.0;
            for (int c = 0; c < C; ++c) {
              const double dxhat = d[c] * g[c];
              sum += dxhat;
              dot += dxhat * (x[c] - mu) * rs;
            }
            sum /= C;
            dot /= C;
            for (int c = 0; c < C; ++c)
              o[c] += rs * (d[c] * g[c] - sum - (x[c] - mu) * rs * dot);
          }
        },
        rowPiece());
    double* dg = grad(w);
    double* db = grad(w + 1);
    std::fill(dg, dg + C, 0.0);
    std::fill(db, db + C, 0.0);
    for (int n = 0; n < N; ++n) {
      const double* x = in + std::size_t(n) * C;
      const double* d = dy + std::size_t(n) * C;
      const double mu = mean[n], rs = rstd[n];
      for (int c = 0; c < C; ++c) {
        dg[c] += d[c] * (x[c] - mu) * rs;
        db[c] += d[c];
      }
    }
  }

  // y[N, out] = x . W + b
  void linear(const double* x, std::size_t w, int in, int out, double* y) {
    const int N = m_B * m_T;
    gemm(false, false, N, out, in, x, in, value(w), out, y, out, false, m_scratch);
    const double* b = value(w + 1);
    forPieces(
        std::size_t(N),
        [&](std::size_t n0, std::size_t n1) {
          for (std::size_t n = n0; n < n1; ++n)
            for (int o = 0; o < out; ++o)
              y[n * out + o] += b[o];
        },
        rowPiece());
  }

  // dW = x^T dy, db = column sums of dy, dx = dy W^T.
  void linearBackward(const double* dy, const double* x, std::size_t w, int in, int out,
                      double* dx) {
    const int N = m_B * m_T;
    gemm(true, false, in, out, N, x, in, dy, out, grad(w), out, false, m_scratch);
    double* db = grad(w + 1);
    std::fill(db, db + out, 0.0);
    for (int n = 0; n < N; ++n)
      for (int o = 0; o < out; ++o)
        db[o] += dy[std::size_t(n) * out + o];
    gemm(false, true, N, in, out, dy, out, value(w), out, dx, in, false, m_scratch);
  }

  // The causal products run on blocks of kRows query rows, each up to the
  // last key its rows see: the masked half of S, P and their gradients is
  // neither computed nor read (P holds zeros there).
  static constexpr int kRows = 16;

  void attentionForward(Block& k) {
    const int T = m_T, C = m_C, H = m_H, D = C / H;
    const double scale = 1.0 / std::sqrt(double(D));
    parallelFor(
        m_B * H,
        [&](int thread, int g) {
          const int b = g / H, h = g % H;
          const std::span<double> scratch(
              m_attention.data() + std::size_t(thread) * m_threadScratch, m_threadScratch);
          const double* q = k.qkv + std::size_t(b) * T * 3 * C + std::size_t(h) * D;
          double* P = k.probs + std::size_t(g) * T * T;
          for (int t0 = 0; t0 < T; t0 += kRows) {
            const int rows = std::min(kRows, T - t0);
            gemm(false, true, rows, t0 + rows, D, q + std::size_t(t0) * 3 * C, 3 * C, q + C, 3 * C,
                 P + std::size_t(t0) * T, T, false, scratch, false);
          }
          for (int t = 0; t < T; ++t) {
            double* row = P + std::size_t(t) * T;
            double mx = row[0] * scale;
            for (int s = 0; s <= t; ++s)
              mx = std::max(mx, row[s] * scale);
            double sum = 0.0;
            for (int s = 0; s <= t; ++s)
              sum += (row[s] = std::exp(row[s] * scale - mx));
            for (int s = 0; s <= t; ++s)
              row[s] /= sum;
            for (int s = t + 1; s < T; ++s)
              row[s] = 0.0;
          }
        },
        m_threads);
    touch(k.probs);
    parallelFor(
        m_B * H,
        [&](int thread, int g) {
          const int b = g / H, h = g % H;
          const std::span<double> scratch(
              m_attention.data() + std::size_t(thread) * m_threadScratch, m_threadScratch);
          const double* v = k.qkv + std::size_t(b) * T * 3 * C + 2 * C + std::size_t(h) * D;
          const double* P = k.probs + std::size_t(g) * T * T;
          double* y = k.atty + std::size_t(b) * T * C + std::size_t(h) * D;
          for (int t0 = 0; t0 < T; t0 += kRows) {
            const int rows = std::min(kRows, T - t0);
            gemm(false, false, rows, D, t0 + rows, P + std::size_t(t0) * T, T, v, 3 * C,
                 y + std::size_t(t0) * C, C, false, scratch, false);
          }
        },
        m_threads);
  }

  // dqkv from datty.
  void attentionBackward(const Block& k) {
    const int T = m_T, C = m_C, H = m_H, D = C / H;
    const double scale = 1.0 / std::sqrt(double(D));
    parallelFor(
        m_B * H,
        [&](int thread, int g) {
          const int b = g / H, h = g % H;
          double* dP = m_attention.data() + std::size_t(thread) * m_threadScratch;
          const std::span<double> scratch(dP + std::size_t(T) * T,
                                          m_threadScratch - std::size_t(T) * T);
          const std::size_t rowOff = std::size_t(b) * T;
          const double* q = k.qkv + rowOff * 3 * C + std::size_t(h) * D;
          const double* kk = q + C;
          const double* v = q + 2 * C;
          double* dq = m_dqkv.data() + rowOff * 3 * C + std::size_t(h) * D;
          double* dk = dq + C;
          double* dv = dq + 2 * C;
          const double* dO = m_datty.data() + rowOff * C + std::size_t(h) * D;
          const double* P = k.probs + std::size_t(g) * T * T;
          for (int t0 = 0; t0 < T;
               t0 += kRows) { // dP = dO v^T; dv = P^T dO (keys s0.. see queries s0..)
            const int rows = std::min(kRows, T - t0);
            gemm(false, true, rows, t0 + rows, D, dO + std::size_t(t0) * C, C, v, 3 * C,
                 dP + std::size_t(t0) * T, T, false, scratch, false);
            gemm(true, false, rows, D, T - t0, P + std::size_t(t0) * T + t0, T,
                 dO + std::size_t(t0) * C, C, dv + std::size_t(t0) * 3 * C, 3 * C, false, scratch,
                 false);
          }
          for (int t = 0; t < T; ++t) {
            double* d = dP + std::size_t(t) * T;
            const double* p = P + std::size_t(t) * T;
            double dot = 0.0;
            for (int s = 0; s <= t; ++s)
              dot += d[s] * p[s];
            for (int s = 0; s <= t; ++s)
              d[s] = p[s] * (d[s] - dot) * scale;
            for (int s = t + 1; s < T; ++s)
              d[s] = 0.0;
          }
          for (int t0 = 0; t0 < T; t0 += kRows) { // dq = dS k; dk = dS^T q
            const int rows = std::min(kRows, T - t0);
            gemm(false, false, rows, D, t0 + rows, dP + std::size_t(t0) * T, T, kk, 3 * C,
                 dq + std::size_t(t0) * 3 * C, 3 * C, false, scratch, false);
            gemm(true, false, rows, D, T - t0, dP + std::size_t(t0) * T + t0, T,
                 q + std::size_t(t0) * 3 * C, 3 * C, dk + std::size_t(t0) * 3 * C, 3 * C, false,
                 scratch, false);
          }
        },
        m_threads);
  }

  double forward() override {
    const int N = m_B * m_T, T = m_T, C = m_C, V = m_V;
    const auto NC = std::size_t(N) * C;
    const double* wte = value(m_wte);
    const double* wpe = value(m_wpe);
    for (int n = 0; n < N; ++n)
      for (int c = 0; c < C; ++c)
        m_encoded[std::size_t(n) * C + c] =
            wte[std::size_t(m_tokens[std::size_t(n)]) * C + c] + wpe[std::size_t(n % T) * C + c];
    touch(m_encoded);
    const double* x = m_encoded;
    for (Block& k : m_blocks) {
      std::copy(x, x + NC, k.x);
      touch(k.x);
      layerNorm(k.ln1.data(), k.ln1Mean.data(), k.ln1Rstd.data(), k.x, k.ln1w);
      linear(k.ln1.data(), k.qkvw, C, 3 * C, k.qkv);
      touch(k.qkv);
      attentionForward(k);
      touch(k.atty);
      linear(k.atty, k.apw, C, C, k.attproj);
      touch(k.attproj);
      for (std::size_t i = 0; i < NC; ++i)
        k.r[i] = k.x[i] + k.attproj[i];
      touch(k.r);
      layerNorm(k.ln2.data(), k.ln2Mean.data(), k.ln2Rstd.data(), k.r, k.ln2w);
      linear(k.ln2.data(), k.fcw, C, 4 * C, k.fch);
      touch(k.fch);
      forPieces(4 * NC, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) {
          const double s = geluSigmoid(k.fch[i]);
          k.geluS[i] = s;
          k.gelu[i] = k.fch[i] * s;
        }
      });
      touch(k.gelu);
      linear(k.gelu, k.fpw, 4 * C, C, k.fcproj);
      touch(k.fcproj);
      for (std::size_t i = 0; i < NC; ++i)
        m_xL[i] = k.r[i] + k.fcproj[i];
      x = m_xL;
    }
    touch(m_xL);
    layerNorm(m_lnf.data(), m_lnfMean.data(), m_lnfRstd.data(), m_xL, m_lnfw);
    gemm(false, true, N, V, C, m_lnf.data(), C, wte, C, m_logits, V, false, m_scratch);
    touch(m_logits);
    return softmaxXent(m_logits, m_targets.data(), N, V, m_dlogits.data());
  }

  void backward() override {
    const int N = m_B * m_T, T = m_T, C = m_C, V = m_V;
    const auto NC = std::size_t(N) * C;
    // Tied head: dlnf = dlogits . wte, dwte = dlogits^T . lnf (the embedding adds to it).
    gemm(false, false, N, C, V, m_dlogits.data(), V, value(m_wte), C, m_dln.data(), C, false,
         m_scratch);
    gemm(true, false, V, C, N, m_dlogits.data(), V, m_lnf.data(), C, grad(m_wte), C, false,
         m_scratch);
    std::fill(m_dres.begin(), m_dres.end(), 0.0);
    layerNormBackward(m_dres.data(), m_dln.data(), m_xL, m_lnfMean.data(), m_lnfRstd.data(),
                      m_lnfw);
    for (auto it = m_blocks.rbegin(); it != m_blocks.rend(); ++it) {
      Block& k = *it;
      // dres is the gradient of both r and the fc projection's output.
      linearBackward(m_dres.data(), k.gelu, k.fpw, 4 * C, C, m_dfch.data());
      forPieces(4 * NC, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i)
          m_dfch[i] *= geluGradFrom(k.fch[i], k.geluS[i]);
      });
      linearBackward(m_dfch.data(), k.ln2.data(), k.fcw, C, 4 * C, m_dln.data());
      layerNormBackward(m_dres.data(), m_dln.data(), k.r, k.ln2Mean.data(), k.ln2Rstd.data(),
                        k.ln2w);
      // dres is now the gradient of r: of both x and the attention projection's output.
      linearBackward(m_dres.data(), k.atty, k.apw, C, C, m_datty.data());
      attentionBackward(k);
      linearBackward(m_dqkv.data(), k.ln1.data(), k.qkvw, C, 3 * C, m_dln.data());
      layerNormBackward(m_dres.data(), m_dln.data(), k.x, k.ln1Mean.data(), k.ln1Rstd.data(),
                        k.ln1w);
    }
    double* dwte = grad(m_wte);
    double* dwpe = grad(m_wpe);
    std::fill(dwpe, dwpe + std::size_t(T) * C, 0.0);
    for (int n = 0; n < N; ++n) {
      const double* d = m_dres.data() + std::size_t(n) * C;
      double* e = dwte + std::size_t(m_tokens[std::size_t(n)]) * C;
      double* p = dwpe + std::size_t(n % T) * C;
      for (int c = 0; c < C; ++c) {
        e[c] += d[c];
        p[c] += d[c];
      }
    }
  }

  std::span<Param> params() override { return m_params; }

  int m_B = 0, m_T = 0, m_C = 0, m_H = 0, m_V = 0;
  std::vector<std::int32_t> m_tokens, m_targets;
  std::vector<Param> m_params;
  std::size_t m_wte = 0, m_wpe = 0, m_lnfw = 0;
  std::vector<Block> m_blocks;
  double* m_encoded = nullptr;
  double* m_xL = nullptr;
  double* m_logits = nullptr;
  std::vector<double> m_lnf, m_lnfMean, m_lnfRstd;
  std::vector<double> m_dlogits, m_dres, m_dln, m_datty, m_dqkv, m_dfch;
  std::vector<double> m_scratch;   // the products' transposed operands
  int m_threads = 1;               // the team size m_attention is made for
  std::size_t m_threadScratch = 0; // values per thread in m_attention
  std::vector<double> m_attention; // per thread: dP and the attention products' scratch
};

} // namespace

std::unique_ptr<Reference64> makeGptReference(const GptNetwork& model) {
  return std::make_unique<GptReference>(model);
}

} // namespace mantissa::model::ref64
