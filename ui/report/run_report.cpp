// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "run_report.h"

#include "ui/app_shell/palette.h"
#include "ui/charts/chart_widget.h"
#include "ui/charts/format_regions.h"

#include <QBuffer>
#include <QDir>
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

constexpr int kResolution = 96;   // PDF device units per inch (logical pixels)
const QSize kChartSize{720, 430}; // each chart, in logical pixels: about the page's width,
                                  // so its text prints near its on-screen size
constexpr double kMargin = 48.0;  // page margin (half an inch)
const QColor kAccent = palette::kBlue;
const QColor kMuted{0x57, 0x60, 0x6a};
const QColor kRule{0xd0, 0xd7, 0xde};
const QColor kHeaderFill{0xe8, 0xee, 0xf5};
const QColor kStripe{0xf6, 0xf8, 0xfa};
constexpr int kMaxEventRows = 12;

QString number(double v) {
  if (!std::isfinite(v))
    return QStringLiteral("n/a");
  return QString::number(v, 'g', 6);
}

QString ms(double v) { return QString::number(v, 'g', 3) + QStringLiteral(" ms"); }

QString jsonText(const json& v) {
  if (v.is_string())
    return QString::fromStdString(v.get<std::string>());
  if (v.is_number_float())
    return number(v.get<double>());
  if (v.is_null())
    return QStringLiteral("-");
  return QString::fromStdString(v.dump());
}

bool jsonFlag(const json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_boolean() && it->get<bool>();
}

double jsonNumber(const json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : std::nan("");
}

// Median and mean of the logged step times (ms), ignoring zeros (not logged).
std::pair<double, double> stepTimes(const train::RunLog& log) {
  std::vector<double> values;
  for (const auto& row : log.steps)
    if (row.stepMs > 0.0 && std::isfinite(row.stepMs))
      values.push_back(row.stepMs);
  if (values.empty())
    return {0.0, 0.0};
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
  std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(values.size() / 2), values.end());
  return {values[values.size() / 2], mean};
}

ExportOptions chartOptions() {
  ExportOptions options;
  options.size = kChartSize;
  options.dpi = kResolution;
  return options;
}

// "matmul_fwd" -> "matmul forward": the op kinds of the step-time breakdown.
QString opKindName(const std::string& key) {
  static const std::map<std::string, const char*> names{
      {"matmul_fwd", "matmul forward"}, {"matmul_bwd", "matmul backward"},
      {"conv_fwd", "convolution forward"}, {"conv_bwd", "convolution backward"},
      {"conversion", "conversions"},    {"elementwise", "element-wise"},
      {"loss", "softmax + loss"},       {"optimizer", "optimizer"},
      {"telemetry", "telemetry"},       {"data", "data"}};
  const auto it = names.find(key);
  return QString::fromLatin1(it != names.end() ? it->second : key.c_str());
}

// What a figure shows, for its caption (the chart's own title names it).
QString caption(const RunChartSpec& spec, const train::RunLog& log) {
  switch (spec.kind) {
  case RunChartKind::Loss:
    return QObject::tr("Cross-entropy loss of each training step's batch (solid) and of the test "
                       "set at each evaluation (dashed); crosses mark steps the loss scaler "
                       "skipped.");
  case RunChartKind::Accuracy:
    return QObject::tr("Accuracy of each training step's batch (solid) and on the test set at each "
                       "evaluation (dashed), in percent.");
  case RunChartKind::LossScale:
    return QObject::tr("Loss scale (log2) after each step, with the scaler's overflow, backoff and "
                       "growth events.");
  case RunChartKind::Error:
    return QObject::tr("Error of each tensor against the shadow pass's reference, by step: colour "
                       "= log10 of ||a - r|| / ||r||; the first tensor over the threshold is "
                       "outlined.");
  case RunChartKind::Histogram: {
    const std::int64_t step = spec.step >= 0 ? spec.step
                                             : (log.frames.empty() ? 0 : log.frames.back().step);
    const telemetry::TelemetryFrame* frame = log.frameAt(step);
    const bool lossScaled =
        frame != nullptr && frame->find(spec.layer, telemetry::TensorClass::WeightGrads, true) != nullptr;
    const QString values =
        !lossScaled ? QObject::tr("values per binade of |dW|")
        : spec.scaled
            ? QObject::tr("values per binade of |dW| times the loss scale, as the run stores "
                          "them")
            : QObject::tr("values per binade of the unscaled |dW|, with the regions moved by the "
                          "loss scale to where the stored values meet them");
    const auto format = runTensorFormat(log, telemetry::TensorClass::WeightGrads);
    QString regions;
    if (!format)
      regions = QObject::tr("the log does not say which format the run stored them in; shaded, "
                            "the regions where they would round to zero, be subnormal, or "
                            "overflow as it would be in FP16.");
    else if (format->id == numeric::FormatId::Fp32)
      regions = QObject::tr("the run stores them in FP32, whose limits lie outside the chart; "
                            "nothing is shaded.");
    else
      regions = QObject::tr("shaded, the regions where %1, the format the run stores them in, "
                            "rounds to zero, is subnormal, or overflows.")
                    .arg(formatDisplayName(*format));
    return QObject::tr("Layer %1 weight gradients at step %2: %3; %4")
        .arg(spec.layer)
        .arg(step)
        .arg(values, regions);
  }
  }
  return {};
}

} // namespace

RunReport::RunReport(const train::RunLog& log, RunReportOptions options)
    : m_log(log), m_options(std::move(options)) {
  addTables();
  m_charts = {{RunChartKind::Loss}, {RunChartKind::Accuracy}, {RunChartKind::LossScale}};
  const auto steps =
      m_options.histogramSteps.empty() ? defaultHistogramSteps(log) : m_options.histogramSteps;
  std::vector<RunChartSpec> histograms;
  for (std::int64_t step : steps)
    for (int layer : histogramLayers(log, step))
      histograms.push_back({RunChartKind::Histogram, layer, step, m_options.scaledHistograms});
  // Layer by layer, steps in order: each layer's histograms side by side in time.
  std::stable_sort(histograms.begin(), histograms.end(), [](const auto& a, const auto& b) {
    return a.layer != b.layer ? a.layer < b.layer : a.step < b.step;
  });
  if (histograms.size() > kMaxReportHistograms)
    histograms.resize(kMaxReportHistograms);
  m_charts.insert(m_charts.end(), histograms.begin(), histograms.end());
  if (!log.shadow.empty())
    m_charts.push_back({RunChartKind::Error});
}

QString RunReport::title() const {
  QString t = QStringLiteral("Mantissa run report: %1").arg(QString::fromStdString(m_log.name()));
  if (m_log.config)
    t += QStringLiteral(" on %1").arg(QString::fromStdString(m_log.config->data));
  return t;
}

QString RunReport::subtitle() const {
  QStringList parts;
  if (m_log.config) {
    parts << QString::fromStdString(m_log.config->model)
          << QStringLiteral("batch %1").arg(m_log.config->batch)
          << QStringLiteral("seed %1").arg(m_log.config->seed);
  }
  parts << QStringLiteral("%1 steps logged").arg(m_log.steps.size());
  const json& s = m_log.summary;
  if (s.is_object() && std::isfinite(jsonNumber(s, "test_accuracy")))
    parts << QStringLiteral("test accuracy %1 %").arg(100.0 * jsonNumber(s, "test_accuracy"), 0, 'f', 2);
  return parts.join(QStringLiteral("  ·  "));
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
    const double accuracy = jsonNumber(s, "test_accuracy");
    summary.rows.append({QObject::tr("test accuracy"),
                         std::isfinite(accuracy) ? QString::number(100.0 * accuracy, 'f', 2) + " %"
                                                 : QStringLiteral("n/a")});
    summary.rows.append({QObject::tr("test loss"), number(jsonNumber(s, "test_loss"))});
    summary.rows.append({QObject::tr("optimizer steps"),
                         QObject::tr("%1 (%2 skipped by the loss scaler)")
                             .arg(jsonText(s.value("steps", json())),
                                  jsonText(s.value("skipped_steps", json(0))))});
    summary.rows.append({QObject::tr("wall time"),
                         QString::number(jsonNumber(s, "wall_s"), 'g', 3) + QStringLiteral(" s")});
    summary.rows.append({QObject::tr("stopped early"),
                         jsonFlag(s, "stopped_early") ? QObject::tr("yes") : QObject::tr("no")});
    QString diverged = jsonFlag(s, "diverged") ? QObject::tr("yes") : QObject::tr("no");
    if (const auto it = s.find("divergence"); it != s.end() && it->is_object())
      diverged = QObject::tr("at step %1, layer %2, %3 (%4)")
                     .arg(jsonText(it->value("step", json())), jsonText(it->value("layer", json())),
                          jsonText(it->value("op", json())), jsonText(it->value("pass", json())));
    summary.rows.append({QObject::tr("diverged"), diverged});
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

  ReportTable events{QObject::tr("Loss-scale events"),
                     {QObject::tr("step"), QObject::tr("event"), QObject::tr("scale before → after")},
                     {}};
  int eventCount = 0;
  for (const auto& row : m_log.steps)
    for (const auto& e : row.events)
      if (++eventCount <= kMaxEventRows)
        events.rows.append({QString::number(e.step), QString::fromUtf8(amp::toString(e.kind)),
                            number(e.scaleBefore) + QStringLiteral(" → ") + number(e.scaleAfter)});
  if (eventCount > kMaxEventRows)
    events.rows.append({QStringLiteral("…"), QObject::tr("%1 more").arg(eventCount - kMaxEventRows),
                        QObject::tr("see the loss-scale chart")});
  if (eventCount > 0)
    m_tables.append(events);

  const auto [median, mean] = stepTimes(m_log);
  if (median > 0.0) {
    ReportTable speed{QObject::tr("Speed"), {}, {}};
    speed.rows.append({QObject::tr("median step"), ms(median)});
    speed.rows.append({QObject::tr("mean step"), ms(mean)});
    speed.rows.append({QObject::tr("steps per second (median)"), QString::number(1000.0 / median, 'f', 0)});
    m_tables.append(speed);
    // Mean time per op kind over the logged steps, and its share of the step.
    std::map<std::string, double> sums;
    std::size_t counted = 0;
    for (const auto& row : m_log.steps)
      if (row.raw.is_object() && row.raw.contains("breakdown_ms") && row.raw["breakdown_ms"].is_object()) {
        ++counted;
        for (const auto& [key, value] : row.raw["breakdown_ms"].items())
          if (value.is_number())
            sums[key] += value.get<double>();
      }
    double total = 0.0;
    for (const auto& [key, sum] : sums)
      total += sum;
    if (counted > 0 && total > 0.0) {
      ReportTable split{QObject::tr("Where a step's time goes"),
                        {QObject::tr("op kind"), QObject::tr("mean"), QObject::tr("share")},
                        {}};
      std::vector<std::pair<std::string, double>> byTime(sums.begin(), sums.end());
      std::stable_sort(byTime.begin(), byTime.end(),
                       [](const auto& a, const auto& b) { return a.second > b.second; });
      for (const auto& [key, sum] : byTime)
        split.rows.append({opKindName(key), ms(sum / double(counted)),
                           QString::number(100.0 * sum / total, 'f', 1) + QStringLiteral(" %")});
      m_tables.append(split);
    }
  }
}

QByteArray RunReport::html() const {
  QString out;
  out += QStringLiteral(
             "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
             "<title>%1</title>\n<style>\n"
             "body{font-family:\"DejaVu Sans\",Helvetica,Arial,sans-serif;max-width:960px;"
             "margin:2em auto;padding:0 1em;color:#1f2328;line-height:1.4}\n"
             "h1{font-size:1.6em;margin:0 0 .2em}\n"
             ".subtitle{color:#57606a;margin:0 0 1.5em;padding-bottom:.6em;"
             "border-bottom:3px solid #0072b2}\n"
             "h2{font-size:1.15em;color:#0072b2;margin:1.6em 0 .4em}\n"
             "table{border-collapse:collapse;margin-bottom:1em;font-size:.9em;min-width:50%}\n"
             "td,th{border-bottom:1px solid #d0d7de;padding:4px 12px 4px 6px;text-align:left;"
             "vertical-align:top}\n"
             "th{background:#e8eef5}\ntr:nth-child(even) td{background:#f6f8fa}\n"
             "table.keyed td:first-child{color:#57606a;width:14em}\n"
             "figure{margin:1.5em 0;break-inside:avoid}\nfigure svg{width:100%;height:auto}\n"
             "figcaption{color:#57606a;font-size:.9em}\n</style>\n</head>\n<body>\n"
             "<h1>%1</h1>\n<p class=\"subtitle\">%2</p>\n")
             .arg(title().toHtmlEscaped(), subtitle().toHtmlEscaped());
  for (const ReportTable& table : m_tables) {
    out += QStringLiteral("<h2>%1</h2>\n<table%2>\n")
               .arg(table.heading.toHtmlEscaped(),
                    table.columns.isEmpty() ? QStringLiteral(" class=\"keyed\"") : QString());
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
  int figure = 0;
  for (const RunChartSpec& spec : m_charts) {
    QString error;
    const auto chart = makeRunFigure(m_log, spec, &error);
    if (!chart) {
      out += QStringLiteral("<p>%1</p>\n").arg(error.toHtmlEscaped());
      continue;
    }
    const QString svg = QString::fromUtf8(renderSvg(*chart, chartOptions()));
    const qsizetype start = svg.indexOf(QLatin1String("<svg"));
    out += QStringLiteral("<figure id=\"%1\">\n%2\n<figcaption>%3</figcaption>\n</figure>\n")
               .arg(runChartStem(spec), start >= 0 ? svg.mid(start).trimmed() : svg,
                    QObject::tr("Figure %1. %2").arg(++figure).arg(caption(spec, m_log).toHtmlEscaped()));
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
    painter.setRenderHint(QPainter::Antialiasing);
    const QRectF page(kMargin, kMargin, writer.width() - 2 * kMargin,
                      writer.height() - 2 * kMargin);

    QFont titleFont = painter.font();
    titleFont.setPointSizeF(17);
    titleFont.setBold(true);
    QFont headFont = titleFont;
    headFont.setPointSizeF(11.5);
    QFont bodyFont = painter.font();
    bodyFont.setPointSizeF(8.5);
    bodyFont.setBold(false);
    QFont boldFont = bodyFont;
    boldFont.setBold(true);
    QFont smallFont = bodyFont;
    smallFont.setPointSizeF(7.5);
    const QFontMetricsF body(bodyFont, &writer);
    const double rowHeight = body.height() * 1.45;
    const double headHeight = QFontMetricsF(headFont, &writer).height() * 1.7;
    const double footerY = page.bottom() + kMargin * 0.45;

    double y = page.top();
    const auto footer = [&] {
      painter.setFont(smallFont);
      painter.setPen(kMuted);
      painter.drawText(QRectF(page.left(), footerY, page.width(), body.height()), Qt::AlignLeft,
                       title());
      painter.drawText(QRectF(page.left(), footerY, page.width(), body.height()), Qt::AlignRight,
                       QObject::tr("page %1").arg(pageCount));
      painter.setPen(Qt::black);
    };
    const auto newPage = [&] {
      writer.newPage();
      ++pageCount;
      y = page.top();
      footer();
    };
    footer();

    // Title block: title, one line of what ran, an accent rule.
    painter.setFont(titleFont);
    const double titleHeight = QFontMetricsF(titleFont, &writer).height();
    painter.drawText(QRectF(page.left(), y, page.width(), titleHeight), Qt::AlignLeft, title());
    y += titleHeight * 1.15;
    painter.setFont(bodyFont);
    painter.setPen(kMuted);
    painter.drawText(QRectF(page.left(), y, page.width(), rowHeight), Qt::AlignLeft | Qt::AlignVCenter,
                     subtitle());
    y += rowHeight + 4;
    painter.fillRect(QRectF(page.left(), y, page.width(), 2.5), kAccent);
    y += 10;

    // A cell's text wraps onto as many lines as it needs (the ISA list, the
    // matmul kernels), never cut; its row is as tall as its tallest cell.
    constexpr int kCellFlags = Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap;
    const auto rowHeightOf = [&](const QStringList& row, const std::vector<double>& widths,
                                 bool header) {
      const QFontMetricsF metrics(header ? boldFont : bodyFont, &writer);
      double h = rowHeight;
      for (qsizetype c = 0; c < row.size() && c < qsizetype(widths.size()); ++c) {
        const double w = page.width() * widths[std::size_t(c)] - 10;
        const QRectF needed = metrics.boundingRect(QRectF(0, 0, w, 1e6), kCellFlags, row[c]);
        h = std::max(h, needed.height() + (rowHeight - body.height()));
      }
      return h;
    };
    const auto drawRow = [&](const QStringList& row, const std::vector<double>& widths, bool header,
                             bool stripe, bool keyed) {
      const double height = rowHeightOf(row, widths, header);
      const QRectF band(page.left(), y, page.width(), height);
      if (header || stripe)
        painter.fillRect(band, header ? kHeaderFill : kStripe);
      painter.setPen(QPen(kRule, 0.75));
      painter.drawLine(band.bottomLeft(), band.bottomRight());
      double x = page.left() + 6;
      for (qsizetype c = 0; c < row.size() && c < qsizetype(widths.size()); ++c) {
        const double w = page.width() * widths[std::size_t(c)];
        const QRectF cell(x, y, w - 10, height);
        painter.setFont(header ? boldFont : bodyFont);
        painter.setPen(keyed && c == 0 ? kMuted : QColor(Qt::black));
        painter.drawText(cell, kCellFlags, row[c]);
        x += w;
      }
      y += height;
    };

    for (const ReportTable& table : m_tables) {
      const bool keyed = table.columns.isEmpty();
      // Long key/value tables (the configuration) run in two column pairs.
      const bool twoUp = keyed && table.rows.size() > 10;
      QList<QStringList> rows = table.rows;
      QList<QStringList> wide; // values too long for half the page: full-width rows after
      if (twoUp) {
        rows.clear();
        for (const QStringList& row : table.rows)
          (body.horizontalAdvance(row.value(1)) > page.width() * 0.3 - 12 ? wide : rows).append(row);
      }
      const qsizetype lines = twoUp ? (rows.size() + 1) / 2 : rows.size() + (keyed ? 0 : 1);
      if (y + headHeight + std::min<qsizetype>(lines, 4) * rowHeight > page.bottom())
        newPage();
      painter.setFont(headFont);
      painter.setPen(kAccent);
      painter.drawText(QRectF(page.left(), y, page.width(), headHeight),
                       Qt::AlignLeft | Qt::AlignVCenter, table.heading);
      y += headHeight;
      const std::vector<double> widths =
          twoUp ? std::vector<double>{0.2, 0.3, 0.2, 0.3}
          : keyed ? std::vector<double>{0.3, 0.7}
                  : std::vector<double>{0.3, 0.14, 0.56};
      if (!keyed)
        drawRow(table.columns, widths, true, false, false);
      for (qsizetype i = 0; i < lines - (keyed ? 0 : 1); ++i) {
        QStringList row = rows[i];
        if (twoUp && i + lines < rows.size())
          row += rows[i + lines];
        if (y + rowHeightOf(row, widths, false) > page.bottom())
          newPage();
        drawRow(row, widths, false, i % 2 == 1, keyed);
      }
      for (qsizetype i = 0; i < wide.size(); ++i) {
        if (y + rowHeightOf(wide[i], {0.2, 0.8}, false) > page.bottom())
          newPage();
        drawRow(wide[i], {0.2, 0.8}, false, (lines + i) % 2 == 1, true);
      }
      y += rowHeight * 0.6;
    }

    // Charts: two to a page at one size, each with its figure caption.
    const ExportOptions options = chartOptions();
    const double captionHeight = rowHeight * 2.4; // two lines
    const double slot = (page.height() - 2 * captionHeight - kMargin / 2) / 2.0;
    const double scale = std::min(page.width() / kChartSize.width(), slot / kChartSize.height());
    const double chartWidth = kChartSize.width() * scale;
    int onPage = 2; // force a page before the first chart
    int figure = 0;
    for (const RunChartSpec& spec : m_charts) {
      if (onPage == 2) {
        newPage();
        onPage = 0;
      }
      QString error;
      const auto chart = makeRunFigure(m_log, spec, &error);
      const double top = page.top() + onPage * (slot + captionHeight + kMargin / 2);
      const double left = page.left() + (page.width() - chartWidth) / 2;
      painter.save();
      painter.translate(left, top);
      if (chart) {
        painter.scale(scale, scale);
        chart->render(painter, QRectF(QPointF(0, 0), QSizeF(kChartSize)), options.style);
      } else {
        painter.setFont(bodyFont);
        painter.drawText(QPointF(0, rowHeight), error);
      }
      painter.restore();
      painter.setFont(bodyFont);
      painter.setPen(kMuted);
      painter.drawText(QRectF(left, top + kChartSize.height() * scale + 4, chartWidth, captionHeight),
                       Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
                       QObject::tr("Figure %1. %2").arg(++figure).arg(caption(spec, m_log)));
      painter.setPen(Qt::black);
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

QString exportRun(const train::RunLog& log, const QString& dir, QStringList* written) {
  if (QString error = exportRunCharts(log, dir, ExportOptions{}, written); !error.isEmpty())
    return error;
  const QString report = QDir(dir).filePath(QStringLiteral("report.html"));
  if (QString error = RunReport(log).write(report); !error.isEmpty())
    return error;
  if (written)
    written->append(report);
  return {};
}

} // namespace mantissa::ui
