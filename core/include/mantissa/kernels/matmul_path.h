// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The two honest ways to multiply 16-bit (BF16/FP16) matrices, and which one
// a Matmul uses.
//
//   native        oneDNN's BF16 kernel: BF16 operands straight into BF16
//                 arithmetic (vdpbf16ps / AMX tiles where the CPU has them,
//                 oneDNN's own emulation where it does not).
//   fp32-compute  16-bit storage, FP32 compute: both operands converted
//                 exactly to FP32, then oneDNN's FP32 kernel.
//
// A product of two BF16 (or FP16) values is exact in FP32 and both paths
// accumulate in FP32, so their results differ only in the order the products
// are summed (each kernel blocks K its own way) and in subnormals: the BF16
// dot-product instruction treats subnormal inputs and results as zero, the
// FP32 path keeps them. tests/core/test_matmul_path.cpp measures both.
//
// `auto` times both paths for each product shape the first time a Matmul of
// that shape is built, uses the faster one and remembers the choice (per
// process, and per machine in a cache file when one is set). Library default
// is `native` so results do not depend on timing; the programs
// (mantissa, mantissa-cli) switch to `auto` unless told otherwise.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace mantissa::kernels {

enum class MatmulPath { Auto, Native, Fp32Compute };

std::string_view matmulPathName(MatmulPath path); // "auto", "native", "fp32-compute"
std::optional<MatmulPath> parseMatmulPath(std::string_view text);

// The policy for 16-bit matmuls constructed after the call (process-wide).
void setMatmulPath(MatmulPath path);
MatmulPath matmulPath();

// Where `auto` remembers its choices across runs; an empty path keeps them in
// memory only (the default). The file is keyed by CPU model, flags and
// thread count and written atomically.
void setMatmulChoiceCache(const std::filesystem::path& file);
// Forgets the in-memory choices (the cache file is left as it is).
void clearMatmulChoices();

// "<XDG_CACHE_HOME or ~/.cache>/mantissa".
std::filesystem::path userCacheDir();

// Whether BF16 matmuls run on BF16 arithmetic here: the CPU must have it
// (AVX512_BF16 or AMX-BF16 in CPUID) and oneDNN's chosen kernel for a BF16
// matmul must use it. The one source of the "Native BF16" label shown by the
// About dialog, the status bar, the Speed page, the logs and --version.
struct Bf16Support {
  bool cpuHasBf16 = false;     // AVX512_BF16 or AMX-BF16
  std::string onednnKernel;    // impl name of oneDNN's BF16 matmul, "" if it has none
  bool kernelUsesBf16 = false; // that kernel runs BF16 arithmetic
  bool native() const { return cpuHasBf16 && kernelUsesBf16; }
  // "Native BF16 (AVX512_BF16, oneDNN brg:avx512_core_bf16)",
  // "BF16 emulated by oneDNN (no AVX512_BF16 or AMX-BF16; gemm:jit)", ...
  std::string label;
};
const Bf16Support& bf16Support();

} // namespace mantissa::kernels
