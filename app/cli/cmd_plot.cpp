// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli plot: one chart of a saved run, rendered without a display.
//   mantissa-cli plot RUN.jsonl --chart loss|accuracy|loss-scale|histogram[:LAYER:STEP]|error
//                     --out FILE.svg|png|pdf|csv|json [--width W --height H --dpi D --transparent]
// Also home of exportTrainedRun(), what `train --export DIR` calls at the end.
// Exit status: 0 written, 1 unreadable log / chart not in the log / write failed, 2 bad usage.
#include "args.h"
#include "commands.h"

#include "ui/charts/chart_widget.h"
#include "ui/report/headless_app.h"
#include "ui/report/run_charts.h"
#include "ui/report/run_report.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <sys/stat.h>
#include <unistd.h>

namespace mantissa::cli {

namespace {

std::optional<train::RunLog> loadLog(const char* command, const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    std::cerr << "mantissa-cli " << command << ": '" << path
              << "' is a directory; give the run's log file (written by train --log)\n";
    return std::nullopt;
  }
  try {
    return train::loadRunLog(path);
  } catch (const train::RunLogError& e) {
    std::cerr << "mantissa-cli " << command << ": " << e.what() << "\n";
    return std::nullopt;
  }
}

std::string g_runtimeDir; // removed at exit

void removeRuntimeDir() {
  std::error_code ec;
  std::filesystem::remove_all(g_runtimeDir, ec);
}

} // namespace

void usePrivateRuntimeDir() {
  // Qt wants XDG_RUNTIME_DIR to be a directory of ours with mode 0700, and
  // warns on every start without one (as under sudo, cron or ssh without a
  // login session). Files need none: give this process a private one.
  if (const char* dir = std::getenv("XDG_RUNTIME_DIR"); dir != nullptr && *dir != '\0') {
    struct stat st {};
    if (::stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() &&
        (st.st_mode & 0777) == 0700)
      return;
  }
  if (!g_runtimeDir.empty())
    return;
  std::string pattern = (std::filesystem::temp_directory_path() / "mantissa-cli-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    return; // Qt then says why itself
  g_runtimeDir = pattern;
  ::setenv("XDG_RUNTIME_DIR", g_runtimeDir.c_str(), 1);
  std::atexit(removeRuntimeDir);
}

std::optional<train::RunLog> loadRunLogForCli(const char* command, const std::string& path) {
  return loadLog(command, path);
}

int exportTrainedRun(const train::RunLog& log, const std::string& dir) {
  usePrivateRuntimeDir();
  ui::HeadlessApp app;
  QStringList written;
  if (QString error = ui::exportRun(log, QString::fromStdString(dir), &written); !error.isEmpty()) {
    std::cerr << "mantissa-cli train: --export: " << error.toStdString() << "\n";
    return 1;
  }
  std::cerr << "exported " << written.size() << " files to " << dir << "\n";
  return 0;
}

int runPlot(const Args& args) {
  ArgParser p("plot", "Render one chart of a saved run (a log of 'mantissa-cli train --log').");
  p.positional("RUN.jsonl", "The run's JSONL log");
  p.option("chart", "NAME", "loss, accuracy, loss-scale, histogram (last telemetry step, layer 0), "
                            "histogram:LAYER:STEP, or error (the shadow pass's error map of a run "
                            "trained with --shadow)");
  p.option("out", "FILE", "Output: .svg, .png, .pdf (or .csv / .json for the data)");
  p.option("width", "W", "Width in pixels (default 1200)");
  p.option("height", "H", "Height in pixels (default 750)");
  p.option("dpi", "D", "Dots per inch (default 150)");
  p.flag("transparent", "Transparent background instead of white");
  p.flag("scaled", "Histogram of a loss-scaled run: the values as stored, times the loss scale "
                   "(default)");
  p.flag("unscaled", "Histogram of a loss-scaled run: the unscaled values, with the format "
                     "regions moved by the loss scale");
  if (auto rc = p.parse(args))
    return *rc;
  if (p.has("scaled") && p.has("unscaled")) {
    std::cerr << "mantissa-cli plot: --scaled and --unscaled exclude each other\n";
    return 2;
  }
  if (!p.has("chart") || !p.has("out")) {
    std::cerr << "mantissa-cli plot: --chart and --out are required\n" << p.usage();
    return 2;
  }
  QString error;
  auto spec = ui::parseRunChartSpec(QString::fromStdString(lowerCase(p.value("chart"))), &error);
  if (!spec) {
    const std::string chart = p.value("chart");
    std::cerr << "mantissa-cli plot: " << error.toStdString()
              << didYouMean(chart.substr(0, chart.find(':')), {"loss", "accuracy", "loss-scale", "histogram", "error"})
              << "\n";
    return 2;
  }
  spec->scaled = !p.has("unscaled");
  const QString out = QString::fromStdString(p.value("out"));
  if (!ui::exportFormatForPath(out)) {
    std::cerr << "mantissa-cli plot: --out: '" << quoteInput(p.value("out"))
              << "' must end in .svg, .png, .pdf, .csv or .json\n";
    return 2;
  }
  ui::ExportOptions options;
  const auto integer = [&](const char* name, int& target, long long min, long long max) {
    if (auto v = p.optionalValue(name)) {
      auto x = parseInteger("plot", name, *v, min, max);
      if (!x)
        return false;
      target = int(*x);
    }
    return true;
  };
  int width = options.size.width();
  int height = options.size.height();
  if (!integer("width", width, 16, 16384) || !integer("height", height, 16, 16384) ||
      !integer("dpi", options.dpi, 36, 1200))
    return 2;
  options.size = QSize(width, height);
  if (p.has("transparent"))
    options.style.background = ui::ExportStyle::Background::Transparent;

  const auto log = loadLog("plot", *p.positionalValue("RUN.jsonl"));
  if (!log)
    return 1;
  usePrivateRuntimeDir();
  ui::HeadlessApp app;
  const auto chart = ui::makeRunFigure(*log, *spec, &error);
  if (!chart) {
    std::cerr << "mantissa-cli plot: " << p.value("chart") << ": " << error.toStdString() << "\n";
    return 1;
  }
  if (error = ui::exportChart(*chart, out, options); !error.isEmpty()) {
    std::cerr << "mantissa-cli plot: " << error.toStdString() << "\n";
    return 1;
  }
  return 0;
}

} // namespace mantissa::cli
