// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "chart_widget.h"

#include "curve_layer.h"
#include "export_menu.h"
#include "ui/app_shell/theme.h"

#include <QAbstractAxis>
#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QCoreApplication>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QHBoxLayout>
#include <QMenu>
#include <QToolTip>
#include <QHelpEvent>
#include <QGraphicsTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPainter>
#include <QPainterPath>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <vector>

namespace mantissa::ui {

namespace {

// Liang-Barsky: clips segment a-b to rect; false if nothing is left.
bool clipSegment(QPointF& a, QPointF& b, const QRectF& rect) {
  double t0 = 0.0;
  double t1 = 1.0;
  const double dx = b.x() - a.x();
  const double dy = b.y() - a.y();
  const double p[4] = {-dx, dx, -dy, dy};
  const double q[4] = {a.x() - rect.left(), rect.right() - a.x(), a.y() - rect.top(),
                       rect.bottom() - a.y()};
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0.0) {
      if (q[i] < 0.0)
        return false;
      continue;
    }
    const double t = q[i] / p[i];
    if (p[i] < 0.0)
      t0 = std::max(t0, t);
    else
      t1 = std::min(t1, t);
    if (t0 > t1)
      return false;
  }
  const QPointF start = a;
  a = start + QPointF(dx * t0, dy * t0);
  b = start + QPointF(dx * t1, dy * t1);
  return true;
}

template <class Points> QPainterPath clippedPolyline(const Points& points, const QRectF& clip) {
  QPainterPath path;
  QPointF penAt(std::nan(""), std::nan(""));
  for (std::size_t i = 1; i < std::size_t(points.size()); ++i) {
    QPointF a = points[i - 1];
    QPointF b = points[i];
    if (!clipSegment(a, b, clip))
      continue;
    if (a != penAt)
      path.moveTo(a);
    path.lineTo(b);
    penAt = b;
  }
  return path;
}

void addMarker(QPainterPath& path, QScatterSeries::MarkerShape shape, const QPointF& c, double size) {
  const double r = size / 2.0;
  switch (shape) {
  case QScatterSeries::MarkerShapeRectangle: path.addRect(c.x() - r, c.y() - r, size, size); break;
  case QScatterSeries::MarkerShapeRotatedRectangle:
    path.addPolygon(QPolygonF{{c.x(), c.y() - r}, {c.x() + r, c.y()}, {c.x(), c.y() + r},
                              {c.x() - r, c.y()}, {c.x(), c.y() - r}});
    break;
  case QScatterSeries::MarkerShapeTriangle:
    path.addPolygon(QPolygonF{{c.x(), c.y() - r}, {c.x() + r, c.y() + r}, {c.x() - r, c.y() + r},
                              {c.x(), c.y() - r}});
    break;
  default: path.addEllipse(c, r, r); break;
  }
}

std::vector<QPointF> mapped(QChart& chart, const QXYSeries& series) {
  std::vector<QPointF> out;
  const QList<QPointF> points = series.points();
  out.reserve(static_cast<std::size_t>(points.size()));
  for (const QPointF& p : points)
    out.push_back(chart.mapToPosition(p, const_cast<QXYSeries*>(&series)));
  return out;
}

} // namespace

void setNiceRange(QValueAxis* axis, double min, double max, int ticks) {
  if (!(max > min) || !std::isfinite(min) || !std::isfinite(max)) {
    min = std::isfinite(min) ? min : 0.0;
    max = min + 1.0;
  }
  const double raw = (max - min) / std::max(1, ticks - 1);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double fraction = raw / magnitude;
  const double step = (fraction <= 1.0 ? 1.0 : fraction <= 2.0 ? 2.0 : fraction <= 5.0 ? 5.0 : 10.0) *
                      magnitude;
  const double lo = std::floor(min / step) * step;
  const double hi = std::ceil(max / step) * step;
  const int count = static_cast<int>(std::lround((hi - lo) / step)) + 1;
  if (axis->min() != lo || axis->max() != hi)
    axis->setRange(lo, hi);
  if (axis->tickCount() != count)
    axis->setTickCount(count);
}

ChartWidget::ChartWidget(QWidget* parent) : QWidget(parent), m_style(ChartStyle::fromTheme()) {
  // Subclasses apply m_style at the end of their constructors.
  connect(&Theme::instance(), &Theme::changed, this,
          [this] { setChartStyle(ChartStyle::fromTheme()); });
  m_chart = new QChart();
  m_chart->setAnimationOptions(QChart::NoAnimation);
  m_chart->setBackgroundRoundness(0);
  m_chart->legend()->setAlignment(Qt::AlignBottom);
  m_view = new QChartView(m_chart, this); // the view owns the chart
  m_view->setRenderHint(QPainter::Antialiasing);
  // One rectangle around what changed, not the region of every changed item:
  // painting under a many-rectangle clip region made Qt draw each 1 px grid
  // line and area edge through its slow clipped-span path (two thirds of a
  // live frame went to grid lines and histogram areas).
  m_view->setViewportUpdateMode(QGraphicsView::BoundingRectViewportUpdate);
  m_view->setContextMenuPolicy(Qt::CustomContextMenu);
  m_view->setMinimumSize(240, 160);
  m_view->viewport()->installEventFilter(this); // tooltips of elided legend entries
  // Queued: the title and the legend change the layout that emits this.
  connect(m_chart, &QChart::plotAreaChanged, this, &ChartWidget::fitTitle, Qt::QueuedConnection);
  connect(m_chart, &QChart::plotAreaChanged, this, &ChartWidget::fitLegend, Qt::QueuedConnection);
  connect(m_view, &QWidget::customContextMenuRequested, this,
          [this](const QPoint& pos) { showExportMenu(m_view->mapToGlobal(pos)); });

  m_controls = new QHBoxLayout();
  m_controls->setContentsMargins(6, 2, 6, 0);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addLayout(m_controls);
  layout->addWidget(m_view, 1);
}

ChartWidget::~ChartWidget() = default;

void ChartWidget::setChartStyle(const ChartStyle& style) {
  m_style = style;
  applyStyle(style);
}

QString ChartWidget::title() const { return m_title; }

void ChartWidget::setTitle(const QString& title) {
  m_title = title;
  m_chart->setTitle(title);
  // Once laid out (a chart not yet shown has no width to fit to).
  QMetaObject::invokeMethod(this, &ChartWidget::fitTitle, Qt::QueuedConnection);
}

// A plain title wider than the chart (a dock at 1280x720 in presenter mode)
// breaks into lines at its spaces (chart titles are rich text) instead of
// being elided by Qt Charts. Exports lay out the full title (render()).
void ChartWidget::fitTitle() {
  if (m_title.contains(u'<') || !isVisible())
    return; // rich text: left as it is; hidden: fitted when laid out again
  const QFontMetricsF metrics(m_chart->titleFont());
  const QMargins margins = m_chart->margins();
  const double room = m_chart->size().width() - margins.left() - margins.right() -
                      2.0 * metrics.averageCharWidth();
  QString shown = m_title;
  if (room > 0 && metrics.horizontalAdvance(m_title) > room)
    shown = breakLines(m_title, metrics, room);
  if (shown != m_chart->title())
    m_chart->setTitle(shown);
}

void ChartWidget::keepLegendWhole() {
  m_keepLegendWhole = true;
  QMetaObject::invokeMethod(this, &ChartWidget::fitLegend, Qt::QueuedConnection);
}

// Qt Charts lays a bottom legend out in one row and elides every entry when
// the row is wider than the chart ("loss s…" at 394 px): a legend whose row
// does not fit goes to the right of the plot, one entry per line, whole.
// The row is estimated a little wider than Qt lays it out.
QStringList ChartWidget::elidedTexts() const {
  QStringList out;
  for (QGraphicsItem* item : m_view->scene()->items()) {
    const auto* text = qgraphicsitem_cast<QGraphicsTextItem*>(item);
    if (text == nullptr || !text->isVisible())
      continue;
    bool inLegend = false;
    for (const QGraphicsItem* up = text; up != nullptr && !inLegend; up = up->parentItem())
      inLegend = up == m_chart->legend();
    const QString plain = text->toPlainText();
    if (!inLegend && (plain.contains(QStringLiteral("...")) || plain.contains(QChar(0x2026))))
      out << plain;
  }
  return out;
}

void ChartWidget::setLegendName(QAbstractSeries* series, const QString& name) {
  m_legendNames.insert(series, name);
  series->setName(name);
  QMetaObject::invokeMethod(this, &ChartWidget::fitLegend, Qt::QueuedConnection);
}

void ChartWidget::refitLegend() {
  if (!m_legendNames.isEmpty())
    QMetaObject::invokeMethod(this, &ChartWidget::fitLegend, Qt::QueuedConnection);
}

void ChartWidget::forgetLegendNames() {
  m_legendNames.clear();
  m_elidedLegendNames.clear();
}

bool ChartWidget::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_view->viewport() && event->type() == QEvent::ToolTip &&
      !m_elidedLegendNames.isEmpty()) {
    const auto* help = static_cast<QHelpEvent*>(event);
    for (QGraphicsItem* item : m_view->items(help->pos()))
      if (const auto* text = qgraphicsitem_cast<QGraphicsTextItem*>(item))
        if (const auto it = m_elidedLegendNames.constFind(text->toPlainText());
            it != m_elidedLegendNames.cend()) {
          QToolTip::showText(help->globalPos(), *it, m_view);
          return true;
        }
  }
  return QWidget::eventFilter(watched, event);
}

void ChartWidget::fitLegend() {
  QLegend* legend = m_chart->legend();
  const QFontMetricsF metrics(legend->font());
  // Long names (a run named at length) are elided in the middle to at most a
  // third of the chart's width, between 12 and 40 characters: a legend
  // beside the plot took 40 % of it and every axis tick became "...".
  m_elidedLegendNames.clear();
  if (!m_legendNames.isEmpty()) {
    const double chars = metrics.averageCharWidth();
    const double widest = std::clamp(m_chart->size().width() / 3.0, 12.0 * chars, 40.0 * chars);
    for (QLegendMarker* marker : legend->markers()) {
      const auto it = m_legendNames.constFind(marker->series());
      if (it == m_legendNames.cend())
        continue;
      const QString shown = metrics.horizontalAdvance(*it) <= widest
                                ? *it
                                : metrics.elidedText(*it, Qt::ElideMiddle, widest);
      if (shown != *it)
        m_elidedLegendNames.insert(shown, *it);
      if (marker->label() != shown)
        marker->setLabel(shown);
    }
  }
  if (!m_keepLegendWhole)
    return;
  double row = 0.0;
  for (QLegendMarker* marker : legend->markers()) {
    if (!marker->isVisible())
      continue;
    static const QRegularExpression kTag(QStringLiteral("<[^>]*>"));
    QString label = marker->label();
    if (label.contains(u'<'))
      label.remove(kTag);
    // The marker, its margins and the spacing beside the text.
    row += metrics.horizontalAdvance(label) + metrics.height() + 16.0;
  }
  const QMargins margins = m_chart->margins();
  const double room = m_chart->size().width() - margins.left() - margins.right();
  const Qt::Alignment fitting = row <= room ? Qt::AlignBottom : Qt::AlignRight;
  if (legend->alignment() != fitting)
    legend->setAlignment(fitting);
}

void ChartWidget::styleAxis(QAbstractAxis* axis, const ChartStyle& style) const {
  axis->setLabelsFont(style.labelFont());
  axis->setLabelsColor(style.text());
  axis->setTitleFont(style.axisTitleFont());
  axis->setTitleBrush(style.text());
  axis->setGridLineColor(style.grid());
  axis->setMinorGridLineColor(style.grid().lighter(style.dark ? 80 : 106));
  QPen line(style.axisLine());
  line.setWidthF(std::max(1.0, style.penScale));
  axis->setLinePen(line);
  QPen gridPen(style.grid());
  gridPen.setWidthF(std::max(1.0, 0.75 * style.penScale));
  axis->setGridLinePen(gridPen);
}

void ChartWidget::applyStyle(const ChartStyle& style) {
  m_chart->setBackgroundBrush(style.background());
  m_chart->setBackgroundPen(Qt::NoPen);
  m_chart->setPlotAreaBackgroundBrush(style.plotBackground());
  m_chart->setPlotAreaBackgroundVisible(!style.transparentBackground);
  m_chart->setTitleFont(style.titleFont());
  m_chart->setTitleBrush(style.text());
  m_chart->legend()->setFont(style.labelFont());
  m_chart->legend()->setLabelColor(style.text());
  for (QAbstractAxis* axis : m_chart->axes())
    styleAxis(axis, style);
  m_view->setBackgroundBrush(style.background());
  restyleSeries(style);
}

void ChartWidget::renderOverlay(QPainter&, const ChartStyle&) const {}

void ChartWidget::paintSeriesPath(QPainter& painter, QChart& chart, const QXYSeries& series) {
  const QRectF plot = chart.plotArea();
  QPainterPath path;
  if (const auto* scatter = qobject_cast<const QScatterSeries*>(&series)) {
    for (const QPointF& c : mapped(chart, series))
      if (plot.adjusted(-0.5, -0.5, 0.5, 0.5).contains(c))
        addMarker(path, scatter->markerShape(), c, scatter->markerSize());
    painter.setPen(scatter->pen());
    painter.setBrush(scatter->brush());
  } else {
    path = clippedPolyline(mapped(chart, series), plot);
    // One path per series: round joins and caps, as the screen's separately
    // drawn square-capped segments look (those are cheaper to paint live).
    QPen pen = series.pen();
    if (pen.style() == Qt::SolidLine) {
      pen.setJoinStyle(Qt::RoundJoin);
      pen.setCapStyle(Qt::RoundCap);
    }
    painter.setPen(pen);
    painter.setBrush(Qt::NoBrush);
  }
  if (!path.isEmpty())
    painter.drawPath(path);
}

// A layer's curves, each as one path (a band as the line through its
// points), bands first and lines over them, as on screen.
void ChartWidget::paintLayerPaths(QPainter& painter, const CurveLayer& layer) {
  for (const bool bands : {true, false}) {
    for (std::size_t i = 0; i < layer.curves().size(); ++i) {
      const CurveLayer::Curve& curve = layer.curves()[i];
      if (curve.band.isEmpty() == bands)
        continue;
      const QPainterPath path = clippedPolyline(layer.mapped(i), layer.frame().plot);
      if (path.isEmpty())
        continue;
      painter.setPen(curve.pen);
      painter.setBrush(Qt::NoBrush);
      painter.drawPath(path);
    }
  }
}

void ChartWidget::render(QPainter& painter, const QRectF& target, const ExportStyle& style) const {
  // Export temporarily restyles and resizes the on-screen chart; it is
  // restored before returning, within one event, so nothing flickers.
  auto* self = const_cast<ChartWidget*>(this);
  // Axes replaced since the last event loop pass leave their graphics behind
  // until deferred deletion runs; headless export may never run a loop.
  QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
  const ChartStyle screenStyle = m_style;
  const QRectF screenGeometry = m_chart->geometry();
  const ChartStyle exportStyle = exportChartStyle(screenStyle, style);
  const QString shownTitle = m_chart->title();
  m_chart->setTitle(m_title);
  self->applyStyle(exportStyle);
  m_chart->setGeometry(QRectF(screenGeometry.topLeft(), target.size()));
  if (m_chart->layout() != nullptr)
    m_chart->layout()->activate();

  // XY series and curve layers are hidden from the scene and painted as one
  // path per series or curve (under the series, as on screen).
  std::vector<CurveLayer*> layers;
  for (QGraphicsItem* item : m_chart->childItems())
    if (item->type() == CurveLayer::Type && item->isVisible())
      layers.push_back(static_cast<CurveLayer*>(item));
  for (CurveLayer* layer : layers)
    layer->setVisible(false);
  std::vector<std::pair<QAbstractSeries*, qreal>> hidden;
  for (QAbstractSeries* series : m_chart->series()) {
    if (series->isVisible() && qobject_cast<QXYSeries*>(series) != nullptr) {
      hidden.emplace_back(series, series->opacity());
      series->setOpacity(0.0);
    }
  }
  painter.save();
  m_chart->scene()->render(&painter, target, QRectF(m_chart->scenePos(), target.size()),
                           Qt::IgnoreAspectRatio);
  painter.translate(target.topLeft());
  painter.setRenderHint(QPainter::Antialiasing);
  for (const CurveLayer* layer : layers)
    paintLayerPaths(painter, *layer);
  for (const auto& [series, opacity] : hidden) {
    painter.setOpacity(opacity);
    paintSeriesPath(painter, *m_chart, *static_cast<QXYSeries*>(series));
  }
  painter.setOpacity(1.0);
  renderOverlay(painter, exportStyle);
  painter.restore();

  for (const auto& [series, opacity] : hidden)
    series->setOpacity(opacity);
  for (CurveLayer* layer : layers)
    layer->setVisible(true);
  m_chart->setGeometry(screenGeometry);
  m_chart->setTitle(shownTitle);
  self->applyStyle(screenStyle);
}

void ChartWidget::addViewActions(QMenu& /*menu*/) {}

void ChartWidget::showExportMenu(const QPoint& position) {
  QMenu menu(this);
  addViewActions(menu);
  if (!menu.isEmpty())
    menu.addSeparator();
  addExportActions(menu, this, *this);
  menu.exec(position);
}

} // namespace mantissa::ui
