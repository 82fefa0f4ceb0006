// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Exponent histograms: one bin per binade of FP32, plus special counters.
//
// A finite non-zero x lies in binade e when 2^e <= |x| < 2^(e+1). For FP32
// e runs from -149 (the smallest subnormal, 2^-149) to 127; subnormals are
// binned by their true exponent (the position of their leading 1 bit), not
// lumped at -126. Zeros (both signs), +inf, -inf and NaN have their own
// counters; every value lands in exactly one place, so
//   sum(bins) + zeros + posInf + negInf + nan == total.
// Counting uses the FP32 bit fields (exponent extraction), never logarithms.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace mantissa::telemetry {

// What a tensor is, for the trainer's observe() calls and the dashboards.
enum class TensorClass : std::uint8_t {
  Weights,
  Activations,
  ActivationGrads,
  WeightGrads,
  Updates
};
inline constexpr int kTensorClassCount = 5;

// "weights", "activations", "activation_grads", "weight_grads", "updates"
std::string_view tensorClassName(TensorClass cls);
std::optional<TensorClass> parseTensorClass(std::string_view name);

struct ExponentHistogram {
  static constexpr int kMinExponent = -149; // smallest FP32 subnormal 2^-149
  static constexpr int kMaxExponent = 127;  // largest FP32 binade [2^127, 2^128)
  static constexpr int kBinCount = kMaxExponent - kMinExponent + 1; // 277

  std::array<std::uint64_t, kBinCount> bins{}; // bins[e - kMinExponent]: count in binade e
  std::uint64_t zeros = 0;                     // +0 and -0
  std::uint64_t posInf = 0;
  std::uint64_t negInf = 0;
  std::uint64_t nan = 0;
  std::uint64_t total = 0; // every value seen, specials included

  static constexpr int index(int exponent) { return exponent - kMinExponent; }
  std::uint64_t count(int exponent) const; // 0 outside [kMinExponent, kMaxExponent]
  std::uint64_t finiteNonZero() const;     // sum of bins
  // Lowest and highest non-empty binade; nullopt when every bin is empty.
  std::optional<int> lowestExponent() const;
  std::optional<int> highestExponent() const;

  void clear() { *this = ExponentHistogram{}; }
  ExponentHistogram& operator+=(const ExponentHistogram& other);
  bool operator==(const ExponentHistogram&) const = default;
};

// Adds every value of `values` to `hist` (bins, specials and total).
void accumulate(std::span<const float> values, ExponentHistogram& hist);

// The binade of one finite non-zero float (the reference rule, scalar).
int binadeOf(float value);

// Telemetry's kernels (histogram, cast counts, swamping, zero loss) use AVX2
// where the CPU has it and a portable path otherwise, with identical counts;
// with AVX-512BW the histogram's window kernel runs on 512-bit registers.
// Force the portable path, or AVX2 without AVX-512 (tests compare them).
void setForcePortableTelemetry(bool force) noexcept;
void setAvoidAvx512Telemetry(bool avoid) noexcept;
// Whether the histogram kernel would use AVX-512 now.
bool telemetryUsesAvx512() noexcept;

} // namespace mantissa::telemetry
