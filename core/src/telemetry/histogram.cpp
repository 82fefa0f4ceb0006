// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "telemetry/scan.h"

#include <mantissa/telemetry/histogram.h>

#include <bit>
#include <numeric>

namespace mantissa::telemetry {
namespace {

constexpr std::array<std::string_view, kTensorClassCount> kClassNames{
    "weights", "activations", "activation_grads", "weight_grads", "updates"};

} // namespace

std::string_view tensorClassName(TensorClass cls) {
  return kClassNames[static_cast<std::size_t>(cls)];
}

std::optional<TensorClass> parseTensorClass(std::string_view name) {
  for (std::size_t i = 0; i < kClassNames.size(); ++i) {
    if (kClassNames[i] == name)
      return static_cast<TensorClass>(i);
  }
  return std::nullopt;
}

std::uint64_t ExponentHistogram::count(int exponent) const {
  if (exponent < kMinExponent || exponent > kMaxExponent)
    return 0;
  return bins[static_cast<std::size_t>(index(exponent))];
}

std::uint64_t ExponentHistogram::finiteNonZero() const {
  return std::accumulate(bins.begin(), bins.end(), std::uint64_t{0});
}

std::optional<int> ExponentHistogram::lowestExponent() const {
  for (int i = 0; i < kBinCount; ++i) {
    if (bins[static_cast<std::size_t>(i)] != 0)
      return i + kMinExponent;
  }
  return std::nullopt;
}

std::optional<int> ExponentHistogram::highestExponent() const {
  for (int i = kBinCount - 1; i >= 0; --i) {
    if (bins[static_cast<std::size_t>(i)] != 0)
      return i + kMinExponent;
  }
  return std::nullopt;
}

ExponentHistogram& ExponentHistogram::operator+=(const ExponentHistogram& other) {
  for (std::size_t i = 0; i < bins.size(); ++i)
    bins[i] += other.bins[i];
  zeros += other.zeros;
  posInf += other.posInf;
  negInf += other.negInf;
  nan += other.nan;
  total += other.total;
  return *this;
}

void accumulate(std::span<const float> values, ExponentHistogram& hist) {
  detail::scan(values, 1.0f, {}, hist, {});
}

int binadeOf(float value) {
  const std::uint32_t a = std::bit_cast<std::uint32_t>(value) & 0x7fffffffu;
  const int biased = static_cast<int>(a >> 23);
  if (biased == 0) // subnormal: leading 1 bit at position bit_width - 1
    return ExponentHistogram::kMinExponent + static_cast<int>(std::bit_width(a)) - 1;
  return biased - 127;
}

} // namespace mantissa::telemetry
