// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/lessons/exercise.h>

#include "data/rng.h"
#include "exercise_text.h"

#include <mantissa/amp/loss_scaler.h>
#include <mantissa/numeric/block_quant.h>
#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/exact_value.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace mantissa::lessons {

using numeric::ExactValue;
using numeric::FloatFormat;
using numeric::FormatId;
using numeric::Layout;

namespace {

using Rng = data::detail::SplitMix64;

constexpr std::array kKinds{ExerciseKind::Encode,  ExerciseKind::Decode, ExerciseKind::Neighbours,
                            ExerciseKind::Round,   ExerciseKind::Range,  ExerciseKind::MxScale,
                            ExerciseKind::LossScale};

struct KindNames {
  std::string_view name, title;
};
constexpr std::array kKindNames{
    KindNames{"encode", "Encode a decimal"},
    KindNames{"decode", "Decode bits"},
    KindNames{"next", "Next value up and down, ULP"},
    KindNames{"round", "Round to nearest even (guard, round, sticky)"},
    KindNames{"range", "Flush to zero or overflow"},
    KindNames{"mx", "MX block scale and clipping"},
    KindNames{"loss-scale", "Loss scale after overflows"},
};

int below(Rng& rng, int n) { return static_cast<int>(rng.below(static_cast<std::uint64_t>(n))); }
int between(Rng& rng, int lo, int hi) { return lo + below(rng, hi - lo + 1); } // [lo, hi]

std::uint64_t lowMask(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

// The exponent range a random pattern is drawn from: the format's, cut to
// FP16's [-14, 15] so that exact decimals stay short enough to write by hand.
int minDrawnExponent(const FloatFormat& f) { return std::max(f.minNormalExponent(), -14); }
int maxDrawnExponent(const FloatFormat& f) { return std::min(f.maxFiniteExponent(), 15); }

// A random finite pattern; difficulty 1 keeps values near 1 with two random
// fraction bits, 2 spreads them over the drawn range with four, 3 adds
// subnormals (where short) and seven random fraction bits.
std::uint64_t randomCode(const FloatFormat& f, Rng& rng, int difficulty) {
  if (f.layout == Layout::UnsignedExponent) {
    const int span = difficulty == 1 ? 4 : difficulty == 2 ? 10 : 20;
    return static_cast<std::uint64_t>(f.bias() + between(rng, -span, span));
  }
  if (f.layout == Layout::TwosComplement) {
    const int step = difficulty == 1 ? 16 : difficulty == 2 ? 4 : 1;
    return static_cast<std::uint64_t>(below(rng, 256 / step) * step);
  }
  const int m = f.mantissaBits;
  for (;;) {
    const std::uint64_t sign = rng.below(2);
    int e = 0;
    if (difficulty == 1)
      e = between(rng, std::max(minDrawnExponent(f), -2), std::min(maxDrawnExponent(f), 3));
    else
      e = between(rng, minDrawnExponent(f), maxDrawnExponent(f));
    std::uint64_t biased = static_cast<std::uint64_t>(e + f.bias());
    const bool subnormal = difficulty == 3 && f.exponentBits <= 5 && rng.below(4) == 0;
    if (subnormal)
      biased = 0;
    const int free = std::min(m, difficulty == 1 ? 2 : difficulty == 2 ? 4 : 7);
    std::uint64_t mant = rng.below(1ull << free) << (m - free);
    if (difficulty == 3 && m > free)
      mant |= rng.below(8) & lowMask(m - free); // a few low bits too: odd last bits
    const std::uint64_t bits = (sign << (f.exponentBits + m)) | (biased << m) | mant;
    const auto cls = numeric::classify(f, bits);
    if (cls != numeric::FloatClass::NaN && cls != numeric::FloatClass::Infinity)
      return bits;
  }
}

std::string formatLabel(const FloatFormat& f) { return std::string(f.displayName); }

// "2.75 (0 1000 011, 0x43)"
std::string valueWithBits(const FloatFormat& f, std::uint64_t bits) {
  return numeric::decode(f, bits).exactDecimal + " (" + groupedBits(f, bits) + ", " +
         numeric::formatBitsHex(f, bits) + ")";
}

AnswerPart codePart(std::string label, const FloatFormat& f, std::uint64_t bits) {
  AnswerPart p;
  p.label = std::move(label);
  p.form = AnswerForm::Code;
  p.format = f.id;
  p.bits = bits;
  p.value = numeric::decode(f, bits).exactDecimal;
  p.keyText = groupedBits(f, bits) + " = " + numeric::formatBitsHex(f, bits) + " = " + p.value;
  return p;
}

AnswerPart valuePart(std::string label, const FloatFormat& f, std::uint64_t bits,
                     std::string shown = {}) {
  AnswerPart p;
  p.label = std::move(label);
  p.form = AnswerForm::Value;
  p.format = f.id;
  p.bits = bits;
  p.value = numeric::decode(f, bits).exactDecimal;
  p.keyText = shown.empty() || shown == p.value ? p.value : shown + " = " + p.value;
  return p;
}

AnswerPart doublePart(std::string label, double v, std::string shown = {}) {
  return valuePart(std::move(label), numeric::formatInfo(FormatId::Fp64), std::bit_cast<std::uint64_t>(v),
                   std::move(shown));
}

std::string indicesText(const std::vector<int>& indices) {
  if (indices.empty())
    return "none";
  std::string s;
  for (int i : indices)
    s += (s.empty() ? "" : ", ") + std::to_string(i);
  return s;
}

AnswerPart indicesPart(std::string label, std::vector<int> indices) {
  AnswerPart p;
  p.label = std::move(label);
  p.form = AnswerForm::Indices;
  p.keyText = indicesText(indices);
  p.indices = std::move(indices);
  return p;
}

ExactValue parsed(const std::string& decimal) { return *numeric::parseNumber(decimal).value; }

// How the two neighbours of x decide the rounding, step by step.
void explainRounding(const FloatFormat& f, const ExactValue& x, const numeric::EncodeResult& r,
                     std::vector<std::string>& steps) {
  const std::string name = formatLabel(f);
  if (!r.inexact) {
    steps.push_back(x.toString() + " is a value of " + name + ": nothing to round.");
    return;
  }
  numeric::EncodeOptions down;
  down.rounding = numeric::Rounding::TowardZero;
  down.overflow = numeric::OverflowMode::Saturate;
  const std::uint64_t a = numeric::encode(f, x, down).bits;
  const double av = numeric::toDouble(f, a);
  if (r.overflowed) {
    steps.push_back(x.toString() + " is beyond " + name + "'s largest finite value " +
                    valueWithBits(f, a) + " by half an ULP or more.");
    if (f.hasInfinity())
      steps.push_back("Round to nearest sends it to infinity.");
    else if (f.hasNan() && f.layout == Layout::SignExponentMantissa)
      steps.push_back(name + " has no infinity: the conversion gives NaN (or the largest value when saturating).");
    else
      steps.push_back(name + " has no infinity and no NaN: the value saturates at the largest one.");
    return;
  }
  const bool negative = x.negative();
  const std::uint64_t b = negative ? numeric::nextDown(f, a) : numeric::nextUp(f, a);
  const ExactValue ae = ExactValue::fromDouble(av);
  const ExactValue be = ExactValue::fromDouble(numeric::toDouble(f, b));
  steps.push_back(x.toString() + " lies between the neighbours " + valueWithBits(f, a) + " and " +
                  valueWithBits(f, b) + ".");
  const ExactValue da = numeric::absDifference(x, ae);
  const ExactValue db = numeric::absDifference(x, be);
  steps.push_back("Distances: to " + ae.toString() + " it is " + da.toString() + ", to " + be.toString() +
                  " it is " + db.toString() + ".");
  const double dad = da.approximate(), dbd = db.approximate();
  if (dad == dbd)
    steps.push_back("A tie: round to nearest even keeps the neighbour whose last bit is 0.");
  else
    steps.push_back(std::string("The nearer neighbour is ") + (dad < dbd ? ae : be).toString() + ".");
  if (r.underflowed)
    steps.push_back("The result is zero: the value underflowed.");
}

void roundingFrames(Exercise& ex, const FloatFormat& f, std::uint64_t kept, std::uint64_t extra, int k, int g,
                    int r, int s, std::uint64_t key, bool more = false);

// The Encode kind's animation, when x rounds between two normal values of
// f: its leading bits come from x truncated to FP64 (52 fraction bits, an
// inexact truncation meaning more non-zero bits follow); the first 6 bits
// after f's m are shown, the rest only count through the sticky bit.
void encodingFrames(Exercise& ex, const FloatFormat& f, const ExactValue& x, const numeric::EncodeResult& r) {
  if (f.layout != Layout::SignExponentMantissa || !r.inexact || r.overflowed || r.underflowed)
    return;
  numeric::EncodeOptions down;
  down.rounding = numeric::Rounding::TowardZero;
  down.overflow = numeric::OverflowMode::Saturate;
  const std::uint64_t kept = numeric::encode(f, x, down).bits;
  const FloatFormat& wide = numeric::formatInfo(FormatId::Fp64);
  const numeric::EncodeResult w = numeric::encode(wide, x, down);
  const int m = f.mantissaBits, wm = wide.mantissaBits;
  if (numeric::classify(f, kept) != numeric::FloatClass::Normal ||
      numeric::classify(wide, w.bits) != numeric::FloatClass::Normal || m + 2 > wm)
    return;
  const int k = std::min(6, wm - m);
  const std::uint64_t fraction = w.bits & lowMask(wm);
  const std::uint64_t extra = (fraction >> (wm - m - k)) & lowMask(k);
  const bool more = (fraction & lowMask(wm - m - k)) != 0 || w.inexact;
  const int g = static_cast<int>((extra >> (k - 1)) & 1u), rb = static_cast<int>((extra >> (k - 2)) & 1u);
  const int s = (extra & lowMask(k - 2)) != 0 || more ? 1 : 0;
  roundingFrames(ex, f, kept, extra, k, g, rb, s, r.bits, more);
}

// ---- the kinds ------------------------------------------------------------

void makeEncode(Exercise& ex, const FloatFormat& f, Rng& rng) {
  const int d = ex.difficulty;
  std::string decimal;
  const std::uint64_t code = randomCode(f, rng, d);
  const double v = numeric::toDouble(f, code);
  const int pick = d == 3 ? below(rng, 3) : -1;
  if (d == 1) {
    decimal = numeric::decode(f, code).exactDecimal;
  } else if (pick == 0 && f.hasInfinity()) {
    // Near the top: just below or beyond the largest finite value.
    decimal = shortDecimal(f.maxFinite() * (0.97 + 0.02 * below(rng, 4)), 3);
  } else if (pick == 1 && f.layout != Layout::UnsignedExponent) {
    // A midpoint between two neighbours: a tie.
    const std::uint64_t next = numeric::nextUp(f, code);
    const auto cls = numeric::classify(f, next);
    if (cls == numeric::FloatClass::Normal || cls == numeric::FloatClass::Subnormal ||
        cls == numeric::FloatClass::Zero)
      decimal = shortDecimal((v + numeric::toDouble(f, next)) / 2, 17);
    else
      decimal = shortDecimal(v, 3);
  } else {
    // A few per cent off a value of the format: it has to be rounded.
    decimal = shortDecimal(v * (1.0 + (1 + below(rng, 9)) / 100.0), 2 + below(rng, 2));
  }
  if (f.layout == Layout::UnsignedExponent && !decimal.empty() && decimal[0] == '-')
    decimal.erase(0, 1);
  const ExactValue x = parsed(decimal);
  const auto r = numeric::encode(f, x);
  ex.question = "Encode " + decimal + " in " + formatLabel(f) +
                ", rounding to nearest (ties to even). Give the bit pattern.";
  ex.parts.push_back(codePart("bits", f, r.bits));
  ex.subjectBits = r.bits;
  explainRounding(f, x, r, ex.steps);
  explainFields(f, r.bits, ex.steps);
  encodingFrames(ex, f, x, r);
}

void makeDecode(Exercise& ex, const FloatFormat& f, Rng& rng) {
  std::uint64_t code = randomCode(f, rng, ex.difficulty);
  if (ex.difficulty == 3 && f.hasInfinity() && rng.below(8) == 0)
    code = f.infinityBits() | (rng.below(2) ? f.signMask() : 0);
  ex.question = "What value does the " + formatLabel(f) + " pattern " + groupedBits(f, code) + " (" +
                numeric::formatBitsHex(f, code) + ") hold? Give it exactly.";
  ex.parts.push_back(valuePart("value", f, code));
  ex.subjectBits = code;
  explainFields(f, code, ex.steps);
}

void makeNeighbours(Exercise& ex, const FloatFormat& f, Rng& rng) {
  std::uint64_t code = 0, up = 0, down = 0;
  for (;;) {
    code = randomCode(f, rng, ex.difficulty);
    if (ex.difficulty == 3 && rng.below(6) == 0)
      code = f.maxFiniteBits(); // the top: inf above it, or nothing
    up = numeric::nextUp(f, code);
    down = numeric::nextDown(f, code);
    const auto upClass = numeric::classify(f, up), downClass = numeric::classify(f, down);
    if (up != code && down != code && upClass != numeric::FloatClass::NaN &&
        downClass != numeric::FloatClass::NaN)
      break;
  }
  const double u = numeric::ulp(f, code);
  ex.question = "x = " + valueWithBits(f, code) + " in " + formatLabel(f) +
                ". Give the next value up, the next value down, and the ULP at x.";
  ex.parts.push_back(codePart("next up", f, up));
  ex.parts.push_back(codePart("next down", f, down));
  ex.parts.push_back(doublePart("ULP at x", u, powerText(u)));
  ex.subjectBits = code;
  explainNeighbours(f, code, up, down, u, ex.steps);
}

// The rounding's animation (Exercise::frames): `kept` is x's pattern with
// the cut-off bits dropped (x rounded toward zero), `extra` the first k bits
// cut off (`more`: further non-zero bits follow them), `key` the codec's
// rounded pattern.
void roundingFrames(Exercise& ex, const FloatFormat& f, std::uint64_t kept, std::uint64_t extra, int k, int g,
                    int r, int s, std::uint64_t key, bool more) {
  const int m = f.mantissaBits;
  const std::string name = formatLabel(f);
  std::string cutText;
  std::vector<CutBit> plain;
  for (int i = k - 1; i >= 0; --i) {
    const int bit = static_cast<int>((extra >> i) & 1u);
    plain.push_back({"", bit});
    cutText += static_cast<char>('0' + bit);
  }
  const int exponentField = static_cast<int>((kept & ~f.signMask()) >> m);
  ex.frames.push_back({"The exact value: sign, exponent field " + std::to_string(exponentField) + " (" +
                           std::to_string(exponentField - f.bias()) + " + bias " + std::to_string(f.bias()) +
                           ") and the first " + std::to_string(m) + " fraction bits fill " + name +
                           "'s cells; the bits after them (" + cutText + (more ? "..., more follow" : "") +
                           ") do not fit and are cut off.",
                       kept, plain, more});
  const std::vector<CutBit> named{{"G", g}, {"R", r}, {"S", s}};
  ex.frames.push_back({"Name the cut-off bits: guard G = " + std::to_string(g) + " (the first), round R = " +
                           std::to_string(r) + " (the second), sticky S = " + std::to_string(s) +
                           (more     ? std::string(" (the OR of all the bits after R)")
                            : k > 3  ? " (the OR of the " + std::to_string(k - 2) + " bits after R)"
                            : k == 3 ? std::string(" (the one bit after R)")
                                     : std::string(" (no bits after R)")) +
                           ".",
                       kept, named});
  const int last = static_cast<int>(kept & 1u);
  const bool up = g == 1 && (r == 1 || s == 1 || last == 1);
  std::string decision;
  if (g == 0)
    decision = "G = 0: less than half an ULP was cut off: round down, the kept bits stay.";
  else if (r == 1 || s == 1)
    decision = "G = 1 and R or S = 1: more than half an ULP was cut off: round up, add 1 to the last kept bit.";
  else if (last == 1)
    decision = "G R S = 1 0 0: exactly half an ULP, a tie; the last kept bit is 1 (odd): round up to the even "
               "neighbour.";
  else
    decision = "G R S = 1 0 0: exactly half an ULP, a tie; the last kept bit is 0 (even): round down, keep it.";
  ex.frames.push_back({decision, kept, named});
  const std::string value = numeric::decode(f, key).exactDecimal;
  ex.frames.push_back({std::string("The rounded result") +
                           (up && ((key & ~f.signMask()) >> m) != static_cast<std::uint64_t>(exponentField)
                                ? " (the carry went into the exponent)"
                                : "") +
                           ": " + groupedBits(f, key) + " = " + numeric::formatBitsHex(f, key) + " = " + value +
                           ".",
                       key, {}});
}

void makeRound(Exercise& ex, const FloatFormat& f, Rng& rng) {
  const int d = ex.difficulty;
  const int m = f.mantissaBits;
  std::uint64_t code = 0;
  for (;;) {
    code = randomCode(f, rng, std::max(d, 2)) & ~f.signMask();
    if (numeric::classify(f, code) == numeric::FloatClass::Normal && code < f.maxFiniteBits())
      break;
  }
  const bool negative = rng.below(2) == 1;
  const int k = d == 1 ? 3 : between(rng, 3, 6);
  std::uint64_t extra = rng.below(1ull << k);
  if (d == 3 && rng.below(2) == 0)
    extra = 1ull << (k - 1); // exactly half an ULP: a tie
  const int e = static_cast<int>(code >> m) - f.bias();
  const std::uint64_t significand = (((1ull << m) | (code & lowMask(m))) << k) | extra;
  const ExactValue x = ExactValue::finite(
      negative, {static_cast<std::uint32_t>(significand), static_cast<std::uint32_t>(significand >> 32)},
      e - m - k, 2);
  const auto r = numeric::encode(f, x);
  const int g = static_cast<int>((extra >> (k - 1)) & 1), rb = static_cast<int>((extra >> (k - 2)) & 1);
  const int s = (extra & lowMask(k - 2)) != 0 ? 1 : 0;
  const std::string binary = binarySignificand(significand, m, k);
  ex.question = "x = " + std::string(negative ? "-" : "") + binary + " x 2^" + std::to_string(e) +
                " (binary; = " + x.toString() + "). Keep " + formatLabel(f) + "'s " + std::to_string(m) +
                " fraction bits: give the guard, round and sticky bits (as three digits G R S) and the "
                "result of rounding to nearest even.";
  AnswerPart grs;
  grs.label = "G R S";
  grs.form = AnswerForm::Digits;
  grs.digits = std::to_string(g) + std::to_string(rb) + std::to_string(s);
  grs.keyText = grs.digits;
  ex.parts.push_back(std::move(grs));
  ex.parts.push_back(codePart("result", f, r.bits));
  ex.subjectBits = r.bits;
  explainGuardRoundSticky(f, significand, m, k, g, rb, s, ex.steps);
  explainFields(f, r.bits, ex.steps);
  roundingFrames(ex, f, code | (negative ? f.signMask() : 0), extra, k, g, rb, s, r.bits);
}

void makeRange(Exercise& ex, const FloatFormat& f, Rng& rng) {
  const bool ftz = ex.difficulty == 3 && f.layout == Layout::SignExponentMantissa;
  numeric::EncodeOptions options;
  options.flushSubnormals = ftz;
  const int minSubExp = f.layout == Layout::SignExponentMantissa ? f.minNormalExponent() - f.mantissaBits
                                                                  : f.minNormalExponent();
  const int maxExp = f.maxFiniteExponent();
  std::vector<int> flushes, overflows;
  constexpr int kItems = 6;
  for (int i = 0; i < kItems; ++i) {
    const double r = 1.0 + static_cast<double>(below(rng, 16)) / 16.0;
    double v = 0;
    switch (below(rng, 5)) {
    case 0: v = std::ldexp(r, minSubExp - between(rng, 1, 3)); break;                      // tiny
    case 1: v = std::ldexp(r, between(rng, minSubExp, f.minNormalExponent())); break;      // small
    case 2: v = std::ldexp(r, between(rng, std::max(minSubExp, -6), std::min(maxExp, 6))); break;
    case 3: v = f.maxFinite() * (0.8 + 0.05 * below(rng, 4)); break;                       // near the top
    default: v = f.maxFinite() * (1.1 + 0.5 * below(rng, 4)); break;                       // beyond
    }
    if (rng.below(2) == 1)
      v = -v;
    const std::string decimal = shortDecimal(v, 2);
    const auto result = numeric::encode(f, parsed(decimal), options);
    ex.items.push_back(decimal);
    const bool flushed = result.underflowed || result.flushed;
    if (flushed)
      flushes.push_back(i + 1);
    if (result.overflowed)
      overflows.push_back(i + 1);
    ex.steps.push_back("(" + std::to_string(i + 1) + ") " + decimal + " -> " +
                       valueWithBits(f, result.bits) +
                       (flushed ? ": flushes to zero" : result.overflowed ? ": overflows" : ""));
  }
  ex.question = "Convert each value to " + formatLabel(f) + " (round to nearest even" +
                (ftz ? ", subnormals flushed to zero (FTZ)" : "") +
                "). Which become zero, and which overflow (go past the largest finite value " +
                shortDecimal(f.maxFinite(), 17) + ": to infinity, NaN or saturation)? Answer with "
                "item numbers, or \"none\".";
  std::string limits = formatLabel(f) + ": largest finite " + shortDecimal(f.maxFinite(), 17) +
                       ", smallest normal 2^" + std::to_string(f.minNormalExponent());
  if (f.layout == Layout::SignExponentMantissa && !ftz)
    limits += ", smallest subnormal 2^" + std::to_string(minSubExp) +
              " (values below half of it round to zero)";
  if (ftz)
    limits += " (under FTZ anything below it becomes zero)";
  ex.steps.insert(ex.steps.begin(), limits + ".");
  ex.parts.push_back(indicesPart("flush to zero", std::move(flushes)));
  ex.parts.push_back(indicesPart("overflow", std::move(overflows)));
}

std::optional<numeric::BlockScheme> mxSchemeFor(FormatId id) {
  for (numeric::BlockScheme s : numeric::allSchemes())
    if (numeric::schemeInfo(s).isMx() && numeric::schemeInfo(s).element == id)
      return s;
  return std::nullopt;
}

void makeMxScale(Exercise& ex, const FloatFormat& f, Rng& rng) {
  const numeric::BlockScheme scheme = *mxSchemeFor(f.id);
  const int d = ex.difficulty;
  constexpr int kItems = 8;
  const int top = between(rng, -6, 6);
  const int rTop = d == 1 ? below(rng, 12) : d == 2 ? below(rng, 16) : 12 + below(rng, 4);
  const int topIndex = below(rng, kItems);
  std::vector<double> values;
  for (int i = 0; i < kItems; ++i) {
    const int r16 = i == topIndex ? rTop : below(rng, 16);
    const int e = i == topIndex ? top : top - between(rng, 1, 5);
    double v = std::ldexp(1.0 + r16 / 16.0, e);
    if (rng.below(2) == 1)
      v = -v;
    values.push_back(v);
    ex.items.push_back(shortDecimal(v, 17));
  }
  const numeric::QuantizedTensor q = numeric::quantize(values, scheme);
  const numeric::QuantBlock& block = q.blocks.front();
  std::vector<int> clipped;
  for (int i = 0; i < kItems; ++i)
    if (q.flags[static_cast<std::size_t>(i)] & numeric::kSaturated)
      clipped.push_back(i + 1);
  const FloatFormat& e8m0 = numeric::formatInfo(FormatId::E8M0);
  ex.question = "These " + std::to_string(kItems) + " values form one " +
                std::string(numeric::schemeInfo(scheme).name) + " block (" + formatLabel(f) +
                " elements; a block is 32 values, shortened here). Give the shared E8M0 scale X "
                "(the spec's rule, X = 2^(floor(log2 amax) - emax of the element)) and the items "
                "whose value / X is clipped to the element's largest value (numbers, or \"none\").";
  ex.parts.push_back(codePart("shared scale X", e8m0, block.scaleBits));
  ex.parts.push_back(indicesPart("clipped", clipped));
  ex.subjectBits = block.scaleBits;
  explainMx(f, values, q, ex.steps);
}

void makeLossScale(Exercise& ex, const FloatFormat& f, Rng& rng) {
  constexpr std::array kPresets{"pytorch", "keras", "apex", "deepspeed", "megatron"};
  const int d = ex.difficulty;
  const char* preset = d == 1 ? kPresets[below(rng, 3)] : kPresets[below(rng, 5)];
  amp::LossScaler scaler(amp::scalerPreset(preset));
  const int interval = scaler.config().growthInterval;
  const int segments = d == 1 ? 3 : d == 2 ? 4 : 6;
  std::vector<std::pair<bool, int>> runs; // (overflow?, count)
  for (int i = 0; i < segments; ++i) {
    if (i % 2 == 0) {
      int n = 0;
      switch (below(rng, 4)) {
      case 0: n = interval; break;
      case 1: n = interval - 1; break;
      case 2: n = interval + below(rng, interval); break;
      default: n = 1 + below(rng, interval); break;
      }
      if (d == 1)
        n = interval * between(rng, 1, 2);
      runs.emplace_back(false, n);
    } else {
      runs.emplace_back(true, d == 1 ? 1 : between(rng, 1, 3));
    }
  }
  std::string sequence;
  std::int64_t step = 0;
  int skipped = 0;
  std::vector<std::string> events;
  int eventCount = 0;
  for (const auto& [overflow, count] : runs) {
    sequence += (sequence.empty() ? "" : ", ") + std::to_string(count) + " " +
                (overflow ? (count == 1 ? "overflowing step" : "overflowing steps")
                          : (count == 1 ? "finite step" : "finite steps"));
    for (int i = 0; i < count; ++i) {
      ++step;
      const amp::ScalerUpdate u = scaler.update(step, overflow);
      if (u.skipped)
        ++skipped;
      if (u.grew || u.backedOff || overflow) {
        std::string what;
        if (u.grew)
          what = "growth after " + std::to_string(interval) + " counted finite steps, " +
                 amp::formatScale(u.scaleBefore) + " -> " + amp::formatScale(u.scaleAfter);
        else if (u.backedOff)
          what = "overflow, step skipped, back off " + amp::formatScale(u.scaleBefore) + " -> " +
                 amp::formatScale(u.scaleAfter);
        else
          what = std::string("overflow, step ") + (u.skipped ? "skipped" : "applied") +
                 "; hysteresis keeps the scale at " + amp::formatScale(u.scaleAfter) + " and resets the count";
        if (++eventCount <= 14)
          events.push_back("Step " + std::to_string(step) + ": " + what + ".");
      }
      if (!u.stopReason.empty())
        break;
    }
  }
  ex.question = "Gradients are held in " + formatLabel(f) + " under the loss scaler " +
                amp::describeScaler(scaler.config()) + ". From its initial scale, training runs " +
                sequence + ". What is the loss scale after the last step, and how many optimizer "
                "steps were skipped?";
  ex.parts.push_back(doublePart("loss scale", scaler.scale(), amp::formatScale(scaler.scale())));
  ex.parts.push_back(doublePart("skipped steps", skipped));
  ex.steps.push_back("Start at " + amp::formatScale(scaler.config().initScale) + ".");
  ex.steps.insert(ex.steps.end(), events.begin(), events.end());
  if (eventCount > 14)
    ex.steps.push_back("... and " + std::to_string(eventCount - 14) + " more events.");
  if (eventCount == 0)
    ex.steps.push_back("The scale never changed.");
  ex.steps.push_back("Every overflowing step is skipped (" + std::to_string(skipped) +
                     "); the scale ends at " + amp::formatScale(scaler.scale()) + ".");
}

} // namespace

std::span<const ExerciseKind> allExerciseKinds() { return kKinds; }

std::string_view exerciseKindName(ExerciseKind kind) { return kKindNames[static_cast<std::size_t>(kind)].name; }
std::string_view exerciseKindTitle(ExerciseKind kind) { return kKindNames[static_cast<std::size_t>(kind)].title; }

std::optional<ExerciseKind> parseExerciseKind(std::string_view name) {
  for (ExerciseKind k : kKinds)
    if (exerciseKindName(k) == name)
      return k;
  return std::nullopt;
}

std::vector<FormatId> exerciseFormats() {
  std::vector<FormatId> formats(numeric::explorerFormats().begin(), numeric::explorerFormats().end());
  formats.insert(formats.end(), numeric::microscalingFormats().begin(), numeric::microscalingFormats().end());
  return formats;
}

bool kindAppliesTo(ExerciseKind kind, FormatId id) {
  const FloatFormat& f = numeric::formatInfo(id);
  switch (kind) {
  case ExerciseKind::Encode:
  case ExerciseKind::Decode:
  case ExerciseKind::Neighbours: return true;
  case ExerciseKind::Round: return f.layout == Layout::SignExponentMantissa;
  case ExerciseKind::Range: return f.layout != Layout::UnsignedExponent;
  case ExerciseKind::MxScale: return mxSchemeFor(id).has_value();
  case ExerciseKind::LossScale: return f.layout == Layout::SignExponentMantissa && f.hasNan();
  }
  return false;
}

Exercise generateExercise(FormatId format, ExerciseKind kind, std::uint64_t seed, int difficulty) {
  if (!kindAppliesTo(kind, format))
    throw std::invalid_argument("'" + std::string(exerciseKindName(kind)) + "' exercises do not apply to " +
                                std::string(numeric::formatInfo(format).name));
  Exercise ex;
  ex.kind = kind;
  ex.format = format;
  ex.difficulty = std::clamp(difficulty, kMinDifficulty, kMaxDifficulty);
  ex.seed = seed;
  Rng rng(seed);
  const FloatFormat& f = numeric::formatInfo(format);
  switch (kind) {
  case ExerciseKind::Encode: makeEncode(ex, f, rng); break;
  case ExerciseKind::Decode: makeDecode(ex, f, rng); break;
  case ExerciseKind::Neighbours: makeNeighbours(ex, f, rng); break;
  case ExerciseKind::Round: makeRound(ex, f, rng); break;
  case ExerciseKind::Range: makeRange(ex, f, rng); break;
  case ExerciseKind::MxScale: makeMxScale(ex, f, rng); break;
  case ExerciseKind::LossScale: makeLossScale(ex, f, rng); break;
  }
  return ex;
}

std::uint64_t sheetItemSeed(std::uint64_t seed, FormatId format, ExerciseKind kind, int index) {
  // FNV-1a of the format's name: a user-defined format gets its own stream.
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (char c : numeric::formatInfo(format).name)
    h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  h ^= static_cast<std::uint64_t>(kind) << 56;
  return data::detail::mixSeed(seed ^ h, static_cast<std::uint64_t>(index));
}

Sheet generateSheet(const SheetSpec& spec) {
  if (spec.count < 1 || spec.count > kMaxSheetItems)
    throw std::invalid_argument("a sheet has 1 to " + std::to_string(kMaxSheetItems) + " items, not " +
                                std::to_string(spec.count));
  Sheet sheet;
  sheet.spec = spec;
  sheet.title = formatLabel(numeric::formatInfo(spec.format)) + ": " +
                std::string(exerciseKindTitle(spec.kind)) + ", seed " + std::to_string(spec.seed);
  for (int i = 0; i < spec.count; ++i)
    sheet.items.push_back(generateExercise(spec.format, spec.kind,
                                           sheetItemSeed(spec.seed, spec.format, spec.kind, i), spec.difficulty));
  return sheet;
}

} // namespace mantissa::lessons
