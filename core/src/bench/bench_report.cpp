// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/amp/recipe.h>
#include <mantissa/bench/bench_report.h>

#include <mantissa/kernels/fp16_gemm.h>
#include <mantissa/kernels/matmul.h>
#include <mantissa/kernels/matmul_path.h>
#include <mantissa/kernels/threads.h>
#include <mantissa/numeric/convert.h>
#include <mantissa/numeric/cpu_features.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <cstdlib>

namespace mantissa::bench {

namespace {

// Share of the whole run's progress bar each phase gets (roughly its time).
constexpr double kMatmulEnd = 0.35;
constexpr double kPeakEnd = 0.50;
constexpr double kConversionEnd = 0.58;
constexpr double kStepsEnd = 0.92;
constexpr double kSteadyEnd = 0.97;

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

const train::StepBenchResult* findStep(const BenchReport& r, std::string_view recipe) {
  for (const auto& s : r.steps)
    if (s.recipe == recipe)
      return &s;
  return nullptr;
}

// Maps each phase's own 0..1 onto its slice of the bar, never going back,
// and remembers a cancel so later phases are skipped.
class PhaseProgress {
public:
  explicit PhaseProgress(const ProgressCallback& progress) : m_progress(progress) {}
  ProgressCallback phase(double begin, double end) {
    return [this, begin, end](double f, std::string_view what) {
      return report(begin + std::clamp(f, 0.0, 1.0) * (end - begin), what);
    };
  }
  bool report(double fraction, std::string_view what) {
    if (m_cancelled)
      return false;
    m_last = std::max(m_last, fraction);
    if (what == "done" && m_last < 1.0) // a phase's own end: the next phase names itself
      return true;
    if (m_progress && !m_progress(m_last, what))
      m_cancelled = true;
    return !m_cancelled;
  }
  bool cancelled() const { return m_cancelled; }

private:
  const ProgressCallback& m_progress;
  double m_last = 0.0;
  bool m_cancelled = false;
};

} // namespace

BenchOptions BenchOptions::full() {
  BenchOptions o;
  o.conversion.portableToo = false; // the portable kernels are bench_convert's business
  return o;
}

BenchOptions BenchOptions::quick() {
  BenchOptions o = full();
  o.mode = "quick";
  o.matmul = MatmulBenchOptions::quick();
  o.peak.size = 1024;
  o.peak.repetitions = 3;
  o.conversion.elements = std::size_t{4} << 20;
  o.conversion.repetitions = 5;
  o.steps.warmup = 2;
  o.steps.repetitions = 8;
  o.steps.recipes = {"fp32", "bf16-mixed", "fp16-mixed", "bf16-pure"};
  o.cnnSteps.warmup = 1;
  o.cnnSteps.repetitions = 5;
  o.steadyStateSteps = 4;
  return o;
}

BenchOptions BenchOptions::tiny() {
  BenchOptions o = full();
  o.mode = "tiny";
  o.matmul.squareSizes = {32, 64};
  o.fp16Table.ks = {16, 256};
  o.fp16GemmSize = 128;
  o.matmul.trainingShapes = false;
  o.matmul.warmup = 1;
  o.matmul.repetitions = 3;
  o.matmul.minSampleSeconds = 0.0;
  o.peak.size = 64;
  o.peak.repetitions = 3;
  o.conversion.elements = 4096;
  o.conversion.repetitions = 3;
  o.steps.model = "mlp:784-32-10";
  o.steps.batch = 16;
  o.steps.warmup = 1;
  o.steps.repetitions = 4;
  o.steps.recipes = {"fp32", "bf16-mixed"};
  o.cnnSteps.model.clear();
  o.steadyStateSteps = 2;
  o.rememberProbe = false;
  o.probe.secondsPerMeasurement = 0.01;
  return o;
}

train::StepBenchOptions BenchOptions::defaultCnnSteps() {
  train::StepBenchOptions o;
  o.data = "fashion";
  o.model = "cnn:lenet";
  o.batch = 64;
  o.warmup = 2;
  o.repetitions = 10;
  o.recipes = {"fp32", "bf16-mixed", "fp16-mixed"};
  return o;
}

std::string BenchReport::machineKey() const {
  return (cpuModel.empty() ? std::string("unknown CPU") : cpuModel) + " | " + isa;
}

std::string ompWaitPolicy() {
  const char* v = std::getenv("OMP_WAIT_POLICY");
  return v && *v ? std::string(v) : std::string("unset (libgomp default: threads spin at barriers)");
}

namespace {

std::string ratioWords(double r) {
  return fixed(r, 2) + "x";
}

// Why a recipe's step takes what it takes against fp32's, in words.
std::string reasonFor(const BenchReport& r, const train::StepBenchResult& s,
                      const train::StepBenchResult& fp32) {
  if (s.recipe == "fp32")
    return "the baseline: FP32 storage and FP32 arithmetic";
  const amp::Recipe* recipe = amp::findRecipe(s.recipe);
  const amp::MatmulScaling scaling = recipe ? recipe->scaling : amp::MatmulScaling::None;
  const bool bf16 = s.recipe.rfind("bf16", 0) == 0;
  std::string fmt = bf16 ? "BF16" : "FP16";
  std::string why;
  if (scaling != amp::MatmulScaling::None) {
    // FP8 / microscaling: no FP8 (or FP4) arithmetic is used on any CPU here.
    fmt = scaling == amp::MatmulScaling::Nvfp4 ? "FP4" : "FP8";
    why = "emulated: each linear layer's X, W and dY are quantized to " +
          amp::scalingPrecision(scaling) + " and dequantized, and the products run in FP32";
  }
  const ProbePath* path = r.probe.find(bf16 ? "bf16_dot_avx512" : "fp16_fma_avx512");
  const ProbePath* amx = bf16 ? r.probe.find("bf16_amx") : nullptr;
  if (amx && amx->present)
    path = amx;
  if (!why.empty()) {
    // said above, in full
  } else if (path && path->present && r.probe.fp32()) {
    const double rate = r.probe.ratioToFp32(*path);
    why = fmt + " arithmetic runs at " + ratioWords(rate) + " FP32's rate on this CPU (" +
          path->instruction + ", measured)";
    if (rate < 1.0)
      why += ": " + fmt + " saves memory, not arithmetic";
  } else {
    why = "this CPU has no " + fmt + " arithmetic";
  }
  if (scaling == amp::MatmulScaling::None)
    why += s.matmulEmulated ? "; Mantissa uses FP32 compute for " + fmt + " data here"
                            : "; Mantissa uses oneDNN's native " + fmt + " kernel here";
  const double conv = s.breakdownMs.conversion;
  if (conv > 0.05 * s.meanMs)
    why += "; converting to and from " + fmt + " costs " + fixed(conv, 2) + " ms per step";
  const double mm = matmulMs(s), mm32 = matmulMs(fp32);
  if (mm32 > 0)
    why += "; matmuls " + fixed(mm, 2) + " ms against fp32's " + fixed(mm32, 2) + " ms";
  // Where a recipe is slower, the part that grew most.
  const auto& a = s.breakdownMs;
  const auto& b = fp32.breakdownMs;
  const std::pair<const char*, double> extra[] = {
      {"the optimizer takes", a.optimizer - b.optimizer},
      {"elementwise work takes", a.elementwise - b.elementwise},
      {"conversions take", a.conversion - b.conversion},
      {"the matmuls take", mm - mm32}};
  const auto* most = std::max_element(std::begin(extra), std::end(extra),
                                      [](const auto& x, const auto& y) { return x.second < y.second; });
  if (s.medianMs > fp32.medianMs && most->second > 0.05 * fp32.meanMs)
    why += "; slower mostly because " + std::string(most->first) + " " + fixed(most->second, 2) +
           " ms more per step";
  return why;
}


// Median of `repetitions` timed runs of f after `warmup` untimed ones, as
// GFLOP/s for `flops` per run.
SampleStats timeGflops(const std::function<void()>& f, double flops, int warmup, int repetitions) {
  for (int i = 0; i < warmup; ++i)
    f();
  std::vector<double> gflops;
  for (int i = 0; i < std::max(repetitions, 1); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    gflops.push_back(flops / s * 1e-9);
  }
  return summarizeSamples(gflops);
}

Fp16GemmBench measureFp16Gemm(const BenchOptions& options, const IsaProbe& probe) {
  Fp16GemmBench b;
  b.table = kernels::fp16AccumulationTable(options.fp16Table);
  b.hardware = kernels::fp16GemmHardwareAvailable();
  if (!b.hardware) {
    b.absentReason = numeric::cpuFeatures().avx512fp16 ? "this build has no AVX512_FP16 kernel"
                                                       : "no AVX512_FP16 in CPUID";
    return b;
  }
  const std::int64_t n = options.fp16GemmSize;
  const kernels::MatmulShape shape{n, n, n};
  b.size = n;
  b.promoteEvery = kernels::fp16PromoteEvery();
  Tensor a16(DType::F16, n, n), w16(DType::F16, n, n), a32(DType::F32, n, n), w32(DType::F32, n, n),
      c(DType::F32, n, n);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (std::size_t i = 0; i < a32.f32().size(); ++i) {
    a32.f32()[i] = u(rng);
    w32.f32()[i] = u(rng);
  }
  numeric::convertF32ToF16(a32.f32(), a16.u16());
  numeric::convertF32ToF16(w32.f32(), w16.u16());
  kernels::Fp16Gemm gemm(shape, b.promoteEvery, kernels::Fp16GemmIsa::Avx512Fp16);
  kernels::Matmul fp32(shape, DType::F32);
  b.implementation = gemm.label();
  const int warmup = options.matmul.warmup, reps = options.matmul.repetitions;
  // One after the other, in the same run.
  const SampleStats g = timeGflops([&] { gemm.execute(a16.u16().data(), w16.u16().data(), c.f32().data()); },
                                   shape.flops(), warmup, reps);
  const SampleStats f = timeGflops([&] { fp32.execute(a32, w32, c); }, shape.flops(), warmup, reps);
  b.gflops = g.median;
  b.cv = g.cv;
  b.onednnFp32Gflops = f.median;
  b.onednnFp32Cv = f.cv;
  if (const ProbePath* p = probe.find("fp16_fma_avx512"); p && p->present)
    b.fp16FmaPeakGflops = p->gflopsAllCores;
  return b;
}

} // namespace

std::vector<RecipeComparison> compareWithFp32(const BenchReport& r) {
  std::vector<RecipeComparison> out;
  const auto* fp32 = findStep(r, "fp32");
  if (!fp32 || fp32->medianMs <= 0)
    return out;
  for (const auto& s : r.steps)
    out.push_back({s.recipe, s.medianMs / fp32->medianMs, reasonFor(r, s, *fp32)});
  return out;
}

BenchReport runBenchmarks(const BenchOptions& options, const ProgressCallback& progress) {
  kernels::applyKernelThreads(); // File > Compute Threads, --threads
  BenchReport r;
  const auto& cpu = numeric::cpuFeatures();
  r.mode = options.mode;
  r.cpuModel = cpu.modelName;
  r.isa = numeric::describeIsa();
  r.onednnVersion = numeric::onednnVersion();
  r.onednnIsa = numeric::onednnIsa();
  r.ompWaitPolicy = ompWaitPolicy();
  r.threads = options.matmul.threads > 0 ? options.matmul.threads : matmulThreads();
  r.matmulWarmup = options.matmul.warmup;
  r.matmulRepetitions = options.matmul.repetitions;
  r.stepWarmup = options.steps.warmup;
  r.stepRepetitions = options.steps.repetitions;
  r.conversionRepetitions = options.conversion.repetitions;
  r.noisyCv = options.noisyCv;
  r.stepModel = options.steps.model;
  r.stepBatch = options.steps.batch;

  PhaseProgress pp(progress);
  if (pp.report(0.0, "ISA probe"))
    r.probe = options.rememberProbe ? isaProbe(options.probeCache) : measureIsaProbe(options.probe);
  auto matmul = options.matmul;
  matmul.progress = pp.phase(0.0, kMatmulEnd);
  r.matmul = measureMatmuls(matmul);

  if (!pp.cancelled()) {
    auto peak = options.peak;
    peak.progress = pp.phase(kMatmulEnd, kPeakEnd);
    r.peak = estimatePeak(peak);
  }
  if (!pp.cancelled() && pp.report(kPeakEnd, "conversions")) {
    for (auto& c : measureConversionThroughput(options.conversion)) {
      if (c.operation.rfind("memcpy", 0) == 0)
        r.memcpyGbps = c.gbps;
      else
        r.conversion.push_back(std::move(c));
    }
  }
  if (!pp.cancelled()) {
    auto steps = options.steps;
    const bool cnn = !options.cnnSteps.model.empty();
    const double mlpEnd = cnn ? kConversionEnd + 0.7 * (kStepsEnd - kConversionEnd) : kStepsEnd;
    steps.progress = pp.phase(kConversionEnd, mlpEnd);
    r.steps = train::measureSteps(steps);
    if (cnn && !pp.cancelled()) {
      auto c = options.cnnSteps;
      c.progress = pp.phase(mlpEnd, kStepsEnd);
      r.cnnModel = c.model;
      r.cnnBatch = c.batch;
      r.cnnSteps = train::measureSteps(c);
    }
  }
  const auto& ss = options.steadyStateRecipes;
  for (std::size_t i = 0; i < ss.size() && !pp.cancelled(); ++i) {
    const double f = kStepsEnd + (kSteadyEnd - kStepsEnd) * double(i) / double(ss.size());
    if (pp.report(f, "steady-state check " + ss[i]))
      r.steadyState.push_back(countSteadyState(options.steps, ss[i], 3, options.steadyStateSteps));
  }
  if (!pp.cancelled() && pp.report(kSteadyEnd, "FP16 GEMM: error table and speed"))
    r.fp16Gemm = measureFp16Gemm(options, r.probe);
  r.cancelled = pp.cancelled();
  if (!r.cancelled)
    pp.report(1.0, "done");

  // The probe is the physical limit: the peak quoted is what the
  // instruction loops sustained on every core, per path.
  if (const ProbePath* f = r.probe.fp32()) {
    r.peak.fp32Gflops = f->gflopsAllCores;
    r.peak.fp32Source = "ISA probe: " + f->instruction + ", " + std::to_string(kProbeChains) +
                        " chains on " + std::to_string(r.probe.threads) + " thread(s)";
  }
  const ProbePath* b = r.probe.find("bf16_amx");
  if (!b || !b->present)
    b = r.probe.find("bf16_dot_avx512");
  if (b && b->present) {
    r.peak.bf16Gflops = b->gflopsAllCores;
    r.peak.bf16Source = "ISA probe: " + b->instruction + " on " + std::to_string(r.probe.threads) +
                        " thread(s)";
  }
  r.versusFp32 = compareWithFp32(r);
  if (r.cancelled)
    r.notes.push_back("cancelled: the report holds only what was measured before the cancel");
  for (const auto& s : r.steps)
    if (s.cv > options.noisyCv)
      r.notes.push_back("noisy: " + s.recipe + " step CV " + fixed(100 * s.cv, 1) +
                        " % (machine busy?); compare medians with care");
  for (const auto& s : r.cnnSteps)
    if (s.cv > options.noisyCv)
      r.notes.push_back("noisy: " + r.cnnModel + " " + s.recipe + " step CV " +
                        fixed(100 * s.cv, 1) + " % (machine busy?); compare medians with care");
  for (const auto& m : r.matmul)
    if (m.cv > options.noisyCv) {
      r.notes.push_back("noisy: some matmul figures have CV above " +
                        fixed(100 * options.noisyCv, 0) + " %");
      break;
    }
  r.notes.push_back("BF16: " + kernels::bf16Support().label);
  if (!r.cancelled)
    r.notes.push_back("FP16: " + (r.fp16Gemm.hardware ? r.fp16Gemm.implementation
                                                      : "emulated (FP32 compute): " + r.fp16Gemm.absentReason +
                                                            ", the FP16 GEMM cannot run"));
  r.notes.push_back(std::string("16-bit matmul path: ") +
                    std::string(kernels::matmulPathName(kernels::matmulPath())));
  return r;
}

} // namespace mantissa::bench
