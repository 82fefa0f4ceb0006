// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <QColor>

namespace mantissa::ui {

// Viridis (van der Walt & Smith, matplotlib): perceptually uniform, readable
// in grey scale and under the common colour-vision deficiencies. t in [0, 1]
// (clamped), dark purple at 0 to yellow at 1; linear between 11 anchors.
QRgb viridis(double t);

} // namespace mantissa::ui
