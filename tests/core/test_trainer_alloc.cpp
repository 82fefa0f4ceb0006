// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// No allocation and no oneDNN primitive creation in the
// steady-state training step. This binary replaces the global operator new
// to count every heap allocation made while the counter is armed.
//
// oneDNN 2.6's dnnl_primitive_execute itself allocates a few small objects
// per call (its execution context's argument map), which no caller can
// avoid. The test therefore measures that baseline with a bare Matmul
// execute of the same dtype and requires the step to allocate exactly
// (matmul executes per step) x (baseline): nothing of Mantissa's own.
#include <mantissa/kernels/matmul.h>
#include <mantissa/train/session.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <optional>

#include "counting_new.h"

using namespace mantissa;

namespace {

// Heap allocations of one execute of a bare Matmul (oneDNN's own, see above).
// withBias: the product as the MLP runs it where the kernel adds the bias and
// rounds to BF16 (Matmul::roundingToBf16(true)), where this CPU offers that;
// oneDNN's bookkeeping grows with the bias argument.
long allocationsPerExecute(kernels::MatmulShape shape, DType dtype, bool withBias = false) {
  using kernels::Trans;
  kernels::Matmul mm(shape, dtype);
  const bool ts = shape.transSrc == Trans::Yes, tw = shape.transWeights == Trans::Yes;
  Tensor src(dtype, ts ? shape.k : shape.m, ts ? shape.m : shape.k);
  Tensor weights(dtype, tw ? shape.n : shape.k, tw ? shape.k : shape.n);
  Tensor dst(DType::F32, shape.m, shape.n);
  Tensor bias(DType::F32, 1, shape.n), low(DType::BF16, shape.m, shape.n);
  std::optional<kernels::Matmul> twin = withBias ? mm.roundingToBf16(true) : std::nullopt;
  auto once = [&] {
    if (twin)
      twin->execute(src, weights, bias, low);
    else
      mm.execute(src, weights, dst);
  };
  once();
  g_allocations = 0;
  g_armed = true;
  for (int i = 0; i < 10; ++i)
    once();
  g_armed = false;
  return g_allocations.load() / 10;
}

// The same products as one micro-batch of an MLP with these widths.
long allocationsOfMicroBatch(const std::vector<int>& widths, int batch, const amp::Recipe& recipe) {
  using kernels::Trans;
  const DType dtype = recipe.matmulInputs;
  const bool biasInKernel = recipe.activations == DType::BF16;
  long total = 0;
  for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
    const int in = widths[l], out = widths[l + 1];
    total += allocationsPerExecute({batch, out, in}, dtype, biasInKernel);          // forward
    total += allocationsPerExecute({in, out, batch, Trans::Yes, Trans::No}, dtype); // dW
    if (l > 0)
      total += allocationsPerExecute({batch, in, out, Trans::No, Trans::Yes}, dtype); // dX
  }
  return total;
}

} // namespace

class SteadyState : public ::testing::TestWithParam<std::string> {};

TEST_P(SteadyState, StepAllocatesNothingAndCreatesNoPrimitive) {
  train::RunConfig c;
  c.model = "mlp:784-64-64-10";
  c.recipe = GetParam();
  c.batch = 32;
  c.steps = 40;
  c.gradAccumulation = GetParam() == "fp32" ? 2 : 1; // the accumulation path too
  c.clipNorm = 1.0;
  train::Session s(c);
  for (int i = 0; i < 3; ++i) // warm-up: first-touch work (oneDNN scratchpads, ...)
    s.step();
  const auto before = kernels::kernelCounters();
  g_allocations = 0;
  g_armed = true;
  for (int i = 0; i < 20; ++i)
    s.step();
  g_armed = false;
  const long stepAllocations = g_allocations.load();
  const auto after = kernels::kernelCounters();
  const long baseline =
      20L * c.gradAccumulation * allocationsOfMicroBatch({784, 64, 64, 10}, 32, s.recipe());
  EXPECT_EQ(stepAllocations, baseline)
      << "heap allocations in 20 steady-state steps, against oneDNN's own in the same products";
  EXPECT_EQ(after.primitivesCreated, before.primitivesCreated);
  EXPECT_EQ(after.scratchAllocations, before.scratchAllocations);
}

INSTANTIATE_TEST_SUITE_P(Recipes, SteadyState,
                         ::testing::Values("fp32", "bf16-mixed", "fp16-mixed", "bf16-pure-sr",
                                           "bf16-pure-kahan"),
                         [](const auto& param) {
                           std::string n = param.param;
                           for (char& ch : n)
                             if (ch == '-')
                               ch = '_';
                           return n;
                         });

TEST(SteadyState, TheCounterSeesAllocations) {
  g_allocations = 0;
  g_armed = true;
  auto* p = new std::vector<int>(100);
  g_armed = false;
  delete p;
  EXPECT_GE(g_allocations.load(), 2);
}
