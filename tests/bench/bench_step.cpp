// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Whole training steps per recipe on MLP 784-1024-1024-10, batch 128, shipped
// MNIST: median step time and CV after warm-up, the breakdown by op kind,
// bytes allocated per tensor class, and ratios measured side by side in this
// one run (bf16-mixed vs fp32; bf16-mixed step vs its own matmul time;
// telemetry K = 1 vs off). Then the CNN cnn:lenet, batch 64, shipped
// Fashion-MNIST, for fp32, bf16-mixed and fp16-mixed: its step time beside
// the sum of its convolution and matmul times.
//
//   bench_step [--quick] [--reps N] [--recipe NAME]... [--cnn | --mlp-only]
//   (--recipe: only these MLP recipes, repeatable; --cnn: only the CNN;
//    --mlp-only: no telemetry row, no CNN)
#include "../../app/omp_wait_policy.h"

#include <mantissa/numeric/cpu_features.h>
#include <mantissa/train/step_benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace mantissa;

int main(int argc, char** argv) {
  // As the apps run oneDNN: OMP_WAIT_POLICY=passive unless the caller set a
  // policy (OMP_WAIT_POLICY=active measures spinning threads).
  mantissa::app::reexecWithPassiveOmpWait(argv);
  train::StepBenchOptions o;
  bool cnnOnly = false;
  bool mlpOnly = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      o.warmup = 2;
      o.repetitions = 8;
    } else if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      o.repetitions = std::max(2, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--cnn") == 0) {
      cnnOnly = true;
    } else if (std::strcmp(argv[i], "--mlp-only") == 0) {
      mlpOnly = true;
    } else if (std::strcmp(argv[i], "--recipe") == 0 && i + 1 < argc) {
      o.recipes.emplace_back(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: bench_step [--quick] [--reps N] [--recipe NAME]... [--cnn | --mlp-only]\n");
      return 2;
    }
  }
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  std::printf("CPU: %s; oneDNN %s (%s); OMP_WAIT_POLICY=%s\n\n", numeric::describeIsa().c_str(),
              numeric::onednnVersion().c_str(), numeric::onednnIsa().c_str(),
              policy ? policy : "unset (libgomp default)");
  o.progress = [](double, std::string_view what) {
    std::fprintf(stderr, "  measuring %.*s...\n", int(what.size()), what.data());
    return true;
  };
  if (!cnnOnly) {
    std::printf("Training step, %s, batch %d, MNIST; %d warm-up + %d timed steps per recipe\n",
                o.model.c_str(), o.batch, o.warmup, o.repetitions);
    auto results = train::measureSteps(o);
    auto withTelemetry = o;
    withTelemetry.recipes = {"bf16-mixed"};
    withTelemetry.telemetryEvery = 1;
    const auto tele =
        mlpOnly ? std::vector<train::StepBenchResult>{} : train::measureSteps(withTelemetry);

    std::printf("%-20s %9s %6s | %8s %8s %8s %8s %8s %8s %8s %8s | %s\n", "recipe", "median ms",
                "CV", "mm fwd", "mm bwd", "convert", "eltwise", "loss", "optim", "telem", "data",
                "matmul kernel");
    auto row = [](const train::StepBenchResult& r, const char* label) {
      const auto& b = r.breakdownMs;
      std::printf("%-20s %9.2f %5.1f%% | %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f | %s%s\n",
                  label, r.medianMs, 100.0 * r.cv, b.matmulForward, b.matmulBackward, b.conversion,
                  b.elementwise, b.loss, b.optimizer, b.telemetry, b.data,
                  r.matmulImplementation.c_str(), r.cv > 0.1 ? "  [noisy: CV > 10%]" : "");
    };
    for (const auto& r : results)
      row(r, r.recipe.c_str());
    for (const auto& r : tele)
      row(r, "bf16-mixed +tele K=1");

    std::printf("\nBytes allocated per tensor class (MiB):\n");
    std::printf("%-20s %10s %10s %10s %10s %10s\n", "recipe", "weights", "master", "activations",
                "gradients", "opt state");
    for (const auto& r : results)
      std::printf("%-20s %10.2f %10.2f %10.2f %10.2f %10.2f\n", r.recipe.c_str(),
                  r.bytes.at("weights") / 1048576.0, r.bytes.at("master weights") / 1048576.0,
                  r.bytes.at("activations") / 1048576.0, r.bytes.at("gradients") / 1048576.0,
                  r.bytes.at("optimizer state") / 1048576.0);

    const train::StepBenchResult* fp32 = nullptr;
    const train::StepBenchResult* bf16 = nullptr;
    for (const auto& r : results) {
      if (r.recipe == "fp32")
        fp32 = &r;
      if (r.recipe == "bf16-mixed")
        bf16 = &r;
    }
    if (fp32 && bf16) {
      const double mm = bf16->breakdownMs.matmulForward + bf16->breakdownMs.matmulBackward;
      std::printf("\nRatios (this run):\n");
      std::printf("  bf16-mixed step / fp32 step:        %.2fx%s\n", bf16->medianMs / fp32->medianMs,
                  bf16->matmulEmulated ? "  [BF16 data, FP32 compute]" : "");
      std::printf("  bf16-mixed step / its matmul time:  %.2fx  (mean step %.2f ms, matmuls %.2f ms)\n",
                  bf16->meanMs / mm, bf16->meanMs, mm);
      if (!tele.empty())
        std::printf("  bf16-mixed telemetry K=1 / off:     %.3fx\n",
                    tele.front().medianMs / bf16->medianMs);
    }

  }
  if (mlpOnly)
    return 0;

  // The CNN: step time beside the sum of its convolution and matmul times,
  // and where the rest goes.
  train::StepBenchOptions cnn = o;
  cnn.data = "fashion";
  cnn.model = "cnn:lenet";
  cnn.batch = 64;
  cnn.recipes = {"fp32", "bf16-mixed", "fp16-mixed"};
  cnn.warmup = std::min(o.warmup, 3);
  if (!cnnOnly)
    cnn.repetitions = std::max(2, o.repetitions / 3);
  const auto cnnResults = train::measureSteps(cnn);
  std::printf("\nTraining step, %s, batch %d, Fashion-MNIST; %d warm-up + %d timed steps\n",
              cnn.model.c_str(), cnn.batch, cnn.warmup, cnn.repetitions);
  std::printf("%-12s %9s %6s | %8s %8s %8s %8s | %9s %7s | %8s %8s %8s %8s | %s\n", "recipe",
              "median ms", "CV", "conv fwd", "conv bwd", "mm fwd", "mm bwd", "conv+mm", "step/()",
              "convert", "eltwise", "loss", "optim", "convolution kernel");
  for (const auto& r : cnnResults) {
    const auto& b = r.breakdownMs;
    const double sum = b.convForward + b.convBackward + b.matmulForward + b.matmulBackward;
    std::printf("%-12s %9.2f %5.1f%% | %8.2f %8.2f %8.2f %8.2f | %9.2f %6.2fx | %8.2f %8.2f %8.2f "
                "%8.2f | %s%s\n",
                r.recipe.c_str(), r.medianMs, 100.0 * r.cv, b.convForward, b.convBackward,
                b.matmulForward, b.matmulBackward, sum, sum > 0 ? r.meanMs / sum : 0.0,
                b.conversion, b.elementwise, b.loss, b.optimizer, r.convImplementation.c_str(),
                r.cv > 0.1 ? "  [noisy: CV > 10%]" : "");
  }
  return 0;
}
