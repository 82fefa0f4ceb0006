// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "exercise_text.h"

#include <mantissa/lessons/exercise.h>
#include <mantissa/numeric/codec.h>

#include <charconv>
#include <cmath>

namespace mantissa::lessons {

using numeric::FloatFormat;
using numeric::Layout;

namespace {

std::string binaryDigits(std::uint64_t v, int width) {
  std::string s;
  for (int i = width - 1; i >= 0; --i)
    s += ((v >> i) & 1u) ? '1' : '0';
  return s;
}

std::string valueAndBits(const FloatFormat& f, std::uint64_t bits) {
  return numeric::decode(f, bits).exactDecimal + " (" + groupedBits(f, bits) + ")";
}

} // namespace

std::string groupedBits(const FloatFormat& f, std::uint64_t bits) {
  switch (f.layout) {
  case Layout::UnsignedExponent: return binaryDigits(bits, f.exponentBits);
  case Layout::TwosComplement:
    return binaryDigits(bits >> (f.totalBits() - 1), 1) + " " +
           binaryDigits(bits >> f.mantissaBits, 1) + " " + binaryDigits(bits, f.mantissaBits);
  case Layout::SignExponentMantissa: break;
  }
  return binaryDigits(bits >> (f.exponentBits + f.mantissaBits), 1) + " " +
         binaryDigits(bits >> f.mantissaBits, f.exponentBits) + " " + binaryDigits(bits, f.mantissaBits);
}

std::string shortDecimal(double v, int digits) {
  char buf[64];
  const auto r = digits >= 17 ? std::to_chars(buf, buf + sizeof buf, v)
                              : std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, digits);
  return std::string(buf, r.ptr);
}

std::string powerText(double v) {
  int e = 0;
  const double fr = std::frexp(v, &e);
  if (fr == 0.5)
    return "2^" + std::to_string(e - 1);
  return shortDecimal(v, 17);
}

std::string binarySignificand(std::uint64_t significand, int m, int k) {
  const std::string all = binaryDigits(significand, m + 1 + k);
  return all.substr(0, 1) + "." + all.substr(1, static_cast<std::size_t>(m)) + "|" +
         all.substr(static_cast<std::size_t>(m) + 1);
}

void explainFields(const FloatFormat& f, std::uint64_t bits, std::vector<std::string>& steps) {
  const numeric::Decoded d = numeric::decode(f, bits);
  const std::string name(f.displayName);
  if (f.layout == Layout::UnsignedExponent) {
    steps.push_back(name + " is an exponent only: code " + std::to_string(bits) + " means 2^(" +
                    std::to_string(bits) + " - " + std::to_string(f.bias()) + ").");
    steps.push_back(groupedBits(f, bits) + " = " + d.formula + " = " + d.exactDecimal + ".");
    return;
  }
  if (f.layout == Layout::TwosComplement) {
    steps.push_back(name + " is a two's-complement byte i worth i / 64: " + groupedBits(f, bits) + " is i = " +
                    d.formula + " = " + d.exactDecimal + ".");
    return;
  }
  const std::uint64_t biased = (bits >> f.mantissaBits) & ((1ull << f.exponentBits) - 1);
  const std::uint64_t mant = bits & ((1ull << f.mantissaBits) - 1);
  std::string fields = "Fields: sign " + std::string(d.negative ? "1" : "0") + ", exponent " +
                       binaryDigits(biased, f.exponentBits) + " = " + std::to_string(biased) + ", mantissa " +
                       binaryDigits(mant, f.mantissaBits) + ".";
  steps.push_back(fields);
  switch (d.cls) {
  case numeric::FloatClass::Infinity:
    steps.push_back("Exponent all ones, mantissa zero: " + d.exactDecimal + ".");
    return;
  case numeric::FloatClass::NaN: steps.push_back("This pattern is NaN."); return;
  case numeric::FloatClass::Zero:
    steps.push_back("Exponent and mantissa zero: " + std::string(d.negative ? "-0" : "+0") + ".");
    return;
  case numeric::FloatClass::Subnormal:
    steps.push_back("Exponent field 0: a subnormal, 0.mantissa x 2^(1 - bias) = 0." +
                    binaryDigits(mant, f.mantissaBits) + " x 2^" + std::to_string(d.unbiasedExponent) + ".");
    break;
  case numeric::FloatClass::Normal:
    steps.push_back("Exponent " + std::to_string(biased) + " - bias " + std::to_string(f.bias()) + " = " +
                    std::to_string(d.unbiasedExponent) + "; significand 1." +
                    binaryDigits(mant, f.mantissaBits) + " (binary).");
    break;
  }
  steps.push_back("Value: " + d.formula + " = " + d.exactDecimal + ".");
}

void explainNeighbours(const FloatFormat& f, std::uint64_t code, std::uint64_t up, std::uint64_t down,
                       double ulp, std::vector<std::string>& steps) {
  explainFields(f, code, steps);
  if (f.layout == Layout::SignExponentMantissa)
    steps.push_back("Neighbours of a positive value are one code up or down in its magnitude; for a "
                    "negative value the codes run the other way.");
  else if (f.layout == Layout::TwosComplement)
    steps.push_back("Neighbours are the integers i + 1 and i - 1, each worth 1/64.");
  else
    steps.push_back("Neighbours are the codes one above and one below.");
  steps.push_back("Next up: " + valueAndBits(f, up) + ".");
  steps.push_back("Next down: " + valueAndBits(f, down) + ".");
  if (f.layout == Layout::SignExponentMantissa) {
    const numeric::Decoded d = numeric::decode(f, code);
    steps.push_back("ULP at x: 2^(exponent - mantissa bits) = 2^(" + std::to_string(d.unbiasedExponent) + " - " +
                    std::to_string(f.mantissaBits) + ") = " + powerText(ulp) + " = " + shortDecimal(ulp, 17) + ".");
  } else {
    steps.push_back("ULP at x: " + powerText(ulp) + " = " + shortDecimal(ulp, 17) + ".");
  }
}

void explainGuardRoundSticky(const FloatFormat& f, std::uint64_t significand, int m, int k, int g, int r,
                             int s, std::vector<std::string>& steps) {
  const std::string all = binaryDigits(significand, m + 1 + k);
  const std::string cut = all.substr(static_cast<std::size_t>(m) + 1);
  steps.push_back("Keep 1." + all.substr(1, static_cast<std::size_t>(m)) + " (" + std::to_string(m) +
                  " fraction bits of " + std::string(f.displayName) + "); cut off " + cut + ".");
  steps.push_back("Guard = first cut bit = " + std::to_string(g) + "; round = second = " + std::to_string(r) +
                  "; sticky = OR of the rest (" + (k > 2 ? cut.substr(2) : std::string("none")) +
                  ") = " + std::to_string(s) + ".");
  const int last = static_cast<int>((significand >> k) & 1u);
  if (g == 0)
    steps.push_back("G = 0: less than half an ULP was cut: round down (keep the kept bits).");
  else if (r == 1 || s == 1)
    steps.push_back("G = 1 and R or S = 1: more than half an ULP: round up (add one ULP).");
  else if (last == 1)
    steps.push_back("G R S = 1 0 0: exactly half an ULP, a tie. The last kept bit is 1 (odd): round up "
                    "to the even neighbour.");
  else
    steps.push_back("G R S = 1 0 0: exactly half an ULP, a tie. The last kept bit is 0 (even): keep it.");
  const bool up = g == 1 && (r == 1 || s == 1 || last == 1);
  if (up) {
    const std::uint64_t kept = significand >> k, sum = kept + 1;
    const std::string before = binaryDigits(kept, m + 1), after = binaryDigits(sum, m + 2);
    std::string text = "1." + before.substr(1) + " + 0." + std::string(static_cast<std::size_t>(m - 1), '0') + "1 = ";
    if (sum >> (m + 1)) // carried into a new leading bit: one binade up
      text += after.substr(0, 2) + "." + after.substr(2) + " = 1." + after.substr(1, static_cast<std::size_t>(m)) +
              " x 2^1 (the exponent goes up by one).";
    else
      text += "1." + binaryDigits(sum, m + 1).substr(1) + ".";
    steps.push_back(text);
  }
}

void explainMx(const FloatFormat& element, std::span<const double> values, const numeric::QuantizedTensor& q,
               std::vector<std::string>& steps) {
  double amax = 0;
  for (double v : values)
    amax = std::max(amax, std::fabs(v));
  int e = 0;
  std::frexp(amax, &e); // amax = fr x 2^e, fr in [0.5, 1): floor(log2 amax) = e - 1
  const int floorLog = e - 1;
  const int emax = element.maxFiniteExponent();
  const numeric::QuantBlock& block = q.blocks.front();
  steps.push_back("amax = largest |value| = " + shortDecimal(amax, 17) + "; floor(log2 amax) = " +
                  std::to_string(floorLog) + " (2^" + std::to_string(floorLog) + " <= amax < 2^" +
                  std::to_string(floorLog + 1) + ").");
  steps.push_back(std::string(element.displayName) + ": largest value " + shortDecimal(element.maxFinite(), 17) +
                  " = 1.xxx x 2^" + std::to_string(emax) + ", so emax = " + std::to_string(emax) + ".");
  steps.push_back("X = 2^(" + std::to_string(floorLog) + " - " + std::to_string(emax) + ") = 2^" +
                  std::to_string(block.scaleExponent) + " = " + shortDecimal(block.scale, 17) +
                  " (E8M0 code " + std::to_string(block.scaleBits) + ").");
  std::string divided = "Each value / X, rounded to " + std::string(element.displayName) + ":";
  for (std::size_t i = 0; i < values.size(); ++i) {
    divided += " (" + std::to_string(i + 1) + ") " + shortDecimal(values[i] / block.scale, 17) + " -> " +
               shortDecimal(q.elementValue[i], 17);
    if (q.flags[i] & numeric::kSaturated)
      divided += " clipped";
    else if (std::fabs(values[i] / block.scale) > element.maxFinite())
      divided += " (rounds to the largest value: not clipped)";
    divided += i + 1 < values.size() ? ";" : ".";
  }
  steps.push_back(divided);
  steps.push_back("Clipped: those whose value / X rounds past " + shortDecimal(element.maxFinite(), 17) +
                  "; they are stored as +-" + shortDecimal(element.maxFinite(), 17) + ".");
}

} // namespace mantissa::lessons
