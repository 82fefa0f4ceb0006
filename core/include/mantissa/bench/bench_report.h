// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The whole speed comparison in one report: what each arithmetic path of the
// CPU sustains (the ISA probe), matmul throughput per backend and size,
// conversion throughput beside memcpy, whole training steps per recipe, the
// steady-state check, and each recipe's step against fp32 with the reason in
// words, all from this one run. `mantissa-cli bench` prints it,
// the GUI Speed panel draws it and remembers it (toJson / fromJson).
//
// JSON (toJson), keys in snake_case:
//   {"schema": 1, "mode": "full"|"quick"|"tiny", "cancelled": false,
//    "machine": {"cpu_model", "isa", "onednn_version", "onednn_isa",
//                "omp_wait_policy"}, "isa": "...", "threads": 2,
//    "method": {"matmul_warmup", "matmul_repetitions", "step_warmup",
//               "step_repetitions", "conversion_repetitions", "noisy_cv",
//               "step_model", "step_batch", "statistic"},
//    "matmul": [{"backend", "dtype", "m", "n", "k", "label", "gflops", "cv",
//                "emulated", "implementation", "threads"}],
//    "peak_gflops": {"fp32", "bf16", "fp32_source", "bf16_source",
//                    "fp32_calibrated", "bf16_calibrated", "bf16_emulated",
//                    "fp32_theoretical"|null, "bf16_theoretical"|null,
//                    "theoretical_basis", "calibration_size"},
//    "conversion": [{"from", "to", "path", "gbps", "cv", "ratio_to_memcpy"}],
//    "memcpy_gbps": 12.3,
//    "steps": [{"recipe", "median_ms", "mean_ms", "cv", "noisy",
//               "breakdown_ms": {"matmul", "matmul_forward", "matmul_backward",
//                 "conv_forward", "conv_backward",
//                 "conversion", "elementwise", "loss", "optimizer",
//                 "telemetry", "data", "unattributed"},
//               "bytes": {"weights", "master_weights", "activations",
//                         "gradients", "optimizer_state", "matmul_fp32_copies",
//                         "onednn_scratchpad", "total"}  (really allocated),
//               "bytes_at_recipe_precision": {"weights", ... "optimizer_state"},
//               "matmul_implementation", "emulated", "conv_implementation",
//               "matmuls": [every product, as a run log header's "matmuls"]}],
//    "cnn_steps": {"model": "cnn:lenet", "batch": 64, "steps": [as "steps"]},
//    "steady_state": [{"recipe", "steps", "primitives_created",
//                      "scratch_allocations"}],
//    "probe": {... see isa_probe.h probeToJson},
//    "versus_fp32": [{"recipe", "ratio", "reason"}],
//    "fp16_gemm": {"default_n_c": 128, "kernel": "AVX512_FP16"|"absent",
//                  "absent_reason": "no AVX512_FP16 in CPUID"|"",
//                  "error_table": {"k": [16, ...], "rows": 8, "cols": 64,
//                    "fp32_implementation", "data": "...",
//                    "columns": [{"n_c": "1"|...|"never"|
//                    "fp32", "max_rel_error": [...], "median_rel_error": [...]}]},
//                  "gemm": null | {"m", "n", "k", "n_c", "gflops", "cv",
//                    "onednn_fp32_gflops", "onednn_fp32_cv", "ratio_to_fp32",
//                    "fp16_fma_peak_gflops"|null, "fraction_of_peak"|null,
//                    "implementation"}},
//    "notes": ["..."]}
// A step's breakdown parts other than "matmul" (their sum) and
// "unattributed" add up to its mean_ms.

#include <mantissa/bench/conversion_bench.h>
#include <mantissa/bench/isa_probe.h>
#include <mantissa/bench/matmul_bench.h>
#include <mantissa/bench/step_bench.h>
#include <mantissa/kernels/fp16_gemm.h>
#include <mantissa/train/step_benchmark.h>

#include <nlohmann/json_fwd.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mantissa::bench {

struct BenchOptions {
  std::string mode = "full"; // "full", "quick" or "tiny": recorded in the report
  MatmulBenchOptions matmul;
  PeakOptions peak;
  ConversionBenchOptions conversion;
  train::StepBenchOptions steps; // model, batch, warm-up, repetitions, recipes
  // The CNN's steps (cnn:lenet, batch 64, Fashion-MNIST; fp32, bf16-mixed,
  // fp16-mixed), convolution timed apart from matmul; an empty model skips them.
  train::StepBenchOptions cnnSteps = defaultCnnSteps();
  static train::StepBenchOptions defaultCnnSteps();
  // ISA probe: remembered per machine in probeCache (default file when
  // unset), or measured afresh with `probe` when rememberProbe is false.
  bool rememberProbe = true;
  std::optional<std::filesystem::path> probeCache;
  ProbeOptions probe;
  int steadyStateSteps = 10;     // per recipe in steadyStateRecipes
  std::vector<std::string> steadyStateRecipes{"fp32", "bf16-mixed"};
  double noisyCv = 0.10; // a figure with a larger CV is marked noisy
  // The FP16 GEMM: its error table (portable kernel, every CPU) and, where
  // the CPU has AVX512_FP16, its speed at fp16GemmSize^3 beside oneDNN FP32.
  kernels::Fp16ErrorTableOptions fp16Table;
  std::int64_t fp16GemmSize = 1024;

  static BenchOptions full();
  // Every part, fewer sizes and repetitions: under 30 s on a 2-core machine.
  static BenchOptions quick();
  // Tiny sizes and model (MLP 784-32-10, batch 16) for tests of the plumbing;
  // its figures say nothing about the benchmark model.
  static BenchOptions tiny();
};

// One recipe's median step against fp32's in the same run, and why.
struct RecipeComparison {
  std::string recipe;
  double ratio = 0;   // median step / fp32's median step (1.2 = 20 % slower)
  std::string reason; // in words, from the probe and the matmul path that ran
};

// The FP16 GEMM's part of the report (fp16_gemm.h).
struct Fp16GemmBench {
  int defaultPromoteEvery = kernels::kDefaultFp16PromoteEvery;
  bool hardware = false;    // the AVX512_FP16 kernel exists and ran
  std::string absentReason; // why not, else ""
  kernels::Fp16ErrorTable table;
  // Speed, with hardware only: the kernel at the process N_C and oneDNN's
  // FP32 matmul on the same size, medians of the same run.
  std::int64_t size = 0;
  int promoteEvery = 0;
  double gflops = 0, cv = 0;
  double onednnFp32Gflops = 0, onednnFp32Cv = 0;
  double fp16FmaPeakGflops = 0; // ISA probe, all cores; 0 when absent
  std::string implementation;
};

struct BenchReport {
  std::string mode;
  bool cancelled = false;
  std::string cpuModel;
  std::string isa; // numeric::describeIsa()
  std::string onednnVersion;
  std::string onednnIsa;
  std::string ompWaitPolicy; // OMP_WAIT_POLICY as the process started, or "unset (...)"
  int threads = 0;
  int matmulWarmup = 0, matmulRepetitions = 0;
  int stepWarmup = 0, stepRepetitions = 0;
  int conversionRepetitions = 0;
  double noisyCv = 0.10; // a step or matmul figure with a larger CV is called noisy
  std::string stepModel; // "mlp:784-1024-1024-10"
  int stepBatch = 0;

  std::vector<MatmulResult> matmul;
  PeakEstimate peak;
  std::vector<ConversionResult> conversion; // conversions only (memcpy is memcpyGbps)
  double memcpyGbps = 0;
  std::vector<train::StepBenchResult> steps;
  std::string cnnModel; // "cnn:lenet", "" when not measured
  int cnnBatch = 0;
  std::vector<train::StepBenchResult> cnnSteps; // the CNN's steps per recipe
  std::vector<SteadyStateCounts> steadyState;
  IsaProbe probe;
  std::vector<RecipeComparison> versusFp32;
  Fp16GemmBench fp16Gemm;
  std::vector<std::string> notes; // noise, emulation, cancellation

  // The key results are remembered under: "<cpu model> | <isa>".
  std::string machineKey() const;
};

// Runs matmul sweep, peak, conversions, steps and the steady-state check in
// that order. progress() gets a fraction that never decreases (0 .. 1) and
// what runs next; when it returns false the run stops at the next
// measurement boundary and the report holds what was measured, cancelled =
// true. Pins nothing: threads are oneDNN's OpenMP default unless options say.
BenchReport runBenchmarks(const BenchOptions& options, const ProgressCallback& progress = {});

// Each measured recipe against fp32 (ratio and reason) from a report's steps
// and probe; empty without an fp32 step.
std::vector<RecipeComparison> compareWithFp32(const BenchReport& report);

// OMP_WAIT_POLICY of this process's environment, or "unset (libgomp default)".
std::string ompWaitPolicy();

nlohmann::json toJson(const BenchReport& report);
// Throws std::invalid_argument naming the first missing or mistyped field.
BenchReport fromJson(const nlohmann::json& json);

} // namespace mantissa::bench
