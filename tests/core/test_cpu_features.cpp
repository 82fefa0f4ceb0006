// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/kernels/matmul_path.h>
#include <mantissa/numeric/cpu_features.h>

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace {

// The CPU flags the kernel reports are the independent truth for CPUID.
bool procCpuinfoHasFlag(const std::string& flag) {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("flags", 0) == 0)
      return (line + " ").find(" " + flag + " ") != std::string::npos;
  }
  return false;
}

TEST(CpuFeatures, AgreesWithTheKernelsFlags) {
  const auto& f = mantissa::numeric::cpuFeatures();
  EXPECT_EQ(f.avx2, procCpuinfoHasFlag("avx2"));
  EXPECT_EQ(f.f16c, procCpuinfoHasFlag("f16c"));
  EXPECT_EQ(f.avx512f, procCpuinfoHasFlag("avx512f"));
  EXPECT_EQ(f.avx512bf16, procCpuinfoHasFlag("avx512_bf16"));
  EXPECT_EQ(f.amxTile, procCpuinfoHasFlag("amx_tile"));
}

TEST(CpuFeatures, DescriptionCarriesTheOneBf16Label) {
  const std::string isa = mantissa::numeric::describeIsa();
  const auto& b = mantissa::kernels::bf16Support();
  const bool cpu = procCpuinfoHasFlag("avx512_bf16") || procCpuinfoHasFlag("amx_bf16");
  EXPECT_EQ(b.cpuHasBf16, cpu);
  EXPECT_NE(isa.find(b.label), std::string::npos) << isa;
  EXPECT_EQ(isa.find("Native BF16") != std::string::npos, b.native()) << isa;
  if (!cpu) { // without the instructions nothing may be called native
    EXPECT_EQ(isa.find("Native BF16"), std::string::npos) << isa;
  }
}

TEST(CpuFeatures, OnednnVersionIsTwoX) {
  EXPECT_EQ(mantissa::numeric::onednnVersion().rfind("2.", 0), 0u);
}

} // namespace
