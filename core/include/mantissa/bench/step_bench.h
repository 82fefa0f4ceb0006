// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Whole training steps for the benchmark report. The timing itself
// (median, CV, breakdown by op kind, bytes per role) is train::measureSteps;
// this header adds what the report needs on top of it:
//  - the steady-state check: oneDNN primitives created and kernel scratch
//    buffers allocated while steps run after warm-up (both must stay 0);
//  - the sum of a step's matmul times and the part of the step no op-kind
//    timer covers (glue: loops, pointer swaps, the report itself).
//
// Heap allocations in the steady state cannot be counted from inside a
// library without replacing the global operator new; tests/core/
// test_trainer_alloc does that and checks them per recipe.

#include <mantissa/train/step_benchmark.h>

#include <cstdint>
#include <string>

namespace mantissa::bench {

struct SteadyStateCounts {
  std::string recipe;
  int steps = 0;                      // steady-state steps counted
  std::int64_t primitivesCreated = 0; // oneDNN primitives created during them
  std::int64_t scratchAllocations = 0; // kernel scratch buffers allocated during them
  bool clean() const { return primitivesCreated == 0 && scratchAllocations == 0; }
};

// Builds a Session like measureSteps does (options' data, model, batch),
// runs `warmup` steps, then counts kernel counters over `steps` more.
SteadyStateCounts countSteadyState(const train::StepBenchOptions& options, const std::string& recipe,
                                   int warmup, int steps);

// Mean milliseconds of the step's matmul products (forward + backward).
double matmulMs(const train::StepBenchResult& result);
// Mean step time minus every op kind's mean time: the untimed glue (>= 0
// up to timer noise).
double unattributedMs(const train::StepBenchResult& result);

} // namespace mantissa::bench
