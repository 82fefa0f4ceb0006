// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// exp and tanh for the step kernels (private to the library): straight-line
// FP32 arithmetic with selects instead of branches, so loops over them
// vectorise, and always inline, so each MANTISSA_STEP_VARIANTS build gets its
// own copy. With FMA contraction off (see step_isa_variants.h) every build
// rounds the same operations in the same order: same bits on every path.

#include <bit>
#include <cstdint>

namespace mantissa::kernels {

// e^x for every float: x = n ln2 + r with |r| <= ln2/2 (ln2 in two parts, so
// n ln2 is exact), a degree-6 polynomial for e^r (Cephes expf coefficients),
// and 2^n applied as two powers of two so results below the normal range
// round once into subnormals. x is clamped to [-104, 89] first: e^-104 is
// below half the smallest subnormal (rounds to 0) and e^89 is above the
// largest float (overflows to inf). NaN passes the clamp and propagates.
[[gnu::always_inline]] inline float expStep(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;
  constexpr float kLn2Lo = -2.12194440e-4f;
  constexpr float kShifter = 12582912.0f; // 1.5 * 2^23: adding it rounds to an integer
  x = x < -104.0f ? -104.0f : x;
  x = x > 89.0f ? 89.0f : x;
  const float shifted = x * kLog2e + kShifter;
  const float n = shifted - kShifter;
  const std::int32_t ni =
      std::bit_cast<std::int32_t>(shifted) - std::bit_cast<std::int32_t>(kShifter);
  const float r = (x - n * kLn2Hi) - n * kLn2Lo;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  const std::int32_t n1 = ni >> 1; // n in [-150, 129]: both halves are normal powers
  const std::int32_t n2 = ni - n1;
  return p * std::bit_cast<float>((n1 + 127) << 23) * std::bit_cast<float>((n2 + 127) << 23);
}

// tanh for every float: an odd polynomial for |x| < 0.625 (Cephes tanhf),
// 1 - 2 / (e^2|x| + 1) with the sign of x above (1 once e^2|x| overflows).
// Both sides are computed on |x| and one is selected; the sign of x is then
// put back (tanh(-0) = -0). NaN propagates.
[[gnu::always_inline]] inline float tanhStep(float x) {
  const std::uint32_t sign = std::bit_cast<std::uint32_t>(x) & 0x80000000u;
  const float a = std::bit_cast<float>(std::bit_cast<std::uint32_t>(x) & 0x7fffffffu);
  const float z = a * a;
  float q = -5.70498872745e-3f;
  q = q * z + 2.06390887954e-2f;
  q = q * z - 5.37397155531e-2f;
  q = q * z + 1.33314422036e-1f;
  q = q * z - 3.33332819422e-1f;
  const float small = q * z * a + a;
  const float large = 1.0f - 2.0f / (expStep(a + a) + 1.0f);
  const float magnitude = a < 0.625f ? small : large;
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(magnitude) | sign);
}

// p[0] + ... + p[n-1] in eight interleaved lanes (lane k takes p[8i + k]; the
// tail goes to lane 0), then the lanes added pairwise: a fixed order that
// vectorises, the same bits on every path.
[[gnu::always_inline]] inline float laneSum8(const float* __restrict p, int n) {
  constexpr int kLanes = 8;
  float lane[kLanes] = {};
  int j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int k = 0; k < kLanes; ++k)
      lane[k] += p[j + k];
  for (; j < n; ++j)
    lane[0] += p[j];
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

} // namespace mantissa::kernels
