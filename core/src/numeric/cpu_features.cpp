// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/kernels/matmul_path.h>
#include <mantissa/numeric/cpu_features.h>

#include <oneapi/dnnl/dnnl.hpp>

#include <fstream>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace mantissa::numeric {
namespace {

CpuFeatures detect() {
  CpuFeatures f;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  f.avx2 = __builtin_cpu_supports("avx2");
  f.fma = __builtin_cpu_supports("fma");
  f.avx512f = __builtin_cpu_supports("avx512f");
  f.avx512bw = __builtin_cpu_supports("avx512bw");
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx))
    f.f16c = (ecx >> 29) & 1u;
  // Leaf 7: AVX512_FP16 (edx bit 23), AMX-BF16 (edx 22), AMX-TILE (edx 24);
  // sub-leaf 1: AVX512_BF16 (eax bit 5). The OS must also enable the state,
  // which __builtin_cpu_supports checks for avx512f.
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
    f.avx512fp16 = f.avx512f && ((edx >> 23) & 1u);
    f.amxBf16 = (edx >> 22) & 1u;
    f.amxTile = (edx >> 24) & 1u;
  }
  if (__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx))
    f.avx512bf16 = f.avx512f && ((eax >> 5) & 1u);
  unsigned vendor[4] = {};
  if (__get_cpuid(0, &eax, &vendor[0], &vendor[2], &vendor[1]))
    f.vendor.assign(reinterpret_cast<const char*>(vendor), 12);
#endif
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      if (auto colon = line.find(':'); colon != std::string::npos)
        f.modelName = line.substr(colon + 2);
      break;
    }
  }
  return f;
}

} // namespace

const CpuFeatures& cpuFeatures() {
  static const CpuFeatures features = detect();
  return features;
}

std::string describeCpuFlags() {
  const CpuFeatures& f = cpuFeatures();
  std::string s;
  auto add = [&](bool on, const char* name) {
    if (on)
      s += s.empty() ? name : std::string(" ") + name;
  };
  add(f.avx2, "AVX2");
  add(f.fma, "FMA");
  add(f.f16c, "F16C");
  add(f.avx512f, "AVX512F");
  add(f.avx512bf16, "AVX512_BF16");
  add(f.avx512fp16, "AVX512_FP16");
  add(f.amxTile && f.amxBf16, "AMX-BF16");
  return s.empty() ? "no vector extensions detected" : s;
}

std::string describeIsa() {
  return describeCpuFlags() + "; " + kernels::bf16Support().label;
}

std::string onednnVersion() {
  const dnnl_version_t* v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

std::string onednnIsa() {
  switch (dnnl::get_effective_cpu_isa()) {
  case dnnl::cpu_isa::sse41: return "sse41";
  case dnnl::cpu_isa::avx: return "avx";
  case dnnl::cpu_isa::avx2: return "avx2";
  case dnnl::cpu_isa::avx512_core: return "avx512_core";
  case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
  case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
  case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
  case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
  default: return "other";
  }
}

} // namespace mantissa::numeric
