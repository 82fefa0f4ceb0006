// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "histogram_heatmap.h"

#include "colour_map.h"
#include "export_menu.h"
#include "format_regions.h"
#include "ui/app_shell/palette.h"
#include "ui/app_shell/theme.h"

#include <QContextMenuEvent>
#include <QFontMetricsF>
#include <QJsonArray>
#include <QJsonObject>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace mantissa::ui {

namespace {

using telemetry::ExponentHistogram;


double cellValue(std::uint64_t count, std::uint64_t maxCount) {
  // log(1 + count) / log(1 + max): one value already reads as colour.
  return std::log1p(static_cast<double>(count)) / std::log1p(static_cast<double>(maxCount));
}

void paintLabel(QPainter& painter, const QPointF& at, const QString& text, const QColor& color,
                const QColor& box) {
  const QFontMetricsF fm(painter.font(), painter.device());
  const QRectF rect(at, QSizeF(fm.horizontalAdvance(text) + 6.0, fm.height() + 2.0));
  painter.fillRect(rect, box);
  painter.setPen(color);
  painter.drawText(rect, Qt::AlignCenter, text);
}

} // namespace

HistogramHeatmap::HistogramHeatmap(QWidget* parent)
    : QWidget(parent), m_style(ChartStyle::fromTheme()) {
  connect(&Theme::instance(), &Theme::changed, this,
          [this] { setChartStyle(ChartStyle::fromTheme()); });
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(240, 160);
  setAttribute(Qt::WA_OpaquePaintEvent);
}

bool HistogramHeatmap::setHistory(const std::vector<std::int64_t>& steps,
                                  const std::vector<ExponentHistogram>& histograms,
                                  const std::vector<double>& shifts) {
  if (steps.size() != histograms.size() || (!shifts.empty() && shifts.size() != steps.size()))
    return false;
  for (std::size_t i = 1; i < steps.size(); ++i)
    if (steps[i] <= steps[i - 1])
      return false;
  const std::optional<std::int64_t> selected = selectedStep();
  m_steps = steps;
  m_rows = histograms;
  m_shifts = shifts.empty() ? std::vector<double>(steps.size(), 0.0) : shifts;
  rebuildImage();
  m_selectedRow = -1;
  if (selected && !m_steps.empty()) {
    const auto it = std::lower_bound(m_steps.begin(), m_steps.end(), *selected);
    if (it != m_steps.end() && *it == *selected)
      m_selectedRow = static_cast<int>(it - m_steps.begin());
  }
  update();
  return true;
}

bool HistogramHeatmap::appendRow(std::int64_t step, const ExponentHistogram& histogram,
                                 double shift) {
  if (!m_steps.empty() && step <= m_steps.back())
    return false;
  m_steps.push_back(step);
  m_rows.push_back(histogram);
  m_shifts.push_back(shift);
  if (!appendImageRow())
    rebuildImage();
  update();
  return true;
}

// The live path: when the new row fits the current columns and colour scale,
// only its scanline is coloured (the old rows are copied as they are).
bool HistogramHeatmap::appendImageRow() {
  const ExponentHistogram& h = m_rows.back();
  const auto first = h.lowestExponent();
  const auto last = h.highestExponent();
  const int rows = rowCount();
  if (rows < 2 || m_image.height() != rows - 1)
    return false;
  const double shift = m_shifts.back();
  if (const auto shown = alwaysShown();
      shown && m_limitsShown &&
      ((shown->first + shift < m_firstExponent && m_firstExponent > ExponentHistogram::kMinExponent) ||
                (shown->second + shift > m_lastExponent && m_lastExponent < ExponentHistogram::kMaxExponent)))
    return false;
  if (first && last) {
    if (*first - 1 < m_firstExponent && m_firstExponent > ExponentHistogram::kMinExponent)
      return false;
    if (*last + 1 > m_lastExponent && m_lastExponent < ExponentHistogram::kMaxExponent)
      return false;
    for (int e = *first; e <= *last; ++e)
      if (h.count(e) > m_maxCount)
        return false;
  }
  const int cols = m_lastExponent - m_firstExponent + 1;
  QImage grown(cols, rows, QImage::Format_ARGB32);
  for (int row = 0; row + 1 < rows; ++row)
    std::memcpy(grown.scanLine(row), m_image.constScanLine(row), std::size_t(cols) * sizeof(QRgb));
  fillImageRow(grown, rows - 1);
  m_image = std::move(grown);
  return true;
}

void HistogramHeatmap::fillImageRow(QImage& image, int row) const {
  auto* line = reinterpret_cast<QRgb*>(image.scanLine(row));
  const ExponentHistogram& h = m_rows[static_cast<std::size_t>(row)];
  const int cols = m_lastExponent - m_firstExponent + 1;
  for (int col = 0; col < cols; ++col) {
    const std::uint64_t count = h.count(m_firstExponent + col);
    line[col] = count > 0 ? viridis(0.08 + 0.92 * cellValue(count, m_maxCount)) | 0xff000000u
                          : QRgb(0);
  }
}

void HistogramHeatmap::setSubject(const QString& subject) {
  m_subject = subject;
  update();
}

void HistogramHeatmap::setValuesNote(const QString& note) {
  m_valuesNote = note;
  update();
}

void HistogramHeatmap::setChartStyle(const ChartStyle& style) {
  m_style = style;
  rebuildImage();
  update();
}

void HistogramHeatmap::rebuildImage() {
  int lo = 0;
  int hi = 0;
  bool any = false;
  m_maxCount = 0;
  for (const ExponentHistogram& h : m_rows) {
    const auto first = h.lowestExponent();
    const auto last = h.highestExponent();
    if (!first || !last)
      continue;
    lo = any ? std::min(lo, *first) : *first;
    hi = any ? std::max(hi, *last) : *last;
    any = true;
    for (int e = *first; e <= *last; ++e)
      m_maxCount = std::max(m_maxCount, h.count(e));
  }
  // Always show the format's flush-to-zero edge and subnormal range (where
  // each row has them) and a little margin around the data.
  double shiftLo = 0.0;
  double shiftHi = 0.0;
  for (double shift : m_shifts) {
    shiftLo = std::min(shiftLo, shift);
    shiftHi = std::max(shiftHi, shift);
  }
  m_firstExponent = any ? lo - 1 : -40;
  m_lastExponent = any ? hi + 1 : 8;
  // The format's limits widen the columns only within reach of the values:
  // BF16's flush edge at 2^-126 under gradients of 2^-40 left three quarters
  // of the width empty. Out of reach, the edge is named at the plot's side.
  m_limitsShown = false;
  if (const auto shown = alwaysShown();
      shown && (!any || (lo - (shown->second + shiftHi) <= kLimitsReach &&
                         (shown->first + shiftLo) - hi <= kLimitsReach))) {
    m_limitsShown = true;
    m_firstExponent = std::min(m_firstExponent, static_cast<int>(std::floor(shown->first + shiftLo)));
    m_lastExponent = std::max(m_lastExponent, static_cast<int>(std::ceil(shown->second + shiftHi)));
  }
  m_firstExponent = std::max(ExponentHistogram::kMinExponent, m_firstExponent);
  m_lastExponent = std::min(ExponentHistogram::kMaxExponent, m_lastExponent);

  const int cols = m_lastExponent - m_firstExponent + 1;
  m_image = QImage(cols, std::max(1, rowCount()), QImage::Format_ARGB32);
  m_image.fill(Qt::transparent);
  for (int row = 0; row < rowCount(); ++row)
    fillImageRow(m_image, row);
}

std::optional<std::int64_t> HistogramHeatmap::selectedStep() const {
  if (m_selectedRow < 0 || m_selectedRow >= rowCount())
    return std::nullopt;
  return stepOfRow(m_selectedRow);
}

void HistogramHeatmap::selectRow(int row) {
  if (rowCount() == 0)
    return;
  row = std::clamp(row, 0, rowCount() - 1);
  if (row == m_selectedRow)
    return;
  m_selectedRow = row;
  update();
  emit stepSelected(stepOfRow(row));
}

void HistogramHeatmap::selectStep(std::int64_t step) {
  if (m_steps.empty())
    return;
  const auto it = std::lower_bound(m_steps.begin(), m_steps.end(), step);
  int row = static_cast<int>(it - m_steps.begin());
  if (it == m_steps.end() || (it != m_steps.begin() && step - *(it - 1) < *it - step))
    --row;
  selectRow(row);
}

HistogramHeatmap::Layout HistogramHeatmap::layoutFor(const QRectF& target,
                                                     const ChartStyle& style) const {
  const QFontMetricsF title(style.titleFont(), const_cast<HistogramHeatmap*>(this));
  const QFontMetricsF label(style.labelFont(), const_cast<HistogramHeatmap*>(this));
  const QFontMetricsF axis(style.axisTitleFont(), const_cast<HistogramHeatmap*>(this));
  const double margin = 8.0 * style.fontScale;
  Layout layout;
  // A title wider than the figure wraps at its spaces (a dock at 1280x720 in presenter mode).
  const double titleHeight =
      title.horizontalAdvance(this->title()) <= target.width()
          ? title.height()
          : title.boundingRect(QRectF(0, 0, target.width(), 1e6), Qt::TextWordWrap, this->title()).height();
  layout.title = QRectF(target.left(), target.top() + margin, target.width(), titleHeight);
  const double left = axis.height() + label.horizontalAdvance(QStringLiteral("0000000")) + margin;
  const double right = 14.0 * style.fontScale + label.horizontalAdvance(QStringLiteral("1000000")) +
                       2.0 * axis.height() + 2.0 * margin + 12.0;
  const double top = layout.title.bottom() + margin;
  const double plotWidth = std::max(10.0, target.width() - left - right);
  // The x-axis title under the plot, wrapped at its spaces when wider than
  // the figure (a dock at 1280x720 in presenter mode): centred on the plot
  // where it fits, kept inside the figure where it does not.
  const double titleRoom = std::max(10.0, target.width() - 2.0 * margin);
  const QRectF wrapped =
      axis.boundingRect(QRectF(0, 0, titleRoom, 1e6), Qt::AlignHCenter | Qt::TextWordWrap, xTitle());
  const double titleWidth = std::min(titleRoom, std::max(plotWidth, wrapped.width() + 2.0));
  const double centre = std::clamp(target.left() + left + plotWidth / 2.0,
                                   target.left() + margin + titleWidth / 2.0,
                                   target.right() - margin - titleWidth / 2.0);
  const double bottom = label.height() + wrapped.height() + 2.0 * margin;
  layout.plot = QRectF(target.left() + left, top, plotWidth, std::max(10.0, target.bottom() - bottom - top));
  layout.xTitle = QRectF(centre - titleWidth / 2.0, layout.plot.bottom() + 6.0 + label.height(), titleWidth,
                         wrapped.height());
  layout.colourBar = QRectF(layout.plot.right() + 2.0 * margin, layout.plot.top(),
                            14.0 * style.fontScale, layout.plot.height());
  // Along a short bar the colour title takes two lines (the right margin has room for two).
  // Along a short bar the colour title takes two lines (the right margin has
  // room for two), and a shorter text where even those are longer than the bar.
  const auto fits = [&](const QString& text) {
    for (const QString& line : text.split(u'\n'))
      if (axis.horizontalAdvance(line) > layout.plot.height())
        return false;
    return true;
  };
  const QString full = colourBarTitle();
  const QString twoLines = QString(full).replace(QStringLiteral(" ("), QStringLiteral("\n("));
  layout.colourBarTitle = fits(full) ? full : fits(twoLines) ? twoLines : tr("count\n(log)");
  return layout;
}

QRectF HistogramHeatmap::xTitleRect() const { return layoutFor(QRectF(rect()), m_style).xTitle; }

QString HistogramHeatmap::colourBarTitleShown() const {
  return layoutFor(QRectF(rect()), m_style).colourBarTitle;
}

// Binades between labelled ticks: 5, 10, 20 or 40, the first whose labels
// ("-25") keep a gap between them.
int HistogramHeatmap::tickEvery(double plotWidth, int columns, const QFontMetricsF& labels) {
  const double perColumn = plotWidth / std::max(1, columns);
  const double needed = labels.horizontalAdvance(QStringLiteral("-100")) + labels.averageCharWidth();
  for (const int every : {5, 10, 20})
    if (every * perColumn >= needed)
      return every;
  return 40;
}

int HistogramHeatmap::xTickEvery() const {
  const QFontMetricsF labels(m_style.labelFont(), const_cast<HistogramHeatmap*>(this));
  return tickEvery(plotRect().width(), m_lastExponent - m_firstExponent + 1, labels);
}

std::vector<QRectF> HistogramHeatmap::regionLabelRects() const {
  std::vector<QRectF> out;
  for (const auto& label : regionLabels(layoutFor(QRectF(rect()), m_style), m_style))
    out.push_back(label.second);
  return out;
}

// The FP16 region names at the top of the plot, left of the flush-to-zero
// edge, over the subnormal band and right of the overflow edge; a name that
// would cover the one before it goes a row lower.
std::vector<std::pair<QString, QRectF>> HistogramHeatmap::regionLabels(const Layout& layout,
                                                                       const ChartStyle& style) const {
  const QRectF plot = layout.plot;
  const int cols = m_lastExponent - m_firstExponent + 1;
  const auto xOf = [&](double log2Value) {
    return plot.left() + (log2Value - m_firstExponent) / cols * plot.width();
  };
  const auto inRange = [&](double edge) { return edge >= m_firstExponent && edge <= m_lastExponent + 1; };
  const QFontMetricsF fm(style.labelFont(), const_cast<HistogramHeatmap*>(this));
  auto fp16 = limits();
  const double shift = m_shifts.empty() ? 0.0 : m_shifts.front(); // the labels sit by the top row
  for (auto& region : fp16) {
    region.x0 += shift;
    region.x1 += shift;
  }
  const auto box = [&](const QString& text, double x) {
    return QRectF(x, plot.top() + 2.0, fm.horizontalAdvance(text) + 6.0, fm.height() + 2.0);
  };
  std::vector<std::pair<QString, QRectF>> out;
  if (inRange(fp16[0].x1)) {
    const double width = fm.horizontalAdvance(fp16[0].label) + 6.0;
    out.emplace_back(fp16[0].label, box(fp16[0].label, std::max(plot.left(), xOf(fp16[0].x1) - width - 2.0)));
  }
  if (inRange(fp16[1].x0) && inRange(fp16[1].x1) && fp16[1].x1 > fp16[1].x0) { // BF16's is empty
    const double width = fm.horizontalAdvance(fp16[1].label) + 6.0;
    out.emplace_back(fp16[1].label, box(fp16[1].label, (xOf(fp16[1].x0) + xOf(fp16[1].x1) - width) / 2.0));
  }
  if (inRange(fp16[2].x0)) { // inside the plot: a long name is not cut at its right edge
    const double width = fm.horizontalAdvance(fp16[2].label) + 6.0;
    out.emplace_back(fp16[2].label,
                     box(fp16[2].label, std::max(plot.left(), std::min(xOf(fp16[2].x0) + 2.0,
                                                                       plot.right() - width - 2.0))));
  }
  // The flush edge beyond the columns: named at the side it lies on.
  if (!inRange(fp16[0].x1) && std::isfinite(fp16[0].x1) && rowCount() > 0) {
    const QString text = fp16[0].x1 < m_firstExponent
                             ? tr("\u2190 %1 at 2^%2").arg(fp16[0].label).arg(fp16[0].x1, 0, 'g', 4)
                             : tr("%1 at 2^%2 \u2192").arg(fp16[0].label).arg(fp16[0].x1, 0, 'g', 4);
    const double width = fm.horizontalAdvance(text) + 6.0;
    out.emplace_back(text, box(text, fp16[0].x1 < m_firstExponent ? plot.left() + 2.0
                                                                    : plot.right() - width - 2.0));
  }
  for (std::size_t i = 1; i < out.size(); ++i)
    if (out[i].second.intersects(out[i - 1].second))
      out[i].second.moveTop(out[i - 1].second.bottom() + 2.0);
  return out;
}

void HistogramHeatmap::setRunFormat(std::optional<numeric::FormatId> format, double operandShift) {
  if (!format) {
    if (!std::isfinite(operandShift))
      operandShift = 0.0;
    if (!m_runFormat && operandShift == m_operandShift)
      return;
    m_runFormat.reset();
    m_operandShift = operandShift;
    rebuildImage();
    update();
    return;
  }
  setRunFormat(numeric::formatInfo(*format), operandShift);
}

void HistogramHeatmap::setRunFormat(const numeric::FloatFormat& format, double operandShift) {
  if (!std::isfinite(operandShift))
    operandShift = 0.0;
  if (m_runFormat && m_runFormat->name == format.name && operandShift == m_operandShift)
    return;
  m_runFormat = format;
  m_operandShift = operandShift;
  rebuildImage();
  update();
}

std::optional<numeric::FormatId> HistogramHeatmap::runFormat() const {
  return m_runFormat ? std::optional(m_runFormat->id) : std::nullopt;
}

void HistogramHeatmap::setOverlayFormat(const std::optional<numeric::FloatFormat>& format) {
  if (format.has_value() == m_overlay.has_value() && (!format || format->name == m_overlay->name))
    return;
  m_overlay = format;
  rebuildImage();
  update();
}

// The columns always shown: the format's flush-to-zero edge and subnormal
// range with a margin (each row's shift moves them). None for FP32, whose
// limits sit at the ends of the histogram.
std::optional<std::pair<double, double>> HistogramHeatmap::alwaysShown() const {
  if (limitsFormat() == numeric::FormatId::Fp32)
    return std::nullopt;
  const auto regions = limits();
  // E8M0 has no zero (no flush edge): its smallest value stands in.
  const double low = std::isfinite(regions[0].x1) ? regions[0].x1 : regions[1].x0;
  return std::pair{std::floor(low) - 2.0, std::ceil(regions[1].x1) + 2.0};
}

numeric::FormatId HistogramHeatmap::limitsFormat() const { return limitsFloatFormat().id; }

numeric::FloatFormat HistogramHeatmap::limitsFloatFormat() const {
  if (m_overlay)
    return *m_overlay;
  return m_runFormat.value_or(numeric::formatInfo(numeric::FormatId::Fp16));
}

// The run's format speaks as its own ("BF16 → 0"); FP16 standing in, or the
// user's format, as if ("if E3M4: → 0"). The operand shift is the run
// format's: the user's format is drawn where the rows' shifts put it.
std::vector<FormatRegion> HistogramHeatmap::limits() const {
  const bool own = m_runFormat && (!m_overlay || m_overlay->name == m_runFormat->name);
  auto regions = formatRegions(limitsFloatFormat(), own ? RegionVoice::RunFormat : RegionVoice::AsIf);
  const double shift = own ? m_operandShift : 0.0;
  for (FormatRegion& region : regions) {
    region.x0 += shift;
    region.x1 += shift;
  }
  return regions;
}

QStringList HistogramHeatmap::regionLabelTexts() const {
  QStringList out;
  for (const auto& label : regionLabels(layoutFor(QRectF(rect()), m_style), m_style))
    out.append(label.first);
  return out;
}

QString HistogramHeatmap::xTitle() {
  return tr("log2 |value|  (column e counts 2^e ≤ |x| < 2^(e+1))");
}

QString HistogramHeatmap::colourBarTitle() { return tr("values per cell (log colour)"); }

QRectF HistogramHeatmap::plotRect() const { return layoutFor(QRectF(rect()), m_style).plot; }

int HistogramHeatmap::rowAt(const QPointF& position) const {
  const QRectF plot = plotRect();
  if (rowCount() == 0 || position.y() < plot.top() || position.y() >= plot.bottom())
    return -1;
  const int row = static_cast<int>((position.y() - plot.top()) / plot.height() * rowCount());
  return std::clamp(row, 0, rowCount() - 1);
}

QString HistogramHeatmap::title() const {
  QString text = m_subject.isEmpty() ? tr("Exponent histogram over steps")
                                     : tr("Exponent histogram over steps: %1").arg(m_subject);
  if (!m_valuesNote.isEmpty())
    text += QStringLiteral(" (") + m_valuesNote + QLatin1Char(')');
  if (m_overlay && (!m_runFormat || m_runFormat->name != m_overlay->name))
    text += QStringLiteral(" · ") + tr("limits as they would be in %1").arg(formatDisplayName(*m_overlay));
  return text;
}

void HistogramHeatmap::paintFigure(QPainter& painter, const QRectF& target,
                                   const ChartStyle& style) const {
  const Layout layout = layoutFor(target, style);
  painter.fillRect(target, style.background());
  painter.setFont(style.titleFont());
  painter.setPen(style.text());
  painter.drawText(layout.title, Qt::AlignCenter | Qt::TextWordWrap, title());

  painter.fillRect(layout.plot, style.dark ? QColor(0x30, 0x31, 0x36) : QColor(0xf4, 0xf4, 0xf6));
  if (rowCount() > 0)
    painter.drawImage(layout.plot, m_image);
  paintAxes(painter, layout, style);
  paintColourBar(painter, layout, style);
}

void HistogramHeatmap::paintAxes(QPainter& painter, const Layout& layout,
                                 const ChartStyle& style) const {
  const QRectF plot = layout.plot;
  const int cols = m_lastExponent - m_firstExponent + 1;
  const auto xOf = [&](double log2Value) {
    return plot.left() + (log2Value - m_firstExponent) / cols * plot.width();
  };
  const QFontMetricsF fm(style.labelFont(), painter.device());
  painter.setFont(style.labelFont());

  // FP16 limits: where values flush to zero and where subnormals start / end.
  const QColor warn = style.dark ? palette::kVermillion.lighter(130) : palette::kVermillion;
  QPen limit(warn, 1.5 * style.penScale, Qt::DashLine);
  QColor box = style.background();
  box.setAlpha(210);
  const auto fp16 = limits();
  const auto inRange = [&](double edge) {
    return edge >= m_firstExponent && edge <= m_lastExponent + 1;
  };
  painter.setPen(limit);
  const bool oneShift =
      std::all_of(m_shifts.begin(), m_shifts.end(), [&](double s) { return s == m_shifts.front(); });
  for (const double edge : {fp16[0].x1, fp16[1].x0, fp16[1].x1, fp16[2].x0}) {
    if (oneShift) {
      const double at = edge + (m_shifts.empty() ? 0.0 : m_shifts.front());
      if (inRange(at))
        painter.drawLine(QPointF(xOf(at), plot.top()), QPointF(xOf(at), plot.bottom()));
      continue;
    }
    // The limit row by row: a staircase that follows the loss scale.
    const int rows = rowCount();
    QPolygonF steps;
    for (int row = 0; row < rows; ++row) {
      const double at = edge + m_shifts[static_cast<std::size_t>(row)];
      if (!inRange(at)) {
        if (steps.size() > 1)
          painter.drawPolyline(steps);
        steps.clear();
        continue;
      }
      const double x = xOf(at);
      steps << QPointF(x, plot.top() + double(row) / rows * plot.height())
            << QPointF(x, plot.top() + double(row + 1) / rows * plot.height());
    }
    if (steps.size() > 1)
      painter.drawPolyline(steps);
  }
  for (const auto& [text, at] : regionLabels(layout, style))
    paintLabel(painter, at.topLeft(), text, warn, box);

  // Axes and ticks.
  painter.setPen(QPen(style.axisLine(), std::max(1.0, style.penScale)));
  painter.drawRect(plot);
  const int span = cols;
  const int every = tickEvery(plot.width(), span, fm);
  painter.setPen(style.text());
  for (int e = (m_firstExponent / every) * every; e <= m_lastExponent + 1; e += every) {
    if (e < m_firstExponent)
      continue;
    const double x = xOf(e);
    painter.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 4.0));
    const QString text = QString::number(e);
    painter.drawText(QRectF(x - 40.0, plot.bottom() + 4.0, 80.0, fm.height()), Qt::AlignHCenter,
                     text);
  }
  painter.setFont(style.axisTitleFont());
  const QFontMetricsF axis(style.axisTitleFont(), painter.device());
  painter.drawText(layout.xTitle, Qt::AlignHCenter | Qt::TextWordWrap, xTitle());

  painter.setFont(style.labelFont());
  const int rows = rowCount();
  const int ticks = std::min(rows, std::max(2, static_cast<int>(plot.height() / (3.0 * fm.height()))));
  for (int i = 0; i < ticks && rows > 0; ++i) {
    const int row = ticks == 1 ? 0 : static_cast<int>(std::lround(double(i) * (rows - 1) / (ticks - 1)));
    const double y = plot.top() + (row + 0.5) / rows * plot.height();
    painter.drawLine(QPointF(plot.left() - 4.0, y), QPointF(plot.left(), y));
    painter.drawText(QRectF(plot.left() - 200.0, y - fm.height() / 2.0, 194.0, fm.height()),
                     Qt::AlignRight | Qt::AlignVCenter, QString::number(stepOfRow(row)));
  }
  painter.save();
  painter.setFont(style.axisTitleFont());
  painter.translate(layout.plot.left() - fm.horizontalAdvance(QStringLiteral("0000000")) - 10.0,
                    plot.center().y());
  painter.rotate(-90.0);
  painter.drawText(QRectF(-plot.height() / 2.0, -axis.height(), plot.height(), axis.height()),
                   Qt::AlignCenter,
                   axis.horizontalAdvance(tr("training step")) <= plot.height() ? tr("training step") : tr("step"));
  painter.restore();

  if (const auto step = selectedStep()) {
    const double y = plot.top() + (m_selectedRow + 0.5) / rows * plot.height();
    painter.setPen(QPen(style.dark ? Qt::black : Qt::white, 4.0 * style.penScale));
    painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    painter.setPen(QPen(palette::kVermillion, 2.0 * style.penScale));
    painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    const QRectF label = stepLabelRect(layout, style);
    paintLabel(painter, label.topLeft(), tr("step %1").arg(*step), style.text(), box);
  }
}

// The selected step's label, under the cursor line at the plot's right, or
// over it where the line is near the plot's bottom: always inside the plot
// (under the last row it covered the x axis' last tick and was cut at the
// figure's edge, "step 18").
QRectF HistogramHeatmap::stepLabelRect(const Layout& layout, const ChartStyle& style) const {
  const auto step = selectedStep();
  if (!step || rowCount() == 0)
    return {};
  const QRectF plot = layout.plot;
  const QFontMetricsF fm(style.labelFont(), const_cast<HistogramHeatmap*>(this));
  const QString text = tr("step %1").arg(*step);
  const QSizeF size(fm.horizontalAdvance(text) + 6.0, fm.height() + 2.0);
  const double y = plot.top() + (m_selectedRow + 0.5) / rowCount() * plot.height();
  const double gap = 3.0 * style.penScale;
  double top = y + gap;
  if (top + size.height() > plot.bottom())
    top = y - gap - size.height();
  top = std::max(plot.top(), top);
  const double left = std::max(plot.left(), plot.right() - size.width() - 6.0);
  return {QPointF(left, top), size};
}

QRectF HistogramHeatmap::selectedStepLabelRect() const {
  return stepLabelRect(layoutFor(QRectF(rect()), m_style), m_style);
}

void HistogramHeatmap::paintColourBar(QPainter& painter, const Layout& layout,
                                      const ChartStyle& style) const {
  const QRectF bar = layout.colourBar;
  static const QImage gradient = [] { // one column, top = the highest count
    QImage image(1, 256, QImage::Format_RGB32);
    for (int i = 0; i < 256; ++i)
      image.setPixel(0, i, viridis(0.08 + 0.92 * (1.0 - i / 255.0)));
    return image;
  }();
  painter.drawImage(bar, gradient);
  painter.setPen(QPen(style.axisLine(), 1.0));
  painter.setBrush(Qt::NoBrush);
  painter.drawRect(bar);
  if (m_maxCount == 0)
    return;
  painter.setFont(style.labelFont());
  const QFontMetricsF fm(style.labelFont(), painter.device());
  painter.setPen(style.text());
  for (double count = 1.0; count <= static_cast<double>(m_maxCount); count *= 10.0) {
    const double y = bar.bottom() - cellValue(static_cast<std::uint64_t>(count), m_maxCount) * bar.height();
    painter.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 4.0, y));
    painter.drawText(QRectF(bar.right() + 6.0, y - fm.height() / 2.0, 80.0, fm.height()),
                     Qt::AlignLeft | Qt::AlignVCenter, QString::number(count, 'f', 0));
  }
  painter.save();
  painter.setFont(style.axisTitleFont());
  const QFontMetricsF axis(style.axisTitleFont(), painter.device());
  const QString& title = layout.colourBarTitle;
  const double lines = static_cast<double>(title.count(u'\n') + 1);
  painter.translate(bar.right() + 10.0 + fm.horizontalAdvance(QStringLiteral("1000000")), bar.center().y());
  painter.rotate(90.0);
  painter.drawText(QRectF(-bar.height() / 2.0, -lines * axis.height(), bar.height(), lines * axis.height()),
                   Qt::AlignCenter, title);
  painter.restore();
}

void HistogramHeatmap::render(QPainter& painter, const QRectF& target, const ExportStyle& style) const {
  const ChartStyle chartStyle = exportChartStyle(m_style, style);
  painter.save();
  paintFigure(painter, target, chartStyle);
  painter.restore();
}

void HistogramHeatmap::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  paintFigure(painter, QRectF(rect()), m_style);
}

void HistogramHeatmap::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton)
    return QWidget::mousePressEvent(event);
  if (const int row = rowAt(event->position()); row >= 0)
    selectRow(row);
}

void HistogramHeatmap::mouseMoveEvent(QMouseEvent* event) {
  if (!(event->buttons() & Qt::LeftButton)) {
    showCellTip(event->position(), event->globalPosition().toPoint());
    return;
  }
  const QRectF plot = plotRect();
  const QPointF clamped(event->position().x(),
                        std::max(plot.top(), std::min(event->position().y(), plot.bottom() - 0.5)));
  if (const int row = rowAt(clamped); row >= 0)
    selectRow(row);
}

void HistogramHeatmap::showCellTip(const QPointF& position, const QPoint& globalPos) {
  const QRectF plot = plotRect();
  const int row = rowAt(position);
  if (row < 0 || position.x() < plot.left() || position.x() >= plot.right()) {
    QToolTip::hideText();
    return;
  }
  const int cols = m_lastExponent - m_firstExponent + 1;
  const int exponent =
      m_firstExponent + static_cast<int>((position.x() - plot.left()) / plot.width() * cols);
  const std::uint64_t count = m_rows[static_cast<std::size_t>(row)].count(exponent);
  QToolTip::showText(globalPos, tr("step %1, binade 2^%2: %3 values")
                                    .arg(stepOfRow(row))
                                    .arg(exponent)
                                    .arg(QLocale().toString(qulonglong(count))),
                     this);
}

void HistogramHeatmap::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
  case Qt::Key_Up: selectRow(m_selectedRow < 0 ? rowCount() - 1 : m_selectedRow - 1); break;
  case Qt::Key_Down: selectRow(m_selectedRow + 1); break;
  case Qt::Key_Home: selectRow(0); break;
  case Qt::Key_End: selectRow(rowCount() - 1); break;
  default: QWidget::keyPressEvent(event); break;
  }
}

void HistogramHeatmap::contextMenuEvent(QContextMenuEvent* event) {
  popupExportMenu(this, *this, event->globalPos());
}

QString HistogramHeatmap::csv() const {
  QString out = QStringLiteral("step,binade,count\n");
  for (int row = 0; row < rowCount(); ++row) {
    const ExponentHistogram& h = m_rows[static_cast<std::size_t>(row)];
    for (int e = ExponentHistogram::kMinExponent; e <= ExponentHistogram::kMaxExponent; ++e)
      if (const std::uint64_t count = h.count(e); count > 0)
        out += QStringLiteral("%1,%2,%3\n").arg(stepOfRow(row)).arg(e).arg(count);
  }
  return out;
}

QJsonDocument HistogramHeatmap::json() const {
  QJsonArray rows;
  for (int row = 0; row < rowCount(); ++row) {
    const ExponentHistogram& h = m_rows[static_cast<std::size_t>(row)];
    QJsonArray bins;
    for (int e = ExponentHistogram::kMinExponent; e <= ExponentHistogram::kMaxExponent; ++e)
      if (const std::uint64_t count = h.count(e); count > 0)
        bins.append(QJsonArray{e, double(count)});
    rows.append(QJsonObject{{QStringLiteral("step"), double(stepOfRow(row))},
                            {QStringLiteral("bins"), bins},
                            {QStringLiteral("zeros"), double(h.zeros)},
                            {QStringLiteral("inf"), double(h.posInf + h.negInf)},
                            {QStringLiteral("nan"), double(h.nan)}});
  }
  return QJsonDocument(QJsonObject{{QStringLiteral("chart"), title()},
                                   {QStringLiteral("bins"), QStringLiteral("[binade e, count]: 2^e <= |x| < 2^(e+1)")},
                                   {QStringLiteral("rows"), rows}});
}

} // namespace mantissa::ui
