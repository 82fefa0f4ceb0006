// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// SGD and AdamW with FP32 state into FP32 master weights and their BF16
// working copy, in one AVX-512 pass (private to the library): each group of
// 16 values is read once (gradient, moments, master), updated, and written
// back with its BF16 cast (VCVTNEPS2BF16) beside it. The operations and their
// order are those of optimizer.cpp's fused FP32 loops followed by
// numeric::convertF32ToBf16, so the bits are the same; without AVX-512 BF16
// (bf16PassAvailable() false) the optimizer keeps its two passes.

#include <cstddef>
#include <cstdint>

namespace mantissa::amp::detail {

struct PassCounts {
  std::int64_t nonzero = 0;   // updates that are not zero
  std::int64_t unchanged = 0; // ... of which left the weight unchanged
};

struct SgdPassConstants {
  float momentum, wd, flr;
};
struct AdamwPassConstants {
  float b1, b2, flr, wd, bias1, bias2Sqrt, eps;
};

// AVX-512F, AVX-512BW and AVX-512 BF16 on this CPU (probed once), and the
// kernels built (x86-64, GCC or Clang).
bool bf16PassAvailable();

// m = momentum m + (g + wd w); w += -flr m; low = bf16(w).
PassCounts sgdBf16Pass(const float* g, float* w, float* m, std::uint16_t* low, std::size_t n,
                       SgdPassConstants k);
// torch.optim.AdamW (optimizer.h); w += u; low = bf16(w).
PassCounts adamwBf16Pass(const float* g, float* w, float* m1, float* m2, std::uint16_t* low,
                         std::size_t n, AdamwPassConstants k);

} // namespace mantissa::amp::detail
