// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The shadow pass's FP64 reference (model/shadow_reference.h): one run()
// (copy of the weights, forward and backward in double) beside the run
// model's forward + backward under fp32 and bf16-mixed, on the MLP
// 784-1024-1024-10 at batch 128 and the shakespeare-char GPT (4 layers,
// 4 heads, embd 128, ctx 64, batch 12, vocabulary 65).
//
// The three take turns within each round, so that load from other processes
// falls on all alike. Printed: the median over all timed repetitions, the
// spread (lowest and highest of the rounds' medians), and the reference's
// cost at one shadowed step in ten: ref / (10 x bf16-mixed step + ref),
// where the step is forward + backward only (the optimizer is left out, so
// the share is an upper bound).
//
// --cnn adds cnn:lenet-bn at batch 128 (28x28 images), between the two.
//
//   bench_shadow [--quick] [--cnn] [--reps N] [--rounds R]
#include "../../app/omp_wait_policy.h"

#include <mantissa/amp/policy.h>
#include <mantissa/amp/recipe.h>
#include <mantissa/model/cnn.h>
#include <mantissa/model/gpt_network.h>
#include <mantissa/model/mlp.h>
#include <mantissa/model/shadow_reference.h>
#include <mantissa/train/shadow.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
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

double msOf(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

struct Series {
  std::string name;
  std::function<void()> run;
  std::vector<double> all, roundMedians;
};

void fill(model::Network& m, std::uint64_t seed, int classes) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (float& v : m.inputs())
    v = u(rng);
  std::uniform_int_distribution<int> c(0, classes - 1);
  for (auto& t : m.tokens())
    t = c(rng);
  for (auto& t : m.labels())
    t = c(rng);
}

// One model: fp32 and bf16-mixed forward + backward, and the FP64 reference run.
void bench(const char* title, std::unique_ptr<model::Network> fp32,
           std::unique_ptr<model::Network> bf16, int classes, int warmup, int reps, int rounds) {
  for (auto* m : {fp32.get(), bf16.get()}) {
    m->initialize(1);
    fill(*m, 2, classes);
  }
  auto reference = model::makeFp64Reference(*fp32);
  const auto params = fp32->parameters();
  model::ShadowBatch batch;
  batch.inputs = fp32->inputs();
  batch.tokens = fp32->tokens();
  batch.labels = fp32->labels();
  batch.parameters = params;
  model::OpTimes times;
  auto step = [&times](model::Network& m) {
    m.forward(times);
    m.backward(1.0f, false, times);
  };
  std::vector<Series> series;
  series.push_back({"fp32 forward+backward", [&] { step(*fp32); }, {}, {}});
  series.push_back({"bf16-mixed forward+backward", [&] { step(*bf16); }, {}, {}});
  series.push_back({"FP64 reference run", [&] { reference->run(batch); }, {}, {}});
  for (auto& s : series)
    for (int i = 0; i < warmup; ++i)
      s.run();
  // The comparison of every named tensor, bf16-mixed against fp32, on the
  // calling thread (the shadow pass spreads the tensors over the team).
  std::vector<model::ShadowTensor> run, ref;
  bf16->shadowTensors(run);
  fp32->shadowTensors(ref);
  std::size_t values = 0;
  for (const auto& t : run)
    values += t.values.size();
  series.push_back({"compare every tensor, 1 thread",
                    [&] {
                      for (std::size_t i = 0; i < run.size(); ++i)
                        (void)train::measureShadowError(run[i].name, run[i].values, ref[i].values,
                                                        run[i].format);
                    },
                    {},
                    {}});
  for (int r = 0; r < rounds; ++r)
    for (auto& s : series) {
      std::vector<double> ms;
      for (int i = 0; i < reps; ++i)
        ms.push_back(msOf(s.run));
      s.all.insert(s.all.end(), ms.begin(), ms.end());
      s.roundMedians.push_back(median(ms));
    }
  std::printf("%s\n  %-28s %10s %22s\n", title, "", "median ms", "spread (rounds' medians)");
  for (const auto& s : series) {
    const auto [lo, hi] = std::minmax_element(s.roundMedians.begin(), s.roundMedians.end());
    std::printf("  %-28s %10.2f %10.2f .. %-10.2f\n", s.name.c_str(), median(s.all), *lo, *hi);
  }
  const double refMs = median(series[2].all), f32 = median(series[0].all),
               b16 = median(series[1].all), compare = median(series[3].all);
  std::printf("  reference / fp32 step %.2fx, / bf16-mixed step %.2fx; "
              "cost at one shadow in 10 bf16-mixed steps: %.0f%%\n",
              refMs / f32, refMs / b16, 100.0 * refMs / (10.0 * b16 + refMs));
  std::printf("  comparison: %zu tensors, %zu values, %.2f ns a value\n\n", run.size(), values,
              1e6 * compare / static_cast<double>(values));
}

} // namespace

int main(int argc, char** argv) {
  mantissa::app::reexecWithPassiveOmpWait(argv);
  int warmup = 3, reps = 5, rounds = 5;
  bool withCnn = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      warmup = 1;
      reps = 3;
      rounds = 2;
    } else if (std::strcmp(argv[i], "--cnn") == 0) {
      withCnn = true;
    } else if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: bench_shadow [--quick] [--cnn] [--reps N] [--rounds R]\n");
      return 2;
    }
  }
  const char* wait = std::getenv("OMP_WAIT_POLICY");
  std::printf("FP64 shadow reference beside the run's forward + backward (OMP_WAIT_POLICY=%s)\n\n",
              wait ? wait : "unset");
  {
    const auto spec = model::parseMlpSpec("mlp:784-1024-1024-10");
    bench("MLP 784-1024-1024-10, batch 128",
          std::make_unique<model::Mlp>(spec, 128, amp::recipeByName("fp32")),
          std::make_unique<model::Mlp>(spec, 128, amp::recipeByName("bf16-mixed")), 10, warmup,
          reps, rounds);
  }
  if (withCnn) {
    const auto spec = model::parseCnnSpec("cnn:lenet-bn");
    const auto layout = model::cnnLayout(spec, 784, 28, 28, 10);
    bench("CNN lenet-bn on 28x28, batch 128",
          std::make_unique<model::Cnn>(spec, layout, 128, amp::recipeByName("fp32")),
          std::make_unique<model::Cnn>(spec, layout, 128, amp::recipeByName("bf16-mixed")), 10,
          warmup, reps, rounds);
  }
  {
    const model::GptSpec spec{4, 4, 128, 64};
    bench("GPT shakespeare-char (4 layers, 4 heads, embd 128, ctx 64, batch 12, vocabulary 65)",
          std::make_unique<model::GptNetwork>(spec, 65, 12, amp::parsePolicy("fp32")),
          std::make_unique<model::GptNetwork>(
              spec, 65, 12, amp::policyForRecipe(amp::recipeByName("bf16-mixed"))),
          65, warmup, reps, rounds);
  }
  return 0;
}
