// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// bench_run_diff: what `mantissa-cli diff` costs on two 2000-step GPT logs.
//
// The logs are built from the shakespeare-char preset's GPT as it logs
// itself: its header and one telemetry step row (every named tensor of the
// model) come from one real step of a Session; the 2000 step rows repeat that
// row with their own step and loss, a telemetry frame every K steps (--every,
// default the preset's cadence; 1 for a frame at every step), and the
// evaluations every 250 steps. B equals A up to its last 10 steps, where its
// loss differs: identical frames are the diff's worst case (no tensor
// stops being compared early). One repetition is what the command does:
// read both files (loadRunLog) and diffRuns(). Printed: the log sizes, the
// median time over repetitions, and the spread (min, max, CV).
//
// Usage: bench_run_diff [--repetitions N] [--every K] [--steps N]

#include <mantissa/train/presets.h>
#include <mantissa/train/run_diff.h>
#include <mantissa/train/run_log.h>
#include <mantissa/train/run_log_rows.h>
#include <mantissa/train/session.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>
#include <unistd.h>

using namespace mantissa;
using nlohmann::json;

int main(int argc, char** argv) {
  int repetitions = 7;
  int every = 0;
  int steps = 2000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--repetitions")
      repetitions = std::max(1, std::atoi(argv[i + 1]));
    else if (a == "--every")
      every = std::max(1, std::atoi(argv[i + 1]));
    else if (a == "--steps")
      steps = std::max(1, std::atoi(argv[i + 1]));
  }
  train::RunConfig config = train::findPreset("shakespeare-char")->runs.front();
  if (every == 0)
    every = config.telemetryEvery > 0 ? config.telemetryEvery : 10;
  config.telemetryEvery = 1; // the first step's frame; the run is not trained further
  train::Session session(config);
  const json header = train::runLogHeader(session);
  const json row = train::runLogStep(session, session.step());
  if (!row.contains("telemetry")) {
    std::fprintf(stderr, "bench_run_diff: the GPT's step row has no telemetry\n");
    return 1;
  }

  const auto dir = std::filesystem::temp_directory_path() /
                   ("mantissa_bench_run_diff_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::filesystem::path& path, bool b) {
    std::ofstream out(path);
    out << header.dump() << "\n";
    for (int s = 0; s < steps; ++s) {
      json r = row;
      r["step"] = s;
      double loss = 4.2 * std::exp(-s / 700.0) + 1.0;
      if (b && s >= steps - 10)
        loss = std::nextafter(loss, 10.0);
      r["loss"] = loss;
      if (s % every == 0)
        r["telemetry"]["step"] = s;
      else
        r.erase("telemetry");
      out << r.dump() << "\n";
      if ((s + 1) % 250 == 0)
        out << json{{"eval", true}, {"step", s + 1}, {"test_loss", loss}, {"val_loss", loss},
                    {"train_loss", loss}}
                   .dump()
            << "\n";
    }
  };
  const auto a = dir / "a.jsonl", b = dir / "b.jsonl";
  write(a, false);
  write(b, true);
  std::size_t tensors = row["telemetry"]["tensors"].size();
  std::printf("logs: %d steps, a frame every %d steps, %zu tensors per frame, %.1f MB each\n",
              steps, every, tensors,
              static_cast<double>(std::filesystem::file_size(a)) / 1e6);

  std::vector<double> ms, cpuMs, diffMs;
  std::size_t rows = 0;
  for (int r = 0; r < repetitions; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpu = std::clock();
    const auto la = train::loadRunLog(a);
    const auto lb = train::loadRunLog(b);
    const auto read = std::chrono::steady_clock::now();
    const auto d = train::diffRuns(la, lb);
    const auto end = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    diffMs.push_back(std::chrono::duration<double, std::milli>(end - read).count());
    cpuMs.push_back(1000.0 * double(std::clock() - cpu) / CLOCKS_PER_SEC);
    rows = d.rows.size();
    if (d.rows.empty() || d.rows.front().step != steps - 10) {
      std::fprintf(stderr, "bench_run_diff: expected the first divergence at step %d\n", steps - 10);
      return 1;
    }
  }
  std::filesystem::remove_all(dir);
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  const double mean = std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
  double var = 0.0;
  for (double v : ms)
    var += (v - mean) * (v - mean);
  const double cv = ms.size() > 1 ? std::sqrt(var / static_cast<double>(ms.size() - 1)) / mean : 0.0;
  const auto medianOf = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf("of which diffRuns: median %.0f ms; CPU time of read + diff: median %.0f ms\n",
              medianOf(diffMs), medianOf(cpuMs));
  std::printf("read both + diff: median %.0f ms over %d repetitions (min %.0f, max %.0f, CV %.1f%%); "
              "%zu rows; target < 2000 ms: %s\n",
              median, repetitions, sorted.front(), sorted.back(), 100.0 * cv, rows,
              median < 2000.0 ? "met" : "missed");
  return 0;
}
