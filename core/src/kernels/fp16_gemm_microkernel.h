// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The FP16 GEMM's microkernel (fp16_gemm.h), written once over a "vector
// ops" traits class V that provides 32 FP16 lanes:
//
//   V::Reg                    32 FP16 lanes
//   V::zero()                 all lanes +0
//   V::load(p) / V::store(p)  32 FP16 bit patterns, unaligned
//   V::fma(a, b, acc)         per lane: acc = fma16(a, b[lane], acc[lane]),
//                             a broadcast; one rounding to FP16 (RNE)
//   V::addTo(c, h)            per lane: c[lane] = c[lane] + float(h[lane])
//                             in FP32 (RNE), 32 floats at c
//
// It is instantiated twice: with the AVX512_FP16 intrinsics (its own
// translation unit, compiled with -mavx512fp16) and with the portable exact
// emulation (fp16_gemm.cpp). Everything here sits in an unnamed namespace
// and calls no library function, so the copy compiled for AVX512_FP16 is
// never linked into the portable path (no shared inline definitions).

#include <cstddef>
#include <cstdint>

namespace mantissa::kernels::fp16gemm {

inline constexpr int kMr = 8;           // rows of a micro-tile
inline constexpr int kLanes = 32;       // FP16 lanes of a register
inline constexpr int kNv = 2;           // registers per row
inline constexpr int kNr = kLanes * kNv; // columns of a micro-tile

// One micro-tile's work for one K block [k0, k0 + kc).
struct MicroTile {
  int kc = 0;
  const std::uint16_t* a = nullptr; // packed A micro-panel: kc steps of kMr values
  const std::uint16_t* b = nullptr; // packed B micro-panel: kc steps of kNr values
  float* c = nullptr;               // C at the tile's first element
  std::ptrdiff_t ldc = 0;
  int mr = 0, nr = 0;               // valid rows and columns of the tile
  std::uint16_t* carry = nullptr;   // FP16 partial sums across K blocks ([M,N])
  std::ptrdiff_t ldcarry = 0;
  std::int64_t k0 = 0, k = 0;       // block start, whole K
  std::int64_t chunk = 0;           // N_C, or K for "never"
  bool loadC = false;               // c starts at C (accumulating or k0 > 0)
};

using MicroKernel = void (*)(const MicroTile&);

namespace {

template <class V> void microKernel(const MicroTile& t) {
  // FP32 sums of the tile: in L1, touched once per chunk.
  alignas(64) float acc[kMr][kNr];
  for (int r = 0; r < kMr; ++r)
    for (int j = 0; j < kNr; ++j)
      acc[r][j] = (t.loadC && r < t.mr && j < t.nr) ? t.c[r * t.ldc + j] : 0.0f;

  // FP16 partial sums: in registers. A chunk that began in an earlier K
  // block continues from its carried partial sum.
  typename V::Reg h[kMr][kNv];
  bool open = t.k0 % t.chunk != 0;
  alignas(64) std::uint16_t edge[kNr];
  for (int r = 0; r < kMr; ++r) {
    if (open && r < t.mr) {
      for (int j = 0; j < kNr; ++j)
        edge[j] = j < t.nr ? t.carry[r * t.ldcarry + j] : std::uint16_t(0);
      for (int v = 0; v < kNv; ++v)
        h[r][v] = V::load(edge + v * kLanes);
    } else {
      for (int v = 0; v < kNv; ++v)
        h[r][v] = V::zero();
    }
  }

  const std::uint16_t* ap = t.a;
  const std::uint16_t* bp = t.b;
  std::int64_t kg = t.k0;
  const std::int64_t end = t.k0 + t.kc;
  while (kg < end) {
    // Products up to the next chunk boundary (or the block's end).
    std::int64_t boundary = (kg / t.chunk + 1) * t.chunk;
    if (boundary > t.k)
      boundary = t.k;
    const std::int64_t stop = boundary < end ? boundary : end;
    for (; kg < stop; ++kg) {
      typename V::Reg b[kNv];
#pragma GCC unroll 2
      for (int v = 0; v < kNv; ++v)
        b[v] = V::load(bp + v * kLanes);
#pragma GCC unroll 8
      for (int r = 0; r < kMr; ++r)
#pragma GCC unroll 2
        for (int v = 0; v < kNv; ++v)
          h[r][v] = V::fma(ap[r], b[v], h[r][v]);
      ap += kMr;
      bp += kNr;
    }
    open = kg != boundary;
    if (!open) {
      // Promotion: the chunk's FP16 sums into the FP32 sums.
      for (int r = 0; r < kMr; ++r)
        for (int v = 0; v < kNv; ++v) {
          V::addTo(&acc[r][v * kLanes], h[r][v]);
          h[r][v] = V::zero();
        }
    }
  }

  if (open) {
    for (int r = 0; r < t.mr; ++r) {
      for (int v = 0; v < kNv; ++v)
        V::store(edge + v * kLanes, h[r][v]);
      for (int j = 0; j < t.nr; ++j)
        t.carry[r * t.ldcarry + j] = edge[j];
    }
  }
  for (int r = 0; r < t.mr; ++r)
    for (int j = 0; j < t.nr; ++j)
      t.c[r * t.ldc + j] = acc[r][j];
}

} // namespace

// The AVX512_FP16 instantiation (fp16_gemm_avx512.cpp); nullptr when this
// build has none.
MicroKernel avx512Fp16MicroKernel();

} // namespace mantissa::kernels::fp16gemm
