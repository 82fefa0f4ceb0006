// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli scales: the scaling telemetry of a run trained with an FP8 or
// microscaling recipe (fp8-delayed, fp8-current, fp8-block, mxfp8, nvfp4).
//   mantissa-cli scales RUN.jsonl                     one line per scaled tensor
//   mantissa-cli scales RUN.jsonl --tensor h0.fc.dy   its trace, step by step
//   mantissa-cli scales RUN.jsonl --format csv        every tensor at every step
// Exit status: 0 printed, 1 unreadable log / no scaling telemetry / unknown
// tensor, 2 bad usage.
#include "args.h"
#include "commands.h"

#include <mantissa/telemetry/csv_writer.h>
#include <mantissa/train/run_log.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace mantissa::cli {
namespace {

std::string number(double v, const char* format = "%.6g") {
  if (std::isnan(v))
    return "-";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
}

std::string percent(double f) {
  return number(100.0 * f, "%.4g") + "%";
}

void csvHeader() {
  std::cout << "step,tensor,role,format,scale,scale_min,scale_max,amax,amax_history,history,"
               "count,saturated,lost_to_zero,subnormal,sqnr_db,blocks,blocks_clipped\n";
}

// Text from the log as the terminal gets it: control characters (escape
// sequences, newlines) and non-ASCII bytes escaped as \xNN.
std::string shown(const std::string& text) { return quoteInput(text, 1024); }

// Names from the log are CSV fields (RFC 4180: quoted when they hold a comma,
// a quote or a line break), so no name can forge a row.
void csvRow(std::int64_t step, const telemetry::ScaledTensorStats& t) {
  auto n = [](double v) { return std::isfinite(v) ? number(v, "%.9g") : std::string(); };
  std::cout << step << ',' << telemetry::formatCsvField(t.name) << ','
            << telemetry::scaledRoleKey(t.role) << ',' << telemetry::formatCsvField(t.format)
            << ',' << n(t.scale) << ',' << n(t.scaleMin) << ',' << n(t.scaleMax)
            << ',' << n(t.amax) << ',' << n(t.amaxHistory) << ',' << t.history << ',' << t.count
            << ',' << n(t.fractionSaturated) << ',' << n(t.fractionLostToZero) << ','
            << n(t.fractionSubnormal) << ',' << n(t.sqnrDb) << ',' << t.blocks << ','
            << t.blocksClipped << '\n';
}

} // namespace

int runScales(const Args& args) {
  ArgParser p("scales", "Print the scale and amax trace and the saturated, lost-to-zero and "
                        "subnormal fractions of every tensor an FP8 or microscaling recipe "
                        "scaled (a log of 'mantissa-cli train --log' with such a recipe).");
  p.positional("RUN.jsonl", "The run's JSONL log");
  p.option("tensor", "NAME", "One tensor's trace, step by step (names as the summary lists "
                             "them, e.g. h0.fc.dy or layer1.w)");
  p.option("every", "N", "With --tensor or --format csv: every N-th logged step (default 1)");
  p.option("format", "FMT", "text (default), csv or json");
  if (auto rc = p.parse(args))
    return *rc;
  const std::string format = lowerCase(p.optionalValue("format").value_or("text"));
  if (format != "text" && format != "csv" && format != "json") {
    std::cerr << "mantissa-cli scales: --format: '" << quoteInput(format)
              << "' is not text, csv or json" << didYouMean(format, {"text", "csv", "json"})
              << "\n";
    return 2;
  }
  long long every = 1;
  if (auto v = p.optionalValue("every")) {
    auto n = parseInteger("scales", "every", *v, 1, 1LL << 40);
    if (!n)
      return 2;
    every = *n;
  }
  const std::string path = *p.positionalValue("RUN.jsonl");
  train::RunLog log;
  try {
    log = train::loadRunLog(path);
  } catch (const std::exception& e) {
    std::cerr << "mantissa-cli scales: " << e.what() << "\n";
    return 1;
  }
  if (log.scaling.empty()) {
    std::cerr << "mantissa-cli scales: " << quoteInput(path) << " (" << log.name()
              << ") holds no scaling telemetry: only runs with an FP8 or microscaling recipe "
                 "(fp8-delayed, fp8-current, fp8-block, mxfp8, nvfp4) log it\n";
    return 1;
  }
  std::vector<std::string> names;
  for (const auto& f : log.scaling)
    for (const auto& t : f.tensors)
      if (std::find(names.begin(), names.end(), t.name) == names.end())
        names.push_back(t.name);
  const auto tensor = p.optionalValue("tensor");
  if (tensor && names.empty()) {
    std::cerr << "mantissa-cli scales: no tensor named '" << quoteInput(*tensor) << "' in "
              << quoteInput(path) << ": its " << log.scaling.size()
              << " scaling frames list no tensors\n";
    return 1;
  }
  if (tensor && std::find(names.begin(), names.end(), *tensor) == names.end()) {
    std::cerr << "mantissa-cli scales: no tensor named '" << quoteInput(*tensor) << "' in "
              << quoteInput(path) << didYouMean(*tensor, names) << " (" << names.size()
              << " scaled tensors: " << shown(names.front()) << ", ...)\n";
    return 1;
  }
  auto wanted = [&](const telemetry::ScaledTensorStats& t) { return !tensor || t.name == *tensor; };

  if (format == "json") {
    nlohmann::json out = nlohmann::json::array();
    for (std::size_t i = 0; i < log.scaling.size(); i += std::size_t(every)) {
      telemetry::ScalingFrame f{log.scaling[i].step, {}};
      for (const auto& t : log.scaling[i].tensors)
        if (wanted(t))
          f.tensors.push_back(t);
      out.push_back(telemetry::toJson(f));
    }
    std::cout << out.dump() << "\n";
    return 0;
  }
  if (format == "csv") {
    csvHeader();
    for (std::size_t i = 0; i < log.scaling.size(); i += std::size_t(every))
      for (const auto& t : log.scaling[i].tensors)
        if (wanted(t))
          csvRow(log.scaling[i].step, t);
    return 0;
  }
  if (tensor) {
    std::printf("%s: %s\n", shown(log.name()).c_str(), shown(*tensor).c_str());
    std::printf("%8s %12s %12s %12s %10s %10s %10s %9s\n", "step", "scale", "amax", "amax_hist",
                "saturated", "to_zero", "subnormal", "SQNR_dB");
    for (std::size_t i = 0; i < log.scaling.size(); i += std::size_t(every))
      if (const auto* t = log.scaling[i].find(*tensor))
        std::printf("%8lld %12s %12s %12s %10s %10s %10s %9s\n",
                    static_cast<long long>(log.scaling[i].step), number(t->scale).c_str(),
                    number(t->amax).c_str(), number(t->amaxHistory).c_str(),
                    percent(t->fractionSaturated).c_str(), percent(t->fractionLostToZero).c_str(),
                    percent(t->fractionSubnormal).c_str(), number(t->sqnrDb, "%.2f").c_str());
    return 0;
  }
  // Summary: per tensor, the last step's scale and amax, the range of its
  // scale over the run, the mean fractions and the mean SQNR.
  struct Summary {
    const telemetry::ScaledTensorStats* last = nullptr;
    double scaleMin = INFINITY, scaleMax = -INFINITY, saturated = 0, lost = 0, subnormal = 0,
           sqnr = 0;
    std::int64_t steps = 0, sqnrSteps = 0, clippedSteps = 0;
  };
  std::map<std::string, Summary> byName;
  for (const auto& f : log.scaling)
    for (const auto& t : f.tensors) {
      Summary& s = byName[t.name];
      s.last = &t;
      s.scaleMin = std::min(s.scaleMin, t.scaleMin);
      s.scaleMax = std::max(s.scaleMax, t.scaleMax);
      s.saturated += t.fractionSaturated;
      s.lost += t.fractionLostToZero;
      s.subnormal += t.fractionSubnormal;
      if (std::isfinite(t.sqnrDb)) {
        s.sqnr += t.sqnrDb;
        ++s.sqnrSteps;
      }
      s.clippedSteps += t.blocksClipped > 0 ? 1 : 0;
      ++s.steps;
    }
  std::printf("%s: %zu scaled tensors over %zu steps (%lld to %lld); fractions and SQNR are means "
              "over the steps\n",
              shown(log.name()).c_str(), names.size(), log.scaling.size(),
              static_cast<long long>(log.scaling.front().step),
              static_cast<long long>(log.scaling.back().step));
  std::printf("%-18s %-9s %12s %12s %23s %10s %10s %10s %8s\n", "tensor", "format", "scale",
              "amax", "scale range", "saturated", "to_zero", "subnormal", "SQNR_dB");
  for (const auto& name : names) {
    const Summary& s = byName[name];
    const double n = double(s.steps);
    const std::string range = number(s.scaleMin, "%.3g") + " .. " + number(s.scaleMax, "%.3g");
    std::printf("%-18s %-9s %12s %12s %23s %10s %10s %10s %8s\n", shown(name).c_str(),
                shown(s.last->format).c_str(), number(s.last->scale).c_str(),
                number(s.last->amax).c_str(), range.c_str(), percent(s.saturated / n).c_str(),
                percent(s.lost / n).c_str(), percent(s.subnormal / n).c_str(),
                s.sqnrSteps ? number(s.sqnr / double(s.sqnrSteps), "%.2f").c_str() : "-");
  }
  return 0;
}

} // namespace mantissa::cli
