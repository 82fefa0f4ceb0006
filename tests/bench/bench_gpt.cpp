// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// GPT training steps per policy on the shakespeare-char model (4 layers,
// 4 heads, embd 128, ctx 64, batch 12): median step time and CV after
// warm-up, the forward + backward time of each op (medians), and the sum of
// the step's own matrix products beside it (step / matmul ratio).
//
//   bench_gpt [--quick] [--reps N] [--policy SPEC | --policy recipe:NAME]...
// (recipe:NAME runs a recipe, e.g. recipe:bf16-mixed, with its own policy)
#include <mantissa/numeric/cpu_features.h>
#include <mantissa/telemetry/frame.h>
#include <mantissa/train/gpt_run.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace mantissa;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double cv(const std::vector<double>& v) {
  double mean = 0, var = 0;
  for (double x : v)
    mean += x;
  mean /= double(v.size());
  for (double x : v)
    var += (x - mean) * (x - mean);
  return std::sqrt(var / double(v.size())) / mean;
}

} // namespace

int main(int argc, char** argv) {
  int warmup = 5, reps = 30;
  std::vector<std::string> policies;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      warmup = 2;
      reps = 8;
    } else if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = std::max(2, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--policy") == 0 && i + 1 < argc) {
      policies.emplace_back(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: bench_gpt [--quick] [--reps N] [--policy SPEC|recipe:NAME]...\n");
      return 2;
    }
  }
  if (policies.empty())
    policies = {"fp32", "recipe:bf16-mixed", "autocast-cpu-bf16", "llm.c", "autocast-cuda-fp16"};
  std::printf("GPT training step, gpt:layers=4,heads=4,embd=128,ctx=64, batch 12, Tiny "
              "Shakespeare; %d warm-up + %d timed steps per policy\n",
              warmup, reps);
  std::printf("CPU: %s; oneDNN %s (%s)\n\n", numeric::describeIsa().c_str(),
              numeric::onednnVersion().c_str(), numeric::onednnIsa().c_str());
  std::printf("%-22s %9s %6s %9s %6s |", "policy", "median ms", "CV", "matmul ms", "ratio");
  for (std::size_t o = 0; o < model::kGptOpCount; ++o)
    std::printf(" %8.8s", std::string(model::gptOpName(model::GptOp(o))).c_str());
  std::printf(" | matmul kernel\n");
  for (const std::string& policy : policies) {
    train::GptRunConfig c = train::shakespeareCharPreset();
    if (policy.rfind("recipe:", 0) == 0)
      c.recipe = policy.substr(7);
    else
      c.policy = policy;
    c.steps = warmup + reps + 1;
    c.warmupSteps = 1;
    c.evalBatches = 1;
    try {
      train::GptRun run(c);
      for (int i = 0; i < warmup; ++i)
        run.step();
      std::vector<double> step, matmul;
      std::vector<std::vector<double>> ops(model::kGptOpCount);
      for (int i = 0; i < reps; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        run.step();
        step.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        const auto& t = run.model().times();
        matmul.push_back(t.matmulMs);
        for (std::size_t o = 0; o < model::kGptOpCount; ++o)
          ops[o].push_back(t.ms[o]);
      }
      const double m = median(step), mm = median(matmul);
      std::printf("%-22s %9.2f %5.1f%% %9.2f %6.2f |", policy.c_str(), m, 100 * cv(step), mm, m / mm);
      for (const auto& o : ops)
        std::printf(" %8.2f", median(o));
      std::printf(" | %s%s\n", run.model().matmulImplementation().c_str(),
                  cv(step) > 0.1 ? "  [noisy: CV > 10%]" : "");
    } catch (const std::exception& e) {
      std::printf("%-22s error: %s\n", policy.c_str(), e.what());
    }
  }
  std::printf("\nTelemetry K = 1 (weights, gradients and activations of every op, each step) "
              "against K = 0, alternating steps:\n");
  std::printf("%-22s %12s %6s %12s %6s %8s %14s %s\n", "policy", "K=0 med ms", "CV", "K=1 med ms",
              "CV", "cost", "frame med ms", "rule");
  for (const std::string& policy : policies) {
    train::GptRunConfig c = train::shakespeareCharPreset();
    if (policy.rfind("recipe:", 0) == 0)
      c.recipe = policy.substr(7);
    else
      c.policy = policy;
    c.steps = warmup + reps + 1;
    c.warmupSteps = 1;
    c.evalBatches = 1;
    try {
      train::GptRun off(c);
      c.telemetryEvery = 1;
      train::GptRun on(c);
      std::vector<double> offMs, onMs, frameMs;
      for (int i = 0; i < warmup + reps; ++i) {
        const double a = off.step().stepMs;
        const train::GptStep& s = on.step();
        if (i < warmup)
          continue;
        offMs.push_back(a);
        onMs.push_back(s.stepMs);
        if (s.telemetry)
          frameMs.push_back(s.telemetry->telemetryMs);
      }
      const double m0 = median(offMs), m1 = median(onMs);
      const double cost = m1 / m0 - 1.0;
      std::printf("%-22s %12.2f %5.1f%% %12.2f %5.1f%% %7.1f%% %14.2f %s\n", policy.c_str(), m0,
                  100 * cv(offMs), m1, 100 * cv(onMs), 100 * cost,
                  frameMs.empty() ? 0.0 : median(frameMs),
                  cost <= 0.05 ? "<= 5 %: met" : "> 5 %: NOT met");
    } catch (const std::exception& e) {
      std::printf("%-22s error: %s\n", policy.c_str(), e.what());
    }
  }
  std::printf("\nratio: step time / the step's own matrix-product time (forward + backward, "
              "linear, attention and head products).\n");
  return 0;
}
