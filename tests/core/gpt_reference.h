// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A GPT forward pass in double precision, written from the architecture's
// definition with plain loops and no code shared with the library: the
// truth the FP32 model is held to. Gradients come from central differences
// of this forward pass (in double the difference error is ~1e-10, far below
// the tolerances of the comparison).
//
// Parameters by name with the library's storage convention (Linear weights
// [in, out], embeddings [rows, C]); see model/gpt.h for the names.

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gptref {

struct Config {
  int layers, heads, embd, ctx, vocab, batch;
};

using Params = std::map<std::string, std::vector<double>>;

inline std::vector<double> layerNorm(const std::vector<double>& x, const std::vector<double>& w,
                                     const std::vector<double>& b, int rows, int C) {
  std::vector<double> out(x.size());
  for (int n = 0; n < rows; ++n) {
    double mean = 0, var = 0;
    for (int c = 0; c < C; ++c)
      mean += x[n * C + c];
    mean /= C;
    for (int c = 0; c < C; ++c)
      var += (x[n * C + c] - mean) * (x[n * C + c] - mean);
    var /= C;
    const double inv = 1.0 / std::sqrt(var + 1e-5);
    for (int c = 0; c < C; ++c)
      out[n * C + c] = (x[n * C + c] - mean) * inv * w[c] + b[c];
  }
  return out;
}

// y[rows, O] = x[rows, I] W[I, O] + b[O]
inline std::vector<double> linear(const std::vector<double>& x, const std::vector<double>& W,
                                  const std::vector<double>& b, int rows, int I, int O) {
  std::vector<double> y(std::size_t(rows) * O);
  for (int n = 0; n < rows; ++n)
    for (int o = 0; o < O; ++o) {
      double s = b[o];
      for (int i = 0; i < I; ++i)
        s += x[n * I + i] * W[i * O + o];
      y[n * O + o] = s;
    }
  return y;
}

inline double gelu(double x) {
  const double k = std::sqrt(2.0 / 3.14159265358979323846);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}

// Mean cross-entropy of the next-token predictions; the logits [B*T, V]
// into *logitsOut when given.
inline double loss(const Config& cfg, const Params& P, const std::vector<std::int32_t>& tokens,
                   const std::vector<std::int32_t>& targets,
                   std::vector<double>* logitsOut = nullptr) {
  const int B = cfg.batch, T = cfg.ctx, C = cfg.embd, H = cfg.heads, V = cfg.vocab;
  const int N = B * T, D = C / H;
  std::vector<double> x(std::size_t(N) * C);
  for (int n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c)
      x[n * C + c] = P.at("wte")[tokens[n] * C + c] + P.at("wpe")[(n % T) * C + c];
  for (int l = 0; l < cfg.layers; ++l) {
    const std::string p = "h" + std::to_string(l) + ".";
    const auto a = layerNorm(x, P.at(p + "ln1.w"), P.at(p + "ln1.b"), N, C);
    const auto qkv = linear(a, P.at(p + "qkv.w"), P.at(p + "qkv.b"), N, C, 3 * C);
    std::vector<double> y(std::size_t(N) * C, 0.0);
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < H; ++h)
        for (int t = 0; t < T; ++t) {
          std::vector<double> w(t + 1);
          double mx = -1e300;
          for (int s = 0; s <= t; ++s) {
            double dot = 0;
            for (int d = 0; d < D; ++d)
              dot += qkv[(b * T + t) * 3 * C + h * D + d] * qkv[(b * T + s) * 3 * C + C + h * D + d];
            w[s] = dot / std::sqrt(double(D));
            mx = std::max(mx, w[s]);
          }
          double z = 0;
          for (int s = 0; s <= t; ++s)
            z += (w[s] = std::exp(w[s] - mx));
          for (int d = 0; d < D; ++d) {
            double o = 0;
            for (int s = 0; s <= t; ++s)
              o += w[s] / z * qkv[(b * T + s) * 3 * C + 2 * C + h * D + d];
            y[(b * T + t) * C + h * D + d] = o;
          }
        }
    const auto proj = linear(y, P.at(p + "attproj.w"), P.at(p + "attproj.b"), N, C, C);
    for (std::size_t i = 0; i < x.size(); ++i)
      x[i] += proj[i];
    const auto m = layerNorm(x, P.at(p + "ln2.w"), P.at(p + "ln2.b"), N, C);
    auto hidden = linear(m, P.at(p + "fc.w"), P.at(p + "fc.b"), N, C, 4 * C);
    for (double& v : hidden)
      v = gelu(v);
    const auto out = linear(hidden, P.at(p + "fcproj.w"), P.at(p + "fcproj.b"), N, 4 * C, C);
    for (std::size_t i = 0; i < x.size(); ++i)
      x[i] += out[i];
  }
  const auto f = layerNorm(x, P.at("lnf.w"), P.at("lnf.b"), N, C);
  double total = 0;
  if (logitsOut)
    logitsOut->assign(std::size_t(N) * V, 0.0);
  for (int n = 0; n < N; ++n) {
    std::vector<double> logit(V);
    double mx = -1e300;
    for (int v = 0; v < V; ++v) {
      double s = 0;
      for (int c = 0; c < C; ++c)
        s += f[n * C + c] * P.at("wte")[v * C + c]; // tied head
      logit[v] = s;
      if (logitsOut)
        (*logitsOut)[std::size_t(n) * V + v] = s;
      mx = std::max(mx, s);
    }
    double z = 0;
    for (double s : logit)
      z += std::exp(s - mx);
    total += std::log(z) + mx - logit[targets[n]];
  }
  return total / N;
}

} // namespace gptref
