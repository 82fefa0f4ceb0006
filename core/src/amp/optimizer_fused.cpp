// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Compiled with -ffp-contract=off (core/src/amp/CMakeLists.txt): no a * b + c
// is contracted into one FMA, so each operation rounds as in the scalar loops.
#include "optimizer_fused.h"

#include <mantissa/numeric/cpu_features.h>

#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define MANTISSA_BF16_PASS 1
#define MANTISSA_BF16_PASS_TARGET                                                                  \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))
#else
#define MANTISSA_BF16_PASS 0
#endif

namespace mantissa::amp::detail {

bool bf16PassAvailable() {
#if MANTISSA_BF16_PASS
  static const bool available = [] {
    const auto& f = numeric::cpuFeatures();
    return f.avx512f && f.avx512bw && f.avx512bf16;
  }();
  return available;
#else
  return false;
#endif
}

#if MANTISSA_BF16_PASS
namespace {

// The first `len` (<= 16) lanes.
MANTISSA_BF16_PASS_TARGET inline __mmask16 lanes(std::size_t len) {
  return static_cast<__mmask16>(len >= 16 ? 0xFFFFu : (1u << len) - 1u);
}

// w + step into w, its BF16 cast into low, the counts of optimizer.cpp
// (step != 0, NaN included; and of those, w + step == w).
MANTISSA_BF16_PASS_TARGET inline void store(float* w, std::uint16_t* low, __m512 wv, __m512 step,
                                            __mmask16 k, PassCounts& c) {
  const __m512 updated = _mm512_add_ps(wv, step);
  const __mmask16 nonzero = _mm512_mask_cmp_ps_mask(k, step, _mm512_setzero_ps(), _CMP_NEQ_UQ);
  const __mmask16 unchanged = _mm512_mask_cmp_ps_mask(nonzero, updated, wv, _CMP_EQ_OQ);
  c.nonzero += __builtin_popcount(nonzero);
  c.unchanged += __builtin_popcount(unchanged);
  _mm512_mask_storeu_ps(w, k, updated);
  const __m256bh h = _mm512_cvtneps_pbh(updated);
  __m256i bits;
  std::memcpy(&bits, &h, sizeof bits);
  _mm256_mask_storeu_epi16(low, k, bits);
}

} // namespace

MANTISSA_BF16_PASS_TARGET PassCounts sgdBf16Pass(const float* g, float* w, float* m,
                                                 std::uint16_t* low, std::size_t n,
                                                 SgdPassConstants k) {
  const __m512 momentum = _mm512_set1_ps(k.momentum), wd = _mm512_set1_ps(k.wd),
               negFlr = _mm512_set1_ps(-k.flr);
  PassCounts c;
  for (std::size_t i = 0; i < n; i += 16) {
    const __mmask16 mask = lanes(n - i);
    const __m512 gv = _mm512_maskz_loadu_ps(mask, g + i);
    const __m512 wv = _mm512_maskz_loadu_ps(mask, w + i);
    const __m512 mv = _mm512_maskz_loadu_ps(mask, m + i);
    // momentum * m + (g + wd * w)
    const __m512 mNew =
        _mm512_add_ps(_mm512_mul_ps(momentum, mv), _mm512_add_ps(gv, _mm512_mul_ps(wd, wv)));
    _mm512_mask_storeu_ps(m + i, mask, mNew);
    store(w + i, low + i, wv, _mm512_mul_ps(negFlr, mNew), mask, c);
  }
  return c;
}

MANTISSA_BF16_PASS_TARGET PassCounts adamwBf16Pass(const float* g, float* w, float* m1, float* m2,
                                                   std::uint16_t* low, std::size_t n,
                                                   AdamwPassConstants k) {
  const __m512 b1 = _mm512_set1_ps(k.b1), b2 = _mm512_set1_ps(k.b2),
               oneMinusB1 = _mm512_set1_ps(1.0f - k.b1), oneMinusB2 = _mm512_set1_ps(1.0f - k.b2),
               flr = _mm512_set1_ps(k.flr), negFlrWd = _mm512_set1_ps(-k.flr * k.wd),
               bias1 = _mm512_set1_ps(k.bias1), bias2Sqrt = _mm512_set1_ps(k.bias2Sqrt),
               eps = _mm512_set1_ps(k.eps);
  PassCounts c;
  for (std::size_t i = 0; i < n; i += 16) {
    const __mmask16 mask = lanes(n - i);
    const __m512 gv = _mm512_maskz_loadu_ps(mask, g + i);
    const __m512 wv = _mm512_maskz_loadu_ps(mask, w + i);
    // m = b1 m + (1 - b1) g;  v = b2 v + ((1 - b2) g) g
    const __m512 m = _mm512_add_ps(_mm512_mul_ps(b1, _mm512_maskz_loadu_ps(mask, m1 + i)),
                                   _mm512_mul_ps(oneMinusB1, gv));
    const __m512 v =
        _mm512_add_ps(_mm512_mul_ps(b2, _mm512_maskz_loadu_ps(mask, m2 + i)),
                      _mm512_mul_ps(_mm512_mul_ps(oneMinusB2, gv), gv));
    _mm512_mask_storeu_ps(m1 + i, mask, m);
    _mm512_mask_storeu_ps(m2 + i, mask, v);
    // (-flr wd) w - (flr (m / bias1)) / (sqrt(v) / bias2Sqrt + eps)
    // (The zero-masking square root: GCC 12 reports the plain one's undefined
    // source register as maybe uninitialized.)
    const __m512 root = _mm512_maskz_sqrt_ps(static_cast<__mmask16>(0xFFFF), v);
    const __m512 denom = _mm512_add_ps(_mm512_div_ps(root, bias2Sqrt), eps);
    const __m512 step =
        _mm512_sub_ps(_mm512_mul_ps(negFlrWd, wv),
                      _mm512_div_ps(_mm512_mul_ps(flr, _mm512_div_ps(m, bias1)), denom));
    store(w + i, low + i, wv, step, mask, c);
  }
  return c;
}
#else
PassCounts sgdBf16Pass(const float*, float*, float*, std::uint16_t*, std::size_t,
                       SgdPassConstants) {
  return {};
}
PassCounts adamwBf16Pass(const float*, float*, float*, float*, std::uint16_t*, std::size_t,
                         AdamwPassConstants) {
  return {};
}
#endif

} // namespace mantissa::amp::detail
