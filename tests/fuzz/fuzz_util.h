// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Checks shared by the loader fuzz targets. A failed check aborts, which
// libFuzzer and the corpus replay both report as a crash with the input.

#include <mantissa/data/dataset.h>

#include <cmath>
#include <cstddef>
#include <cstdlib>

namespace mantissa::fuzz {

// A loaded set is consistent: x is [N, F], labels in [0, C), features finite,
// and image sets have width x height = F. (The name is the caller's: loadIdxBytes
// leaves it empty.)
inline void checkDataset(const data::Dataset& set) {
  const std::size_t n = set.y.size();
  if (set.features <= 0 || set.classes <= 0 || set.classes > 256)
    std::abort();
  if (set.x.size() != n * static_cast<std::size_t>(set.features))
    std::abort();
  for (const auto label : set.y)
    if (label >= set.classes)
      std::abort();
  for (const float v : set.x)
    if (!std::isfinite(v))
      std::abort();
  if (set.imageWidth != 0 && set.imageWidth * set.imageHeight != set.features)
    std::abort();
}

} // namespace mantissa::fuzz
