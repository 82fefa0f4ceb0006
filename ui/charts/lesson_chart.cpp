// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "lesson_chart.h"

#include <QCategoryAxis>
#include <QChart>
#include <QJsonArray>
#include <QJsonObject>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mantissa::ui {

LessonChart::LessonChart(QWidget* parent) : ChartWidget(parent) {
  setTitle(tr("Run the demo to see its figure"));
  rebuildAxes(false, {});
  applyStyle(chartStyle());
}

void LessonChart::rebuildAxes(bool logY, const std::vector<std::string>& categories) {
  for (auto* axis : chart()->axes()) {
    chart()->removeAxis(axis);
    delete axis;
  }
  if (!categories.empty()) {
    auto* x = new QCategoryAxis(this);
    x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    for (std::size_t i = 0; i < categories.size(); ++i)
      x->append(QString::fromStdString(categories[i]), static_cast<double>(i));
    x->setRange(-0.5, static_cast<double>(categories.size()) - 0.5);
    m_x = x;
  } else {
    auto* x = new QValueAxis(this);
    x->setLabelFormat(QStringLiteral("%g"));
    m_x = x;
  }
  chart()->addAxis(m_x, Qt::AlignBottom);
  if (logY) {
    auto* y = new QLogValueAxis(this);
    y->setBase(10.0);
    y->setLabelFormat(QStringLiteral("%.0e"));
    m_y = y;
  } else {
    auto* y = new QValueAxis(this);
    y->setLabelFormat(QStringLiteral("%.4g"));
    m_y = y;
  }
  chart()->addAxis(m_y, Qt::AlignLeft);
}

void LessonChart::clearDemo() {
  chart()->removeAllSeries(); // deletes them
  m_series.clear();
  m_demo = {};
  setTitle(tr("Run the demo to see its figure"));
}

void LessonChart::setDemo(const lessons::DemoOutput& demo) {
  clearDemo();
  m_demo = demo;
  setTitle(QString::fromStdString(demo.title));
  rebuildAxes(demo.logY, demo.categories);
  m_x->setTitleText(QString::fromStdString(demo.xLabel));
  m_y->setTitleText(QString::fromStdString(demo.yLabel));
  double xMin = std::numeric_limits<double>::infinity(), xMax = -xMin, yMin = xMin, yMax = -xMin;
  for (const auto& s : demo.series) {
    auto* series = new QLineSeries(this);
    series->setName(QString::fromStdString(s.name));
    series->setPointsVisible(s.bars);
    QList<QPointF> points;
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.y[i]) || (demo.logY && s.y[i] <= 0)) continue;
      points.append({s.x[i], s.y[i]});
      xMin = std::min(xMin, s.x[i]);
      xMax = std::max(xMax, s.x[i]);
      yMin = std::min(yMin, s.y[i]);
      yMax = std::max(yMax, s.y[i]);
    }
    series->replace(points);
    chart()->addSeries(series);
    series->attachAxis(m_x);
    series->attachAxis(m_y);
    m_series.push_back(series);
  }
  if (std::isfinite(xMin)) {
    if (xMin == xMax) xMax = xMin + 1;
    if (demo.categories.empty()) setNiceRange(static_cast<QValueAxis*>(m_x), xMin, xMax);
    if (demo.logY) {
      m_y->setRange(std::pow(10.0, std::floor(std::log10(yMin))), std::pow(10.0, std::ceil(std::log10(yMax))));
    } else {
      const double pad = yMax > yMin ? 0.05 * (yMax - yMin) : std::max(0.5, 0.05 * std::abs(yMax));
      setNiceRange(static_cast<QValueAxis*>(m_y), std::min(0.0, yMin - pad), yMax + pad);
    }
  }
  applyStyle(chartStyle());
}

qsizetype LessonChart::pointCount() const {
  qsizetype n = 0;
  for (const auto* s : m_series) n += s->count();
  return n;
}

void LessonChart::restyleSeries(const ChartStyle& style) {
  for (std::size_t i = 0; i < m_series.size(); ++i) {
    QPen pen(seriesColor(static_cast<int>(i)), 1.5 * style.linePenWidth());
    m_series[i]->setPen(pen);
    m_series[i]->setMarkerSize(style.markerSize());
  }
}

QString LessonChart::csv() const {
  QString out = QStringLiteral("series,x,y\n");
  for (const auto& s : m_demo.series)
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      out += QStringLiteral("\"%1\",%2,%3\n")
                 .arg(QString::fromStdString(s.name))
                 .arg(s.x[i], 0, 'g', 17)
                 .arg(s.y[i], 0, 'g', 17);
  return out;
}

QJsonDocument LessonChart::json() const {
  QJsonArray series;
  for (const auto& s : m_demo.series) {
    QJsonArray x, y;
    for (double v : s.x) x.append(v);
    for (double v : s.y) y.append(std::isfinite(v) ? QJsonValue(v) : QJsonValue());
    series.append(QJsonObject{{QStringLiteral("name"), QString::fromStdString(s.name)},
                              {QStringLiteral("x"), x},
                              {QStringLiteral("y"), y}});
  }
  QJsonArray lines;
  for (const auto& l : m_demo.lines) lines.append(QString::fromStdString(l));
  return QJsonDocument(QJsonObject{{QStringLiteral("demo"), QString::fromStdString(m_demo.id)},
                                   {QStringLiteral("title"), QString::fromStdString(m_demo.title)},
                                   {QStringLiteral("series"), series},
                                   {QStringLiteral("results"), lines}});
}

} // namespace mantissa::ui
