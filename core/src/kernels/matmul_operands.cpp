// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "matmul_operands.h"

#include <stdexcept>
#include <string>

namespace mantissa::kernels {

std::string_view backendName(Backend backend) {
  return backend == Backend::OneDnn ? "onednn" : "eigen";
}

namespace detail {
namespace {

std::string text(DType dtype, std::int64_t rows, std::int64_t cols) {
  return std::string(dtypeName(dtype)) + "[" + std::to_string(rows) + ", " + std::to_string(cols) +
         "]";
}

} // namespace

void checkOperand(const char* who, const char* operand, const Tensor& t, DType dtype,
                  StoredShape expected) {
  if (t.dtype() == dtype && t.rows() == expected.rows && t.cols() == expected.cols)
    return;
  throw std::invalid_argument(std::string(who) + ": " + operand + " is " +
                              text(t.dtype(), t.rows(), t.cols()) + ", expected " +
                              text(dtype, expected.rows, expected.cols));
}

void checkShape(const char* who, const MatmulShape& shape) {
  if (shape.m > 0 && shape.n > 0 && shape.k > 0)
    return;
  throw std::invalid_argument(std::string(who) + ": shape m=" + std::to_string(shape.m) +
                              " n=" + std::to_string(shape.n) + " k=" + std::to_string(shape.k) +
                              " must be positive");
}

} // namespace detail
} // namespace mantissa::kernels
