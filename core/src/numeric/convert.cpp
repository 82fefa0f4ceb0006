// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "kernels/step_parallel.h"
#include "numeric/convert_bits.h"
#include "numeric/convert_kernels.h"

#include <mantissa/numeric/convert.h>
#include <mantissa/numeric/cpu_features.h>

#include <array>
#include <atomic>
#include <bit>

namespace mantissa::numeric {
namespace {

using namespace detail;

struct Kernels {
  F32ToHalfKernel f32ToBf16;
  HalfToF32Kernel bf16ToF32;
  F32ToHalfKernel f32ToF16;
  HalfToF32Kernel f16ToF32;
  ConvertPath bf16Path;
  ConvertPath f16Path;
  void (*roundTripBf16)(float* values, std::size_t n) = nullptr; // fused; else through a buffer
};

constexpr Kernels kPortable{f32ToBf16Portable, bf16ToF32Portable,     f32ToF16Portable,
                            f16ToF32Portable,  ConvertPath::Portable, ConvertPath::Portable};

Kernels pickFastest() {
  Kernels k = kPortable;
#if defined(__x86_64__)
  const CpuFeatures& cpu = cpuFeatures();
  if (cpu.avx2) { // the portable rule, vectorised by hand: still "portable" bits
    k.f32ToBf16 = f32ToBf16Avx2;
    k.bf16ToF32 = bf16ToF32Avx2;
  }
  if (cpu.avx512bf16) {
    k.f32ToBf16 = f32ToBf16Avx512Bf16;
    k.bf16Path = ConvertPath::Hardware;
    k.roundTripBf16 = roundTripBf16Avx512Bf16;
  }
  if (cpu.avx2 && cpu.f16c) {
    k.f32ToF16 = f32ToF16F16c;
    k.f16ToF32 = f16ToF32F16c;
    k.f16Path = ConvertPath::Hardware;
  }
#endif
  return k;
}

std::atomic<bool> g_forcePortable{false};

const Kernels& kernels() {
  static const Kernels fastest = pickFastest();
  return g_forcePortable.load(std::memory_order_relaxed) ? kPortable : fastest;
}

// Stochastic rounding of the magnitude `a` (FP32 bits, sign removed) whose
// low `shift` bits are discarded: up iff random < fraction x 2^32, the same
// rule as codec.h's Rounding::Stochastic. Returns the kept bits (+1 if up).
std::uint32_t stochasticShift(std::uint64_t significand, int shift, std::uint32_t random) {
  if (shift >= 64)
    return significand != 0 && random == 0 ? 1u : 0u;
  const std::uint64_t kept = significand >> shift;
  const std::uint64_t rem = significand & ((1ull << shift) - 1);
  std::uint64_t threshold = 0;
  if (shift <= 32)
    threshold = rem << (32 - shift);
  else
    threshold = (rem >> (shift - 32)) + ((rem & ((1ull << (shift - 32)) - 1)) != 0 ? 1 : 0);
  return static_cast<std::uint32_t>(kept + (random < threshold ? 1 : 0));
}

} // namespace

Bf16Bits f32ToBf16(float value) noexcept {
  return bf16FromF32Bits(std::bit_cast<std::uint32_t>(value));
}
float bf16ToF32(Bf16Bits bits) noexcept {
  return std::bit_cast<float>(f32BitsFromBf16(bits));
}
F16Bits f32ToF16(float value) noexcept {
  return f16FromF32Bits(std::bit_cast<std::uint32_t>(value));
}
float f16ToF32(F16Bits bits) noexcept {
  return std::bit_cast<float>(f32BitsFromF16(bits));
}

Bf16Bits f32ToBf16Stochastic(float value, std::uint32_t random) noexcept {
  const auto u = std::bit_cast<std::uint32_t>(value);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return bf16FromF32Bits(u); // NaN: same as nearest
  // FP32 subnormal inputs become signed zero (DAZ), as in f32ToBf16 and
  // VCVTNEPS2BF16; a carry past max finite gives inf.
  const std::uint32_t sign = (u >> 16) & 0x8000u;
  if ((u & 0x7f800000u) == 0)
    return static_cast<Bf16Bits>(sign);
  return static_cast<Bf16Bits>(sign | stochasticShift(u & 0x7fffffffu, 16, random));
}

F16Bits f32ToF16Stochastic(float value, std::uint32_t random) noexcept {
  const auto u = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t a = u & 0x7fffffffu;
  const std::uint32_t sign = (u >> 16) & 0x8000u;
  if (a > 0x7f800000u)
    return f16FromF32Bits(u);
  if (a >= 0x47800000u) // >= 2^16: past max finite whichever way it rounds
    return static_cast<F16Bits>(sign | 0x7c00u);
  if (a >= 0x38800000u) // FP16 normal range: rebias and drop 13 bits
    return static_cast<F16Bits>(sign | stochasticShift(a - 0x38000000u, 13, random));
  // FP16 subnormal range: quantum 2^-24; FP32 value = m x 2^(e-150).
  const int e = static_cast<int>(a >> 23);
  const std::uint32_t m = e == 0 ? (a & 0x7fffffu) : ((a & 0x7fffffu) | 0x800000u);
  const int shift = e == 0 ? 125 : 126 - e;
  return static_cast<F16Bits>(sign | stochasticShift(m, shift, random));
}

// The large conversions are split between the OpenMP threads
// (kernels/step_parallel.h); each value converts alone, so the split does not
// change the bits.
void convertF32ToBf16(std::span<const float> src, std::span<Bf16Bits> dst) noexcept {
  const auto kernel = kernels().f32ToBf16;
  const std::size_t n = std::min(src.size(), dst.size());
  mantissa::kernels::forStepPieces(n, n, 64, [&](std::size_t b, std::size_t e) {
    kernel(src.data() + b, dst.data() + b, e - b);
  });
}

void convertBf16ToF32(std::span<const Bf16Bits> src, std::span<float> dst) noexcept {
  kernels().bf16ToF32(src.data(), dst.data(), std::min(src.size(), dst.size()));
}

void convertF32ToF16(std::span<const float> src, std::span<F16Bits> dst) noexcept {
  kernels().f32ToF16(src.data(), dst.data(), std::min(src.size(), dst.size()));
}

void convertF16ToF32(std::span<const F16Bits> src, std::span<float> dst) noexcept {
  kernels().f16ToF32(src.data(), dst.data(), std::min(src.size(), dst.size()));
}

namespace {
// Zeros (+0, -0) among x[0..n), n <= 2^32; vectorised for AVX2 at run time.
[[gnu::always_inline]] inline std::uint64_t zerosBody(const float* x, std::size_t n) {
  std::uint32_t zeros = 0;
  for (std::size_t i = 0; i < n; ++i)
    zeros += (std::bit_cast<std::uint32_t>(x[i]) & 0x7fffffffu) == 0 ? 1u : 0u;
  return zeros;
}
#if defined(__x86_64__)
[[gnu::target("avx2")]] std::uint64_t zerosAvx2(const float* x, std::size_t n) {
  return zerosBody(x, n);
}
#endif
std::uint64_t zerosBase(const float* x, std::size_t n) {
  return zerosBody(x, n);
}

using ZerosKernel = std::uint64_t (*)(const float*, std::size_t);
ZerosKernel zerosKernel() {
#if defined(__x86_64__)
  static const ZerosKernel fastest = cpuFeatures().avx2 ? zerosAvx2 : zerosBase;
  return g_forcePortable.load(std::memory_order_relaxed) ? zerosBase : fastest;
#else
  return zerosBase;
#endif
}

// In place through 16 bits and back, a cache-sized chunk at a time; with
// `zeros`, each chunk's zeros are counted before and after, in cache.
void roundTrip(std::span<float> values, F32ToHalfKernel down, HalfToF32Kernel up,
               RoundTripZeros* zeros = nullptr) {
  constexpr std::size_t kChunk = 2048;
  std::array<std::uint16_t, kChunk> buffer;
  const ZerosKernel count = zeros != nullptr ? zerosKernel() : nullptr;
  for (std::size_t i = 0; i < values.size(); i += kChunk) {
    const std::size_t n = std::min(kChunk, values.size() - i);
    if (count != nullptr)
      zeros->before += count(values.data() + i, n);
    down(values.data() + i, buffer.data(), n);
    up(buffer.data(), values.data() + i, n);
    if (count != nullptr)
      zeros->after += count(values.data() + i, n);
  }
}
} // namespace

void roundTripBf16(std::span<float> values) noexcept {
  if (const auto fused = kernels().roundTripBf16)
    mantissa::kernels::forStepPieces(
        values.size(), values.size(), 64,
        [&](std::size_t b, std::size_t e) { fused(values.data() + b, e - b); });
  else
    roundTrip(values, kernels().f32ToBf16, kernels().bf16ToF32);
}

void roundTripF16(std::span<float> values) noexcept {
  roundTrip(values, kernels().f32ToF16, kernels().f16ToF32);
}

RoundTripZeros roundTripBf16CountingZeros(std::span<float> values) noexcept {
  RoundTripZeros zeros;
  roundTrip(values, kernels().f32ToBf16, kernels().bf16ToF32, &zeros);
  return zeros;
}

RoundTripZeros roundTripF16CountingZeros(std::span<float> values) noexcept {
  RoundTripZeros zeros;
  roundTrip(values, kernels().f32ToF16, kernels().f16ToF32, &zeros);
  return zeros;
}

ConvertPath bf16ConvertPath() noexcept {
  return kernels().bf16Path;
}
ConvertPath f16ConvertPath() noexcept {
  return kernels().f16Path;
}

void setForcePortableConversions(bool force) noexcept {
  g_forcePortable.store(force, std::memory_order_relaxed);
}

} // namespace mantissa::numeric
