// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/kernels/accumulation.h>
#include <mantissa/nn/precision.h>

#include <cstddef>

namespace mantissa::kernels {

void matmulEmulatedAccumulation(const MatmulShape& s, std::span<const float> src,
                                std::span<const float> weights, std::span<float> dst,
                                DType accumulator, int promoteEvery) {
  const std::size_t M = std::size_t(s.m), N = std::size_t(s.n), K = std::size_t(s.k);
  auto a = [&](std::size_t i, std::size_t k) {
    return s.transSrc == Trans::No ? src[i * K + k] : src[k * M + i];
  };
  auto b = [&](std::size_t k, std::size_t j) {
    return s.transWeights == Trans::No ? weights[k * N + j] : weights[j * K + k];
  };
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      float total = 0.0f; // FP32 (promotion target)
      float partial = 0.0f;
      int count = 0;
      for (std::size_t k = 0; k < K; ++k) {
        // One rounding per step, as a fused multiply-add into a 16-bit register.
        partial = nn::roundScalar(accumulator, partial + a(i, k) * b(k, j));
        if (promoteEvery > 0 && ++count == promoteEvery) {
          total += partial;
          partial = 0.0f;
          count = 0;
        }
      }
      dst[i * N + j] = promoteEvery > 0 ? total + partial : partial;
    }
}

} // namespace mantissa::kernels
