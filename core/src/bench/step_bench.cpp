// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/bench/step_bench.h>

#include <mantissa/kernels/matmul.h>
#include <mantissa/train/session.h>

namespace mantissa::bench {

SteadyStateCounts countSteadyState(const train::StepBenchOptions& o, const std::string& recipe,
                                   int warmup, int steps) {
  train::RunConfig c;
  c.data = o.data;
  c.model = o.model;
  c.recipe = recipe;
  c.batch = o.batch;
  c.steps = warmup + steps;
  c.lr = 0.01; // as measureSteps: a stable rate, only the counters matter
  train::Session s(c);
  for (int w = 0; w < warmup; ++w) // first-touch work happens here
    s.step();
  const auto before = kernels::kernelCounters();
  for (int i = 0; i < steps; ++i)
    s.step();
  const auto after = kernels::kernelCounters();
  SteadyStateCounts counts;
  counts.recipe = recipe;
  counts.steps = steps;
  counts.primitivesCreated = after.primitivesCreated - before.primitivesCreated;
  counts.scratchAllocations = after.scratchAllocations - before.scratchAllocations;
  return counts;
}

double matmulMs(const train::StepBenchResult& r) {
  return r.breakdownMs.matmulForward + r.breakdownMs.matmulBackward;
}

double unattributedMs(const train::StepBenchResult& r) {
  return r.meanMs - r.breakdownMs.total();
}

} // namespace mantissa::bench
