// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The words and numbers of exercises and their worked solutions (exercise.cpp).

#include <mantissa/numeric/block_quant.h>
#include <mantissa/numeric/format.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace mantissa::lessons {

// v with at most `digits` significant digits, locale-free ("0.3", "1.5e-05");
// with 17 digits the shortest text that reads back as v.
std::string shortDecimal(double v, int digits);
// "2^-7 = 0.0078125" for a power of two, else shortDecimal(v, 17).
std::string powerText(double v);
// "1.0110|101": the significand's m fraction bits, a bar, then the k cut-off bits.
std::string binarySignificand(std::uint64_t significand, int m, int k);

// The steps from a pattern to its value: fields, exponent, significand, value.
void explainFields(const numeric::FloatFormat& f, std::uint64_t bits, std::vector<std::string>& steps);
void explainNeighbours(const numeric::FloatFormat& f, std::uint64_t code, std::uint64_t up,
                       std::uint64_t down, double ulp, std::vector<std::string>& steps);
void explainGuardRoundSticky(const numeric::FloatFormat& f, std::uint64_t significand, int m, int k,
                             int g, int r, int s, std::vector<std::string>& steps);
void explainMx(const numeric::FloatFormat& element, std::span<const double> values,
               const numeric::QuantizedTensor& q, std::vector<std::string>& steps);

} // namespace mantissa::lessons
