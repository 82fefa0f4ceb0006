// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "matmul_operands.h"
#include "onednn_context.h"
#include "onednn_dtype.h"

#include "matmul_choice.h"

#include <mantissa/kernels/fp16_gemm.h>
#include <mantissa/kernels/matmul.h>
#include <mantissa/numeric/convert.h>

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <optional>
#include <stdexcept>

namespace mantissa::kernels {
namespace {

using detail::emulationLabel;
using detail::narrow;
using detail::toDnnl;
using detail::upperName;
using detail::widen;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

// Row-major [rows, cols] stored, read by oneDNN as the logical [a, b] matrix:
// `ab` when stored as [a, b], `ba` when stored transposed as [b, a].
tag layout(Trans trans) {
  return trans == Trans::No ? tag::ab : tag::ba;
}

// The primitive descriptor for these data types, or nullopt when oneDNN has
// no implementation for them on this CPU (it throws dnnl::error then).
std::optional<dnnl::matmul::primitive_desc>
tryPrimitiveDesc(const MatmulShape& s, dt inputs, dt dst, const dnnl::primitive_attr& attr,
                 bool bias = false) {
  const dnnl::memory::desc srcMd({s.m, s.k}, inputs, layout(s.transSrc));
  const dnnl::memory::desc weightsMd({s.k, s.n}, inputs, layout(s.transWeights));
  const dnnl::memory::desc dstMd({s.m, s.n}, dst, tag::ab);
  const dnnl::memory::desc biasMd({1, s.n}, dt::f32, tag::ab);
  const dnnl::matmul::desc desc = bias ? dnnl::matmul::desc(srcMd, weightsMd, biasMd, dstMd)
                                       : dnnl::matmul::desc(srcMd, weightsMd, dstMd);
  try {
    return dnnl::matmul::primitive_desc(desc, attr, OneDnnContext::instance().engine());
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

// FP32 scratch copy of an operand that is stored in 16 bits (empty if F32).
Tensor scratchFor(DType stored, detail::StoredShape shape) {
  if (stored == DType::F32)
    return {};
  OneDnnContext::instance().noteScratchAllocation();
  return Tensor(DType::F32, shape.rows, shape.cols);
}

} // namespace

struct Matmul::Plan {
  MatmulShape shape;
  DType inputs;
  DType dst;
  bool accumulate;
  bool emulated = false; // FP32 compute
  bool roundsInKernel = false; // a roundingToBf16() twin
  dnnl::primitive_attr attr; // as built (a twin is built with the same)
  std::string kernel;         // oneDNN's implementation name
  std::string label;          // kernel and emulation label
  std::string implementation; // label and "; reason"
  std::string reason; // why this path ran (empty: the only or default one)

  dnnl::matmul primitive;
  dnnl::memory srcMem, weightsMem, dstMem, scratchpadMem; // handles set per execute
  dnnl::memory biasMem; // a roundingToBf16(bias) twin only
  std::array<dnnl_exec_arg_t, 5> args{};
  int argCount = 0;

  // Emulation only: FP32 copies of 16-bit operands (empty when unused).
  Tensor srcF32;     // stored shape of src
  Tensor weightsF32; // stored shape of weights
  Tensor dstF32;     // [M,N]

  // FP16 inputs on a CPU with AVX512_FP16: the FP16 GEMM (fp16_gemm.h)
  // instead of oneDNN; dstF32 holds its result when dst is 16-bit.
  std::unique_ptr<Fp16Gemm> fp16Gemm;
};

namespace {

void executePlan(Matmul::Plan& p, const Tensor& src, const Tensor& weights, Tensor& dst,
                 const Tensor* bias = nullptr) {
  if ((bias != nullptr) != bool(p.biasMem))
    throw std::invalid_argument(bias ? "Matmul::execute: a bias for a Matmul built without one"
                                     : "Matmul::execute: this Matmul adds a bias; pass it");
  if (bias)
    detail::checkOperand("Matmul::execute", "bias", *bias, DType::F32, {1, p.shape.n});
  detail::checkOperand("Matmul::execute", "src", src, p.inputs, detail::storedSrc(p.shape));
  detail::checkOperand("Matmul::execute", "weights", weights, p.inputs,
                       detail::storedWeights(p.shape));
  detail::checkOperand("Matmul::execute", "dst", dst, p.dst, detail::storedDst(p.shape));

  if (p.fp16Gemm) {
    Tensor& out = p.dstF32.size() > 0 ? p.dstF32 : dst;
    if (p.accumulate && p.dstF32.size() > 0)
      widen(dst, p.dstF32);
    p.fp16Gemm->execute(src.u16().data(), weights.u16().data(), out.f32().data(), p.accumulate);
    if (p.dstF32.size() > 0)
      narrow(p.dstF32, dst);
    return;
  }

  // Emulated 16-bit operands are widened exactly into their FP32 twins.
  const void* srcData = src.raw();
  const void* weightsData = weights.raw();
  void* dstData = dst.raw();
  if (p.srcF32.size() > 0) {
    widen(src, p.srcF32);
    widen(weights, p.weightsF32);
    srcData = p.srcF32.raw();
    weightsData = p.weightsF32.raw();
  }
  if (p.dstF32.size() > 0) {
    if (p.accumulate)
      widen(dst, p.dstF32);
    dstData = p.dstF32.raw();
  }

  // oneDNN takes non-const handles; src and weights are only read.
  p.srcMem.set_data_handle(const_cast<void*>(srcData));
  p.weightsMem.set_data_handle(const_cast<void*>(weightsData));
  p.dstMem.set_data_handle(dstData);
  if (bias)
    p.biasMem.set_data_handle(const_cast<void*>(bias->raw()));

  // The C call takes a plain array; the C++ wrapper would build a vector of
  // arguments on every call, which the steady-state step must not allocate.
  OneDnnContext& ctx = OneDnnContext::instance();
  dnnl::error::wrap_c_api(
      dnnl_primitive_execute(p.primitive.get(), ctx.stream().get(), p.argCount, p.args.data()),
      "Matmul::execute: oneDNN matmul failed");
  ctx.stream().wait();

  // Emulated 16-bit dst: one RNE rounding of the FP32 result.
  if (p.dstF32.size() > 0)
    narrow(p.dstF32, dst);
}

} // namespace

namespace {

// Builds the primitive, memory handles and (fp32-compute) FP32 twins for one
// path. `pd` is the descriptor for that path's data types.
void buildPlan(Matmul::Plan& p, const dnnl::matmul::primitive_desc& pd) {
  OneDnnContext& ctx = OneDnnContext::instance();
  p.primitive = dnnl::matmul(pd);
  ctx.notePrimitiveCreated();
  p.kernel = pd.impl_info_str();
  p.implementation = p.kernel;
  if (p.emulated)
    p.implementation += emulationLabel(p.inputs, p.dst);
  p.label = p.implementation;

  // Memory objects without data; execute() points them at the tensors.
  p.srcMem = dnnl::memory(pd.src_desc(), ctx.engine(), DNNL_MEMORY_NONE);
  p.weightsMem = dnnl::memory(pd.weights_desc(), ctx.engine(), DNNL_MEMORY_NONE);
  p.dstMem = dnnl::memory(pd.dst_desc(), ctx.engine(), DNNL_MEMORY_NONE);
  p.args[0] = {DNNL_ARG_SRC, p.srcMem.get()};
  p.args[1] = {DNNL_ARG_WEIGHTS, p.weightsMem.get()};
  p.args[2] = {DNNL_ARG_DST, p.dstMem.get()};
  p.argCount = 3;
  if (pd.scratchpad_desc().get_size() > 0) {
    p.scratchpadMem = dnnl::memory(pd.scratchpad_desc(), ctx.engine());
    ctx.noteScratchAllocation();
    p.args[std::size_t(p.argCount++)] = {DNNL_ARG_SCRATCHPAD, p.scratchpadMem.get()};
  }
  if (pd.bias_desc().get_size() > 0) {
    p.biasMem = dnnl::memory(pd.bias_desc(), ctx.engine(), DNNL_MEMORY_NONE);
    p.args[std::size_t(p.argCount++)] = {DNNL_ARG_BIAS, p.biasMem.get()};
  }

  // FP32 compute: FP32 twins of the 16-bit operands, allocated once.
  if (p.emulated) {
    p.srcF32 = scratchFor(p.inputs, detail::storedSrc(p.shape));
    p.weightsF32 = scratchFor(p.inputs, detail::storedWeights(p.shape));
    p.dstF32 = scratchFor(p.dst, detail::storedDst(p.shape));
  }
}

// An operand for timing: ones of its dtype (no subnormals, no overflow).
Tensor timingOperand(DType dtype, detail::StoredShape shape) {
  Tensor t(dtype, shape.rows, shape.cols);
  if (dtype == DType::F32) {
    std::fill(t.f32().begin(), t.f32().end(), 0.5f);
  } else {
    const std::uint16_t half = dtype == DType::BF16 ? 0x3F00 : 0x3800;
    std::fill(t.u16().begin(), t.u16().end(), half);
  }
  return t;
}

// Fastest of a few executions of each plan, in alternating rounds so drift
// in machine load hits both alike. Milliseconds.
std::pair<double, double> timePlans(Matmul::Plan& a, Matmul::Plan& b) {
  Tensor src = timingOperand(a.inputs, detail::storedSrc(a.shape));
  Tensor weights = timingOperand(a.inputs, detail::storedWeights(a.shape));
  Tensor dst = timingOperand(a.dst, detail::storedDst(a.shape));
  using Clock = std::chrono::steady_clock;
  auto once = [&](Matmul::Plan& p) {
    const auto t0 = Clock::now();
    executePlan(p, src, weights, dst);
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  };
  for (int i = 0; i < 2; ++i) {
    once(a);
    once(b);
  }
  double bestA = 1e300, bestB = 1e300;
  for (int i = 0; i < 7; ++i) {
    bestA = std::min(bestA, once(a));
    bestB = std::min(bestB, once(b));
  }
  return {bestA, bestB};
}

std::string formatMs(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g ms", ms);
  return buf;
}

} // namespace

Matmul::Matmul(MatmulShape shape, DType inputs, DType dst, bool accumulate)
    : Matmul(shape, inputs, dst, accumulate, matmulPath()) {}

Matmul::Matmul(MatmulShape shape, DType inputs, DType dst, bool accumulate, MatmulPath path)
    : m_plan(std::make_unique<Plan>()) {
  detail::checkShape("Matmul", shape);
  Plan& p = *m_plan;
  p.shape = shape;
  p.inputs = inputs;
  p.dst = dst;
  p.accumulate = accumulate;

  // Attributes: dst += product via a sum post-op; scratchpad owned by us so
  // execute() never has oneDNN allocate scratch memory. (oneDNN 2.6's execute
  // call still allocates a few dozen bytes of argument bookkeeping of its own
  // per call; test_kernels_emulation measures that baseline.)
  dnnl::primitive_attr attr;
  if (accumulate) {
    dnnl::post_ops ops;
    ops.append_sum(1.0f);
    attr.set_post_ops(ops);
  }
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);

  // FP16 inputs where the CPU has AVX512_FP16: the FP16 GEMM with the
  // process-wide N_C (fp16_gemm.h), unless FP32 compute is asked for.
  if (inputs == DType::F16 && path != MatmulPath::Fp32Compute && fp16GemmHardwareAvailable()) {
    p.fp16Gemm = std::make_unique<Fp16Gemm>(shape, fp16PromoteEvery(), Fp16GemmIsa::Avx512Fp16);
    OneDnnContext::instance().noteScratchAllocation(); // its packing buffers
    p.implementation = p.fp16Gemm->label();
    if (dst != DType::F32) {
      p.dstF32 = scratchFor(dst, detail::storedDst(shape));
      p.implementation += ", result rounded to " + upperName(dst);
    }
    return;
  }

  // The requested types natively if oneDNN has them; FP32 throughout with
  // conversions around it otherwise, or where the path says so.
  std::optional<dnnl::matmul::primitive_desc> nativePd =
      tryPrimitiveDesc(shape, toDnnl(inputs), toDnnl(dst), attr);
  auto fp32Pd = [&] {
    auto pd = tryPrimitiveDesc(shape, dt::f32, dt::f32, attr);
    if (!pd)
      throw std::runtime_error("Matmul: oneDNN has no f32 matmul on this CPU");
    return *pd;
  };
  const std::string native = "native " + upperName(inputs);
  if (!nativePd) {
    p.emulated = true;
    if (inputs != DType::F32 && path != MatmulPath::Fp32Compute)
      p.reason = "oneDNN has no " + native + " kernel on this CPU" +
                 (inputs == DType::F16 ? " and the CPU has no AVX512_FP16 for the FP16 GEMM" : "");
    buildPlan(p, fp32Pd());
  } else if (inputs == DType::F32 || path == MatmulPath::Native) {
    buildPlan(p, *nativePd);
    if (inputs != DType::F32 && detail::matmulPathSetByUser())
      p.reason = "native path forced";
  } else if (path == MatmulPath::Fp32Compute) {
    p.emulated = true;
    buildPlan(p, fp32Pd());
    p.reason = "FP32 compute forced";
  } else {
    // Auto: the remembered choice for this product, or time both now.
    const std::string key = detail::choiceKey(shape, inputs, dst, accumulate);
    std::optional<detail::MatmulChoice> choice = detail::rememberedChoice(key);
    const bool remembered = choice.has_value();
    if (!choice) {
      Plan other;
      other.shape = shape;
      other.inputs = inputs;
      other.dst = dst;
      other.accumulate = accumulate;
      other.emulated = true;
      buildPlan(p, *nativePd);
      buildPlan(other, fp32Pd());
      const auto [nativeMs, fp32Ms] = timePlans(p, other);
      choice = detail::MatmulChoice{fp32Ms < nativeMs, nativeMs, fp32Ms};
      detail::rememberChoice(key, *choice);
      if (choice->fp32Compute)
        p = std::move(other);
    } else {
      p.emulated = choice->fp32Compute;
      buildPlan(p, p.emulated ? fp32Pd() : *nativePd);
    }
    const std::string faster = choice->fp32Compute ? "FP32 compute" : native;
    const std::string slower = choice->fp32Compute ? native : "FP32 compute";
    const double fastMs = choice->fp32Compute ? choice->fp32Ms : choice->nativeMs;
    const double slowMs = choice->fp32Compute ? choice->nativeMs : choice->fp32Ms;
    p.reason = "auto: " + faster + " " + formatMs(fastMs) + " vs " + slower + " " +
               formatMs(slowMs) + " for this shape" +
               (remembered ? " (measured earlier on this machine)" : "");
  }
  p.attr = attr;
  if (!p.reason.empty())
    p.implementation += "; " + p.reason;
}

Matmul::Matmul(std::unique_ptr<Plan> plan) : m_plan(std::move(plan)) {}

std::optional<Matmul> Matmul::roundingToBf16(bool withBias) const {
  const Plan& p = *m_plan;
  if (p.inputs != DType::BF16 || p.dst != DType::F32 || p.accumulate || p.emulated ||
      p.roundsInKernel || p.biasMem || !bf16Support().native())
    return std::nullopt;
  const auto pd = tryPrimitiveDesc(p.shape, dt::bf16, dt::bf16, p.attr, withBias);
  // The kernel this Matmul runs, now with a BF16 dst.
  if (!pd || pd->impl_info_str() != p.kernel)
    return std::nullopt;
  auto twin = std::make_unique<Plan>();
  twin->shape = p.shape;
  twin->inputs = p.inputs;
  twin->dst = DType::BF16;
  twin->accumulate = false;
  twin->roundsInKernel = true;
  twin->attr = p.attr;
  buildPlan(*twin, *pd);
  twin->reason = p.reason;
  twin->label = p.label;
  twin->implementation = p.implementation;
  return Matmul(std::move(twin));
}

bool Matmul::roundsInKernel() const {
  return m_plan->roundsInKernel;
}

Matmul::~Matmul() = default;
Matmul::Matmul(Matmul&&) noexcept = default;
Matmul& Matmul::operator=(Matmul&&) noexcept = default;

void Matmul::execute(const Tensor& src, const Tensor& weights, Tensor& dst) {
  executePlan(*m_plan, src, weights, dst);
}

void Matmul::execute(const Tensor& src, const Tensor& weights, const Tensor& bias, Tensor& dst) {
  executePlan(*m_plan, src, weights, dst, &bias);
}

bool Matmul::emulated() const {
  return m_plan->emulated;
}
std::string Matmul::implementation() const {
  return m_plan->implementation;
}
std::string Matmul::kernel() const {
  return m_plan->label;
}
const MatmulShape& Matmul::shape() const {
  return m_plan->shape;
}
DType Matmul::inputs() const {
  return m_plan->inputs;
}
DType Matmul::dst() const {
  return m_plan->dst;
}
bool Matmul::accumulates() const {
  return m_plan->accumulate;
}
std::size_t Matmul::fp32TwinBytes() const {
  auto allocated = [](const Tensor& t) {
    return t.size() > 0 ? (t.bytes() + Tensor::kAlignment - 1) / Tensor::kAlignment * Tensor::kAlignment
                        : std::size_t{0};
  };
  return allocated(m_plan->srcF32) + allocated(m_plan->weightsF32) + allocated(m_plan->dstF32);
}
std::size_t Matmul::scratchpadBytes() const {
  return m_plan->scratchpadMem ? m_plan->scratchpadMem.get_desc().get_size() : 0;
}
MatmulPath Matmul::path() const {
  return m_plan->emulated ? MatmulPath::Fp32Compute : MatmulPath::Native;
}
std::string Matmul::pathReason() const {
  return m_plan->reason;
}

} // namespace mantissa::kernels
