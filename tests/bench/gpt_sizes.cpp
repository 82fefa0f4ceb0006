// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// bench_gpt --sizes: the GPT's step from shakespeare-char up to nanoGPT's
// full shakespeare_char model (bench/gpt_scaling.h), Mantissa beside PyTorch
// 1.13's bf16 autocast (pytorch_nanogpt_step.py) on the same model in the
// same run. Each size runs in a process of its own (this binary again, with
// --size-one), so that the peak resident set it reports is that size's.
// The first size is also timed at 1, 2, ... threads.
//
//   bench_gpt --sizes [--recipe NAME] [--json FILE] [--no-torch] [--sizes-up-to N]
#include "gpt_sizes.h"

#include <mantissa/bench/gpt_scaling.h>
#include <mantissa/io/atomic_file.h>
#include <mantissa/numeric/cpu_features.h>

#include <nlohmann/json.hpp>

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace mantissa;

namespace {

// Steps per size: one warm-up and three timed at the largest sizes (a step
// takes seconds there), more where steps are quick.
std::pair<int, int> stepsFor(const bench::GptSize& size) {
  const double flops = bench::gptStepFlops(size);
  if (flops > 2e11)
    return {1, 3};
  if (flops > 2e10)
    return {1, 5};
  return {3, 15};
}

std::int64_t peakRssBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0)
      return std::atoll(line.c_str() + 6) * 1024; // kB
  return 0;
}

// Runs `command`, returns its standard output (empty when it failed).
std::string capture(const std::string& command, int& status) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) {
    status = -1;
    return out;
  }
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    out.append(buffer.data(), n);
  status = pclose(pipe);
  return out;
}

std::string lastLine(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty())
      last = line;
  return last;
}

bench::GptScalingRow childRow(const std::string& self, std::size_t index, const std::string& recipe,
                              int threads, std::string& error) {
  int status = 0;
  const std::string out = capture("'" + self + "' --size-one " + std::to_string(index) +
                                      " --recipe '" + recipe + "' --threads " +
                                      std::to_string(threads),
                                  status);
  try {
    if (status != 0)
      throw std::runtime_error("exit status " + std::to_string(status));
    const bench::GptScaling one = bench::gptScalingFromJson(nlohmann::json::parse(lastLine(out)));
    if (one.rows.size() != 1)
      throw std::runtime_error("expected one size");
    return one.rows.front();
  } catch (const std::exception& e) {
    error = e.what();
    return {};
  }
}

std::optional<bench::TorchStep> torchStep(const bench::GptSize& s, int warmup, int steps,
                                          std::string& version, std::string& error) {
  const std::string script = std::string(MANTISSA_BENCH_DIR) + "/pytorch_nanogpt_step.py";
  char args[256];
  std::snprintf(args, sizeof args,
                " --layers %d --heads %d --embd %d --ctx %d --batch %d --vocab %d --warmup %d "
                "--steps %d --json 2>&1",
                s.layers, s.heads, s.embd, s.ctx, s.batch, s.vocab, warmup, steps);
  int status = 0;
  const std::string out = capture("/usr/bin/python3 '" + script + "'" + args, status);
  try {
    if (status != 0)
      throw std::runtime_error(lastLine(out).empty() ? "python3 failed" : lastLine(out));
    const nlohmann::json j = nlohmann::json::parse(lastLine(out));
    version = j.at("torch").get<std::string>();
    bench::TorchStep t;
    t.stepMs = j.at("median_ms").get<double>();
    t.stepMinMs = j.at("min_ms").get<double>();
    t.stepMaxMs = j.at("max_ms").get<double>();
    t.peakRssBytes = j.at("peak_rss_bytes").get<std::int64_t>();
    return t;
  } catch (const std::exception& e) {
    error = e.what();
    return std::nullopt;
  }
}

int sizeOne(int argc, char** argv) {
  std::size_t index = 0;
  std::string recipe = "bf16-mixed";
  int threads = 0;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--size-one") == 0)
      index = std::strtoul(argv[++i], nullptr, 10);
    else if (std::strcmp(argv[i], "--recipe") == 0)
      recipe = argv[++i];
    else if (std::strcmp(argv[i], "--threads") == 0)
      threads = std::atoi(argv[++i]);
  }
  if (index >= bench::gptScalingSizes().size()) {
    std::fprintf(stderr, "bench_gpt: --size-one takes 0..%zu\n", bench::gptScalingSizes().size() - 1);
    return 2;
  }
  if (threads > 0)
    omp_set_num_threads(threads);
  const bench::GptSize& size = bench::gptScalingSizes()[index];
  const auto [warmup, steps] = stepsFor(size);
  bench::GptScaling one;
  one.recipe = recipe;
  one.threads = omp_get_max_threads();
  try {
    bench::GptScalingRow row = bench::measureGptSize(size, recipe, warmup, steps);
    row.peakRssBytes = peakRssBytes();
    one.rows.push_back(row);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gpt: %s: %s\n", size.label().c_str(), e.what());
    return 1;
  }
  std::printf("%s\n", bench::gptScalingToJson(one).dump().c_str());
  return 0;
}

} // namespace

int runGptSizes(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--size-one") == 0)
      return sizeOne(argc, argv);
  std::string recipe = "bf16-mixed", jsonPath;
  bool torch = true;
  std::size_t upTo = bench::gptScalingSizes().size();
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--sizes") == 0)
      continue;
    if (std::strcmp(argv[i], "--recipe") == 0 && i + 1 < argc)
      recipe = argv[++i];
    else if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc)
      jsonPath = argv[++i];
    else if (std::strcmp(argv[i], "--no-torch") == 0)
      torch = false;
    else if (std::strcmp(argv[i], "--sizes-up-to") == 0 && i + 1 < argc)
      upTo = std::clamp<std::size_t>(std::strtoul(argv[++i], nullptr, 10), 1, upTo);
    else {
      std::fprintf(stderr, "usage: bench_gpt --sizes [--recipe NAME] [--json FILE] [--no-torch] "
                           "[--sizes-up-to N]\n");
      return 2;
    }
  }
  const std::string self = "/proc/" + std::to_string(getpid()) + "/exe";
  bench::GptScaling scaling;
  scaling.cpuModel = numeric::cpuFeatures().modelName;
  scaling.isa = numeric::describeIsa();
  scaling.recipe = recipe;
  scaling.threads = omp_get_max_threads();
  bench::setScalingPeak(scaling);
  std::printf("GPT step by model size, recipe %s, %d thread(s); CPU: %s\npeak for MFU: %.0f GFLOP/s "
              "(%s)\n\n",
              recipe.c_str(), scaling.threads, scaling.isa.c_str(), scaling.peakGflops,
              scaling.peakSource.c_str());
  std::printf("%-22s %9s %11s %8s %19s %9s %8s %8s %8s %9s | %10s %19s %9s %8s %10s\n", "size",
              "params", "GFLOP/step", "steps", "step ms (min-max)", "matmul ms", "GFLOP/s",
              "MFU mm", "MFU step", "RSS MiB", "torch ms", "(min-max)", "torch MFU", "ratio",
              "torch RSS");
  const std::size_t self_threads = std::size_t(std::max(1, scaling.threads));
  for (std::size_t i = 0; i < upTo; ++i) {
    const bench::GptSize& size = bench::gptScalingSizes()[i];
    std::string error;
    bench::GptScalingRow row = childRow(self, i, recipe, 0, error);
    if (!error.empty()) {
      std::printf("%-22s error: %s\n", size.label().c_str(), error.c_str());
      continue;
    }
    if (torch) {
      const auto [warmup, steps] = stepsFor(size);
      row.torch = torchStep(size, warmup, steps, scaling.torchVersion, row.torchError);
    } else {
      row.torchError = "not measured (--no-torch)";
    }
    std::printf("%-22s %9.2fM %11.2f %8d %8.1f (%4.0f-%4.0f) %9.1f %8.1f %7.0f%% %7.0f%% %9.0f |",
                size.label().c_str(), double(row.params) / 1e6, row.flopsPerStep / 1e9, row.steps,
                row.stepMs, row.stepMinMs, row.stepMaxMs, row.matmulMs, row.stepGflops(),
                100 * scaling.mfu(row.matmulGflops()), 100 * scaling.mfu(row.stepGflops()),
                double(row.peakRssBytes) / 1048576.0);
    if (row.torch)
      std::printf(" %10.1f (%7.0f-%7.0f) %8.0f%% %8.2f %10.0f\n", row.torch->stepMs,
                  row.torch->stepMinMs, row.torch->stepMaxMs, 100 * scaling.mfu(row.torchGflops()),
                  row.stepMs / row.torch->stepMs, double(row.torch->peakRssBytes) / 1048576.0);
    else
      std::printf(" %s\n", row.torchError.c_str());
    std::fflush(stdout);
    scaling.rows.push_back(row);
  }
  // The first size at 1, 2, ... threads.
  const std::size_t hw = std::max<std::size_t>(1, std::thread::hardware_concurrency());
  std::printf("\n%s at 1..%zu thread(s):", bench::gptScalingSizes()[0].label().c_str(),
              std::min(hw, self_threads));
  for (std::size_t t = 1; t <= std::min(hw, self_threads); ++t) {
    std::string error;
    const bench::GptScalingRow row = childRow(self, 0, recipe, int(t), error);
    if (!error.empty()) {
      std::printf(" %zu: error (%s)", t, error.c_str());
      continue;
    }
    scaling.threadsScaling.push_back({int(t), row.stepMs});
    std::printf(" %zu: %.1f ms", t, row.stepMs);
  }
  if (scaling.threadsScaling.size() >= 2)
    std::printf("; speed-up %.2fx",
                scaling.threadsScaling.front().stepMs / scaling.threadsScaling.back().stepMs);
  std::printf("\n\nGFLOP/step: matrix products, forward and backward (3 x forward; attention as "
              "the full T x T it computes); MFU mm: those FLOPs over the products' own time, over "
              "the peak; MFU step: over the whole step; RSS: the process's peak resident set "
              "(VmHWM; PyTorch: ru_maxrss), each size in a process of its own; ratio: Mantissa's "
              "step / PyTorch's.\n");
  if (!jsonPath.empty()) {
    try {
      io::writeFileAtomically(jsonPath, bench::gptScalingToJson(scaling).dump(2) + "\n");
      std::printf("Written: %s\n", jsonPath.c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_gpt: %s\n", e.what());
      return 1;
    }
  }
  return 0;
}
