// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// What each arithmetic path of this CPU sustains, measured: the physical
// limit the Speed page and `bench --json` ("probe") compare against.
//
// Method: one loop per path keeps `kChains` independent accumulators in
// registers and issues one arithmetic instruction per chain per iteration,
// so neither memory nor dependency latency limits it; only the execution
// units do. Each path is timed on one thread ("per core") and on every
// hardware thread at once ("all cores"). A path this CPU (per CPUID) or the
// OS (AVX-512 / AMX state) lacks is reported absent and never executed: each
// kernel is compiled for its instruction set with a target attribute and only
// called after the check.
//
// Paths (FLOP per instruction, counting a multiply-add as 2):
//   fp32_fma_avx2    vfmadd231ps ymm     16
//   fp32_fma_avx512  vfmadd231ps zmm     32
//   bf16_dot_avx512  vdpbf16ps zmm       64   (16 lanes x 2 products, added)
//   fp16_fma_avx512  vfmadd231ph zmm     64
//   bf16_amx         tdpbf16ps           16384 (16 x 16 x 32 products)
//
// Each path is timed for a fixed budget per thread count (ProbeOptions), so
// the whole probe takes about 2 x budget x present paths plus a calibration
// call each: about 0.4 s with three paths. `seconds` records what it took
// (bench --json "probe.seconds").
//
// Results are remembered per machine in "<cache dir>/mantissa/isa_probe.json"
// (XDG_CACHE_HOME, else ~/.cache), keyed by the CPU model string and its
// flags; a machine with a different key measures again.

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mantissa::bench {

inline constexpr int kProbeChains = 12;

struct ProbePath {
  std::string id;          // "fp32_fma_avx512", ...
  std::string name;        // "FP32 FMA (AVX-512)"
  std::string instruction; // "vfmadd231ps zmm"
  double flopsPerInstruction = 0;
  bool present = false;
  std::string absentReason; // why not measured ("no AVX512_FP16 in CPUID")
  double gflopsPerCore = 0;  // one thread
  double gflopsAllCores = 0; // every hardware thread at once
};

struct IsaProbe {
  std::string machineKey; // "<cpu model> | <flags>"
  int threads = 0;        // threads of the all-cores run
  double seconds = 0;     // wall time the measurement took
  bool fromCache = false; // read from the cache file instead of measured now
  std::vector<ProbePath> paths;

  const ProbePath* find(const std::string& id) const;
  // The fastest present FP32 path (AVX-512 over AVX2), or nullptr.
  const ProbePath* fp32() const;
  // A path's per-core rate over the FP32 path's (0 when either is absent).
  double ratioToFp32(const ProbePath& path) const;
};

struct ProbeOptions {
  double secondsPerMeasurement = 0.06; // per path, per core count
};

// The machine key the cache is keyed by: CPU model and CPUID flags.
std::string probeMachineKey();

// Measures now (ignores and does not touch the cache).
IsaProbe measureIsaProbe(const ProbeOptions& options = {});

// The cached result for this machine if the cache holds one, else measures
// and stores it (atomically). A cache that cannot be read or written is
// ignored: the probe is measured and returned regardless.
IsaProbe isaProbe(const std::optional<std::filesystem::path>& cacheFile = std::nullopt);

// "<cache dir>/mantissa/isa_probe.json".
std::filesystem::path defaultProbeCacheFile();

nlohmann::json probeToJson(const IsaProbe& probe);
// Throws std::invalid_argument naming the first missing or mistyped field.
IsaProbe probeFromJson(const nlohmann::json& json);

// The probe kernels themselves, for tests: each runs `iterations` rounds of
// one instruction per chain (12 chains; AMX: 4 accumulator tiles, out[4..11]
// = 0) with every operand 1 (BF16/FP16 ones), starting accumulator c (chain
// c, every lane) at `c`, and writes each chain's lane 0 to out[c] as a
// double. Returns false without executing when the CPU or OS lacks the path.
// After n iterations chain c holds c + n x (products added per instruction
// per lane): 1 for the FMAs, 2 for vdpbf16ps, 32 for AMX.
bool runProbeKernel(const std::string& id, std::int64_t iterations, double out[kProbeChains]);

} // namespace mantissa::bench
