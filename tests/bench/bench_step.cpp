// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Whole training steps per recipe on MLP 784-1024-1024-10, batch 128, shipped
// MNIST: median step time and CV after warm-up, the breakdown by op kind,
// bytes allocated per tensor class, and ratios measured side by side in this
// one run (bf16-mixed vs fp32; bf16-mixed step vs its own matmul time;
// telemetry K = 1 vs off). Then fp32, bf16-mixed and bf16-mixed with the
// optimizer's BF16 cast apart from its update taking turns step by step (the
// ratios against the speed targets, and what the single pass saves), and the
// step's non-matmul ops, each timed alone, against their bandwidth floor
// (op_floor.h). Then the CNN cnn:lenet, batch 64, shipped
// Fashion-MNIST, for fp32, bf16-mixed and fp16-mixed: its step time beside
// the sum of its convolution and matmul times.
//
//   bench_step [--quick] [--reps N] [--recipe NAME]... [--cnn | --mlp-only] [--no-ops]
//   (--recipe: only these MLP recipes, repeatable; --cnn: only the CNN;
//    --mlp-only: no telemetry row, no CNN; --no-ops: without the table of the
//    non-matmul ops against their bandwidth floor)
#include "../../app/omp_wait_policy.h"
#include "op_floor.h"

#include <mantissa/amp/optimizer.h>
#include <mantissa/amp/recipe.h>
#include <mantissa/kernels/elementwise.h>
#include <mantissa/nn/activation.h>
#include <mantissa/nn/softmax_xent.h>
#include <mantissa/numeric/convert.h>
#include <mantissa/numeric/cpu_features.h>
#include <mantissa/data/dataset.h>
#include <mantissa/train/session.h>
#include <mantissa/train/step_benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace mantissa;

namespace {

// The MLP step's non-matmul ops, each timed alone on the step's own shapes
// (784-1024-1024-10, batch 128), fp32 and bf16-mixed side by side, against
// the bytes it must move once over the copy bandwidth of this run.
struct MlpParams {
  std::vector<std::vector<float>> w, g;  // per slot: layer<l>.W, layer<l>.b
  std::vector<std::vector<std::uint16_t>> low; // BF16 working copies of the W
  std::size_t values = 0, weightValues = 0;
  explicit MlpParams(const std::vector<int>& widths) {
    std::mt19937 rng(7);
    std::normal_distribution<float> n01(0.0f, 1.0f);
    for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
      const std::size_t nw = std::size_t(widths[l]) * std::size_t(widths[l + 1]);
      for (std::size_t n : {nw, std::size_t(widths[l + 1])}) {
        w.emplace_back(n);
        g.emplace_back(n);
        for (auto& v : w.back())
          v = 0.05f * n01(rng);
        for (auto& v : g.back())
          v = 1e-3f * n01(rng);
        low.emplace_back(n == nw ? n : 0);
        values += n;
      }
      weightValues += nw;
    }
  }
  std::vector<amp::Slot> slots(bool working) {
    std::vector<amp::Slot> s;
    for (std::size_t i = 0; i < w.size(); ++i) {
      amp::Slot slot{"p" + std::to_string(i), w[i], g[i]};
      if (working && !low[i].empty()) {
        slot.working = low[i];
        slot.workingType = DType::BF16;
      }
      s.push_back(std::move(slot));
    }
    return s;
  }
};

void mlpOpTable(int rounds, int reps) {
  const std::vector<int> widths{784, 1024, 1024, 10};
  const int batch = 128;
  const double gbps = benchtools::copyGbps();
  std::printf("\nNon-matmul ops of the MLP step, each alone on the step's shapes; floor: bytes "
              "moved once / copy bandwidth %.1f GB/s (memcpy of 64 MiB, this run); %d rounds of "
              "%d calls:\n",
              gbps, rounds, reps);
  MlpParams fp32(widths), mixed(widths);
  const double P = double(fp32.values), W = double(fp32.weightValues);
  std::vector<benchtools::TimedOp> ops;
  auto add = [&ops](std::string name, double bytes, std::function<void()> run) {
    benchtools::TimedOp op;
    op.name = std::move(name);
    op.bytes = bytes;
    op.run = std::move(run);
    ops.push_back(std::move(op));
  };
  auto optimizerOp = [&](const char* recipe, amp::OptimizerKind kind, MlpParams& p) {
    amp::OptimizerConfig c;
    c.kind = kind;
    c.weightDecay = kind == amp::OptimizerKind::AdamW ? 0.01 : 0.0;
    const bool working = std::string(recipe) != "fp32";
    auto o = std::make_shared<amp::Optimizer>(c, *amp::findRecipe(recipe), p.slots(working), 1);
    const double perValue = kind == amp::OptimizerKind::AdamW ? 28.0 : 20.0;
    add(std::string(recipe) + " optimizer " + std::string(amp::optimizerName(kind)) +
                       (working ? " + BF16 copy" : ""),
                   perValue * P + (working ? 2.0 * W : 0.0), [o] { o->step(0.01, nullptr, false); });
  };
  MlpParams mixedTwoPasses(widths);
  for (auto kind : {amp::OptimizerKind::Sgd, amp::OptimizerKind::AdamW}) {
    optimizerOp("fp32", kind, fp32);
    optimizerOp("bf16-mixed", kind, mixed);
    if (amp::Optimizer::castsBf16InUpdatePass()) {
      // The same with the cast after each block's update (two passes).
      optimizerOp("bf16-mixed", kind, mixedTwoPasses);
      auto& op = ops.back();
      op.name += ", cast apart";
      op.run = [run = op.run] {
        amp::Optimizer::allowBf16UpdatePass(false);
        run();
        amp::Optimizer::allowBf16UpdatePass(true);
      };
    }
  }
  auto slots = std::make_shared<std::vector<amp::Slot>>(fp32.slots(false));
  add("gradient norm (all)", 4.0 * P, [slots] { (void)amp::globalGradNorm(*slots); });
  // bf16-mixed: the products' BF16 dW widened to the FP32 gradients.
  auto dWLow = std::make_shared<std::vector<Tensor>>();
  auto dW = std::make_shared<std::vector<Tensor>>();
  for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
    dWLow->emplace_back(DType::BF16, widths[l + 1], widths[l]);
    dW->emplace_back(DType::F32, widths[l + 1], widths[l]);
  }
  add("bf16-mixed dW BF16 -> FP32 (all)", 6.0 * W, [dWLow, dW] {
                   for (std::size_t l = 0; l < dW->size(); ++l)
                     kernels::convertParallel((*dWLow)[l], (*dW)[l]);
                 });
  // One hidden layer's activations, batch x 1024.
  const int h = widths[1];
  const double A = double(batch) * h;
  auto pre = std::make_shared<Tensor>(DType::F32, batch, h);
  auto post = std::make_shared<Tensor>(DType::F32, batch, h);
  auto dx = std::make_shared<Tensor>(DType::F32, batch, h);
  auto dpre = std::make_shared<Tensor>(DType::F32, batch, h);
  auto actLow = std::make_shared<Tensor>(DType::BF16, batch, h);
  auto bias = std::make_shared<Tensor>(DType::F32, 1, h);
  {
    std::mt19937 rng(3);
    std::normal_distribution<float> n01(0.0f, 1.0f);
    for (auto* t : {pre.get(), dx.get()})
      for (float& v : t->f32())
        v = n01(rng);
  }
  add("ReLU forward (batch x 1024)", 8.0 * A, [pre, post] {
                   kernels::forChunks(std::size_t(pre->size()), [&](std::size_t b, std::size_t e) {
                     nn::activationForward(nn::Activation::Relu,
                                           std::as_const(*pre).f32().subspan(b, e - b),
                                           post->f32().subspan(b, e - b));
                   });
                 });
  add("ReLU backward (batch x 1024)", 12.0 * A, [pre, post, dx, dpre] {
                   kernels::forChunks(std::size_t(pre->size()), [&](std::size_t b, std::size_t e) {
                     nn::activationBackward(nn::Activation::Relu,
                                            std::as_const(*pre).f32().subspan(b, e - b),
                                            std::as_const(*post).f32().subspan(b, e - b),
                                            std::as_const(*dx).f32().subspan(b, e - b),
                                            dpre->f32().subspan(b, e - b));
                   });
                 });
  add("bias add (batch x 1024)", 8.0 * A, [dpre, bias] { kernels::addBias(*dpre, *bias); });
  add("bias gradient (batch x 1024)", 4.0 * A,
                 [dx, bias] { kernels::biasGradient(*dx, *bias); });
  add("bf16-mixed activation FP32 -> BF16 (batch x 1024)", 6.0 * A,
                 [post, actLow] { kernels::convertParallel(*post, *actLow); });
  const int classes = widths.back();
  auto logits = std::make_shared<std::vector<float>>(std::size_t(batch) * classes, 0.1f);
  auto probs = std::make_shared<std::vector<float>>(logits->size());
  auto dlogits = std::make_shared<std::vector<float>>(logits->size());
  auto labels = std::make_shared<std::vector<std::int32_t>>(std::size_t(batch));
  for (int i = 0; i < batch; ++i)
    (*labels)[std::size_t(i)] = i % classes;
  add("softmax cross-entropy fwd + bwd (batch x 10)", 16.0 * double(logits->size()),
                 [=] {
                   (void)nn::softmaxXentForward(*logits, *labels, batch, classes, *probs);
                   nn::softmaxXentBackward(*probs, *labels, batch, classes, 1.0f, *dlogits);
                 });
  benchtools::timeOps(ops, rounds, reps);
  benchtools::printOpHeader();
  benchtools::printOps(ops, gbps);
  std::printf("bytes: SGD reads g, w, m and writes w, m (20 B a value), AdamW also v (28 B); "
              "+ BF16 copy: 2 B a weight; the rest: inputs read and outputs written once\n");
}

// fp32, bf16-mixed, and bf16-mixed with the optimizer's BF16 cast apart
// from its update pass (as before the single pass), taking turns: each round
// runs `reps` steps of each, so that load from other processes falls on all
// alike. Medians over all timed steps; spread: lowest and highest of the
// rounds' medians.
void interleavedSteps(const train::StepBenchOptions& o, int rounds, int reps) {
  struct Run {
    std::string label;
    std::unique_ptr<train::Session> s;
    bool castApart = false;
    std::vector<double> step, matmul, optimizer, conversion, elementwise, roundStep;
  };
  const auto data = std::make_shared<const data::TrainTest>(data::loadDataSpec(o.data));
  std::vector<Run> runs;
  for (const char* recipe : {"fp32", "bf16-mixed", "bf16-mixed"}) {
    train::RunConfig c;
    c.data = o.data;
    c.model = o.model;
    c.recipe = recipe;
    c.batch = o.batch;
    c.steps = o.warmup + std::int64_t(rounds) * reps + 1;
    c.lr = 0.01;
    Run r;
    r.castApart = runs.size() == 2;
    r.label = std::string(recipe) + (r.castApart ? " (cast apart)" : "");
    r.s = std::make_unique<train::Session>(c, data);
    runs.push_back(std::move(r));
  }
  auto one = [](Run& r) {
    if (r.castApart)
      amp::Optimizer::allowBf16UpdatePass(false);
    const auto& rep = r.s->step();
    amp::Optimizer::allowBf16UpdatePass(true);
    return rep;
  };
  for (int w = 0; w < o.warmup; ++w)
    for (auto& r : runs)
      one(r);
  for (int round = 0; round < rounds; ++round)
    for (auto& r : runs) {
      std::vector<double> here;
      for (int i = 0; i < reps; ++i) {
        const auto& rep = one(r);
        here.push_back(rep.stepMs);
        r.matmul.push_back(rep.times.matmulForward + rep.times.matmulBackward);
        r.optimizer.push_back(rep.times.optimizer);
        r.conversion.push_back(rep.times.conversion);
        r.elementwise.push_back(rep.times.elementwise);
      }
      r.step.insert(r.step.end(), here.begin(), here.end());
      r.roundStep.push_back(benchtools::medianOf(here));
    }
  std::printf("\nThe same, the recipes taking turns (%d rounds of %d steps each; medians, "
              "spread of the rounds' medians):\n",
              rounds, reps);
  std::printf("%-26s %9s %17s %9s %9s %9s %9s %11s\n", "recipe", "median ms", "spread (rounds)",
              "matmul", "optim", "convert", "eltwise", "step/matmul");
  for (const auto& r : runs) {
    const auto [lo, hi] = std::minmax_element(r.roundStep.begin(), r.roundStep.end());
    const double m = benchtools::medianOf(r.step), mm = benchtools::medianOf(r.matmul);
    std::printf("%-26s %9.2f %7.2f - %7.2f %9.2f %9.2f %9.2f %9.2f %10.2fx\n", r.label.c_str(), m,
                *lo, *hi, mm, benchtools::medianOf(r.optimizer), benchtools::medianOf(r.conversion),
                benchtools::medianOf(r.elementwise), m / mm);
  }
  const double fp32 = benchtools::medianOf(runs[0].step), bf16 = benchtools::medianOf(runs[1].step),
               apart = benchtools::medianOf(runs[2].step);
  std::printf("  fp32 / bf16-mixed: %.2fx faster (target >= 1.6); bf16-mixed step / its matmul "
              "time: %.2fx (target <= 1.25); cast apart / single pass: %.3fx\n",
              fp32 / bf16, bf16 / benchtools::medianOf(runs[1].matmul), apart / bf16);
}

} // namespace

int main(int argc, char** argv) {
  // As the apps run oneDNN: OMP_WAIT_POLICY=passive unless the caller set a
  // policy (OMP_WAIT_POLICY=active measures spinning threads).
  mantissa::app::reexecWithPassiveOmpWait(argv);
  train::StepBenchOptions o;
  bool cnnOnly = false;
  bool mlpOnly = false;
  bool ops = true;
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
    } else if (std::strcmp(argv[i], "--no-ops") == 0) {
      ops = false;
    } else if (std::strcmp(argv[i], "--recipe") == 0 && i + 1 < argc) {
      o.recipes.emplace_back(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: bench_step [--quick] [--reps N] [--recipe NAME]... [--cnn | --mlp-only] "
                   "[--no-ops]\n");
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
  if (!cnnOnly && ops) {
    interleavedSteps(o, std::max(3, o.repetitions / 5), 5);
    mlpOpTable(std::max(3, o.repetitions / 6), 6);
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
