// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/data/synthetic.h>

#include "data/rng.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace mantissa::data {

Dataset makeSpirals(std::size_t size, std::uint64_t seed, std::string name, double noise) {
  Dataset d;
  d.name = std::move(name);
  d.features = 2;
  d.classes = 2;
  d.classNames = {"arm A", "arm B"};
  d.x.resize(size * 2);
  d.y.resize(size);
  detail::SplitMix64 rng(seed);
  constexpr double kTurns = 1.5;
  for (std::size_t i = 0; i < size; ++i) {
    const int label = static_cast<int>(i % 2);
    const double t = rng.uniform();                   // position along the arm, 0 = centre
    const double angle = 2.0 * std::numbers::pi * kTurns * t + std::numbers::pi * label;
    d.x[2 * i + 0] = static_cast<float>(t * std::cos(angle) + noise * rng.normal());
    d.x[2 * i + 1] = static_cast<float>(t * std::sin(angle) + noise * rng.normal());
    d.y[i] = static_cast<std::uint8_t>(label);
  }
  return d;
}

Dataset makeBlobs(std::size_t size, int classes, std::uint64_t seed, std::string name,
                  double spread) {
  if (classes < 2 || classes > 256)
    throw std::invalid_argument("makeBlobs: classes must be in [2, 256]");
  Dataset d;
  d.name = std::move(name);
  d.features = 2;
  d.classes = classes;
  for (int c = 0; c < classes; ++c)
    d.classNames.push_back("blob " + std::to_string(c));
  d.x.resize(size * 2);
  d.y.resize(size);
  detail::SplitMix64 rng(seed);
  constexpr double kRadius = 3.0;
  for (std::size_t i = 0; i < size; ++i) {
    const int label = static_cast<int>(i % static_cast<std::size_t>(classes));
    const double angle = 2.0 * std::numbers::pi * label / classes;
    d.x[2 * i + 0] = static_cast<float>(kRadius * std::cos(angle) + spread * rng.normal());
    d.x[2 * i + 1] = static_cast<float>(kRadius * std::sin(angle) + spread * rng.normal());
    d.y[i] = static_cast<std::uint8_t>(label);
  }
  return d;
}

} // namespace mantissa::data
