// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/nn/conv2d.h>

#include "kernels/matmul_operands.h"
#include "kernels/onednn_context.h"
#include "kernels/onednn_dtype.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mantissa::nn {
namespace {

using kernels::OneDnnContext;
using kernels::detail::StoredShape;
using kernels::detail::toDnnl;
using kernels::detail::widen;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;
using md = dnnl::memory::desc;

// One oneDNN primitive and its arguments, executed through the C call with a
// plain array (the C++ wrapper builds a map of arguments on every call).
struct Step {
  dnnl::primitive primitive;
  std::array<dnnl_exec_arg_t, 4> args{};
  int argCount = 0;
  dnnl::memory scratchpad;

  void run(dnnl::stream& stream) const {
    dnnl::error::wrap_c_api(
        dnnl_primitive_execute(primitive.get(), stream.get(), argCount, args.data()),
        "Conv2d: oneDNN execution failed");
  }
};

void addScratchpad(Step& step, const md& scratchpadDesc) {
  if (scratchpadDesc.get_size() == 0)
    return;
  OneDnnContext& ctx = OneDnnContext::instance();
  step.scratchpad = dnnl::memory(scratchpadDesc, ctx.engine());
  ctx.noteScratchAllocation();
  step.args[static_cast<std::size_t>(step.argCount++)] = {DNNL_ARG_SCRATCHPAD,
                                                          step.scratchpad.get()};
}

dnnl::primitive_attr userScratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

// One of the three products: two operands in, one out.
struct Product {
  bool emulated = false;
  std::string implementation;
  // The operands as the caller stores them (plain nchw / oihw); the data
  // handles are set on every call. For emulated 16-bit inputs these point at
  // the FP32 twins.
  dnnl::memory userIn[2], userOut;
  Tensor twin[2];                       // FP32 twins, emulated 16-bit only
  std::vector<dnnl::memory> reordered;  // operands in the kernel's layout
  std::vector<Step> steps;              // reorders in, the product, reorder out
  std::size_t reorderBytes = 0;
  std::size_t scratchpadBytes = 0;

  void run() {
    dnnl::stream& stream = OneDnnContext::instance().stream();
    for (const Step& s : steps)
      s.run(stream);
    stream.wait();
  }
};

// Wires `pd` (any convolution primitive descriptor) into `p`: user memories
// in the plain layouts, a reorder wherever the kernel chose another layout.
// `inArgs`/`outArg` are the oneDNN argument ids, `plainIn`/`plainOut` the
// caller's layouts.
template <class Pd, class Prim>
void wire(Product& p, const Pd& pd, std::array<int, 2> inArgs, std::array<md, 2> plainIn,
          int outArg, const md& plainOut) {
  OneDnnContext& ctx = OneDnnContext::instance();
  const dnnl::primitive_attr attr = userScratchpad();
  auto kernelDesc = [&](int arg) { return pd.query_md(dnnl::query::exec_arg_md, arg); };
  auto reorderStep = [&](const dnnl::memory& from, const dnnl::memory& to) {
    const dnnl::reorder::primitive_desc rpd(ctx.engine(), from.get_desc(), ctx.engine(),
                                            to.get_desc(), attr);
    Step s;
    s.primitive = dnnl::reorder(rpd);
    ctx.notePrimitiveCreated();
    s.args[0] = {DNNL_ARG_FROM, from.get()};
    s.args[1] = {DNNL_ARG_TO, to.get()};
    s.argCount = 2;
    addScratchpad(s, rpd.scratchpad_desc());
    p.scratchpadBytes += rpd.scratchpad_desc().get_size();
    return s;
  };
  auto internal = [&](const md& d) {
    p.reordered.emplace_back(d, ctx.engine());
    ctx.noteScratchAllocation();
    p.reorderBytes += d.get_size();
    return p.reordered.back();
  };
  p.reordered.reserve(3);

  Step main;
  main.primitive = Prim(pd);
  ctx.notePrimitiveCreated();
  for (std::size_t i = 0; i < 2; ++i) {
    p.userIn[i] = dnnl::memory(plainIn[i], ctx.engine(), DNNL_MEMORY_NONE);
    const md want = kernelDesc(inArgs[i]);
    dnnl::memory used = p.userIn[i];
    if (want != plainIn[i]) {
      used = internal(want);
      p.steps.push_back(reorderStep(p.userIn[i], used));
    }
    main.args[i] = {inArgs[i], used.get()};
  }
  p.userOut = dnnl::memory(plainOut, ctx.engine(), DNNL_MEMORY_NONE);
  const md wantOut = kernelDesc(outArg);
  dnnl::memory out = p.userOut;
  std::optional<Step> after;
  if (wantOut != plainOut) {
    out = internal(wantOut);
    after = reorderStep(out, p.userOut);
  }
  main.args[2] = {outArg, out.get()};
  main.argCount = 3;
  addScratchpad(main, pd.scratchpad_desc());
  p.scratchpadBytes += pd.scratchpad_desc().get_size();
  p.steps.push_back(std::move(main));
  if (after)
    p.steps.push_back(std::move(*after));
  p.implementation = pd.impl_info_str();
}

// A descriptor oneDNN can build, or nullopt (dnnl::error) -- and for 16-bit
// inputs, a reference ("ref:any") kernel does not count as native: it is a
// slow loop nest, not the CPU's bf16 instructions.
template <class Make> auto tryPd(Make make, bool sixteenBit) -> std::optional<decltype(make())> {
  try {
    auto pd = make();
    if (sixteenBit && std::string(pd.impl_info_str()).rfind("ref", 0) == 0)
      return std::nullopt;
    return pd;
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

void checkOperand(const char* who, const char* operand, const Tensor& t, DType dtype,
                  std::int64_t rows, std::int64_t cols) {
  kernels::detail::checkOperand(who, operand, t, dtype, StoredShape{rows, cols});
}

} // namespace

struct Conv2d::Plan {
  int batch = 0, cin = 0, cout = 0, height = 0, width = 0, k = 0;
  DType inputs = DType::F32;
  Product forward, backwardData, backwardWeights;
};

Conv2d::Conv2d(int batch, int cin, int cout, int height, int width, int k, DType inputs)
    : m_plan(std::make_unique<Plan>()) {
  if (batch <= 0 || cin <= 0 || cout <= 0 || height <= 0 || width <= 0)
    throw std::invalid_argument("Conv2d: batch " + std::to_string(batch) + ", channels " +
                                std::to_string(cin) + " -> " + std::to_string(cout) +
                                ", image " + std::to_string(height) + "x" +
                                std::to_string(width) + ": every size must be positive");
  if (k != 3 && k != 5)
    throw std::invalid_argument("Conv2d: kernel size " + std::to_string(k) +
                                " is not supported (3 or 5)");
  Plan& p = *m_plan;
  p.batch = batch;
  p.cin = cin;
  p.cout = cout;
  p.height = height;
  p.width = width;
  p.k = k;
  p.inputs = inputs;

  OneDnnContext& ctx = OneDnnContext::instance();
  const dnnl::engine& engine = ctx.engine();
  const dnnl::memory::dims srcDims{batch, cin, height, width};
  const dnnl::memory::dims weightsDims{cout, cin, k, k};
  const dnnl::memory::dims dstDims{batch, cout, height, width};
  const dnnl::memory::dims strides{1, 1};
  const dnnl::memory::dims pad{k / 2, k / 2};
  const auto algo = dnnl::algorithm::convolution_direct;
  const dnnl::primitive_attr attr = userScratchpad();
  const bool sixteenBit = inputs != DType::F32;

  // Descriptors with format `any`: the kernel picks its layouts and wire()
  // adds the reorders to and from the caller's plain ones.
  auto fwdPd = [&](dt in) {
    return dnnl::convolution_forward::primitive_desc(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, algo,
                                        md(srcDims, in, tag::any), md(weightsDims, in, tag::any),
                                        md(dstDims, dt::f32, tag::any), strides, pad, pad),
        attr, engine);
  };
  auto bwdDataPd = [&](dt in, const dnnl::convolution_forward::primitive_desc& hint) {
    return dnnl::convolution_backward_data::primitive_desc(
        dnnl::convolution_backward_data::desc(algo, md(srcDims, dt::f32, tag::any),
                                              md(weightsDims, in, tag::any),
                                              md(dstDims, in, tag::any), strides, pad, pad),
        attr, engine, hint);
  };
  auto bwdWeightsPd = [&](dt in, const dnnl::convolution_forward::primitive_desc& hint) {
    return dnnl::convolution_backward_weights::primitive_desc(
        dnnl::convolution_backward_weights::desc(algo, md(srcDims, in, tag::any),
                                                 md(weightsDims, dt::f32, tag::any),
                                                 md(dstDims, in, tag::any), strides, pad, pad),
        attr, engine, hint);
  };

  const dt native = toDnnl(inputs);
  auto act = [&](const dnnl::memory::dims& dims, dt type) { return md(dims, type, tag::nchw); };
  auto wei = [&](dt type) { return md(weightsDims, type, tag::oihw); };

  const auto fp32Fwd = fwdPd(dt::f32);
  const std::optional<dnnl::convolution_forward::primitive_desc> nativeFwd =
      sixteenBit ? tryPd([&] { return fwdPd(native); }, true) : fp32Fwd;

  // Forward: y = conv(x, w).
  {
    Product& f = p.forward;
    f.emulated = !nativeFwd.has_value();
    const dt in = f.emulated ? dt::f32 : native;
    wire<dnnl::convolution_forward::primitive_desc, dnnl::convolution_forward>(
        f, f.emulated ? fp32Fwd : *nativeFwd, {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS},
        {act(srcDims, in), wei(in)}, DNNL_ARG_DST, act(dstDims, dt::f32));
  }
  // Backward data: dx from dy and w.
  {
    Product& d = p.backwardData;
    std::optional<dnnl::convolution_backward_data::primitive_desc> pd;
    if (nativeFwd)
      pd = tryPd([&] { return bwdDataPd(native, *nativeFwd); }, sixteenBit);
    d.emulated = !pd.has_value();
    if (!pd)
      pd = bwdDataPd(dt::f32, fp32Fwd);
    const dt in = d.emulated ? dt::f32 : native;
    wire<dnnl::convolution_backward_data::primitive_desc, dnnl::convolution_backward_data>(
        d, *pd, {DNNL_ARG_DIFF_DST, DNNL_ARG_WEIGHTS}, {act(dstDims, in), wei(in)},
        DNNL_ARG_DIFF_SRC, act(srcDims, dt::f32));
  }
  // Backward weights: dw from x and dy.
  {
    Product& w = p.backwardWeights;
    std::optional<dnnl::convolution_backward_weights::primitive_desc> pd;
    if (nativeFwd)
      pd = tryPd([&] { return bwdWeightsPd(native, *nativeFwd); }, sixteenBit);
    w.emulated = !pd.has_value();
    if (!pd)
      pd = bwdWeightsPd(dt::f32, fp32Fwd);
    const dt in = w.emulated ? dt::f32 : native;
    wire<dnnl::convolution_backward_weights::primitive_desc, dnnl::convolution_backward_weights>(
        w, *pd, {DNNL_ARG_SRC, DNNL_ARG_DIFF_DST}, {act(srcDims, in), act(dstDims, in)},
        DNNL_ARG_DIFF_WEIGHTS, wei(dt::f32));
  }

  // FP32 twins of the 16-bit operands of the emulated products, allocated once.
  const std::int64_t xCols = std::int64_t(cin) * height * width;
  const std::int64_t yCols = std::int64_t(cout) * height * width;
  const std::int64_t wCols = std::int64_t(cin) * k * k;
  auto twins = [&](Product& prod, StoredShape a, StoredShape b) {
    if (!prod.emulated || !sixteenBit)
      return;
    prod.twin[0] = Tensor(DType::F32, a.rows, a.cols);
    prod.twin[1] = Tensor(DType::F32, b.rows, b.cols);
    ctx.noteScratchAllocation();
    ctx.noteScratchAllocation();
  };
  twins(p.forward, {batch, xCols}, {cout, wCols});
  twins(p.backwardData, {batch, yCols}, {cout, wCols});
  twins(p.backwardWeights, {batch, xCols}, {batch, yCols});

  for (Product* prod : {&p.forward, &p.backwardData, &p.backwardWeights})
    if (prod->emulated && sixteenBit)
      prod->implementation += kernels::detail::emulationLabel(inputs, DType::F32);
}

Conv2d::~Conv2d() = default;
Conv2d::Conv2d(Conv2d&&) noexcept = default;
Conv2d& Conv2d::operator=(Conv2d&&) noexcept = default;

namespace {

// Points the product's user memories at a, b (or their FP32 twins) and out, and runs it.
void execute(Product& p, const Tensor& a, const Tensor& b, Tensor& out) {
  const void* in[2] = {a.raw(), b.raw()};
  if (p.twin[0].size() > 0) {
    widen(a, p.twin[0]);
    widen(b, p.twin[1]);
    in[0] = p.twin[0].raw();
    in[1] = p.twin[1].raw();
  }
  // oneDNN takes non-const handles; the inputs are only read.
  p.userIn[0].set_data_handle(const_cast<void*>(in[0]));
  p.userIn[1].set_data_handle(const_cast<void*>(in[1]));
  p.userOut.set_data_handle(out.raw());
  p.run();
}

} // namespace

void Conv2d::forward(const Tensor& x, const Tensor& w, Tensor& y) {
  const Plan& p = *m_plan;
  const std::int64_t hw = std::int64_t(p.height) * p.width;
  checkOperand("Conv2d::forward", "x", x, p.inputs, p.batch, p.cin * hw);
  checkOperand("Conv2d::forward", "w", w, p.inputs, p.cout, std::int64_t(p.cin) * p.k * p.k);
  checkOperand("Conv2d::forward", "y", y, DType::F32, p.batch, p.cout * hw);
  execute(m_plan->forward, x, w, y);
}

void Conv2d::backwardData(const Tensor& dy, const Tensor& w, Tensor& dx) {
  const Plan& p = *m_plan;
  const std::int64_t hw = std::int64_t(p.height) * p.width;
  checkOperand("Conv2d::backwardData", "dy", dy, p.inputs, p.batch, p.cout * hw);
  checkOperand("Conv2d::backwardData", "w", w, p.inputs, p.cout,
               std::int64_t(p.cin) * p.k * p.k);
  checkOperand("Conv2d::backwardData", "dx", dx, DType::F32, p.batch, p.cin * hw);
  execute(m_plan->backwardData, dy, w, dx);
}

void Conv2d::backwardWeights(const Tensor& x, const Tensor& dy, Tensor& dw) {
  const Plan& p = *m_plan;
  const std::int64_t hw = std::int64_t(p.height) * p.width;
  checkOperand("Conv2d::backwardWeights", "x", x, p.inputs, p.batch, p.cin * hw);
  checkOperand("Conv2d::backwardWeights", "dy", dy, p.inputs, p.batch, p.cout * hw);
  checkOperand("Conv2d::backwardWeights", "dw", dw, DType::F32, p.cout,
               std::int64_t(p.cin) * p.k * p.k);
  execute(m_plan->backwardWeights, x, dy, dw);
}

int Conv2d::batch() const { return m_plan->batch; }
int Conv2d::cin() const { return m_plan->cin; }
int Conv2d::cout() const { return m_plan->cout; }
int Conv2d::height() const { return m_plan->height; }
int Conv2d::width() const { return m_plan->width; }
int Conv2d::kernel() const { return m_plan->k; }
DType Conv2d::inputs() const { return m_plan->inputs; }

double Conv2d::flops() const {
  const Plan& p = *m_plan;
  return 2.0 * p.batch * p.cout * p.height * p.width * double(p.cin) * p.k * p.k;
}

bool Conv2d::emulated() const {
  const Plan& p = *m_plan;
  return p.forward.emulated || p.backwardData.emulated || p.backwardWeights.emulated;
}
std::string Conv2d::implementation() const { return m_plan->forward.implementation; }
std::string Conv2d::backwardDataImplementation() const {
  return m_plan->backwardData.implementation;
}
std::string Conv2d::backwardWeightsImplementation() const {
  return m_plan->backwardWeights.implementation;
}

std::size_t Conv2d::fp32TwinBytes() const {
  auto allocated = [](const Tensor& t) {
    return t.size() > 0 ? (t.bytes() + Tensor::kAlignment - 1) / Tensor::kAlignment *
                              Tensor::kAlignment
                        : std::size_t{0};
  };
  std::size_t total = 0;
  for (const Product* prod : {&m_plan->forward, &m_plan->backwardData, &m_plan->backwardWeights})
    total += allocated(prod->twin[0]) + allocated(prod->twin[1]) + prod->reorderBytes;
  return total;
}

std::size_t Conv2d::scratchpadBytes() const {
  const Plan& p = *m_plan;
  return p.forward.scratchpadBytes + p.backwardData.scratchpadBytes +
         p.backwardWeights.scratchpadBytes;
}

void standardize(std::span<float> out, std::span<const float> in, float mean, float std) {
  if (out.size() != in.size())
    throw std::invalid_argument("standardize: in has " + std::to_string(in.size()) +
                                " values, out " + std::to_string(out.size()));
  for (std::size_t i = 0; i < in.size(); ++i)
    out[i] = (in[i] - mean) / std;
}

void addChannelBias(std::span<float> y, std::span<const float> bias, int B, int C, int HW) {
  if (B <= 0 || C <= 0 || HW <= 0 || bias.size() != std::size_t(C) ||
      y.size() != std::size_t(B) * std::size_t(C) * std::size_t(HW))
    throw std::invalid_argument("addChannelBias: y has " + std::to_string(y.size()) +
                                " values and bias " + std::to_string(bias.size()) +
                                ", expected B*C*HW = " + std::to_string(B) + "*" +
                                std::to_string(C) + "*" + std::to_string(HW) + " and C");
  const std::size_t hw = std::size_t(HW);
  float* row = y.data();
  for (int b = 0; b < B; ++b)
    for (int c = 0; c < C; ++c, row += hw) {
      const float v = bias[std::size_t(c)];
      for (std::size_t i = 0; i < hw; ++i)
        row[i] += v;
    }
}

void channelBiasGradient(std::span<float> dbias, std::span<const float> dy, int B, int C, int HW,
                         bool accumulate) {
  if (B <= 0 || C <= 0 || HW <= 0 || dbias.size() != std::size_t(C) ||
      dy.size() != std::size_t(B) * std::size_t(C) * std::size_t(HW))
    throw std::invalid_argument("channelBiasGradient: dy has " + std::to_string(dy.size()) +
                                " values and dbias " + std::to_string(dbias.size()) +
                                ", expected B*C*HW = " + std::to_string(B) + "*" +
                                std::to_string(C) + "*" + std::to_string(HW) + " and C");
  if (!accumulate)
    std::fill(dbias.begin(), dbias.end(), 0.0f);
  const std::size_t hw = std::size_t(HW);
  const std::size_t planeStride = std::size_t(C) * hw;
  // Each channel's sum runs in the documented order; kGroup channels at a
  // time so their independent chains of additions overlap.
  constexpr int kGroup = 8;
  int c0 = 0;
  for (; c0 + kGroup <= C; c0 += kGroup) {
    float sum[kGroup];
    for (int k = 0; k < kGroup; ++k)
      sum[k] = dbias[std::size_t(c0 + k)];
    for (int b = 0; b < B; ++b) {
      const float* row = dy.data() + std::size_t(b) * planeStride + std::size_t(c0) * hw;
      for (std::size_t i = 0; i < hw; ++i)
        for (int k = 0; k < kGroup; ++k)
          sum[k] += row[std::size_t(k) * hw + i];
    }
    for (int k = 0; k < kGroup; ++k)
      dbias[std::size_t(c0 + k)] = sum[k];
  }
  for (int c = c0; c < C; ++c) {
    float sum = dbias[std::size_t(c)];
    for (int b = 0; b < B; ++b) {
      const float* row = dy.data() + std::size_t(b) * planeStride + std::size_t(c) * hw;
      for (std::size_t i = 0; i < hw; ++i)
        sum += row[i];
    }
    dbias[std::size_t(c)] = sum;
  }
}

} // namespace mantissa::nn
