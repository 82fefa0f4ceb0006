// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Which instruction set the GPT's step kernels run on: LayerNorm (forward
// and backward, FP32 statistics), AdamW with FP32 state, GELU, the FP32
// attention softmax (forward and backward), the softmax cross-entropy's
// exp and sum, and exp and tanh over arrays (kernels/step_math.h). Each kernel is
// one loop body compiled three times (AVX-512, AVX2, baseline x86-64) and
// picked here from CPUID. The files that hold them are
// built without FMA contraction and without reassociation, so the three
// builds do the same FP32 operations in the same order: their results are
// the same bits (the tests run each path the CPU has and compare).

#include <cstdint>
#include <optional>

namespace mantissa::kernels {

enum class StepIsa : std::uint8_t { Portable, Avx2, Avx512 };

const char* stepIsaName(StepIsa isa); // "portable", "AVX2", "AVX-512"

// Whether this CPU (and OS) runs `isa`.
bool stepIsaAvailable(StepIsa isa);

// The path the kernels take: the widest available, unless forced.
StepIsa stepIsa();

// Tests: run every step kernel on `isa` (nullopt: back to CPUID's choice).
// Throws std::invalid_argument for an ISA this CPU lacks. Not for use while
// kernels run on other threads.
void forceStepIsa(std::optional<StepIsa> isa);

} // namespace mantissa::kernels
