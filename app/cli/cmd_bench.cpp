// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli bench: the speed comparison (what each arithmetic path of the
// CPU sustains, matmul throughput per backend, conversions beside memcpy,
// whole training steps per recipe, each recipe against fp32). Tables on stdout by default, one JSON
// object with --json (layout in core/include/mantissa/bench/bench_report.h);
// progress on stderr. Exit status: 0 measured, 1 error, 2 bad usage.
#include "args.h"
#include "commands.h"

#include <mantissa/bench/bench_report.h>
#include <mantissa/io/atomic_file.h>
#include <mantissa/kernels/fp16_gemm.h>
#include <mantissa/kernels/matmul_path.h>
#include <mantissa/kernels/threads.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>

namespace mantissa::cli {

namespace {

using bench::BenchReport;

std::string dtypeLabel(DType d) {
  return d == DType::F32 ? "fp32" : d == DType::BF16 ? "bf16" : "fp16";
}

void printMatmuls(const BenchReport& r) {
  // One row per shape, one column per backend + dtype.
  std::vector<std::string> columns;
  std::map<std::string, bool> emulated;
  std::vector<std::string> rows;
  std::map<std::pair<std::string, std::string>, double> cell;
  for (const auto& m : r.matmul) {
    const std::string col = std::string(kernels::backendName(m.backend)) + " " +
                            dtypeLabel(m.dtype) + (m.emulated ? " (emulated)" : "");
    const std::string row = std::to_string(m.m) + "x" + std::to_string(m.n) + "x" +
                            std::to_string(m.k) + (m.label == "square" ? "" : "  " + m.label);
    if (std::find(columns.begin(), columns.end(), col) == columns.end())
      columns.push_back(col);
    if (std::find(rows.begin(), rows.end(), row) == rows.end())
      rows.push_back(row);
    emulated[col] = emulated[col] || m.emulated;
    cell[{row, col}] = m.gflops;
  }
  std::printf("\nMatmul throughput, GFLOP/s (median of %d after %d warm-up; M x N x K)\n",
              r.matmulRepetitions, r.matmulWarmup);
  std::printf("%-40s", "shape");
  for (const auto& c : columns)
    std::printf(" %22s", c.c_str());
  std::printf("\n");
  for (const auto& row : rows) {
    std::printf("%-40s", row.c_str());
    for (const auto& c : columns) {
      const auto it = cell.find({row, c});
      if (it == cell.end())
        std::printf(" %22s", "-");
      else
        std::printf(" %22.1f", it->second);
    }
    std::printf("\n");
  }
  std::set<std::string> impls;
  for (const auto& m : r.matmul)
    impls.insert(std::string(kernels::backendName(m.backend)) + " " + dtypeLabel(m.dtype) + ": " +
                 m.implementation);
  std::printf("Kernels used:\n");
  for (const auto& i : impls)
    std::printf("  %s\n", i.c_str());
}

void printPeak(const BenchReport& r) {
  const auto& p = r.peak;
  std::printf("\nPeak, GFLOP/s (all cores)\n");
  std::printf("  fp32 %8.1f  (%s)\n", p.fp32Gflops, p.fp32Source.c_str());
  std::printf("  bf16 %8.1f  (%s)%s\n", p.bf16Gflops, p.bf16Source.c_str(),
              p.bf16Emulated ? " [BF16 emulated]" : "");
  std::printf("  calibrated %lld^3: fp32 %.1f, bf16 %.1f; theoretical: %s\n",
              static_cast<long long>(p.calibrationSize), p.fp32Calibrated, p.bf16Calibrated,
              p.theoreticalBasis.c_str());
}

void printConversions(const BenchReport& r) {
  std::printf("\nConversion throughput, GB/s (read + written; median of %d)\n",
              r.conversionRepetitions);
  std::printf("  %-14s %8.2f\n", "memcpy fp32", r.memcpyGbps);
  for (const auto& c : r.conversion)
    std::printf("  %-14s %8.2f  %5.2fx memcpy  (%s)\n", c.operation.c_str(), c.gbps,
                c.ratioToMemcpy, c.path.c_str());
}

void printSteps(const BenchReport& r) {
  std::printf("\nTraining step, %s, batch %d, MNIST (median of %d after %d warm-up), ms\n",
              r.stepModel.c_str(), r.stepBatch, r.stepRepetitions, r.stepWarmup);
  std::printf("%-18s %8s %6s | %7s %7s %7s %7s %7s %7s %7s %7s | %s\n", "recipe", "median",
              "CV", "matmul", "convert", "eltwise", "loss", "optim", "telem", "data", "other",
              "matmul kernel");
  for (const auto& s : r.steps) {
    const auto& b = s.breakdownMs;
    std::printf("%-18s %8.2f %5.1f%% | %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f | %s%s\n",
                s.recipe.c_str(), s.medianMs, 100 * s.cv, bench::matmulMs(s), b.conversion,
                b.elementwise, b.loss, b.optimizer, b.telemetry, b.data, bench::unattributedMs(s),
                s.matmulImplementation.c_str(), s.cv > r.noisyCv ? "  [noisy]" : "");
  }
  if (!r.cnnSteps.empty()) {
    std::printf("\nTraining step, %s, batch %d, Fashion-MNIST, ms: convolution apart from matmul\n",
                r.cnnModel.c_str(), r.cnnBatch);
    std::printf("%-18s %8s %6s | %7s %7s %7s %7s %7s | %s\n", "recipe", "median", "CV", "conv",
                "matmul", "step/()", "eltwise", "other", "convolution kernel");
    for (const auto& s : r.cnnSteps) {
      const auto& b = s.breakdownMs;
      const double products = b.convForward + b.convBackward + bench::matmulMs(s);
      std::printf("%-18s %8.2f %5.1f%% | %7.2f %7.2f %6.2fx %7.2f %7.2f | %s%s\n", s.recipe.c_str(),
                  s.medianMs, 100 * s.cv, b.convForward + b.convBackward, bench::matmulMs(s),
                  products > 0 ? s.meanMs / products : 0.0, b.elementwise,
                  bench::unattributedMs(s), s.convImplementation.c_str(),
                  s.cv > r.noisyCv ? "  [noisy]" : "");
    }
  }
  std::printf("\nBytes allocated per recipe, MiB\n%-18s %9s %9s %11s %9s %9s %11s %10s %9s\n",
              "recipe", "weights", "master", "activations", "gradients", "opt state",
              "matmul fp32", "scratchpad", "total");
  for (const auto& s : r.steps) {
    double total = 0;
    for (const auto& [role, n] : s.bytes)
      total += double(n);
    auto mib = [&](const char* role) {
      const auto it = s.bytes.find(role);
      return it == s.bytes.end() ? 0.0 : double(it->second) / 1048576.0;
    };
    std::printf("%-18s %9.2f %9.2f %11.2f %9.2f %9.2f %11.2f %10.2f %9.2f\n", s.recipe.c_str(),
                mib("weights"), mib("master weights"), mib("activations"), mib("gradients"),
                mib("optimizer state"), mib("matmul FP32 copies"), mib("oneDNN scratchpad"),
                total / 1048576.0);
  }
}

void printProbe(const BenchReport& r) {
  const auto& pr = r.probe;
  std::printf("\nWhat this CPU can do (ISA probe: %d independent chains in registers%s), GFLOP/s\n",
              bench::kProbeChains, pr.fromCache ? "; remembered for this machine" : "");
  std::printf("  %-32s %-17s %10s %10s %9s\n", "path", "instruction", "per core",
              ("all " + std::to_string(pr.threads)).c_str(), "vs FP32");
  for (const auto& p : pr.paths) {
    if (!p.present) {
      std::printf("  %-32s %-17s %s\n", p.name.c_str(), p.instruction.c_str(),
                  ("absent: " + p.absentReason).c_str());
      continue;
    }
    std::printf("  %-32s %-17s %10.1f %10.1f %8.2fx\n", p.name.c_str(), p.instruction.c_str(),
                p.gflopsPerCore, p.gflopsAllCores, pr.ratioToFp32(p));
  }
}

void printFp16Gemm(const BenchReport& r) {
  const auto& b = r.fp16Gemm;
  const auto& t = b.table;
  if (t.rowsByK.empty())
    return;
  std::printf("\nFP16 GEMM: FP16 accumulation added into FP32 every N_C products; relative error "
              "against double, max / median over %lld outputs (uniform(0,1) data)\n",
              static_cast<long long>(t.rows * t.cols));
  std::printf("  %6s", "K");
  for (int nc : t.promoteEvery)
    std::printf(" %17s", ("N_C " + kernels::fp16PromoteName(nc)).c_str());
  std::printf(" %17s\n", "FP32");
  for (const auto& row : t.rowsByK) {
    std::printf("  %6lld", static_cast<long long>(row.k));
    for (const auto& cell : row.fp16)
      std::printf("  %7.1e/%7.1e", cell.maxRelError, cell.medianRelError);
    std::printf("  %7.1e/%7.1e\n", row.fp32.maxRelError, row.fp32.medianRelError);
  }
  std::printf("  default N_C: %d\n", b.defaultPromoteEvery);
  if (!b.hardware) {
    std::printf("  speed: not measured (%s); FP16 matmuls run emulated in FP32\n", b.absentReason.c_str());
    return;
  }
  std::printf("  %lld^3, N_C %s: %.1f GFLOP/s (CV %.1f%%) vs oneDNN FP32 %.1f GFLOP/s (CV %.1f%%): %.2fx",
              static_cast<long long>(b.size), kernels::fp16PromoteName(b.promoteEvery).c_str(), b.gflops,
              100 * b.cv, b.onednnFp32Gflops, 100 * b.onednnFp32Cv, b.gflops / b.onednnFp32Gflops);
  if (b.fp16FmaPeakGflops > 0)
    std::printf(", %.0f%% of the FP16 FMA peak", 100 * b.gflops / b.fp16FmaPeakGflops);
  std::printf("\n  [%s]\n", b.implementation.c_str());
}

void printVersusFp32(const BenchReport& r) {
  std::printf("\nEach recipe against fp32 (median step time ratio; lower is faster)\n");
  for (const auto& c : r.versusFp32)
    std::printf("  %-18s %5.2fx  %s\n", c.recipe.c_str(), c.ratio, c.reason.c_str());
  for (const auto& s : r.steadyState)
    std::printf("  steady state, %s: %lld primitives created, %lld scratch buffers allocated "
                "in %d steps\n",
                s.recipe.c_str(), static_cast<long long>(s.primitivesCreated),
                static_cast<long long>(s.scratchAllocations), s.steps);
  for (const auto& n : r.notes)
    std::printf("Note: %s\n", n.c_str());
}

} // namespace

void addMatmulOption(ArgParser& p) {
  p.option("matmul", "PATH",
           "16-bit matmuls: native (oneDNN's BF16 kernel), fp32-compute (16-bit storage, "
           "FP32 kernel) or auto (time both per shape, use the faster; default)");
  p.option("fp16-accumulation", "N|never",
           "FP16 matmuls on CPUs with AVX512_FP16: add the FP16 partial sums into FP32 every N "
           "products (default 128), or never (pure FP16 accumulation)");
  p.option("threads", "N",
           "Threads of the step's kernels (default: OMP_NUM_THREADS when set, else one per CPU)");
}

std::optional<int> applyMatmulOption(const ArgParser& p, const char* command) {
  const std::string text = p.has("matmul") ? p.value("matmul") : "auto";
  const auto path = kernels::parseMatmulPath(text);
  if (!path) {
    std::cerr << "mantissa-cli " << command << ": --matmul: '" << text
              << "' is not one of native, fp32-compute, auto\n";
    return 2;
  }
  if (p.has("fp16-accumulation")) {
    const std::string nc = p.value("fp16-accumulation");
    const auto every = kernels::parseFp16PromoteEvery(nc);
    if (!every) {
      std::cerr << "mantissa-cli " << command << ": --fp16-accumulation: '" << nc
                << "' is not a number of products from 1 to 65536 or never\n";
      return 2;
    }
    kernels::setFp16PromoteEvery(*every);
  }
  if (p.has("threads")) {
    const std::string n = p.value("threads");
    char* end = nullptr;
    const long threads = std::strtol(n.c_str(), &end, 10);
    if (n.empty() || *end != '\0' || threads < 1 || threads > kernels::kMaxKernelThreads) {
      std::cerr << "mantissa-cli " << command << ": --threads: '" << n
                << "' is not a number of threads from 1 to " << kernels::kMaxKernelThreads << "\n";
      return 2;
    }
    kernels::setKernelThreads(int(threads));
    kernels::applyKernelThreads();
  }
  kernels::setMatmulPath(*path);
  if (*path == kernels::MatmulPath::Auto)
    kernels::setMatmulChoiceCache(kernels::userCacheDir() / "matmul_paths.json");
  return std::nullopt;
}

int runBench(const Args& args) {
  ArgParser p("bench", "Measure matmul, conversion and training-step speed on this machine.");
  p.flag("quick", "Fewer sizes, recipes and repetitions (under 30 s on 2 cores)");
  p.flag("tiny", "Tiny sizes and a tiny model: checks that everything runs; figures mean nothing");
  p.flag("json", "Print one JSON object instead of tables");
  p.option("out", "FILE", "Also write the JSON report to FILE (atomically)");
  addMatmulOption(p);
  if (auto rc = p.parse(args))
    return *rc;
  if (auto rc = applyMatmulOption(p, "bench"))
    return *rc;
  if (p.has("quick") && p.has("tiny")) {
    std::cerr << "mantissa-cli bench: --quick and --tiny exclude each other\n";
    return 2;
  }
  const auto options = p.has("tiny")    ? bench::BenchOptions::tiny()
                       : p.has("quick") ? bench::BenchOptions::quick()
                                        : bench::BenchOptions::full();
  std::string lastWhat;
  const auto report = bench::runBenchmarks(options, [&](double f, std::string_view what) {
    if (what != lastWhat) {
      lastWhat = what;
      std::fprintf(stderr, "[%3.0f%%] %.*s\n", 100 * f, int(what.size()), what.data());
    }
    return true;
  });
  const auto json = bench::toJson(report);
  if (p.has("out")) {
    try {
      io::writeFileAtomically(p.value("out"), json.dump(2) + "\n");
    } catch (const io::AtomicFileError& e) {
      std::cerr << "mantissa-cli bench: --out: " << e.what() << "\n";
      return 1;
    }
  }
  if (p.has("json")) {
    std::cout << json.dump(2) << "\n";
    return 0;
  }
  std::printf("Mantissa speed benchmark (%s)\nCPU: %s\nISA: %s\noneDNN %s (%s); %d thread(s); "
              "OMP_WAIT_POLICY: %s\n",
              report.mode.c_str(), report.cpuModel.c_str(), report.isa.c_str(),
              report.onednnVersion.c_str(), report.onednnIsa.c_str(), report.threads,
              report.ompWaitPolicy.c_str());
  printProbe(report);
  printMatmuls(report);
  printPeak(report);
  printConversions(report);
  printSteps(report);
  printFp16Gemm(report);
  printVersusFp32(report);
  std::fflush(stdout);
  return 0;
}

} // namespace mantissa::cli
