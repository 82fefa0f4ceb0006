// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "throughput_chart.h"

#include <QChart>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonObject>
#include <QLegend>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mantissa::ui {

ThroughputChart::ThroughputChart(QWidget* parent) : ChartWidget(parent) {
  setTitle(tr("Matmul throughput"));
  m_x = new QLogValueAxis(this);
  m_x->setBase(2.0);
  m_x->setLabelFormat(QStringLiteral("%.0f"));
  m_x->setMinorTickCount(0);
  m_x->setTitleText(tr("matrix size n  (n × n by n × n)"));
  chart()->addAxis(m_x, Qt::AlignBottom);
  m_y = new QValueAxis(this);
  m_y->setTitleText(tr("throughput (GFLOP/s)"));
  m_y->setLabelFormat(QStringLiteral("%.0f"));
  chart()->addAxis(m_y, Qt::AlignLeft);
  m_peak = new QLineSeries(this);
  chart()->addSeries(m_peak);
  m_peak->attachAxis(m_x);
  m_peak->attachAxis(m_y);
  // One entry per line at the right: in a row at the bottom the peak's long
  // name ("FP32 peak (theoretical): 166 GFLOP/s") was elided beside four backends.
  chart()->legend()->setAlignment(Qt::AlignRight);
  controls()->addStretch(1);
  setData({}, 0.0);
  applyStyle(chartStyle());
}

QLineSeries* ThroughputChart::curveSeries(int index) const {
  return index >= 0 && index < static_cast<int>(m_lines.size())
             ? m_lines[static_cast<std::size_t>(index)]
             : nullptr;
}

void ThroughputChart::setData(const std::vector<ThroughputCurve>& curves, double peakGflops,
                              const QString& peakLabel) {
  for (QLineSeries* line : m_lines) {
    chart()->removeSeries(line);
    delete line;
  }
  m_lines.clear();
  m_curves = curves;
  m_peakGflops = peakGflops;
  m_peakLabel = peakLabel;

  double xMin = std::numeric_limits<double>::infinity();
  double xMax = -xMin;
  double yMax = std::max(0.0, peakGflops);
  for (const ThroughputCurve& curve : curves) {
    auto* line = new QLineSeries(this);
    line->setName(curve.emulated ? tr("%1 (FP32 compute)").arg(curve.backend) : curve.backend);
    QList<QPointF> points;
    for (const QPointF& p : curve.points) {
      if (!(p.x() > 0.0) || !std::isfinite(p.y()))
        continue;
      points.append(p);
      xMin = std::min(xMin, p.x());
      xMax = std::max(xMax, p.x());
      yMax = std::max(yMax, p.y());
    }
    line->replace(points);
    chart()->addSeries(line);
    line->attachAxis(m_x);
    line->attachAxis(m_y);
    m_lines.push_back(line);
  }
  if (!(xMin <= xMax)) {
    xMin = 64.0;
    xMax = 4096.0;
  }
  xMin = std::exp2(std::floor(std::log2(xMin)));
  xMax = std::exp2(std::ceil(std::log2(xMax)));
  if (xMax <= xMin)
    xMax = xMin * 2.0;
  m_x->setRange(xMin, xMax);
  setNiceRange(m_y, 0.0, yMax > 0.0 ? yMax * 1.1 : 10.0);

  m_peak->setVisible(peakGflops > 0.0);
  m_peak->setName(peakLabel.isEmpty() ? tr("peak %1 GFLOP/s").arg(peakGflops, 0, 'f', 0)
                                      : tr("%1: %2 GFLOP/s").arg(peakLabel).arg(peakGflops, 0, 'f', 0));
  m_peak->replace(peakGflops > 0.0 ? QList<QPointF>{{xMin, peakGflops}, {xMax, peakGflops}}
                                   : QList<QPointF>{});
  restyleSeries(chartStyle());
}

void ThroughputChart::restyleSeries(const ChartStyle& style) {
  for (std::size_t i = 0; i < m_lines.size(); ++i) {
    QPen pen(seriesColor(static_cast<int>(i)), style.linePenWidth());
    if (m_curves[i].emulated)
      pen.setStyle(Qt::DashLine);
    m_lines[i]->setPen(pen);
  }
  QPen peak(style.mutedText(), 0.75 * style.linePenWidth(), Qt::DashDotLine);
  m_peak->setPen(peak);
}

QString ThroughputChart::csv() const {
  QString out = QStringLiteral("backend,emulated,n,gflops\n");
  for (const ThroughputCurve& curve : m_curves)
    for (const QPointF& p : curve.points)
      out += QStringLiteral("%1,%2,%3,%4\n")
                 .arg(csvField(curve.backend), curve.emulated ? QStringLiteral("true") : QStringLiteral("false"))
                 .arg(p.x(), 0, 'g', 12)
                 .arg(p.y(), 0, 'g', 9);
  return out;
}

QJsonDocument ThroughputChart::json() const {
  QJsonArray curves;
  for (const ThroughputCurve& curve : m_curves) {
    QJsonArray points;
    for (const QPointF& p : curve.points)
      points.append(QJsonArray{p.x(), p.y()});
    curves.append(QJsonObject{{QStringLiteral("backend"), curve.backend},
                              {QStringLiteral("emulated"), curve.emulated},
                              {QStringLiteral("points"), points}});
  }
  return QJsonDocument(QJsonObject{{QStringLiteral("chart"), title()},
                                   {QStringLiteral("x"), QStringLiteral("n")},
                                   {QStringLiteral("y"), QStringLiteral("GFLOP/s")},
                                   {QStringLiteral("peakGflops"), m_peakGflops},
                                   {QStringLiteral("peakLabel"), m_peakLabel},
                                   {QStringLiteral("curves"), curves}});
}

} // namespace mantissa::ui
