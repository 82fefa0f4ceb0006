// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The CNN ops in steady state: no oneDNN primitive created, no scratch
// buffer allocated, and no heap allocation beyond oneDNN 2.6's own. Its
// execute call allocates a few objects of argument bookkeeping per call;
// Conv2d must allocate exactly what bare executes of the same primitives
// do: each product built here straight on oneDNN as Conv2d builds it
// (format `any`, reorders to and from nchw/oihw where the kernel chose
// another layout, scratchpads passed in), and run through the C call.
// Pooling, BatchNorm and the channel bias allocate nothing at all.
#include <mantissa/kernels/matmul.h>
#include <mantissa/nn/batchnorm2d.h>
#include <mantissa/nn/conv2d.h>
#include <mantissa/nn/pool2d.h>

#include <oneapi/dnnl/dnnl.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <iostream>
#include <vector>

#include "counting_new.h"

using namespace mantissa;

namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;
using md = dnnl::memory::desc;

long allocationsIn(int rounds, const std::function<void()>& run) {
  run(); // warm-up
  g_allocations = 0;
  g_armed = true;
  for (int i = 0; i < rounds; ++i)
    run();
  g_armed = false;
  return g_allocations.load();
}

// The primitives of one product and their argument arrays.
struct Bare {
  std::vector<dnnl::primitive> primitives;
  std::vector<std::vector<dnnl_exec_arg_t>> args;
  std::vector<dnnl::memory> memories;
};

dnnl::memory scratchpadFor(Bare& b, const md& desc, const dnnl::engine& engine) {
  b.memories.emplace_back(desc, engine);
  return b.memories.back();
}

// Conv primitive `prim` from `pd`, with inputs in[] / output out in plain
// layouts, reordered where the kernel wants others.
template <class Prim, class Pd>
Bare wire(const Pd& pd, const dnnl::engine& engine, std::array<int, 2> inArgs,
          std::array<md, 2> plainIn, int outArg, const md& plainOut) {
  Bare b;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  auto memory = [&](const md& d) {
    b.memories.emplace_back(d, engine);
    return b.memories.back();
  };
  auto reorder = [&](const dnnl::memory& from, const dnnl::memory& to) {
    const dnnl::reorder::primitive_desc rpd(engine, from.get_desc(), engine, to.get_desc(), attr);
    b.primitives.push_back(dnnl::reorder(rpd));
    std::vector<dnnl_exec_arg_t> a{{DNNL_ARG_FROM, from.get()}, {DNNL_ARG_TO, to.get()}};
    if (rpd.scratchpad_desc().get_size() > 0)
      a.push_back({DNNL_ARG_SCRATCHPAD, scratchpadFor(b, rpd.scratchpad_desc(), engine).get()});
    b.args.push_back(a);
  };
  std::vector<dnnl_exec_arg_t> mainArgs;
  for (std::size_t i = 0; i < 2; ++i) {
    const dnnl::memory user = memory(plainIn[i]);
    const md want = pd.query_md(dnnl::query::exec_arg_md, inArgs[i]);
    dnnl::memory used = user;
    if (want != plainIn[i]) {
      used = memory(want);
      reorder(user, used);
    }
    mainArgs.push_back({inArgs[i], used.get()});
  }
  const dnnl::memory userOut = memory(plainOut);
  const md wantOut = pd.query_md(dnnl::query::exec_arg_md, outArg);
  dnnl::memory out = userOut;
  if (wantOut != plainOut)
    out = memory(wantOut);
  mainArgs.push_back({outArg, out.get()});
  if (pd.scratchpad_desc().get_size() > 0)
    mainArgs.push_back({DNNL_ARG_SCRATCHPAD, scratchpadFor(b, pd.scratchpad_desc(), engine).get()});
  b.primitives.push_back(Prim(pd));
  b.args.push_back(mainArgs);
  if (wantOut != plainOut)
    reorder(out, userOut);
  return b;
}

// Conv2d's three products built bare; `in` is the kernels' input type (FP32
// where the layer is emulated).
std::array<Bare, 3> bareConv(int B, int Cin, int Cout, int H, int W, int k, dt in,
                             const dnnl::engine& engine) {
  const dnnl::memory::dims src{B, Cin, H, W}, wei{Cout, Cin, k, k}, dst{B, Cout, H, W};
  const dnnl::memory::dims strides{1, 1}, pad{k / 2, k / 2};
  const auto algo = dnnl::algorithm::convolution_direct;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::convolution_forward::primitive_desc fwd(
      dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, algo,
                                      md(src, in, tag::any), md(wei, in, tag::any),
                                      md(dst, dt::f32, tag::any), strides, pad, pad),
      attr, engine);
  const dnnl::convolution_backward_data::primitive_desc bwdData(
      dnnl::convolution_backward_data::desc(algo, md(src, dt::f32, tag::any),
                                            md(wei, in, tag::any), md(dst, in, tag::any),
                                            strides, pad, pad),
      attr, engine, fwd);
  const dnnl::convolution_backward_weights::primitive_desc bwdWeights(
      dnnl::convolution_backward_weights::desc(algo, md(src, in, tag::any),
                                               md(wei, dt::f32, tag::any),
                                               md(dst, in, tag::any), strides, pad, pad),
      attr, engine, fwd);
  return {wire<dnnl::convolution_forward>(fwd, engine, {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS},
                                          {md(src, in, tag::nchw), md(wei, in, tag::oihw)},
                                          DNNL_ARG_DST, md(dst, dt::f32, tag::nchw)),
          wire<dnnl::convolution_backward_data>(
              bwdData, engine, {DNNL_ARG_DIFF_DST, DNNL_ARG_WEIGHTS},
              {md(dst, in, tag::nchw), md(wei, in, tag::oihw)}, DNNL_ARG_DIFF_SRC,
              md(src, dt::f32, tag::nchw)),
          wire<dnnl::convolution_backward_weights>(
              bwdWeights, engine, {DNNL_ARG_SRC, DNNL_ARG_DIFF_DST},
              {md(src, in, tag::nchw), md(dst, in, tag::nchw)}, DNNL_ARG_DIFF_WEIGHTS,
              md(wei, dt::f32, tag::oihw))};
}

std::string dtypeLabel(DType d) {
  return d == DType::F32 ? "F32" : d == DType::BF16 ? "BF16" : "F16";
}

} // namespace

class Conv2dSteadyState : public ::testing::TestWithParam<DType> {};

TEST_P(Conv2dSteadyState, AllocatesOnlyWhatOneDnnExecuteDoes) {
  const DType d = GetParam();
  const int B = 2, Cin = 8, Cout = 16, H = 14, W = 14, k = 5;
  nn::Conv2d conv(B, Cin, Cout, H, W, k, d);
  Tensor x(d, B, Cin * H * W), w(d, Cout, Cin * k * k), dy(d, B, Cout * H * W);
  Tensor y(DType::F32, B, Cout * H * W), dx(DType::F32, B, Cin * H * W),
      dw(DType::F32, Cout, Cin * k * k);

  const auto before = kernels::kernelCounters();
  const std::array<std::function<void()>, 3> layer{[&] { conv.forward(x, w, y); },
                                                   [&] { conv.backwardData(dy, w, dx); },
                                                   [&] { conv.backwardWeights(x, dy, dw); }};
  long layerCounts[3];
  for (int i = 0; i < 3; ++i)
    layerCounts[i] = allocationsIn(10, layer[std::size_t(i)]);
  const auto after = kernels::kernelCounters();
  EXPECT_EQ(after.primitivesCreated, before.primitivesCreated);
  EXPECT_EQ(after.scratchAllocations, before.scratchAllocations);

  // The bare primitives, in the types the layer's kernels run in.
  const dt in = conv.emulated() || d == DType::F32 ? dt::f32 : d == DType::BF16 ? dt::bf16 : dt::f16;
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  auto bare = bareConv(B, Cin, Cout, H, W, k, in, engine);
  const char* names[3] = {"forward", "backwardData", "backwardWeights"};
  for (int i = 0; i < 3; ++i) {
    Bare& b = bare[std::size_t(i)];
    const long expected = allocationsIn(10, [&] {
      for (std::size_t s = 0; s < b.primitives.size(); ++s)
        dnnl_primitive_execute(b.primitives[s].get(), stream.get(), int(b.args[s].size()),
                               b.args[s].data());
      stream.wait();
    });
    std::cout << dtypeLabel(d) << " " << names[i] << ": " << layerCounts[i]
              << " allocations in 10 calls, oneDNN's own " << expected << " ("
              << b.primitives.size() << " primitives per call)\n";
    EXPECT_EQ(layerCounts[i], expected) << names[i];
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Conv2dSteadyState,
                         ::testing::Values(DType::F32, DType::BF16, DType::F16),
                         [](const auto& p) { return dtypeLabel(p.param); });

TEST(CnnSteadyState, PoolingBatchNormAndBiasAllocateNothing) {
  const int B = 4, C = 8, H = 12, W = 12, HW = H * W;
  const std::size_t n = std::size_t(B) * C * HW;
  std::vector<float> in(n, 1.0f), out(n), din(n), pooled(n / 4), dpooled(n / 4, 1.0f);
  for (std::size_t i = 0; i < n; ++i)
    in[i] = float(i % 17) * 0.25f;
  std::vector<std::int32_t> argmax(n / 4);
  std::vector<float> gamma(C, 1.0f), beta(C), mean(C), rstd(C), rm(C), rv(C, 1.0f), dg(C), db(C);
  const long count = allocationsIn(10, [&] {
    nn::addChannelBias(out, beta, B, C, HW);
    nn::channelBiasGradient(db, out, B, C, HW);
    nn::maxPool2dForward(pooled, argmax, in, B, C, H, W);
    nn::maxPool2dBackward(din, dpooled, argmax, B, C, H, W);
    nn::batchNorm2dTrainForward(out, mean, rstd, rm, rv, in, gamma, beta, B, C, HW, DType::BF16);
    nn::batchNorm2dTrainForward(out, mean, rstd, rm, rv, in, gamma, beta, B, C, HW);
    nn::batchNorm2dEvalForward(out, in, gamma, beta, rm, rv, B, C, HW);
    nn::batchNorm2dBackward(din, dg, db, out, in, gamma, mean, rstd, B, C, HW);
  });
  EXPECT_EQ(count, 0);
}
