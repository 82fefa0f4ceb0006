// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// What Matmul says about itself (emulated or native, implementation name)
// against an independent probe of oneDNN, and the steady-state promise: no
// primitive creation, no scratch allocation and no heap allocation of our
// own once the Matmuls of a training step exist (oneDNN's execute call keeps
// a few bytes of per-call bookkeeping; the test measures that baseline).
#include "test_kernels_util.h"

#include <mantissa/kernels/matmul.h>

#include <gtest/gtest.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>
#include <vector>

// Counting global allocation functions: every operator new of this test
// binary (and of the library code it links statically) passes through here.
namespace {
std::atomic<bool> gCounting{false};
std::atomic<long> gAllocations{0};
std::atomic<std::size_t> gLargest{0};

void* countedAlloc(std::size_t size, std::size_t align) {
  if (gCounting.load(std::memory_order_relaxed)) {
    gAllocations.fetch_add(1, std::memory_order_relaxed);
    for (std::size_t seen = gLargest.load();
         seen < size && !gLargest.compare_exchange_weak(seen, size);) {
    }
  }
  if (size == 0)
    size = 1;
  void* p = align <= alignof(std::max_align_t)
                ? std::malloc(size)
                : std::aligned_alloc(align, (size + align - 1) / align * align);
  if (!p)
    throw std::bad_alloc();
  return p;
}

// Out of line: GCC inlines the replaced operator delete into gtest's
// `new TestClass` and then takes free() for a mismatch with operator new.
[[gnu::noinline]] void countedFree(void* p) noexcept {
  std::free(p);
}
} // namespace

void* operator new(std::size_t size) {
  return countedAlloc(size, 0);
}
void* operator new[](std::size_t size) {
  return countedAlloc(size, 0);
}
void* operator new(std::size_t size, std::align_val_t a) {
  return countedAlloc(size, std::size_t(a));
}
void* operator new[](std::size_t size, std::align_val_t a) {
  return countedAlloc(size, std::size_t(a));
}
void operator delete(void* p) noexcept {
  countedFree(p);
}
void operator delete[](void* p) noexcept {
  countedFree(p);
}
void operator delete(void* p, std::size_t) noexcept {
  countedFree(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  countedFree(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  countedFree(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  countedFree(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  countedFree(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  countedFree(p);
}

namespace {

using mantissa::DType;
using mantissa::Tensor;
using mantissa::kernels::kernelCounters;
using mantissa::kernels::Matmul;
using mantissa::kernels::MatmulShape;
using mantissa::kernels::Trans;
using mantissa::test::randomTensor;

// Independent of Mantissa: can oneDNN build a matmul with these types here?
bool onednnHasMatmul(dnnl::memory::data_type type) {
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  const dnnl::memory::desc src({8, 16}, type, dnnl::memory::format_tag::ab);
  const dnnl::memory::desc weights({16, 8}, type, dnnl::memory::format_tag::ab);
  const dnnl::memory::desc dst({8, 8}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::ab);
  try {
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, weights, dst), engine);
    return true;
  } catch (const dnnl::error&) {
    return false;
  }
}

bool cpuHasFlag(const std::string& flag) {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("flags", 0) == 0)
      return (line + " ").find(" " + flag + " ") != std::string::npos;
  return false;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(MatmulEmulation, Fp32IsNative) {
  Matmul mm({8, 8, 16}, DType::F32);
  EXPECT_FALSE(mm.emulated());
  EXPECT_FALSE(contains(mm.implementation(), "emulated")) << mm.implementation();
  EXPECT_FALSE(mm.implementation().empty());
}

TEST(MatmulEmulation, Bf16IsEmulatedExactlyWhenOneDnnHasNoBf16Matmul) {
  const bool native = onednnHasMatmul(dnnl::memory::data_type::bf16);
  Matmul mm({8, 8, 16}, DType::BF16);
  EXPECT_EQ(mm.emulated(), !native);
  EXPECT_EQ(contains(mm.implementation(), "(emulated: BF16 storage, FP32 compute)"), !native)
      << mm.implementation();
  // From the CPU's flags, independent of oneDNN: its bf16 kernels need at
  // least AVX-512 (without it, always emulated), and with AVX512_BF16 oneDNN
  // 2.6 has a native bf16 matmul.
  if (!cpuHasFlag("avx512f")) {
    EXPECT_TRUE(mm.emulated());
  }
  if (cpuHasFlag("avx512_bf16")) {
    EXPECT_FALSE(mm.emulated()) << mm.implementation();
  }
}

TEST(MatmulEmulation, F16IsEmulatedExactlyWhenOneDnnHasNoF16Matmul) {
  const bool native = onednnHasMatmul(dnnl::memory::data_type::f16);
  Matmul mm({8, 8, 16}, DType::F16, DType::F16);
  EXPECT_EQ(mm.emulated(), !native);
  // From the CPU's flags: oneDNN 2.6 has no FP16 matmul without AVX512_FP16.
  if (!cpuHasFlag("avx512_fp16")) {
    EXPECT_TRUE(mm.emulated()) << mm.implementation();
  }
  EXPECT_EQ(contains(mm.implementation(), "(emulated: FP16 storage, FP32 compute, result "
                                          "rounded to FP16)"),
            !native)
      << mm.implementation();
}

// Allocations of a bare oneDNN execute: dnnl_primitive_execute itself
// builds a small argument map per call (oneDNN 2.6 internals, a handful of
// operator new of a few dozen bytes). Matmul::execute must add nothing to it.
struct AllocationWindow {
  long count;
  std::size_t largest;
};

template <class F> AllocationWindow countAllocations(F&& run) {
  gAllocations = 0;
  gLargest = 0;
  gCounting = true;
  run();
  gCounting = false;
  return {gAllocations.load(), gLargest.load()};
}

// Bare executes of the three products of one layer's step (Y = X W,
// dX = dY W^T, dW = X^T dY; 784 -> 1024, batch 128), each primitive built as
// Matmul builds it (scratchpad passed by the caller), `rounds` times each.
// `inputs` is the src and weights type (dst is FP32). oneDNN's own per-call
// bookkeeping differs between implementations (a native BF16 CPU picks
// other kernels for the transposed products), so the baseline runs the same
// products, not one of them three times.
AllocationWindow bareOneDnnExecutes(int rounds, dnnl::memory::data_type inputs) {
  using tag = dnnl::memory::format_tag;
  const auto f32 = dnnl::memory::data_type::f32;
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  struct Product {
    dnnl::matmul primitive;
    dnnl::memory src, weights, dst, scratchpad;
    std::vector<dnnl_exec_arg_t> args;
  };
  // {m, n, k}, src and weights transposed or not.
  auto make = [&](dnnl::memory::dim m, dnnl::memory::dim n, dnnl::memory::dim k, bool transSrc,
                  bool transWeights) {
    const dnnl::memory::desc srcMd({m, k}, inputs, transSrc ? tag::ba : tag::ab),
        weightsMd({k, n}, inputs, transWeights ? tag::ba : tag::ab), dstMd({m, n}, f32, tag::ab);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(srcMd, weightsMd, dstMd), attr, engine);
    Product p{dnnl::matmul(pd), dnnl::memory(srcMd, engine), dnnl::memory(weightsMd, engine),
              dnnl::memory(dstMd, engine), {}, {}};
    p.args = {{DNNL_ARG_SRC, p.src.get()}, {DNNL_ARG_WEIGHTS, p.weights.get()},
              {DNNL_ARG_DST, p.dst.get()}};
    if (pd.scratchpad_desc().get_size() > 0) {
      p.scratchpad = dnnl::memory(pd.scratchpad_desc(), engine);
      p.args.push_back({DNNL_ARG_SCRATCHPAD, p.scratchpad.get()});
    }
    return p;
  };
  Product products[] = {make(128, 1024, 784, false, false), make(128, 784, 1024, false, true),
                        make(784, 1024, 128, true, false)};
  auto run = [&] {
    for (int i = 0; i < rounds; ++i)
      for (auto& p : products) {
        dnnl_primitive_execute(p.primitive.get(), stream.get(), static_cast<int>(p.args.size()),
                               p.args.data());
        stream.wait();
      }
  };
  run(); // warm-up: oneDNN generates its GEMM kernels on first use
  return countAllocations(run);
}

// The three products of one layer's step (784 -> 1024, batch 128) in FP32
// and in BF16, built once, then executed many times.
TEST(MatmulSteadyState, NoPrimitiveCreationNoAllocationAfterConstruction) {
  constexpr std::int64_t kBatch = 128, kIn = 784, kOut = 1024;
  constexpr int kSteps = 4;
  struct Step {
    Matmul forward, dX, dW;
    Tensor x, w, y, dY, dXt, dWt;
  };
  auto makeStep = [&](DType t) {
    return Step{Matmul({kBatch, kOut, kIn}, t),                        // Y = X W
                Matmul({kBatch, kIn, kOut, Trans::No, Trans::Yes}, t), // dX = dY W^T
                Matmul({kIn, kOut, kBatch, Trans::Yes, Trans::No}, t), // dW = X^T dY
                randomTensor(t, kBatch, kIn, 1),
                randomTensor(t, kIn, kOut, 2),
                Tensor(DType::F32, kBatch, kOut),
                randomTensor(t, kBatch, kOut, 3),
                Tensor(DType::F32, kBatch, kIn),
                Tensor(DType::F32, kIn, kOut)};
  };
  Step f32 = makeStep(DType::F32);
  Step bf16 = makeStep(DType::BF16);
  auto runSteps = [&](int steps) {
    for (int i = 0; i < steps; ++i)
      for (Step* s : {&f32, &bf16}) {
        s->forward.execute(s->x, s->w, s->y);
        s->dX.execute(s->dY, s->w, s->dXt);
        s->dW.execute(s->x, s->dY, s->dWt);
      }
  };
  const auto before = kernelCounters();
  runSteps(1); // warm-up, as in training: the first step may generate kernels
  const AllocationWindow steady = countAllocations([&] { runSteps(kSteps); });
  const auto after = kernelCounters();
  EXPECT_EQ(after.primitivesCreated, before.primitivesCreated);
  EXPECT_EQ(after.scratchAllocations, before.scratchAllocations);

  // As many bare executes of the primitives these Matmuls run: FP32 ones, and
  // for BF16 a bf16 primitive where oneDNN has one (a CPU with AVX512), else
  // the FP32 primitive of the emulated path.
  constexpr int kExecutes = kSteps * 6;
  const auto bf16Primitive = bf16.forward.emulated() ? dnnl::memory::data_type::f32
                                                     : dnnl::memory::data_type::bf16;
  const AllocationWindow bareF32 = bareOneDnnExecutes(kSteps, dnnl::memory::data_type::f32);
  const AllocationWindow bareBf16 = bareOneDnnExecutes(kSteps, bf16Primitive);
  const AllocationWindow bare{bareF32.count + bareBf16.count,
                              std::max(bareF32.largest, bareBf16.largest)};
  EXPECT_EQ(steady.count, bare.count)
      << "operator new calls in " << kExecutes << " Matmul::execute vs as many bare oneDNN calls";
  EXPECT_LE(steady.largest, bare.largest) << "largest allocation during execute()";
  EXPECT_LT(steady.largest, 4096u) << "no buffer-sized allocation in the steady state";
}

// And the counters do count: building a Matmul creates one primitive, and
// an emulated BF16 one allocates its FP32 twins of src and weights.
TEST(MatmulSteadyState, ConstructionIsCounted) {
  const auto before = kernelCounters();
  Matmul mm({4, 4, 4}, DType::BF16);
  const auto after = kernelCounters();
  EXPECT_EQ(after.primitivesCreated - before.primitivesCreated, 1);
  if (mm.emulated()) {
    EXPECT_GE(after.scratchAllocations - before.scratchAllocations, 2);
  }
}

} // namespace
