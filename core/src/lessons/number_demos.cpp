// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Lessons 1, 2 and 5: format anatomy, update swamping and its fixes,
// accumulation, softmax and layer norm. Every rounding goes through the
// numeric core's codec (one rounding of the exact double argument).
#include <mantissa/lessons/demos.h>

#include <mantissa/numeric/codec.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace mantissa::lessons {

using numeric::FormatId;

namespace {

// round(x) to `format`, nearest even, as a double (exact: every format fits).
double roundTo(FormatId format, double x) {
  const auto& f = numeric::formatInfo(format);
  return numeric::toDouble(f, numeric::encode(f, x).bits);
}

bool sampleDue(int step, int steps, int every) { return step % every == 0 || step == steps; }

} // namespace

std::vector<FormatRow> formatTable() {
  std::vector<FormatRow> rows;
  for (FormatId id : numeric::explorerFormats()) {
    const auto& f = numeric::formatInfo(id);
    rows.push_back({std::string(f.displayName), f.totalBits(), f.exponentBits, f.mantissaBits,
                    f.bias(), f.maxFinite(), f.minNormal(), f.minSubnormal(), f.epsilon()});
  }
  return rows;
}

double ulpAt(FormatId format, double at) {
  const auto& f = numeric::formatInfo(format);
  const auto r = numeric::encode(f, at);
  if (r.overflowed) return std::numeric_limits<double>::quiet_NaN();
  return numeric::ulp(f, r.bits);
}

std::vector<UlpRow> ulpRuler() {
  std::vector<UlpRow> rows;
  for (FormatId id : numeric::explorerFormats())
    rows.push_back({std::string(numeric::formatInfo(id).displayName), ulpAt(id, 1.0),
                    ulpAt(id, 1000.0), ulpAt(id, 65504.0)});
  return rows;
}

Trajectory swampTrajectory(FormatId format, double w0, double u, int steps, int every) {
  Trajectory t{std::string(numeric::formatInfo(format).displayName), {}, {}};
  // The update itself is stored in the working format first, as a trainer would.
  const double uStored = roundTo(format, u);
  double w = roundTo(format, w0);
  for (int s = 0; s <= steps; ++s) {
    if (s > 0) w = roundTo(format, w + uStored);
    if (sampleDue(s, steps, every)) {
      t.steps.push_back(s);
      t.w.push_back(w);
    }
  }
  return t;
}

SwampingDemo swampingDemo(int steps, int every) {
  SwampingDemo d;
  for (FormatId id : {FormatId::Fp32, FormatId::Bf16, FormatId::Fp16})
    d.runs.push_back(swampTrajectory(id, 1.0, -1e-4, steps, every));
  return d;
}

int swampRatioLog2(FormatId format) {
  // |u| < ULP(w)/2 = epsilon*w/2 for w a power of two  <=>  w/|u| > 2/epsilon.
  return static_cast<int>(std::lround(std::log2(2.0 / numeric::formatInfo(format).epsilon())));
}

Trajectory masterCopyFix(double w0, double u, int steps, int every) {
  Trajectory t{"BF16 copy of an FP32 master", {}, {}};
  double master = roundTo(FormatId::Fp32, w0);
  const double u32 = roundTo(FormatId::Fp32, u);
  for (int s = 0; s <= steps; ++s) {
    if (s > 0) master = roundTo(FormatId::Fp32, master + u32);
    if (sampleDue(s, steps, every)) {
      t.steps.push_back(s);
      t.w.push_back(roundTo(FormatId::Bf16, master)); // what the 16-bit forward pass sees
    }
  }
  return t;
}

Trajectory kahanFix(double w0, double u, int steps, int every) {
  Trajectory t{"BF16 + Kahan compensation", {}, {}};
  const auto r = [](double x) { return roundTo(FormatId::Bf16, x); };
  double w = r(w0), c = 0.0; // c: what the last additions lost (BF16)
  const double ub = r(u);
  for (int s = 0; s <= steps; ++s) {
    if (s > 0) {
      const double y = r(ub - c);
      const double sum = r(w + y);
      c = r(r(sum - w) - y);
      w = sum;
    }
    if (sampleDue(s, steps, every)) {
      t.steps.push_back(s);
      t.w.push_back(w);
    }
  }
  return t;
}

StochasticDemo stochasticRoundingDemo(double w0, double u, int n, std::uint32_t seed) {
  const auto& bf16 = numeric::formatInfo(FormatId::Bf16);
  StochasticDemo d{{"BF16 nearest even", {}, {}}, {"BF16 stochastic", {}, {}}, w0 + n * u};
  std::mt19937 rng(seed);
  const int every = std::max(1, n / 200);
  double wn = roundTo(FormatId::Bf16, w0), ws = wn;
  for (int s = 0; s <= n; ++s) {
    if (s > 0) {
      wn = roundTo(FormatId::Bf16, wn + u);
      numeric::EncodeOptions sr;
      sr.rounding = numeric::Rounding::Stochastic;
      sr.random = static_cast<std::uint32_t>(rng());
      ws = numeric::toDouble(bf16, numeric::encode(bf16, ws + u, sr).bits);
    }
    if (sampleDue(s, n, every)) {
      d.nearest.steps.push_back(s);
      d.nearest.w.push_back(wn);
      d.stochastic.steps.push_back(s);
      d.stochastic.w.push_back(ws);
    }
  }
  return d;
}

AccumulationDemo accumulationDemo(int n, std::uint32_t seed, int every) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::vector<double> x(static_cast<std::size_t>(n));
  for (auto& v : x) v = uniform(rng); // FP32 samples, held exactly in double
  AccumulationDemo d;
  for (double v : x) d.exact += v;
  for (FormatId id : {FormatId::Bf16, FormatId::Fp16, FormatId::Fp32}) {
    Trajectory t{std::string(numeric::formatInfo(id).displayName) + " accumulator", {0}, {0}};
    double acc = 0.0;
    for (int i = 0; i < n; ++i) {
      acc = roundTo(id, acc + x[static_cast<std::size_t>(i)]);
      if (sampleDue(i + 1, n, every)) {
        t.steps.push_back(i + 1);
        t.w.push_back(acc);
      }
    }
    d.runs.push_back(std::move(t));
  }
  return d;
}

namespace {

// Softmax with every elementary result rounded to `f`: max, x - max, exp, the
// running sum, the division.
std::vector<double> softmaxIn(FormatId f, const std::vector<double>& x) {
  const auto r = [f](double v) { return roundTo(f, v); };
  double m = -std::numeric_limits<double>::infinity();
  for (double v : x) m = std::max(m, r(v));
  std::vector<double> e(x.size());
  double sum = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    e[i] = r(std::exp(r(r(x[i]) - m)));
    sum = r(sum + e[i]);
  }
  for (auto& v : e) v = r(v / sum);
  return e;
}

// Layer norm (no affine) with every elementary result rounded to `f`.
std::vector<double> layerNormIn(FormatId f, const std::vector<double>& x) {
  const auto r = [f](double v) { return roundTo(f, v); };
  const double n = static_cast<double>(x.size());
  double sum = 0.0;
  for (double v : x) sum = r(sum + r(v));
  const double mean = r(sum / n);
  double sq = 0.0;
  for (double v : x) {
    const double d = r(r(v) - mean);
    sq = r(sq + r(d * d));
  }
  const double inv = r(1.0 / std::sqrt(r(r(sq / n) + 1e-5)));
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = r(r(r(x[i]) - mean) * inv);
  return y;
}

std::vector<double> softmaxExact(const std::vector<double>& x) {
  const double m = *std::max_element(x.begin(), x.end());
  std::vector<double> e(x.size());
  double sum = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) sum += (e[i] = std::exp(x[i] - m));
  for (auto& v : e) v /= sum;
  return e;
}

std::vector<double> layerNormExact(const std::vector<double>& x) {
  const double n = static_cast<double>(x.size());
  double mean = 0.0, var = 0.0;
  for (double v : x) mean += v;
  mean /= n;
  for (double v : x) var += (v - mean) * (v - mean);
  const double inv = 1.0 / std::sqrt(var / n + 1e-5);
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = (x[i] - mean) * inv;
  return y;
}

} // namespace

SoftmaxLayerNormDemo softmaxLayerNormDemo(int length, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(3.0f, 2.0f); // logits / activations with an offset
  std::vector<double> x(static_cast<std::size_t>(length));
  for (auto& v : x) v = normal(rng);
  const auto sRef = softmaxExact(x);
  const auto lRef = layerNormExact(x);
  SoftmaxLayerNormDemo d{length, {}};
  for (FormatId id : {FormatId::Fp32, FormatId::Bf16, FormatId::Fp16}) {
    const auto s = softmaxIn(id, x);
    const auto l = layerNormIn(id, x);
    double se = 0.0, le = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      se = std::max(se, std::abs(s[i] - sRef[i]) / sRef[i]);
      le = std::max(le, std::abs(l[i] - lRef[i]));
    }
    d.rows.push_back({std::string(numeric::formatInfo(id).displayName), se, le});
  }
  return d;
}

} // namespace mantissa::lessons
