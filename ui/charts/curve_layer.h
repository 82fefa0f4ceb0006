// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <QGraphicsItem>
#include <QImage>
#include <QList>
#include <QPen>
#include <QPointF>
#include <QPolygonF>
#include <QRect>
#include <QRectF>

#include <vector>

namespace mantissa::ui {

// Where a chart shows data: its plot rectangle (chart coordinates) and the
// axes' ranges, y linear or log10, mapped as Qt Charts' domains map a point.
struct PlotFrame {
  QRectF plot;
  double xMin = 0.0;
  double xMax = 1.0;
  double yMin = 0.0;
  double yMax = 1.0;
  bool logY = false;

  QPointF toPosition(const QPointF& value) const;
  bool operator==(const PlotFrame&) const = default;
};

// The pixel columns that paint a dense curve as a band: `mapped` (chart
// coordinates, x ascending) cut into columns `width` px wide from the plot's
// left edge, each filled from its lowest to its highest point plus half a pen
// width either side, and reaching the previous column's last point so the
// band stays connected (as the line through the points would). Columns are
// whole pixels, clipped to the plot: painted with fillRect, no stroker.
std::vector<QRect> bandColumns(const QPolygonF& mapped, double width, const QRectF& plot);

// A chart's curves as one graphics item on the chart, under its Qt Charts
// series (skip markers stay on top). Qt Charts strokes every segment of a
// QLineSeries on its own and rebuilds a hit-test outline of the whole line at
// each replace(): with a long history that was most of a frame. Here a sparse
// curve is one drawPolyline (antialiased, its own pen), a dense one a band of
// filled pixel columns (bandColumns). Curves are kept in data units and mapped
// when painted after a change of data or frame. No hit testing.
//
// A band painted translucent is filled opaque into an image of the plot and
// the image drawn at the band's opacity: Qt's raster engine blends a
// translucent solid fill per pixel some 30 times slower than it blends an
// image (24 ms vs 0.7 ms for a 600-column band, measured here), and a
// dashed line is drawn without antialiasing beside a band (7 ms vs 0.4 for
// 150 points at 4.9 px).
class CurveLayer : public QGraphicsItem {
public:
  enum { Type = UserType + 0x4d43 };

  struct Curve {
    QList<QPointF> points; // (step, value), x ascending, every value showable on the axis
    QPen pen;
    // Dense: painted as bandColumns of the pen's width from these points
    // (finer than `points`, which export draws as a line); empty: a line.
    QList<QPointF> band;
    double opacity = 1.0; // coinciding bands of several runs show through
  };

  explicit CurveLayer(QGraphicsItem* chart);

  void setCurves(std::vector<Curve> curves);
  const std::vector<Curve>& curves() const { return m_curves; }
  void setFrame(const PlotFrame& frame);
  const PlotFrame& frame() const { return m_frame; }

  // Curve i in chart coordinates (export paints these as paths); band columns
  // of curve i (empty for a line).
  const QPolygonF& mapped(std::size_t i) const;
  const std::vector<QRect>& columns(std::size_t i) const;

  int type() const override { return Type; }
  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
  void rebuild() const;
  void paintBand(QPainter& painter, std::size_t i);

  std::vector<Curve> m_curves;
  PlotFrame m_frame;
  mutable bool m_stale = true; // mapped geometry out of date (built when next needed)
  mutable std::vector<QPolygonF> m_mapped; // points, mapped
  mutable std::vector<std::vector<QRect>> m_columns;
  mutable std::vector<QImage> m_bandImages; // translucent bands, filled opaque; null: to paint
};

} // namespace mantissa::ui
