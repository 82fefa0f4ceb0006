// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/kernels/elementwise.h>

#include <stdexcept>
#include <string>

namespace mantissa::kernels {
namespace {

std::string text(const Tensor& t) {
  return std::string(dtypeName(t.dtype())) + "[" + std::to_string(t.rows()) + ", " +
         std::to_string(t.cols()) + "]";
}

// bias must be F32 with N elements laid out as one row or one column.
void checkBias(const char* who, const char* name, const Tensor& matrix, const Tensor& bias) {
  const bool vector = bias.rows() == 1 || bias.cols() == 1;
  if (matrix.dtype() != DType::F32 || bias.dtype() != DType::F32 || !vector ||
      bias.size() != matrix.cols())
    throw std::invalid_argument(std::string(who) + ": " + name + " " + text(bias) +
                                " does not fit matrix " + text(matrix) + " (need f32[1, " +
                                std::to_string(matrix.cols()) + "] and an f32 matrix)");
}

} // namespace

void addBias(Tensor& dst, const Tensor& bias) {
  checkBias("addBias", "bias", dst, bias);
  const std::int64_t rows = dst.rows();
  const std::int64_t cols = dst.cols();
  float* __restrict d = dst.data<float>();
  const float* __restrict b = bias.data<float>();
  for (std::int64_t r = 0; r < rows; ++r) {
    float* __restrict row = d + r * cols;
    for (std::int64_t c = 0; c < cols; ++c)
      row[c] += b[c];
  }
}

void biasGradient(const Tensor& dY, Tensor& dBias, bool accumulate) {
  checkBias("biasGradient", "dBias", dY, dBias);
  const std::int64_t rows = dY.rows();
  const std::int64_t cols = dY.cols();
  const float* __restrict g = dY.data<float>();
  float* __restrict db = dBias.data<float>();
  if (!accumulate)
    for (std::int64_t c = 0; c < cols; ++c)
      db[c] = 0.0f;
  // Row by row: contiguous loads, and each column is summed in row order.
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* __restrict row = g + r * cols;
    for (std::int64_t c = 0; c < cols; ++c)
      db[c] += row[c];
  }
}

} // namespace mantissa::kernels
