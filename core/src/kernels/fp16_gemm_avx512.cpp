// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The FP16 GEMM microkernel on AVX512_FP16 (fp16_gemm_microkernel.h). This
// file alone is compiled with -mavx512fp16; fp16_gemm.cpp calls it only
// after CPUID said AVX512_FP16.
#include "fp16_gemm_microkernel.h"

#if defined(MANTISSA_HAVE_AVX512FP16_KERNEL)
#include <immintrin.h>

namespace mantissa::kernels::fp16gemm {
namespace {

struct Avx512Fp16Ops {
  using Reg = __m512h;
  static Reg zero() { return _mm512_setzero_ph(); }
  static Reg load(const std::uint16_t* p) { return _mm512_castsi512_ph(_mm512_loadu_si512(p)); }
  static void store(std::uint16_t* p, Reg r) { _mm512_storeu_si512(p, _mm512_castph_si512(r)); }
  // VFMADD231PH: acc = a * b + acc, one rounding per lane.
  static Reg fma(std::uint16_t a, Reg b, Reg acc) {
    return _mm512_fmadd_ph(_mm512_castsi512_ph(_mm512_set1_epi16(static_cast<short>(a))), b, acc);
  }
  // VCVTPH2PS (exact) and VADDPS, 16 lanes at a time. (The zero-masked
  // forms: GCC 12's unmasked ones warn about their undefined pass-through.)
  static void addTo(float* c, Reg h) {
    const __m512i bits = _mm512_castph_si512(h);
    const __m256i lo = _mm512_maskz_extracti64x4_epi64(0xFF, bits, 0);
    const __m256i hi = _mm512_maskz_extracti64x4_epi64(0xFF, bits, 1);
    _mm512_storeu_ps(c, _mm512_add_ps(_mm512_loadu_ps(c), _mm512_maskz_cvtph_ps(0xFFFF, lo)));
    _mm512_storeu_ps(c + 16, _mm512_add_ps(_mm512_loadu_ps(c + 16), _mm512_maskz_cvtph_ps(0xFFFF, hi)));
  }
};

} // namespace

MicroKernel avx512Fp16MicroKernel() {
  return &microKernel<Avx512Fp16Ops>;
}

} // namespace mantissa::kernels::fp16gemm

#else

namespace mantissa::kernels::fp16gemm {
MicroKernel avx512Fp16MicroKernel() {
  return nullptr;
}
} // namespace mantissa::kernels::fp16gemm

#endif
