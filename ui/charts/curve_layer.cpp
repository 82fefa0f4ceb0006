// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "curve_layer.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace mantissa::ui {

QPointF PlotFrame::toPosition(const QPointF& value) const {
  const double xSpan = xMax - xMin;
  const double x = xSpan > 0.0 ? plot.left() + (value.x() - xMin) / xSpan * plot.width()
                               : plot.center().x();
  double t = 0.5;
  if (logY) {
    const double lo = std::log10(yMin);
    const double hi = std::log10(yMax);
    if (hi > lo)
      t = (std::log10(value.y()) - lo) / (hi - lo);
  } else if (yMax > yMin) {
    t = (value.y() - yMin) / (yMax - yMin);
  }
  return {x, plot.bottom() - t * plot.height()};
}

std::vector<QRect> bandColumns(const QPolygonF& mapped, double width, const QRectF& plot) {
  std::vector<QRect> out;
  if (mapped.isEmpty() || !(plot.width() > 0.0) || !(plot.height() > 0.0))
    return out;
  const double w = std::max(1.0, width);
  const double half = 0.5 * w;
  const QRect clip(QPoint(int(std::floor(plot.left())), int(std::floor(plot.top()))),
                   QPoint(int(std::ceil(plot.right())) - 1, int(std::ceil(plot.bottom())) - 1));
  const auto columnOf = [&](double x) { return long(std::floor((x - plot.left()) / w)); };
  const auto addColumn = [&](long column, double lo, double hi) {
    const long x0 = std::lround(plot.left() + double(column) * w);
    const long x1 = std::max(x0 + 1, std::lround(plot.left() + double(column + 1) * w));
    const long y0 = std::lround(lo - half);
    const long y1 = std::max(y0 + 1, std::lround(hi + half));
    const QRect r = QRect(int(x0), int(y0), int(x1 - x0), int(y1 - y0)).intersected(clip);
    if (!r.isEmpty())
      out.push_back(r);
  };
  // The line from a to b at x (a gap of whole columns between two points).
  const auto at = [](const QPointF& a, const QPointF& b, double x) {
    return b.x() == a.x() ? b.y() : a.y() + (x - a.x()) / (b.x() - a.x()) * (b.y() - a.y());
  };
  long column = columnOf(mapped.front().x());
  double lo = mapped.front().y();
  double hi = lo;
  for (qsizetype i = 1; i < mapped.size(); ++i) {
    const QPointF& p = mapped[i];
    const long c = columnOf(p.x());
    if (c <= column) { // same column (or a step back within the thinning's slack)
      lo = std::min(lo, p.y());
      hi = std::max(hi, p.y());
      continue;
    }
    addColumn(column, lo, hi);
    const QPointF& prev = mapped[i - 1];
    for (long j = column + 1; j < c; ++j) {
      const double a = at(prev, p, plot.left() + double(j) * w);
      const double b = at(prev, p, plot.left() + double(j + 1) * w);
      addColumn(j, std::min(a, b), std::max(a, b));
    }
    // The new column reaches back to where the line enters it.
    const double enter = c == column + 1 ? prev.y() : at(prev, p, plot.left() + double(c) * w);
    lo = std::min(enter, p.y());
    hi = std::max(enter, p.y());
    column = c;
  }
  addColumn(column, lo, hi);
  return out;
}

CurveLayer::CurveLayer(QGraphicsItem* chart) : QGraphicsItem(chart) {
  setAcceptedMouseButtons(Qt::NoButton);
  setAcceptHoverEvents(false);
  // Above the grid and axes (z 2 and 3 in Qt Charts), under the series (4).
  setZValue(3.5);
}

void CurveLayer::setCurves(std::vector<Curve> curves) {
  m_curves = std::move(curves);
  m_stale = true;
  update();
}

void CurveLayer::setFrame(const PlotFrame& frame) {
  if (frame == m_frame)
    return;
  if (frame.plot != m_frame.plot)
    prepareGeometryChange();
  m_frame = frame;
  m_stale = true;
  update();
}

void CurveLayer::rebuild() const {
  m_mapped.assign(m_curves.size(), {});
  m_columns.assign(m_curves.size(), {});
  for (std::size_t i = 0; i < m_curves.size(); ++i) {
    const Curve& curve = m_curves[i];
    QPolygonF& line = m_mapped[i];
    line.reserve(curve.points.size());
    for (const QPointF& p : curve.points)
      line.append(m_frame.toPosition(p));
    if (!curve.band.isEmpty()) {
      QPolygonF dense;
      dense.reserve(curve.band.size());
      for (const QPointF& p : curve.band)
        dense.append(m_frame.toPosition(p));
      m_columns[i] = bandColumns(dense, curve.pen.widthF(), m_frame.plot);
    }
  }
  m_stale = false;
  m_bandImages.assign(m_curves.size(), QImage());
}

const QPolygonF& CurveLayer::mapped(std::size_t i) const {
  if (m_stale)
    rebuild();
  return m_mapped.at(i);
}

const std::vector<QRect>& CurveLayer::columns(std::size_t i) const {
  if (m_stale)
    rebuild();
  return m_columns.at(i);
}

QRectF CurveLayer::boundingRect() const { return m_frame.plot; }

void CurveLayer::paintBand(QPainter& painter, std::size_t i) {
  const Curve& curve = m_curves[i];
  const std::vector<QRect>& columns = m_columns[i];
  if (columns.empty())
    return;
  painter.setRenderHint(QPainter::Antialiasing, false);
  if (curve.opacity >= 1.0) {
    for (const QRect& r : columns)
      painter.fillRect(r, curve.pen.color());
    return;
  }
  const QRect area = m_frame.plot.toAlignedRect();
  const double ratio = painter.device() != nullptr ? painter.device()->devicePixelRatioF() : 1.0;
  QImage& image = m_bandImages[i];
  if (image.isNull() || image.devicePixelRatioF() != ratio) {
    image = QImage((QSizeF(area.size()) * ratio).toSize(), QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(ratio);
    image.fill(Qt::transparent);
    QPainter fill(&image);
    fill.translate(-area.topLeft());
    for (const QRect& r : columns)
      fill.fillRect(r, curve.pen.color());
  }
  painter.setOpacity(curve.opacity);
  painter.drawImage(area.topLeft(), image);
  painter.setOpacity(1.0);
}

void CurveLayer::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  if (m_stale)
    rebuild();
  painter->save();
  painter->setClipRect(m_frame.plot, Qt::IntersectClip);
  const bool anyBand = std::any_of(m_curves.begin(), m_curves.end(),
                                   [](const Curve& c) { return !c.band.isEmpty(); });
  for (std::size_t i = 0; i < m_curves.size(); ++i) {
    const Curve& curve = m_curves[i];
    if (!curve.band.isEmpty()) {
      paintBand(*painter, i);
    } else if (m_mapped[i].size() > 1) {
      painter->setRenderHint(QPainter::Antialiasing, !anyBand);
      painter->setOpacity(curve.opacity);
      painter->setPen(curve.pen);
      painter->setBrush(Qt::NoBrush);
      painter->drawPolyline(m_mapped[i]);
      painter->setOpacity(1.0);
    }
  }
  painter->restore();
}

} // namespace mantissa::ui
