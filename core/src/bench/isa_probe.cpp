// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "isa_probe_kernels.h"

#include <mantissa/bench/isa_probe.h>
#include <mantissa/io/atomic_file.h>
#include <mantissa/io/json_text.h>
#include <mantissa/io/regular_file.h>
#include <mantissa/kernels/matmul_path.h>
#include <mantissa/numeric/cpu_features.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace mantissa::bench {
namespace {

using Clock = std::chrono::steady_clock;
using Kernel = void (*)(std::int64_t, double*);

struct PathSpec {
  const char* id;
  const char* name;
  const char* instruction;
  double flopsPerInstruction;
  int chains; // instructions per loop iteration
  Kernel kernel;
};

const PathSpec kSpecs[] = {
    {"fp32_fma_avx2", "FP32 FMA (AVX2)", "vfmadd231ps ymm", 16, 12, detail::fmaAvx2},
    {"fp32_fma_avx512", "FP32 FMA (AVX-512)", "vfmadd231ps zmm", 32, 12, detail::fmaAvx512},
    {"bf16_dot_avx512", "BF16 dot product (AVX512_BF16)", "vdpbf16ps zmm", 64, 12,
     detail::dotBf16},
    {"fp16_fma_avx512", "FP16 FMA (AVX512_FP16)", "vfmadd231ph zmm", 64, 12, detail::fmaFp16},
    {"bf16_amx", "BF16 tiles (AMX)", "tdpbf16ps", 16384, 4, detail::dotAmx},
};

const PathSpec* specFor(const std::string& id) {
  for (const auto& s : kSpecs)
    if (id == s.id)
      return &s;
  return nullptr;
}

bool amxGranted() {
  static const bool granted = detail::requestAmxPermission();
  return granted;
}

// Empty when the path can run here, otherwise why not.
std::string absentReason(const std::string& id) {
  const auto& f = numeric::cpuFeatures();
  if (id == "fp32_fma_avx2")
    return f.avx2 && f.fma ? "" : "no AVX2 FMA in CPUID";
  if (id == "fp32_fma_avx512")
    return f.avx512f ? "" : "no AVX-512 in CPUID (or not enabled by the OS)";
  if (id == "bf16_dot_avx512")
    return f.avx512bf16 ? "" : "no AVX512_BF16 in CPUID";
  if (id == "fp16_fma_avx512")
    return f.avx512fp16 ? "" : "no AVX512_FP16 in CPUID";
  if (id == "bf16_amx") {
    if (!(f.amxTile && f.amxBf16))
      return "no AMX-BF16 in CPUID";
    return amxGranted() ? "" : "AMX present but the OS refused tile state (arch_prctl)";
  }
  return "unknown path";
}

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// Iterations one call should run so it takes about `target` seconds.
std::int64_t calibrate(const PathSpec& s, double target) {
  double out[kProbeChains];
  std::int64_t n = 1024;
  for (;;) {
    const auto t0 = Clock::now();
    s.kernel(n, out);
    const double dt = seconds(Clock::now() - t0);
    if (dt > 0.5e-3 || n > (std::int64_t{1} << 30))
      return std::max<std::int64_t>(1024, std::int64_t(double(n) * target / std::max(dt, 1e-9)));
    n *= 4;
  }
}

// Best GFLOP/s of one call, calls repeated until `budget` seconds passed.
double bestRate(const PathSpec& s, std::int64_t n, double budget) {
  double out[kProbeChains];
  const double flopsPerCall = double(n) * s.chains * s.flopsPerInstruction;
  double best = 0;
  const auto end = Clock::now() + std::chrono::duration<double>(budget);
  do {
    const auto t0 = Clock::now();
    s.kernel(n, out);
    const double dt = seconds(Clock::now() - t0);
    best = std::max(best, flopsPerCall / dt / 1e9);
  } while (Clock::now() < end);
  return best;
}

ProbePath measurePath(const PathSpec& s, int threads, double budget) {
  ProbePath p;
  p.id = s.id;
  p.name = s.name;
  p.instruction = s.instruction;
  p.flopsPerInstruction = s.flopsPerInstruction;
  p.absentReason = absentReason(s.id);
  p.present = p.absentReason.empty();
  if (!p.present)
    return p;
  const std::int64_t n = calibrate(s, 2e-3);
  p.gflopsPerCore = bestRate(s, n, budget);
  if (threads <= 1) {
    p.gflopsAllCores = p.gflopsPerCore;
    return p;
  }
  std::vector<double> rates(threads, 0.0);
  std::vector<std::thread> pool;
  std::atomic<int> ready{0};
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < threads)
        std::this_thread::yield();
      rates[t] = bestRate(s, n, budget);
    });
  for (auto& th : pool)
    th.join();
  for (double r : rates)
    p.gflopsAllCores += r;
  return p;
}

template <class T> T field(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key))
    throw std::invalid_argument(std::string("probe: missing field '") + key + "'");
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::invalid_argument(std::string("probe: field '") + key + "' has the wrong type");
  }
}

} // namespace

const ProbePath* IsaProbe::find(const std::string& id) const {
  for (const auto& p : paths)
    if (p.id == id)
      return &p;
  return nullptr;
}

const ProbePath* IsaProbe::fp32() const {
  for (const char* id : {"fp32_fma_avx512", "fp32_fma_avx2"})
    if (const ProbePath* p = find(id); p && p->present && p->gflopsPerCore > 0)
      return p;
  return nullptr;
}

double IsaProbe::ratioToFp32(const ProbePath& path) const {
  const ProbePath* base = fp32();
  if (!base || !path.present)
    return 0;
  return path.gflopsPerCore / base->gflopsPerCore;
}

std::string probeMachineKey() {
  const auto& f = numeric::cpuFeatures();
  return (f.modelName.empty() ? f.vendor : f.modelName) + " | " + numeric::describeCpuFlags() +
         " | " + std::to_string(std::max(1u, std::thread::hardware_concurrency())) + " threads";
}

IsaProbe measureIsaProbe(const ProbeOptions& options) {
  IsaProbe probe;
  probe.machineKey = probeMachineKey();
  probe.threads = int(std::max(1u, std::thread::hardware_concurrency()));
  const auto t0 = Clock::now();
  for (const auto& s : kSpecs)
    probe.paths.push_back(measurePath(s, probe.threads, options.secondsPerMeasurement));
  probe.seconds = seconds(Clock::now() - t0);
  return probe;
}

std::filesystem::path defaultProbeCacheFile() {
  return kernels::userCacheDir() / "isa_probe.json";
}

IsaProbe isaProbe(const std::optional<std::filesystem::path>& cacheFile) {
  const std::filesystem::path file = cacheFile.value_or(defaultProbeCacheFile());
  const std::string key = probeMachineKey();
  try {
    // A regular file of at most 1 MiB (a FIFO or a link to /dev/zero is not read).
    IsaProbe cached = probeFromJson(
        io::parseJsonText(io::readRegularFile(file, std::uintmax_t{1} << 20, "ISA probe cache")));
    if (cached.machineKey == key) {
      cached.fromCache = true;
      return cached;
    }
  } catch (const std::exception&) {
    // Unreadable or from an older layout: measure again below.
  }
  IsaProbe probe = measureIsaProbe();
  try {
    std::filesystem::create_directories(file.parent_path());
    io::writeFileAtomically(file, probeToJson(probe).dump(2) + "\n");
  } catch (const std::exception&) {
    // Not remembered; the measurement itself stands.
  }
  return probe;
}

nlohmann::json probeToJson(const IsaProbe& probe) {
  nlohmann::json paths = nlohmann::json::array();
  for (const auto& p : probe.paths) {
    nlohmann::json j{{"id", p.id},
                     {"name", p.name},
                     {"instruction", p.instruction},
                     {"flops_per_instruction", p.flopsPerInstruction},
                     {"present", p.present},
                     {"absent_reason", p.absentReason},
                     {"gflops_per_core", p.gflopsPerCore},
                     {"gflops_all_cores", p.gflopsAllCores},
                     {"ratio_to_fp32", probe.ratioToFp32(p)}};
    paths.push_back(std::move(j));
  }
  return {{"schema", 1},
          {"machine_key", probe.machineKey},
          {"threads", probe.threads},
          {"seconds", probe.seconds},
          {"from_cache", probe.fromCache},
          {"chains", kProbeChains},
          {"paths", std::move(paths)}};
}

IsaProbe probeFromJson(const nlohmann::json& j) {
  IsaProbe probe;
  if (field<int>(j, "schema") != 1)
    throw std::invalid_argument("probe: unknown schema");
  probe.machineKey = field<std::string>(j, "machine_key");
  probe.threads = field<int>(j, "threads");
  probe.seconds = field<double>(j, "seconds");
  probe.fromCache = field<bool>(j, "from_cache");
  const auto paths = field<nlohmann::json>(j, "paths");
  if (!paths.is_array())
    throw std::invalid_argument("probe: field 'paths' has the wrong type");
  for (const auto& pj : paths) {
    ProbePath p;
    p.id = field<std::string>(pj, "id");
    p.name = field<std::string>(pj, "name");
    p.instruction = field<std::string>(pj, "instruction");
    p.flopsPerInstruction = field<double>(pj, "flops_per_instruction");
    p.present = field<bool>(pj, "present");
    p.absentReason = field<std::string>(pj, "absent_reason");
    p.gflopsPerCore = field<double>(pj, "gflops_per_core");
    p.gflopsAllCores = field<double>(pj, "gflops_all_cores");
    probe.paths.push_back(std::move(p));
  }
  return probe;
}

bool runProbeKernel(const std::string& id, std::int64_t iterations, double out[kProbeChains]) {
  const PathSpec* s = specFor(id);
  if (!s || !absentReason(id).empty())
    return false;
  std::fill(out, out + kProbeChains, 0.0);
  s->kernel(iterations, out);
  return true;
}

} // namespace mantissa::bench
