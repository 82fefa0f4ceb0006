// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "colour_map.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace mantissa::ui {

QRgb viridis(double t) {
  // matplotlib's viridis sampled at t = 0, 0.1, ..., 1.
  static constexpr std::array<QRgb, 11> kAnchors{0x440154, 0x482475, 0x414487, 0x355f8d,
                                                 0x2a788e, 0x21918c, 0x22a884, 0x44bf70,
                                                 0x7ad151, 0xbddf26, 0xfde725};
  if (!(t > 0.0))
    t = 0.0;
  t = std::min(t, 1.0);
  const double pos = t * static_cast<double>(kAnchors.size() - 1);
  const auto i = std::min(static_cast<std::size_t>(pos), kAnchors.size() - 2);
  const double f = pos - static_cast<double>(i);
  const QRgb a = kAnchors[i];
  const QRgb b = kAnchors[i + 1];
  const auto mix = [f](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * f)); };
  return qRgb(mix(qRed(a), qRed(b)), mix(qGreen(a), qGreen(b)), mix(qBlue(a), qBlue(b)));
}

} // namespace mantissa::ui
