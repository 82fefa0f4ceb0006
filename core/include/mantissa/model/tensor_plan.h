// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The tensors a run holds, one row each, at the precision the recipe stores
// them in: the single table the bytes-per-format figures are summed from.

#include <mantissa/tensor/dtype.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace mantissa::model {

// What a tensor is for, for the bytes-per-format table.
enum class TensorRole : std::uint8_t { Weights, MasterWeights, Activations, Gradients, OptimizerState };
std::string_view tensorRoleName(TensorRole role);

// One tensor the run holds, at the precision the recipe stores it in.
struct PlanRow {
  std::string name; // "layer0.W"
  TensorRole role;
  DType dtype;
  std::int64_t rows;
  std::int64_t cols;
  std::size_t bytes() const { return static_cast<std::size_t>(rows * cols) * dtypeSize(dtype); }
};

// Sum of bytes() over the rows with this role.
std::size_t bytesFor(std::span<const PlanRow> rows, TensorRole role);

} // namespace mantissa::model
