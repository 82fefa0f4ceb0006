// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli plot: one chart of a saved run in each format, opened after
// writing; the same chart as train --export wrote live; usage errors.
#include "test_cli_report_run.h"

#include <nlohmann/json.hpp>

#include <set>
#include <sstream>
#include <vector>

using mantissa::test::readFile;
using mantissa::test::reportRun;
using mantissa::test::runCli;
namespace fs = std::filesystem;

namespace {

std::uint32_t be32(const std::string& s, std::size_t at) {
  return (std::uint32_t(std::uint8_t(s[at])) << 24) | (std::uint32_t(std::uint8_t(s[at + 1])) << 16) |
         (std::uint32_t(std::uint8_t(s[at + 2])) << 8) | std::uint32_t(std::uint8_t(s[at + 3]));
}

} // namespace

TEST(CliPlot, PngHasTheRequestedSizeAndTransparency) {
  const auto& run = reportRun();
  ASSERT_EQ(run.train.exitCode, 0) << run.train.err;
  const fs::path out = run.dir / "plot.png";
  auto r = runCli({"plot", run.log.string(), "--chart", "loss", "--out", out.string(), "--width",
                   "640", "--height", "360", "--dpi", "200", "--transparent"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::string png = readFile(out);
  ASSERT_GE(png.size(), 26u);
  ASSERT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  EXPECT_EQ(be32(png, 16), 640u);
  EXPECT_EQ(be32(png, 20), 360u);
  EXPECT_EQ(std::uint8_t(png[25]), 6u) << "colour type 6: RGBA (transparent background)";
  // pHYs: 200 dpi = 7874 pixels per metre.
  const auto phys = png.find("pHYs");
  ASSERT_NE(phys, std::string::npos);
  EXPECT_EQ(be32(png, phys + 4), 7874u);
}

TEST(CliPlot, SvgAndCsvEqualWhatTheLiveRunExported) {
  const auto& run = reportRun();
  ASSERT_EQ(run.train.exitCode, 0) << run.train.err;
  for (const auto& [chart, stem] : std::vector<std::pair<std::string, std::string>>{
           {"loss", "loss"},
           {"accuracy", "accuracy"},
           {"loss-scale", "loss_scale"},
           {"histogram:1:20", "histogram_layer1_step20"}}) {
    for (const char* ext : {".svg", ".csv"}) {
      const fs::path out = run.dir / ("plot_" + stem + ext);
      auto r = runCli({"plot", run.log.string(), "--chart", chart, "--out", out.string()});
      ASSERT_EQ(r.exitCode, 0) << chart << ": " << r.err;
      EXPECT_EQ(readFile(out), readFile(run.exportDir / (stem + ext))) << chart << ext;
    }
  }
  const std::string svg = readFile(run.dir / "plot_loss.svg");
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

TEST(CliPlot, PdfIsOnePage) {
  const auto& run = reportRun();
  ASSERT_EQ(run.train.exitCode, 0) << run.train.err;
  const fs::path out = run.dir / "plot.pdf";
  auto r = runCli({"plot", run.log.string(), "--chart", "histogram", "--out", out.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::string pdf = readFile(out);
  EXPECT_EQ(pdf.substr(0, 4), "%PDF");
  EXPECT_NE(pdf.find("/Type /Page\n"), std::string::npos);
}

TEST(CliPlot, ErrorsAreClearAndLeaveGoodFilesAlone) {
  const auto& run = reportRun();
  ASSERT_EQ(run.train.exitCode, 0) << run.train.err;
  const std::string log = run.log.string();
  auto r = runCli({"plot", log, "--chart", "loss"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--chart and --out are required"), std::string::npos) << r.err;
  r = runCli({"plot", log, "--chart", "gradients", "--out", "x.svg"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("unknown chart 'gradients'"), std::string::npos) << r.err;
  r = runCli({"plot", log, "--chart", "loss", "--out", "x.gif"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("must end in .svg, .png, .pdf"), std::string::npos) << r.err;
  r = runCli({"plot", log, "--chart", "loss", "--out", "x.png", "--width", "5"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--width"), std::string::npos) << r.err;
  r = runCli({"plot", log, "--chart", "loss", "--out", "/proc/mantissa-none/x.svg"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/proc/mantissa-none/x.svg"), std::string::npos) << r.err;
  // A chart the log cannot draw: an error, and the existing file stays.
  const fs::path good = run.dir / "good.svg";
  std::ofstream(good) << "<svg/>\n";
  r = runCli({"plot", log, "--chart", "histogram:0:5", "--out", good.string()});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("no telemetry at step 5 (telemetry steps: 0, 10, 20, 30)"), std::string::npos)
      << r.err;
  EXPECT_EQ(readFile(good), "<svg/>\n");
}

// plot draws the regions of the format the run stored the weight gradients
// in (BF16 for bf16-mixed and fp8-delayed), labelled as such, and no FP16.
TEST(CliPlot, HistogramRegionsAreTheRunsOwnFormat) {
  const auto& run = reportRun();
  ASSERT_EQ(run.train.exitCode, 0) << run.train.err;
  for (const std::string recipe : {"bf16-mixed", "fp8-delayed"}) {
    const fs::path log = run.dir / ("plot_formats_" + recipe + ".jsonl");
    auto r = runCli({"train", "--data", "spirals", "--model", "mlp:2-16-16-2:tanh", "--recipe",
                     recipe, "--steps", "12", "--batch", "32", "--telemetry-every", "4", "--log",
                     log.string(), "--quiet"});
    ASSERT_EQ(r.exitCode, 0) << recipe << ": " << r.err;
    const fs::path out = run.dir / ("plot_formats_" + recipe + ".json");
    r = runCli({"plot", log.string(), "--chart", "histogram", "--out", out.string()});
    ASSERT_EQ(r.exitCode, 0) << recipe << ": " << r.err;
    const auto doc = nlohmann::json::parse(readFile(out));
    EXPECT_EQ(doc.value("runFormat", ""), "BF16") << recipe;
    ASSERT_TRUE(doc["regions"].is_array()) << recipe;
    ASSERT_FALSE(doc["regions"].empty()) << recipe;
    for (const auto& region : doc["regions"]) {
      const std::string label = region.value("label", "");
      EXPECT_EQ(label.rfind("BF16", 0), 0u) << recipe << ": " << label;
    }
    // The run's own limit: BF16 flushes below its smallest normal, 2^-126.
    EXPECT_EQ(doc["regions"][0].value("toLog2", 0.0), -126.0) << recipe;
  }
}

// The shadow pass's error map of a saved run: an fp32 run against its FP32
// reference is exact, so every tensor of every shadow step is 0 in the CSV;
// --export writes it beside the other charts; a run without the shadow pass
// is told how to get one.
TEST(CliPlot, ErrorMapOfAShadowedRun) {
  const auto& run = reportRun();
  ASSERT_EQ(run.train.exitCode, 0) << run.train.err;
  const fs::path log = run.dir / "shadow.jsonl", exported = run.dir / "shadow_export";
  auto r = runCli({"train", "--data", "spirals", "--model", "mlp:2-16-16-2:tanh", "--steps", "6",
                   "--batch", "32", "--telemetry-every", "3", "--shadow", "fp32", "--log",
                   log.string(), "--export", exported.string(), "--quiet"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const fs::path csv = run.dir / "shadow_error.csv";
  r = runCli({"plot", log.string(), "--chart", "error", "--out", csv.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::istringstream lines(readFile(csv));
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line.rfind("step,reference,threshold,tensor,pass,", 0), 0u) << line;
  std::set<std::string> steps;
  int rows = 0;
  while (std::getline(lines, line)) {
    std::vector<std::string> cells;
    std::istringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');)
      cells.push_back(cell);
    ASSERT_EQ(cells.size(), 14u) << line;
    steps.insert(cells[0]);
    EXPECT_EQ(cells[1], "FP32") << line;
    EXPECT_EQ(cells[9], "0") << "tensor error of " << cells[3] << ": " << line;
    ++rows;
  }
  EXPECT_TRUE(steps.count("0") && steps.count("3")) << "telemetry steps 0 and 3 were shadowed";
  EXPECT_GT(rows, 2 * 6) << "every weight, activation and gradient of both steps";
  const std::string png = readFile(exported / "shadow_error.png");
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));

  r = runCli({"plot", run.log.string(), "--chart", "error", "--out",
              (run.dir / "none.svg").string()});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("no shadow frames"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--shadow"), std::string::npos) << r.err;
}
