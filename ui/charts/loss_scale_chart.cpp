// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "loss_scale_chart.h"

#include "curve_chart.h"
#include "ui/app_shell/palette.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonObject>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <map>

namespace mantissa::ui {

namespace {

using amp::ScalerEventKind;

constexpr ScalerEventKind kKinds[] = {ScalerEventKind::Overflow, ScalerEventKind::Backoff,
                                      ScalerEventKind::Growth, ScalerEventKind::SkippedStep};

std::size_t kindIndex(ScalerEventKind kind) { return static_cast<std::size_t>(kind); }

double log2Scale(double scale) { return scale > 0.0 ? std::log2(scale) : 0.0; }

} // namespace

QList<QPointF> dropCollinear(const QList<QPointF>& points) {
  if (points.size() < 3)
    return points;
  QList<QPointF> out{points.front()};
  for (qsizetype i = 1; i + 1 < points.size(); ++i) {
    const QPointF a = out.back();
    const QPointF b = points[i];
    const QPointF c = points[i + 1];
    const double cross = (b.x() - a.x()) * (c.y() - a.y()) - (b.y() - a.y()) * (c.x() - a.x());
    if (cross != 0.0)
      out.append(b);
  }
  out.append(points.back());
  return out;
}

LossScaleChart::LossScaleChart(QWidget* parent) : ChartWidget(parent) {
  m_x = new QValueAxis(this);
  m_x->setTitleText(tr("training step"));
  m_x->setLabelFormat(QStringLiteral("%.0f"));
  chart()->addAxis(m_x, Qt::AlignBottom);
  m_y = new QValueAxis(this);
  m_y->setTitleText(tr("log<sub>2</sub> loss scale"));
  m_y->setLabelFormat(QStringLiteral("%.0f"));
  m_y->setTickType(QValueAxis::TicksDynamic);
  m_y->setTickAnchor(0.0);
  chart()->addAxis(m_y, Qt::AlignLeft);
  m_counterAxis = new QValueAxis(this);
  m_counterAxis->setTitleText(tr("growth tracker (steps), hysteresis"));
  m_counterAxis->setLabelFormat(QStringLiteral("%.0f"));
  chart()->addAxis(m_counterAxis, Qt::AlignRight);

  const auto add = [this](QXYSeries* series, QValueAxis* y) {
    chart()->addSeries(series);
    series->attachAxis(m_x);
    series->attachAxis(y);
  };
  m_tracker = new QLineSeries(this);
  m_tracker->setName(tr("growth tracker"));
  add(m_tracker, m_counterAxis);
  m_hysteresis = new QLineSeries(this);
  m_hysteresis->setName(tr("hysteresis left"));
  add(m_hysteresis, m_counterAxis);
  m_scale = new QLineSeries(this);
  m_scale->setName(tr("loss scale"));
  add(m_scale, m_y);
  // The chart's title names its one line: the legend keys the markers (and
  // the counters), so it fits one row at the width of a small window's dock.
  for (QLegendMarker* marker : chart()->legend()->markers(m_scale))
    marker->setVisible(false);
  const QString names[] = {tr("overflow"), tr("backoff"), tr("growth"), tr("skipped step")};
  const QScatterSeries::MarkerShape shapes[] = {
      QScatterSeries::MarkerShapeRotatedRectangle, QScatterSeries::MarkerShapeRectangle,
      QScatterSeries::MarkerShapeTriangle, QScatterSeries::MarkerShapeCircle};
  for (ScalerEventKind kind : kKinds) {
    auto* series = new QScatterSeries(this);
    series->setName(names[kindIndex(kind)]);
    series->setMarkerShape(shapes[kindIndex(kind)]);
    add(series, m_y);
    m_markers[kindIndex(kind)] = series;
  }

  m_countersToggle = new QCheckBox(tr("Growth tracker and hysteresis"), this);
  connect(m_countersToggle, &QCheckBox::toggled, this, &LossScaleChart::setCountersVisible);
  controls()->addWidget(m_countersToggle);
  controls()->addStretch(1);
  setPreset({});
  keepLegendWhole();
  setCountersVisible(false);
  updateRanges();
  applyStyle(chartStyle());
}

void LossScaleChart::setPreset(const QString& preset, const QStringList& settings) {
  m_preset = preset;
  QString title = preset.isEmpty() ? tr("Loss scale") : tr("Loss scale (%1 scaler)").arg(preset);
  for (const QString& s : settings)
    title += QStringLiteral(" · ") + s;
  setTitle(title);
}

void LossScaleChart::setCountersVisible(bool on) {
  m_countersVisible = on;
  if (m_countersToggle->isChecked() != on)
    m_countersToggle->setChecked(on);
  m_tracker->setVisible(on);
  m_hysteresis->setVisible(on);
  m_counterAxis->setVisible(on);
  if (on)
    pushCounters();
}

QScatterSeries* LossScaleChart::markerSeries(ScalerEventKind kind) const {
  return m_markers[kindIndex(kind)];
}

void LossScaleChart::setTrace(const std::vector<telemetry::LossScaleRecord>& records,
                              const std::vector<amp::ScalerEvent>& events) {
  m_records = records;
  m_events = events;
  QList<QPointF> line;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto step = static_cast<double>(records[i].step);
    const double y = log2Scale(records[i].state.scale);
    if (i == 0 || y != line.back().y()) {
      if (i > 0)
        line.append({step, line.back().y()});
      line.append({step, y});
    }
  }
  if (!records.empty() && line.back().x() != static_cast<double>(records.back().step))
    line.append({static_cast<double>(records.back().step), line.back().y()});
  // A scale that moves every few steps: min/max per pixel column keeps every excursion.
  const std::size_t columns = std::size_t(std::max(200, view()->width()));
  if (std::size_t(line.size()) > 2 * columns) {
    std::vector<telemetry::SeriesPoint> points;
    points.reserve(std::size_t(line.size()));
    for (const QPointF& p : line)
      points.push_back({p.x(), p.y()});
    line = toChartPoints(telemetry::decimateMinMax(points, columns));
  }
  m_scale->replace(line);
  if (m_countersVisible)
    pushCounters();

  updateRanges();
  // Overflows sit on the line before the drop, backoffs and growths after the
  // jump; skipped steps run along a lane at the bottom so they never hide them.
  // One marker per kind and pixel column: more would paint the same pixels.
  const double lane = m_y->min() + 0.35;
  const double columnWidth = (m_x->max() - m_x->min()) / double(columns);
  QList<QPointF> marks[4];
  for (const amp::ScalerEvent& event : events) {
    const auto step = static_cast<double>(event.step);
    QPointF mark;
    switch (event.kind) {
    case ScalerEventKind::Overflow: mark = {step, log2Scale(event.scaleBefore)}; break;
    case ScalerEventKind::Backoff: mark = {step, log2Scale(event.scaleAfter)}; break;
    case ScalerEventKind::Growth: mark = {step, log2Scale(event.scaleAfter)}; break;
    case ScalerEventKind::SkippedStep: mark = {step, lane}; break;
    }
    QList<QPointF>& kind = marks[kindIndex(event.kind)];
    if (!kind.isEmpty() && std::floor(kind.back().x() / columnWidth) == std::floor(step / columnWidth) &&
        kind.back().y() == mark.y())
      continue;
    kind.append(mark);
  }
  for (ScalerEventKind kind : kKinds)
    m_markers[kindIndex(kind)]->replace(marks[kindIndex(kind)]);
}

// The growth tracker and hysteresis series, built only while they are shown.
void LossScaleChart::pushCounters() {
  QList<QPointF> tracker;
  QList<QPointF> hysteresis;
  tracker.reserve(qsizetype(m_records.size()));
  hysteresis.reserve(qsizetype(m_records.size()));
  for (const auto& record : m_records) {
    const auto step = static_cast<double>(record.step);
    tracker.append({step, double(record.state.growthTracker)});
    hysteresis.append({step, double(record.state.hysteresisLeft)});
  }
  m_tracker->replace(dropCollinear(tracker));
  m_hysteresis->replace(dropCollinear(hysteresis));
}

void LossScaleChart::updateRanges() {
  double xMin = 0.0;
  double xMax = 100.0;
  double yMin = 0.0;
  double yMax = 16.0;
  double counterMax = 2.0;
  if (!m_records.empty()) {
    xMin = static_cast<double>(m_records.front().step);
    xMax = std::max(xMin + 1.0, static_cast<double>(m_records.back().step));
    yMin = yMax = log2Scale(m_records.front().state.scale);
    for (const auto& record : m_records) {
      yMin = std::min(yMin, log2Scale(record.state.scale));
      yMax = std::max(yMax, log2Scale(record.state.scale));
      counterMax = std::max({counterMax, double(record.state.growthTracker),
                             double(record.state.hysteresisLeft)});
    }
  }
  for (const auto& event : m_events) {
    yMin = std::min({yMin, log2Scale(event.scaleBefore), log2Scale(event.scaleAfter)});
    yMax = std::max({yMax, log2Scale(event.scaleBefore), log2Scale(event.scaleAfter)});
  }
  setNiceRange(m_x, xMin, xMax);
  m_y->setRange(std::floor(yMin) - 1.0, std::ceil(yMax) + 1.0);
  const double span = yMax - yMin + 2.0;
  m_y->setTickInterval(span <= 12 ? 1.0 : span <= 24 ? 2.0 : span <= 48 ? 4.0 : 8.0);
  setNiceRange(m_counterAxis, 0.0, counterMax * 1.05);
}

void LossScaleChart::restyleSeries(const ChartStyle& style) {
  QPen line(style.text(), style.linePenWidth());
  line.setJoinStyle(Qt::MiterJoin);
  m_scale->setPen(line);
  m_tracker->setPen(QPen(palette::kSkyBlue, 0.75 * style.linePenWidth()));
  m_hysteresis->setPen(QPen(palette::kOrange, 0.75 * style.linePenWidth(), Qt::DashLine));
  const QColor colours[] = {palette::kVermillion, palette::kReddishPurple, palette::kBluishGreen,
                            style.dark ? QColor(Qt::white) : QColor(Qt::black)};
  const double sizes[] = {1.4, 1.1, 1.3, 0.7};
  const QColor border = style.background().alpha() == 0 ? QColor(Qt::white) : style.background();
  for (ScalerEventKind kind : kKinds) {
    QScatterSeries* series = m_markers[kindIndex(kind)];
    series->setColor(colours[kindIndex(kind)]);
    series->setPen(QPen(border, std::max(1.0, 0.75 * style.penScale)));
    series->setMarkerSize(sizes[kindIndex(kind)] * style.markerSize());
  }
}

QString LossScaleChart::csv() const {
  std::map<std::int64_t, QStringList> eventsAt;
  for (const auto& event : m_events)
    eventsAt[event.step].append(QString::fromLatin1(amp::toString(event.kind)));
  QString out = QStringLiteral("step,loss_scale,log2_loss_scale,growth_tracker,hysteresis_left,events\n");
  for (const auto& record : m_records) {
    const auto it = eventsAt.find(record.step);
    out += QStringLiteral("%1,%2,%3,%4,%5,%6\n")
               .arg(record.step)
               .arg(record.state.scale, 0, 'g', 17)
               .arg(log2Scale(record.state.scale), 0, 'g', 17)
               .arg(record.state.growthTracker)
               .arg(record.state.hysteresisLeft)
               .arg(it != eventsAt.end() ? it->second.join(QLatin1Char(';')) : QString());
  }
  return out;
}

QJsonDocument LossScaleChart::json() const {
  QJsonArray records;
  for (const auto& record : m_records)
    records.append(QJsonObject{{QStringLiteral("step"), double(record.step)},
                               {QStringLiteral("lossScale"), record.state.scale},
                               {QStringLiteral("growthTracker"), record.state.growthTracker},
                               {QStringLiteral("hysteresisLeft"), record.state.hysteresisLeft},
                               {QStringLiteral("skipped"), record.skipped}});
  QJsonArray events;
  for (const auto& event : m_events)
    events.append(QJsonObject{{QStringLiteral("step"), double(event.step)},
                              {QStringLiteral("event"), QString::fromLatin1(amp::toString(event.kind))},
                              {QStringLiteral("scaleBefore"), event.scaleBefore},
                              {QStringLiteral("scaleAfter"), event.scaleAfter}});
  return QJsonDocument(QJsonObject{{QStringLiteral("chart"), title()},
                                   {QStringLiteral("preset"), m_preset},
                                   {QStringLiteral("records"), records},
                                   {QStringLiteral("events"), events}});
}

} // namespace mantissa::ui
