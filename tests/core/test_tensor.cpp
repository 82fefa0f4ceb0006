// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Tensor storage: shape bookkeeping, alignment, zero fill, checked access,
// deep copies, and convertFrom against the formats' spec bit patterns.
#include <mantissa/tensor/tensor.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace {

using mantissa::DType;
using mantissa::Tensor;

float bitsToFloat(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

TEST(DType, NamesAndSizes) {
  EXPECT_EQ(mantissa::dtypeName(DType::F32), "f32");
  EXPECT_EQ(mantissa::dtypeName(DType::BF16), "bf16");
  EXPECT_EQ(mantissa::dtypeName(DType::F16), "f16");
  EXPECT_EQ(mantissa::dtypeSize(DType::F32), 4u);
  EXPECT_EQ(mantissa::dtypeSize(DType::BF16), 2u);
  EXPECT_EQ(mantissa::dtypeSize(DType::F16), 2u);
}

TEST(Tensor, ShapeBytesAndZeroFill) {
  const Tensor t(DType::BF16, 3, 5);
  EXPECT_EQ(t.rows(), 3);
  EXPECT_EQ(t.cols(), 5);
  EXPECT_EQ(t.size(), 15);
  EXPECT_EQ(t.bytes(), 30u);
  for (std::uint16_t v : t.u16())
    EXPECT_EQ(v, 0u);
  const Tensor f(DType::F32, 7, 3);
  EXPECT_EQ(f.bytes(), 84u);
  for (float v : f.f32())
    EXPECT_EQ(v, 0.0f);
}

TEST(Tensor, StorageIs64ByteAligned) {
  for (std::int64_t cols : {1, 3, 17, 1000}) {
    Tensor t(DType::F16, 1, cols);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.raw()) % 64, 0u) << "cols=" << cols;
  }
}

TEST(Tensor, RejectsBadShapes) {
  EXPECT_THROW(Tensor(DType::F32, -1, 4), std::invalid_argument);
  EXPECT_THROW(Tensor(DType::F32, 4, -1), std::invalid_argument);
  constexpr auto kHuge = std::numeric_limits<std::int64_t>::max() / 2;
  EXPECT_THROW(Tensor(DType::F32, kHuge, 4), std::invalid_argument);
  const Tensor empty(DType::F32, 0, 5);
  EXPECT_EQ(empty.size(), 0);
  EXPECT_TRUE(empty.f32().empty());
}

TEST(Tensor, AccessIsCheckedAgainstTheDType) {
  Tensor f(DType::F32, 2, 2);
  Tensor h(DType::F16, 2, 2);
  EXPECT_THROW(f.u16(), std::logic_error);
  EXPECT_THROW(h.f32(), std::logic_error);
  EXPECT_THROW(h.data<float>(), std::logic_error);
  EXPECT_NO_THROW(h.data<std::uint16_t>());
  try {
    h.f32();
    FAIL() << "f32() on an f16 tensor must throw";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("f16[2, 2]"), std::string::npos) << e.what();
  }
}

TEST(Tensor, CopiesAreDeepMovesSteal) {
  Tensor a(DType::F32, 2, 3);
  a.f32()[4] = 2.5f;
  Tensor b = a;
  b.f32()[4] = -1.0f;
  EXPECT_EQ(a.f32()[4], 2.5f);
  Tensor c = std::move(a);
  EXPECT_EQ(c.f32()[4], 2.5f);
  EXPECT_EQ(a.size(), 0); // NOLINT(bugprone-use-after-move): documented state
  b = c;
  EXPECT_EQ(b.f32()[4], 2.5f);
  EXPECT_NE(b.raw(), c.raw());
}

// Spec bit patterns: BF16 is the top half of binary32; FP16 is binary16.
TEST(Tensor, ConvertFromF32RoundsToNearestEven) {
  Tensor src(DType::F32, 1, 6);
  auto s = src.f32();
  s[0] = 1.0f;
  s[1] = bitsToFloat(0x3F808000); // 1 + 2^-8: tie between 0x3F80 and 0x3F81 -> even 0x3F80
  s[2] = bitsToFloat(0x3F818000); // 1 + 3*2^-8: tie between 0x3F81 and 0x3F82 -> even 0x3F82
  s[3] = 65504.0f;                // FP16 max finite
  s[4] = 65520.0f;                // FP16 tie between 65504 and 65536 -> even -> +inf
  s[5] = 0x1p-24f;                // FP16 smallest subnormal

  Tensor bf(DType::BF16, 1, 6);
  bf.convertFrom(src);
  EXPECT_EQ(bf.u16()[0], 0x3F80u);
  EXPECT_EQ(bf.u16()[1], 0x3F80u);
  EXPECT_EQ(bf.u16()[2], 0x3F82u);
  EXPECT_EQ(bf.u16()[3], 0x4780u); // 65504 = 0x477FE000: low half above the tie -> 65536
  Tensor h(DType::F16, 1, 6);
  h.convertFrom(src);
  EXPECT_EQ(h.u16()[0], 0x3C00u);
  EXPECT_EQ(h.u16()[3], 0x7BFFu);
  EXPECT_EQ(h.u16()[4], 0x7C00u);
  EXPECT_EQ(h.u16()[5], 0x0001u);
}

TEST(Tensor, ConvertFromSixteenBitIsExactAndCrossesFormats) {
  Tensor bf(DType::BF16, 1, 3);
  bf.u16()[0] = 0x4049; // 3.140625
  bf.u16()[1] = 0x3580; // 2^-20: an FP16 subnormal (0x0010)
  bf.u16()[2] = 0x4780; // 65536: beyond FP16 max -> +inf
  Tensor f(DType::F32, 1, 3);
  f.convertFrom(bf);
  EXPECT_EQ(f.f32()[0], 3.140625f);
  EXPECT_EQ(f.f32()[1], 0x1p-20f);
  EXPECT_EQ(f.f32()[2], 65536.0f);
  Tensor h(DType::F16, 1, 3);
  h.convertFrom(bf);
  EXPECT_EQ(h.u16()[0], 0x4248u); // 3.140625 = 1.5703125 x 2 : FP16 0x4248 exactly
  EXPECT_EQ(h.u16()[1], 0x0010u);
  EXPECT_EQ(h.u16()[2], 0x7C00u);
}

TEST(Tensor, ConvertFromRejectsShapeMismatch) {
  Tensor a(DType::F32, 2, 3);
  Tensor b(DType::BF16, 3, 2);
  try {
    b.convertFrom(a);
    FAIL() << "shape mismatch must throw";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("f32[2, 3]"), std::string::npos) << what;
    EXPECT_NE(what.find("bf16[3, 2]"), std::string::npos) << what;
  }
}

} // namespace
