// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// What every oneDNN-backed kernel shares (Matmul, BatchedMatmul, Conv2d):
// Mantissa's DType as oneDNN's data type, the exact widening of a
// 16-bit operand into its FP32 twin and the RNE narrowing back, and the
// label of a path that computes in FP32 on 16-bit storage. Private to core.

#include <mantissa/numeric/convert.h>
#include <mantissa/tensor/dtype.h>
#include <mantissa/tensor/tensor.h>

#include <oneapi/dnnl/dnnl.hpp>

#include <string>

namespace mantissa::kernels::detail {

inline dnnl::memory::data_type toDnnl(DType dtype) {
  switch (dtype) {
  case DType::F32: return dnnl::memory::data_type::f32;
  case DType::BF16: return dnnl::memory::data_type::bf16;
  case DType::F16: return dnnl::memory::data_type::f16;
  }
  return dnnl::memory::data_type::undef;
}

// "FP32", "BF16", "FP16"
inline std::string upperName(DType d) {
  return d == DType::F32 ? "FP32" : d == DType::BF16 ? "BF16" : "FP16";
}

// 16-bit src into the FP32 dst of the same size, exactly.
inline void widen(const Tensor& src, Tensor& dst) {
  if (src.dtype() == DType::BF16)
    numeric::convertBf16ToF32(src.u16(), dst.f32());
  else
    numeric::convertF16ToF32(src.u16(), dst.f32());
}

// FP32 src into the 16-bit dst, rounded to nearest, ties to even.
inline void narrow(const Tensor& src, Tensor& dst) {
  if (dst.dtype() == DType::BF16)
    numeric::convertF32ToBf16(src.f32(), dst.u16());
  else
    numeric::convertF32ToF16(src.f32(), dst.u16());
}

// " (emulated: BF16 storage, FP32 compute)", plus where the result is rounded.
inline std::string emulationLabel(DType inputs, DType dst) {
  std::string label = " (emulated: ";
  if (inputs != DType::F32)
    label += upperName(inputs) + " storage, ";
  label += "FP32 compute";
  if (dst != DType::F32)
    label += ", result rounded to " + upperName(dst);
  return label + ")";
}

} // namespace mantissa::kernels::detail
