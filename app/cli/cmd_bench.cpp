// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli bench: the speed comparison (matmul throughput per
// backend, the machine's peak, conversions beside memcpy, whole training
// steps per recipe, the targets). Tables on stdout by default, one JSON
// object with --json (layout in core/include/mantissa/bench/bench_report.h);
// progress on stderr. Exit status: 0 measured, 1 error, 2 bad usage.
#include "args.h"
#include "commands.h"

#include <mantissa/bench/bench_report.h>
#include <mantissa/io/atomic_file.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
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
    const std::string col = std::string(kernels::backendName(m.backend)) + " " + dtypeLabel(m.dtype);
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
    std::printf(" %22s", (c + (emulated[c] ? " (emulated)" : "")).c_str());
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
  std::printf("\nPeak estimate, GFLOP/s\n");
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
  std::printf("\nBytes per recipe, MiB\n%-18s %9s %9s %11s %9s %9s %9s\n", "recipe", "weights",
              "master", "activations", "gradients", "opt state", "total");
  for (const auto& s : r.steps) {
    double total = 0;
    for (const auto& [role, n] : s.bytes)
      total += double(n);
    auto mib = [&](const char* role) {
      const auto it = s.bytes.find(role);
      return it == s.bytes.end() ? 0.0 : double(it->second) / 1048576.0;
    };
    std::printf("%-18s %9.2f %9.2f %11.2f %9.2f %9.2f %9.2f\n", s.recipe.c_str(), mib("weights"),
                mib("master weights"), mib("activations"), mib("gradients"),
                mib("optimizer state"), total / 1048576.0);
  }
}

void printTargets(const BenchReport& r) {
  std::printf("\nSpeed targets (this run)\n");
  for (const auto& t : r.targets)
    std::printf("  %-62s %8.2f  (target %s %.2f)  %s\n    %s\n", t.description.c_str(),
                t.measured, t.comparison.c_str(), t.threshold, t.met ? "MET" : "NOT MET",
                t.note.c_str());
  for (const auto& n : r.notes)
    std::printf("Note: %s\n", n.c_str());
}

} // namespace

int runBench(const Args& args) {
  ArgParser p("bench", "Measure matmul, conversion and training-step speed on this machine.");
  p.flag("quick", "Fewer sizes, recipes and repetitions (under 30 s on 2 cores)");
  p.flag("tiny", "Tiny sizes and a tiny model: checks that everything runs; figures mean nothing");
  p.flag("json", "Print one JSON object instead of tables");
  p.option("out", "FILE", "Also write the JSON report to FILE (atomically)");
  if (auto rc = p.parse(args))
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
  printMatmuls(report);
  printPeak(report);
  printConversions(report);
  printSteps(report);
  printTargets(report);
  std::fflush(stdout);
  return 0;
}

} // namespace mantissa::cli
