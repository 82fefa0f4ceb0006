// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// bench_fp16_gemm [Google Benchmark flags]
//
// The FP16 GEMM (kernels/fp16_gemm.h) at 1024^3 against oneDNN's FP32
// matmul, per N_C, in GFLOP/s (counter "GFLOPs", median / stddev / CV over 5
// repetitions). The AVX512_FP16 kernel runs only on CPUs that have it and is
// reported as skipped, with the reason, elsewhere. The portable kernel
// emulates every FP16 FMA exactly in software: it is measured at 128^3 (its
// cost for the lesson tables), and at 1024^3 it is skipped as far too slow to
// be a speed path.
#include <mantissa/kernels/fp16_gemm.h>
#include <mantissa/kernels/matmul.h>
#include <mantissa/numeric/convert.h>
#include <mantissa/tensor/tensor.h>

#include <benchmark/benchmark.h>

#include <random>

namespace {

using namespace mantissa;

struct Operands {
  Tensor a16, b16, a32, b32, c;
  explicit Operands(std::int64_t n)
      : a16(DType::F16, n, n), b16(DType::F16, n, n), a32(DType::F32, n, n), b32(DType::F32, n, n),
        c(DType::F32, n, n) {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (auto& x : a32.f32())
      x = u(rng);
    for (auto& x : b32.f32())
      x = u(rng);
    numeric::convertF32ToF16(a32.f32(), a16.u16());
    numeric::convertF32ToF16(b32.f32(), b16.u16());
    // The FP32 operands hold exactly the FP16 values: the same products.
    numeric::convertF16ToF32(a16.u16(), a32.f32());
    numeric::convertF16ToF32(b16.u16(), b32.f32());
  }
};

void setFlops(benchmark::State& state, std::int64_t n) {
  state.counters["GFLOPs"] = benchmark::Counter(2.0 * double(n) * double(n) * double(n) * 1e-9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

void BM_OneDnnFp32(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  Operands o(n);
  kernels::Matmul mm(kernels::MatmulShape{n, n, n}, DType::F32);
  for (auto _ : state) {
    mm.execute(o.a32, o.b32, o.c);
    benchmark::DoNotOptimize(o.c.raw());
  }
  setFlops(state, n);
  state.SetLabel(mm.implementation());
}

void BM_Fp16Gemm(benchmark::State& state, kernels::Fp16GemmIsa isa) {
  const std::int64_t n = state.range(0);
  const int nc = static_cast<int>(state.range(1));
  if (isa == kernels::Fp16GemmIsa::Avx512Fp16 && !kernels::fp16GemmHardwareAvailable()) {
    state.SkipWithError("skipped: this CPU has no AVX512_FP16 (CPUID leaf 7 EDX bit 23)");
    for (auto _ : state) {
    }
    return;
  }
  if (isa == kernels::Fp16GemmIsa::Portable && n > 256) {
    state.SkipWithError("skipped: the portable kernel emulates each FP16 FMA in software "
                        "(tens of seconds per product at this size); it is not a speed path");
    for (auto _ : state) {
    }
    return;
  }
  Operands o(n);
  kernels::Fp16Gemm gemm(kernels::MatmulShape{n, n, n}, nc, isa);
  for (auto _ : state) {
    gemm.execute(o.a16.u16().data(), o.b16.u16().data(), o.c.f32().data());
    benchmark::DoNotOptimize(o.c.raw());
  }
  setFlops(state, n);
  state.SetLabel(gemm.label());
}

void BM_Fp16GemmAvx512(benchmark::State& state) {
  BM_Fp16Gemm(state, kernels::Fp16GemmIsa::Avx512Fp16);
}
void BM_Fp16GemmPortable(benchmark::State& state) {
  BM_Fp16Gemm(state, kernels::Fp16GemmIsa::Portable);
}

void repeated(benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kMillisecond)->Repetitions(5)->ReportAggregatesOnly(true)->UseRealTime();
}

BENCHMARK(BM_OneDnnFp32)->Arg(1024)->Apply(repeated);
// N_C: the default, a shorter and a longer chunk, and pure FP16 (0).
BENCHMARK(BM_Fp16GemmAvx512)
    ->Args({1024, kernels::kDefaultFp16PromoteEvery})
    ->Args({1024, 32})
    ->Args({1024, 256})
    ->Args({1024, kernels::kFp16NeverPromote})
    ->Apply(repeated);
BENCHMARK(BM_Fp16GemmPortable)
    ->Args({128, kernels::kDefaultFp16PromoteEvery})
    ->Args({1024, kernels::kDefaultFp16PromoteEvery})
    ->Apply(repeated);

} // namespace

BENCHMARK_MAIN();
