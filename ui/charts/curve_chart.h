// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "chart_widget.h"

#include <mantissa/telemetry/decimate.h>

#include <QList>
#include <QPen>
#include <QPointF>

#include <limits>
#include <optional>
#include <span>
#include <vector>

class QAbstractAxis;
class QCheckBox;
class QGraphicsSimpleTextItem;
class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace mantissa::ui {

class CurveLayer;

// One training run as the charts see it; an invalid colour takes the next
// Okabe-Ito colour by position.
struct ChartRun {
  QString id;
  QString name;
  QColor color;
};

// Train and test curves over steps for several runs (one colour each, test
// dashed), skipped steps marked on the train curve. Base of LossChart and
// AccuracyChart. The curves are painted by one CurveLayer on the chart (a
// dense train curve as a band of pixel columns); each run keeps an empty
// QLineSeries for its legend entry and colour, and a QScatterSeries for its
// skip marks. The train curve shows at most one min/max pair per pen width.
class CurveChart : public ChartWidget {
  Q_OBJECT
public:
  CurveChart(const QString& title, const QString& yTitle, bool offerLogScale,
             QWidget* parent = nullptr);

  void setRuns(const QList<ChartRun>& runs);
  // Points are (step, value), already decimated by the caller. A non-finite
  // value (a loss logged as null) is a gap in the curve, never bridged; the x
  // axis still reaches its step. False if runId is unknown.
  bool updateRun(const QString& runId, const QList<QPointF>& train, const QList<QPointF>& test,
                 const QList<double>& skippedSteps = {});

  // The step a run diverged at: a vertical line in the run's colour, labelled
  // `label` (what the banner says), inside the x axis. nullopt removes it.
  void setDivergence(const QString& runId, std::optional<double> step, const QString& label);
  // The line's label in short: "diverged at step 33", with ": <reason>" when
  // the run names one (the banner has the whole sentence).
  static QString divergenceLineLabel(std::int64_t step, const QString& reason);
  QLineSeries* divergenceSeries(const QString& runId) const;
  QString divergenceLabel(const QString& runId) const; // "" when none is drawn

  void setLogScale(bool on);
  bool logScale() const { return m_log; }
  double xAxisMin() const;
  double xAxisMax() const;
  double yAxisMax() const;
  // The largest value the quantity can take (accuracy: 100 %): the linear y
  // axis stops there instead of padding past it.
  void setYCeiling(double ceiling);

  // The run's legend entry: no points, the train curve's pen.
  QLineSeries* trainSeries(const QString& runId) const;
  QScatterSeries* skippedSeries(const QString& runId) const;
  // What the chart draws of the run, in data units: the train curve (thinned)
  // and the test curve, without what the y axis cannot show.
  QList<QPointF> shownTrain(const QString& runId) const;
  // The train curve's pieces between gaps (non-finite values), each drawn on its own.
  QList<QList<QPointF>> shownTrainSegments(const QString& runId) const;
  QList<QPointF> shownTest(const QString& runId) const;
  QPen testPen(const QString& runId) const;
  // True if the run's train curve is painted as a band of columns.
  bool shownAsBand(const QString& runId) const;
  CurveLayer* curveLayer() const { return m_layer; }

  QString csv() const override;
  QJsonDocument json() const override;

signals:
  void logScaleChanged(bool on);

protected:
  void restyleSeries(const ChartStyle& style) override;

private:
  struct RunSeries {
    ChartRun run;
    QLineSeries* train = nullptr; // legend entry only
    QScatterSeries* skipped = nullptr;
    QList<QPointF> trainData;
    QList<QPointF> testData;
    QList<double> skippedSteps;
    QList<QPointF> plottedTrain; // what the y axis can show
    QList<QPointF> shownTrain;   // plottedTrain thinned
    QList<QList<QPointF>> plottedSegments; // plottedTrain cut at the gaps
    QList<QList<QPointF>> shownSegments;   // each thinned
    double lastStep = std::numeric_limits<double>::quiet_NaN(); // of any point, finite or not
    std::optional<double> divergenceStep;
    QString divergenceText;
    QLineSeries* divergence = nullptr;                   // the vertical line
    QGraphicsSimpleTextItem* divergenceLabel = nullptr;  // its label, at the top
    QList<QPointF> shownTest;
    QPen trainPen;
    QPen testPen;
    double bandRadius = 0.0;
    bool dense = false; // more points than the train curve shows (thinned)
  };
  const RunSeries* find(const QString& runId) const;
  void clearRuns();
  void pushToSeries(RunSeries& run);
  void replaceYAxis();
  void updateRanges();
  QList<QPointF> plotted(const QList<QPointF>& points) const;
  std::size_t columnsFor(const QPen& pen) const;
  static QList<QPointF> thinned(const QList<QPointF>& points, std::size_t columns);
  void onChartResized();
  void pushToLayer();
  void syncFrame();
  void placeDivergenceLabels();

  std::vector<RunSeries> m_runs;
  QString m_yTitle;
  QValueAxis* m_x = nullptr;
  QAbstractAxis* m_y = nullptr;
  QScatterSeries* m_skippedLegend = nullptr; // empty series: one legend entry
  CurveLayer* m_layer = nullptr;              // owned by the chart
  QCheckBox* m_logToggle = nullptr;
  bool m_log = false;
  double m_yCeiling = std::numeric_limits<double>::infinity();
  double m_thinnedForWidth = 0.0; // chart width the train curves were thinned for
};

// Core series (telemetry::decimateMinMax output) as chart points.
QList<QPointF> toChartPoints(std::span<const telemetry::SeriesPoint> points);

// Marks to draw out of sorted `steps`: the first one in each of `columns`
// equal slices of [xMin, xMax] (every step when there are no more than columns).
QList<double> onePerColumn(const std::vector<double>& steps, double xMin, double xMax,
                           std::size_t columns);

// Values from the curves at a step by linear interpolation (skip markers).
double interpolateAt(const QList<QPointF>& points, double x);

} // namespace mantissa::ui
