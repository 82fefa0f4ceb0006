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

// The pixel columns that paint a dense curve as a band, as a round pen of
// `radius` would stroke the line through `mapped` (chart coordinates, x
// ascending, steps back within a column allowed): every pixel column of the
// plot (1 px wide, from the plot's left edge) spans the rows within `radius`
// of the line, taking the line in each column as the whole of its lowest to
// highest point there and measuring from the column's nearest edge. A flat
// line is the pen's width thick, a steep one at least as wide, a spike
// reaches half a pen above its peak, and neighbouring columns always touch.
// Clipped to the plot; empty columns are left out. Painted as whole pixels,
// no stroker.
std::vector<QRect> bandColumns(const QPolygonF& mapped, double radius, const QRectF& plot);

// A chart's curves as one graphics item on the chart, under its Qt Charts
// series (skip markers stay on top). Qt Charts strokes every segment of a
// QLineSeries on its own and rebuilds a hit-test outline of the whole line at
// each replace(): with a long history that was most of a frame. Here a sparse
// curve is one drawPolyline (antialiased, its own pen), a dense one a band of
// pixel columns (bandColumns). Curves are kept in data units and mapped when
// painted after a change of data or frame. No hit testing.
//
// Bands are opaque, each in its run's own colour, painted in order into one
// image of the plot (a later band covers an earlier one where they overlap)
// and the image drawn once; the lines (test curves, sparse train curves) go
// on top of every band. The columns' pixels are written straight into the
// image (no QPainter call per 1 px column), the last band first so that each
// pixel is written once; the image is kept until the data or frame change.
class CurveLayer : public QGraphicsItem {
public:
  enum { Type = UserType + 0x4d43 };

  struct Curve {
    QList<QPointF> points; // (step, value), x ascending, every value showable on the axis
    QPen pen;
    // Dense: painted as bandColumns from these points (finer than `points`,
    // which export draws as a line) with the disc `bandRadius` (0: half the
    // pen's width); empty: a line.
    QList<QPointF> band;
    double bandRadius = 0.0;
  };

  explicit CurveLayer(QGraphicsItem* chart);

  void setCurves(std::vector<Curve> curves);
  const std::vector<Curve>& curves() const { return m_curves; }
  void setFrame(const PlotFrame& frame);
  const PlotFrame& frame() const { return m_frame; }

  // Curve i in chart coordinates (export paints these as paths); band columns
  // of curve i in device pixels of the last paint (empty for a line).
  const QPolygonF& mapped(std::size_t i) const;
  const std::vector<QRect>& columns(std::size_t i) const;

  int type() const override { return Type; }
  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
  void rebuild() const;
  void paintBands(QPainter& painter);

  std::vector<Curve> m_curves;
  PlotFrame m_frame;
  double m_ratio = 1.0; // device pixels per chart unit the columns were built for
  mutable bool m_stale = true; // mapped geometry out of date (built when next needed)
  mutable std::vector<QPolygonF> m_mapped; // points, mapped
  mutable std::vector<std::vector<QRect>> m_columns;
  mutable QImage m_bands; // every band, opaque on transparent; null: to paint
};

} // namespace mantissa::ui
