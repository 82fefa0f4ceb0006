// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli model: will a model's tensors survive FP16, BF16, FP8, MX or NVFP4?
//   mantissa-cli model model.safetensors              scan, table, verdicts
//   mantissa-cli model model.safetensors.index.json   a sharded model
//   mantissa-cli model model.gguf --list              the header only (no data read)
//   mantissa-cli model FILE --json                    the report as JSON
//   mantissa-cli model FILE --out r.html|r.pdf|t.csv|r.json
// Exit status: 0 done, 1 a file the readers refuse (the message names the
// field or tensor) or a failed write, 2 bad usage.
#include "args.h"
#include "commands.h"

#include <mantissa/inspect/model_file.h>
#include <mantissa/inspect/model_report.h>
#include <mantissa/inspect/model_scan.h>
#include <mantissa/io/atomic_file.h>

#ifdef MANTISSA_CLI_HAS_UI
#include "ui/report/headless_app.h"
#include "ui/report/model_report_pdf.h"
#endif

#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

namespace mantissa::cli {
namespace {

using namespace mantissa::inspect;

std::string shown(const std::string& s) { return quoteInput(s, 200); }

std::string fixed(double v, const char* f) {
  if (std::isnan(v))
    return "-";
  if (std::isinf(v))
    return v > 0 ? "exact" : "-inf";
  char b[48];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

void printListing(const ModelFile& m) {
  std::cout << shown(m.path().string()) << ": " << modelFormatName(m.format()) << ", "
            << m.tensors().size() << " tensors, " << m.fileBytes() << " bytes\n\n";
  std::vector<std::vector<std::string>> cells{{"name", "dtype", "shape", "bytes", "decoded"}};
  for (const ModelTensor& t : m.tensors())
    cells.push_back({shown(t.name), t.dtype, shapeText(t.shape), std::to_string(t.bytes),
                     t.decoded ? "yes" : "not decoded"});
  printTable(cells, 3);
  std::cout << "\nmetadata:" << (m.metadata().empty() ? " none\n" : "\n");
  for (const auto& [k, v] : m.metadata())
    std::cout << "  " << shown(k) << ": " << shown(v) << "\n";
}

void printScan(const ModelFile& m, const std::vector<TensorStats>& stats) {
  std::cout << shown(m.path().string()) << ": " << modelFormatName(m.format()) << ", "
            << m.tensors().size() << " tensors, " << m.fileBytes() << " bytes\n\n";
  std::vector<std::string> head{"name", "dtype", "shape", "absmax", "nan/inf", "absmax/rms"};
  for (Target t : kTargets)
    head.push_back(std::string(targetName(t)));
  std::vector<std::vector<std::string>> cells{head};
  for (std::size_t i = 0; i < m.tensors().size(); ++i) {
    const ModelTensor& t = m.tensors()[i];
    std::vector<std::string> row{shown(t.name), t.dtype, shapeText(t.shape)};
    if (!stats[i].scanned) {
      row.push_back("not decoded");
      row.resize(head.size(), "");
      cells.push_back(row);
      continue;
    }
    const TensorStats& s = stats[i];
    row.push_back(fixed(s.absmax, "%.4g"));
    row.push_back(std::to_string(s.nonFinite()));
    row.push_back(fixed(s.outlierRatio(), "%.1f"));
    // SQNR in dB; '!' marks overflow (casts) or NaN blocks (block schemes).
    for (Target tg : kTargets) {
      const TargetStats& ts = s.at(tg);
      const bool bad = targetIsBlock(tg) ? ts.poisonedBlocks > 0 : ts.overflow > 0;
      row.push_back((bad ? "!" : "") + fixed(ts.sqnrDb(), "%.1f"));
    }
    cells.push_back(row);
  }
  printTable(cells, 3);
  std::cout << "\nSQNR in dB per target format; '!' marks overflow (or NaN blocks).\n\nVerdicts:\n";
  for (const FormatVerdict& v : verdicts(m, stats))
    std::cout << "  " << quoteInput(v.text, 2000) << "\n";
  const auto pairs = pairScales(m);
  if (!pairs.empty()) {
    std::cout << "\nScales:\n";
    for (const ScalePairing& p : pairs)
      std::cout << "  " << shown(m.tensors()[p.tensor].name) << ": " << scaleKindName(p.kind)
                << (p.scale ? " <- " + shown(m.tensors()[*p.scale].name) : "")
                << (p.note.empty() ? "" : " (" + shown(p.note) + ")") << "\n";
  }
}

} // namespace

int runModel(const Args& args) {
  ArgParser p("model", "Scan a model file (safetensors, a sharded model's index.json, or GGUF): "
                       "per tensor its range, zeros, NaN/inf and exponent histogram, and for each "
                       "target format (FP16, BF16, FP8, MXFP8/6/4, NVFP4, FP8 block-128) the "
                       "overflow, underflow, SQNR and clipped blocks, with a verdict per format.");
  p.positional("FILE", "model.safetensors, model.safetensors.index.json or model.gguf");
  p.flag("list", "List the header only (tensors and metadata); no tensor data is read");
  p.flag("json", "Print the report as one JSON object");
  p.option("out", "FILE", "Write the report: FILE.html, FILE.pdf, FILE.csv (one row per tensor) "
                          "or FILE.json");
  if (auto rc = p.parse(args))
    return *rc;
  std::string out, ext;
  if (auto o = p.optionalValue("out")) {
    out = *o;
    const auto dot = out.rfind('.');
    ext = lowerCase(dot == std::string::npos ? "" : out.substr(dot));
    if (ext != ".html" && ext != ".htm" && ext != ".csv" && ext != ".json" && ext != ".pdf") {
      std::cerr << "mantissa-cli model: --out: '" << quoteInput(out)
                << "' must end in .html, .pdf, .csv or .json\n";
      return 2;
    }
#ifndef MANTISSA_CLI_HAS_UI
    if (ext == ".pdf") {
      std::cerr << "mantissa-cli model: --out FILE.pdf needs a build with the GUI libraries\n";
      return 2;
    }
#endif
  }
  std::optional<ModelFile> model;
  try {
    model.emplace(ModelFile::open(*p.positionalValue("FILE")));
  } catch (const ModelFileError& e) {
    std::cerr << "mantissa-cli model: " << shown(e.what()) << "\n";
    return 1;
  }
  if (p.has("list")) {
    printListing(*model);
    return 0;
  }
  const auto stats = scanModel(*model);
  try {
    if (ext == ".pdf") {
#ifdef MANTISSA_CLI_HAS_UI
      usePrivateRuntimeDir();
      ui::HeadlessApp app;
      if (const std::string e = ui::writeModelReportPdf(reportHtml(*model, stats), out); !e.empty()) {
        std::cerr << "mantissa-cli model: " << e << "\n";
        return 1;
      }
#endif
    } else if (!ext.empty()) {
      io::writeFileAtomically(out, ext == ".csv"    ? reportCsv(*model, stats)
                                   : ext == ".json" ? reportJson(*model, stats)
                                                    : reportHtml(*model, stats));
    }
  } catch (const std::exception& e) {
    std::cerr << "mantissa-cli model: " << e.what() << "\n";
    return 1;
  }
  if (p.has("json"))
    std::cout << reportJson(*model, stats);
  else
    printScan(*model, stats);
  return 0;
}

} // namespace mantissa::cli
