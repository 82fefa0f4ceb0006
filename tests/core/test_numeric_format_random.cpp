// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Ten million random doubles per format (format_oracle_cases.h: the named
// formats of at most 16 bits and the user-defined specs), rounded to nearest
// even with overflow to inf/NaN and with saturation, against the exact
// decoder's nearest-value search (format_oracle.h). The doubles cover the
// format's range and three binades either side, both signs; one in 64 also
// goes through the exact (big integer) encoder. One test per format, so
// ctest -j runs them side by side; sanitizer builds take 1 in 100.
#include "format_oracle_cases.h"

#include <mantissa/build_flags.h>
#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/format_spec.h>

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace {

using namespace mantissa::numeric;
namespace fo = format_oracle;

int doublesPerFormat() { return mantissa::builtWithSanitizer() ? 100'000 : 10'000'000; }

class FormatRandom : public ::testing::TestWithParam<fo::Definition> {};

TEST_P(FormatRandom, RoundsAsTheNearestValueSearch) {
  const fo::Definition d = GetParam();
  const FormatParse parsed = parseFormatSpec(d.name);
  ASSERT_TRUE(parsed.format) << parsed.error;
  const FloatFormat& f = *parsed.format;
  const fo::ValueSet set(d);
  std::mt19937_64 rng(0xf0e1d2c3u + static_cast<unsigned>(d.bits() * 131 + d.bias));
  std::uniform_int_distribution<int> exps(set.values[1].exp - 3, set.values.back().exp + d.m + 3);
  EncodeOptions infinity, saturate;
  saturate.overflow = OverflowMode::Saturate;
  std::uint64_t mismatches = 0;
  for (int i = 0; i < doublesPerFormat(); ++i) {
    const std::uint64_t r = rng();
    double x = std::ldexp(1.0 + static_cast<double>(r >> 12) / 4503599627370496.0, exps(rng));
    x = (r & 1u) ? -x : x;
    const bool sat = (r & 2u) != 0;
    const fo::Exact want = set.nearest(x, sat ? fo::Overflow::Saturate : fo::Overflow::Infinity);
    const EncodeOptions& o = sat ? saturate : infinity;
    if (!(fo::decode(d, encode(f, x, o).bits) == want)) {
      if (++mismatches < 5)
        ADD_FAILURE() << d.name << ": " << std::hexfloat << x << " saturate=" << sat;
    }
    if ((r & 0xfc) == 0 && !(fo::decode(d, encode(f, ExactValue::fromDouble(x), o).bits) == want)) {
      if (++mismatches < 5)
        ADD_FAILURE() << d.name << " (exact path): " << std::hexfloat << x;
    }
  }
  EXPECT_EQ(mismatches, 0u) << d.name;
}

std::vector<fo::Definition> storageFormats() {
  std::vector<fo::Definition> out;
  for (const auto& d : fo::kDefinitions)
    if (d.bits() <= 16)
      out.push_back(d);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Formats, FormatRandom, ::testing::ValuesIn(storageFormats()),
                         [](const ::testing::TestParamInfo<fo::Definition>& param) {
                           return "f" + std::to_string(param.index);
                         });

} // namespace
