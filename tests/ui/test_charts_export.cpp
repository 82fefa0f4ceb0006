// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Export opens what it wrote: PNG decodes to the requested size and DPI, SVG
// parses as XML with one path per series, PDF is one page, CSV has a header
// and a row per point; a failed write (no directory, read-only, a full disk)
// is a clear error and leaves the old file intact.

#include "../core/file_size_limit.h"

#include "ui/charts/chart_export.h"
#include "ui/charts/histogram_heatmap.h"
#include "ui/charts/loss_chart.h"

#include <QChart>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLineSeries>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QTemporaryDir>
#include <QXmlStreamReader>

#include <gtest/gtest.h>

#include <unistd.h>

#include <vector>

namespace mantissa::ui {
namespace {

QList<QPointF> curve(int points, double offset) {
  QList<QPointF> out;
  for (int i = 0; i < points; ++i)
    out.append({i * 10.0, 2.0 / (1.0 + i * 0.1) + offset});
  return out;
}

// Two runs: 40 train points and 5 test points each, two skipped steps in run b.
void fill(LossChart& chart) {
  chart.resize(800, 500);
  chart.setRuns({{"a", "fp32", {}}, {"b", "fp16-mixed", {}}});
  chart.updateRun("a", curve(40, 0.0), curve(5, 0.1));
  chart.updateRun("b", curve(40, 0.05), curve(5, 0.15), {100.0, 200.0});
}

QByteArray readAll(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

struct SvgPath {
  QString stroke;
  QString fill;
  bool dashed;
  int segments; // "L" commands
};

// Every <path> with the stroke / fill / dash it inherits from its <g> parents.
std::vector<SvgPath> svgPaths(const QByteArray& svg, bool* wellFormed) {
  std::vector<SvgPath> paths;
  struct State {
    QString stroke, fill;
    bool dashed;
  };
  std::vector<State> stack{{"none", "none", false}};
  QXmlStreamReader xml(svg);
  while (!xml.atEnd()) {
    xml.readNext();
    if (xml.isStartElement()) {
      State state = stack.back();
      const auto attrs = xml.attributes();
      if (attrs.hasAttribute("stroke"))
        state.stroke = attrs.value("stroke").toString().toLower();
      if (attrs.hasAttribute("fill"))
        state.fill = attrs.value("fill").toString().toLower();
      if (attrs.hasAttribute("stroke-dasharray"))
        state.dashed = attrs.value("stroke-dasharray").toString() != "none";
      stack.push_back(state);
      if (xml.name() == QLatin1String("path")) {
        const QString d = attrs.value("d").toString();
        paths.push_back({state.stroke, state.fill, state.dashed, int(d.count('L'))});
      }
    } else if (xml.isEndElement()) {
      stack.pop_back();
    }
  }
  *wellFormed = !xml.hasError();
  return paths;
}

TEST(ChartsExport, PngDecodesToTheRequestedSizeAndDpi) {
  LossChart chart;
  fill(chart);
  QTemporaryDir dir;
  const QString path = dir.filePath("loss.png");
  ExportOptions options;
  options.size = QSize(640, 400);
  options.dpi = 200;
  ASSERT_EQ(exportChart(chart, path, options), "");
  QImage image(path);
  ASSERT_FALSE(image.isNull());
  EXPECT_EQ(image.size(), QSize(640, 400));
  EXPECT_NEAR(image.dotsPerMeterX() * 0.0254, 200.0, 0.5);
  EXPECT_EQ(image.pixelColor(2, 2), QColor(Qt::white)); // white background by default

  options.style.background = ExportStyle::Background::Transparent;
  ASSERT_EQ(exportChart(chart, path, options), "");
  EXPECT_EQ(QImage(path).pixelColor(2, 2).alpha(), 0);
}

TEST(ChartsExport, SvgHasOnePathPerSeries) {
  LossChart chart;
  fill(chart);
  QTemporaryDir dir;
  const QString path = dir.filePath("loss.svg");
  ASSERT_EQ(exportChart(chart, path), "");
  bool wellFormed = false;
  const std::vector<SvgPath> paths = svgPaths(readAll(path), &wellFormed);
  ASSERT_TRUE(wellFormed);
  for (const char* id : {"a", "b"}) {
    const QString colour = chart.trainSeries(id)->pen().color().name();
    int solid = 0;
    int dashed = 0;
    for (const SvgPath& p : paths) {
      if (p.stroke != colour)
        continue;
      if (p.dashed) {
        ++dashed;
        EXPECT_EQ(p.segments, 4) << "test curve: 5 points";
      } else {
        ++solid;
        EXPECT_EQ(p.segments, 39) << "train curve: 40 points in one path";
      }
    }
    EXPECT_EQ(solid, 1) << id;
    EXPECT_EQ(dashed, 1) << id;
  }
  // The skipped-step markers of run b: one filled path in its colour.
  const QString marker = chart.skippedSeries("b")->color().name();
  int markers = 0;
  for (const SvgPath& p : paths)
    markers += p.fill == marker ? 1 : 0;
  EXPECT_EQ(markers, 1);
}

TEST(ChartsExport, PdfIsOnePage) {
  LossChart chart;
  fill(chart);
  QTemporaryDir dir;
  const QString path = dir.filePath("loss.pdf");
  ASSERT_EQ(exportChart(chart, path), "");
  const QByteArray pdf = readAll(path);
  ASSERT_TRUE(pdf.startsWith("%PDF"));
  const auto pages = QString::fromLatin1(pdf).count(QRegularExpression("/Type\\s*/Page(?!s)"));
  EXPECT_EQ(pages, 1);
}

TEST(ChartsExport, CsvAndJsonAreTheChartsData) {
  LossChart chart;
  fill(chart);
  QTemporaryDir dir;
  ASSERT_EQ(exportChart(chart, dir.filePath("loss.csv")), "");
  const QStringList lines = QString::fromUtf8(readAll(dir.filePath("loss.csv"))).split('\n', Qt::SkipEmptyParts);
  EXPECT_EQ(lines.value(0), "run,curve,step,value");
  EXPECT_EQ(lines.size(), 1 + 2 * (40 + 5));
  ASSERT_EQ(exportChart(chart, dir.filePath("loss.JSON")), "");
  EXPECT_TRUE(readAll(dir.filePath("loss.JSON")).contains("\"fp16-mixed\""));
}

TEST(ChartsExport, CustomPaintedChartsExportToo) {
  HistogramHeatmap heatmap;
  telemetry::ExponentHistogram h;
  h.bins[h.index(-10)] = 7;
  ASSERT_TRUE(heatmap.setHistory({0, 100}, {h, h}));
  QTemporaryDir dir;
  ExportOptions options;
  options.size = QSize(500, 300);
  ASSERT_EQ(exportChart(heatmap, dir.filePath("heat.png"), options), "");
  EXPECT_EQ(QImage(dir.filePath("heat.png")).size(), QSize(500, 300));
  ASSERT_EQ(exportChart(heatmap, dir.filePath("heat.svg"), options), "");
  QXmlStreamReader xml(readAll(dir.filePath("heat.svg")));
  while (!xml.atEnd())
    xml.readNext();
  EXPECT_FALSE(xml.hasError());
}

TEST(ChartsExport, BadPathsAndOptionsGiveAnErrorNotAFile) {
  LossChart chart;
  fill(chart);
  QTemporaryDir dir;
  EXPECT_NE(exportChart(chart, dir.filePath("loss.bmp")), "");
  EXPECT_FALSE(QFile::exists(dir.filePath("loss.bmp")));
  const QString missing = dir.filePath("no/such/dir/loss.png");
  const QString error = exportChart(chart, missing);
  EXPECT_TRUE(error.contains(missing)) << error.toStdString();
  ExportOptions tiny;
  tiny.size = QSize(0, 10);
  EXPECT_NE(exportChart(chart, dir.filePath("tiny.png"), tiny), "");
  EXPECT_FALSE(QFile::exists(dir.filePath("tiny.png")));
}

TEST(ChartsExport, AFailedWriteLeavesTheExistingFileIntact) {
  LossChart chart;
  fill(chart);
  // /proc accepts no new files, even from root: the temporary file cannot be
  // created, so the existing /proc/version must come through unchanged.
  const QByteArray before = readAll("/proc/version");
  ASSERT_FALSE(before.isEmpty());
  EXPECT_NE(writeFileAtomically("/proc/version", "garbage"), "");
  EXPECT_EQ(readAll("/proc/version"), before);

  // A read-only directory (only effective for non-root users).
  if (geteuid() != 0) {
    QTemporaryDir dir;
    const QString path = dir.filePath("loss.csv");
    ASSERT_EQ(writeFileAtomically(path, "old,content\n"), "");
    ASSERT_TRUE(QFile::setPermissions(dir.path(), QFile::ReadOwner | QFile::ExeOwner));
    EXPECT_NE(exportChart(chart, path), "");
    QFile::setPermissions(dir.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    EXPECT_EQ(readAll(path), "old,content\n");
  }
}

using mantissa::testing::FileSizeLimit;

TEST(ChartsExport, AFullDiskIsAClearErrorAndKeepsTheExistingFile) {
  LossChart chart;
  fill(chart);
  QTemporaryDir dir;
  const QByteArray good = "a good file from an earlier export\n";
  for (const char* name : {"loss.png", "loss.svg", "loss.pdf", "loss.csv", "loss.json"}) {
    const QString path = dir.filePath(name);
    ASSERT_EQ(writeFileAtomically(path, good), "");
    ASSERT_GT(exportBytes(chart, *exportFormatForPath(path), {}).size(), 2 * good.size());
    QString error;
    {
      const FileSizeLimit limit(rlim_t(good.size()));
      error = exportChart(chart, path);
    }
    EXPECT_TRUE(error.contains(path)) << name << ": " << error.toStdString();
    EXPECT_TRUE(error.contains("too large", Qt::CaseInsensitive) ||
                error.contains("space", Qt::CaseInsensitive))
        << name << ": " << error.toStdString();
    EXPECT_EQ(readAll(path), good) << name;
  }
  // No temporary file left behind, and with room again the export succeeds.
  EXPECT_EQ(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 5);
  EXPECT_EQ(exportChart(chart, dir.filePath("loss.png")), "");
  EXPECT_FALSE(QImage(dir.filePath("loss.png")).isNull());
}

TEST(ChartsExport, WritingReplacesAnExistingFileWhole) {
  QTemporaryDir dir;
  const QString path = dir.filePath("data.csv");
  ASSERT_EQ(writeFileAtomically(path, QByteArray(10000, 'x')), "");
  ASSERT_EQ(writeFileAtomically(path, "short\n"), "");
  EXPECT_EQ(readAll(path), "short\n");
  EXPECT_EQ(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1); // no temp left
}

TEST(ChartsExport, ExportLeavesTheScreenChartAsItWas) {
  LossChart chart;
  fill(chart);
  chart.setChartStyle(ChartStyle::screen(true));
  chart.show();
  const QRectF before = chart.chart()->geometry();
  const QBrush background = chart.chart()->backgroundBrush();
  ExportOptions options;
  options.size = QSize(1600, 1000);
  ASSERT_FALSE(renderPng(chart, options).isEmpty());
  EXPECT_EQ(chart.chart()->geometry(), before);
  EXPECT_EQ(chart.chart()->backgroundBrush(), background);
  EXPECT_EQ(chart.trainSeries("a")->opacity(), 1.0);
}

} // namespace
} // namespace mantissa::ui
