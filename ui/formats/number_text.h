// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <mantissa/numeric/format.h>

#include <QString>

#include <string>

namespace mantissa::ui {

// "2⁻¹⁴" (superscript exponent) for an exact power of two, else "".
QString powerOfTwoText(double value);
// "2⁻¹⁴" for any integer exponent.
QString powerOfTwoText(int exponent);

// Significant decimal digits that tell neighbouring values of `format` apart.
int distinguishingDigits(const numeric::FloatFormat& format);

// `value` with `digits` significant digits in %g style, exponent without
// leading zeros ("1.49e-9"), "inf"/"-inf"/"nan" for specials, U+2212 minus.
QString shortNumber(double value, int digits, bool forceSign = false);

// An exact decimal string with every digit kept: plain if short, else in
// scientific notation ("1.401298464324817...203125e-45"), broken into lines
// of 32 characters (copying them back is harmless: the explorer's parser
// ignores white space).
QString exactDigitsText(const std::string& exactDecimal);

// The same exact decimal without the line breaks.
QString plainDigits(const QString& text);

} // namespace mantissa::ui
