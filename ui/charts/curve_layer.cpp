// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "curve_layer.h"

#include <QPainter>

#include <algorithm>
#include <cmath>
#include <limits>

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

namespace {

// The whole pixels a plot rectangle touches.
QRect pixelsOf(const QRectF& plot) {
  return {QPoint(int(std::floor(plot.left())), int(std::floor(plot.top()))),
          QPoint(int(std::ceil(plot.right())) - 1, int(std::ceil(plot.bottom())) - 1)};
}

QRectF scaled(const QRectF& r, double s) { return {r.topLeft() * s, r.size() * s}; }

} // namespace

std::vector<QRect> bandColumns(const QPolygonF& mapped, double radius, const QRectF& plot) {
  std::vector<QRect> out;
  if (mapped.isEmpty() || !(plot.width() > 0.0) || !(plot.height() > 0.0))
    return out;
  const double r = std::max(0.5, radius);
  const QRect clip = pixelsOf(plot);
  // Columns a point reaches on either side: the nearest edge of column c + d
  // is |d| - 0.5 from column c's centre.
  const int reach = int(std::floor(r + 0.5));
  const int first = clip.left() - reach; // leftmost column that can reach the plot
  const int count = clip.width() + 2 * reach;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> lo(std::size_t(count), kInf);
  std::vector<double> hi(std::size_t(count), -kInf);
  const auto columnOf = [&](double x) {
    return int(std::clamp(std::floor(x) - double(first), -1.0, double(count)));
  };
  const auto cover = [&](int c, double a, double b) {
    if (c < 0 || c >= count)
      return;
    lo[std::size_t(c)] = std::min({lo[std::size_t(c)], a, b});
    hi[std::size_t(c)] = std::max({hi[std::size_t(c)], a, b});
  };
  // The line's lowest and highest point in each column it crosses.
  if (mapped.size() == 1)
    cover(columnOf(mapped.front().x()), mapped.front().y(), mapped.front().y());
  for (qsizetype i = 1; i < mapped.size(); ++i) {
    QPointF a = mapped[i - 1];
    QPointF b = mapped[i];
    if (b.x() < a.x())
      std::swap(a, b);
    const int ca = columnOf(a.x());
    const int cb = columnOf(b.x());
    if (ca == cb) {
      cover(ca, a.y(), b.y());
      continue;
    }
    const double slope = (b.y() - a.y()) / (b.x() - a.x());
    const auto at = [&](double x) { return a.y() + (x - a.x()) * slope; };
    for (int c = std::max(ca, 0); c <= std::min(cb, count - 1); ++c) {
      const double x0 = std::max(a.x(), double(first + c));
      const double x1 = std::min(b.x(), double(first + c + 1));
      cover(c, at(x0), at(x1));
    }
  }
  // Each column takes the rows within r of its neighbours' lines (a disc).
  std::vector<double> rise(std::size_t(reach) + 1);
  for (int d = 0; d <= reach; ++d) {
    const double e = std::max(0.0, double(d) - 0.5);
    rise[std::size_t(d)] = std::sqrt(std::max(0.0, r * r - e * e));
  }
  out.reserve(std::size_t(clip.width()));
  for (int c = reach; c < reach + clip.width(); ++c) {
    double top = kInf;
    double bottom = -kInf;
    for (int d = -reach; d <= reach; ++d) {
      const std::size_t k = std::size_t(c + d);
      if (lo[k] > hi[k])
        continue;
      const double h = rise[std::size_t(std::abs(d))];
      top = std::min(top, lo[k] - h);
      bottom = std::max(bottom, hi[k] + h);
    }
    if (top > bottom)
      continue;
    // Rows whose centres lie in [top, bottom]; at least one.
    int y0 = int(std::ceil(top - 0.5));
    int y1 = int(std::floor(bottom - 0.5));
    if (y1 < y0)
      y0 = y1 = int(std::floor(0.5 * (top + bottom)));
    y0 = std::max(y0, clip.top());
    y1 = std::min(y1, clip.bottom());
    if (y0 <= y1)
      out.emplace_back(first + c, y0, 1, y1 - y0 + 1);
  }
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
        dense.append(m_frame.toPosition(p) * m_ratio); // device pixels
      const double radius = curve.bandRadius > 0.0 ? curve.bandRadius : 0.5 * curve.pen.widthF();
      m_columns[i] = bandColumns(dense, radius * m_ratio, scaled(m_frame.plot, m_ratio));
    }
  }
  m_stale = false;
  m_bands = QImage();
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

void CurveLayer::paintBands(QPainter& painter) {
  const QRect area = pixelsOf(scaled(m_frame.plot, m_ratio));
  if (area.isEmpty())
    return;
  if (m_bands.isNull()) {
    m_bands = QImage(area.size(), QImage::Format_ARGB32_Premultiplied);
    m_bands.fill(Qt::transparent);
    // Last band first, each pixel written once: per column the rows already
    // painted are one interval (a column where two bands do not touch checks
    // each pixel instead). Coinciding bands cost one band, not three.
    uchar* bits = m_bands.bits();
    const qsizetype stride = m_bands.bytesPerLine();
    const auto pixel = [&](int x, int y) -> QRgb& { return reinterpret_cast<QRgb*>(bits + y * stride)[x]; };
    std::vector<int> top(std::size_t(area.width()), std::numeric_limits<int>::max());
    std::vector<int> bottom(std::size_t(area.width()), std::numeric_limits<int>::min());
    std::vector<char> split(std::size_t(area.width()), 0);
    for (std::size_t i = m_curves.size(); i-- > 0;) {
      const QRgb colour = qPremultiply(m_curves[i].pen.color().rgba());
      const auto fill = [&](int x, int y0, int y1) {
        for (int y = y0; y <= y1; ++y)
          pixel(x, y) = colour;
      };
      for (const QRect& column : m_columns[i]) {
        const QRect r = column.intersected(area).translated(-area.topLeft());
        if (r.isEmpty())
          continue;
        const int x = r.left();
        int& t = top[std::size_t(x)];
        int& b = bottom[std::size_t(x)];
        if (split[std::size_t(x)] != 0) {
          for (int y = r.top(); y <= r.bottom(); ++y)
            if (pixel(x, y) == 0)
              pixel(x, y) = colour;
        } else if (t > b) {
          fill(x, r.top(), r.bottom());
          t = r.top();
          b = r.bottom();
        } else if (r.bottom() + 1 < t || r.top() > b + 1) {
          fill(x, r.top(), r.bottom());
          split[std::size_t(x)] = 1;
        } else {
          fill(x, r.top(), t - 1);
          fill(x, b + 1, r.bottom());
          t = std::min(t, r.top());
          b = std::max(b, r.bottom());
        }
      }
    }
    m_bands.setDevicePixelRatio(m_ratio);
  }
  painter.drawImage(QPointF(area.topLeft()) / m_ratio, m_bands);
}

void CurveLayer::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  const double ratio = painter->device() != nullptr ? painter->device()->devicePixelRatioF() : 1.0;
  if (ratio != m_ratio) {
    m_ratio = ratio;
    m_stale = true;
  }
  if (m_stale)
    rebuild();
  painter->save();
  painter->setClipRect(m_frame.plot, Qt::IntersectClip);
  const bool anyBand = std::any_of(m_curves.begin(), m_curves.end(),
                                   [](const Curve& c) { return !c.band.isEmpty(); });
  if (anyBand) {
    painter->setRenderHint(QPainter::Antialiasing, false);
    paintBands(*painter);
  }
  for (std::size_t i = 0; i < m_curves.size(); ++i) {
    if (!m_curves[i].band.isEmpty() || m_mapped[i].size() < 2)
      continue;
    painter->setRenderHint(QPainter::Antialiasing, !anyBand);
    painter->setPen(m_curves[i].pen);
    painter->setBrush(Qt::NoBrush);
    painter->drawPolyline(m_mapped[i]);
  }
  painter->restore();
}

} // namespace mantissa::ui
