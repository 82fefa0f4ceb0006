// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/tensor/dtype.h>

namespace mantissa {

std::string_view dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32: return "f32";
  case DType::BF16: return "bf16";
  case DType::F16: return "f16";
  }
  return "unknown";
}

std::size_t dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::F32: return 4;
  case DType::BF16: return 2;
  case DType::F16: return 2;
  }
  return 0;
}

} // namespace mantissa
