// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// GPT training steps per policy on the shakespeare-char model (4 layers,
// 4 heads, embd 128, ctx 64, batch 12): the step time, the forward + backward
// time of each op, and the sum of the step's own matrix products beside it
// (step / matmul ratio; the rule: at most 2 for fp32 and bf16-mixed); the ops
// without products against their bandwidth floor (op_floor.h). Then
// telemetry K = 1 against K = 0 (the rule: at most 5 % more per step).
//
// The policies take turns: each round runs `reps` steps of every policy in
// order, so that load from other processes falls on all of them alike. The
// medians are over all timed steps; "spread" is the lowest and highest of the
// rounds' medians. The telemetry pairs alternate step by step (K = 0, then
// K = 1) and the cost is the median of the per-pair ratios.
// Then the shadow pass at K = 10 in bf16-mixed: ten steps with telemetry
// alone against ten steps with an FP32 and an FP64 shadow at the telemetry
// step (the rule: at most 15 % and 40 % more), the three runs taking turns.
//
//   bench_gpt [--quick] [--reps N] [--rounds R] [--only step|telemetry|shadow] [--policy SPEC | --policy
//   recipe:NAME]...
//   bench_gpt --sizes ...   the step by model size beside PyTorch (gpt_sizes.cpp)
// (recipe:NAME runs a recipe, e.g. recipe:bf16-mixed, with its own policy)
#include "../../app/omp_wait_policy.h"
#include "gpt_sizes.h"
#include "op_floor.h"

#include <mantissa/model/gpt_network.h>
#include <mantissa/numeric/cpu_features.h>
#include <mantissa/telemetry/frame.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/session.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace mantissa;

namespace {

double median(std::vector<double> v) {
  if (v.empty())
    return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Spread {
  double lo = 0.0, hi = 0.0;
};
Spread spreadOf(const std::vector<double>& roundMedians) {
  const auto [lo, hi] = std::minmax_element(roundMedians.begin(), roundMedians.end());
  return {*lo, *hi};
}

train::RunConfig configFor(const std::string& policy, std::int64_t steps, int telemetryEvery) {
  train::RunConfig c = train::findPreset("shakespeare-char")->runs.front();
  if (policy.rfind("recipe:", 0) == 0)
    c.recipe = policy.substr(7);
  else
    c.policy = policy;
  c.steps = steps;
  c.warmupSteps = 1;
  c.evalBatches = 1;
  c.telemetryEvery = telemetryEvery;
  return c;
}

// One step's figures: the session's report, and the GPT's own per-op times
// read from the network right after the step. optimizerMs: unscale and
// check, clipping, AdamW and the working casts.
struct StepFigures {
  double stepMs = 0.0;
  double optimizerMs = 0.0;
  model::GptTimes times;
  std::shared_ptr<const telemetry::TelemetryFrame> telemetry;
};
StepFigures stepOf(train::Session& session) {
  const train::StepReport& r = session.step();
  const model::GptNetwork& net = *model::gptOf(session.model());
  const bool updated = !r.skipped && !r.divergence;
  return {r.stepMs, r.times.optimizer + (updated ? net.refreshMs() : 0.0), net.gpt().times(),
          r.telemetry};
}

bool ruled(const std::string& policy) { return policy == "fp32" || policy == "recipe:bf16-mixed"; }

} // namespace

int main(int argc, char** argv) {
  // As the apps run: OMP_WAIT_POLICY=passive unless the caller set a policy
  // (OMP_WAIT_POLICY=active measures spinning threads).
  mantissa::app::reexecWithPassiveOmpWait(argv);
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--sizes") == 0 || std::strcmp(argv[i], "--size-one") == 0)
      return runGptSizes(argc, argv);
  int warmup = 5, reps = 10, rounds = 5;
  bool stepTable = true, telemetryTable = true, shadowTable = true;
  std::vector<std::string> policies;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      warmup = 2;
      reps = 4;
      rounds = 2;
    } else if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = std::max(2, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      const std::string table = argv[++i];
      stepTable = table == "step";
      telemetryTable = table == "telemetry";
      shadowTable = table == "shadow";
      if (!stepTable && !telemetryTable && !shadowTable) {
        std::fprintf(stderr, "bench_gpt: --only takes step, telemetry or shadow, got '%s'\n",
                     table.c_str());
        return 2;
      }
    } else if (std::strcmp(argv[i], "--policy") == 0 && i + 1 < argc) {
      policies.emplace_back(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: bench_gpt [--quick] [--reps N] [--rounds R] "
                           "[--only step|telemetry|shadow] [--policy SPEC|recipe:NAME]...\n");
      return 2;
    }
  }
  if (policies.empty())
    policies = {"fp32", "recipe:bf16-mixed", "autocast-cpu-bf16", "llm.c", "autocast-cuda-fp16"};
  const std::int64_t steps = warmup + std::int64_t(rounds) * reps + 1;
  std::printf("GPT training step, gpt:layers=4,heads=4,embd=128,ctx=64, batch 12, Tiny "
              "Shakespeare; %d warm-up steps, then %d rounds of %d steps per policy, the "
              "policies taking turns\n",
              warmup, rounds, reps);
  const char* waitPolicy = std::getenv("OMP_WAIT_POLICY");
  std::printf("CPU: %s; oneDNN %s (%s); OMP_WAIT_POLICY=%s\n\n", numeric::describeIsa().c_str(),
              numeric::onednnVersion().c_str(), numeric::onednnIsa().c_str(),
              waitPolicy ? waitPolicy : "unset (libgomp default)");

  if (stepTable) {
    // Step time by op, beside the matmul time.
    struct Timed {
      std::string policy;
      std::unique_ptr<train::Session> run;
      std::string error;
      std::vector<double> step, matmul, ratio, roundStep, roundRatio, optimizer, rest;
      std::vector<std::vector<double>> ops = std::vector<std::vector<double>>(model::kGptOpCount);
      std::vector<std::vector<double>> opRounds =
          std::vector<std::vector<double>>(model::kGptOpCount + 1); // ... and the optimizer's
    };
    std::vector<Timed> timed;
    for (const std::string& policy : policies) {
      Timed t;
      t.policy = policy;
      try {
        t.run = std::make_unique<train::Session>(configFor(policy, steps, 0));
        for (int i = 0; i < warmup; ++i)
          t.run->step();
      } catch (const std::exception& e) {
        t.error = e.what();
        t.run.reset();
      }
      timed.push_back(std::move(t));
    }
    for (int round = 0; round < rounds; ++round)
      for (Timed& t : timed) {
        if (!t.run)
          continue;
        std::vector<double> stepMs, ratio;
        for (int i = 0; i < reps && !t.run->finished(); ++i) {
          const StepFigures s = stepOf(*t.run);
          stepMs.push_back(s.stepMs);
          ratio.push_back(s.stepMs / s.times.matmulMs);
          t.matmul.push_back(s.times.matmulMs);
          t.optimizer.push_back(s.optimizerMs);
          t.rest.push_back(s.stepMs - s.times.total() - s.optimizerMs);
          for (std::size_t o = 0; o < model::kGptOpCount; ++o)
            t.ops[o].push_back(s.times.ms[o]);
        }
        const std::size_t first = t.step.size();
        for (std::size_t o = 0; o < model::kGptOpCount; ++o)
          t.opRounds[o].push_back(
              median(std::vector<double>(t.ops[o].begin() + std::ptrdiff_t(first), t.ops[o].end())));
        t.opRounds[model::kGptOpCount].push_back(median(
            std::vector<double>(t.optimizer.begin() + std::ptrdiff_t(first), t.optimizer.end())));
        t.step.insert(t.step.end(), stepMs.begin(), stepMs.end());
        t.ratio.insert(t.ratio.end(), ratio.begin(), ratio.end());
        t.roundStep.push_back(median(stepMs));
        t.roundRatio.push_back(median(ratio));
      }
    std::printf("%-20s %9s %17s %9s %6s %13s |", "policy", "median ms", "spread (rounds)",
                "matmul ms", "ratio", "ratio spread");
    for (std::size_t o = 0; o < model::kGptOpCount; ++o)
      std::printf(" %8.8s", std::string(model::gptOpName(model::GptOp(o))).c_str());
    std::printf(" | %9s %8s | rule (ratio <= 2) | matmul kernel\n", "optimizer", "rest");
    for (const Timed& t : timed) {
      if (!t.run) {
        std::printf("%-20s error: %s\n", t.policy.c_str(), t.error.c_str());
        continue;
      }
      const double m = median(t.step), mm = median(t.matmul), ratio = median(t.ratio);
      const Spread s = spreadOf(t.roundStep), r = spreadOf(t.roundRatio);
      std::printf("%-20s %9.2f %7.2f - %7.2f %9.2f %6.2f %5.2f - %5.2f |", t.policy.c_str(), m,
                  s.lo, s.hi, mm, ratio, r.lo, r.hi);
      for (const auto& o : t.ops)
        std::printf(" %8.2f", median(o));
      std::printf(" | %9.2f %8.2f", median(t.optimizer), median(t.rest));
      std::printf(" | %-17s | %s\n", ruled(t.policy) ? (ratio <= 2.0 ? "met" : "NOT met") : "-",
                  t.run->model().matmulImplementation().c_str());
    }

    // The ops without products against their bandwidth floor: the bytes of
    // their FP32 tensors read and written once, forward and backward, over the
    // copy bandwidth of this run.
    const train::Session* any = nullptr;
    for (const Timed& t : timed)
      if (t.run && !any)
        any = t.run.get();
    if (any) {
      const model::Gpt& gpt = model::gptOf(any->model())->gpt();
      const double L = gpt.spec().layers, C = gpt.spec().embd;
      const double N = double(gpt.batch()) * gpt.spec().ctx;
      const double V = double(gpt.vocabulary());
      double P = 0.0, lowValues = 0.0;
      for (const auto& p : gpt.params()) {
        P += double(p.value.size());
        lowValues += double(p.low.size());
      }
      const double gbps = benchtools::copyGbps();
      struct Floor {
        model::GptOp op;
        double bytes;
        const char* how;
      };
      const Floor floors[] = {
          {model::GptOp::Embedding, 32 * N * C, "fwd 2 rows read, 1 written; bwd 1 read, 2 updated"},
          {model::GptOp::LayerNorm, (2 * L + 1) * 20 * N * C, "2L+1 norms: fwd x -> y; bwd x, dy -> dx"},
          {model::GptOp::Residual, L * 48 * N * C, "2 adds a layer, fwd and bwd"},
          {model::GptOp::Gelu, L * 80 * N * C, "N x 4C: fwd x -> y; bwd x, dy -> dx"},
          {model::GptOp::Loss, 16 * N * V, "N x V: logits -> probs -> dlogits"},
      };
      std::printf("\nOps without products against their bandwidth floor (FP32 tensors read and "
                  "written once, forward + backward; copy bandwidth %.1f GB/s, memcpy of 64 MiB "
                  "this run); median ms, spread of the rounds' medians, x floor:\n",
                  gbps);
      std::printf("%-12s %8s %9s |", "op", "MB moved", "floor ms");
      for (const Timed& t : timed)
        if (t.run)
          std::printf(" %-30.30s |", t.policy.c_str());
      std::printf(" bytes\n");
      auto row = [&](const char* name, double bytes, std::size_t index, const char* how) {
        const double floorMs = bytes / (gbps * 1e9) * 1e3;
        std::printf("%-12s %8.2f %9.3f |", name, bytes / 1e6, floorMs);
        for (const Timed& t : timed) {
          if (!t.run)
            continue;
          const double m = index < model::kGptOpCount ? median(t.ops[index]) : median(t.optimizer);
          const Spread sp = spreadOf(t.opRounds[index]);
          std::printf(" %6.3f %6.3f-%6.3f %6.2fx |", m, sp.lo, sp.hi, m / floorMs);
        }
        std::printf(" %s\n", how);
      };
      for (const Floor& f : floors)
        row(std::string(model::gptOpName(f.op)).c_str(), f.bytes, std::size_t(f.op), f.how);
      row("optimizer", 4 * P + 28 * P + 2 * lowValues, model::kGptOpCount,
          "norm reads g; AdamW g, w, m, v -> w, m, v; 16-bit copies written");
    }
  }

  if (telemetryTable) {
    std::printf("\nTelemetry K = 1 (weights, gradients and activations of every op, each step) "
                "against K = 0, alternating steps:\n");
    std::printf("%-20s %11s %11s %8s %17s %13s %s\n", "policy", "K=0 med ms", "K=1 med ms", "cost",
                "spread (rounds)", "frame med ms", "rule (cost <= 5 %)");
    struct Pair {
      std::string policy;
      std::unique_ptr<train::Session> off, on;
      std::string error;
      std::vector<double> offMs, onMs, pairCost, roundCost, frameMs;
    };
    std::vector<Pair> pairs;
    for (const std::string& policy : policies) {
      Pair p;
      p.policy = policy;
      try {
        p.off = std::make_unique<train::Session>(configFor(policy, steps, 0));
        p.on = std::make_unique<train::Session>(configFor(policy, steps, 1));
        for (int i = 0; i < warmup; ++i) {
          p.off->step();
          p.on->step();
        }
      } catch (const std::exception& e) {
        p.error = e.what();
        p.off.reset();
        p.on.reset();
      }
      pairs.push_back(std::move(p));
    }
    for (int round = 0; round < rounds; ++round)
      for (Pair& p : pairs) {
        if (!p.on)
          continue;
        std::vector<double> cost;
        for (int i = 0; i < reps && !p.on->finished() && !p.off->finished(); ++i) {
          const double a = p.off->step().stepMs;
          const StepFigures s = stepOf(*p.on);
          p.offMs.push_back(a);
          p.onMs.push_back(s.stepMs);
          cost.push_back(s.stepMs / a - 1.0);
          if (s.telemetry)
            p.frameMs.push_back(s.telemetry->telemetryMs);
        }
        p.pairCost.insert(p.pairCost.end(), cost.begin(), cost.end());
        p.roundCost.push_back(median(cost));
      }
    for (const Pair& p : pairs) {
      if (!p.on) {
        std::printf("%-20s error: %s\n", p.policy.c_str(), p.error.c_str());
        continue;
      }
      const double cost = median(p.pairCost);
      const Spread s = spreadOf(p.roundCost);
      std::printf("%-20s %11.2f %11.2f %7.1f%% %6.1f%% - %6.1f%% %13.2f %s\n", p.policy.c_str(),
                  median(p.offMs), median(p.onMs), 100 * cost, 100 * s.lo, 100 * s.hi,
                  median(p.frameMs), cost <= 0.05 ? "met" : "NOT met");
    }
  }
  if (shadowTable) {
    // Ten steps hold one telemetry step (K = 10): the run's time with and without the shadow.
    struct Shadowed {
      const char* name = "";
      const char* shadow = "";
      double rule = 0.0;
      std::unique_ptr<train::Session> run;
      std::string error;
      std::vector<double> tenMs, costs, referenceMs;
    };
    Shadowed runs[3];
    runs[0].name = "telemetry only", runs[0].shadow = "", runs[0].rule = 0.0;
    runs[1].name = "FP32 shadow", runs[1].shadow = "fp32", runs[1].rule = 0.15;
    runs[2].name = "FP64 shadow", runs[2].shadow = "fp64", runs[2].rule = 0.40;
    const int shadowRounds = std::max(3, rounds * reps / 10 + 1);
    for (Shadowed& r : runs) {
      auto c = configFor("recipe:bf16-mixed", 10 * std::int64_t(shadowRounds + 1), 10);
      c.shadow = r.shadow;
      try {
        r.run = std::make_unique<train::Session>(c);
        for (int i = 0; i < 10; ++i) // warm-up: one telemetry (and shadow) step among them
          r.run->step();
      } catch (const std::exception& e) {
        r.error = e.what();
        r.run.reset();
      }
    }
    for (int round = 0; round < shadowRounds; ++round)
      for (Shadowed& r : runs) {
        if (!r.run)
          continue;
        double total = 0.0;
        for (int i = 0; i < 10 && !r.run->finished(); ++i) {
          const auto& report = r.run->step();
          total += report.stepMs;
          if (report.shadow)
            r.referenceMs.push_back(report.shadow->ms);
        }
        r.tenMs.push_back(total);
      }
    std::printf("\nShadow pass, bf16-mixed, telemetry every 10 steps: %d rounds of 10 steps, the "
                "runs taking turns\n",
                shadowRounds);
    std::printf("%-16s %12s %19s %9s %19s %11s %s\n", "run", "10 steps ms", "spread (rounds)",
                "cost", "cost spread", "shadow ms", "rule");
    for (Shadowed& r : runs) {
      if (!r.run) {
        std::printf("%-16s not run: %s\n", r.name, r.error.c_str());
        continue;
      }
      const Spread s = spreadOf(r.tenMs);
      if (r.rule == 0.0) {
        std::printf("%-16s %12.1f %8.1f - %8.1f\n", r.name, median(r.tenMs), s.lo, s.hi);
        continue;
      }
      std::vector<double> costs; // round by round against the telemetry-only run's same round
      for (std::size_t i = 0; i < r.tenMs.size() && i < runs[0].tenMs.size(); ++i)
        costs.push_back(r.tenMs[i] / runs[0].tenMs[i] - 1.0);
      const double cost = median(costs);
      const Spread cs = spreadOf(costs);
      std::printf("%-16s %12.1f %8.1f - %8.1f %8.1f%% %8.1f%% - %6.1f%% %11.1f %s (<= %.0f%%)\n",
                  r.name, median(r.tenMs), s.lo, s.hi, 100 * cost, 100 * cs.lo, 100 * cs.hi,
                  median(r.referenceMs), cost <= r.rule ? "met" : "NOT met", 100 * r.rule);
    }
  }
  std::printf(
      "\nratio: step time / the step's own matrix-product time (forward + backward, "
      "linear, attention and head products), median over the steps; per op: forward + backward ms, "
      "each op's products included; optimizer: unscale and check, gradient norm, clipping, AdamW "
      "and the working casts; rest: data and bookkeeping; cost: K = 1 step "
      "time / the K = 0 step before it, less 1, median over the pairs; frame: telemetry time on "
      "the step's path (without a loss scale, weights and activations are counted during "
      "backward by a thread at idle priority: the wait for what it left, then the gradients' "
      "pass).\n");
  return 0;
}
