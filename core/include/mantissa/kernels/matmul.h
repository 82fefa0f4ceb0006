// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Matrix multiplication: the one kernel every layer's forward and backward
// pass runs on.
//
//   dst[M,N] (+)= op(src)[M,K] x op(weights)[K,N]
//
// op(x) is x or its transpose (Trans). Stored shapes are row-major Tensors:
//   src     [M,K], or [K,M] with transSrc = Yes
//   weights [K,N], or [N,K] with transWeights = Yes
//   dst     [M,N]
// so the backward products need no transpose copy:
//   dX[B,I] = dY[B,O] x W[I,O]^T   -> shape {B, I, O}, transWeights = Yes
//   dW[I,O] = X[B,I]^T x dY[B,O]   -> shape {I, O, B}, transSrc = Yes
//
// Legend: M rows of dst, N columns of dst, K the reduction length.
//
// Precision: src and weights share one DType (`inputs`); products are
// accumulated in FP32; dst is FP32 unless `dst` says BF16/F16, in which case
// the FP32 result is rounded to nearest, ties to even, once at the end.
// Exception: F16 inputs on a CPU with AVX512_FP16 (unless the path is
// Fp32Compute) run the FP16 GEMM of fp16_gemm.h, which accumulates in FP16
// and adds into FP32 every N_C products (fp16PromoteEvery(), read when the
// Matmul is built); implementation() then says so, with N_C.
//
// Matmul is the fast path (oneDNN). Its constructor does all the expensive
// work once: primitive descriptor, primitive, scratch buffers. execute() only
// sets data pointers, converts inputs where the path is emulated, and runs.
// referenceMatmul is the slow, readable Eigen path tests hold it to.

#include <mantissa/kernels/matmul_path.h>
#include <mantissa/tensor/dtype.h>
#include <mantissa/tensor/tensor.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace mantissa::kernels {

enum class Backend { OneDnn, Eigen };
enum class Trans { No, Yes };

std::string_view backendName(Backend backend); // "onednn", "eigen"

struct MatmulShape {
  std::int64_t m, n, k;
  Trans transSrc = Trans::No;
  Trans transWeights = Trans::No;

  // Floating-point operations of one product: 2 * M * N * K.
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
};

class Matmul {
public:
  // Creates the oneDNN primitive once. BF16 inputs use oneDNN's native bf16
  // matmul where this CPU has one (AVX512_BF16 / AMX); otherwise, like F16
  // (oneDNN 2.6 has no CPU f16 matmul), they are emulated: inputs converted
  // exactly to FP32 into scratch buffers allocated here, then the FP32
  // primitive runs. Throws std::invalid_argument on a non-positive shape.
  // 16-bit inputs follow the process-wide matmulPath() (matmul_path.h).
  Matmul(MatmulShape shape, DType inputs, DType dst = DType::F32, bool accumulate = false);
  // As above with an explicit path for 16-bit inputs: Native falls back to
  // FP32 compute where oneDNN has no native kernel; Auto times both.
  Matmul(MatmulShape shape, DType inputs, DType dst, bool accumulate, MatmulPath path);
  ~Matmul();
  Matmul(Matmul&&) noexcept;
  Matmul& operator=(Matmul&&) noexcept;
  Matmul(const Matmul&) = delete;
  Matmul& operator=(const Matmul&) = delete;

  // dst (+)= op(src) x op(weights). No allocation and no primitive creation.
  // Throws std::invalid_argument naming the operand whose dtype or stored
  // shape does not match the one this Matmul was built for.
  void execute(const Tensor& src, const Tensor& weights, Tensor& dst);
  // dst = op(src) x op(weights) + bias, for a Matmul made by
  // roundingToBf16(true); bias is FP32 [1, N].
  void execute(const Tensor& src, const Tensor& weights, const Tensor& bias, Tensor& dst);

  // True when this dtype combination has no native oneDNN path on this CPU
  // and runs through FP32 compute instead.
  bool emulated() const;
  // oneDNN's implementation name ("gemm:jit", "brgemm:avx512_core_bf16", ...)
  // followed by " (emulated: BF16 storage, FP32 compute)" where emulated.
  std::string implementation() const;
  // implementation() without the path's reason: "brg:avx512_core_bf16".
  std::string kernel() const;
  const MatmulShape& shape() const;
  DType inputs() const;
  DType dst() const;
  bool accumulates() const;
  // The path that runs (Native for FP32 inputs) and why, in words: "" when
  // it is the only or the default one, else e.g. "auto: FP32 compute 0.21 ms
  // vs native BF16 0.35 ms for this shape", "FP32 compute forced".
  MatmulPath path() const;
  std::string pathReason() const;
  // Bytes this Matmul holds: the FP32 twins of 16-bit operands (Tensors, as
  // allocated: padded to 64 bytes), and oneDNN's scratchpad.
  std::size_t fp32TwinBytes() const;
  std::size_t scratchpadBytes() const;

  // The same product on the same native kernel, writing a BF16 dst itself,
  // for a caller that would round this Matmul's FP32 dst to BF16 (nearest,
  // ties to even, as numeric::roundTripBf16) right after it. oneDNN's BF16
  // kernel accumulates in FP32 and converts once with VCVTNEPS2BF16, the
  // instruction numeric::f32ToBf16 follows, so the bits are the same while
  // the kernel writes half the bytes (tests/core/test_matmul_bf16_dst.cpp).
  // nullopt unless: BF16 inputs, FP32 dst, no accumulation, the native path,
  // a CPU with AVX512_BF16, and oneDNN choosing the same kernel for the BF16
  // dst. The twin reports the same path and reason. withBias: the twin also
  // adds an FP32 bias [1, N] to the FP32 result before rounding, for a caller
  // that would add it in FP32 in between (execute with a bias).
  std::optional<Matmul> roundingToBf16(bool withBias = false) const;
  // True for a Matmul made by roundingToBf16().
  bool roundsInKernel() const;

  struct Plan; // private to matmul.cpp

private:
  explicit Matmul(std::unique_ptr<Plan> plan);
  std::unique_ptr<Plan> m_plan;
};

// Reference: Eigen in FP32 (BF16/F16 inputs converted exactly to FP32 first;
// no double precision anywhere), the same semantics and the same stored
// shapes as Matmul. Allocates temporaries for non-F32 operands; for tests and
// the benchmark's Eigen baseline.
void referenceMatmul(MatmulShape shape, const Tensor& src, const Tensor& weights, Tensor& dst,
                     bool accumulate = false);

// Running totals since program start, for the "no allocation / no primitive
// creation in the steady-state step" test: every oneDNN primitive Mantissa
// creates and every scratch buffer its kernels allocate.
struct KernelCounters {
  std::int64_t primitivesCreated;
  std::int64_t scratchAllocations;
};
KernelCounters kernelCounters();

} // namespace mantissa::kernels
