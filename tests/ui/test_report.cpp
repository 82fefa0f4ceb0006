// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Run charts and run reports from a RunLog, opened after writing: PNG size,
// SVG paths per series, CSV rows per step, PDF page count, HTML with one SVG
// per chart; a report from the saved log equals the one from memory.
#include <mantissa/telemetry/frame.h>
#include <mantissa/train/run_log.h>
#include <mantissa/train/shadow.h>

#include "ui/charts/chart_widget.h"
#include "ui/charts/curve_chart.h"
#include "ui/report/run_charts.h"
#include "ui/report/run_report.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QLineSeries>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QXmlStreamReader>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

namespace {

using namespace mantissa;
using nlohmann::json;

constexpr int kSteps = 30;

telemetry::TelemetryFrame frameAt(std::int64_t step) {
  telemetry::TelemetryFrame frame;
  frame.step = step;
  for (int layer = 0; layer < 2; ++layer) {
    telemetry::TensorTelemetry t;
    t.layer = layer;
    t.cls = telemetry::TensorClass::WeightGrads;
    for (int e = -30; e <= -2; ++e)
      t.hist.bins[telemetry::ExponentHistogram::index(e)] = std::uint64_t(100 + e * e + step);
    t.hist.total = t.hist.finiteNonZero();
    frame.tensors.push_back(t);
  }
  frame.swamped = {0.0, 0.1};
  return frame;
}

// A small fp16-mixed run: 30 steps, a backoff at step 4, evals every 10
// steps, telemetry at steps 0, 10, 20.
train::RunLog makeLog() {
  train::RunLogBuilder b;
  b.add({{"header", true},
         {"config", {{"data", "spirals"}, {"model", "mlp:2-16-3:relu"}, {"recipe", "fp16-mixed"},
                     {"steps", kSteps}}},
         {"recipe_table", json::array({{{"op", "matmul"}, {"precision", "fp16"}, {"note", ""}}})},
         {"machine", {{"isa", "AVX2 FMA F16C"}}},
         {"matmul", "gemm:jit"}});
  double scale = 65536;
  for (int s = 0; s < kSteps; ++s) {
    json row = {{"step", s},
                {"loss", 1.1 - 0.02 * s},
                {"train_accuracy", 0.3 + 0.01 * s},
                {"loss_scale", scale},
                {"step_ms", 2.0 + (s % 3)},
                {"skipped", s == 4},
                {"found_inf", s == 4}};
    if (s == 4) {
      row["events"] = {{{"event", "backoff"}, {"scale_before", scale}, {"scale_after", scale / 2}}};
      scale /= 2;
      row["loss_scale"] = scale;
    }
    if (s % 10 == 0)
      row["telemetry"] = telemetry::toJson(frameAt(s));
    b.add(row);
    if ((s + 1) % 10 == 0)
      b.add({{"eval", true}, {"step", s + 1}, {"test_loss", 1.0 - 0.01 * s},
             {"test_accuracy", 0.5}, {"samples", 300}});
  }
  b.add({{"summary", true}, {"test_accuracy", 0.5}, {"steps", kSteps}, {"recipe", "fp16-mixed"}});
  return b.take();
}

QByteArray readAll(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

int pdfPages(const QByteArray& pdf) {
  return int(QString::fromLatin1(pdf).count(QRegularExpression("/Type\\s*/Page(?!s)")));
}

TEST(RunReport, ExportRunChartsWritesEveryChartAsSvgPngCsv) {
  const auto log = makeLog();
  QTemporaryDir dir;
  QStringList written;
  ui::ExportOptions options;
  options.size = QSize(800, 500);
  ASSERT_EQ(ui::exportRunCharts(log, dir.path(), options, &written), "");
  // loss, accuracy, loss_scale + 2 layers x steps 0, 10, 20; 3 files each.
  EXPECT_EQ(written.size(), (3 + 2 * 3) * 3);
  for (const char* name : {"loss", "accuracy", "loss_scale", "histogram_layer0_step0",
                           "histogram_layer1_step10", "histogram_layer1_step20"}) {
    const QImage png(QDir(dir.path()).filePath(QString(name) + ".png"));
    EXPECT_EQ(png.size(), QSize(800, 500)) << name;
    QXmlStreamReader xml(readAll(QDir(dir.path()).filePath(QString(name) + ".svg")));
    while (!xml.atEnd())
      xml.readNext();
    EXPECT_FALSE(xml.hasError()) << name << ": " << xml.errorString().toStdString();
  }
  // CSV: a header, then one train row per logged step and one test row per eval.
  const QStringList lines =
      QString::fromUtf8(readAll(QDir(dir.path()).filePath("loss.csv"))).split('\n', Qt::SkipEmptyParts);
  ASSERT_FALSE(lines.isEmpty());
  EXPECT_EQ(lines.front(), "run,curve,step,value");
  EXPECT_EQ(lines.filter(",train,").size(), kSteps);
  EXPECT_EQ(lines.filter(",test,").size(), 3);
  EXPECT_TRUE(lines.contains("fp16-mixed,train,29,0.52")) << "loss 1.1 - 0.02 * 29";
  const QStringList scale = QString::fromUtf8(readAll(QDir(dir.path()).filePath("loss_scale.csv")))
                                .split('\n', Qt::SkipEmptyParts);
  EXPECT_EQ(scale.size(), 1 + kSteps);
  EXPECT_TRUE(scale[5].startsWith("4,32768,15,")) << scale[5].toStdString();
  EXPECT_TRUE(scale[5].endsWith(",backoff")) << scale[5].toStdString();
}

TEST(RunReport, LossSvgHasOnePathPerSeries) {
  const auto log = makeLog();
  QString error;
  auto chart = ui::makeRunChart(log, {ui::RunChartKind::Loss}, &error);
  ASSERT_NE(chart, nullptr);
  const auto* curves = dynamic_cast<ui::CurveChart*>(chart.get());
  ASSERT_NE(curves, nullptr);
  const QString colour = curves->trainSeries("run1")->pen().color().name();
  QXmlStreamReader xml(ui::renderSvg(*chart, {}));
  int inColour = 0;
  int segments = 0;
  std::vector<QString> strokes{"none"};
  while (!xml.atEnd()) {
    xml.readNext();
    if (xml.isStartElement()) {
      const auto attrs = xml.attributes();
      strokes.push_back(attrs.hasAttribute("stroke") ? attrs.value("stroke").toString().toLower()
                                                     : strokes.back());
      if (xml.name() == QLatin1String("path") && strokes.back() == colour) {
        ++inColour;
        segments = std::max(segments, int(attrs.value("d").toString().count('L')));
      }
    } else if (xml.isEndElement()) {
      strokes.pop_back();
    }
  }
  ASSERT_FALSE(xml.hasError());
  EXPECT_EQ(inColour, 2) << "one train path and one test path in the run's colour";
  EXPECT_EQ(segments, kSteps - 1) << "the train curve: 30 points in one path";
}

TEST(RunReport, HistogramChartsNeedTelemetryAtThatStep) {
  const auto log = makeLog();
  QString error;
  EXPECT_EQ(ui::makeRunChart(log, {ui::RunChartKind::Histogram, 0, 7}, &error), nullptr);
  EXPECT_TRUE(error.contains("no telemetry at step 7 (telemetry steps: 0, 10, 20)"))
      << error.toStdString();
  EXPECT_EQ(ui::makeRunChart(log, {ui::RunChartKind::Histogram, 5, 10}, &error), nullptr);
  EXPECT_TRUE(error.contains("layer 5")) << error.toStdString();
  auto chart = ui::makeRunChart(log, {ui::RunChartKind::Histogram, 1, -1}, &error);
  ASSERT_NE(chart, nullptr);
  EXPECT_TRUE(chart->title().contains("layer 1 weight gradients, step 20"))
      << chart->title().toStdString();
  const auto spec = ui::parseRunChartSpec("histogram:1:10", &error);
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->layer, 1);
  EXPECT_EQ(spec->step, 10);
  EXPECT_FALSE(ui::parseRunChartSpec("histogram:x:10", &error));
  EXPECT_FALSE(ui::parseRunChartSpec("losses", &error));
  EXPECT_TRUE(error.contains("unknown chart 'losses'"));
}

TEST(RunReport, PdfHasTheTextPageAndTwoChartsPerPage) {
  const auto log = makeLog();
  const ui::RunReport report(log);
  ASSERT_EQ(report.charts().size(), 9u); // 3 curves + 2 layers x 3 steps
  int pages = 0;
  const QByteArray pdf = report.pdf(&pages);
  ASSERT_TRUE(pdf.startsWith("%PDF"));
  EXPECT_EQ(pdfPages(pdf), 1 + 5) << "one page of tables, then 9 charts two to a page";
  EXPECT_EQ(pages, 6);
  EXPECT_TRUE(pdf.contains("/Title")) << "document title set";

  ui::RunReportOptions one;
  one.histogramSteps = {10};
  EXPECT_EQ(pdfPages(ui::RunReport(log, one).pdf()), 1 + 3) << "5 charts";
}

TEST(RunReport, HtmlEmbedsOneSvgPerChartAndTheTables) {
  const auto log = makeLog();
  const QString html = QString::fromUtf8(ui::RunReport(log).html());
  EXPECT_TRUE(html.startsWith("<!DOCTYPE html>"));
  EXPECT_EQ(html.count("<svg"), 9);
  EXPECT_EQ(html.count("</svg>"), 9);
  EXPECT_FALSE(html.contains("<?xml")) << "SVG prologues stripped inside HTML";
  for (const char* text : {"Op precision", "<td>matmul</td><td>fp16</td>", "Machine and ISA",
                           "AVX2 FMA F16C", "Configuration", "<td>recipe</td><td>fp16-mixed</td>",
                           "median step", "figure id=\"histogram_layer0_step10\""})
    EXPECT_TRUE(html.contains(text)) << text;
  // Median step time: 2, 3, 4 ms repeating over 30 steps -> 3 ms.
  EXPECT_TRUE(html.contains("<td>median step</td><td>3 ms</td>"));
}

TEST(RunReport, ReportFromTheSavedLogEqualsTheLiveOne) {
  const auto live = makeLog();
  QTemporaryDir dir;
  const QString path = dir.filePath("run.jsonl");
  train::saveRun(live, path.toStdString());
  const auto saved = train::loadRunLog(path.toStdString());
  EXPECT_EQ(ui::RunReport(saved).html(), ui::RunReport(live).html());
  for (const auto& spec : ui::allRunCharts(live)) {
    QString error;
    const auto a = ui::makeRunFigure(live, spec, &error);
    const auto b = ui::makeRunFigure(saved, spec, &error);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->csv(), b->csv()) << ui::runChartStem(spec).toStdString();
    EXPECT_EQ(ui::renderSvg(*a, {}), ui::renderSvg(*b, {})) << ui::runChartStem(spec).toStdString();
  }
}

} // namespace

TEST(RunReport, ShadowedRunsGetTheErrorMapInExportsAndReports) {
  train::RunLogBuilder b;
  b.add({{"header", true},
         {"config", {{"data", "spirals"}, {"model", "mlp:2-16-3:relu"}, {"recipe", "bf16-mixed"},
                     {"steps", 30}}}});
  for (int s = 0; s < 30; ++s) {
    json row = {{"step", s}, {"loss", 1.0 - 0.01 * s}, {"step_ms", 2.0}};
    if (s % 10 == 0) {
      train::ShadowFrame f;
      f.step = s;
      f.reference = train::ShadowPrecision::F64;
      f.threshold = 0.01;
      for (const auto& [name, error] : {std::pair{"layer 0 output", 1e-3},
                                        std::pair{"layer 1 output", s == 0 ? 1e-3 : 0.25}}) {
        train::ShadowError e;
        e.tensor = name;
        e.format = DType::BF16;
        e.count = 64;
        e.tensorRelative = e.maxRelative = e.medianRelative = error;
        e.sqnrDb = -20.0 * std::log10(error);
        f.tensors.push_back(e);
      }
      if (s > 0)
        f.firstOver = 1;
      row["shadow"] = train::shadowFrameJson(f);
    }
    b.add(row);
  }
  const train::RunLog log = b.take();
  ASSERT_EQ(log.shadow.size(), 3u);

  QString error;
  const auto spec = ui::parseRunChartSpec("error", &error);
  ASSERT_TRUE(spec) << error.toStdString();
  EXPECT_EQ(spec->kind, ui::RunChartKind::Error);
  EXPECT_EQ(ui::runChartStem(*spec), "shadow_error");
  const auto map = ui::makeRunFigure(log, *spec, &error);
  ASSERT_NE(map, nullptr) << error.toStdString();
  // Header, then 2 tensors x 3 steps, with the errors the frames hold.
  const QStringList rows = map->csv().trimmed().split('\n');
  ASSERT_EQ(rows.size(), 1 + 6) << map->csv().toStdString();
  EXPECT_TRUE(rows[6].startsWith("20,FP64,0.01,layer 1 output,forward,BF16,64,0.25,"))
      << rows[6].toStdString();
  EXPECT_TRUE(rows[6].endsWith(",1")) << "the first tensor over the threshold";

  QTemporaryDir dir;
  QStringList written;
  ASSERT_EQ(ui::exportRunCharts(log, dir.path(), {}, &written), "");
  EXPECT_TRUE(written.contains(QDir(dir.path()).filePath("shadow_error.png")));
  EXPECT_EQ(QImage(QDir(dir.path()).filePath("shadow_error.png")).size(), QSize(1200, 750));
  EXPECT_EQ(readAll(QDir(dir.path()).filePath("shadow_error.csv")), map->csv().toUtf8());

  const ui::RunReport report(log);
  ASSERT_FALSE(report.charts().empty());
  EXPECT_EQ(report.charts().back().kind, ui::RunChartKind::Error);
  const QString html = QString::fromUtf8(report.html());
  EXPECT_TRUE(html.contains("figure id=\"shadow_error\"")) << "the error map is a figure";
  EXPECT_TRUE(html.contains("layer 1 output"));

  // A run without the shadow pass: no error map among its charts, and asking
  // for one says how to get it.
  const auto plain = makeLog();
  for (const auto& s : ui::allRunCharts(plain))
    EXPECT_NE(s.kind, ui::RunChartKind::Error);
  EXPECT_EQ(ui::makeRunFigure(plain, *spec, &error), nullptr);
  EXPECT_TRUE(error.contains("--shadow")) << error.toStdString();
}

namespace {

TEST(RunReport, UnwritablePathGivesAnErrorNamingIt) {
  const auto log = makeLog();
  const ui::RunReport report(log);
  const QString error = report.write("/proc/mantissa-none/report.pdf");
  EXPECT_TRUE(error.contains("/proc/mantissa-none/report.pdf")) << error.toStdString();
  EXPECT_TRUE(report.write("/tmp/report.txt").contains("must be .pdf or .html"));
  QTemporaryDir dir;
  EXPECT_NE(ui::exportRunCharts(log, "/proc/mantissa-none/charts", {}), "");
}

} // namespace

namespace {

// Every zlib-compressed stream of a PDF, inflated (the others as they are).
QList<QByteArray> pdfStreams(const QByteArray& pdf) {
  QList<QByteArray> out;
  for (qsizetype at = pdf.indexOf("stream"); at >= 0; at = pdf.indexOf("stream", at + 1)) {
    if (at >= 3 && pdf.mid(at - 3, 3) == "end")
      continue;
    qsizetype begin = at + 6;
    if (pdf.mid(begin, 2) == "\r\n")
      begin += 2;
    else if (pdf.mid(begin, 1) == "\n")
      begin += 1;
    const qsizetype end = pdf.indexOf("endstream", begin);
    if (end < 0)
      break;
    const QByteArray raw = pdf.mid(begin, end - begin);
    QByteArray sized(4, '\0');
    sized[1] = char(0x40); // a 4 MiB first guess of the inflated size
    const QByteArray inflated = qUncompress(sized + raw);
    out << (inflated.isEmpty() ? raw : inflated);
  }
  return out;
}

} // namespace

// The first page's Machine and ISA rows wrap a long ISA list and a long
// kernel name onto more lines instead of ending them in "…": no "…" is
// drawn (no font of the PDF maps a glyph to U+2026).
TEST(RunReport, PdfWrapsLongIsaAndKernelRowsInsteadOfElidingThem) {
  QStringList isa;
  for (const char* x : {"SSE4.2", "AVX", "AVX2", "FMA", "F16C", "AVX512F", "AVX512BW", "AVX512VL",
                        "AVX512DQ", "AVX512_VNNI", "AVX512_BF16", "AVX512_FP16", "AMX-TILE",
                        "AMX-BF16", "AMX-INT8", "AVX_VNNI", "GFNI", "VAES", "VPCLMULQDQ"})
    for (int i = 0; i < 2; ++i)
      isa << QString::fromLatin1(x);
  train::RunLogBuilder b;
  b.add({{"header", true},
         {"config", {{"data", "spirals"}, {"model", "mlp:2-16-3:relu"}, {"recipe", "fp32"}, {"steps", 2}}},
         {"machine", {{"isa", isa.join(u' ').toStdString()}}},
         {"matmul", "gemm:jit (oneDNN brgemm avx512_core_amx_bf16, blocked 32x32 with FP32 "
                    "accumulation, weights reordered once per step, threads 16)"}});
  for (int s = 0; s < 2; ++s)
    b.add({{"step", s}, {"loss", 1.0}, {"train_accuracy", 0.5}, {"step_ms", 1.0}});
  b.add({{"summary", true}, {"test_accuracy", 0.5}, {"steps", 2}, {"recipe", "fp32"}});
  const auto log = b.take();
  const QByteArray pdf = ui::RunReport(log).pdf();
  ASSERT_TRUE(pdf.startsWith("%PDF"));
  const QList<QByteArray> streams = pdfStreams(pdf);
  bool anyUnicodeMap = false;
  for (const QByteArray& s : streams) {
    if (!s.contains("beginbfchar") && !s.contains("beginbfrange"))
      continue;
    anyUnicodeMap = true;
    EXPECT_FALSE(s.toLower().contains("<2026>")) << "an elided text: " << s.toStdString();
  }
  EXPECT_TRUE(anyUnicodeMap) << "no ToUnicode map found in " << streams.size() << " streams";
}
