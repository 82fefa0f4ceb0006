// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// bench_model_scan: the model scan (every target format) of one F32
// safetensors file of MANTISSA_BENCH_SCAN_MIB MiB (default 1024), beside
// `sha256sum` of the same file as the floor of reading it once. Google
// Benchmark, five repetitions: median, standard deviation and CV, and the
// bytes per second of each; the scan's CPU column counts every thread of
// the process, so its bytes per CPU second do not depend on other load.
// The file is written once into the temporary
// folder (random normal values, one outlier per row) and removed at exit.
// Target: the scan at >= 1 GB/s on 2 cores.
#include <mantissa/inspect/model_file.h>
#include <mantissa/inspect/model_scan.h>

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::uint64_t fileMiB() {
  const char* v = std::getenv("MANTISSA_BENCH_SCAN_MIB");
  const long n = v ? std::strtol(v, nullptr, 10) : 1024;
  return n > 0 ? std::uint64_t(n) : 1024;
}

const fs::path& benchFile() {
  static const fs::path path = [] {
    const fs::path p = fs::temp_directory_path() / ("mantissa-bench-scan-" + std::to_string(::getpid()) + ".safetensors");
    const std::uint64_t values = fileMiB() << 18, cols = 4096;
    std::string header = R"({"w":{"dtype":"F32","shape":[)" + std::to_string(values / cols) + "," +
                         std::to_string(cols) + R"(],"data_offsets":[0,)" + std::to_string(values * 4) + "]}}";
    header += std::string((8 - header.size() % 8) % 8, ' ');
    std::ofstream out(p, std::ios::binary);
    const std::uint64_t n = header.size();
    out.write(reinterpret_cast<const char*>(&n), 8);
    out << header;
    std::mt19937 rng(1);
    std::normal_distribution<float> g(0.0f, 0.02f);
    std::vector<float> row(1 << 20);
    for (std::uint64_t done = 0; done < values; done += row.size()) {
      for (std::size_t i = 0; i < row.size(); ++i)
        row[i] = (i % cols == 7) ? 300.0f * g(rng) : g(rng);
      out.write(reinterpret_cast<const char*>(row.data()), std::streamsize(row.size() * 4));
    }
    return p;
  }();
  return path;
}

void BM_ModelScan(benchmark::State& state) {
  const fs::path& p = benchFile();
  for (auto _ : state) {
    const auto model = mantissa::inspect::ModelFile::open(p);
    const auto stats = mantissa::inspect::scanModel(model);
    benchmark::DoNotOptimize(stats.front().absmax);
  }
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(fs::file_size(p)));
}

void BM_Sha256sum(benchmark::State& state) {
  const fs::path& p = benchFile();
  const std::string cmd = "sha256sum '" + p.string() + "' > /dev/null";
  for (auto _ : state)
    if (std::system(cmd.c_str()) != 0)
      state.SkipWithError("sha256sum failed");
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(fs::file_size(p)));
}

BENCHMARK(BM_ModelScan)->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime()->Iterations(1)->Repetitions(5);
BENCHMARK(BM_Sha256sum)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1)->Repetitions(5);

} // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::error_code ec;
  fs::remove(benchFile(), ec);
  return 0;
}
