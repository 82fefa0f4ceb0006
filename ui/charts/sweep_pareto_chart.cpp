// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "sweep_pareto_chart.h"

#include <QChart>
#include <QComboBox>
#include <QGraphicsSimpleTextItem>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLegend>
#include <QScatterSeries>
#include <QLogValueAxis>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mantissa::ui {

SweepParetoChart::SweepParetoChart(QWidget* parent) : ChartWidget(parent) {
  setTitle(tr("|Δ val_loss| per lowered op (filled: Pareto front)"));
  m_x = new QValueAxis(this);
  chart()->addAxis(m_x, Qt::AlignBottom);
  m_y = new QLogValueAxis(this);
  m_y->setBase(10.0);
  m_y->setLabelFormat(QStringLiteral("%.0e"));
  m_y->setMinorTickCount(0);
  m_y->setTitleText(tr("|Δ val_loss| (log)"));
  chart()->addAxis(m_y, Qt::AlignLeft);
  m_rest = new QScatterSeries(this);
  m_rest->setName(tr("probe"));
  m_front = new QScatterSeries(this);
  m_front->setName(tr("on the Pareto front"));
  for (QScatterSeries* s : {m_rest, m_front}) {
    s->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    chart()->addSeries(s);
    s->attachAxis(m_x);
    s->attachAxis(m_y);
  }
  auto* label = new QLabel(tr("Across:"));
  m_acrossBox = new QComboBox;
  m_acrossBox->addItem(tr("bits per parameter"));
  m_acrossBox->addItem(tr("matmul time saved (estimate)"));
  controls()->addWidget(label);
  controls()->addWidget(m_acrossBox);
  controls()->addStretch(1);
  connect(m_acrossBox, &QComboBox::currentIndexChanged, this, [this](int index) {
    setAcross(index == 0 ? Across::BitsPerParameter : Across::MatmulTimeSaved);
  });
  connect(chart(), &QChart::plotAreaChanged, this, [this] { placeLabels(); });
  // Filled and hollow markers are said in the title: the legend's row goes to the plot.
  chart()->legend()->setVisible(false);
  rebuild();
  applyStyle(chartStyle());
}

double SweepParetoChart::xOf(const SweepPoint& p) const {
  return m_across == Across::BitsPerParameter ? p.bitsPerParameter : 100.0 * p.matmulTimeSaved;
}

bool SweepParetoChart::frontOf(const SweepPoint& p) const {
  return m_across == Across::BitsPerParameter ? p.paretoBits : p.paretoTime;
}

void SweepParetoChart::setPoints(std::vector<SweepPoint> points) {
  m_points = std::move(points);
  rebuild();
}

void SweepParetoChart::setAcross(Across across) {
  m_across = across;
  m_acrossBox->blockSignals(true);
  m_acrossBox->setCurrentIndex(across == Across::BitsPerParameter ? 0 : 1);
  m_acrossBox->blockSignals(false);
  rebuild();
}

QStringList SweepParetoChart::shownNames() const {
  QStringList names;
  for (const QGraphicsSimpleTextItem* l : m_labels)
    names.append(l->text());
  return names;
}

void SweepParetoChart::rebuild() {
  for (QGraphicsSimpleTextItem* l : m_labels)
    delete l;
  m_labels.clear();
  m_labelAt.clear();
  QList<QPointF> front, rest;
  QStringList diverged;
  // |Δ| spans decades (1e-6 for a BF16 input, 1e-1 for a BF16 loss): a log
  // axis, with an exact 0 drawn at its floor (a decade below the least |Δ|).
  double least = std::numeric_limits<double>::infinity(), most = 0;
  for (const SweepPoint& p : m_points)
    if (std::isfinite(p.delta) && p.delta > 0) {
      least = std::min(least, p.delta);
      most = std::max(most, p.delta);
    }
  if (!(least <= most)) {
    least = 1e-6;
    most = 1e-1;
  }
  const double floorY = std::pow(10.0, std::floor(std::log10(least)) - (least == most ? 1 : 0));
  const double topY = std::pow(10.0, std::ceil(std::log10(most)) + (least == most ? 1 : 0));
  double xMin = std::numeric_limits<double>::infinity(), xMax = -xMin;
  for (const SweepPoint& p : m_points) {
    if (!std::isfinite(p.delta)) {
      diverged.append(p.name);
      continue;
    }
    const QPointF at(xOf(p), std::max(p.delta, floorY));
    (frontOf(p) ? front : rest).append(at);
    xMin = std::min(xMin, at.x());
    xMax = std::max(xMax, at.x());
    auto* label = new QGraphicsSimpleTextItem(p.name, chart());
    label->setZValue(20);
    m_labels.push_back(label);
    m_labelAt.push_back(at);
  }
  m_front->replace(front);
  m_rest->replace(rest);
  if (!(xMin <= xMax)) {
    xMin = 0;
    xMax = m_across == Across::BitsPerParameter ? 32 : 10;
  }
  const double xPad = std::max(0.05 * (xMax - xMin), 0.5);
  setNiceRange(m_x, xMin - xPad, xMax + xPad);
  m_y->setRange(floorY, topY);
  m_x->setTitleText(m_across == Across::BitsPerParameter
                        ? tr("bits per parameter")
                        : tr("matmul time saved (%, estimate)"));
  setTitle(diverged.isEmpty()
               ? tr("|Δ val_loss| per lowered op (filled: Pareto front)")
               : tr("|Δ val_loss| per lowered op (filled: Pareto front); diverged: %1")
                     .arg(diverged.join(QStringLiteral(", "))));
  restyleSeries(chartStyle());
  placeLabels();
}

void SweepParetoChart::placeLabels() {
  for (std::size_t i = 0; i < m_labels.size(); ++i) {
    const QPointF at = chart()->mapToPosition(m_labelAt[i], m_rest);
    const QRectF box = m_labels[i]->boundingRect();
    // Right of the point, or left of it where the name would leave the plot.
    const bool left = at.x() + 6 + box.width() > chart()->plotArea().right();
    m_labels[i]->setPos(at + QPointF(left ? -6 - box.width() : 6, -box.height() / 2));
  }
}

void SweepParetoChart::restyleSeries(const ChartStyle& style) {
  const QColor c = seriesColor(0);
  m_front->setColor(c);
  m_front->setBorderColor(c);
  m_front->setMarkerSize(style.markerSize());
  m_rest->setColor(style.plotBackground());
  m_rest->setBorderColor(c);
  m_rest->setPen(QPen(c, 0.75 * style.linePenWidth()));
  m_rest->setMarkerSize(style.markerSize());
  QFont font = style.labelFont();
  font.setPointSizeF(font.pointSizeF() * 0.85);
  for (QGraphicsSimpleTextItem* l : m_labels) {
    l->setFont(font);
    l->setBrush(style.text());
  }
  placeLabels();
}

QString SweepParetoChart::csv() const {
  QString out = QStringLiteral(
      "probe,bits_per_parameter,matmul_time_saved,mean_abs_delta_val_loss,pareto_bits,pareto_time\n");
  for (const SweepPoint& p : m_points)
    out += QStringLiteral("%1,%2,%3,%4,%5,%6\n")
               .arg(csvField(p.name))
               .arg(p.bitsPerParameter, 0, 'g', 9)
               .arg(p.matmulTimeSaved, 0, 'g', 9)
               .arg(std::isfinite(p.delta) ? QString::number(p.delta, 'g', 9) : QStringLiteral("inf"))
               .arg(p.paretoBits ? QStringLiteral("true") : QStringLiteral("false"))
               .arg(p.paretoTime ? QStringLiteral("true") : QStringLiteral("false"));
  return out;
}

QJsonDocument SweepParetoChart::json() const {
  QJsonArray points;
  for (const SweepPoint& p : m_points)
    points.append(QJsonObject{{QStringLiteral("probe"), p.name},
                              {QStringLiteral("bitsPerParameter"), p.bitsPerParameter},
                              {QStringLiteral("matmulTimeSaved"), p.matmulTimeSaved},
                              {QStringLiteral("meanAbsDeltaValLoss"),
                               std::isfinite(p.delta) ? QJsonValue(p.delta) : QJsonValue()},
                              {QStringLiteral("paretoBits"), p.paretoBits},
                              {QStringLiteral("paretoTime"), p.paretoTime}});
  return QJsonDocument(QJsonObject{
      {QStringLiteral("chart"), title()},
      {QStringLiteral("x"), m_across == Across::BitsPerParameter ? QStringLiteral("bits per parameter")
                                                                 : QStringLiteral("matmul time saved")},
      {QStringLiteral("y"), QStringLiteral("mean |delta val_loss|")},
      {QStringLiteral("points"), points}});
}

} // namespace mantissa::ui
