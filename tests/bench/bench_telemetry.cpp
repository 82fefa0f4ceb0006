// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// bench_telemetry: what full telemetry (K = 1) costs per training step.
//
// Tensors of MLP 784-1024-1024-10 at batch 128 (the reference
// model), filled with realistic magnitudes: weights ~ N(0, 1/fan_in),
// ReLU activations (half exact zeros), gradients ~ 1e-4 loss-scaled by 2^16,
// Adam-like updates ~ 1e-4 x lr. One "pass" is everything the trainer hands
// the collector per step: observe() of weights, activations, activation
// gradients and (scaled) weight gradients per layer, observeUpdate() per
// layer, finish(). Printed: median over repetitions, coefficient of
// variation, and per-part figures (ns per value) to see where time goes.
//
// --training: real training steps of that model with the bf16-mixed recipe
// (mnist, SGD), two sessions side by side in one run: telemetry off and
// K = 1, steps interleaved (off, on, off, on, ...) so both see the same
// machine load; prints both medians, their ratio, and the telemetry share
// the session itself measured (OpTimes::telemetry). --every K times the
// telemetry session at cadence K instead (the per-step average then counts
// one telemetry step in K). Also printed: the median time per op kind of
// both sessions (their own timers).
//
// Like mantissa and mantissa-cli, the benchmark re-executes itself with
// OMP_WAIT_POLICY=passive when the variable is unset (oneDNN's OpenMP
// threads sleep between products instead of spinning); set it to measure
// another policy.
//
// --no-avx512: the telemetry kernels as on a CPU without AVX-512 (AVX2), to
// compare on one that has it.
//
// Usage: bench_telemetry [--repetitions N] [--training [--steps N] [--recipe NAME] [--every K]]
//                        [--no-avx512]

#include "../../app/omp_wait_policy.h"

#include <mantissa/telemetry/cast_fractions.h>
#include <mantissa/telemetry/collector.h>
#include <mantissa/telemetry/histogram.h>
#include <mantissa/train/session.h>

#include <nlohmann/json.hpp>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

namespace tl = mantissa::telemetry;
using tl::TensorClass;

struct Stats {
  double medianMs;    // wall clock
  double cv;          // of the wall-clock samples
  double medianCpuMs; // this thread's CPU time: robust to a loaded machine
};

double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

Stats measure(int repetitions, const std::function<void()>& fn) {
  fn(); // warm-up: caches, page faults, lazy tables
  std::vector<double> ms, cpu;
  for (int r = 0; r < repetitions; ++r) {
    const double c0 = threadCpuMs();
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    cpu.push_back(threadCpuMs() - c0);
  }
  const double mean = std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
  double var = 0;
  for (double v : ms)
    var += (v - mean) * (v - mean);
  const double sd = std::sqrt(var / static_cast<double>(ms.size()));
  return {median(ms), mean > 0 ? sd / mean : 0.0, median(cpu)};
}

struct Layer {
  std::vector<float> w, dw, update, act, dact;
};

std::vector<Layer> makeMlp(std::uint32_t seed) {
  const int widths[] = {784, 1024, 1024, 10};
  const int batch = 128;
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<Layer> layers(3);
  for (int l = 0; l < 3; ++l) {
    const auto in = static_cast<std::size_t>(widths[l]),
               out = static_cast<std::size_t>(widths[l + 1]);
    Layer& L = layers[static_cast<std::size_t>(l)];
    const float wScale = 1.0f / std::sqrt(static_cast<float>(in));
    L.w.resize(in * out);
    L.dw.resize(in * out);
    L.update.resize(in * out);
    for (std::size_t i = 0; i < L.w.size(); ++i) {
      L.w[i] = wScale * normal(rng);
      L.dw[i] = 65536.0f * 1e-4f * normal(rng) * std::exp2(-4.0f * std::fabs(normal(rng)));
      L.update[i] = 1e-3f * 1e-4f * normal(rng);
    }
    L.act.resize(static_cast<std::size_t>(batch) * out);
    L.dact.resize(L.act.size());
    for (std::size_t i = 0; i < L.act.size(); ++i) {
      L.act[i] = std::max(0.0f, normal(rng)); // ReLU: half exact zeros
      L.dact[i] = L.act[i] > 0.0f ? 65536.0f * 1e-3f * normal(rng) : 0.0f;
    }
  }
  return layers;
}

std::size_t valuesPerPass(const std::vector<Layer>& layers) {
  std::size_t n = 0;
  for (const auto& L : layers)
    n += L.w.size() + L.dw.size() + L.update.size() + L.act.size() + L.dact.size();
  return n;
}

std::shared_ptr<const tl::TelemetryFrame>
fullPass(tl::TelemetryCollector& c, const std::vector<Layer>& layers, std::int64_t step) {
  for (int l = 0; l < static_cast<int>(layers.size()); ++l) {
    const Layer& L = layers[static_cast<std::size_t>(l)];
    c.observe(l, TensorClass::Weights, L.w);
    c.observe(l, TensorClass::Activations, L.act);
    c.observe(l, TensorClass::ActivationGrads, L.dact, 65536.0f);
    c.observe(l, TensorClass::WeightGrads, L.dw, 65536.0f);
    c.observeUpdate(l, L.w, L.update, mantissa::DType::F32);
  }
  return c.finish(step);
}

void print(const char* what, const Stats& s, double values = 0) {
  std::printf("  %-44s %9.3f ms wall (CV %5.1f %%) %9.3f ms cpu", what, s.medianMs, 100.0 * s.cv,
              s.medianCpuMs);
  if (values > 0)
    std::printf("  %6.3f ns/value (cpu)", 1e6 * s.medianCpuMs / values);
  std::printf("\n");
}

// "2.88 1.94 2.60" (1, 5, 15 minutes), or "?" where /proc is missing: the
// figures only mean something next to the load they were measured under.
std::string loadAverage() {
  std::FILE* f = std::fopen("/proc/loadavg", "r");
  if (f == nullptr)
    return "?";
  double a = 0, b = 0, c = 0;
  const int n = std::fscanf(f, "%lf %lf %lf", &a, &b, &c);
  std::fclose(f);
  if (n != 3)
    return "?";
  char text[64];
  std::snprintf(text, sizeof text, "%.2f %.2f %.2f", a, b, c);
  return text;
}

Stats summarise(std::vector<double> ms) {
  const double mean = std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
  double var = 0;
  for (double v : ms)
    var += (v - mean) * (v - mean);
  return {median(ms), mean > 0 ? std::sqrt(var / static_cast<double>(ms.size())) / mean : 0.0, 0.0};
}

int benchTraining(int steps, const std::string& recipe, int every) {
  namespace tr = mantissa::train;
  tr::RunConfig config;
  config.data = "mnist";
  config.model = "mlp:784-1024-1024-10:relu";
  config.recipe = recipe;
  config.batch = 128;
  config.steps = steps + 5;
  config.lr = 0.01;
  auto data = std::make_shared<const mantissa::data::TrainTest>(
      mantissa::data::loadDataSpec(config.data, config.seed));
  tr::RunConfig withTelemetry = config;
  withTelemetry.telemetryEvery = every;
  tr::Session off(config, data), on(withTelemetry, data);
  std::printf(
      "training steps: %s, %s, batch %d, %d timed steps each (after 5 warm-up), interleaved;"
      " telemetry every %d step(s)\n",
      config.model.c_str(), recipe.c_str(), config.batch, steps, every);
  const char* waitPolicy = std::getenv("OMP_WAIT_POLICY");
  std::printf("  load average before: %s; OMP_WAIT_POLICY=%s, %d OpenMP threads\n",
              loadAverage().c_str(), waitPolicy ? waitPolicy : "(unset: spin, then sleep)",
              omp_get_max_threads());
  // Wall time is the bar; process CPU time (all threads) is printed too
  // because on a shared machine it is far less disturbed by other processes.
  auto processCpuMs = [] {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
  };
  std::vector<double> offMs, onMs, offCpu, onCpu, telemetryMs;
  std::vector<mantissa::model::OpTimes> offTimes, onTimes;
  for (int s = 0; s < steps + 5; ++s) {
    const double c0 = processCpuMs();
    const auto& ro = off.step();
    const double c1 = processCpuMs();
    const auto& r = on.step();
    const double c2 = processCpuMs();
    if (s < 5)
      continue;
    offMs.push_back(ro.stepMs);
    onMs.push_back(r.stepMs);
    offCpu.push_back(c1 - c0);
    onCpu.push_back(c2 - c1);
    offTimes.push_back(ro.times);
    onTimes.push_back(r.times);
    telemetryMs.push_back(r.times.telemetry);
  }
  const Stats so = summarise(offMs), sn = summarise(onMs), st = summarise(telemetryMs);
  const Stats co = summarise(offCpu), cn = summarise(onCpu);
  std::printf(
      "  step, telemetry off           %9.3f ms wall (CV %5.1f %%) %9.3f ms cpu (CV %5.1f %%)\n",
      so.medianMs, 100 * so.cv, co.medianMs, 100 * co.cv);
  std::printf(
      "  step, telemetry on            %9.3f ms wall (CV %5.1f %%) %9.3f ms cpu (CV %5.1f %%)\n",
      sn.medianMs, 100 * sn.cv, cn.medianMs, 100 * cn.cv);
  std::printf(
      "  ratio on / off                %9.3f wall                 %9.3f cpu   (bar: <= 1.05)\n",
      sn.medianMs / so.medianMs, cn.medianMs / co.medianMs);
  auto mean = [](const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  };
  std::printf("  ratio of means on / off       %9.3f wall                 %9.3f cpu   (counts 1 "
              "telemetry step in K)\n",
              mean(onMs) / mean(offMs), mean(onCpu) / mean(offCpu));
  std::printf(
      "  telemetry inside an on step  %9.3f ms wall (CV %5.1f %%, the session's own timer)\n",
      st.medianMs, 100 * st.cv);
  // Where the time goes, per op kind (the sessions' own timers, medians).
  using mantissa::model::OpTimes;
  const std::pair<const char*, double OpTimes::*> kinds[] = {
      {"matmul forward", &OpTimes::matmulForward}, {"matmul backward", &OpTimes::matmulBackward},
      {"conversion", &OpTimes::conversion},         {"elementwise", &OpTimes::elementwise},
      {"loss", &OpTimes::loss},                     {"optimizer", &OpTimes::optimizer},
      {"telemetry", &OpTimes::telemetry},           {"data", &OpTimes::data}};
  std::printf("  per op kind (median ms)         off        on\n");
  for (const auto& [name, field] : kinds) {
    std::vector<double> a, b;
    for (const auto& t : offTimes)
      a.push_back(t.*field);
    for (const auto& t : onTimes)
      b.push_back(t.*field);
    std::printf("    %-24s %9.3f %9.3f\n", name, median(a), median(b));
  }
  std::printf("  load average after: %s (%u CPUs)\n", loadAverage().c_str(),
              std::thread::hardware_concurrency());
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  // As the apps run oneDNN: OMP_WAIT_POLICY=passive unless the caller set a
  // policy (OMP_WAIT_POLICY=active measures spinning threads).
  mantissa::app::reexecWithPassiveOmpWait(argv);
  int repetitions = 21;
  int steps = 40;
  bool training = false;
  std::string recipe = "bf16-mixed";
  int every = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--repetitions" && i + 1 < argc) {
      repetitions = std::atoi(argv[++i]);
    } else if (arg == "--steps" && i + 1 < argc) {
      steps = std::atoi(argv[++i]);
    } else if (arg == "--recipe" && i + 1 < argc) {
      recipe = argv[++i];
    } else if (arg == "--every" && i + 1 < argc) {
      every = std::atoi(argv[++i]);
    } else if (arg == "--training") {
      training = true;
    } else if (arg == "--no-avx512") {
      mantissa::telemetry::setAvoidAvx512Telemetry(true);
    } else {
      std::fprintf(stderr,
                   "Usage: bench_telemetry [--repetitions N] [--training [--steps N] [--recipe "
                   "NAME] [--every K]] [--no-avx512]\n"
                   "bench_telemetry: unknown or incomplete option '%s'\n",
                   arg.c_str());
      return 2;
    }
  }
  if (repetitions < 3 || steps < 3 || every < 1) {
    std::fprintf(stderr, "bench_telemetry: --repetitions and --steps must be >= 3, --every >= 1\n");
    return 2;
  }
  std::printf("telemetry kernels: %s\n", mantissa::telemetry::telemetryUsesAvx512()
                                              ? "AVX-512BW"
                                              : "without AVX-512 (AVX2 where the CPU has it)");
  if (training) {
    try {
      return benchTraining(steps, recipe, every);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_telemetry: %s\n", e.what());
      return 1;
    }
  }
  const auto layers = makeMlp(7);
  const double n = static_cast<double>(valuesPerPass(layers));
  std::printf(
      "bench_telemetry: MLP 784-1024-1024-10, batch 128; %.2f M values per pass, %d repetitions\n",
      n / 1e6, repetitions);

  tl::TelemetryCollector collector(1);
  std::int64_t step = 0;
  std::shared_ptr<const tl::TelemetryFrame> frame;
  const Stats full = measure(repetitions, [&] { frame = fullPass(collector, layers, step++); });
  print("full telemetry pass (K = 1)", full, n);
  std::printf("  (frame: %zu tensor views, collector's own timer %.3f ms)\n", frame->tensors.size(),
              frame->telemetryMs);

  // Parts, over the weight-gradient tensors of all layers (1.86 M values).
  std::size_t gradValues = 0;
  for (const auto& L : layers)
    gradValues += L.dw.size();
  const double g = static_cast<double>(gradValues);
  print("  histogram only (accumulate), weight grads",
        measure(repetitions,
                [&] {
                  tl::ExponentHistogram h;
                  for (const auto& L : layers)
                    tl::accumulate(L.dw, h);
                }),
        g);
  print("  histogram + 4-format cast counts",
        measure(repetitions,
                [&] {
                  for (const auto& L : layers)
                    (void)tl::castCounts(L.dw);
                }),
        g);
  print("  both views, scale 2^16 (one pass)",
        measure(repetitions,
                [&] {
                  tl::TelemetryCollector c(1);
                  for (const auto& L : layers)
                    c.observe(0, TensorClass::WeightGrads, L.dw, 65536.0f);
                }),
        g);
  print("  both views, scale 1000 (two passes)",
        measure(repetitions,
                [&] {
                  tl::TelemetryCollector c(1);
                  for (const auto& L : layers)
                    c.observe(0, TensorClass::WeightGrads, L.dw, 1000.0f);
                }),
        g);
  print("  swamping, FP32 working",
        measure(repetitions,
                [&] {
                  for (const auto& L : layers)
                    (void)tl::swampCounts(L.w, L.update, mantissa::DType::F32);
                }),
        g);
  print("  swamping, BF16 working",
        measure(repetitions,
                [&] {
                  for (const auto& L : layers)
                    (void)tl::swampCounts(L.w, L.update, mantissa::DType::BF16);
                }),
        g);
  std::string line;
  print("frame -> JSONL line (log writer's share)",
        measure(repetitions, [&] { line = tl::toJson(*frame).dump(); }));
  std::printf("  (one frame is %zu bytes of JSON)\n", line.size());
  return 0;
}
