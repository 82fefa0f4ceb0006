// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "matmul_operands.h"
#include "onednn_context.h"
#include "onednn_dtype.h"

#include <mantissa/kernels/batched_matmul.h>
#include <mantissa/numeric/convert.h>

#include <oneapi/dnnl/dnnl.hpp>

#include <array>
#include <optional>
#include <stdexcept>

namespace mantissa::kernels {
namespace {

using detail::toDnnl;
using detail::widen;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

// [G, a, b] stored as G row-major [a, b] matrices (abc) or G [b, a] ones (acb).
tag layout(Trans trans) {
  return trans == Trans::No ? tag::abc : tag::acb;
}

std::optional<dnnl::matmul::primitive_desc> tryDesc(const BatchedShape& s, dt inputs,
                                                     const dnnl::primitive_attr& attr) {
  const dnnl::memory::desc srcMd({s.groups, s.m, s.k}, inputs, layout(s.transSrc));
  const dnnl::memory::desc weightsMd({s.groups, s.k, s.n}, inputs, layout(s.transWeights));
  const dnnl::memory::desc dstMd({s.groups, s.m, s.n}, dt::f32, tag::abc);
  try {
    return dnnl::matmul::primitive_desc(dnnl::matmul::desc(srcMd, weightsMd, dstMd), attr,
                                        OneDnnContext::instance().engine());
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

detail::StoredShape storedSrc(const BatchedShape& s) {
  return s.transSrc == Trans::No ? detail::StoredShape{s.groups * s.m, s.k}
                                 : detail::StoredShape{s.groups * s.k, s.m};
}
detail::StoredShape storedWeights(const BatchedShape& s) {
  return s.transWeights == Trans::No ? detail::StoredShape{s.groups * s.k, s.n}
                                     : detail::StoredShape{s.groups * s.n, s.k};
}

} // namespace

struct BatchedMatmul::Plan {
  BatchedShape shape;
  DType inputs;
  bool emulated = false;
  std::string implementation;
  dnnl::matmul primitive;
  dnnl::memory srcMem, weightsMem, dstMem, scratchpadMem;
  std::array<dnnl_exec_arg_t, 4> args{};
  int argCount = 0;
  Tensor srcF32, weightsF32; // emulation only
};

BatchedMatmul::BatchedMatmul(BatchedShape shape, DType inputs) : m_plan(std::make_unique<Plan>()) {
  if (shape.groups <= 0 || shape.m <= 0 || shape.n <= 0 || shape.k <= 0)
    throw std::invalid_argument("BatchedMatmul: every dimension must be positive");
  Plan& p = *m_plan;
  p.shape = shape;
  p.inputs = inputs;
  OneDnnContext& ctx = OneDnnContext::instance();
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  auto pd = tryDesc(shape, toDnnl(inputs), attr);
  if (!pd) {
    p.emulated = true;
    pd = tryDesc(shape, dt::f32, attr);
    if (!pd)
      throw std::runtime_error("BatchedMatmul: oneDNN has no f32 batched matmul on this CPU");
  }
  p.primitive = dnnl::matmul(*pd);
  ctx.notePrimitiveCreated();
  p.implementation = pd->impl_info_str();
  if (p.emulated)
    p.implementation += std::string(" (emulated: ") + (inputs == DType::BF16 ? "BF16" : "FP16") +
                        " storage, FP32 compute)";
  p.srcMem = dnnl::memory(pd->src_desc(), ctx.engine(), DNNL_MEMORY_NONE);
  p.weightsMem = dnnl::memory(pd->weights_desc(), ctx.engine(), DNNL_MEMORY_NONE);
  p.dstMem = dnnl::memory(pd->dst_desc(), ctx.engine(), DNNL_MEMORY_NONE);
  p.args[0] = {DNNL_ARG_SRC, p.srcMem.get()};
  p.args[1] = {DNNL_ARG_WEIGHTS, p.weightsMem.get()};
  p.args[2] = {DNNL_ARG_DST, p.dstMem.get()};
  p.argCount = 3;
  if (pd->scratchpad_desc().get_size() > 0) {
    p.scratchpadMem = dnnl::memory(pd->scratchpad_desc(), ctx.engine());
    ctx.noteScratchAllocation();
    p.args[3] = {DNNL_ARG_SCRATCHPAD, p.scratchpadMem.get()};
    p.argCount = 4;
  }
  if (p.emulated) {
    const auto s = storedSrc(shape), w = storedWeights(shape);
    p.srcF32 = Tensor(DType::F32, s.rows, s.cols);
    p.weightsF32 = Tensor(DType::F32, w.rows, w.cols);
    ctx.noteScratchAllocation();
    ctx.noteScratchAllocation();
  }
}

BatchedMatmul::~BatchedMatmul() = default;
BatchedMatmul::BatchedMatmul(BatchedMatmul&&) noexcept = default;
BatchedMatmul& BatchedMatmul::operator=(BatchedMatmul&&) noexcept = default;

void BatchedMatmul::execute(const Tensor& src, const Tensor& weights, Tensor& dst) {
  Plan& p = *m_plan;
  const BatchedShape& s = p.shape;
  detail::checkOperand("BatchedMatmul::execute", "src", src, p.inputs, storedSrc(s));
  detail::checkOperand("BatchedMatmul::execute", "weights", weights, p.inputs, storedWeights(s));
  detail::checkOperand("BatchedMatmul::execute", "dst", dst, DType::F32, {s.groups * s.m, s.n});
  const void* srcData = src.raw();
  const void* weightsData = weights.raw();
  if (p.emulated && p.inputs != DType::F32) {
    widen(src, p.srcF32);
    widen(weights, p.weightsF32);
    srcData = p.srcF32.raw();
    weightsData = p.weightsF32.raw();
  }
  p.srcMem.set_data_handle(const_cast<void*>(srcData));
  p.weightsMem.set_data_handle(const_cast<void*>(weightsData));
  p.dstMem.set_data_handle(dst.raw());
  OneDnnContext& ctx = OneDnnContext::instance();
  dnnl::error::wrap_c_api(
      dnnl_primitive_execute(p.primitive.get(), ctx.stream().get(), p.argCount, p.args.data()),
      "BatchedMatmul::execute: oneDNN matmul failed");
  ctx.stream().wait();
}

bool BatchedMatmul::emulated() const {
  return m_plan->emulated;
}
std::string BatchedMatmul::implementation() const {
  return m_plan->implementation;
}
const BatchedShape& BatchedMatmul::shape() const {
  return m_plan->shape;
}

} // namespace mantissa::kernels
