// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli report and train --export: files opened after writing, the
// report from the saved log equal to the one exported live, clear errors.
#include "test_cli_report_run.h"

#include <nlohmann/json.hpp>

#include <regex>

using mantissa::test::readFile;
using mantissa::test::reportRun;
using mantissa::test::runCli;
namespace fs = std::filesystem;

namespace {

int pdfPages(const std::string& pdf) {
  const std::regex page("/Type\\s*/Page(?!s)");
  return int(std::distance(std::sregex_iterator(pdf.begin(), pdf.end(), page),
                           std::sregex_iterator()));
}

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

} // namespace

TEST(CliReport, TrainExportWritesEveryChartAndItsData) {
  const auto& run = reportRun();
  ASSERT_EQ(run.train.exitCode, 0) << run.train.err;
  // Telemetry at steps 0, 10, 20, 30: histograms at the first (0), middle (20)
  // and last (30) frames, for each of the 3 layers.
  std::vector<std::string> stems{"loss", "accuracy", "loss_scale"};
  for (int step : {0, 20, 30})
    for (int layer = 0; layer < 3; ++layer)
      stems.push_back("histogram_layer" + std::to_string(layer) + "_step" + std::to_string(step));
  for (const auto& stem : stems)
    for (const char* ext : {".svg", ".png", ".csv"})
      EXPECT_TRUE(fs::is_regular_file(run.exportDir / (stem + ext))) << stem << ext;
  EXPECT_TRUE(fs::is_regular_file(run.exportDir / "report.html"));
  const std::string png = readFile(run.exportDir / "loss.png");
  ASSERT_GE(png.size(), 24u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  // IHDR width and height, big-endian at bytes 16..23: the default 1200 x 750.
  const auto be32 = [&](std::size_t at) {
    return (std::uint32_t(std::uint8_t(png[at])) << 24) |
           (std::uint32_t(std::uint8_t(png[at + 1])) << 16) |
           (std::uint32_t(std::uint8_t(png[at + 2])) << 8) | std::uint32_t(std::uint8_t(png[at + 3]));
  };
  EXPECT_EQ(be32(16), 1200u);
  EXPECT_EQ(be32(20), 750u);
  // One train row per step of the log.
  const std::string csv = readFile(run.exportDir / "loss.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "run,curve,step,value");
  EXPECT_EQ(count(csv, ",train,"), 40);
  EXPECT_EQ(count(csv, ",test,"), 2);
}

TEST(CliReport, ReportFromTheSavedLogEqualsTheLiveExport) {
  const auto& run = reportRun();
  ASSERT_EQ(run.train.exitCode, 0) << run.train.err;
  const fs::path html = run.dir / "saved.html";
  auto r = runCli({"report", run.log.string(), "--out", html.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::string saved = readFile(html);
  EXPECT_EQ(saved, readFile(run.exportDir / "report.html"));
  EXPECT_EQ(count(saved, "<svg"), 3 + 9);
  for (const char* text : {"Op precision", "Machine and ISA", "Configuration", "Speed",
                           "<td>recipe</td><td>fp16-mixed</td>"})
    EXPECT_NE(saved.find(text), std::string::npos) << text;
}

TEST(CliReport, PdfHasTheExpectedPages) {
  const auto& run = reportRun();
  ASSERT_EQ(run.train.exitCode, 0) << run.train.err;
  const fs::path pdf = run.dir / "report.pdf";
  auto r = runCli({"report", run.log.string(), "--out", pdf.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::string bytes = readFile(pdf);
  ASSERT_EQ(bytes.substr(0, 4), "%PDF");
  // 12 charts two to a page after the tables (which take one or two pages).
  const int pages = pdfPages(bytes);
  EXPECT_TRUE(pages == 1 + 6 || pages == 2 + 6) << pages;
  r = runCli({"report", run.log.string(), "--out", pdf.string(), "--steps", "10"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(pdfPages(readFile(pdf)), pages - 6 + 3) << "3 curves + 3 histograms";
}

TEST(CliReport, AKilledRunStillMakesAReport) {
  const auto& run = reportRun();
  ASSERT_EQ(run.train.exitCode, 0) << run.train.err;
  // The log cut in the middle of step 25's line, as kill -9 leaves it.
  const std::string text = readFile(run.log);
  std::size_t at = 0;
  for (int line = 0; line < 1 + 25 + 1; ++line) // header, steps 0..24, eval after 20
    at = text.find('\n', at) + 1;
  const fs::path cut = run.dir / "cut.jsonl";
  std::ofstream(cut, std::ios::binary) << text.substr(0, at + 40);
  const fs::path html = run.dir / "cut.html";
  auto r = runCli({"report", cut.string(), "--out", html.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::string report = readFile(html);
  EXPECT_NE(report.find("<td>steps logged</td><td>25</td>"), std::string::npos);
  EXPECT_NE(report.find("run killed"), std::string::npos);
}

TEST(CliReport, ErrorsAreClearAndLeaveGoodFilesAlone) {
  const auto& run = reportRun();
  ASSERT_EQ(run.train.exitCode, 0) << run.train.err;
  auto r = runCli({"report", run.log.string()});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--out FILE.pdf or FILE.html"), std::string::npos) << r.err;
  r = runCli({"report", run.log.string(), "--out", "x.docx"});
  EXPECT_EQ(r.exitCode, 2);
  r = runCli({"report", (run.dir / "none.jsonl").string(), "--out", "x.pdf"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("cannot open run log"), std::string::npos) << r.err;
  const fs::path bad = run.dir / "bad.jsonl";
  std::ofstream(bad) << readFile(run.log).substr(0, 200) << "\n{\"step\": 1}\n";
  r = runCli({"report", bad.string(), "--out", "x.pdf"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("bad.jsonl:1: not valid JSON"), std::string::npos) << r.err;
  r = runCli({"report", run.log.string(), "--out", "/proc/mantissa-none/r.pdf"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/proc/mantissa-none/r.pdf"), std::string::npos) << r.err;
  // A histogram step without telemetry fails before anything is written.
  const fs::path good = run.dir / "good.html";
  std::ofstream(good) << "good report\n";
  r = runCli({"report", run.log.string(), "--out", good.string(), "--steps", "7"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("no telemetry at step 7"), std::string::npos) << r.err;
  EXPECT_EQ(readFile(good), "good report\n");
  // --export into a place where no directory can be made.
  r = runCli({"train", "--data", "spirals", "--model", "mlp:2-8-2", "--steps", "2", "--quiet",
              "--export", "/proc/mantissa-none/charts"});
  EXPECT_EQ(r.exitCode, 2); // found before training, like an unwritable --log
  EXPECT_EQ(r.err.find("training "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--export"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/proc/mantissa-none/charts"), std::string::npos) << r.err;
}

// A log whose frames name 500 layers: the report draws at most 96 histograms;
// more than 16 --steps are refused.
TEST(CliReport, ChartCountIsBounded) {
  const auto& run = reportRun();
  ASSERT_EQ(run.train.exitCode, 0) << run.train.err;
  nlohmann::json tensors = nlohmann::json::array();
  for (int layer = 0; layer < 500; ++layer) {
    nlohmann::json t = {{"layer", layer}, {"class", "weight_grads"}, {"scaled", false},
                        {"loss_scale", 1.0}, {"lo", 0}, {"counts", {3}}, {"zeros", 0},
                        {"pos_inf", 0}, {"neg_inf", 0}, {"nan", 0}, {"total", 3}};
    nlohmann::json cast = nlohmann::json::object();
    for (const char* name : {"fp16", "bf16", "fp8-e4m3", "fp8-e5m2"})
      cast[name] = {0.0, 0.0, 0.0, 0.0};
    t["cast"] = cast;
    tensors.push_back(t);
  }
  const fs::path log = run.dir / "wide.jsonl";
  {
    std::ofstream out(log);
    for (int step = 0; step < 3; ++step)
      out << nlohmann::json{{"step", step}, {"loss", 1.0},
                            {"telemetry", {{"step", step}, {"tensors", tensors}, {"swamped", nlohmann::json::array()}}}}
                 .dump()
          << "\n";
  }
  const fs::path html = run.dir / "wide.html";
  auto r = runCli({"report", log.string(), "--out", html.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::string text = readFile(html);
  EXPECT_LE(count(text, "<svg"), 3 + 96 + 8) << "charts drawn";
  EXPECT_GE(count(text, "<svg"), 96);
  std::string steps = "0";
  for (int i = 1; i <= 16; ++i)
    steps += ",0";
  r = runCli({"report", log.string(), "--out", html.string(), "--steps", steps});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--steps: more than 16 steps"), std::string::npos) << r.err;
}

// The histograms' caption names the format the run stored its weight
// gradients in, read from the log's recipe: BF16 for bf16-mixed and for
// fp8-delayed (whose dW is BF16; only X, W and dY are FP8), never FP16.
TEST(CliReport, HistogramCaptionNamesTheRunsOwnFormat) {
  const auto& run = reportRun();
  ASSERT_EQ(run.train.exitCode, 0) << run.train.err;
  for (const std::string recipe : {"bf16-mixed", "fp8-delayed"}) {
    const fs::path log = run.dir / ("formats_" + recipe + ".jsonl");
    auto r = runCli({"train", "--data", "spirals", "--model", "mlp:2-16-16-2:tanh", "--recipe",
                     recipe, "--steps", "12", "--batch", "32", "--telemetry-every", "4", "--log",
                     log.string(), "--quiet"});
    ASSERT_EQ(r.exitCode, 0) << recipe << ": " << r.err;
    const fs::path html = run.dir / ("formats_" + recipe + ".html");
    r = runCli({"report", log.string(), "--out", html.string()});
    ASSERT_EQ(r.exitCode, 0) << recipe << ": " << r.err;
    const std::string text = readFile(html);
    EXPECT_NE(text.find("BF16, the format the run stores them in"), std::string::npos) << recipe;
    EXPECT_EQ(text.find("16-bit format"), std::string::npos) << recipe;
    EXPECT_EQ(text.find("FP16"), std::string::npos) << recipe << ": the run has no FP16 tensor";
  }
}

// A GPT's run exports its charts like any run's: the loss curve with its
// validation points, and the report.
TEST(CliReport, TrainExportOfAGptWritesItsCharts) {
  const fs::path dir = fs::temp_directory_path() /
                       ("mantissa-cli-gpt-export-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const auto r = runCli({"train", "--model", "gpt:layers=1,heads=2,embd=16,ctx=16", "--batch", "4",
                         "--eval-batches", "2", "--steps", "4", "--eval-every", "2", "--quiet",
                         "--export", dir.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(fs::is_regular_file(dir / "report.html"));
  const std::string csv = readFile(dir / "loss.csv");
  EXPECT_EQ(count(csv, ",train,"), 4) << csv;
  EXPECT_EQ(count(csv, ",test,"), 2) << csv; // the evaluations at steps 2 and 4
  fs::remove_all(dir);
}
