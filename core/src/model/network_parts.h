// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Small pieces every model::Network implementation uses. Private to core.

#include <mantissa/model/network.h>
#include <mantissa/tensor/tensor.h>

#include <cmath>
#include <cstddef>

namespace mantissa::model::detail {

// No inf or NaN in an FP32 tensor (16-bit and empty tensors count as finite).
inline bool allFinite(const Tensor& t) {
  if (t.size() == 0 || t.dtype() != DType::F32)
    return true;
  for (float v : t.f32())
    if (!std::isfinite(v))
      return false;
  return true;
}

// enter() .. leave() around one product.
class InParallelSection {
public:
  explicit InParallelSection(ParallelSections* sections) : m_sections(sections) {
    if (m_sections != nullptr)
      m_sections->enter();
  }
  ~InParallelSection() {
    if (m_sections != nullptr)
      m_sections->leave();
  }
  InParallelSection(const InParallelSection&) = delete;
  InParallelSection& operator=(const InParallelSection&) = delete;

private:
  ParallelSections* m_sections;
};

// Bytes a Tensor holds as allocated: padded to Tensor::kAlignment.
inline std::size_t allocated(const Tensor& t) {
  return t.size() > 0
             ? (t.bytes() + Tensor::kAlignment - 1) / Tensor::kAlignment * Tensor::kAlignment
             : std::size_t{0};
}

} // namespace mantissa::model::detail
