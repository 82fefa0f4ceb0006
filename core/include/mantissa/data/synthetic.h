// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Small synthetic 2-D sets for instant demos, fully determined by their seed
// (own generator, so the same on every platform and standard library).

#include <mantissa/data/dataset.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace mantissa::data {

// Two interleaved spiral arms (1.5 turns each, radius 0..1) with Gaussian noise of
// standard deviation `noise`; labels alternate 0, 1, 0, ... so classes are balanced.
Dataset makeSpirals(std::size_t size, std::uint64_t seed, std::string name, double noise = 0.05);

// `classes` isotropic Gaussian blobs (standard deviation `spread`) centred evenly
// on a circle of radius 3; sample i has label i % classes.
Dataset makeBlobs(std::size_t size, int classes, std::uint64_t seed, std::string name,
                  double spread = 0.8);

} // namespace mantissa::data
