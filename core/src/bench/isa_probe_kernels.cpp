// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The probe's instruction loops. Each function is compiled for its own
// instruction set (target attribute) and is called only after CPUID and the
// OS say the set is usable (isa_probe.cpp).
#include "isa_probe_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <cmath>
#include <cstdint>
#include <cstring>

namespace mantissa::bench::detail {

#if defined(__x86_64__)

// Twelve independent accumulators; one instruction per chain per iteration.
#define MANTISSA_PROBE_CHAINS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

__attribute__((target("avx2,fma"))) void fmaAvx2(std::int64_t n, double out[12]) {
  const __m256 one = _mm256_set1_ps(1.0f);
#define INIT(c) __m256 a##c = _mm256_set1_ps(float(c));
  MANTISSA_PROBE_CHAINS(INIT)
#undef INIT
  for (std::int64_t i = 0; i < n; ++i) {
#define STEP(c) a##c = _mm256_fmadd_ps(one, one, a##c);
    MANTISSA_PROBE_CHAINS(STEP)
#undef STEP
  }
#define OUT(c) out[c] = double(_mm256_cvtss_f32(a##c));
  MANTISSA_PROBE_CHAINS(OUT)
#undef OUT
}

__attribute__((target("avx512f"))) void fmaAvx512(std::int64_t n, double out[12]) {
  const __m512 one = _mm512_set1_ps(1.0f);
#define INIT(c) __m512 a##c = _mm512_set1_ps(float(c));
  MANTISSA_PROBE_CHAINS(INIT)
#undef INIT
  for (std::int64_t i = 0; i < n; ++i) {
#define STEP(c) a##c = _mm512_fmadd_ps(one, one, a##c);
    MANTISSA_PROBE_CHAINS(STEP)
#undef STEP
  }
#define OUT(c) out[c] = double(_mm512_cvtss_f32(a##c));
  MANTISSA_PROBE_CHAINS(OUT)
#undef OUT
}

__attribute__((target("avx512f,avx512bf16"))) void dotBf16(std::int64_t n, double out[12]) {
  // BF16 1.0 is 0x3F80; every 16-bit element of both operands is one, so
  // each FP32 lane gains 1*1 + 1*1 = 2 per instruction.
  const __m512i bits = _mm512_set1_epi16(std::int16_t(0x3F80));
  __m512bh one;
  std::memcpy(&one, &bits, sizeof one);
#define INIT(c) __m512 a##c = _mm512_set1_ps(float(c));
  MANTISSA_PROBE_CHAINS(INIT)
#undef INIT
  for (std::int64_t i = 0; i < n; ++i) {
#define STEP(c) a##c = _mm512_dpbf16_ps(a##c, one, one);
    MANTISSA_PROBE_CHAINS(STEP)
#undef STEP
  }
#define OUT(c) out[c] = double(_mm512_cvtss_f32(a##c));
  MANTISSA_PROBE_CHAINS(OUT)
#undef OUT
}

namespace {

// Binary16 bits of a small non-negative integer (exact below 2048).
std::uint16_t halfBits(int v) {
  if (v == 0)
    return 0;
  int e = 0;
  while ((v >> (e + 1)) != 0)
    ++e;
  const int mantissa = (v << 10 >> e) & 0x3FF;
  return static_cast<std::uint16_t>(((e + 15) << 10) | mantissa);
}

// Value of normal (or zero) binary16 bits.
double halfValue(std::uint16_t bits) {
  const int e = (bits >> 10) & 0x1F;
  if (e == 0)
    return 0.0;
  return std::ldexp(1.0 + (bits & 0x3FF) / 1024.0, e - 15);
}

} // namespace

// vfmadd231ph is written as inline assembly: not every compiler Mantissa
// builds with has the AVX512_FP16 intrinsics (or _Float16 on x86).
__attribute__((target("avx512f"))) void fmaFp16(std::int64_t n, double out[12]) {
  const __m512i one = _mm512_set1_epi16(std::int16_t(halfBits(1)));
#define INIT(c) __m512i a##c = _mm512_set1_epi16(std::int16_t(halfBits(c)));
  MANTISSA_PROBE_CHAINS(INIT)
#undef INIT
  for (std::int64_t i = 0; i < n; ++i) {
#define STEP(c) asm("vfmadd231ph %1, %1, %0" : "+v"(a##c) : "v"(one));
    MANTISSA_PROBE_CHAINS(STEP)
#undef STEP
  }
  alignas(64) std::uint16_t lanes[32];
#define OUT(c)                                                                                     \
  _mm512_store_si512(lanes, a##c);                                                                 \
  out[c] = halfValue(lanes[0]);
  MANTISSA_PROBE_CHAINS(OUT)
#undef OUT
}

#undef MANTISSA_PROBE_CHAINS

namespace {

// Tile configuration (palette 1): tiles 0-3 accumulate 16 x 16 FP32, tile 4
// holds A (16 rows of 32 BF16) and tile 5 B (16 rows of 16 pairs).
struct alignas(64) TileConfig {
  std::uint8_t palette = 1;
  std::uint8_t startRow = 0;
  std::uint8_t reserved[14] = {};
  std::uint16_t colsb[16] = {};
  std::uint8_t rows[16] = {};
};

} // namespace

bool requestAmxPermission() {
  // ARCH_REQ_XCOMP_PERM = 0x1023, XFEATURE_XTILEDATA = 18.
  return syscall(SYS_arch_prctl, 0x1023, 18) == 0;
}

__attribute__((target("amx-tile,amx-bf16"))) void dotAmx(std::int64_t n, double out[12]) {
  TileConfig cfg;
  for (int t = 0; t < 6; ++t) {
    cfg.colsb[t] = 64;
    cfg.rows[t] = 16;
  }
  _tile_loadconfig(&cfg);
  alignas(64) std::uint16_t ones[16 * 32];
  for (auto& v : ones)
    v = 0x3F80;
  alignas(64) float acc[4][16 * 16];
  for (int c = 0; c < 4; ++c)
    for (auto& v : acc[c])
      v = float(c);
  _tile_loadd(0, acc[0], 64);
  _tile_loadd(1, acc[1], 64);
  _tile_loadd(2, acc[2], 64);
  _tile_loadd(3, acc[3], 64);
  _tile_loadd(4, ones, 64);
  _tile_loadd(5, ones, 64);
  for (std::int64_t i = 0; i < n; ++i) {
    _tile_dpbf16ps(0, 4, 5);
    _tile_dpbf16ps(1, 4, 5);
    _tile_dpbf16ps(2, 4, 5);
    _tile_dpbf16ps(3, 4, 5);
  }
  _tile_stored(0, acc[0], 64);
  _tile_stored(1, acc[1], 64);
  _tile_stored(2, acc[2], 64);
  _tile_stored(3, acc[3], 64);
  _tile_release();
  for (int c = 0; c < 12; ++c)
    out[c] = c < 4 ? double(acc[c][0]) : 0.0;
}

#else

void fmaAvx2(std::int64_t, double*) {}
void fmaAvx512(std::int64_t, double*) {}
void dotBf16(std::int64_t, double*) {}
void fmaFp16(std::int64_t, double*) {}
bool requestAmxPermission() { return false; }
void dotAmx(std::int64_t, double*) {}

#endif

} // namespace mantissa::bench::detail
