// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// No allocation and no oneDNN primitive creation in the steady-state
// training step of an MLP or a GPT (train::Session::step, the one path of
// every model). This binary replaces the global operator new to count every
// heap allocation made while the counter is armed.
//
// oneDNN 2.6's dnnl_primitive_execute itself allocates a few small objects
// per call (its execution context's argument map), which no caller can
// avoid. The test therefore measures that baseline with a bare Matmul
// execute of the same dtype and requires the step to allocate exactly
// (matmul executes per step) x (baseline): nothing of Mantissa's own.
// (A CNN's convolutions have their own steady-state test, test_nn_cnn_alloc.)
// The shadow pass's FP64 reference (model/shadow_reference.h) runs on plain
// loops and its own GEMM: its run() allocates nothing at all once warm.
#include "counting_new.h"

#include <mantissa/kernels/batched_matmul.h>
#include <mantissa/kernels/matmul.h>
#include <mantissa/model/gpt.h>
#include <mantissa/model/cnn.h>
#include <mantissa/model/gpt_network.h>
#include <mantissa/model/mlp.h>
#include <mantissa/model/shadow_reference.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/session.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <optional>
#include <ostream>

using namespace mantissa;

namespace {

// Heap allocations of one execute of a bare Matmul (oneDNN's own, see above).
// withBias: the product as the MLP runs it where the kernel adds the bias and
// rounds to BF16 (Matmul::roundingToBf16(true)), where this CPU offers that;
// oneDNN's bookkeeping grows with the bias argument. accumulate: dst += the
// product (the GPT's tied head, whose dW adds to the embedding's).
long allocationsPerExecute(kernels::MatmulShape shape, DType dtype, bool withBias = false,
                           bool accumulate = false) {
  using kernels::Trans;
  kernels::Matmul mm(shape, dtype, DType::F32, accumulate);
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

// Heap allocations of one execute of a bare batched product (attention's).
long allocationsPerBatchedExecute(kernels::BatchedShape s, DType dtype) {
  using kernels::Trans;
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

// The same products as one training step of a GPT: per block the qkv,
// attention projection, fc and fc projection linears (forward, dW, dX) and
// attention's two batched products forward and their four backward; then
// the tied head (forward, dX, and dW added to the embedding's gradient).
long allocationsOfGptTrainingStep(const model::GptSpec& spec, int batch, int vocabulary, DType d) {
  using kernels::Trans;
  const int L = spec.layers, T = spec.ctx, C = spec.embd, H = spec.heads, V = vocabulary;
  const int N = batch * T, G = batch * H, D = C / H;
  long linear = 0;
  for (auto [in, out] : {std::pair{C, 3 * C}, {C, C}, {C, 4 * C}, {4 * C, C}})
    linear += allocationsPerExecute({N, out, in}, d) +
              allocationsPerExecute({in, out, N, Trans::Yes, Trans::No}, d) +
              allocationsPerExecute({N, in, out, Trans::No, Trans::Yes}, d);
  const long attention = 2 * (allocationsPerBatchedExecute({G, T, T, D, Trans::No, Trans::Yes}, d) +
                              allocationsPerBatchedExecute({G, T, D, T}, d) +
                              allocationsPerBatchedExecute({G, T, D, T, Trans::Yes, Trans::No}, d));
  const long head = allocationsPerExecute({N, V, C, Trans::No, Trans::Yes}, d) +
                    allocationsPerExecute({N, C, V}, d) +
                    allocationsPerExecute({V, C, N, Trans::Yes, Trans::No}, d, false, true);
  return L * (linear + attention) + head;
}

// One run per case: an MLP in each recipe, a GPT in each policy.
struct SteadyCase {
  std::string name;
  train::RunConfig config;
};

SteadyCase mlpCase(const std::string& recipe) {
  train::RunConfig c;
  c.model = "mlp:784-64-64-10";
  c.recipe = recipe;
  c.batch = 32;
  c.steps = 40;
  c.gradAccumulation = recipe == "fp32" ? 2 : 1; // the accumulation path too
  c.clipNorm = 1.0;
  return {"mlp_" + recipe, c};
}

SteadyCase gptCase(const std::string& policy) {
  train::RunConfig c = train::findPreset("shakespeare-char")->runs.front();
  c.model = "gpt:layers=2,heads=2,embd=32,ctx=16";
  c.batch = 4;
  c.steps = 40;
  c.warmupSteps = 2;
  c.evalBatches = 1;
  c.policy = policy;
  return {"gpt_" + policy, c};
}

void PrintTo(const SteadyCase& c, std::ostream* os) {
  *os << c.name;
}

// oneDNN's own allocations in the products of one step of the session.
long allocationsOfStep(const train::Session& s) {
  const train::RunConfig& c = s.config();
  if (const model::GptNetwork* gpt = model::gptOf(s.model()))
    return allocationsOfGptTrainingStep(model::parseGptSpec(c.model), c.batch, s.text().vocabularySize(),
                                gpt->gpt().policy()[amp::OpClass::MatmulInputs]);
  std::vector<int> widths;
  for (const auto& layer : s.model().layerInfo()) {
    if (widths.empty())
      widths.push_back(layer.rows);
    widths.push_back(layer.cols);
  }
  return c.gradAccumulation * allocationsOfMicroBatch(widths, c.batch, s.recipe());
}

} // namespace

class SteadyState : public ::testing::TestWithParam<SteadyCase> {};

TEST_P(SteadyState, StepAllocatesOnlyWhatOneDnnExecuteDoes) {
  train::Session s(GetParam().config);
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
  const long baseline = 20L * allocationsOfStep(s);
  EXPECT_EQ(stepAllocations, baseline)
      << "heap allocations in 20 steady-state steps, against oneDNN's own in the same products";
  EXPECT_EQ(after.primitivesCreated, before.primitivesCreated);
  EXPECT_EQ(after.scratchAllocations, before.scratchAllocations);
}

INSTANTIATE_TEST_SUITE_P(Models, SteadyState,
                         ::testing::Values(mlpCase("fp32"), mlpCase("bf16-mixed"),
                                           mlpCase("fp16-mixed"), mlpCase("bf16-pure-sr"),
                                           mlpCase("bf16-pure-kahan"), gptCase("fp32"),
                                           gptCase("autocast-cpu-bf16"),
                                           gptCase("autocast-cuda-fp16"), gptCase("llm.c")),
                         [](const auto& param) {
                           std::string n = param.param.name;
                           for (char& ch : n)
                             if (ch == '-' || ch == '.')
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

namespace {

// Allocations of the third run() of the FP64 reference of `m` (two to warm up).
long fp64ReferenceRunAllocations(model::Network& m) {
  m.initialize(3);
  for (float& v : m.inputs())
    v = 0.25f;
  for (auto& t : m.tokens())
    t = 1;
  for (auto& t : m.labels())
    t = 1;
  auto reference = model::makeFp64Reference(m);
  const auto params = m.parameters();
  model::ShadowBatch batch;
  batch.inputs = m.inputs();
  batch.tokens = m.tokens();
  batch.labels = m.labels();
  batch.parameters = params;
  reference->run(batch);
  reference->run(batch);
  g_allocations = 0;
  g_armed = true;
  reference->run(batch);
  g_armed = false;
  return g_allocations.load();
}

} // namespace

TEST(SteadyState, Fp64ShadowReferenceRunAllocatesNothing) {
  model::Mlp mlp(model::parseMlpSpec("mlp:64-256-256-10:gelu"), 32, amp::recipeByName("fp32"));
  EXPECT_EQ(fp64ReferenceRunAllocations(mlp), 0);
  const auto spec = model::parseCnnSpec("cnn:c3k3b-p2-c4k5-f5");
  model::Cnn cnn(spec, model::cnnLayout(spec, 72, 6, 6, 3), 4, amp::recipeByName("fp32"));
  EXPECT_EQ(fp64ReferenceRunAllocations(cnn), 0);
  model::GptNetwork gpt(model::GptSpec{2, 2, 32, 16}, 11, 4, amp::parsePolicy("fp32"));
  EXPECT_EQ(fp64ReferenceRunAllocations(gpt), 0);
}
