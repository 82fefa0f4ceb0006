// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// No allocation and no oneDNN primitive creation in the steady-state GPT
// training step (train::GptRun::step). As for the MLP (test_trainer_alloc),
// oneDNN 2.6's execute allocates a few small objects of its own per call; the
// step must allocate exactly what bare executes of the same products do.
#include <mantissa/kernels/batched_matmul.h>
#include <mantissa/kernels/matmul.h>
#include <mantissa/train/gpt_run.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <iostream>
#include <new>

#include "counting_new.h"

using namespace mantissa;
using kernels::Trans;

namespace {

long perExecute(kernels::MatmulShape s, DType dtype, bool accumulate = false) {
  kernels::Matmul mm(s, dtype, DType::F32, accumulate);
  const bool ts = s.transSrc == Trans::Yes, tw = s.transWeights == Trans::Yes;
  Tensor src(dtype, ts ? s.k : s.m, ts ? s.m : s.k);
  Tensor weights(dtype, tw ? s.n : s.k, tw ? s.k : s.n);
  Tensor dst(DType::F32, s.m, s.n);
  mm.execute(src, weights, dst);
  g_allocations = 0;
  g_armed = true;
  for (int i = 0; i < 10; ++i)
    mm.execute(src, weights, dst);
  g_armed = false;
  return g_allocations.load() / 10;
}

long perBatchedExecute(kernels::BatchedShape s, DType dtype) {
  kernels::BatchedMatmul mm(s, dtype);
  const bool ts = s.transSrc == Trans::Yes, tw = s.transWeights == Trans::Yes;
  Tensor src(dtype, s.groups * (ts ? s.k : s.m), ts ? s.m : s.k);
  Tensor weights(dtype, s.groups * (tw ? s.n : s.k), tw ? s.k : s.n);
  Tensor dst(DType::F32, s.groups * s.m, s.n);
  mm.execute(src, weights, dst);
  g_allocations = 0;
  g_armed = true;
  for (int i = 0; i < 10; ++i)
    mm.execute(src, weights, dst);
  g_armed = false;
  return g_allocations.load() / 10;
}

// oneDNN's own allocations in the products of one GPT training step.
long productsOfStep(int L, int B, int T, int C, int H, int V, DType d) {
  const int N = B * T, G = B * H, D = C / H;
  long linear = 0;
  for (auto [in, out] : {std::pair{C, 3 * C}, {C, C}, {C, 4 * C}, {4 * C, C}})
    linear += perExecute(kernels::MatmulShape{N, out, in}, d) + perExecute(kernels::MatmulShape{in, out, N, Trans::Yes, Trans::No}, d) +
              perExecute(kernels::MatmulShape{N, in, out, Trans::No, Trans::Yes}, d);
  const long attention = 2 * (perBatchedExecute({G, T, T, D, Trans::No, Trans::Yes}, d) +
                              perBatchedExecute({G, T, D, T}, d) +
                              perBatchedExecute({G, T, D, T, Trans::Yes, Trans::No}, d));
  const long head = perExecute(kernels::MatmulShape{N, V, C, Trans::No, Trans::Yes}, d) + perExecute(kernels::MatmulShape{N, C, V}, d) +
                    perExecute(kernels::MatmulShape{V, C, N, Trans::Yes, Trans::No}, d, true);
  return L * (linear + attention) + head;
}

} // namespace

class GptSteadyStateAlloc : public ::testing::TestWithParam<std::string> {};

TEST_P(GptSteadyStateAlloc, StepAllocatesOnlyWhatOneDnnExecuteDoes) {
  train::GptRunConfig c;
  c.model = "gpt:layers=2,heads=2,embd=32,ctx=16";
  c.batch = 4;
  c.steps = 40;
  c.warmupSteps = 2;
  c.evalBatches = 1;
  c.policy = GetParam();
  train::GptRun run(c);
  for (int i = 0; i < 3; ++i)
    run.step();
  const auto before = kernels::kernelCounters();
  g_allocations = 0;
  g_armed = true;
  for (int i = 0; i < 10; ++i)
    run.step();
  g_armed = false;
  const long stepAllocations = g_allocations.load();
  const auto after = kernels::kernelCounters();
  const long baseline =
      10L * productsOfStep(2, 4, 16, 32, 2, run.corpus().vocabularySize(),
                           run.policy()[amp::OpClass::MatmulInputs]);
  std::cout << GetParam() << ": " << stepAllocations << " allocations in 10 steps, oneDNN's own "
            << baseline << "\n";
  EXPECT_EQ(stepAllocations, baseline)
      << "heap allocations in 10 steady-state steps, against oneDNN's own in the same products";
  EXPECT_EQ(after.primitivesCreated, before.primitivesCreated);
  EXPECT_EQ(after.scratchAllocations, before.scratchAllocations);
}

INSTANTIATE_TEST_SUITE_P(Policies, GptSteadyStateAlloc,
                         ::testing::Values("fp32", "autocast-cpu-bf16", "autocast-cuda-fp16", "llm.c"),
                         [](const auto& param) {
                           std::string n = param.param;
                           for (char& ch : n)
                             if (ch == '-' || ch == '.')
                               ch = '_';
                           return n;
                         });
