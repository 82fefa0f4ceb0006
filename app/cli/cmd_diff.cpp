// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli diff: where two runs part (train/run_diff.h).
//   mantissa-cli diff A.jsonl B.jsonl                  first divergence, then the table
//   mantissa-cli diff A.jsonl B.jsonl --tolerance-ulps 4 --json
//   mantissa-cli diff A.jsonl B.jsonl --out table.csv  the table as CSV too
// Exit status: 0 the runs differ nowhere within the tolerance, 1 they differ,
// 2 bad usage or an unreadable log.
#include "args.h"
#include "commands.h"

#include <mantissa/io/atomic_file.h>
#include <mantissa/train/run_diff.h>
#include <mantissa/train/run_log.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

namespace mantissa::cli {
namespace {

std::string shownNumber(double v) {
  if (std::isnan(v))
    return "-";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  return buffer;
}

std::string shown(const std::string& text) { return quoteInput(text, 200); }

std::string where(const train::RunDiffRow& r) {
  return "step " + std::to_string(r.step) + ", " + shown(r.tensor) + ", " +
         train::diffPassName(r.pass);
}

} // namespace

int runDiff(const Args& args) {
  ArgParser p("diff", "Compare two run logs (mantissa-cli train --log, or a PyTorch tap's) "
                      "step by step and tensor by tensor, and name the first (step, tensor, "
                      "pass) where they differ: by loss (in ULPs), by exponent histogram "
                      "(earth-mover distance) or by a recorded statistic (counts, cast "
                      "fractions, the bit sum). Exit status 0: no difference within the "
                      "tolerance; 1: they differ; 2: bad usage or an unreadable log.");
  p.positional("A.jsonl", "The first run's JSONL log");
  p.positional("B.jsonl", "The second run's JSONL log");
  p.option("tolerance-ulps", "N",
           "Losses and fractions within N ULPs of double count as equal (default 0)", "0");
  p.flag("json", "Print the result as JSON instead of text");
  p.option("out", "FILE", "Also write the table as CSV to FILE");
  if (auto rc = p.parse(args))
    return *rc;
  const auto tolerance =
      parseInteger("diff", "tolerance-ulps", p.value("tolerance-ulps"), 0, 1LL << 62);
  if (!tolerance)
    return 2;
  train::RunLog logs[2];
  const std::string paths[2] = {*p.positionalValue("A.jsonl"), *p.positionalValue("B.jsonl")};
  for (int k = 0; k < 2; ++k) {
    try {
      logs[k] = train::loadRunLog(paths[k]);
    } catch (const std::exception& e) {
      std::cerr << "mantissa-cli diff: " << e.what() << "\n";
      return 2;
    }
  }
  train::RunDiffOptions options;
  options.toleranceUlps = static_cast<std::uint64_t>(*tolerance);
  const train::RunDiff diff = train::diffRuns(logs[0], logs[1], options);

  if (const auto out = p.optionalValue("out")) {
    try {
      io::writeFileAtomically(*out, train::runDiffCsv(diff));
    } catch (const std::exception& e) {
      std::cerr << "mantissa-cli diff: --out: " << e.what() << "\n";
      return 2;
    }
  }
  if (p.has("json")) {
    std::cout << train::runDiffJson(diff).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
    return diff.differ() ? 1 : 0;
  }

  std::cout << "A: " << shown(paths[0]) << " (" << shown(logs[0].name()) << ")\n"
            << "B: " << shown(paths[1]) << " (" << shown(logs[1].name()) << ")\n"
            << "Compared " << diff.stepsCompared << " steps, " << diff.framesCompared
            << " telemetry frames, " << diff.tensorsCompared << " tensor pairs; tolerance "
            << options.toleranceUlps << " ULPs.\n";
  for (const auto& n : diff.notes)
    std::cout << "Note: " << shown(n) << "\n";
  if (!diff.differ()) {
    std::cout << "The runs differ nowhere.\n";
    return 0;
  }
  const auto& first = diff.rows.front();
  std::cout << "First divergence: " << where(first) << " (" << shown(first.detail) << ")\n\n";
  std::vector<std::vector<std::string>> cells;
  cells.push_back({"step", "pass", "tensor", "measure", "A", "B", "ULPs", "EMD", "detail"});
  for (const auto& r : diff.rows)
    cells.push_back({std::to_string(r.step), train::diffPassName(r.pass), shown(r.tensor),
                     shown(r.measure), shownNumber(r.a), shownNumber(r.b),
                     r.ulps > 0 ? shownNumber(r.ulps) : "-", r.emd > 0 ? shownNumber(r.emd) : "-",
                     shown(r.detail)});
  printTable(cells, 99);
  return 1;
}

} // namespace mantissa::cli
