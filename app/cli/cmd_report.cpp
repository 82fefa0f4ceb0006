// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli report: the run report (configuration, machine, op precision,
// curves, loss-scale trace, histograms, speed) of a saved run as PDF or HTML.
// Exit status: 0 written, 1 unreadable log or write failed, 2 bad usage.
#include "args.h"
#include "commands.h"

#include "ui/report/headless_app.h"
#include "ui/report/run_report.h"

#include <algorithm>
#include <iostream>

namespace mantissa::cli {

int runReport(const Args& args) {
  ArgParser p("report", "Write the report of a saved run (a log of 'mantissa-cli train --log').");
  p.positional("RUN.jsonl", "The run's JSONL log");
  p.option("out", "FILE", "Output: FILE.pdf (vector, multi-page) or FILE.html (embedded SVG)");
  p.option("steps", "S1,S2,...", "Telemetry steps whose histograms to show "
                                 "(default: first, middle and last)");
  p.flag("scaled", "Histograms of a loss-scaled run: the values as stored, times the loss scale "
                   "(default)");
  p.flag("unscaled", "Histograms of a loss-scaled run: the unscaled values, with the format "
                     "regions moved by the loss scale");
  if (auto rc = p.parse(args))
    return *rc;
  if (p.has("scaled") && p.has("unscaled")) {
    std::cerr << "mantissa-cli report: --scaled and --unscaled exclude each other\n";
    return 2;
  }
  const std::string out = p.value("out");
  const auto dot = out.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : out.substr(dot);
  if (out.empty()) {
    std::cerr << "mantissa-cli report: --out FILE.pdf or FILE.html is required\n";
    return 2;
  }
  if (const std::string e = lowerCase(ext); e != ".pdf" && e != ".html" && e != ".htm") {
    std::cerr << "mantissa-cli report: --out: '" << quoteInput(out)
              << "' must end in .pdf or .html (a report is written as PDF or HTML)\n";
    return 2;
  }
  ui::RunReportOptions options;
  options.scaledHistograms = !p.has("unscaled");
  if (auto steps = p.optionalValue("steps")) {
    std::size_t begin = 0;
    while (begin <= steps->size()) {
      const std::size_t end = std::min(steps->find(',', begin), steps->size());
      auto step = parseInteger("report", "steps", steps->substr(begin, end - begin), 0, 1LL << 40);
      if (!step)
        return 2;
      options.histogramSteps.push_back(*step);
      if (options.histogramSteps.size() > ui::kMaxReportSteps) {
        std::cerr << "mantissa-cli report: --steps: more than " << ui::kMaxReportSteps
                  << " steps\n";
        return 2;
      }
      begin = end + 1;
    }
  }
  const auto log = loadRunLogForCli("report", *p.positionalValue("RUN.jsonl"));
  if (!log)
    return 1;
  for (std::int64_t step : options.histogramSteps)
    if (!log->frameAt(step)) {
      std::cerr << "mantissa-cli report: --steps: the log has no telemetry at step " << step << "\n";
      return 1;
    }
  usePrivateRuntimeDir();
  ui::HeadlessApp app;
  if (QString error = ui::RunReport(*log, options).write(QString::fromStdString(out));
      !error.isEmpty()) {
    std::cerr << "mantissa-cli report: " << error.toStdString() << "\n";
    return 1;
  }
  return 0;
}

} // namespace mantissa::cli
