// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// One short training run shared by the report / plot / export tests: trained
// once per test binary with --log and --export, so the live export and the
// saved log come from the same run.

#include "cli_runner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace mantissa::test {

struct ReportRun {
  std::filesystem::path dir;
  std::filesystem::path log;       // run.jsonl
  std::filesystem::path exportDir; // what train --export wrote
  CliResult train;
};

inline const ReportRun& reportRun() {
  static const ReportRun run = [] {
    ReportRun r;
    r.dir = std::filesystem::temp_directory_path() /
            ("mantissa_cli_report_" + std::to_string(::getpid()));
    std::filesystem::remove_all(r.dir);
    std::filesystem::create_directories(r.dir);
    r.log = r.dir / "run.jsonl";
    r.exportDir = r.dir / "export";
    r.train = runCli({"train", "--data", "spirals", "--model", "mlp:2-16-16-2:tanh", "--recipe",
                      "fp16-mixed", "--steps", "40", "--batch", "32", "--eval-every", "20",
                      "--telemetry-every", "10", "--log", r.log.string(), "--export",
                      r.exportDir.string(), "--quiet"});
    return r;
  }();
  return run;
}

inline std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace mantissa::test
