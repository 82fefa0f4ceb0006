// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The readable reference: Eigen FP32 GEMM over row-major maps of the stored
// tensors, transposes taken as Eigen expressions. Every BF16/F16 value is an
// FP32 value, so widening the inputs first is exact and both paths multiply
// the very same numbers; they differ only in FP32 summation order.
#include "matmul_operands.h"

#include <mantissa/kernels/matmul.h>

#include <Eigen/Core>

namespace mantissa::kernels {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMatrix, Eigen::Aligned64>;
using Map = Eigen::Map<RowMatrix, Eigen::Aligned64>;

// An F32 view of t: t itself, or an exact FP32 copy kept alive in `widened`.
const Tensor& asF32(const Tensor& t, Tensor& widened) {
  if (t.dtype() == DType::F32)
    return t;
  widened = Tensor(DType::F32, t.rows(), t.cols());
  widened.convertFrom(t);
  return widened;
}

ConstMap view(const Tensor& t) {
  return {t.data<float>(), t.rows(), t.cols()};
}

} // namespace

void referenceMatmul(MatmulShape shape, const Tensor& src, const Tensor& weights, Tensor& dst,
                     bool accumulate) {
  constexpr const char* kWho = "referenceMatmul";
  detail::checkShape(kWho, shape);
  detail::checkOperand(kWho, "src", src, src.dtype(), detail::storedSrc(shape));
  detail::checkOperand(kWho, "weights", weights, src.dtype(), detail::storedWeights(shape));
  detail::checkOperand(kWho, "dst", dst, dst.dtype(), detail::storedDst(shape));

  Tensor srcWide, weightsWide, dstWide;
  const ConstMap a = view(asF32(src, srcWide));         // stored src
  const ConstMap b = view(asF32(weights, weightsWide)); // stored weights
  Tensor& out = dst.dtype() == DType::F32 ? dst : dstWide;
  if (dst.dtype() != DType::F32) {
    out = Tensor(DType::F32, shape.m, shape.n);
    if (accumulate)
      out.convertFrom(dst);
  }
  Map c(out.data<float>(), shape.m, shape.n); // [M,N]
  if (!accumulate)
    c.setZero();

  const bool ta = shape.transSrc == Trans::Yes;
  const bool tb = shape.transWeights == Trans::Yes;
  if (!ta && !tb)
    c.noalias() += a * b;
  else if (!ta && tb)
    c.noalias() += a * b.transpose();
  else if (ta && !tb)
    c.noalias() += a.transpose() * b;
  else
    c.noalias() += a.transpose() * b.transpose();

  // 16-bit dst: one rounding (RNE) of the FP32 result.
  if (dst.dtype() != DType::F32)
    dst.convertFrom(out);
}

} // namespace mantissa::kernels
