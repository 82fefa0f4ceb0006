// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// FP16 GEMM with FP16 accumulation promoted to FP32 every N_C products.
//
//   C[M,N] (FP32) (+)= op(A)[M,K] x op(B)[K,N],   A and B FP16 (bit patterns)
//
// Stored shapes and op() are those of kernels::Matmul (matmul.h): A is
// [M,K] or [K,M] (transSrc), B is [K,N] or [N,K] (transWeights), C is
// [M,N], all row-major; so one kernel serves forward, dX and dW.
//
// Semantics, exactly (every implementation below gives the same bits):
//   For each output element C[i][j] on its own:
//   1. The products are taken in k order, 0, 1, ..., K-1, and cut into
//      chunks of N_C consecutive products: [0, N_C), [N_C, 2 N_C), ...; the
//      last chunk may be shorter. N_C = 0 ("never") means one chunk of K.
//   2. Each chunk is summed in FP16: h = +0, then for each k of the chunk
//      h = fma16(A[i][k], B[k][j], h): the exact value a*b + h rounded ONCE
//      to FP16, to nearest, ties to even, with subnormals, overflow to
//      +-inf (what one lane of VFMADD231PH does under the default MXCSR).
//   3. After each chunk: c = c + float(h) in FP32 (RNE); c starts at +0, or
//      at C's old value when accumulating. C[i][j] = c.
//   So N_C = 1 adds every product to FP32 (each product rounded to FP16
//   once, by the FMA into a zero accumulator), and "never" is pure FP16
//   accumulation to the end (C = float(h) exactly, except that a -0 sum
//   becomes +0). NaN results are NaN; their payload bits are not specified.
//
// The SIMD kernel runs this lane for lane: a lane is one output column j,
// a register holds 32 consecutive columns of one row i, and a microkernel
// step k does one VFMADD231PH per register with A[i][k] broadcast. The
// blocking never reorders a column's k sequence, and a chunk that spans two
// K blocks carries its FP16 partial sum across them in a buffer.
//
// Layout (BLIS style): K is cut into blocks of KC (a multiple of N_C when
// N_C <= 256); per K block, B is packed into micro-panels of NR = 64
// columns (KC x 64 FP16, 32 KB: stays in L1 while a column of
// micro-tiles runs over it) and A into micro-panels of MR = 8 rows; a
// thread's MC = 128 rows of packed A (64 KB) stay in L2. The 8 x 64
// micro-tile keeps 16 FP16 accumulators (16 independent FMA chains) in
// registers and its FP32 sums in an L1-resident tile. Tiles are spread
// over the OpenMP threads.
//
// Implementations:
//   Fp16GemmIsa::Avx512Fp16  VFMADD231PH (zmm) microkernel; only on CPUs
//                            whose CPUID says AVX512_FP16.
//   Fp16GemmIsa::Portable    the same blocking, packing and microkernel
//                            with each 32-lane register emulated by the
//                            exact fma16 below: slow, runs anywhere, and
//                            is what the numerics tables are computed with.
//   fp16GemmReference        plain loops over i, j, k (the definition).
//
// Error of the result, measured: fp16AccumulationTable() with its defaults
// (8 x 64 outputs per K, A and B uniform(0,1) rounded to FP16, seed 22;
// FP16 columns by the portable kernel, so the same on every CPU; the FP32
// column by oneDNN, whose summation order varies with the CPU), relative to
// a double reference, max / median over the 512 outputs:
//
//        K  N_C = 1        16             32             64
//       16  2.2e-4/4.5e-5  1.8e-3/3.5e-4  1.8e-3/3.5e-4  1.8e-3/3.5e-4
//       64  1.3e-4/2.3e-5  7.5e-4/1.9e-4  1.8e-3/3.4e-4  3.6e-3/7.1e-4
//      256  6.2e-5/1.1e-5  4.4e-4/8.7e-5  6.8e-4/1.6e-4  1.5e-3/3.1e-4
//     1024  2.7e-5/6.3e-6  2.5e-4/4.2e-5  4.2e-4/8.5e-5  8.0e-4/1.7e-4
//     4096  1.5e-5/2.9e-6  1.1e-4/2.3e-5  2.2e-4/4.0e-5  4.9e-4/8.4e-5
//    16384  1.0e-5/2.0e-6  5.8e-5/1.2e-5  1.1e-4/2.4e-5  2.5e-4/5.8e-5
//
//        K  N_C = 128      256            never (FP16)   FP32 (emulated path)
//       16  1.8e-3/3.5e-4  1.8e-3/3.5e-4  1.8e-3/3.5e-4  1.7e-7/3.8e-8
//       64  3.6e-3/7.1e-4  3.6e-3/7.1e-4  3.6e-3/7.1e-4  3.3e-7/7.8e-8
//      256  2.9e-3/6.2e-4  6.9e-3/1.4e-3  6.9e-3/1.4e-3  6.8e-7/1.3e-7
//     1024  1.2e-3/3.2e-4  3.0e-3/7.3e-4  1.6e-2/6.9e-3  6.6e-7/1.5e-7
//     4096  8.0e-4/2.0e-4  2.0e-3/6.3e-4  9.3e-2/7.3e-2  7.4e-7/1.5e-7
//    16384  4.3e-4/1.8e-4  1.2e-3/6.0e-4  5.1e-1/5.0e-1  4.2e-7/8.2e-8
//
// Reading it: up to K = N_C every column is pure FP16 accumulation. Pure
// FP16 stalls: with products below 1, a sum that reaches 2048 (FP16 ulp 2)
// never grows again, so at K = 16384 (exact sum about 4096) half the sum is
// lost. Promotion bounds the FP16 part to one chunk: the error then falls
// with K instead of growing. N_C = 1 still rounds every product to FP16;
// the FP32 path does not (its products are exact), hence its 1e-7.
//
// Default N_C = 128: the largest N_C of the table whose error stays within
// four FP16 unit roundoffs (2^-9 = 1.95e-3) for every K >= 1024 (N_C = 256
// reaches 3.0e-3 at K = 1024). Promotion costs a conversion and an FP32 add
// per accumulator per chunk, about 1 / N_C of the FMAs' work. (The same
// interval as DeepSeek-V3 promotes its FP8 GEMMs' sums at.)
// tests/core/test_fp16_gemm.cpp recomputes this choice from the table and
// checks the table's bounds.

#include <mantissa/kernels/matmul.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::kernels {

// N_C = 0: never promote (pure FP16 accumulation).
inline constexpr int kFp16NeverPromote = 0;
// The default N_C (see the table above for why).
inline constexpr int kDefaultFp16PromoteEvery = 128;

// "never" for 0, else the number.
std::string fp16PromoteName(int promoteEvery);
// "128" -> 128, "never" -> 0; nullopt for anything else (N_C must be 1..65536).
std::optional<int> parseFp16PromoteEvery(std::string_view text);

// The process-wide N_C of FP16 GEMMs built after the call (default
// kDefaultFp16PromoteEvery). Throws std::invalid_argument outside 0..65536.
void setFp16PromoteEvery(int promoteEvery);
int fp16PromoteEvery();

// One FP16 fused multiply-add: a*b + c computed exactly, rounded once to
// FP16 (RNE, subnormals kept, overflow to +-inf). Bit patterns in and out.
// A NaN result is 0x7E00 here (hardware may return another NaN: only "is
// NaN" is relied on).
std::uint16_t fp16Fma(std::uint16_t a, std::uint16_t b, std::uint16_t c) noexcept;

enum class Fp16GemmIsa { Portable, Avx512Fp16 };
std::string_view fp16GemmIsaName(Fp16GemmIsa isa); // "portable", "AVX512_FP16"
// True when this CPU has AVX512_FP16 (CPUID leaf 7, EDX bit 23; with
// AVX512BW, which every such CPU has) and this build contains the
// microkernel for it.
bool fp16GemmHardwareAvailable();

// The definition in plain loops (slow; for tests and small sizes).
// a, b: FP16 bit patterns in the stored shapes above; c: [M,N] FP32.
void fp16GemmReference(const MatmulShape& shape, const std::uint16_t* a, const std::uint16_t* b,
                       float* c, int promoteEvery, bool accumulate = false);

// The blocked GEMM. The constructor allocates the packing buffers once;
// execute() allocates nothing.
class Fp16Gemm {
public:
  // Throws std::invalid_argument on a non-positive shape or an N_C outside
  // 0..65536, std::runtime_error for Avx512Fp16 on a CPU without it.
  Fp16Gemm(MatmulShape shape, int promoteEvery, Fp16GemmIsa isa);
  ~Fp16Gemm();
  Fp16Gemm(Fp16Gemm&&) noexcept;
  Fp16Gemm& operator=(Fp16Gemm&&) noexcept;

  void execute(const std::uint16_t* a, const std::uint16_t* b, float* c, bool accumulate = false);

  const MatmulShape& shape() const;
  int promoteEvery() const;
  Fp16GemmIsa isa() const;
  // "FP16 GEMM (AVX512_FP16 vfmadd231ph): FP16 accumulation promoted to
  // FP32 every 128 products" / "... pure FP16 accumulation".
  std::string label() const;

  struct Impl;

private:
  std::unique_ptr<Impl> m_impl;
};

// The numerics table: relative error against a double reference of C = A x B
// with A [rows, K], B [K, cols] uniform(0,1) rounded to FP16 (seeded), per K
// and per accumulation: the FP16 kernel (portable, exact emulation) for each
// N_C given, and the FP32-accumulated emulated path (kernels::Matmul, FP16
// storage, FP32 compute).
struct Fp16ErrorCell {
  double maxRelError = 0;
  double medianRelError = 0;
};
struct Fp16ErrorRow {
  std::int64_t k = 0;
  std::vector<Fp16ErrorCell> fp16; // one per promoteEvery, same order
  Fp16ErrorCell fp32;              // FP32 compute (Matmul, fp32-compute)
};
struct Fp16ErrorTable {
  std::vector<int> promoteEvery; // N_C per column, 0 = never
  std::int64_t rows = 0, cols = 0;
  std::vector<Fp16ErrorRow> rowsByK;
  std::string fp32Implementation; // Matmul::implementation() of the FP32 column
};
struct Fp16ErrorTableOptions {
  std::vector<std::int64_t> ks{16, 64, 256, 1024, 4096, 16384};
  std::vector<int> promoteEvery{1, 16, 32, 64, 128, 256, kFp16NeverPromote};
  std::int64_t rows = 8, cols = 64; // one micro-tile per product
  std::uint64_t seed = 22;
};
Fp16ErrorTable fp16AccumulationTable(const Fp16ErrorTableOptions& options = {});

} // namespace mantissa::kernels
