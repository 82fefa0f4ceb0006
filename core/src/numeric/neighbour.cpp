// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/numeric/neighbour.h>

namespace mantissa::numeric {

namespace {

// `bits` has no neighbour in the direction `sign` (+1 up, -1 down): what a
// value twice as far out converts to says what lies beyond.
Neighbour beyondTheEnd(const FloatFormat& format, std::uint64_t bits, int sign,
                       const EncodeOptions& conversion) {
  const FloatClass cls = classify(format, bits);
  if (cls == FloatClass::NaN || cls == FloatClass::Infinity)
    return {NeighbourKind::None, bits};
  const double end = toDouble(format, bits);
  // Beyond the end in the direction of travel: twice the end's magnitude
  // (E8M0's and INT8's ends are non-zero; a zero end cannot be stuck).
  const double past = end != 0.0 ? 2.0 * end : double(sign);
  if ((past > end) != (sign > 0))
    return {NeighbourKind::None, bits}; // stuck at the inner end (E8M0's 2^-127 going down)
  EncodeOptions options = conversion;
  options.rounding = Rounding::NearestEven; // a value this far out is no rounding question
  const EncodeResult converted = encode(format, past, options);
  switch (classify(format, converted.bits)) {
  case FloatClass::NaN: return {NeighbourKind::NaN, converted.bits};
  case FloatClass::Infinity: return {NeighbourKind::Infinity, converted.bits};
  default: return {NeighbourKind::Saturates, converted.bits};
  }
}

Neighbour step(const FloatFormat& format, std::uint64_t bits, std::uint64_t next, int sign,
               const EncodeOptions& conversion) {
  if (next != bits) {
    return {classify(format, next) == FloatClass::Infinity ? NeighbourKind::Infinity
                                                           : NeighbourKind::Value,
            next};
  }
  return beyondTheEnd(format, bits, sign, conversion);
}

} // namespace

Neighbour neighbourAbove(const FloatFormat& format, std::uint64_t bits,
                         const EncodeOptions& conversion) {
  return step(format, bits, nextUp(format, bits), +1, conversion);
}

Neighbour neighbourBelow(const FloatFormat& format, std::uint64_t bits,
                         const EncodeOptions& conversion) {
  return step(format, bits, nextDown(format, bits), -1, conversion);
}

} // namespace mantissa::numeric
