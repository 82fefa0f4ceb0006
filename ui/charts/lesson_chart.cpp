// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "lesson_chart.h"

#include "chart_style.h"
#include "ui/app_shell/palette.h"

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QGraphicsSimpleTextItem>
#include <QBarSeries>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QFontMetricsF>
#include <QTextDocument>
#include <QTextDocumentFragment>
#include <QJsonArray>
#include <QJsonObject>
#include <QBarLegendMarker>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QToolTip>
#include <QCursor>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mantissa::ui {

namespace {

constexpr qsizetype kMarkersUpTo = 40; // few points: show them as markers too

bool hasBars(const lessons::DemoOutput& demo) {
  return std::any_of(demo.series.begin(), demo.series.end(), [](const auto& s) { return s.bars; });
}

// Width of a histogram bin: the smallest gap between consecutive x (1 for one bin).
double binWidth(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  double w = std::numeric_limits<double>::infinity();
  for (std::size_t i = 1; i < x.size(); ++i)
    if (x[i] > x[i - 1])
      w = std::min(w, x[i] - x[i - 1]);
  return std::isfinite(w) ? w : 1.0;
}

} // namespace

LessonChart::LessonChart(QWidget* parent) : ChartWidget(parent) {
  setTitle(tr("Run the demo to see its figure"));
  // Beside a slide the figure is narrow: Qt's 20 px margins go to the plot and its labels.
  chart()->setMargins(QMargins(6, 6, 12, 6));
  // Queued: the labels change the layout that emits this.
  connect(chart(), &QChart::plotAreaChanged, this, &LessonChart::fitTexts,
          Qt::QueuedConnection);
  rebuildAxes(false, false, {}, false);
  applyStyle(chartStyle());
}

void LessonChart::rebuildAxes(bool logY, bool barCategories, const std::vector<std::string>& categories,
                              bool right) {
  for (auto* axis : chart()->axes()) {
    chart()->removeAxis(axis);
    delete axis;
  }
  if (barCategories) {
    auto* x = new QBarCategoryAxis(this);
    for (const auto& c : categories)
      x->append(QString::fromStdString(c));
    m_x = x;
  } else if (!categories.empty()) {
    auto* x = new QCategoryAxis(this);
    x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    for (std::size_t i = 0; i < categories.size(); ++i)
      x->append(QString::fromStdString(categories[i]), static_cast<double>(i));
    x->setRange(-0.5, static_cast<double>(categories.size()) - 0.5);
    m_x = x;
  } else {
    auto* x = new QValueAxis(this);
    x->setLabelFormat(QStringLiteral("%g"));
    m_x = x;
  }
  chart()->addAxis(m_x, Qt::AlignBottom);
  if (logY) {
    auto* y = new QLogValueAxis(this);
    y->setBase(10.0);
    y->setLabelFormat(QStringLiteral("%.0e"));
    m_y = y;
  } else {
    auto* y = new QValueAxis(this);
    y->setLabelFormat(QStringLiteral("%.4g"));
    m_y = y;
  }
  chart()->addAxis(m_y, Qt::AlignLeft);
  m_right = nullptr;
  if (right) {
    auto* y = new QLogValueAxis(this);
    y->setBase(2.0);
    y->setLabelFormat(QStringLiteral("%g"));
    y->setGridLineVisible(false); // the left axis' grid is the chart's
    m_right = y;
    chart()->addAxis(m_right, Qt::AlignRight);
  }
}

void LessonChart::clearDemo() {
  chart()->removeAllSeries(); // deletes them (and the bins' boundary lines, their children)
  for (const NonFiniteBar& bar : m_nonFinite)
    delete bar.text;
  m_nonFinite.clear();
  m_series.clear();
  m_seriesColour.clear();
  m_bars = nullptr;
  m_bins.clear();
  m_binColour.clear();
  m_missing.clear();
  m_demo = {};
  setTitle(tr("Run the demo to see its figure"));
}

void LessonChart::addBars(const lessons::DemoOutput& demo, double logFloor) {
  m_bars = new QBarSeries(this);
  // On a log axis a missing value (out of range) has no bar at all: Qt Charts
  // would take the log of its 0. It stands at the axis floor with no height,
  // and the values are given on hover (a value label there would read as the
  // floor's number); the demo's text beside the chart lists every one.
  const bool log = demo.logY;
  m_bars->setLabelsVisible(!log);
  m_bars->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
  m_bars->setLabelsFormat(QStringLiteral("@value"));
  const auto n = static_cast<qsizetype>(demo.categories.size());
  const auto sets = std::count_if(demo.series.begin(), demo.series.end(), [](const auto& s) { return s.bars; });
  // Side by side, labels get the width of one bar: two digits keep them apart.
  m_bars->setLabelsPrecision(sets > 1 ? 2 : 3);
  m_bars->setBarWidth(sets > 1 ? 0.85 : 0.6);
  // Three or more bars per category are too narrow for a horizontal label
  // (and two may be: fitBarLabels()).
  m_bars->setLabelsAngle(sets > 2 ? -90.0 : 0.0);
  m_missing.clear();
  for (const auto& s : demo.series) {
    if (!s.bars)
      continue;
    auto* set = new QBarSet(QString::fromStdString(s.name));
    QList<qreal> values(n, log ? logFloor : 0.0);
    std::vector<bool> missing(static_cast<std::size_t>(n), true);
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      const auto at = static_cast<qsizetype>(std::lround(s.x[i]));
      if (at >= 0 && at < n && !std::isfinite(s.y[i])) {
        // Not out of range: the value itself is NaN or infinite. Said in its slot, in red.
        auto* text = new QGraphicsSimpleTextItem(std::isnan(s.y[i]) ? QStringLiteral("NaN")
                                                 : s.y[i] > 0       ? QStringLiteral("inf")
                                                                    : QStringLiteral("-inf"),
                                                 chart());
        text->setZValue(20);
        m_nonFinite.push_back({int(m_missing.size()), int(at), text});
      }
      if (at < 0 || at >= n || !std::isfinite(s.y[i]) || (log && s.y[i] <= 0))
        continue;
      values[at] = s.y[i];
      missing[static_cast<std::size_t>(at)] = false;
    }
    set->append(values);
    m_bars->append(set);
    m_missing.push_back(std::move(missing));
  }
  connect(m_bars, &QBarSeries::hovered, this, [this](bool status, int index, QBarSet* set) {
    if (!status) {
      QToolTip::hideText();
      return;
    }
    const int k = static_cast<int>(m_bars->barSets().indexOf(set));
    const bool none = k >= 0 && std::size_t(k) < m_missing.size() && index >= 0 &&
                      std::size_t(index) < m_missing[std::size_t(k)].size() &&
                      m_missing[std::size_t(k)][std::size_t(index)];
    const QString category = index >= 0 && std::size_t(index) < m_demo.categories.size()
                                 ? QString::fromStdString(m_demo.categories[std::size_t(index)])
                                 : QString();
    QToolTip::showText(QCursor::pos(), none ? tr("%1, %2: out of range").arg(category, set->label())
                                            : tr("%1, %2: %3").arg(category, set->label())
                                                  .arg(set->at(index), 0, 'g', 4));
  });
  chart()->addSeries(m_bars);
  m_bars->attachAxis(m_x);
  m_bars->attachAxis(m_y);
}

void LessonChart::addBins(const lessons::DemoSeries& s, int colourIndex, double baseline) {
  const double w = binWidth(s.x);
  auto* upper = new QLineSeries;
  auto* lower = new QLineSeries;
  QList<QPointF> top;
  double left = std::numeric_limits<double>::infinity(), right = -left;
  for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
    const double y = std::isfinite(s.y[i]) ? std::max(s.y[i], baseline) : baseline;
    top << QPointF(s.x[i], baseline) << QPointF(s.x[i], y) << QPointF(s.x[i] + w, y)
        << QPointF(s.x[i] + w, baseline);
    left = std::min(left, s.x[i]);
    right = std::max(right, s.x[i] + w);
  }
  upper->replace(top);
  if (std::isfinite(left))
    lower->replace({QPointF(left, baseline), QPointF(right, baseline)});
  auto* area = new QAreaSeries(upper, lower);
  upper->setParent(area);
  lower->setParent(area);
  area->setName(QString::fromStdString(s.name));
  chart()->addSeries(area);
  area->attachAxis(m_x);
  area->attachAxis(m_y);
  m_bins.push_back(area);
  m_binColour.push_back(colourIndex);
}

void LessonChart::setDemo(const lessons::DemoOutput& demo) {
  clearDemo();
  m_demo = demo;
  setTitle(QString::fromStdString(demo.title));
  const bool grouped = !demo.categories.empty() && hasBars(demo);
  const bool right = std::any_of(demo.series.begin(), demo.series.end(),
                                 [](const auto& s) { return s.rightAxis && !s.bars; });
  rebuildAxes(demo.logY, grouped, demo.categories, right);
  m_x->setTitleText(QString::fromStdString(demo.xLabel));
  m_y->setTitleText(QString::fromStdString(demo.yLabel));
  if (m_right != nullptr)
    m_right->setTitleText(QString::fromStdString(demo.rightLabel));
  // Extents of every series first: the range decides where histogram bins
  // start on a log axis, and bins go in before the lines so lines are on top.
  double xMin = std::numeric_limits<double>::infinity(), xMax = -xMin, yMin = xMin, yMax = -xMin;
  double rightMin = xMin, rightMax = -xMin;
  bool anyBins = false;
  bool anyMarkers = false;
  for (const auto& s : demo.series) {
    const bool bin = s.bars && !grouped;
    const bool onRight = right && s.rightAxis && !s.bars;
    anyBins = anyBins || bin;
    anyMarkers = anyMarkers || (!s.bars && s.x.size() > 2 && s.x.size() <= std::size_t(kMarkersUpTo));
    const double w = bin ? binWidth(s.x) : 0.0;
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.y[i]) || ((demo.logY || onRight) && s.y[i] <= 0))
        continue;
      xMin = std::min(xMin, s.x[i]);
      xMax = std::max(xMax, s.x[i] + w);
      (onRight ? rightMin : yMin) = std::min(onRight ? rightMin : yMin, s.y[i]);
      (onRight ? rightMax : yMax) = std::max(onRight ? rightMax : yMax, s.y[i]);
    }
  }
  if (auto* axis = qobject_cast<QLogValueAxis*>(m_right); axis != nullptr && std::isfinite(rightMin)) {
    // Whole binades, one beyond the data each way: a constant scale of 1
    // stands mid-axis, between 0.5 and 2.
    const double low = std::floor(std::log2(rightMin)) - 1.0;
    const double high = std::ceil(std::log2(rightMax)) + 1.0;
    axis->setRange(std::exp2(low), std::exp2(high));
    axis->setBase(std::exp2(std::max(1.0, std::ceil((high - low) / 7.0)))); // at most ~7 labels
  }
  double yLow = 0.0;
  if (std::isfinite(yMin)) {
    if (demo.logY) {
      // Grouped bars stand on the axis floor: a decade below the smallest
      // value gives the smallest bar a height (FP32's ULP at 1, 1.19e-7,
      // stood on 1e-7 with no height to see).
      yLow = std::pow(10.0, std::floor(std::log10(yMin)) - (grouped ? 1.0 : 0.0));
      // A decade of headroom above grouped bars for their value labels.
      const auto sets = std::count_if(demo.series.begin(), demo.series.end(), [](const auto& s) { return s.bars; });
      const double headroom = grouped ? (sets > 2 ? 2.0 : 1.0) : 0.0; // decades above for labels
      double yHigh = std::pow(10.0, std::ceil(std::log10(yMax)) + headroom);
      if (yHigh <= yLow)
        yHigh = 10 * yLow;
      m_y->setRange(yLow, yHigh);
      m_yHigh = yHigh;
      // At most ~7 labelled ticks: a tick every 2nd, 3rd... decade over a wide range.
      const double decades = std::log10(yHigh / yLow);
      static_cast<QLogValueAxis*>(m_y)->setBase(std::pow(10.0, std::max(1.0, std::ceil(decades / 7.0))));
    } else {
      const double pad = yMax > yMin ? 0.05 * (yMax - yMin) : std::max(0.5, 0.05 * std::abs(yMax));
      // Bars start at 0; grouped bars get room above for their value labels.
      // Values that are all >= 0 keep the axis at 0 (a sum of positive
      // values had its axis run down to -2000).
      const double low = yMin >= 0.0 ? 0.0 : yMin - (grouped || anyBins ? 0.0 : pad);
      const double high = yMax + (grouped ? 0.18 * (yMax - std::min(0.0, yMin)) : pad);
      setNiceRange(static_cast<QValueAxis*>(m_y), low, high);
      m_yHigh = high;
      yLow = static_cast<QValueAxis*>(m_y)->min();
    }
  }
  if (grouped)
    addBars(demo, yLow);
  for (std::size_t k = 0; k < demo.series.size(); ++k)
    if (demo.series[k].bars && !grouped)
      addBins(demo.series[k], static_cast<int>(k), demo.logY ? yLow : 0.0);
  for (std::size_t k = 0; k < demo.series.size(); ++k) {
    const auto& s = demo.series[k];
    if (s.bars)
      continue;
    auto* series = new QLineSeries(this);
    series->setName(QString::fromStdString(s.name));
    QList<QPointF> points;
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      if (std::isfinite(s.y[i]) && !(demo.logY && s.y[i] <= 0))
        points.append({s.x[i], s.y[i]});
    series->replace(points);
    // Markers for a few samples (the scaler's steps); not on two-point marks.
    series->setPointsVisible(points.size() > 2 && points.size() <= kMarkersUpTo);
    chart()->addSeries(series);
    series->attachAxis(m_x);
    series->attachAxis(s.rightAxis && m_right != nullptr ? m_right : m_y);
    m_series.push_back(series);
    m_seriesColour.push_back(static_cast<int>(k));
  }
  if (std::isfinite(xMin) && demo.categories.empty()) {
    if (xMin == xMax)
      xMax = xMin + 1;
    auto* x = static_cast<QValueAxis*>(m_x);
    if (anyMarkers && !anyBins) {
      // Markers at the ends stand whole inside the plot (the last ones were
      // cut in half on its edge): a margin beyond the data, the ticks at the
      // round values a nice range would have.
      setNiceRange(x, xMin, xMax);
      const double step = (x->max() - x->min()) / std::max(1, x->tickCount() - 1);
      const double pad = 0.03 * (xMax - xMin);
      x->setRange(xMin - pad, xMax + pad);
      x->setTickType(QValueAxis::TicksDynamic);
      x->setTickAnchor(0.0);
      x->setTickInterval(step);
    } else {
      const double pad = anyBins ? 0.02 * (xMax - xMin) : 0.0; // edge lines off the frame
      setNiceRange(x, xMin - pad, xMax + pad);
    }
  }
  applyStyle(chartStyle()); // (queues fitTexts())
}

namespace {

// The size Qt Charts gives a chart text (ChartPresenter::textBoundingRect:
// rich text with a 0.5 px document margin).
QSizeF textSize(const QFont& font, const QString& html) {
  QTextDocument document;
  document.setDocumentMargin(0.5);
  document.setDefaultFont(font);
  document.setHtml(html);
  return document.size();
}

// The widest line of a text broken by breakLines().
double widestLine(const QString& shown, const QFontMetricsF& metrics) {
  double w = 0.0;
  for (const QString& line : shown.split(QStringLiteral("<br>")))
    w = std::max(w, metrics.horizontalAdvance(QTextDocumentFragment::fromHtml(line).toPlainText()));
  return w;
}

} // namespace

// The figure's texts on a narrow plot (six groups of bars at 1280x720 in
// presenter mode): a category name wider than its slot ("FP8 E4M3") or an
// axis title longer than its axis breaks into lines at its spaces (chart
// texts are rich text) rather than being elided to "FP8..."; back on one line
// once it fits with room to spare (no flip-flop at the edge). The title does
// the same in ChartWidget. Called after each layout (plotAreaChanged, queued).
void LessonChart::fitTexts() {
  if (m_demo.id.empty() && m_demo.series.empty())
    return;
  const QRectF plot = chart()->plotArea();
  // The text as it should show in `room` pixels, given what it shows now.
  const auto fit = [](const std::string& source, const QString& shown, const QFont& font,
                      double room) {
    const QString text = QString::fromStdString(source);
    const QFontMetricsF metrics(font);
    const double pad = metrics.averageCharWidth() * (shown.contains(QStringLiteral("<br>")) ? 4 : 2);
    if (metrics.horizontalAdvance(text) + pad <= room)
      return text;
    return breakLines(text, metrics, room - pad);
  };
  if (auto* axis = qobject_cast<QBarCategoryAxis*>(m_x); axis != nullptr && !m_demo.categories.empty())
    fitCategories(axis);
  const auto fitTitle = [&](QAbstractAxis* axis, const std::string& text, double room) {
    const QString shown = fit(text, axis->titleText(), axis->titleFont(), room);
    if (shown != axis->titleText())
      axis->setTitleText(shown);
  };
  fitTitle(m_x, m_demo.xLabel, plot.width());
  fitTitle(m_y, m_demo.yLabel, plot.height());
  if (m_right != nullptr)
    fitTitle(m_right, m_demo.rightLabel, plot.height());
  fitBarLabels();
  fitLegend();
  placeNonFiniteBars();
  // Markers on a few samples only where they stand apart, 2.5 marker widths (presenter markers
  // are 16 px: 30 of them on a narrow plot were a string of beads).
  for (QXYSeries* series : m_series) {
    const qsizetype n = series->count();
    const bool apart = plot.width() / static_cast<double>(std::max<qsizetype>(1, n)) >= 2.5 * series->markerSize();
    const bool show = n > 2 && n <= kMarkersUpTo && apart;
    if (series->pointsVisible() != show) {
      series->setPointsVisible(show);
      view()->viewport()->update(); // the markers' old places are not repainted otherwise
    }
  }
}

// Category names keep the style's label size (large in presenter mode, for
// the back of the room). Qt Charts gives each category label the axis width
// over n + 2 layout points less 2 x 4 px padding (HorizontalAxis::
// updateGeometry; the axis spans the chart's width, not just the plot) and
// elides what is wider. A name wider than that breaks into lines at its
// spaces; when a word alone is wider ("(emulated)"), the labels stand upright
// (rotated), one word per line while the lines fit the slot. An upright label
// is as tall as its text is wide, and Qt caps the x axis at 40 % of the
// chart's height (CartesianChartLayout), title included.
void LessonChart::fitCategories(QBarCategoryAxis* axis) {
  const QFont font = chartStyle().labelFont();
  const QMargins margins = chart()->margins();
  const double axisWidth = chart()->size().width() - margins.left() - margins.right();
  const double slot = axisWidth / static_cast<double>(m_demo.categories.size() + 2) - 8.0 - 2.0;
  const QRectF plot = chart()->plotArea();
  const double legendTop = chart()->legend()->isVisible() ? chart()->legend()->geometry().top()
                                                          : chart()->size().height() - margins.bottom();
  const double titleHeight = textSize(axis->titleFont(), axis->titleText()).height();
  const double tall = 0.4 * (legendTop - plot.top()) - titleHeight - 12.0;
  const bool upright = axis->labelsAngle() != 0.0;
  // Back to level only with room to spare (the same labels decide either way).
  const double levelRoom = slot - (upright ? 2.0 * QFontMetricsF(font).averageCharWidth() : 0.0);
  const QFontMetricsF metrics(font);
  QStringList labels;
  bool level = true;
  for (const std::string& category : m_demo.categories) {
    const QString text = QString::fromStdString(category);
    labels << (textSize(font, text.toHtmlEscaped()).width() <= levelRoom
                   ? text.toHtmlEscaped()
                   : breakLines(text, metrics, levelRoom - 1.0));
    level = level && textSize(font, labels.back()).width() <= levelRoom;
  }
  if (!level) {
    labels.clear();
    for (const std::string& category : m_demo.categories) {
      const QString line = QString::fromStdString(category).toHtmlEscaped();
      // A word per line; a name without spaces ("mxfp8-e4m3") breaks after its hyphens.
      QString name = QString::fromStdString(category);
      if (!name.contains(u' '))
        name.replace(u'-', QStringLiteral("- "));
      const QString words = breakLines(name, metrics, 0.0);
      const QSizeF oneLine = textSize(font, line), stacked = textSize(font, words);
      labels << (oneLine.width() <= tall || stacked.height() > slot ? line : words);
    }
  }
  if (axis->labelsFont() != font)
    axis->setLabelsFont(font);
  if (axis->labelsAngle() != (level ? 0 : -90))
    axis->setLabelsAngle(level ? 0 : -90);
  if (labels != axis->categories())
    axis->setCategories(labels);
}

// Side by side, a bar's value label gets the width of its bar: wider ones
// ("0.0072" beside "0.0051") would run into each other, so they stand upright,
// and the y axis grows until the tallest one fits above its bar.
std::vector<std::pair<std::string, QString>> LessonChart::nonFiniteBars() const {
  std::vector<std::pair<std::string, QString>> out;
  for (const NonFiniteBar& bar : m_nonFinite)
    out.emplace_back(std::size_t(bar.category) < m_demo.categories.size()
                         ? m_demo.categories[std::size_t(bar.category)]
                         : std::string(),
                     bar.text->text());
  return out;
}

// Each "NaN" stands in its bar's slot, just above the axis floor.
void LessonChart::placeNonFiniteBars() {
  if (m_bars == nullptr || m_nonFinite.empty())
    return;
  const QRectF plot = chart()->plotArea();
  const qsizetype sets = std::max<qsizetype>(1, m_bars->count());
  const double slot = plot.width() / double(std::max<std::size_t>(1, m_demo.categories.size()));
  const double barWidth = slot * m_bars->barWidth() / double(sets);
  for (const NonFiniteBar& bar : m_nonFinite) {
    QFont font = chartStyle().labelFont();
    font.setBold(true);
    font.setPointSizeF(font.pointSizeF() * 1.4); // the lesson's headline: readable from the back
    bar.text->setFont(font);
    bar.text->setBrush(palette::kVermillion);
    const QRectF box = bar.text->boundingRect();
    const double centre = plot.left() + slot * (bar.category + 0.5) +
                          barWidth * (bar.set - (double(sets) - 1.0) / 2.0);
    bar.text->setPos(centre - box.width() / 2.0, plot.bottom() - box.height() - 4.0);
  }
}

void LessonChart::fitBarLabels() {
  if (m_bars == nullptr || m_bars->barSets().isEmpty() || m_demo.categories.empty() ||
      !m_bars->isLabelsVisible())
    return;
  const QList<QBarSet*> sets = m_bars->barSets();
  const QRectF plot = chart()->plotArea();
  const double barWidth =
      plot.width() / static_cast<double>(m_demo.categories.size()) * m_bars->barWidth() / static_cast<double>(sets.size());
  const QFont font = sets.front()->labelFont();
  double widest = 0.0, top = 0.0;
  for (const QBarSet* set : sets)
    for (qsizetype i = 0; i < set->count(); ++i) {
      if (set->at(i) <= 0.0 && qobject_cast<QLogValueAxis*>(m_y) != nullptr)
        continue;
      widest = std::max(widest, textSize(font, QString::number(set->at(i), 'g', m_bars->labelsPrecision())).width());
      top = std::max(top, set->at(i));
    }
  const bool upright = sets.size() > 2 || widest > barWidth;
  if (m_bars->labelsAngle() != (upright ? -90.0 : 0.0))
    m_bars->setLabelsAngle(upright ? -90.0 : 0.0);
  // Not yet laid out at its size (a chart not shown is 240 x 160 or less).
  if (top <= 0.0 || !isVisible() || plot.height() < 2.0 * (widest + 8.0))
    return;
  // An upright label stands on the bar's top, `widest` pixels tall: the axis
  // reaches high enough that those pixels fit above the tallest bar. Worked
  // out from the range setDemo() chose, not the current one, so a layout pass
  // never compounds on the last.
  const double above = upright ? (widest + 8.0) / plot.height() : 0.0; // share of the plot, <= 1/2
  if (auto* log = qobject_cast<QLogValueAxis*>(m_y)) {
    // log10(max) - log10(top) >= above x (log10(max) - log10(min))
    const double low = std::log10(log->min());
    const double needed = (std::log10(top) - above * low) / (1.0 - above);
    const double high = std::max(std::log10(m_yHigh), std::ceil(needed));
    if (std::abs(std::log10(log->max()) - high) > 1e-9) {
      log->setMax(std::pow(10.0, high));
      log->setBase(std::pow(10.0, std::max(1.0, std::ceil((high - low) / 7.0))));
    }
  } else if (auto* value = qobject_cast<QValueAxis*>(m_y)) {
    // max - top >= above x (max - min)
    const double needed = (top - above * value->min()) / (1.0 - above);
    setNiceRange(value, value->min(), std::max(m_yHigh, needed));
  }
}

// Qt Charts lays a bottom legend out on one row and elides its entries when
// the row is too narrow ("BF16 copy of an ..."): entries break into lines at
// their spaces instead, the longest first, until the row fits the chart's
// width (which the legend does not change, so this settles at once).
void LessonChart::fitLegend() {
  QLegend* legend = chart()->legend();
  const QList<QLegendMarker*> markers = legend->markers();
  if (markers.isEmpty())
    return;
  const QFontMetricsF metrics(legend->font());
  // Per entry (LegendMarkerItem): a marker half the line height, 4 px margins
  // each side and 4 px before the text; a few pixels spare for the legend's margins.
  const double perEntry = 0.5 * metrics.height() + 12.0 + 6.0;
  const QMargins margins = chart()->margins();
  const double room = chart()->size().width() - margins.left() - margins.right() - 24.0;
  QStringList full;
  for (QLegendMarker* marker : markers) {
    if (auto* bar = qobject_cast<QBarLegendMarker*>(marker))
      full << bar->barset()->label();
    else
      full << marker->series()->name();
  }
  QStringList shown;
  const auto total = [&] {
    double sum = 0.0;
    for (const QString& text : shown)
      sum += textSize(legend->font(), text).width() + perEntry;
    return sum;
  };
  for (const QString& text : full)
    shown << text.toHtmlEscaped();
  // Narrow the widest entry a word at a time while the row is too long.
  for (int guard = 0; guard < 64 && total() > room; ++guard) {
    qsizetype widest = 0;
    for (qsizetype i = 1; i < shown.size(); ++i)
      if (widestLine(shown[i], metrics) > widestLine(shown[widest], metrics))
        widest = i;
    const double now = widestLine(shown[widest], metrics);
    const QString narrower = breakLines(full[widest], metrics, now - 1.0);
    if (widestLine(narrower, metrics) >= now)
      break; // a single word: nothing left to break
    shown[widest] = narrower;
  }
  // Still too wide (eight series beside a 1280x720 slide: Qt cut every entry
  // to "N_C ..."): the legend goes beside the plot, one entry under the
  // other, each broken at its spaces to a quarter of the figure's width.
  // Decided on the figure's width alone, so it settles at once.
  const bool beside = total() > room;
  if (beside)
    for (qsizetype i = 0; i < shown.size(); ++i)
      shown[i] = breakLines(full[i], metrics, 0.25 * chart()->size().width());
  const Qt::Alignment side = beside ? Qt::AlignRight : Qt::AlignBottom;
  if (legend->alignment() != side)
    legend->setAlignment(side);
  bool changed = false;
  for (qsizetype i = 0; i < markers.size(); ++i)
    if (markers[i]->label() != shown[i]) {
      markers[i]->setLabel(shown[i]);
      changed = true;
    }
  if (changed)
    // A new label alone does not re-lay out the legend (its row keeps one
    // line's height and Qt elides the second); a marker's font change does.
    for (QLegendMarker* marker : markers)
      marker->setFont(legend->font());
}

qsizetype LessonChart::pointCount() const {
  qsizetype n = 0;
  for (const auto* s : m_series)
    n += s->count();
  if (m_bars != nullptr)
    for (const auto* set : m_bars->barSets())
      n += set->count();
  for (const auto* b : m_bins)
    n += b->upperSeries()->count() / 4; // four corners per bin
  return n;
}

double LessonChart::yAxisMin() const {
  if (const auto* log = qobject_cast<const QLogValueAxis*>(m_y))
    return log->min();
  if (const auto* linear = qobject_cast<const QValueAxis*>(m_y))
    return linear->min();
  return 0.0;
}

void LessonChart::restyleSeries(const ChartStyle& style) {
  // New fonts, or a new demo: its texts are fitted once laid out, even where
  // the plot area keeps its size (and plotAreaChanged does not come).
  QMetaObject::invokeMethod(this, &LessonChart::fitTexts, Qt::QueuedConnection);
  // Each line drawn over the ones before it is thinner, and the last of
  // several is dashed: where lines coincide (lesson 2: BF16 and FP16 both
  // stuck at w = 1), every colour still shows.
  for (std::size_t i = 0; i < m_series.size(); ++i) {
    const double widen = 1.0 + 0.8 * static_cast<double>(std::min<std::size_t>(m_series.size() - 1 - i, 2));
    QPen pen(seriesColor(m_seriesColour[i]), 1.5 * style.linePenWidth() * widen);
    if (m_series.size() > 1 && i + 1 == m_series.size())
      pen.setStyle(Qt::DashLine);
    m_series[i]->setPen(pen);
    m_series[i]->setMarkerSize(style.markerSize());
  }
  for (std::size_t i = 0; i < m_bins.size(); ++i) {
    QColor fill = seriesColor(m_binColour[i]);
    fill.setAlpha(200);
    m_bins[i]->setBrush(fill);
    m_bins[i]->setPen(QPen(style.background().alpha() == 0 ? QColor(Qt::white) : style.background(),
                           std::max(1.0, 0.5 * style.linePenWidth())));
  }
  if (m_bars != nullptr) {
    const QList<QBarSet*> sets = m_bars->barSets();
    QFont labels = style.labelFont();
    labels.setBold(sets.size() == 1); // side by side, bold labels would touch
    int k = 0;
    for (std::size_t i = 0; i < m_demo.series.size() && k < sets.size(); ++i) {
      if (!m_demo.series[i].bars)
        continue;
      sets[k]->setColor(seriesColor(static_cast<int>(i)));
      sets[k]->setBorderColor(style.background().alpha() == 0 ? QColor(Qt::white) : style.background());
      sets[k]->setLabelColor(style.text());
      sets[k]->setLabelFont(labels);
      ++k;
    }
  }
}

QString LessonChart::csv() const {
  QString out = QStringLiteral("series,x,y\n");
  for (const auto& s : m_demo.series)
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      out += QStringLiteral("\"%1\",%2,%3\n")
                 .arg(QString::fromStdString(s.name))
                 .arg(s.x[i], 0, 'g', 17)
                 .arg(s.y[i], 0, 'g', 17);
  return out;
}

QJsonDocument LessonChart::json() const {
  QJsonArray series;
  for (const auto& s : m_demo.series) {
    QJsonArray x, y;
    for (double v : s.x)
      x.append(v);
    for (double v : s.y)
      y.append(std::isfinite(v) ? QJsonValue(v) : QJsonValue());
    series.append(QJsonObject{{QStringLiteral("name"), QString::fromStdString(s.name)},
                              {QStringLiteral("bars"), s.bars},
                              {QStringLiteral("x"), x},
                              {QStringLiteral("y"), y}});
  }
  QJsonArray categories;
  for (const auto& c : m_demo.categories)
    categories.append(QString::fromStdString(c));
  QJsonArray lines;
  for (const auto& l : m_demo.lines)
    lines.append(QString::fromStdString(l));
  QJsonObject root{{QStringLiteral("demo"), QString::fromStdString(m_demo.id)},
                   {QStringLiteral("title"), QString::fromStdString(m_demo.title)},
                   {QStringLiteral("series"), series},
                   {QStringLiteral("results"), lines}};
  if (!categories.isEmpty())
    root.insert(QStringLiteral("categories"), categories); // x of every series indexes these
  return QJsonDocument(root);
}

} // namespace mantissa::ui
