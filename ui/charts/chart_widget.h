// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "chart_export.h"
#include "chart_style.h"

#include <QHash>
#include <QStringList>
#include <QWidget>

class QChart;
class QChartView;
class QAbstractAxis;
class QAbstractSeries;
class QHBoxLayout;
class QValueAxis;
class QXYSeries;

class QMenu;

namespace mantissa::ui {

class CurveLayer;

// Base of every Qt Charts chart: a QChartView under a row of controls, the
// theme and presenter styling (following Theme::changed), the export context menu, and render() for
// export. render() lays the chart out at the target size with the export
// style, paints it and restores the screen state; every XY series and every
// curve of a CurveLayer is painted as one path so an SVG has exactly one
// <path> per series or curve.
class ChartWidget : public QWidget, public ExportableChart {
  Q_OBJECT
public:
  explicit ChartWidget(QWidget* parent = nullptr);
  ~ChartWidget() override;

  void setChartStyle(const ChartStyle& style);
  const ChartStyle& chartStyle() const { return m_style; }

  QChart* chart() const { return m_chart; }
  QChartView* view() const { return m_view; }

  QString title() const override;
  void render(QPainter& painter, const QRectF& target, const ExportStyle& style) const override;
  // The chart's texts outside the legend (axis ticks and titles, the title)
  // that Qt Charts shortened to "..." for want of room; empty when all read whole.
  QStringList elidedTexts() const;
  // The whole name of a legend entry shown elided as `shown` (its tooltip; "" if none).
  QString wholeLegendName(const QString& shown) const { return m_elidedLegendNames.value(shown); }

protected:
  // The row above the chart where subclasses put their toggles.
  QHBoxLayout* controls() const { return m_controls; }
  void setTitle(const QString& title);
  // A legend whose one row would be elided goes to the right of the plot,
  // one entry per line (charts whose legend names what a reader must tell apart).
  void keepLegendWhole();
  // The series' name, shown in the legend elided in the middle when long (at
  // most a third of the chart's width: the axes keep their room), whole in
  // the entry's tooltip. Forget the names before deleting their series.
  void setLegendName(QAbstractSeries* series, const QString& name);
  void refitLegend(); // again, once the chart has laid out new entries
  void forgetLegendNames();
  bool eventFilter(QObject* watched, QEvent* event) override;
  // Restyles everything: background, title, legend, axes, then restyleSeries().
  void applyStyle(const ChartStyle& style);
  void styleAxis(QAbstractAxis* axis, const ChartStyle& style) const;
  // Pens, brushes and marker sizes of the subclass's series.
  virtual void restyleSeries(const ChartStyle& style) = 0;
  // Annotations the subclass paints itself (region labels); called after the
  // chart during export with the chart laid out at the export size.
  virtual void renderOverlay(QPainter& painter, const ChartStyle& style) const;
  // Actions of the chart's own view, above the export actions in its context menu.
  virtual void addViewActions(QMenu& menu);

private:
  void showExportMenu(const QPoint& position);
  void fitTitle();
  void fitLegend();
  static void paintSeriesPath(QPainter& painter, QChart& chart, const QXYSeries& series);
  static void paintLayerPaths(QPainter& painter, const CurveLayer& layer);

  QChart* m_chart = nullptr;
  QChartView* m_view = nullptr;
  QHBoxLayout* m_controls = nullptr;
  ChartStyle m_style;
  QString m_title; // as set; on screen it may be broken into lines to fit
  bool m_keepLegendWhole = false;
  QHash<const QAbstractSeries*, QString> m_legendNames; // whole, by series (setLegendName)
  QHash<QString, QString> m_elidedLegendNames;           // as shown -> whole
};

// Sets a range rounded out to 1, 2 or 5 x 10^k with about `ticks` ticks (as
// QValueAxis::applyNiceNumbers), touching the axis only when something
// changes: every axis change re-lays out the whole chart.
void setNiceRange(QValueAxis* axis, double min, double max, int ticks = 6);

} // namespace mantissa::ui
