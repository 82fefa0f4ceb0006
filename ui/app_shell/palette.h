// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Colour-blind-safe colours shared by the explorer and every chart: the
// Okabe-Ito palette (Okabe & Ito, "Color Universal Design", 2008), which stays
// distinguishable under protanopia, deuteranopia and tritanopia.

#include <QColor>

#include <array>

namespace mantissa::ui::palette {

inline const QColor kBlack{0x00, 0x00, 0x00};
inline const QColor kOrange{0xE6, 0x9F, 0x00};
inline const QColor kSkyBlue{0x56, 0xB4, 0xE9};
inline const QColor kBluishGreen{0x00, 0x9E, 0x73};
inline const QColor kYellow{0xF0, 0xE4, 0x42};
inline const QColor kBlue{0x00, 0x72, 0xB2};
inline const QColor kVermillion{0xD5, 0x5E, 0x00};
inline const QColor kReddishPurple{0xCC, 0x79, 0xA7};
inline const QColor kGrey{0x88, 0x88, 0x88}; // stands in for black: reads on light and dark

// Bit fields of a floating-point number.
inline const QColor kSign = kReddishPurple;
inline const QColor kExponent = kSkyBlue;
inline const QColor kMantissa = kOrange;

// Warnings (overflow, underflow, divergence) and good news (exact, in range).
inline const QColor kWarning = kVermillion;
inline const QColor kGood = kBluishGreen;

// One colour per run or series, in the order runs are added. Yellow is left
// out (it vanishes on white); grey stands in for Okabe-Ito's black.
inline const std::array<QColor, 7> kSeries{kBlue,          kOrange,  kBluishGreen, kVermillion,
                                           kReddishPurple, kSkyBlue, kGrey};

inline QColor seriesColor(int index) {
  return kSeries[static_cast<std::size_t>(index) % kSeries.size()];
}

// One colour per segment of a stacked bar: the series' colours, then yellow,
// which reads as a filled area where a line of it would vanish on white.
inline const std::array<QColor, 8> kParts{kBlue,          kOrange,  kBluishGreen, kVermillion,
                                          kReddishPurple, kSkyBlue, kGrey,        kYellow};
inline QColor partColor(int index) {
  return kParts[static_cast<std::size_t>(index) % kParts.size()];
}

// `color` blended towards `background` (amount 0 = color, 1 = background).
inline QColor blend(const QColor& color, const QColor& background, double amount) {
  auto mix = [amount](int a, int b) { return static_cast<int>(a + (b - a) * amount + 0.5); };
  return QColor(mix(color.red(), background.red()), mix(color.green(), background.green()),
                mix(color.blue(), background.blue()));
}

} // namespace mantissa::ui::palette
