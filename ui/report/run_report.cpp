// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "run_report.h"

#include "ui/charts/chart_widget.h"

#include <QBuffer>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace mantissa::ui {

namespace {

using nlohmann::json;

constexpr int kResolution = 96;          // PDF device units per inch (logical pixels)
const QSize kChartSize{960, 600};        // each chart, in logical pixels
constexpr double kMargin = 48.0;         // page margin

QString number(double v) {
  if (!std::isfinite(v))
    return QStringLiteral("n/a");
  return QString::number(v, 'g', 6);
}

QString jsonText(const json& v) {
  if (v.is_string())
    return QString::fromStdString(v.get<std::string>());
  if (v.is_number_float())
    return number(v.get<double>());
  if (v.is_null())
    return QStringLiteral("-");
  return QString::fromStdString(v.dump());
}

// Median and mean of the logged step times (ms), ignoring zeros (not logged).
std::pair<double, double> stepTimes(const train::RunLog& log) {
  std::vector<double> ms;
  for (const auto& row : log.steps)
    if (row.stepMs > 0.0 && std::isfinite(row.stepMs))
      ms.push_back(row.stepMs);
  if (ms.empty())
    return {0.0, 0.0};
  const double mean = std::accumulate(ms.begin(), ms.end(), 0.0) / double(ms.size());
  std::nth_element(ms.begin(), ms.begin() + std::ptrdiff_t(ms.size() / 2), ms.end());
  return {ms[ms.size() / 2], mean};
}

ExportOptions chartOptions() {
  ExportOptions options;
  options.size = kChartSize;
  options.dpi = kResolution;
  return options;
}

} // namespace

RunReport::RunReport(const train::RunLog& log, RunReportOptions options)
    : m_log(log), m_options(std::move(options)) {
  addTables();
  m_charts = {{RunChartKind::Loss}, {RunChartKind::Accuracy}, {RunChartKind::LossScale}};
  const auto steps =
      m_options.histogramSteps.empty() ? defaultHistogramSteps(log) : m_options.histogramSteps;
  for (std::int64_t step : steps)
    for (int layer : histogramLayers(log, step))
      m_charts.push_back({RunChartKind::Histogram, layer, step});
}

QString RunReport::title() const {
  QString t = QStringLiteral("Mantissa run report: %1").arg(QString::fromStdString(m_log.name()));
  if (m_log.config)
    t += QStringLiteral(" on %1").arg(QString::fromStdString(m_log.config->data));
  return t;
}

void RunReport::addTables() {
  const json& h = m_log.header;
  const json& s = m_log.summary;

  ReportTable summary{QObject::tr("Summary"), {}, {}};
  // No file name or date here: a report from the saved log must equal the live one.
  summary.rows.append({QObject::tr("steps logged"), QString::number(m_log.steps.size())});
  if (m_log.truncated)
    summary.rows.append({QObject::tr("log"), QObject::tr("incomplete last line dropped (run killed)")});
  if (s.is_object()) {
    for (const char* key : {"test_accuracy", "test_loss", "steps", "skipped_steps", "wall_s",
                            "stopped_early", "diverged"})
      if (s.contains(key))
        summary.rows.append({QString::fromLatin1(key), jsonText(s[key])});
  } else {
    summary.rows.append({QObject::tr("finished"), QObject::tr("no (no summary line: the run was interrupted)")});
  }
  m_tables.append(summary);

  ReportTable config{QObject::tr("Configuration"), {}, {}};
  if (h.is_object() && h.contains("config") && h["config"].is_object())
    for (const auto& [key, value] : h["config"].items())
      config.rows.append({QString::fromStdString(key), jsonText(value)});
  if (h.is_object() && h.contains("scaler"))
    config.rows.append({QObject::tr("loss scaler"), jsonText(h["scaler"])});
  if (config.rows.isEmpty())
    config.rows.append({QObject::tr("configuration"), QObject::tr("not recorded (log without header)")});
  m_tables.append(config);

  ReportTable machine{QObject::tr("Machine and ISA"), {}, {}};
  if (h.is_object() && h.contains("machine") && h["machine"].is_object())
    for (const auto& [key, value] : h["machine"].items())
      machine.rows.append({QString::fromStdString(key), jsonText(value)});
  if (h.is_object() && h.contains("matmul"))
    machine.rows.append({QObject::tr("matmul kernel"), jsonText(h["matmul"])});
  if (h.is_object() && h.contains("matmul_emulated"))
    machine.rows.append({QObject::tr("matmul emulated"), jsonText(h["matmul_emulated"])});
  if (machine.rows.isEmpty())
    machine.rows.append({QObject::tr("machine"), QObject::tr("not recorded")});
  m_tables.append(machine);

  ReportTable ops{QObject::tr("Op precision"), {QObject::tr("op"), QObject::tr("precision"), QObject::tr("note")}, {}};
  if (h.is_object() && h.contains("recipe_table") && h["recipe_table"].is_array())
    for (const auto& row : h["recipe_table"])
      ops.rows.append({jsonText(row.value("op", json())), jsonText(row.value("precision", json())),
                       jsonText(row.value("note", json()))});
  if (!ops.rows.isEmpty())
    m_tables.append(ops);

  const auto [median, mean] = stepTimes(m_log);
  if (median > 0.0) {
    ReportTable speed{QObject::tr("Speed"), {}, {}};
    speed.rows.append({QObject::tr("median step"), number(median) + QStringLiteral(" ms")});
    speed.rows.append({QObject::tr("mean step"), number(mean) + QStringLiteral(" ms")});
    speed.rows.append({QObject::tr("steps per second (median)"), number(1000.0 / median)});
    // Mean time per op kind over the logged steps.
    std::map<std::string, double> sums;
    std::size_t counted = 0;
    for (const auto& row : m_log.steps)
      if (row.raw.is_object() && row.raw.contains("breakdown_ms") && row.raw["breakdown_ms"].is_object()) {
        ++counted;
        for (const auto& [key, value] : row.raw["breakdown_ms"].items())
          if (value.is_number())
            sums[key] += value.get<double>();
      }
    for (const auto& [key, sum] : sums)
      speed.rows.append({QObject::tr("mean %1").arg(QString::fromStdString(key)),
                         number(sum / double(counted)) + QStringLiteral(" ms")});
    m_tables.append(speed);
  }
}

QByteArray RunReport::html() const {
  QString out;
  out += QStringLiteral("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                        "<title>%1</title>\n<style>\n"
                        "body{font-family:sans-serif;max-width:1000px;margin:2em auto;color:#222}\n"
                        "table{border-collapse:collapse;margin-bottom:1.5em}\n"
                        "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}\n"
                        "figure{margin:1em 0}\n</style>\n</head>\n<body>\n<h1>%1</h1>\n")
             .arg(title().toHtmlEscaped());
  for (const ReportTable& table : m_tables) {
    out += QStringLiteral("<h2>%1</h2>\n<table>\n").arg(table.heading.toHtmlEscaped());
    if (!table.columns.isEmpty()) {
      out += QStringLiteral("<tr>");
      for (const QString& c : table.columns)
        out += QStringLiteral("<th>%1</th>").arg(c.toHtmlEscaped());
      out += QStringLiteral("</tr>\n");
    }
    for (const QStringList& row : table.rows) {
      out += QStringLiteral("<tr>");
      for (const QString& cell : row)
        out += QStringLiteral("<td>%1</td>").arg(cell.toHtmlEscaped());
      out += QStringLiteral("</tr>\n");
    }
    out += QStringLiteral("</table>\n");
  }
  out += QStringLiteral("<h2>%1</h2>\n").arg(QObject::tr("Charts"));
  for (const RunChartSpec& spec : m_charts) {
    QString error;
    const auto chart = makeRunChart(m_log, spec, &error);
    if (!chart) {
      out += QStringLiteral("<p>%1</p>\n").arg(error.toHtmlEscaped());
      continue;
    }
    const QString svg = QString::fromUtf8(renderSvg(*chart, chartOptions()));
    const qsizetype start = svg.indexOf(QLatin1String("<svg"));
    out += QStringLiteral("<figure id=\"%1\">\n%2\n<figcaption>%3</figcaption>\n</figure>\n")
               .arg(runChartStem(spec), start >= 0 ? svg.mid(start).trimmed() : svg,
                    chart->title().toHtmlEscaped());
  }
  out += QStringLiteral("</body>\n</html>\n");
  return out.toUtf8();
}

QByteArray RunReport::pdf(int* pages) const {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  int pageCount = 1;
  {
    QPdfWriter writer(&buffer);
    writer.setTitle(title());
    writer.setCreator(QStringLiteral("Mantissa"));
    writer.setResolution(kResolution);
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF()));
    QPainter painter(&writer);
    const QRectF page(kMargin, kMargin, writer.width() - 2 * kMargin,
                      writer.height() - 2 * kMargin);
    double y = page.top();
    const auto newPage = [&] {
      writer.newPage();
      ++pageCount;
      y = page.top();
    };

    QFont titleFont = painter.font();
    titleFont.setPointSizeF(16);
    titleFont.setBold(true);
    QFont headFont = titleFont;
    headFont.setPointSizeF(12);
    QFont bodyFont = painter.font();
    bodyFont.setPointSizeF(8.5);
    bodyFont.setBold(false);

    painter.setFont(titleFont);
    const double titleHeight = QFontMetricsF(titleFont, &writer).height();
    painter.drawText(QRectF(page.left(), y, page.width(), titleHeight), Qt::AlignLeft, title());
    y += titleHeight * 1.6;

    const double rowHeight = QFontMetricsF(bodyFont, &writer).height() * 1.25;
    const double headHeight = QFontMetricsF(headFont, &writer).height() * 1.5;
    for (const ReportTable& table : m_tables) {
      if (y + headHeight + 2 * rowHeight > page.bottom())
        newPage();
      painter.setFont(headFont);
      painter.drawText(QRectF(page.left(), y, page.width(), headHeight), Qt::AlignLeft,
                       table.heading);
      y += headHeight;
      painter.setFont(bodyFont);
      // Key/value tables: 35 % / 65 %; column tables: 22 % / 18 % / 60 %.
      const bool keyed = table.columns.isEmpty();
      const std::vector<double> widths = keyed ? std::vector<double>{0.35, 0.65}
                                               : std::vector<double>{0.22, 0.18, 0.60};
      QList<QStringList> rows = table.rows;
      if (!keyed)
        rows.prepend(table.columns);
      for (const QStringList& row : rows) {
        if (y + rowHeight > page.bottom())
          newPage();
        double x = page.left();
        for (qsizetype c = 0; c < row.size() && c < qsizetype(widths.size()); ++c) {
          const double w = page.width() * widths[std::size_t(c)];
          const QRectF cell(x, y, w - 6, rowHeight);
          painter.drawText(cell, Qt::AlignLeft | Qt::AlignVCenter,
                           QFontMetricsF(bodyFont, &writer).elidedText(row[c], Qt::ElideRight, cell.width()));
          x += w;
        }
        y += rowHeight;
      }
      y += rowHeight;
    }

    // Charts: two per page, each scaled into half the page height.
    const ExportOptions options = chartOptions();
    const double chartHeight = (page.height() - kMargin) / 2.0;
    const double scale = std::min(page.width() / kChartSize.width(), chartHeight / kChartSize.height());
    int onPage = 2; // force a page before the first chart
    for (const RunChartSpec& spec : m_charts) {
      if (onPage == 2) {
        newPage();
        onPage = 0;
      }
      QString error;
      const auto chart = makeRunChart(m_log, spec, &error);
      painter.save();
      painter.translate(page.left(), page.top() + onPage * (chartHeight + kMargin));
      if (chart) {
        painter.scale(scale, scale);
        chart->render(painter, QRectF(QPointF(0, 0), QSizeF(kChartSize)), options.style);
      } else {
        painter.setFont(bodyFont);
        painter.drawText(QPointF(0, rowHeight), error);
      }
      painter.restore();
      ++onPage;
    }
  }
  if (pages)
    *pages = pageCount;
  return bytes;
}

QString RunReport::write(const QString& path) const {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("pdf"))
    return writeFileAtomically(path, pdf());
  if (suffix == QLatin1String("html") || suffix == QLatin1String("htm"))
    return writeFileAtomically(path, html());
  return QObject::tr("cannot write a report to %1: the extension must be .pdf or .html").arg(path);
}

} // namespace mantissa::ui
