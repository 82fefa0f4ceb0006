// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Turns each demo's typed result into series and text lines. The words here
// describe what was computed; every number is formatted from the result.
#include <mantissa/lessons/demo_registry.h>

#include <mantissa/bench/isa_probe.h>
#include <mantissa/kernels/fp16_gemm.h>
#include <mantissa/kernels/matmul_path.h>

#include <mantissa/lessons/demos.h>
#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

namespace mantissa::lessons {

namespace {

constexpr std::array<std::string_view, 20> kIds{
    "format-table", "ulp-ruler",      "swamping",    "swamp-fixes",  "stochastic-rounding",
    "loss-scaling", "scale-recovery", "scaler-walk", "bf16-run",     "accumulation",
    "softmax-layernorm", "speed", "dot-accumulation", "fp16-accumulation", "fp32-islands",
    "fp8-schemes", "mx-scale-rounding", "fp8-variants", "error-map", "scaler-diff"};

constexpr std::array<std::pair<std::string_view, std::string_view>, 19> kTitles{{
    {"format-table", "Formats, from the numeric core"},
    {"ulp-ruler", "The ruler: gap to the next value"},
    {"swamping", "w = 1.0, update -1e-4, 10,000 steps"},
    {"swamp-fixes", "The fixes: FP32 master copy, Kahan summation"},
    {"stochastic-rounding", "1.0 + 1000 x 0.001 in BF16"},
    {"loss-scaling", "FP16 run: gradients by binade"},
    {"scale-recovery", "FP16 gradients lost to zero, per loss scale"},
    {"scaler-walk", "Dynamic loss scale, stepped by hand (growth after 3 clean steps)"},
    {"bf16-run", "bf16-mixed on MNIST: loss and loss scale"},
    {"accumulation", "Sum of 10,000 uniform(0,1) values"},
    {"softmax-layernorm", "Error vs a double reference"},
    {"speed", "Matmul 256 x 256 x 256, this machine"},
    {"fp16-accumulation", "FP16 GEMM: error against K, promoted to FP32 every N_C products"},
    {"fp32-islands", "A GPT's loss with one op class in 16 bits"},
    {"fp8-schemes", "Every block scheme on a trained MLP layer: SQNR"},
    {"mx-scale-rounding", "MX scale rounding on the gradients: blocks whose maximum was clipped"},
    {"fp8-variants", "E4M3, E4M3FNUZ and E3M4 on the same gradients: SQNR"},
    {"error-map", "A bf16-mixed GPT against its FP32 shadow: error per tensor"},
    {"scaler-diff", "fp16-mixed with and without its loss scaler: where the runs part"},
}};

template <typename... A> std::string fmt(const char* f, A... a) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a...);
  return buf;
}

DemoSeries fromTrajectory(const Trajectory& t) { return {t.name, t.steps, t.w, false}; }

DemoOutput formatTableDemo() {
  DemoOutput o{"format-table", std::string(demoTitle("format-table")), "format", "exponent / mantissa bits", false, {}, {}, {}};
  DemoSeries e{"exponent bits", {}, {}, true}, m{"mantissa bits", {}, {}, true};
  int i = 0;
  for (const auto& r : formatTable()) {
    o.lines.push_back(fmt("%-9s %2d bits (1+%d+%d)  bias %3d  max %.6g  min normal %.6g  "
                          "min subnormal %.6g  epsilon %.6g",
                          r.name.c_str(), r.bits, r.exponentBits, r.mantissaBits, r.bias,
                          r.maxFinite, r.minNormal, r.minSubnormal, r.epsilon));
    o.categories.push_back(r.name);
    e.x.push_back(i);
    e.y.push_back(r.exponentBits);
    m.x.push_back(i);
    m.y.push_back(r.mantissaBits);
    ++i;
  }
  o.series = {e, m};
  return o;
}

DemoOutput ulpRulerDemo() {
  // Bars per format on a log axis: the gap at 1, 1000 and 65504 side by side.
  DemoOutput o{"ulp-ruler", std::string(demoTitle("ulp-ruler")), "format", "ULP", true, {}, {}, {}};
  const double at[] = {1, 1000, 65504};
  std::vector<DemoSeries> byValue;
  for (double a : at) byValue.push_back({fmt("ULP at %g", a), {}, {}, true});
  int i = 0;
  const auto formats = numeric::explorerFormats();
  for (const auto& r : ulpRuler()) {
    const double u[] = {r.at1, r.at1000, r.at65504};
    const auto& f = numeric::formatInfo(formats[static_cast<std::size_t>(i)]);
    std::string line = fmt("%-9s", r.name.c_str());
    for (int k = 0; k < 3; ++k) {
      line += std::isnan(u[k]) ? fmt("  ULP at %g: out of range", at[k])
                               : fmt("  ULP at %g: %.6g", at[k], u[k]);
      // The ULP is that of the value the format stores. Where rounding
      // carries the value into the next binade (E5M2 stores 1000 as 1024),
      // the gap in the binade of the value itself is half as large: both.
      if (!std::isnan(u[k])) {
        const double stored = numeric::decode(f, numeric::encode(f, at[k]).bits).value;
        const double binade = std::ldexp(1.0, std::ilogb(at[k]));
        if (std::ilogb(stored) != std::ilogb(at[k]))
          line += fmt(" (of %g, the stored value; in [%g, %g) the gap is %g)", stored, binade,
                      2 * binade, ulpAt(formats[static_cast<std::size_t>(i)], binade));
      }
      if (!std::isnan(u[k])) {
        byValue[static_cast<std::size_t>(k)].x.push_back(i);
        byValue[static_cast<std::size_t>(k)].y.push_back(u[k]);
      }
    }
    o.lines.push_back(line);
    o.categories.push_back(r.name);
    ++i;
  }
  o.series = std::move(byValue);
  return o;
}

DemoOutput swampingOut() {
  DemoOutput o{"swamping", std::string(demoTitle("swamping")), "step", "w", false, {}, {}, {}};
  for (const auto& t : swampingDemo().runs) {
    o.series.push_back(fromTrajectory(t));
    o.lines.push_back(fmt("%s: w after %g steps = %.6g", t.name.c_str(), t.steps.back(), t.w.back()));
  }
  for (auto id : {numeric::FormatId::Fp16, numeric::FormatId::Bf16})
    o.lines.push_back(fmt("%s loses an update when weight/update > 2^%d = %g (half an ULP, from epsilon)",
                          std::string(numeric::formatInfo(id).displayName).c_str(),
                          swampRatioLog2(id), std::ldexp(1.0, swampRatioLog2(id))));
  return o;
}

DemoOutput fixesOut() {
  DemoOutput o{"swamp-fixes", std::string(demoTitle("swamp-fixes")), "step", "w", false, {}, {}, {}};
  for (const auto& t : {swampTrajectory(numeric::FormatId::Bf16, 1.0, -1e-4, 10000, 50),
                        masterCopyFix(1.0, -1e-4, 10000, 50), kahanFix(1.0, -1e-4, 10000, 50)}) {
    o.series.push_back(fromTrajectory(t));
    o.lines.push_back(fmt("%s: w after 10000 steps = %.6g", t.name.c_str(), t.w.back()));
  }
  return o;
}

DemoOutput stochasticOut() {
  const auto d = stochasticRoundingDemo();
  DemoOutput o{"stochastic-rounding", std::string(demoTitle("stochastic-rounding")), "step", "w", false,
               {fromTrajectory(d.nearest), fromTrajectory(d.stochastic)}, {}, {}};
  o.lines.push_back(fmt("exact: %.6g", d.exact));
  o.lines.push_back(fmt("nearest even: %.6g", d.nearest.w.back()));
  o.lines.push_back(fmt("stochastic (seed 1): %.6g", d.stochastic.w.back()));
  return o;
}

DemoOutput lossScalingOut() {
  const auto e = scalingExample();
  const auto r = recoveryDemo();
  DemoOutput o{"loss-scaling", std::string(demoTitle("loss-scaling")), "log2 |g|", "gradients", false, {}, {}, {}};
  o.lines.push_back(fmt("g = %g in FP16: %.6g (%s)", e.g, e.gInFp16, e.gIsSubnormal ? "subnormal" : "zero or normal"));
  o.lines.push_back(fmt("g x S (S = %g) in FP16: %.6g (%s)", e.scale, e.scaledInFp16,
                        e.scaledIsNormal ? "a normal number" : "not normal"));
  o.lines.push_back(fmt("back in FP32: %.6g / %g = %.6g (relative error %.2g)", e.scaledInFp16,
                        e.scale, e.recovered, e.relativeError));
  o.lines.push_back(fmt("%llu weight gradients of the underflow preset's FP16 run:",
                        static_cast<unsigned long long>(r.values)));
  for (const auto& row : r.rows)
    o.lines.push_back(fmt("  scale x%g: %.2f%% lost to zero, %.4f%% overflow", row.scale,
                          100 * row.lostToZero, 100 * row.overflow));
  o.series.push_back({"gradients", r.log2Bins, r.binCounts, true});
  o.lines.push_back("figure: gradients per binade; left of the edge of a scale, FP16 flushes g x S to zero");
  double top = 0;
  for (double c : r.binCounts) top = std::max(top, c);
  // g x S rounds to zero in FP16 below half the smallest subnormal, i.e. for
  // log2|g| < log2(min subnormal) - 1 - log2(S): one line per scale.
  for (const auto& row : r.rows) {
    const double edge = r.fp16MinSubnormalLog2 - 1 - std::log2(row.scale);
    o.series.push_back({fmt("x%g edge", row.scale), {edge, edge}, {0, top}, false});
  }
  return o;
}

DemoOutput recoveryOut() {
  const auto r = recoveryDemo();
  DemoOutput o{"scale-recovery", std::string(demoTitle("scale-recovery")), "loss scale",
               "% of gradients", false, {}, {}, {}};
  DemoSeries lost{"lost to zero", {}, {}, true}, over{"overflow", {}, {}, true};
  o.lines.push_back(fmt("%llu weight gradients of the underflow preset's FP16 run, cast to FP16 x scale:",
                        static_cast<unsigned long long>(r.values)));
  int i = 0;
  for (const auto& row : r.rows) {
    o.lines.push_back(fmt("scale x%g: %.2f%% lost to zero, %.4f%% overflow", row.scale,
                          100 * row.lostToZero, 100 * row.overflow));
    o.categories.push_back(fmt("x%g", row.scale));
    lost.x.push_back(i);
    lost.y.push_back(100 * row.lostToZero);
    over.x.push_back(i);
    over.y.push_back(100 * row.overflow);
    ++i;
  }
  if (r.rows.size() > 1 && r.rows.front().lostToZero > 0)
    for (std::size_t k = 1; k < r.rows.size(); ++k)
      o.lines.push_back(fmt("x%g recovers %.1f%% of the gradients x1 loses", r.rows[k].scale,
                            100 * (1 - r.rows[k].lostToZero / r.rows.front().lostToZero)));
  o.series = {lost, over};
  return o;
}

DemoOutput scalerOut() {
  const std::vector<bool> script{false, false, false, true, false, false, false, false, true, true, false, false, false};
  DemoOutput o{"scaler-walk", std::string(demoTitle("scaler-walk")), "step", "scale", true, {}, {}, {}};
  DemoSeries s{"scale", {}, {}, false};
  for (const auto& st : scalerWalk(script)) {
    s.x.push_back(st.step);
    s.y.push_back(st.scaleAfter);
    o.lines.push_back(fmt("step %lld: %s -> scale %g -> %g%s%s%s", static_cast<long long>(st.step),
                          st.overflow ? "overflow" : "finite  ", st.scaleBefore, st.scaleAfter,
                          st.skipped ? ", step skipped" : "", st.backedOff ? ", halved" : "",
                          st.grew ? ", doubled" : ""));
  }
  o.series.push_back(std::move(s));
  o.stepLines = o.lines; // one line per scaler step
  return o;
}

DemoOutput bf16Out() {
  const auto d = bf16RunDemo();
  // The loss in nats on the left, the loss scale (a power of two) on its own log2 axis.
  DemoOutput o{"bf16-run", std::string(demoTitle("bf16-run")), "step", "loss (nats)", false,
               {{"loss", d.steps, d.loss, false}, {"loss scale", d.steps, d.scale, false, true}}, {}, {}};
  o.rightLabel = "loss scale (log2 axis)";
  o.lines.push_back(fmt("%zu steps, %s, skipped steps: %lld", d.steps.size(),
                        d.hasScaler ? "with a loss scaler" : "no loss scaler",
                        static_cast<long long>(d.skipped)));
  o.lines.push_back(fmt("loss %.4f -> %.4f", d.loss.front(), d.loss.back()));
  return o;
}

DemoOutput accumulationOut() {
  const auto d = accumulationDemo();
  DemoOutput o{"accumulation", std::string(demoTitle("accumulation")), "values added", "sum", false, {}, {}, {}};
  o.lines.push_back(fmt("exact (double): %.6g", d.exact));
  for (const auto& t : d.runs) {
    o.series.push_back(fromTrajectory(t));
    o.lines.push_back(fmt("%s: %.6g", t.name.c_str(), t.w.back()));
  }
  return o;
}

DemoOutput dotAccumulationOut() {
  const auto d = dotAccumulationDemo();
  DemoOutput o{"dot-accumulation", "FP8 dot products: error against length K, per accumulator", "K",
               "max relative error", true, {}, {}, {}};
  DemoSeries s32{"FP32", {}, {}, false}, sb{"BF16", {}, {}, false}, s16{"FP16", {}, {}, false},
      lim{fmt("%d-bit, truncating", d.accumulatorBits), {}, {}, false},
      pro{fmt("%d-bit, promoted to FP32 every %d", d.accumulatorBits, d.promoteEvery), {}, {}, false};
  // A log axis cannot show an exact zero: those points are left out.
  const auto add = [](DemoSeries& s, double k, double e) {
    if (e > 0) {
      s.x.push_back(k);
      s.y.push_back(e);
    }
  };
  for (const auto& r : d.rows) {
    add(s32, r.k, r.fp32);
    add(sb, r.k, r.bf16);
    add(s16, r.k, r.fp16);
    add(lim, r.k, r.limited);
    add(pro, r.k, r.promoted);
    o.lines.push_back(fmt("K = %5d: FP32 %.2g, BF16 %.2g, FP16 %.2g, %d-bit %.2g, promoted %.2g", r.k, r.fp32,
                          r.bf16, r.fp16, d.accumulatorBits, r.limited, r.promoted));
  }
  o.lines.push_back(fmt("largest relative error of %d dot products of E4M3 vectors (uniform(0,1) values) "
                        "per K, against the exact sum",
                        d.trials));
  o.series = {s32, sb, s16, lim, pro};
  return o;
}

std::string percent(double f) { return f == 0 ? std::string("0") : fmt("%.3g %%", 100.0 * f); }

std::string quantLine(const numeric::QuantStats& s) {
  return fmt("saturated %s, lost to zero %s, subnormal %s, SQNR %.1f dB, %zu of %zu blocks clipped",
             percent(s.fractionSaturated).c_str(), percent(s.fractionLostToZero).c_str(),
             percent(s.fractionSubnormal).c_str(), s.sqnrDb, s.blocksMaxClipped, s.blocks);
}

DemoOutput fp8SchemesOut() {
  const Fp8SchemesDemo d = fp8SchemesDemo();
  DemoOutput o{"fp8-schemes", std::string(demoTitle("fp8-schemes")), "scheme", "SQNR (dB)", false, {}, {}, {}};
  DemoSeries w{"weights W", {}, {}, true}, g{"gradients dW", {}, {}, true};
  o.lines.push_back(fmt("MLP 784-128-10 trained in FP32 for %d steps; its first layer as a %zu x %zu matrix "
                        "(outputs x inputs, blocks along the inputs), every scheme on the same values:",
                        d.steps, d.rows, d.cols));
  for (std::size_t i = 0; i < d.schemes.size(); ++i) {
    const Fp8SchemeRow& r = d.schemes[i];
    o.categories.push_back(r.scheme);
    if (std::isfinite(r.weights.sqnrDb)) {
      w.x.push_back(double(i));
      w.y.push_back(r.weights.sqnrDb);
    }
    if (std::isfinite(r.gradients.sqnrDb)) {
      g.x.push_back(double(i));
      g.y.push_back(r.gradients.sqnrDb);
    }
    o.lines.push_back(fmt("  %s weights: %s", r.scheme.c_str(), quantLine(r.weights).c_str()));
    o.lines.push_back(fmt("  %s gradients: %s", r.scheme.c_str(), quantLine(r.gradients).c_str()));
  }
  o.series = {w, g};
  return o;
}

DemoOutput mxScaleRoundingOut() {
  const Fp8SchemesDemo d = fp8SchemesDemo();
  DemoOutput o{"mx-scale-rounding", std::string(demoTitle("mx-scale-rounding")), "scale rounding",
               "blocks clipped (%)", false, {}, {}, {}};
  std::vector<DemoSeries> series;
  o.lines.push_back(fmt("The same layer's gradients (%zu x %zu), every MX scale rounding:", d.rows, d.cols));
  for (const Fp8RoundingRow& r : d.rounding) {
    auto it = std::find(o.categories.begin(), o.categories.end(), r.rounding);
    const auto x = double(it - o.categories.begin());
    if (it == o.categories.end())
      o.categories.push_back(r.rounding);
    if (series.empty() || series.back().name != r.scheme)
      series.push_back({r.scheme, {}, {}, true});
    series.back().x.push_back(x);
    series.back().y.push_back(r.gradients.blocks > 0 ? 100.0 * double(r.gradients.blocksMaxClipped) /
                                                            double(r.gradients.blocks)
                                                      : 0.0);
    o.lines.push_back(fmt("  %s, scale %s: %s", r.scheme.c_str(), r.rounding.c_str(), quantLine(r.gradients).c_str()));
  }
  o.series = series;
  return o;
}

DemoOutput fp8VariantsOut() {
  const Fp8VariantsDemo d = fp8VariantsDemo();
  DemoOutput o{"fp8-variants", std::string(demoTitle("fp8-variants")), "format", "SQNR (dB)", false, {}, {}, {}};
  DemoSeries cast{"cast as is (scale 1)", {}, {}, true}, scaled{"scaled per tensor (fp8-current)", {}, {}, true};
  o.lines.push_back(fmt("The gradients dW of the same layer (%zu values, %d steps of FP32 training), rounded "
                        "to each format:",
                        d.gradients.size(), d.steps));
  for (std::size_t i = 0; i < d.rows.size(); ++i) {
    const Fp8VariantRow& r = d.rows[i];
    o.categories.push_back(r.format);
    if (std::isfinite(r.cast.sqnrDb)) {
      cast.x.push_back(double(i));
      cast.y.push_back(r.cast.sqnrDb);
    }
    if (std::isfinite(r.scaled.sqnrDb)) {
      scaled.x.push_back(double(i));
      scaled.y.push_back(r.scaled.sqnrDb);
    }
    o.lines.push_back(fmt("  %s: max %g, min subnormal %g, %.1f binades", r.format.c_str(), r.maxFinite,
                          r.minSubnormal, r.binades));
    o.lines.push_back(fmt("    cast as is: SQNR %.1f dB, %.1f%% lost to zero, %.1f%% subnormal", r.cast.sqnrDb,
                          100 * r.cast.lostToZero, 100 * r.cast.subnormal));
    o.lines.push_back(fmt("    scaled by %g: SQNR %.1f dB, %.1f%% lost to zero, %.1f%% subnormal",
                          double(r.scaled.scale), r.scaled.sqnrDb, 100 * r.scaled.lostToZero,
                          100 * r.scaled.subnormal));
  }
  o.series = {cast, scaled};
  return o;
}

DemoOutput islandsOut() {
  const IslandsDemo d = fp32IslandsDemo();
  DemoOutput o{"fp32-islands", std::string(demoTitle("fp32-islands")), "op class in 16 bits",
               "|loss - FP32 loss|", true, {}, {}, {}};
  DemoSeries s{"loss deviation from FP32", {}, {}, true};
  o.lines.push_back(fmt("GPT, 2 layers, 4 heads, embd 64, ctx 32, one Tiny Shakespeare batch of 4: "
                        "FP32 loss %.6f. One op class in 16 bits at a time:",
                        d.fp32Loss));
  for (std::size_t i = 0; i < d.rows.size(); ++i) {
    const IslandRow& r = d.rows[i];
    o.categories.push_back(r.label);
    if (std::isfinite(r.loss)) {
      // A deviation of exactly zero has no place on a log axis: the bar is
      // left out and the line says so.
      if (r.deviation > 0) {
        s.x.push_back(double(i));
        s.y.push_back(r.deviation);
      }
      o.lines.push_back(fmt("  %s: loss %.6f, off by %.2e", r.change.c_str(), r.loss,
                            r.deviation));
    } else {
      // The headline case (FP16 softmax without max subtraction): its bar
      // reads "NaN" (or "inf"), not an empty slot.
      s.x.push_back(double(i));
      s.y.push_back(r.loss);
      o.lines.push_back(fmt("  %s: loss %s, first non-finite value at %s", r.change.c_str(),
                            std::isnan(r.loss) ? "NaN" : "inf",
                            r.nonFinite.empty() ? "an unnamed op" : r.nonFinite.c_str()));
    }
  }
  o.series = {s};
  return o;
}

DemoOutput fp16AccumulationOut() {
  const kernels::Fp16ErrorTable t = kernels::fp16AccumulationTable();
  DemoOutput o{"fp16-accumulation", std::string(demoTitle("fp16-accumulation")), "K",
               "max relative error", true, {}, {}, {}};
  auto name = [](int nc) {
    return nc == kernels::kFp16NeverPromote ? std::string("FP16 only (never promoted)")
                                            : "N_C = " + std::to_string(nc);
  };
  // K grows by factors of 4: one evenly spaced category per K.
  for (const auto& r : t.rowsByK)
    o.categories.push_back(std::to_string(r.k));
  for (std::size_t c = 0; c < t.promoteEvery.size(); ++c) {
    DemoSeries s{name(t.promoteEvery[c]), {}, {}, false};
    for (std::size_t i = 0; i < t.rowsByK.size(); ++i) {
      s.x.push_back(static_cast<double>(i));
      s.y.push_back(t.rowsByK[i].fp16[c].maxRelError);
    }
    o.series.push_back(std::move(s));
  }
  DemoSeries f{"FP32 accumulation (emulated path)", {}, {}, false};
  for (std::size_t i = 0; i < t.rowsByK.size(); ++i) {
    f.x.push_back(static_cast<double>(i));
    f.y.push_back(t.rowsByK[i].fp32.maxRelError);
  }
  o.series.push_back(std::move(f));
  o.lines.push_back(fmt("C = A x B, A [%lld x K] and B [K x %lld] uniform(0,1) in FP16; relative error "
                        "against double, max / median over %lld outputs:",
                        static_cast<long long>(t.rows), static_cast<long long>(t.cols),
                        static_cast<long long>(t.rows * t.cols)));
  for (const auto& r : t.rowsByK) {
    std::string line = fmt("K = %5lld:", static_cast<long long>(r.k));
    for (std::size_t c = 0; c < t.promoteEvery.size(); ++c)
      line += fmt("  %s %.1e / %.1e", kernels::fp16PromoteName(t.promoteEvery[c]).c_str(),
                  r.fp16[c].maxRelError, r.fp16[c].medianRelError);
    line += fmt("  FP32 %.1e / %.1e", r.fp32.maxRelError, r.fp32.medianRelError);
    o.lines.push_back(line);
  }
  o.lines.push_back(fmt("Each FP16 fused multiply-add rounds once to FP16 (what VFMADD231PH does, emulated "
                        "exactly); every N_C products the FP16 sum is added to an FP32 sum. "
                        "Mantissa's default: N_C = %d.",
                        kernels::kDefaultFp16PromoteEvery));
  o.lines.push_back(kernels::fp16GemmHardwareAvailable()
                        ? "This CPU has AVX512_FP16: FP16 matmuls run the VFMADD231PH kernel."
                        : "This CPU has no AVX512_FP16: FP16 matmuls run the emulated FP32 path.");
  return o;
}

DemoOutput softmaxOut() {
  const auto d = softmaxLayerNormDemo();
  DemoOutput o{"softmax-layernorm", std::string(demoTitle("softmax-layernorm")), "format", "error", true, {}, {}, {}};
  DemoSeries s{"softmax (max rel.)", {}, {}, true}, l{"layer norm (max abs.)", {}, {}, true};
  int i = 0;
  for (const auto& r : d.rows) {
    o.lines.push_back(fmt("%s (n = %d): softmax max rel. error %.3g, layer norm max abs. error %.3g",
                          r.format.c_str(), d.length, r.softmaxMaxRelError, r.layerNormMaxAbsError));
    o.categories.push_back(r.format);
    s.x.push_back(i);
    s.y.push_back(r.softmaxMaxRelError);
    l.x.push_back(i);
    l.y.push_back(r.layerNormMaxAbsError);
    ++i;
  }
  o.series = {s, l};
  return o;
}

DemoOutput speedOut() {
  DemoOutput o{"speed", std::string(demoTitle("speed")), "dtype", "GFLOP/s", false, {}, {}, {}};
  DemoSeries s{"GFLOP/s (median)", {}, {}, true};
  // The ISA probe (remembered per machine): each path's ceiling against FP32.
  const bench::IsaProbe probe = bench::isaProbe();
  o.lines.push_back("What this CPU can do (ISA probe, GFLOP/s per core):");
  for (const auto& p : probe.paths) {
    if (p.present)
      o.lines.push_back(fmt("  %s, %s: %.1f (%.2fx FP32)", p.name.c_str(), p.instruction.c_str(),
                            p.gflopsPerCore, probe.ratioToFp32(p)));
    else
      o.lines.push_back(fmt("  %s: absent (%s)", p.name.c_str(), p.absentReason.c_str()));
  }
  o.lines.push_back(kernels::bf16Support().label);
  int i = 0;
  for (const auto& r : speedDemo()) {
    o.lines.push_back(fmt("%s %lldx%lld: %.1f GFLOP/s (CV %.1f%%)%s  [%s]", r.dtype.c_str(),
                          static_cast<long long>(r.size), static_cast<long long>(r.size), r.gflops,
                          100 * r.cv, r.emulated ? " emulated" : " native", r.implementation.c_str()));
    o.categories.push_back(r.dtype + (r.emulated ? " (emulated)" : ""));
    s.x.push_back(i++);
    s.y.push_back(r.gflops);
  }
  o.series.push_back(std::move(s));
  return o;
}

// The error map: one category per op of the block and the head, two bars
// each: the op's output (forward) and its weight's gradient (backward).
DemoOutput errorMapOut() {
  const ErrorMapDemo d = errorMapDemo();
  const train::ShadowFrame& f = d.frame;
  DemoOutput o{"error-map", std::string(demoTitle("error-map")), "op (block h0 and the head)",
               "tensor error against FP32", true, {}, {}, {}};
  struct Op {
    const char* label;
    const char* forward;
    const char* gradient; // "" when the op has no weight
  };
  const Op ops[] = {{"embed", "embedding output", "wte gradient"},
                    {"ln1", "h0.ln1 input", "h0.ln1.w gradient"},
                    {"qkv", "h0.qkv output", "h0.qkv.w gradient"},
                    {"probs", "h0.attention probs", ""},
                    {"attn", "h0.attention output", ""},
                    {"attproj", "h0.attproj output", "h0.attproj.w gradient"},
                    {"ln2", "h0.ln2 input", "h0.ln2.w gradient"},
                    {"fc", "h0.fc output", "h0.fc.w gradient"},
                    {"gelu", "h0.gelu output", ""},
                    {"fcproj", "h0.fcproj output", "h0.fcproj.w gradient"},
                    {"lnf", "lnf input", "lnf.w gradient"},
                    {"logits", "logits", ""}};
  const auto find = [&f](std::string_view name) -> const train::ShadowError* {
    for (const auto& t : f.tensors)
      if (t.tensor == name) return &t;
    return nullptr;
  };
  DemoSeries fwd{"forward: the op's output", {}, {}, true}, bwd{"backward: its weight's gradient", {}, {}, true};
  // An error of exactly zero (or none) has no place on a log axis: no bar; the lines give it.
  const auto bar = [](DemoSeries& s, std::size_t i, const train::ShadowError* e) {
    if (e != nullptr && e->tensorRelative > 0) {
      s.x.push_back(double(i));
      s.y.push_back(std::isfinite(e->tensorRelative) ? e->tensorRelative : 1.0);
    }
  };
  for (std::size_t i = 0; i < std::size(ops); ++i) {
    o.categories.push_back(ops[i].label);
    bar(fwd, i, find(ops[i].forward));
    if (*ops[i].gradient) bar(bwd, i, find(ops[i].gradient));
  }
  o.series = {fwd, bwd};
  std::size_t forward = 0;
  for (const auto& t : f.tensors) forward += t.backward ? 0 : 1;
  o.lines.push_back(fmt("GPT %s, %s, %d steps; step %lld run again in FP32 from the same weights and batch:",
                        d.model.c_str(), d.recipe.c_str(), d.steps, static_cast<long long>(f.step)));
  o.lines.push_back(fmt("%zu tensors compared (%zu forward, %zu backward), loss %.4f -> %.4f",
                        f.tensors.size(), forward, f.tensors.size() - forward, d.loss.front(), d.loss.back()));
  o.lines.push_back(d.sentence);
  std::vector<const train::ShadowError*> byError;
  for (const auto& t : f.tensors) byError.push_back(&t);
  std::stable_sort(byError.begin(), byError.end(), [](const auto* a, const auto* b) {
    return a->tensorRelative > b->tensorRelative;
  });
  o.lines.push_back("Largest errors:");
  for (std::size_t i = 0; i < std::min<std::size_t>(5, byError.size()); ++i) {
    const auto& e = *byError[i];
    o.lines.push_back(fmt("  %s (%s, stored in %s): error %.3g, median value off by %.3g, largest %.3g, "
                          "%lld of %lld values flipped sign or binade",
                          e.tensor.c_str(), e.backward ? "backward" : "forward",
                          std::string(dtypeName(e.format)).c_str(), e.tensorRelative, e.medianRelative,
                          e.maxRelative, static_cast<long long>(e.flips), static_cast<long long>(e.count)));
  }
  o.lines.push_back("Every tensor, in the order the passes wrote them (error; SQNR):");
  for (const auto& e : f.tensors)
    o.lines.push_back(fmt("  %-8s %-26s %-5s %.3g; %.1f dB", e.backward ? "backward" : "forward",
                          e.tensor.c_str(), std::string(dtypeName(e.format)).c_str(), e.tensorRelative,
                          e.sqnrDb));
  return o;
}

DemoOutput scalerDiffOut() {
  const ScalerDiffDemo d = scalerDiffDemo();
  DemoOutput o{"scaler-diff", std::string(demoTitle("scaler-diff")), "step", "training loss (nats)", false,
               {{"fp16-mixed (loss scaler)", d.stepX, d.lossScaled, false},
                {"fp16-mixed-noscale", d.stepX, d.lossUnscaled, false}},
               {}, {}};
  o.lines.push_back(fmt("MNIST, MLP 784-256-256-10, loss 2^-14 x mean cross-entropy, seed 1, %d steps each; "
                        "fp16-mixed starts at loss scale %g.",
                        d.steps, d.initialScale));
  if (!d.diff.differ()) {
    o.lines.push_back("The two runs did not part: every step's loss and tensors are the same.");
    return o;
  }
  const train::RunDiffRow& r = d.diff.rows.front();
  std::string what;
  if (r.countA && r.countB)
    what = fmt("%s: %llu with the scaler, %llu without", r.measure.c_str(),
               static_cast<unsigned long long>(*r.countA), static_cast<unsigned long long>(*r.countB));
  else if (r.measure == "histogram")
    what = fmt("its exponent histograms are %.3g binades apart", r.emd);
  else
    what = fmt("%s: %.6g with the scaler, %.6g without", r.measure.c_str(), r.a, r.b);
  o.lines.push_back(fmt("Where they part: step %lld, %s pass, %s (%s).", static_cast<long long>(r.step),
                        train::diffPassName(r.pass), r.tensor.c_str(), what.c_str()));
  if (!r.detail.empty()) o.lines.push_back("  what differs there: " + r.detail);
  if (d.gradValues > 0)
    o.lines.push_back(fmt("At step %lld the weight gradients the optimizer reads are zero in %llu of %llu values "
                          "without the scaler (%.1f%%), %llu with it (%.1f%%): without the scale, gradients "
                          "below FP16's smallest subnormal 2^-24 (%.3g) round to zero.",
                          static_cast<long long>(r.step), static_cast<unsigned long long>(d.zerosUnscaled),
                          static_cast<unsigned long long>(d.gradValues),
                          100.0 * double(d.zerosUnscaled) / double(d.gradValues),
                          static_cast<unsigned long long>(d.zerosScaled),
                          100.0 * double(d.zerosScaled) / double(d.gradValues),
                          numeric::formatInfo(numeric::FormatId::Fp16).minSubnormal()));
  o.lines.push_back(fmt("%zu (tensor, pass) pairs differ; the first ones:", d.diff.rows.size()));
  for (std::size_t i = 0; i < std::min<std::size_t>(6, d.diff.rows.size()); ++i) {
    const auto& x = d.diff.rows[i];
    o.lines.push_back(fmt("  step %lld %-8s %-28s %s", static_cast<long long>(x.step), train::diffPassName(x.pass),
                          x.tensor.c_str(), x.measure.c_str()));
  }
  o.lines.push_back(fmt("Loss after %d steps: %.4f with the scaler, %.4f without.", d.steps, d.lossScaled.back(),
                        d.lossUnscaled.back()));
  return o;
}

// The x values a stepped demo advances through, ascending; empty when the
// demo is not drawn against steps.
std::vector<double> stepXs(const DemoOutput& full) {
  std::vector<double> xs;
  if (!full.categories.empty() || full.series.empty())
    return xs;
  for (const DemoSeries& s : full.series) {
    if (s.bars)
      return {};
    xs.insert(xs.end(), s.x.begin(), s.x.end());
  }
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  return xs;
}

} // namespace

int demoStepCount(const DemoOutput& full) { return static_cast<int>(stepXs(full).size()); }

DemoOutput demoAtStep(const DemoOutput& full, int step) {
  const std::vector<double> xs = stepXs(full);
  if (step < 1 || step > static_cast<int>(xs.size()))
    throw std::out_of_range("demo \"" + full.id + "\" step " + std::to_string(step) + " is outside 1.." +
                            std::to_string(xs.size()));
  const double at = xs[static_cast<std::size_t>(step - 1)];
  DemoOutput o = full;
  o.lines.clear();
  o.lines.push_back(fmt("Step %d of %d: %s = %.10g", step, static_cast<int>(xs.size()), full.xLabel.c_str(), at));
  for (DemoSeries& s : o.series) {
    std::size_t keep = 0;
    while (keep < s.x.size() && s.x[keep] <= at)
      ++keep;
    s.x.resize(keep);
    s.y.resize(keep);
    if (full.stepLines.empty() && keep > 0)
      o.lines.push_back(fmt("%s: %s = %.6g", s.name.c_str(), full.yLabel.c_str(), s.y.back()));
  }
  if (full.stepLines.size() == xs.size())
    o.lines.insert(o.lines.end(), full.stepLines.begin(), full.stepLines.begin() + step);
  return o;
}

std::span<const std::string_view> demoIds() { return kIds; }

std::string_view demoTitle(std::string_view id) {
  for (const auto& [key, title] : kTitles)
    if (key == id) return title;
  return {};
}

bool isDemoId(std::string_view id) {
  for (auto k : kIds)
    if (k == id) return true;
  return false;
}

DemoOutput runDemo(std::string_view id) {
  if (id == "format-table") return formatTableDemo();
  if (id == "ulp-ruler") return ulpRulerDemo();
  if (id == "swamping") return swampingOut();
  if (id == "swamp-fixes") return fixesOut();
  if (id == "stochastic-rounding") return stochasticOut();
  if (id == "loss-scaling") return lossScalingOut();
  if (id == "scale-recovery") return recoveryOut();
  if (id == "scaler-walk") return scalerOut();
  if (id == "bf16-run") return bf16Out();
  if (id == "accumulation") return accumulationOut();
  if (id == "softmax-layernorm") return softmaxOut();
  if (id == "speed") return speedOut();
  if (id == "dot-accumulation") return dotAccumulationOut();
  if (id == "fp16-accumulation") return fp16AccumulationOut();
  if (id == "fp32-islands") return islandsOut();
  if (id == "fp8-schemes") return fp8SchemesOut();
  if (id == "mx-scale-rounding") return mxScaleRoundingOut();
  if (id == "fp8-variants") return fp8VariantsOut();
  if (id == "error-map") return errorMapOut();
  if (id == "scaler-diff") return scalerDiffOut();
  std::string valid;
  for (auto k : kIds) valid += (valid.empty() ? "" : ", ") + std::string(k);
  throw UnknownDemo("unknown demo \"" + std::string(id) + "\" (valid: " + valid + ")");
}

} // namespace mantissa::lessons
