// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// addBias and biasGradient on small integers, where FP32 arithmetic is exact
// and the expected values are plain sums written out in the test.
#include <mantissa/kernels/elementwise.h>

#include <gtest/gtest.h>

#include <stdexcept>

namespace {

using mantissa::DType;
using mantissa::Tensor;
using mantissa::kernels::addBias;
using mantissa::kernels::biasGradient;

// [r * 10 + c] for r < rows, c < cols.
Tensor grid(std::int64_t rows, std::int64_t cols) {
  Tensor t(DType::F32, rows, cols);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c)
      t.f32()[std::size_t(r * cols + c)] = float(r * 10 + c);
  return t;
}

TEST(Elementwise, AddBiasBroadcastsOverRows) {
  Tensor y = grid(3, 19); // odd width: exercises the vector loop's tail
  Tensor bias(DType::F32, 1, 19);
  for (int c = 0; c < 19; ++c)
    bias.f32()[std::size_t(c)] = float(100 * (c + 1));
  addBias(y, bias);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 19; ++c)
      EXPECT_EQ(y.f32()[std::size_t(r * 19 + c)], float(r * 10 + c + 100 * (c + 1)));
}

TEST(Elementwise, BiasGradientSumsColumns) {
  const Tensor dY = grid(4, 3); // column c: 0+10+20+30 + 4c = 60 + 4c
  Tensor dB(DType::F32, 1, 3);
  dB.f32()[0] = 999.0f; // overwritten without accumulate
  biasGradient(dY, dB);
  EXPECT_EQ(dB.f32()[0], 60.0f);
  EXPECT_EQ(dB.f32()[1], 64.0f);
  EXPECT_EQ(dB.f32()[2], 68.0f);
  biasGradient(dY, dB, /*accumulate=*/true);
  EXPECT_EQ(dB.f32()[0], 120.0f);
  EXPECT_EQ(dB.f32()[2], 136.0f);
}

TEST(Elementwise, ColumnBiasIsAccepted) {
  Tensor y = grid(2, 2);
  Tensor bias(DType::F32, 2, 1);
  bias.f32()[0] = 1.0f;
  bias.f32()[1] = 2.0f;
  addBias(y, bias);
  EXPECT_EQ(y.f32()[3], 13.0f);
}

TEST(Elementwise, ShapeAndDTypeErrorsAreClear) {
  Tensor y(DType::F32, 2, 3);
  EXPECT_THROW(addBias(y, Tensor(DType::F32, 1, 4)), std::invalid_argument);
  EXPECT_THROW(addBias(y, Tensor(DType::BF16, 1, 3)), std::invalid_argument);
  Tensor dB(DType::F32, 2, 3);
  try {
    biasGradient(y, dB);
    FAIL() << "a matrix-shaped dBias must throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("dBias f32[2, 3]"), std::string::npos) << e.what();
  }
}

} // namespace
