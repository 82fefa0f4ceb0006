// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// What this CPU can do, read once at run time (CPUID via the compiler's
// builtins), and what oneDNN reports. Shown by --version and the status line.

#include <string>

namespace mantissa::numeric {

struct CpuFeatures {
  bool avx2 = false;
  bool fma = false;
  bool f16c = false;
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512bf16 = false;
  bool avx512fp16 = false;
  bool amxBf16 = false;
  bool amxTile = false;
  std::string vendor;    // "GenuineIntel", "AuthenticAMD", ...
  std::string modelName; // from /proc/cpuinfo where available
};

const CpuFeatures& cpuFeatures();

// The CPUID flags Mantissa uses: "AVX2 FMA F16C AVX512F AVX512_BF16".
std::string describeCpuFlags();

// The flags and the BF16 label (kernels::bf16Support, the one source of
// "Native BF16"): "AVX2 FMA F16C AVX512F AVX512_BF16; Native BF16
// (AVX512_BF16, oneDNN brg:avx512_core_bf16)". --version, the About dialog,
// the status bar, the Speed page and the run logs all show this text.
std::string describeIsa();

// oneDNN's version string ("2.6.3") and its effective ISA name ("avx2").
std::string onednnVersion();
std::string onednnIsa();

} // namespace mantissa::numeric
