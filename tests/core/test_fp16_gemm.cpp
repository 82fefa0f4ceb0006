// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The FP16 GEMM (kernels/fp16_gemm.h):
//  - fp16Fma against exact integer arithmetic (every finite FP16 value and
//    hard cases: ties, sticky bits, subnormals, overflow), and IEEE special
//    cases;
//  - the plain-loop reference against hand-computed sums;
//  - the blocked kernel with portable vector ops against the reference, bit
//    for bit, per N_C and over shapes that are not multiples of the blocks;
//  - the AVX512_FP16 kernel against the portable one (skipped, with the
//    reason, on CPUs without AVX512_FP16);
//  - the numerics table against its documented bounds.
#include <mantissa/kernels/fp16_gemm.h>
#include <mantissa/kernels/matmul.h>
#include <mantissa/tensor/tensor.h>
#include <mantissa/lessons/demo_registry.h>
#include <mantissa/numeric/convert.h>
#include <mantissa/numeric/cpu_features.h>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace mantissa;
using kernels::MatmulShape;
using kernels::Trans;

// ---------------------------------------------------------------------------
// Oracle: exact value of a*b + c on the 2^-48 grid in 128-bit integers,
// rounded to FP16 with integer operations only.
// ---------------------------------------------------------------------------

__extension__ typedef __int128 i128;

struct Decoded {
  bool negative;
  std::int64_t significand; // value = significand * 2^exponent
  int exponent;             // >= -24
};

Decoded decode(std::uint16_t h) {
  const int e = (h >> 10) & 0x1F;
  const std::int64_t m = h & 0x3FF;
  if (e == 0)
    return {(h & 0x8000) != 0, m, -24};
  return {(h & 0x8000) != 0, m | 0x400, e - 25};
}

bool finite(std::uint16_t h) {
  return ((h >> 10) & 0x1F) != 0x1F;
}

struct OracleResult {
  std::uint16_t bits;
  bool tie = false;        // the exact sum was a midpoint
  bool subnormal = false;  // the result is subnormal (non-zero)
  bool overflow = false;
};

OracleResult oracleFma(std::uint16_t a, std::uint16_t b, std::uint16_t c) {
  const Decoded da = decode(a), db = decode(b), dc = decode(c);
  i128 product = static_cast<i128>(da.significand * db.significand) << (da.exponent + db.exponent + 48);
  if (da.negative != db.negative)
    product = -product;
  i128 addend = static_cast<i128>(dc.significand) << (dc.exponent + 48);
  if (dc.negative)
    addend = -addend;
  const i128 sum = product + addend;
  OracleResult r{};
  if (sum == 0) {
    // Exact zero: -0 only when both terms are zeros of negative sign.
    const bool productNegZero = da.significand * db.significand == 0 && (da.negative != db.negative);
    const bool cNegZero = dc.significand == 0 && dc.negative;
    const bool bothZero = da.significand * db.significand == 0 && dc.significand == 0;
    r.bits = (bothZero && productNegZero && cNegZero) ? 0x8000 : 0x0000;
    return r;
  }
  const bool negative = sum < 0;
  const i128 mag = negative ? -sum : sum;
  int length = 0; // bit length
  for (i128 x = mag; x != 0; x >>= 1)
    ++length;
  const int exponent = length - 1 - 48;                   // of the leading bit
  const int shift = std::max(exponent - 10, -24) + 48;    // ulp on the 2^-48 grid
  i128 q = mag >> shift;
  const i128 rem = mag - (q << shift);
  const i128 half = i128(1) << (shift - 1);
  r.tie = rem == half;
  if (rem > half || (rem == half && (q & 1) != 0))
    ++q;
  std::int64_t bits = static_cast<std::int64_t>(shift - 24) * 1024 + static_cast<std::int64_t>(q);
  if (bits >= 0x7C00) {
    bits = 0x7C00;
    r.overflow = true;
  }
  r.subnormal = bits > 0 && bits < 0x400;
  r.bits = static_cast<std::uint16_t>(bits | (negative ? 0x8000 : 0));
  return r;
}

bool isNanHalf(std::uint16_t h) {
  return (h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0;
}

// The naive alternative: FP32 FMA, then FP32 -> FP16. Rounds twice.
std::uint16_t viaFp32(std::uint16_t a, std::uint16_t b, std::uint16_t c) {
  return numeric::f32ToF16(std::fma(numeric::f16ToF32(a), numeric::f16ToF32(b), numeric::f16ToF32(c)));
}

TEST(Fp16Fma, OracleMatchesWorkedExamples) {
  // The oracle itself, on sums done by hand.
  EXPECT_EQ(oracleFma(0x3C00, 0x3C00, 0x3C00).bits, 0x4000); // 1*1+1 = 2
  EXPECT_EQ(oracleFma(0x1000, 0x3C00, 0x3C00).bits, 0x3C00); // 1 + 2^-11: tie, to even 1
  EXPECT_TRUE(oracleFma(0x1000, 0x3C00, 0x3C00).tie);
  EXPECT_EQ(oracleFma(0x1600, 0x3C00, 0x3C00).bits, 0x3C02); // 1 + 3*2^-11: tie, to even 1+2^-9
  EXPECT_EQ(oracleFma(0x7BFF, 0x4000, 0xFBFF).bits, 0x7BFF); // 65504*2 - 65504 = 65504, no overflow
  EXPECT_EQ(oracleFma(0x7BFF, 0x3C00, 0x5000).bits, 0x7C00); // 65504 + 32 = 65536 > max: inf
  EXPECT_EQ(oracleFma(0x0001, 0x3800, 0x0000).bits, 0x0000); // 2^-25: tie, to even 0
  EXPECT_EQ(oracleFma(0x0003, 0x3800, 0x0000).bits, 0x0002); // 1.5*2^-24: tie, to even 2*2^-24
  EXPECT_EQ(oracleFma(0x0C00, 0x0C00, 0x0000).bits, 0x0001); // 2^-12 * 2^-12 = 2^-24
}

TEST(Fp16Fma, EqualsExactArithmeticOnEveryFiniteValueAndHardCases) {
  // Every finite FP16 a against fixed (b, c) pairs spanning the range.
  const std::uint16_t bs[] = {0x3C00, 0xBC00, 0x0001, 0x03FF, 0x0400, 0x3555, 0x7BFF, 0x4248, 0x1400, 0xC900};
  const std::uint16_t cs[] = {0x0000, 0x8000, 0x0001, 0x8401, 0x3C00, 0xBC01, 0x7BFF, 0xFBFF, 0x2E66, 0x6400};
  std::int64_t checked = 0;
  for (std::uint32_t a = 0; a < 65536; ++a) {
    if (!finite(static_cast<std::uint16_t>(a)))
      continue;
    for (auto b : bs)
      for (auto c : cs) {
        const auto want = oracleFma(static_cast<std::uint16_t>(a), b, c).bits;
        const auto got = kernels::fp16Fma(static_cast<std::uint16_t>(a), b, c);
        ASSERT_EQ(got, want) << std::hex << "a=" << a << " b=" << b << " c=" << c;
        ++checked;
      }
  }
  // Random triples, two thirds of them aimed at cancellation and at the
  // rounding boundaries (c near -a*b, or a*b scaled by a power of two).
  std::mt19937_64 rng(7);
  std::int64_t ties = 0, subnormals = 0, overflows = 0, doubleRoundingTraps = 0;
  for (int i = 0; i < 3'000'000; ++i) {
    std::uint16_t a, b, c;
    do {
      a = static_cast<std::uint16_t>(rng());
      b = static_cast<std::uint16_t>(rng());
    } while (!finite(a) || !finite(b));
    const double p = double(numeric::f16ToF32(a)) * double(numeric::f16ToF32(b));
    switch (i % 3) {
    case 0: c = static_cast<std::uint16_t>(rng()); break;
    case 1: c = static_cast<std::uint16_t>(numeric::f32ToF16(static_cast<float>(-p)) + int(rng() % 9) - 4); break;
    default: c = numeric::f32ToF16(static_cast<float>(std::ldexp(p, int(rng() % 25) - 12)));
    }
    if (!finite(c))
      continue;
    const OracleResult want = oracleFma(a, b, c);
    const auto got = kernels::fp16Fma(a, b, c);
    ASSERT_EQ(got, want.bits) << std::hex << "a=" << a << " b=" << b << " c=" << c;
    ties += want.tie;
    subnormals += want.subnormal;
    overflows += want.overflow;
    doubleRoundingTraps += viaFp32(a, b, c) != want.bits;
    ++checked;
  }
  // The cases that make an FP16 FMA hard were really exercised.
  EXPECT_GT(ties, 10'000);
  EXPECT_GT(subnormals, 10'000);
  EXPECT_GT(overflows, 10'000);
  EXPECT_GT(doubleRoundingTraps, 20) << "cases where FP32 FMA + rounding to FP16 is wrong";
  RecordProperty("checked", std::to_string(checked));
}

TEST(Fp16Fma, SpecialValuesFollowIeee) {
  const std::uint16_t inf = 0x7C00, ninf = 0xFC00, nan = 0x7E00, one = 0x3C00, two = 0x4000, zero = 0;
  EXPECT_TRUE(isNanHalf(kernels::fp16Fma(inf, zero, one)));  // inf * 0
  EXPECT_TRUE(isNanHalf(kernels::fp16Fma(inf, one, ninf)));  // inf - inf
  EXPECT_TRUE(isNanHalf(kernels::fp16Fma(one, one, nan)));
  EXPECT_TRUE(isNanHalf(kernels::fp16Fma(nan, one, one)));
  EXPECT_EQ(kernels::fp16Fma(inf, two, one), inf);
  EXPECT_TRUE(isNanHalf(kernels::fp16Fma(ninf, two, inf))); // -inf + inf
  EXPECT_EQ(kernels::fp16Fma(one, two, ninf), ninf);
  EXPECT_EQ(kernels::fp16Fma(0x8000, one, 0x8000), 0x8000); // -0 + -0 = -0
  EXPECT_EQ(kernels::fp16Fma(0x8000, one, zero), zero);     // -0 + +0 = +0
  EXPECT_EQ(kernels::fp16Fma(one, one, 0xBC00), zero);      // 1 - 1 = +0
}

// ---------------------------------------------------------------------------
// The reference: the definition, against sums done by hand
// ---------------------------------------------------------------------------

std::uint16_t h(float v) {
  return numeric::f32ToF16(v);
}

TEST(Fp16GemmReference, PromotionEveryNcProductsAsDefined) {
  // One output, products 2048, 1, 1, 1 (A = [2048 1 1 1], B = ones).
  // In FP16 2048 + 1 is a tie between 2048 and 2050: to even, 2048.
  const std::vector<std::uint16_t> a{h(2048), h(1), h(1), h(1)}, b{h(1), h(1), h(1), h(1)};
  const MatmulShape s{1, 1, 4};
  float c = -1;
  kernels::fp16GemmReference(s, a.data(), b.data(), &c, kernels::kFp16NeverPromote);
  EXPECT_EQ(c, 2048.0f); // every +1 lost
  kernels::fp16GemmReference(s, a.data(), b.data(), &c, 1);
  EXPECT_EQ(c, 2051.0f); // every product in FP32
  kernels::fp16GemmReference(s, a.data(), b.data(), &c, 2);
  EXPECT_EQ(c, 2050.0f); // chunks {2048, 1} -> 2048 and {1, 1} -> 2
  kernels::fp16GemmReference(s, a.data(), b.data(), &c, 3);
  EXPECT_EQ(c, 2049.0f); // {2048, 1, 1} -> 2048 and {1} -> 1
  // Accumulating starts from C: 0.5 + 2051 in FP32.
  c = 0.5f;
  kernels::fp16GemmReference(s, a.data(), b.data(), &c, 1, true);
  EXPECT_EQ(c, 2051.5f);
}

TEST(Fp16GemmReference, OrderIsKAscendingPerColumn) {
  // The same products in two orders, pure FP16: [1, 1, 2048] sums to
  // 2 + 2048 = 2050 exactly; [2048, 1, 1] loses each 1 (2049 is a tie
  // between 2048 and 2050, to even 2048).
  const std::vector<std::uint16_t> up{h(1), h(1), h(2048)}, down{h(2048), h(1), h(1)};
  const std::vector<std::uint16_t> ones{h(1), h(1), h(1)};
  const MatmulShape s{1, 1, 3};
  float c = 0;
  kernels::fp16GemmReference(s, up.data(), ones.data(), &c, kernels::kFp16NeverPromote);
  EXPECT_EQ(c, 2050.0f);
  kernels::fp16GemmReference(s, down.data(), ones.data(), &c, kernels::kFp16NeverPromote);
  EXPECT_EQ(c, 2048.0f);
}

// ---------------------------------------------------------------------------
// Blocked kernel (portable vector ops) == reference, bit for bit
// ---------------------------------------------------------------------------

struct Case {
  std::int64_t m, n, k;
  Trans ta, tb;
};

std::vector<std::uint16_t> randomHalves(std::size_t count, std::mt19937_64& rng, bool hard) {
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  const std::uint16_t specials[] = {0x7BFF, 0xFBFF, 0x0001, 0x83FF, 0x0400, 0x8000, 0x7C00, 0x5BFF};
  std::vector<std::uint16_t> v(count);
  for (auto& x : v) {
    x = numeric::f32ToF16(u(rng));
    if (hard && rng() % 50 == 0)
      x = specials[rng() % 8];
  }
  return v;
}

bool sameResult(float x, float y) {
  return (std::isnan(x) && std::isnan(y)) || std::bit_cast<std::uint32_t>(x) == std::bit_cast<std::uint32_t>(y);
}

void expectBlockedEqualsReference(kernels::Fp16GemmIsa isa, int nc, const Case& cs, bool hard,
                                  bool accumulate) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(cs.m * 131 + cs.n * 17 + cs.k + nc));
  const MatmulShape s{cs.m, cs.n, cs.k, cs.ta, cs.tb};
  const auto a = randomHalves(static_cast<std::size_t>(cs.m * cs.k), rng, hard);
  const auto b = randomHalves(static_cast<std::size_t>(cs.k * cs.n), rng, hard);
  std::vector<float> start(static_cast<std::size_t>(cs.m * cs.n));
  for (auto& x : start)
    x = std::uniform_real_distribution<float>(-8, 8)(rng);
  std::vector<float> want = start, got = start;
  kernels::fp16GemmReference(s, a.data(), b.data(), want.data(), nc, accumulate);
  kernels::Fp16Gemm gemm(s, nc, isa);
  gemm.execute(a.data(), b.data(), got.data(), accumulate);
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_TRUE(sameResult(got[i], want[i]))
        << "element " << i / cs.n << "," << i % cs.n << ": " << got[i] << " vs " << want[i];
}

const Case kCases[] = {
    {37, 70, 300, Trans::No, Trans::No},  // nothing a multiple of 8, 64, 256
    {9, 65, 517, Trans::Yes, Trans::No},  // dW-like (transposed A), 3 K blocks
    {130, 3, 260, Trans::No, Trans::Yes}, // dX-like, two row blocks, one narrow panel
    {1, 129, 33, Trans::Yes, Trans::Yes},
};

class Fp16GemmPortable : public ::testing::TestWithParam<int> {};

TEST_P(Fp16GemmPortable, EqualsReferenceBitForBit) {
  for (const Case& cs : kCases)
    expectBlockedEqualsReference(kernels::Fp16GemmIsa::Portable, GetParam(), cs, false, false);
}

TEST_P(Fp16GemmPortable, EqualsReferenceWithSubnormalsOverflowAndAccumulate) {
  expectBlockedEqualsReference(kernels::Fp16GemmIsa::Portable, GetParam(), kCases[0], true, true);
  expectBlockedEqualsReference(kernels::Fp16GemmIsa::Portable, GetParam(), kCases[1], true, false);
}

// N_C of the table, "never" (0), and N_C that are not powers of two, or
// larger than a K block (the FP16 partial sums then cross K blocks).
INSTANTIATE_TEST_SUITE_P(PromoteEvery, Fp16GemmPortable,
                         ::testing::Values(1, 16, 32, 64, 128, 256, kernels::kFp16NeverPromote, 3, 300),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return p.param == 0 ? std::string("never") : "N" + std::to_string(p.param);
                         });

// ---------------------------------------------------------------------------
// AVX512_FP16 kernel == portable kernel (only where the CPU has it)
// ---------------------------------------------------------------------------

TEST(Fp16GemmAvx512, EqualsReferenceBitForBitForEveryNc) {
  if (!kernels::fp16GemmHardwareAvailable())
    GTEST_SKIP() << "this CPU has no AVX512_FP16 (CPUID leaf 7 EDX bit 23): the VFMADD231PH "
                    "kernel did not run";
  for (int nc : {1, 16, 32, 64, 128, 256, kernels::kFp16NeverPromote, 3, 300}) {
    for (const Case& cs : kCases)
      expectBlockedEqualsReference(kernels::Fp16GemmIsa::Avx512Fp16, nc, cs, false, false);
    expectBlockedEqualsReference(kernels::Fp16GemmIsa::Avx512Fp16, nc, kCases[0], true, true);
  }
}

TEST(Fp16GemmAvx512, RefusedWhereTheCpuHasNoAvx512Fp16) {
  if (kernels::fp16GemmHardwareAvailable())
    GTEST_SKIP() << "this CPU has AVX512_FP16";
  EXPECT_FALSE(numeric::cpuFeatures().avx512fp16 && kernels::fp16GemmHardwareAvailable());
  try {
    kernels::Fp16Gemm g(MatmulShape{8, 8, 8}, 128, kernels::Fp16GemmIsa::Avx512Fp16);
    FAIL() << "built an AVX512_FP16 kernel without the hardware";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("AVX512_FP16"), std::string::npos) << e.what();
  }
}

TEST(Fp16Gemm, RejectsBadArguments) {
  EXPECT_THROW(kernels::Fp16Gemm(MatmulShape{0, 8, 8}, 128, kernels::Fp16GemmIsa::Portable),
               std::invalid_argument);
  EXPECT_THROW(kernels::Fp16Gemm(MatmulShape{8, 8, 8}, -1, kernels::Fp16GemmIsa::Portable),
               std::invalid_argument);
  EXPECT_EQ(kernels::parseFp16PromoteEvery("never"), 0);
  EXPECT_EQ(kernels::parseFp16PromoteEvery("128"), 128);
  EXPECT_FALSE(kernels::parseFp16PromoteEvery("0").has_value());
  EXPECT_FALSE(kernels::parseFp16PromoteEvery("12x").has_value());
  EXPECT_FALSE(kernels::parseFp16PromoteEvery("").has_value());
  EXPECT_FALSE(kernels::parseFp16PromoteEvery("-4").has_value());
}

TEST(Fp16Gemm, LabelSaysWhichKernelAndNc) {
  kernels::Fp16Gemm g(MatmulShape{8, 8, 8}, 128, kernels::Fp16GemmIsa::Portable);
  EXPECT_NE(g.label().find("portable"), std::string::npos) << g.label();
  EXPECT_NE(g.label().find("every 128 products"), std::string::npos) << g.label();
  kernels::Fp16Gemm never(MatmulShape{8, 8, 8}, kernels::kFp16NeverPromote, kernels::Fp16GemmIsa::Portable);
  EXPECT_NE(never.label().find("pure FP16 accumulation"), std::string::npos) << never.label();
}

// ---------------------------------------------------------------------------
// The numerics table holds its documented bounds
// ---------------------------------------------------------------------------

// gamma_n(u) = n u / (1 - n u): the classic bound on recursive summation of
// n non-negative terms with unit roundoff u (Higham, Accuracy and
// Stability, 4.2).
double gamma(double n, double u) {
  return n * u / (1 - n * u);
}

class Fp16AccumulationTable : public ::testing::Test {
protected:
  static void SetUpTestSuite() { s_table = kernels::fp16AccumulationTable(); }
  static kernels::Fp16ErrorTable s_table;
  static std::size_t column(int nc) {
    for (std::size_t c = 0; c < s_table.promoteEvery.size(); ++c)
      if (s_table.promoteEvery[c] == nc)
        return c;
    ADD_FAILURE() << "no column for N_C " << nc;
    return 0;
  }
};
kernels::Fp16ErrorTable Fp16AccumulationTable::s_table;

TEST_F(Fp16AccumulationTable, CoversTheDocumentedRange) {
  const std::vector<int> wantNc{1, 16, 32, 64, 128, 256, kernels::kFp16NeverPromote};
  EXPECT_EQ(s_table.promoteEvery, wantNc);
  ASSERT_EQ(s_table.rowsByK.size(), 6u);
  EXPECT_EQ(s_table.rowsByK.front().k, 16);
  EXPECT_EQ(s_table.rowsByK.back().k, 16384);
  EXPECT_NE(s_table.fp32Implementation.find("FP32 compute"), std::string::npos) << s_table.fp32Implementation;
}

TEST_F(Fp16AccumulationTable, WithinTheWorstCaseBoundOfChunkedSummation) {
  // Non-negative terms: a chunk of n FMAs errs by at most gamma_n(2^-11) of
  // its sum, the FP32 sum of m chunks by gamma_m(2^-24) of theirs. Products
  // that fall below FP16's normal range (< 2^-14) may lose up to 2^-25 each
  // absolutely; against sums of order K/4 that is below 1e-6 relative.
  const double u16 = 0x1p-11, u32 = 0x1p-24;
  for (const auto& row : s_table.rowsByK)
    for (std::size_t c = 0; c < s_table.promoteEvery.size(); ++c) {
      const double chunk = s_table.promoteEvery[c] == 0 ? double(row.k)
                                                         : std::min<double>(s_table.promoteEvery[c], double(row.k));
      if (chunk * u16 >= 0.5)
        continue; // the bound says nothing there
      const double chunks = std::ceil(double(row.k) / chunk);
      const double bound = gamma(chunk, u16) + gamma(chunks, u32) * (1 + gamma(chunk, u16)) + 1e-6;
      EXPECT_LE(row.fp16[c].maxRelError, bound) << "K " << row.k << " N_C " << s_table.promoteEvery[c];
    }
  for (const auto& row : s_table.rowsByK) // FP32 path: exact products, FP32 sums
    EXPECT_LE(row.fp32.maxRelError, gamma(double(row.k), u32)) << "K " << row.k;
}

TEST_F(Fp16AccumulationTable, PureFp16StallsAndPromotionStopsIt) {
  // Products lie in [0, 1): once an FP16 sum reaches 2048 (ulp 2) an added
  // product is below half an ulp and rounds away, so the pure FP16 result is
  // at most 2048 + 1 while the exact sum at K = 16384 is about 4096 (mean
  // 1/4 per product, spread about 30): at least 45% is lost, in every output.
  const auto& last = s_table.rowsByK.back();
  ASSERT_EQ(last.k, 16384);
  const std::size_t never = column(kernels::kFp16NeverPromote);
  EXPECT_GE(last.fp16[never].medianRelError, 0.45);
  // Growing with K while the sums pass 2048 and then stall.
  for (std::size_t r = 3; r < s_table.rowsByK.size(); ++r)
    EXPECT_GT(s_table.rowsByK[r].fp16[never].medianRelError, s_table.rowsByK[r - 1].fp16[never].medianRelError)
        << "K " << s_table.rowsByK[r].k;
  // Up to K = N_C a column is pure FP16 accumulation: the same numbers.
  for (const auto& row : s_table.rowsByK)
    for (std::size_t c = 0; c < s_table.promoteEvery.size(); ++c)
      if (s_table.promoteEvery[c] >= row.k) {
        EXPECT_EQ(row.fp16[c].maxRelError, row.fp16[never].maxRelError) << "K " << row.k;
        EXPECT_EQ(row.fp16[c].medianRelError, row.fp16[never].medianRelError) << "K " << row.k;
      }
  // Longer FP16 chunks err more: the median error at K = 16384 rises with
  // N_C (each step doubles the chunk; measured ratios are 2 to 5), and the
  // FP32 path, whose products are exact, is below N_C = 1, whose products
  // are rounded to FP16.
  for (std::size_t c = 1; c < s_table.promoteEvery.size(); ++c)
    EXPECT_GT(last.fp16[c].medianRelError, last.fp16[c - 1].medianRelError) << "N_C " << s_table.promoteEvery[c];
  for (const auto& row : s_table.rowsByK)
    EXPECT_LT(row.fp32.medianRelError, row.fp16[column(1)].medianRelError) << "K " << row.k;
}

TEST_F(Fp16AccumulationTable, DefaultIsTheLargestNcWithinFourFp16RoundingsFromK1024) {
  // The rule the default was chosen by (fp16_gemm.h): the largest N_C whose
  // max relative error stays within 2^-9 for every K >= 1024.
  int chosen = -1;
  for (std::size_t c = 0; c < s_table.promoteEvery.size(); ++c) {
    const int nc = s_table.promoteEvery[c];
    if (nc == kernels::kFp16NeverPromote)
      continue;
    bool within = true;
    for (const auto& row : s_table.rowsByK)
      if (row.k >= 1024)
        within = within && row.fp16[c].maxRelError <= 0x1p-9;
    if (within)
      chosen = std::max(chosen, nc);
  }
  EXPECT_EQ(chosen, kernels::kDefaultFp16PromoteEvery);
}

// The lesson figure draws this table: one line per column, max error per K
// (K as evenly spaced categories, errors on a log axis), and says which kernel FP16 matmuls use on this CPU.
TEST_F(Fp16AccumulationTable, LessonFigureShowsTheTable) {
  const lessons::DemoOutput o = lessons::runDemo("fp16-accumulation");
  EXPECT_TRUE(o.logY);
  ASSERT_EQ(o.categories.size(), s_table.rowsByK.size());
  ASSERT_EQ(o.series.size(), s_table.promoteEvery.size() + 1);
  for (std::size_t c = 0; c < o.series.size(); ++c) {
    ASSERT_EQ(o.series[c].x.size(), s_table.rowsByK.size()) << o.series[c].name;
    for (std::size_t r = 0; r < s_table.rowsByK.size(); ++r) {
      EXPECT_EQ(o.series[c].x[r], double(r)); // the category of K
      EXPECT_EQ(o.categories[r], std::to_string(s_table.rowsByK[r].k));
      const double want = c < s_table.promoteEvery.size() ? s_table.rowsByK[r].fp16[c].maxRelError
                                                           : s_table.rowsByK[r].fp32.maxRelError;
      EXPECT_EQ(o.series[c].y[r], want) << o.series[c].name;
    }
  }
  EXPECT_EQ(o.series.back().name, "FP32 accumulation (emulated path)");
  const std::string last = o.lines.back();
  EXPECT_NE(last.find(kernels::fp16GemmHardwareAvailable() ? "has AVX512_FP16" : "has no AVX512_FP16"),
            std::string::npos)
      << last;
}

// ---------------------------------------------------------------------------
// kernels::Matmul with FP16 inputs: the FP16 GEMM only where it can run
// ---------------------------------------------------------------------------

TEST(Fp16Matmul, EmulatedPathAndItsLabelWithoutAvx512Fp16) {
  if (kernels::fp16GemmHardwareAvailable())
    GTEST_SKIP() << "this CPU has AVX512_FP16: Fp16Matmul.RunsTheFp16GemmWithTheProcessNc covers it";
  kernels::Matmul mm(MatmulShape{16, 16, 16}, DType::F16, DType::F32, false, kernels::MatmulPath::Native);
  EXPECT_TRUE(mm.emulated());
  EXPECT_NE(mm.implementation().find("FP32 compute"), std::string::npos) << mm.implementation();
  EXPECT_NE(mm.implementation().find("no AVX512_FP16"), std::string::npos) << mm.implementation();
}

TEST(Fp16Matmul, RunsTheFp16GemmWithTheProcessNc) {
  if (!kernels::fp16GemmHardwareAvailable())
    GTEST_SKIP() << "this CPU has no AVX512_FP16 (CPUID leaf 7 EDX bit 23): FP16 matmuls stay on the "
                    "emulated FP32 path here";
  const int before = kernels::fp16PromoteEvery();
  kernels::setFp16PromoteEvery(32);
  const MatmulShape s{37, 70, 300, Trans::Yes, Trans::No};
  kernels::Matmul mm(s, DType::F16, DType::F32, true, kernels::MatmulPath::Native);
  kernels::setFp16PromoteEvery(before);
  EXPECT_FALSE(mm.emulated());
  EXPECT_NE(mm.implementation().find("AVX512_FP16"), std::string::npos) << mm.implementation();
  EXPECT_NE(mm.implementation().find("every 32 products"), std::string::npos) << mm.implementation();
  std::mt19937_64 rng(3);
  Tensor a(DType::F16, s.k, s.m), b(DType::F16, s.k, s.n), c(DType::F32, s.m, s.n);
  const auto av = randomHalves(a.u16().size(), rng, false), bv = randomHalves(b.u16().size(), rng, false);
  std::copy(av.begin(), av.end(), a.u16().begin());
  std::copy(bv.begin(), bv.end(), b.u16().begin());
  std::fill(c.f32().begin(), c.f32().end(), 0.25f);
  std::vector<float> want(c.f32().begin(), c.f32().end());
  kernels::fp16GemmReference(s, av.data(), bv.data(), want.data(), 32, true);
  mm.execute(a, b, c);
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_TRUE(sameResult(c.f32()[i], want[i])) << i;
  // FP32 compute stays available on request.
  kernels::Matmul fp32(s, DType::F16, DType::F32, true, kernels::MatmulPath::Fp32Compute);
  EXPECT_TRUE(fp32.emulated());
}

} // namespace
