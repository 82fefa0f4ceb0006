// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// FP8 and microscaling: how the accumulator's precision limits a long FP8
// dot product, and how promoting partial sums to FP32 bounds the error.
// Every rounding goes through the numeric core's codec.
#include <mantissa/lessons/demos.h>

#include <mantissa/amp/scaling.h>
#include <mantissa/numeric/block_quant.h>
#include <mantissa/numeric/codec.h>
#include <mantissa/train/session.h>

#include <algorithm>
#include <span>
#include <cmath>
#include <random>

namespace mantissa::lessons {

namespace {

using numeric::FloatFormat;
using numeric::FormatId;

// The lesson MLP (784-128-10, fp32) after `steps` steps from seed 1: the
// tensors the FP8 figures quantize.
train::Session trainedLessonMlp(int steps) {
  train::RunConfig config;
  config.model = "mlp:784-128-10";
  config.recipe = "fp32";
  config.batch = 64;
  config.epochs = 0;
  config.steps = steps;
  config.seed = 1;
  config.evalEvery = 0;
  config.telemetryEvery = 0;
  train::Session session(config);
  while (!session.finished())
    session.step();
  return session;
}

double roundWith(const FloatFormat& f, double x, numeric::Rounding rounding) {
  numeric::EncodeOptions o;
  o.rounding = rounding;
  return numeric::toDouble(f, numeric::encode(f, x, o).bits);
}

} // namespace

DotAccumulationDemo dotAccumulationDemo(int accumulatorBits, int promoteEvery, int trials, std::uint32_t seed,
                                        int maxK) {
  DotAccumulationDemo d;
  d.accumulatorBits = accumulatorBits;
  d.promoteEvery = promoteEvery;
  d.trials = trials;
  const FloatFormat& e4m3 = numeric::formatInfo(FormatId::Fp8E4M3);
  const FloatFormat& fp32 = numeric::formatInfo(FormatId::Fp32);
  const FloatFormat& bf16 = numeric::formatInfo(FormatId::Bf16);
  const FloatFormat& fp16 = numeric::formatInfo(FormatId::Fp16);
  // FP32's exponent with accumulatorBits - 1 stored fraction bits.
  const FloatFormat limited{FormatId::Fp32, "limited", "limited", 8, std::max(accumulatorBits - 1, 1),
                            numeric::NanEncoding::Ieee};
  constexpr auto kNearest = numeric::Rounding::NearestEven;
  constexpr auto kTruncate = numeric::Rounding::TowardZero;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<double> products;
  for (int k = 16; k <= maxK; k *= 2) {
    DotAccumulationRow row;
    row.k = k;
    for (int t = 0; t < trials; ++t) {
      products.clear();
      for (int i = 0; i < k; ++i) {
        const double a = roundWith(e4m3, uniform(rng), kNearest);
        const double b = roundWith(e4m3, uniform(rng), kNearest);
        products.push_back(a * b); // 4 x 4 significant bits: exact
      }
      double exact = 0, s32 = 0, s16b = 0, s16 = 0, sLimited = 0, total = 0, partial = 0;
      for (int i = 0; i < k; ++i) {
        const double p = products[static_cast<std::size_t>(i)];
        exact += p; // at most 8 + 14 bits wide: exact in double
        s32 = roundWith(fp32, s32 + p, kNearest);
        s16b = roundWith(bf16, s16b + p, kNearest);
        s16 = roundWith(fp16, s16 + p, kNearest);
        sLimited = roundWith(limited, sLimited + p, kTruncate);
        partial = roundWith(limited, partial + p, kTruncate);
        if ((i + 1) % promoteEvery == 0 || i + 1 == k) {
          total = roundWith(fp32, total + partial, kNearest);
          partial = 0;
        }
      }
      const auto rel = [exact](double s) { return std::fabs(s - exact) / std::fabs(exact); };
      row.fp32 = std::max(row.fp32, rel(s32));
      row.bf16 = std::max(row.bf16, rel(s16b));
      row.fp16 = std::max(row.fp16, rel(s16));
      row.limited = std::max(row.limited, rel(sLimited));
      row.promoted = std::max(row.promoted, rel(total));
    }
    d.rows.push_back(row);
  }
  return d;
}

Fp8SchemesDemo fp8SchemesDemo(int steps) {
  train::Session session = trainedLessonMlp(steps);

  const auto& w = session.model().params()[0].w;
  const auto& g = session.model().grads()[0].w;
  const auto in = static_cast<std::size_t>(w.rows()), out = static_cast<std::size_t>(w.cols());
  const auto transposed = [in, out](std::span<const float> v) {
    std::vector<double> t(v.size());
    for (std::size_t i = 0; i < in; ++i)
      for (std::size_t o = 0; o < out; ++o)
        t[o * in + i] = v[i * out + o];
    return t;
  };
  const std::vector<double> weights = transposed(w.f32());
  const std::vector<double> gradients = transposed(g.f32());

  Fp8SchemesDemo d;
  d.steps = steps;
  d.rows = out;
  d.cols = in;
  numeric::QuantizeOptions options;
  options.cols = in;
  options.weightBlocks = true;
  const auto ws = numeric::whatIf(weights, options);
  const auto gs = numeric::whatIf(gradients, options);
  for (std::size_t i = 0; i < ws.size(); ++i)
    d.schemes.push_back({std::string(numeric::schemeInfo(ws[i].scheme).name), ws[i].stats, gs[i].stats});
  for (auto scheme : {numeric::BlockScheme::Mxfp8E4M3, numeric::BlockScheme::Mxfp4})
    for (auto rounding : {numeric::ScaleRounding::Floor, numeric::ScaleRounding::Ceil, numeric::ScaleRounding::Even,
                          numeric::ScaleRounding::RCeil}) {
      numeric::QuantizeOptions o = options;
      o.scaleRounding = rounding;
      d.rounding.push_back({std::string(numeric::schemeInfo(scheme).name),
                            std::string(numeric::scaleRoundingName(rounding)),
                            numeric::quantStats(gradients, numeric::quantize(gradients, scheme, o))});
    }
  return d;
}

namespace {

Fp8VariantStats variantStats(std::span<const float> g, const FloatFormat& f, float scale) {
  Fp8VariantStats s;
  s.scale = scale;
  const float inverse = 1.0f / scale;
  double signal = 0, noise = 0;
  std::size_t nonZero = 0, lost = 0, subnormal = 0;
  for (const float x : g) {
    const amp::ElementRounding r = amp::roundElement(x * scale, f);
    const float q = r.value * inverse;
    signal += double(x) * double(x);
    noise += (double(x) - double(q)) * (double(x) - double(q));
    nonZero += x != 0.0f;
    lost += x != 0.0f && q == 0.0f;
    subnormal += r.subnormal;
  }
  s.sqnrDb = noise == 0 ? HUGE_VAL : 10.0 * std::log10(signal / noise);
  s.lostToZero = nonZero ? double(lost) / double(nonZero) : 0.0;
  s.subnormal = g.empty() ? 0.0 : double(subnormal) / double(g.size());
  return s;
}

} // namespace

Fp8VariantsDemo fp8VariantsDemo(int steps) {
  train::Session session = trainedLessonMlp(steps);
  const auto& g = session.model().grads()[0].w;
  const auto in = static_cast<std::size_t>(g.rows()), out = static_cast<std::size_t>(g.cols());
  Fp8VariantsDemo d;
  d.steps = steps;
  d.gradients.resize(in * out);
  const auto v = g.f32();
  for (std::size_t i = 0; i < in; ++i)
    for (std::size_t o = 0; o < out; ++o)
      d.gradients[o * in + i] = v[i * out + o];
  float amax = 0.0f;
  for (const float x : d.gradients)
    amax = std::max(amax, std::fabs(x));
  for (const numeric::FormatId id :
       {numeric::FormatId::Fp8E4M3, numeric::FormatId::Fp8E4M3Fnuz, numeric::FormatId::Fp8E3M4}) {
    const FloatFormat& f = numeric::formatInfo(id);
    Fp8VariantRow row;
    row.format = f.name;
    row.maxFinite = f.maxFinite();
    row.minSubnormal = f.minSubnormal();
    row.binades = std::log2(row.maxFinite / row.minSubnormal);
    row.cast = variantStats(d.gradients, f, 1.0f);
    row.scaled = variantStats(d.gradients, f, amax > 0.0f ? float(row.maxFinite) / amax : 1.0f);
    d.rows.push_back(row);
  }
  return d;
}

} // namespace mantissa::lessons
