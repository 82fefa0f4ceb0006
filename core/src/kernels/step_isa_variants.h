// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// One loop body built for each kernels::StepIsa (private to the library).
//
//   MANTISSA_STEP_VARIANTS(Counts, adamw, (const float* g, ...), (g, ...))
//
// defines adamwAvx512, adamwAvx2 and adamwPortable, each calling the
// always-inline adamwBody with the arguments; MANTISSA_STEP_DISPATCH(adamw,
// (args)) calls the one kernels::stepIsa() names. A file using these must be
// compiled with -ffp-contract=off (an AVX-512 build would otherwise fuse
// a * b + c into one rounding) and without -ffast-math.

#include <mantissa/kernels/step_isa.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MANTISSA_TARGET_AVX512 [[gnu::target("avx512f,prefer-vector-width=512")]]
#define MANTISSA_TARGET_AVX2 [[gnu::target("avx2")]]
#else
#define MANTISSA_TARGET_AVX512
#define MANTISSA_TARGET_AVX2
#endif

#define MANTISSA_STEP_VARIANTS(ret, name, params, args)                                            \
  MANTISSA_TARGET_AVX512 ret name##Avx512 params {                                                 \
    return name##Body args;                                                                        \
  }                                                                                                \
  MANTISSA_TARGET_AVX2 ret name##Avx2 params {                                                     \
    return name##Body args;                                                                        \
  }                                                                                                \
  ret name##Portable params {                                                                      \
    return name##Body args;                                                                        \
  }

#define MANTISSA_STEP_DISPATCH(name, args)                                                         \
  (::mantissa::kernels::stepIsa() == ::mantissa::kernels::StepIsa::Avx512 ? name##Avx512 args      \
   : ::mantissa::kernels::stepIsa() == ::mantissa::kernels::StepIsa::Avx2 ? name##Avx2 args        \
                                                                          : name##Portable args)
