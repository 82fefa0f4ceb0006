// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The probe's instruction loops (see mantissa/bench/isa_probe.h). Calling one
// on a CPU without its instruction set faults: check first.

#include <cstdint>

namespace mantissa::bench::detail {

void fmaAvx2(std::int64_t iterations, double out[12]);   // 12 x vfmadd231ps ymm
void fmaAvx512(std::int64_t iterations, double out[12]); // 12 x vfmadd231ps zmm
void dotBf16(std::int64_t iterations, double out[12]);   // 12 x vdpbf16ps zmm
void fmaFp16(std::int64_t iterations, double out[12]);   // 12 x vfmadd231ph zmm
void dotAmx(std::int64_t iterations, double out[12]);    // 4 x tdpbf16ps (chains 0-3)

// Asks Linux for the AMX tile data state (arch_prctl ARCH_REQ_XCOMP_PERM) for
// this process; true when granted.
bool requestAmxPermission();

} // namespace mantissa::bench::detail
