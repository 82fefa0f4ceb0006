// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/bench/bench_report.h>

#include <mantissa/numeric/cpu_features.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace mantissa::bench {

namespace {

// Share of the whole run's progress bar each phase gets (roughly its time).
constexpr double kMatmulEnd = 0.35;
constexpr double kPeakEnd = 0.50;
constexpr double kConversionEnd = 0.58;
constexpr double kStepsEnd = 0.92;

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
  o.steadyStateSteps = 4;
  return o;
}

BenchOptions BenchOptions::tiny() {
  BenchOptions o = full();
  o.mode = "tiny";
  o.matmul.squareSizes = {32, 64};
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
  o.steadyStateSteps = 2;
  return o;
}

std::string BenchReport::machineKey() const {
  return (cpuModel.empty() ? std::string("unknown CPU") : cpuModel) + " | " + isa;
}

std::string ompWaitPolicy() {
  const char* v = std::getenv("OMP_WAIT_POLICY");
  return v && *v ? std::string(v) : std::string("unset (libgomp default: threads spin at barriers)");
}

std::vector<Target> computeTargets(const BenchReport& r) {
  std::vector<Target> targets;
  const auto* fp32 = findStep(r, "fp32");
  const auto* bf16 = findStep(r, "bf16-mixed");
  const std::string model = r.stepModel + ", batch " + std::to_string(r.stepBatch);
  if (fp32 && bf16) {
    Target t{"bf16_step_speedup", "fp32 median step / bf16-mixed median step", 0, 1.6, ">=", false, ""};
    t.measured = bf16->medianMs > 0 ? fp32->medianMs / bf16->medianMs : 0.0;
    t.met = t.measured >= t.threshold;
    t.note = "measured on " + model;
    if (bf16->matmulEmulated)
      t.note += "; no native BF16 matmul on this CPU: BF16 storage converted to FP32 for an FP32 "
                "product, so BF16 cannot be faster than FP32 here";
    targets.push_back(std::move(t));
  }
  if (bf16) {
    Target t{"bf16_step_over_matmuls", "bf16-mixed mean step / its own matmul time in the same steps",
             0, 1.35, "<=", false, ""};
    const double mm = matmulMs(*bf16);
    t.measured = mm > 0 ? bf16->meanMs / mm : 0.0;
    t.met = mm > 0 && t.measured <= t.threshold;
    t.note = "step " + fixed(bf16->meanMs, 2) + " ms, matmuls " + fixed(mm, 2) + " ms (" +
             (bf16->matmulEmulated ? "emulated, their input conversions included" : "native") + ")";
    targets.push_back(std::move(t));
  }
  if (!r.steadyState.empty()) {
    Target t{"steady_state", "oneDNN primitives created + kernel scratch buffers allocated in "
                             "steady-state steps",
             0, 0, "<=", true, ""};
    int steps = 0;
    for (const auto& s : r.steadyState) {
      t.measured += double(s.primitivesCreated + s.scratchAllocations);
      steps += s.steps;
    }
    t.met = t.measured <= t.threshold;
    t.note = std::to_string(steps) + " steps over " + std::to_string(r.steadyState.size()) +
             " recipe(s); heap allocations are counted per recipe by tests/core/test_trainer_alloc";
    targets.push_back(std::move(t));
  }
  return targets;
}

BenchReport runBenchmarks(const BenchOptions& options, const ProgressCallback& progress) {
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
    steps.progress = pp.phase(kConversionEnd, kStepsEnd);
    r.steps = train::measureSteps(steps);
  }
  const auto& ss = options.steadyStateRecipes;
  for (std::size_t i = 0; i < ss.size() && !pp.cancelled(); ++i) {
    const double f = kStepsEnd + (1.0 - kStepsEnd) * double(i) / double(ss.size());
    if (pp.report(f, "steady-state check " + ss[i]))
      r.steadyState.push_back(countSteadyState(options.steps, ss[i], 3, options.steadyStateSteps));
  }
  r.cancelled = pp.cancelled();
  if (!r.cancelled)
    pp.report(1.0, "done");

  r.targets = computeTargets(r);
  if (r.cancelled)
    r.notes.push_back("cancelled: the report holds only what was measured before the cancel");
  for (const auto& s : r.steps)
    if (s.cv > options.noisyCv)
      r.notes.push_back("noisy: " + s.recipe + " step CV " + fixed(100 * s.cv, 1) +
                        " % (machine busy?); compare medians with care");
  for (const auto& m : r.matmul)
    if (m.cv > options.noisyCv) {
      r.notes.push_back("noisy: some matmul figures have CV above " +
                        fixed(100 * options.noisyCv, 0) + " %");
      break;
    }
  if (r.peak.bf16Emulated)
    r.notes.push_back("BF16 matmul is emulated on this CPU (no AVX512_BF16/AMX): BF16 storage, "
                      "FP32 compute; its GFLOP/s include the conversions");
  return r;
}

} // namespace mantissa::bench
