// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/kernels/matmul_path.h>
#include <mantissa/numeric/cpu_features.h>

#include <gtest/gtest.h>

#include <csetjmp>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

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

// The second source of truth: run one instruction of the extension and see
// whether the CPU (and the kernel, which must enable the register state)
// executes it or raises SIGILL.
sigjmp_buf g_illegal;
extern "C" void onIllegal(int) { siglongjmp(g_illegal, 1); }

bool executes(void (*instruction)()) {
  struct sigaction handler {}, previous {};
  handler.sa_handler = onIllegal;
  sigemptyset(&handler.sa_mask);
  sigaction(SIGILL, &handler, &previous);
  volatile bool ok = false;
  if (sigsetjmp(g_illegal, 1) == 0) {
    instruction();
    ok = true;
  }
  sigaction(SIGILL, &previous, nullptr);
  return ok;
}

#if defined(__x86_64__)
volatile float g_sink;
[[gnu::target("avx2")]] void runAvx2() {
  const __m256i a = _mm256_set1_epi32(g_sink > 0 ? 3 : 1);
  g_sink = static_cast<float>(_mm256_extract_epi32(_mm256_add_epi32(a, a), 0));
}
[[gnu::target("f16c")]] void runF16c() {
  g_sink = _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtps_ph(_mm_set1_ps(g_sink + 1.5f), 0)));
}
[[gnu::target("avx512f")]] void runAvx512f() {
  const __m512 a = _mm512_set1_ps(g_sink + 1.0f);
  alignas(64) float sum[16];
  _mm512_store_ps(sum, _mm512_add_ps(a, a));
  g_sink = sum[0];
}
[[gnu::target("avx512f,avx512bf16")]] void runAvx512Bf16() {
  const __m256bh r = _mm512_cvtneps_pbh(_mm512_set1_ps(g_sink + 1.0f));
  std::uint16_t first = 0;
  std::memcpy(&first, &r, sizeof first);
  g_sink = static_cast<float>(first);
}

[[gnu::target("avx512fp16")]] void runAvx512Fp16() {
  const __m512h a = _mm512_set1_ph(static_cast<_Float16>(g_sink + 1.0f));
  const __m512h sum = _mm512_add_ph(a, a);
  _Float16 first;
  std::memcpy(&first, &sum, sizeof first);
  g_sink = static_cast<float>(first);
}

TEST(CpuFeatures, AgreesWithWhatTheCpuExecutes) {
  const auto& f = mantissa::numeric::cpuFeatures();
  EXPECT_EQ(f.avx2, executes(runAvx2));
  EXPECT_EQ(f.f16c, executes(runF16c));
  EXPECT_EQ(f.avx512f, executes(runAvx512f));
  EXPECT_EQ(f.avx512bf16, executes(runAvx512Bf16));
  EXPECT_EQ(f.avx512fp16, executes(runAvx512Fp16)); // absent on many CPUs: the SIGILL path
}
#endif

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
