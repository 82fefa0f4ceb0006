// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Shared operand checks of Matmul::execute and referenceMatmul: the stored
// shape each operand must have for a MatmulShape, and a clear error when it
// does not. Allocation-free on success (messages are built only on failure).

#include <mantissa/kernels/matmul.h>

#include <cstdint>

namespace mantissa::kernels::detail {

struct StoredShape {
  std::int64_t rows, cols;
};

// src [M,K] or [K,M]; weights [K,N] or [N,K]; dst [M,N].
inline StoredShape storedSrc(const MatmulShape& s) {
  return s.transSrc == Trans::No ? StoredShape{s.m, s.k} : StoredShape{s.k, s.m};
}
inline StoredShape storedWeights(const MatmulShape& s) {
  return s.transWeights == Trans::No ? StoredShape{s.k, s.n} : StoredShape{s.n, s.k};
}
inline StoredShape storedDst(const MatmulShape& s) {
  return {s.m, s.n};
}

// Throws std::invalid_argument naming `who` and the operand
// ("src", "weights", "dst") whose dtype or shape is wrong.
void checkOperand(const char* who, const char* operand, const Tensor& t, DType dtype,
                  StoredShape expected);

// Throws std::invalid_argument if any of m, n, k is not positive.
void checkShape(const char* who, const MatmulShape& shape);

} // namespace mantissa::kernels::detail
