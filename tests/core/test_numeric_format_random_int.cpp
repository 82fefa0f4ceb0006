// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The named 8- and 4-bit formats that are not sign/exponent/mantissa floats,
// rounded against a nearest-value search written here from their
// definitions (OCP MX v1.0), with ten million random doubles each (1 in 100
// under sanitizers) and every tie and boundary:
//   int8  two's complement i x 2^-6, i in -128..127 (MX INT8 element);
//   int4  two's complement i x 2^-2, i in -8..7;
//   ue8m0 2^(c - 127), c in 0..254, code 255 NaN; no sign, no zero.
// Round to nearest, ties to the even integer (or even code); the integers
// clamp at both ends in either overflow mode; E8M0 overflows to NaN, or to
// 2^127 when saturating, and anything below 2^-127 (zero included) gives
// code 0. Every step of the search is exact: scaling by a power of two,
// floor, and a difference of two doubles less than 1 apart.
#include <mantissa/build_flags.h>
#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/format.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

using namespace mantissa::numeric;

int doublesPerFormat() { return mantissa::builtWithSanitizer() ? 100'000 : 10'000'000; }

// The code an `bits`-bit two's complement i x 2^-fraction rounds x to.
std::uint64_t nearestInt(double x, int bits, int fraction) {
  if (std::isinf(x))
    x = std::copysign(std::ldexp(1.0, bits), x); // past either end
  const double t = std::ldexp(x, fraction); // exact
  const double lo = std::floor(t);
  const double rest = t - lo; // exact: 0 <= rest < 1
  double i = rest < 0.5 ? lo : rest > 0.5 ? lo + 1 : (std::fmod(lo, 2.0) == 0.0 ? lo : lo + 1);
  const double top = std::ldexp(1.0, bits - 1) - 1, bottom = -std::ldexp(1.0, bits - 1);
  i = std::fmin(std::fmax(i, bottom), top);
  const auto code = static_cast<std::int64_t>(i);
  return static_cast<std::uint64_t>(code) & ((std::uint64_t(1) << bits) - 1);
}

// The code E8M0 rounds a positive x to (x = m 2^k, m in [0.5, 1): between
// 2^(k-1) and 2^k, midpoint 0.75 x 2^k).
std::uint64_t nearestE8m0(double x, bool saturate) {
  if (std::isinf(x) && x > 0)
    return saturate ? 0xfe : 0xff;
  if (!(x >= 0.0))
    return 0xff; // negative or NaN
  if (x == 0.0 || x < std::ldexp(1.0, -127))
    return 0x00;
  int k = 0;
  const double m = std::frexp(x, &k);
  int c = m < 0.75 ? k - 1 + 127 : m > 0.75 ? k + 127 : ((k - 1 + 127) % 2 == 0 ? k - 1 + 127 : k + 127);
  if (c > 254)
    return saturate ? 0xfe : 0xff;
  return std::uint64_t(c);
}

struct Case {
  FormatId id;
  int bits, fraction; // integers only
};

void check(const Case& c, double x, std::uint64_t& mismatches) {
  const FloatFormat& f = formatInfo(c.id);
  for (const bool sat : {false, true}) {
    EncodeOptions o;
    if (sat)
      o.overflow = OverflowMode::Saturate;
    const std::uint64_t want =
        c.id == FormatId::E8M0 ? nearestE8m0(x, sat) : nearestInt(x, c.bits, c.fraction);
    const std::uint64_t got = encode(f, x, o).bits;
    if (got != want && ++mismatches < 6)
      ADD_FAILURE() << f.name << ": " << std::hexfloat << x << " saturate=" << sat << " gave 0x"
                    << std::hex << got << ", nearest is 0x" << want;
  }
}

class NonFloatRandom : public ::testing::TestWithParam<Case> {};

TEST_P(NonFloatRandom, RoundsAsTheNearestValueSearch) {
  const Case c = GetParam();
  const bool e8m0 = c.id == FormatId::E8M0;
  // Random doubles over the range and three binades either side.
  const int lo = e8m0 ? -130 : -c.fraction - 3, hi = e8m0 ? 130 : c.bits - 1 - c.fraction + 3;
  std::mt19937_64 rng(0x5eed0000u + unsigned(c.bits * 7 + c.fraction));
  std::uniform_int_distribution<int> exps(lo, hi);
  std::uint64_t mismatches = 0;
  for (int i = 0; i < doublesPerFormat(); ++i) {
    const std::uint64_t r = rng();
    double x = std::ldexp(1.0 + static_cast<double>(r >> 12) / 4503599627370496.0, exps(rng));
    check(c, (r & 1u) ? -x : x, mismatches);
  }
  // Every value, every tie between neighbours, and the doubles either side.
  std::vector<double> edges;
  if (e8m0) {
    for (int k = -127; k <= 128; ++k)
      for (double v : {std::ldexp(1.0, k), std::ldexp(1.5, k - 1)})
        edges.push_back(v);
  } else {
    const int n = 1 << c.bits;
    for (int i = -n; i <= n; ++i)
      for (double v : {std::ldexp(double(i), -c.fraction), std::ldexp(i + 0.5, -c.fraction)})
        edges.push_back(v);
  }
  for (const double v : edges)
    for (const double x : {v, std::nextafter(v, -1e308), std::nextafter(v, 1e308)})
      check(c, x, mismatches);
  const double inf = std::numeric_limits<double>::infinity();
  for (const double x : {0.0, -0.0, inf, -inf, 1e300, -1e300, 1e-300})
    check(c, x, mismatches);
  EXPECT_EQ(mismatches, 0u) << formatInfo(c.id).name;
}

INSTANTIATE_TEST_SUITE_P(Formats, NonFloatRandom,
                         ::testing::Values(Case{FormatId::Int8, 8, 6}, Case{FormatId::Int4, 4, 2},
                                           Case{FormatId::E8M0, 8, 0}),
                         [](const ::testing::TestParamInfo<Case>& p) {
                           return p.index == 0 ? "int8" : p.index == 1 ? "int4" : "ue8m0";
                         });

} // namespace
