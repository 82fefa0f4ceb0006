// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "curve_chart.h"

#include "curve_layer.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QGraphicsSimpleTextItem>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonObject>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mantissa::ui {

QList<QPointF> toChartPoints(std::span<const telemetry::SeriesPoint> points) {
  QList<QPointF> out;
  out.reserve(static_cast<qsizetype>(points.size()));
  for (const telemetry::SeriesPoint& p : points)
    out.append(QPointF(p.x, p.y));
  return out;
}

QList<double> onePerColumn(const std::vector<double>& steps, double xMin, double xMax,
                           std::size_t columns) {
  if (steps.size() <= columns || columns == 0 || !(xMax > xMin))
    return QList<double>(steps.begin(), steps.end());
  QList<double> out;
  const double width = (xMax - xMin) / double(columns);
  double lastColumn = -1.0;
  for (double step : steps) {
    const double column = std::floor((step - xMin) / width);
    if (column != lastColumn)
      out.append(step);
    lastColumn = column;
  }
  return out;
}

double interpolateAt(const QList<QPointF>& points, double x) {
  if (points.isEmpty())
    return std::numeric_limits<double>::quiet_NaN();
  const auto it = std::lower_bound(points.begin(), points.end(), x,
                                   [](const QPointF& p, double v) { return p.x() < v; });
  if (it == points.begin())
    return it->y();
  if (it == points.end())
    return points.back().y();
  const QPointF hi = *it;
  const QPointF lo = *(it - 1);
  if (hi.x() == lo.x())
    return hi.y();
  const double t = (x - lo.x()) / (hi.x() - lo.x());
  return lo.y() + t * (hi.y() - lo.y());
}

CurveChart::CurveChart(const QString& title, const QString& yTitle, bool offerLogScale,
                       QWidget* parent)
    : ChartWidget(parent), m_yTitle(yTitle) {
  setTitle(tr("%1 (train solid, test dashed)").arg(title));
  m_x = new QValueAxis(this);
  m_x->setTitleText(tr("training step"));
  m_x->setLabelFormat(QStringLiteral("%.0f"));
  chart()->addAxis(m_x, Qt::AlignBottom);
  replaceYAxis();

  m_skippedLegend = new QScatterSeries(this);
  m_skippedLegend->setName(tr("skipped step"));
  m_skippedLegend->setMarkerShape(QScatterSeries::MarkerShapeRotatedRectangle);
  chart()->addSeries(m_skippedLegend);
  m_skippedLegend->attachAxis(m_x);
  m_skippedLegend->attachAxis(m_y);

  if (offerLogScale) {
    m_logToggle = new QCheckBox(tr("Log y"), this);
    controls()->addWidget(m_logToggle);
    connect(m_logToggle, &QCheckBox::toggled, this, &CurveChart::setLogScale);
  }
  controls()->addStretch(1);
  m_layer = new CurveLayer(chart());
  keepLegendWhole();
  updateRanges();
  applyStyle(chartStyle());
  connect(chart(), &QGraphicsWidget::geometryChanged, this, &CurveChart::onChartResized);
  // Direct: export lays the chart out at its own size and paints at once.
  connect(chart(), &QChart::plotAreaChanged, this, &CurveChart::syncFrame);
}

void CurveChart::clearRuns() {
  forgetLegendNames();
  for (RunSeries& run : m_runs) {
    for (QAbstractSeries* series :
         std::initializer_list<QAbstractSeries*>{run.train, run.skipped, run.divergence}) {
      chart()->removeSeries(series);
      delete series;
    }
    delete run.divergenceLabel;
  }
  m_runs.clear();
}

void CurveChart::setRuns(const QList<ChartRun>& runs) {
  clearRuns();
  int index = 0;
  for (const ChartRun& info : runs) {
    RunSeries run;
    run.run = info;
    if (!run.run.color.isValid())
      run.run.color = seriesColor(index);
    run.train = new QLineSeries(this);
    run.skipped = new QScatterSeries(this);
    run.skipped->setName(tr("%1 skipped steps").arg(info.name));
    run.skipped->setMarkerShape(QScatterSeries::MarkerShapeRotatedRectangle);
    for (QXYSeries* series : {static_cast<QXYSeries*>(run.train),
                              static_cast<QXYSeries*>(run.skipped)}) {
      chart()->addSeries(series);
      series->attachAxis(m_x);
      series->attachAxis(m_y);
    }
    run.divergence = new QLineSeries(this);
    run.divergence->setName(tr("%1 diverged").arg(info.name));
    chart()->addSeries(run.divergence);
    run.divergence->attachAxis(m_x);
    run.divergence->attachAxis(m_y);
    run.divergence->setVisible(false);
    run.divergenceLabel = new QGraphicsSimpleTextItem(chart());
    run.divergenceLabel->setZValue(20);
    run.divergenceLabel->setVisible(false);
    for (QAbstractSeries* series : std::initializer_list<QAbstractSeries*>{run.skipped, run.divergence})
      for (QLegendMarker* marker : chart()->legend()->markers(series))
        marker->setVisible(false);
    setLegendName(run.train, info.name); // once its marker exists
    m_runs.push_back(run);
    ++index;
  }
  updateRanges();
  restyleSeries(chartStyle());
}

bool CurveChart::updateRun(const QString& runId, const QList<QPointF>& train,
                           const QList<QPointF>& test, const QList<double>& skippedSteps) {
  auto it = std::find_if(m_runs.begin(), m_runs.end(),
                         [&](const RunSeries& r) { return r.run.id == runId; });
  if (it == m_runs.end())
    return false;
  it->trainData = train;
  it->testData = test;
  it->skippedSteps = skippedSteps;
  pushToSeries(*it);
  updateRanges();
  pushToLayer();
  refitLegend(); // a long name elided once its entry is laid out (cheap when it is)
  return true;
}

void CurveChart::setDivergence(const QString& runId, std::optional<double> step,
                               const QString& label) {
  auto it = std::find_if(m_runs.begin(), m_runs.end(),
                         [&](const RunSeries& r) { return r.run.id == runId; });
  if (it == m_runs.end())
    return;
  if (step && !std::isfinite(*step))
    step.reset();
  if (it->divergenceStep == step && it->divergenceText == label)
    return;
  it->divergenceStep = step;
  it->divergenceText = step ? label : QString();
  it->divergenceLabel->setText(it->divergenceText);
  updateRanges();
  pushToLayer();
}

QString CurveChart::divergenceLineLabel(std::int64_t step, const QString& reason) {
  return reason.isEmpty() ? tr("diverged at step %1").arg(step)
                          : tr("diverged at step %1: %2").arg(step).arg(reason);
}

QLineSeries* CurveChart::divergenceSeries(const QString& runId) const {
  const RunSeries* run = find(runId);
  return run != nullptr ? run->divergence : nullptr;
}

QString CurveChart::divergenceLabel(const QString& runId) const {
  const RunSeries* run = find(runId);
  return run != nullptr && run->divergenceStep ? run->divergenceText : QString();
}

double CurveChart::xAxisMin() const { return m_x->min(); }
double CurveChart::xAxisMax() const { return m_x->max(); }

double CurveChart::yAxisMax() const {
  return m_log ? static_cast<const QLogValueAxis*>(m_y)->max() : static_cast<const QValueAxis*>(m_y)->max();
}

void CurveChart::setYCeiling(double ceiling) {
  m_yCeiling = ceiling;
  updateRanges();
  pushToLayer();
}

// Each label at the top of its line, right of it (left when it would leave
// the plot), a row lower than a label it would cover.
void CurveChart::placeDivergenceLabels() {
  const QRectF plot = chart()->plotArea();
  std::vector<QRectF> placed;
  for (RunSeries& run : m_runs) {
    const bool shown = run.divergenceStep.has_value() && run.divergence->isVisible();
    run.divergenceLabel->setVisible(shown);
    if (!shown)
      continue;
    const double x = chart()->mapToPosition(QPointF(*run.divergenceStep, 0.0), run.divergence).x();
    const QRectF text = run.divergenceLabel->boundingRect();
    double left = x + 4.0;
    if (left + text.width() > plot.right() - 2.0)
      left = std::max(plot.left() + 2.0, x - 4.0 - text.width());
    QRectF box(left, plot.top() + 4.0, text.width(), text.height());
    while (std::any_of(placed.begin(), placed.end(), [&](const QRectF& r) { return r.intersects(box); }))
      box.translate(0.0, text.height() + 2.0);
    placed.push_back(box);
    run.divergenceLabel->setPos(box.topLeft());
  }
}

QList<QPointF> CurveChart::plotted(const QList<QPointF>& points) const {
  QList<QPointF> out;
  out.reserve(points.size());
  for (const QPointF& p : points)
    if (std::isfinite(p.x()) && std::isfinite(p.y()) && (!m_log || p.y() > 0.0))
      out.append(p);
  return out;
}

// A line w pixels wide cannot show detail finer than w pixels, and painting
// overlapping thick segments is most of what a frame costs: the train curve
// keeps at most one min/max pair per pen width across the chart (spikes
// survive; short series pass unchanged). The test curve has few points.
std::size_t CurveChart::columnsFor(const QPen& pen) const {
  const double width = chart()->size().width() > 0 ? chart()->size().width() : view()->width();
  return std::size_t(std::max(50.0, width / std::max(1.0, pen.widthF())));
}

// One min/max pair per column (spikes kept), each pair in the order that
// starts nearer the previous column's last point: the band is then painted
// with one stroke across it per column and short joins, instead of a second,
// diagonal stroke across the whole band into the next column (half the pixels
// to fill). Within a column x may step back by less than a pen width.
QList<QPointF> CurveChart::thinned(const QList<QPointF>& points, std::size_t columns) {
  const qsizetype n = points.size();
  if (std::size_t(n) <= 2 * columns)
    return points;
  QList<QPointF> out;
  out.reserve(qsizetype(2 * columns + 2));
  const double x0 = points.front().x();
  const double span = points.back().x() - x0;
  out.append(points.front());
  qsizetype i = 1;
  for (std::size_t c = 0; c < columns && i + 1 < n; ++c) {
    const double upper = c + 1 == columns ? std::numeric_limits<double>::infinity()
                                          : x0 + span * double(c + 1) / double(columns);
    qsizetype lo = -1;
    qsizetype hi = -1;
    for (; i + 1 < n && (points[i].x() < upper || span == 0.0); ++i) {
      if (lo < 0 || points[i].y() < points[lo].y())
        lo = i;
      if (hi < 0 || points[i].y() > points[hi].y())
        hi = i;
    }
    if (lo < 0)
      continue;
    const double last = out.back().y();
    const bool maxFirst = std::abs(points[hi].y() - last) < std::abs(points[lo].y() - last);
    out.append(points[maxFirst ? hi : lo]);
    if (hi != lo)
      out.append(points[maxFirst ? lo : hi]);
  }
  out.append(points.back());
  return out;
}

void CurveChart::onChartResized() {
  const double width = chart()->size().width();
  if (std::abs(width - m_thinnedForWidth) < 1.0)
    return;
  m_thinnedForWidth = width;
  for (RunSeries& run : m_runs)
    pushToSeries(run);
  pushToLayer();
}

// The run's shown curves and skip marks (the layer is given them by pushToLayer).
void CurveChart::pushToSeries(RunSeries& run) {
  // A point the axis cannot show (a non-finite loss, or <= 0 on a log axis)
  // ends a segment: the curve has a gap there.
  run.plottedSegments.clear();
  run.lastStep = std::numeric_limits<double>::quiet_NaN();
  QList<QPointF> segment;
  for (const QPointF& p : run.trainData) {
    if (std::isfinite(p.x()) && !(p.x() <= run.lastStep))
      run.lastStep = p.x();
    if (std::isfinite(p.x()) && std::isfinite(p.y()) && (!m_log || p.y() > 0.0)) {
      segment.append(p);
    } else if (!segment.isEmpty()) {
      run.plottedSegments.append(segment);
      segment.clear();
    }
  }
  if (!segment.isEmpty())
    run.plottedSegments.append(segment);
  const QList<QPointF> train = plotted(run.trainData);
  const std::size_t columns = columnsFor(run.trainPen);
  run.dense = std::size_t(train.size()) > 2 * columns;
  run.plottedTrain = train;
  run.shownSegments.clear();
  run.shownTrain.clear();
  for (const QList<QPointF>& piece : run.plottedSegments) {
    // Each piece keeps its share of the columns.
    const std::size_t share = std::max<std::size_t>(
        1, std::size_t(double(columns) * double(piece.size()) / double(std::max<qsizetype>(1, train.size()))));
    run.shownSegments.append(thinned(piece, share));
    run.shownTrain.append(run.shownSegments.back());
  }
  run.shownTest = plotted(run.testData);
  QList<QPointF> marks;
  for (double step : run.skippedSteps)
    marks.append(QPointF(step, interpolateAt(train, step)));
  run.skipped->replace(plotted(marks));
  bool anySkipped = false;
  for (const RunSeries& r : m_runs)
    anySkipped = anySkipped || !r.skippedSteps.isEmpty();
  if (m_skippedLegend->isVisible() != anySkipped)
    m_skippedLegend->setVisible(anySkipped);
}

// Every run's curves in drawing order: each run's train curve, then its test curve.
void CurveChart::pushToLayer() {
  std::vector<CurveLayer::Curve> curves;
  curves.reserve(2 * m_runs.size());
  for (const RunSeries& run : m_runs) {
    // A band from every plotted point: its pixel columns each hold a whole
    // min/max bucket of the decimated history (thinned pairs may straddle two).
    if (run.shownSegments.isEmpty())
      curves.push_back({{}, run.trainPen, {}, run.bandRadius});
    for (qsizetype i = 0; i < run.shownSegments.size(); ++i)
      curves.push_back({run.shownSegments[i], run.trainPen,
                        run.dense ? run.plottedSegments[i] : QList<QPointF>(), run.bandRadius});
    curves.push_back({run.shownTest, run.testPen, {}, 0.0});
  }
  m_layer->setCurves(std::move(curves));
  syncFrame();
  // Beside a dense band nobody sees antialiased grid lines and skip marks,
  // and Qt strokes an antialiased 1 px grid line 3 times slower (the grid was
  // a fifth of a live frame): the view antialiases while every curve is sparse.
  const bool dense = std::any_of(m_runs.begin(), m_runs.end(), [](const RunSeries& r) { return r.dense; });
  if (view()->renderHints().testFlag(QPainter::Antialiasing) == dense)
    view()->setRenderHint(QPainter::Antialiasing, !dense);
}

void CurveChart::syncFrame() {
  PlotFrame frame;
  frame.plot = chart()->plotArea();
  frame.xMin = m_x->min();
  frame.xMax = m_x->max();
  frame.logY = m_log;
  if (m_log) {
    const auto* axis = static_cast<const QLogValueAxis*>(m_y);
    frame.yMin = axis->min();
    frame.yMax = axis->max();
  } else {
    const auto* axis = static_cast<const QValueAxis*>(m_y);
    frame.yMin = axis->min();
    frame.yMax = axis->max();
  }
  m_layer->setFrame(frame);
  placeDivergenceLabels();
}

void CurveChart::replaceYAxis() {
  if (m_y != nullptr) {
    chart()->removeAxis(m_y);
    delete m_y;
  }
  if (m_log) {
    auto* axis = new QLogValueAxis(this);
    axis->setBase(10.0);
    axis->setLabelFormat(QStringLiteral("%g"));
    axis->setMinorTickCount(8);
    m_y = axis;
  } else {
    auto* axis = new QValueAxis(this);
    axis->setLabelFormat(QStringLiteral("%.3g"));
    m_y = axis;
  }
  m_y->setTitleText(m_yTitle);
  chart()->addAxis(m_y, Qt::AlignLeft);
  for (QAbstractSeries* series : chart()->series())
    series->attachAxis(m_y);
  styleAxis(m_y, chartStyle());
}

void CurveChart::setLogScale(bool on) {
  if (on == m_log)
    return;
  m_log = on;
  if (m_logToggle != nullptr && m_logToggle->isChecked() != on)
    m_logToggle->setChecked(on);
  for (RunSeries& run : m_runs)
    run.skipped->clear();
  replaceYAxis();
  for (RunSeries& run : m_runs)
    pushToSeries(run);
  updateRanges();
  pushToLayer();
  emit logScaleChanged(on);
}

void CurveChart::updateRanges() {
  double xMin = std::numeric_limits<double>::infinity();
  double xMax = -xMin;
  double yMin = xMin;
  double yMax = -xMin;
  for (const RunSeries& run : m_runs) {
    for (const QList<QPointF>* points : {&run.shownTrain, &run.shownTest}) {
      for (const QPointF& p : *points) {
        xMin = std::min(xMin, p.x());
        xMax = std::max(xMax, p.x());
        yMin = std::min(yMin, p.y());
        yMax = std::max(yMax, p.y());
      }
    }
    // The axis reaches the last step logged, a gap at the end included, and
    // the step the run diverged at.
    for (const double step : {run.lastStep, run.divergenceStep.value_or(run.lastStep)})
      if (std::isfinite(step)) {
        xMin = std::min(xMin, step);
        xMax = std::max(xMax, step);
      }
  }
  if (!(xMin <= xMax)) {
    xMin = 0.0;
    xMax = 100.0;
  }
  if (xMax == xMin)
    xMax = xMin + 1.0;
  setNiceRange(m_x, xMin, xMax);
  if (m_log) {
    if (!(yMin <= yMax)) {
      yMin = 0.01;
      yMax = 10.0;
    }
    double lo = std::pow(10.0, std::floor(std::log10(yMin)));
    double hi = std::pow(10.0, std::ceil(std::log10(yMax)));
    if (hi <= lo)
      hi = lo * 10.0;
    auto* axis = static_cast<QLogValueAxis*>(m_y);
    if (axis->min() != lo || axis->max() != hi)
      axis->setRange(lo, hi);
  } else {
    if (!(yMin <= yMax)) {
      yMin = 0.0;
      yMax = 1.0;
    }
    const double pad = yMax > yMin ? 0.05 * (yMax - yMin) : 0.5;
    auto* axis = static_cast<QValueAxis*>(m_y);
    const double top = yMax <= m_yCeiling ? std::min(yMax + pad, m_yCeiling) : yMax + pad;
    setNiceRange(axis, yMin >= 0.0 && yMin - pad < 0.0 ? 0.0 : yMin - pad, top);
    if (yMax <= m_yCeiling && axis->max() > m_yCeiling) // nice ticks past the ceiling: stop at it
      axis->setRange(axis->min(), m_yCeiling);
  }
  double y0 = 0.0;
  double y1 = 1.0;
  if (m_log) {
    y0 = static_cast<QLogValueAxis*>(m_y)->min();
    y1 = static_cast<QLogValueAxis*>(m_y)->max();
  } else {
    y0 = static_cast<QValueAxis*>(m_y)->min();
    y1 = static_cast<QValueAxis*>(m_y)->max();
  }
  for (RunSeries& run : m_runs) {
    if (run.divergence == nullptr)
      continue;
    if (run.divergence->isVisible() != run.divergenceStep.has_value()) {
      run.divergence->setVisible(run.divergenceStep.has_value());
      // Showing a series shows its legend marker again: the line has none
      // (its label says what it is).
      for (QLegendMarker* marker : chart()->legend()->markers(run.divergence))
        marker->setVisible(false);
    }
    if (run.divergenceStep)
      run.divergence->replace({QPointF(*run.divergenceStep, y0), QPointF(*run.divergenceStep, y1)});
  }
  placeDivergenceLabels();
}

void CurveChart::restyleSeries(const ChartStyle& style) {
  // Runs whose curves coincide (fp32 and bf16-mixed often do) must all stay
  // visible: the first run is drawn widest and each later one, on top of it,
  // thinner, so coinciding curves read as a band with every run's colour.
  // Dense bands are opaque and nest the same way, each run's band a fringe
  // wider than the next one's on either side: where they coincide every run
  // shows its legend colour, unmixed. The fringe is wider than the lines'
  // (a band's edge is all there is to see of a run under it) and at least
  // 1.5 px, so a fringe never rounds away to nothing on whole pixels.
  const std::size_t count = m_runs.size();
  const double fringe = std::max(1.5, 0.5 * style.linePenWidth());
  for (std::size_t i = 0; i < count; ++i) {
    RunSeries& run = m_runs[i];
    const double nested = 1.0 + 0.9 * double(count - 1 - i);
    run.bandRadius = 0.5 * style.linePenWidth() + fringe * double(count - 1 - i);
    QPen train(run.run.color, style.linePenWidth() * nested);
    train.setCapStyle(Qt::RoundCap);
    train.setJoinStyle(Qt::RoundJoin);
    run.trainPen = train;
    run.train->setPen(train);
    QPen test = train;
    test.setStyle(Qt::DashLine);
    test.setCapStyle(Qt::FlatCap);
    test.setJoinStyle(Qt::MiterJoin); // round joins between dashes cost twice as much to stroke
    run.testPen = test;
    run.skipped->setColor(run.run.color);
    run.skipped->setPen(QPen(style.text(), std::max(1.0, style.penScale)));
    run.skipped->setMarkerSize(style.markerSize());
    QPen diverged(run.run.color, std::max(1.5, 1.5 * style.penScale), Qt::DashLine);
    run.divergence->setPen(diverged);
    run.divergenceLabel->setFont(style.labelFont());
    run.divergenceLabel->setBrush(style.dark ? run.run.color.lighter(130) : run.run.color.darker(130));
  }
  m_skippedLegend->setColor(style.mutedText());
  m_skippedLegend->setPen(QPen(style.text(), std::max(1.0, style.penScale)));
  m_skippedLegend->setMarkerSize(style.markerSize());
  for (RunSeries& run : m_runs) // new pen widths: new thinning
    pushToSeries(run);
  pushToLayer();
}

const CurveChart::RunSeries* CurveChart::find(const QString& runId) const {
  for (const RunSeries& run : m_runs)
    if (run.run.id == runId)
      return &run;
  return nullptr;
}

QLineSeries* CurveChart::trainSeries(const QString& runId) const {
  const RunSeries* run = find(runId);
  return run != nullptr ? run->train : nullptr;
}

QList<QPointF> CurveChart::shownTrain(const QString& runId) const {
  const RunSeries* run = find(runId);
  return run != nullptr ? run->shownTrain : QList<QPointF>();
}

QList<QList<QPointF>> CurveChart::shownTrainSegments(const QString& runId) const {
  const RunSeries* run = find(runId);
  return run != nullptr ? run->shownSegments : QList<QList<QPointF>>();
}

QList<QPointF> CurveChart::shownTest(const QString& runId) const {
  const RunSeries* run = find(runId);
  return run != nullptr ? run->shownTest : QList<QPointF>();
}

QPen CurveChart::testPen(const QString& runId) const {
  const RunSeries* run = find(runId);
  return run != nullptr ? run->testPen : QPen();
}

bool CurveChart::shownAsBand(const QString& runId) const {
  const RunSeries* run = find(runId);
  return run != nullptr && run->dense;
}

QScatterSeries* CurveChart::skippedSeries(const QString& runId) const {
  const RunSeries* run = find(runId);
  return run != nullptr ? run->skipped : nullptr;
}

QString CurveChart::csv() const {
  QString out = QStringLiteral("run,curve,step,value\n");
  for (const RunSeries& run : m_runs) {
    const auto rows = [&](const QList<QPointF>& points, const QString& curve) {
      for (const QPointF& p : points)
        out += QStringLiteral("%1,%2,%3,%4\n")
                   .arg(csvField(run.run.name), curve, QString::number(p.x(), 'g', 17),
                        QString::number(p.y(), 'g', 9));
    };
    rows(run.trainData, QStringLiteral("train"));
    rows(run.testData, QStringLiteral("test"));
  }
  return out;
}

QJsonDocument CurveChart::json() const {
  const auto points = [](const QList<QPointF>& list) {
    QJsonArray array;
    for (const QPointF& p : list)
      array.append(QJsonArray{p.x(), std::isfinite(p.y()) ? QJsonValue(p.y()) : QJsonValue()});
    return array;
  };
  QJsonArray runs;
  for (const RunSeries& run : m_runs) {
    QJsonArray skipped;
    for (double step : run.skippedSteps)
      skipped.append(step);
    runs.append(QJsonObject{{QStringLiteral("id"), run.run.id},
                            {QStringLiteral("name"), run.run.name},
                            {QStringLiteral("train"), points(run.trainData)},
                            {QStringLiteral("test"), points(run.testData)},
                            {QStringLiteral("skippedSteps"), skipped}});
  }
  return QJsonDocument(QJsonObject{{QStringLiteral("chart"), title()},
                                   {QStringLiteral("x"), QStringLiteral("training step")},
                                   {QStringLiteral("y"), m_yTitle},
                                   {QStringLiteral("logScale"), m_log},
                                   {QStringLiteral("runs"), runs}});
}

} // namespace mantissa::ui
