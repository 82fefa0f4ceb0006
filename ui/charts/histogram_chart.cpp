// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "histogram_chart.h"

#include "ui/app_shell/palette.h"
#include "ui/charts/steady_label.h"

#include <QAction>
#include <QAreaSeries>
#include <QChart>
#include <QCheckBox>
#include <QFontMetricsF>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLabel>
#include <QJsonObject>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMenu>
#include <QMetaMethod>
#include <QCursor>
#include <QPointer>
#include <QSignalBlocker>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mantissa::ui {

namespace {

using telemetry::ExponentHistogram;

constexpr double kLogBaseline = 0.5; // bars start here on a log axis (below a count of 1)
constexpr double kKeepRangeAbove = 1.0 / 3.0; // linear count axis: kept while the bars reach this share

QString formatName(numeric::FormatId format) { return formatDisplayName(numeric::formatInfo(format)); }

QString scaleText(double scale) {
  int exponent = 0;
  if (std::frexp(scale, &exponent) == 0.5)
    return QStringLiteral("×2^%1").arg(exponent - 1);
  return QStringLiteral("×%1").arg(scale, 0, 'g', 4);
}

int regionAlpha(RegionKind kind) { return kind == RegionKind::Subnormal ? 40 : 75; }

} // namespace

QColor formatRegionColor(numeric::FormatId format) {
  switch (format) {
  case numeric::FormatId::Fp16: return palette::kVermillion;
  case numeric::FormatId::Bf16: return palette::kBlue;
  case numeric::FormatId::Fp8E5M2: return palette::kBluishGreen;
  case numeric::FormatId::Fp8E4M3: return palette::kReddishPurple;
  case numeric::FormatId::Fp4E2M1: return palette::kBluishGreen;
  default: return palette::kOrange; // the run's or the user's own format
  }
}


HistogramChart::HistogramChart(QWidget* parent) : ChartWidget(parent) {
  chart()->legend()->setVisible(false);
  m_x = new QValueAxis(this);
  // Short enough for the tab beside the loss curve on a 1280x720 page.
  m_x->setTitleText(tr("log<sub>2</sub> |value|  (bar e: 2<sup>e</sup> ≤ |x| &lt; "
                       "2<sup>e+1</sup>)"));
  m_x->setLabelFormat(QStringLiteral("%.0f"));
  m_x->setTickType(QValueAxis::TicksDynamic);
  m_x->setTickAnchor(0.0);
  chart()->addAxis(m_x, Qt::AlignBottom);
  replaceYAxis();

  for (numeric::FormatId format : histogramFormats()) {
    addShaded(numeric::formatInfo(format), true);
    m_formats.back().visible = format == numeric::FormatId::Fp16;
  }
  m_barTop = new QLineSeries(this);
  m_barBase = new QLineSeries(this);
  m_bars = new QAreaSeries(m_barTop, m_barBase);
  m_bars->setParent(this);
  m_bars->setName(tr("values per binade"));
  chart()->addSeries(m_bars);
  m_bars->attachAxis(m_x);
  m_bars->attachAxis(m_y);
  connect(m_bars, &QAreaSeries::clicked, this,
          [this](const QPointF& p) { emit binClicked(static_cast<int>(std::floor(p.x()))); });

  m_counters = new QGraphicsTextItem(chart());
  m_counters->setZValue(20);
  connect(chart(), &QChart::plotAreaChanged, this, [this] { placeAnnotations(); });
  // Queued: a new title changes the layout that emits this.
  connect(chart(), &QChart::plotAreaChanged, this, &HistogramChart::fitCountTitle,
          Qt::QueuedConnection);

  for (numeric::FormatId format : histogramFormats()) {
    // FP4 is shaded from the context menu: one more box widened the row, and
    // with it the histogram dock, past what a 1024 px window leaves the loss curve.
    if (format == numeric::FormatId::Fp4E2M1)
      continue;
    // "E5M2", not "FP8 E5M2": the row fits the narrow tab beside the loss
    // curve on a 1280x720 page (the tooltip names the whole format).
    QString toggle = formatName(format);
    if (toggle.startsWith(QStringLiteral("FP8 ")))
      toggle = toggle.mid(4);
    auto* box = new QCheckBox(toggle, this);
    box->setChecked(isFormatVisible(format));
    box->setToolTip(tr("Shade where %1 flushes to zero, is subnormal, overflows").arg(formatName(format)));
    connect(box, &QCheckBox::toggled, this,
            [this, format](bool on) { setFormatVisible(format, on); });
    controls()->addWidget(box);
    m_formatToggles[formatKey(format)] = box;
  }
  controls()->addSpacing(12);
  m_logToggle = new QCheckBox(tr("Log y"), this);
  connect(m_logToggle, &QCheckBox::toggled, this, &HistogramChart::setLogScale);
  controls()->addWidget(m_logToggle);
  m_scaledToggle = new QCheckBox(tr("Scaled"), this);
  m_scaledToggle->setToolTip(tr("Checked: the values times the loss scale, as the 16-bit format "
                                "stores them in backward. Unchecked: the unscaled values, with "
                                "the format limits moved by the loss scale"));
  m_scaledToggle->setChecked(m_showScaled);
  m_scaledToggle->setEnabled(false);
  connect(m_scaledToggle, &QCheckBox::toggled, this, &HistogramChart::setShowScaled);
  controls()->addWidget(m_scaledToggle);
  controls()->addSpacing(12); // the step must not read as part of "Scaled" in a full row
  controls()->addStretch(1);
  m_detailLabel = new QLabel(this);
  m_detailLabel->setTextFormat(Qt::PlainText);
  controls()->addWidget(m_detailLabel);

  updateTitle();
  updateChart();
  applyStyle(chartStyle());
}

void HistogramChart::setHistograms(const ExponentHistogram& unscaled,
                                   const ExponentHistogram* scaled, double lossScale) {
  m_unscaled = unscaled;
  m_hasScaled = scaled != nullptr;
  m_scaled = scaled != nullptr ? *scaled : ExponentHistogram{};
  m_lossScale = lossScale;
  m_scaledToggle->setEnabled(m_hasScaled);
  updateTitle();
  updateChart();
}

void HistogramChart::setSubject(const QString& subject, const QString& detail) {
  m_subject = subject;
  m_detail = detail;
  updateTitle();
}

// The chart's own title only changes with the subject (setTitle() re-lays
// out the chart when the text differs); the step and the loss scale, which
// change from frame to frame, go to the label beside the toggles.
void HistogramChart::updateTitle() {
  QString text = tr("Exponent histogram");
  if (!m_subject.isEmpty())
    text += QStringLiteral(": ") + m_subject;
  if (const QString note = valuesNote(); !note.isEmpty())
    text += QStringLiteral(" (") + note + QLatin1Char(')');
  // Formats shaded that the run does not hold these values in (in the title,
  // which changes only with the boxes, not beside them, where a longer text
  // would widen the whole row of toggles).
  QStringList asIf;
  for (const Shaded& f : m_formats)
    if (f.visible && (!m_runFormat || formatKey(*m_runFormat) != f.key))
      asIf << formatDisplayName(f.format);
  if (!asIf.isEmpty())
    text += QStringLiteral(" · ") + tr("shaded as it would be in %1").arg(asIf.join(QStringLiteral(", ")));
  if (text != ChartWidget::title())
    setTitle(text);
  const QString detail = detailText();
  setSteadyText(m_detailLabel, detail); // a new step re-lays out nothing around it
}

QString HistogramChart::detailText() const {
  QString text = m_detail;
  if (m_hasScaled && m_lossScale != 1.0)
    text += (text.isEmpty() ? QString() : QStringLiteral(" · ")) +
            tr("loss scale %1").arg(scaleText(m_lossScale));
  return text;
}

double HistogramChart::regionShift() const {
  if (!m_hasScaled || showScaled() || !(m_lossScale > 0.0) || !std::isfinite(m_lossScale))
    return 0.0;
  return -std::log2(m_lossScale);
}

QString HistogramChart::valuesNote() const {
  if (!m_hasScaled)
    return {};
  if (showScaled())
    return tr("scaled values, as stored");
  return tr("unscaled values, format limits moved by the loss scale");
}

double HistogramChart::regionShiftOf(numeric::FormatId format) const {
  return regionShiftOf(numeric::formatInfo(format));
}

double HistogramChart::regionShiftOf(const numeric::FloatFormat& format) const {
  const bool run = m_runFormat && formatKey(*m_runFormat) == formatKey(format);
  return regionShift() + (run ? m_operandShift : 0.0);
}

std::pair<double, double> HistogramChart::regionBounds(numeric::FormatId format,
                                                       RegionKind kind) const {
  return regionBounds(numeric::formatInfo(format), kind);
}

std::pair<double, double> HistogramChart::regionBounds(const numeric::FloatFormat& format,
                                                       RegionKind kind) const {
  const double shift = regionShiftOf(format);
  const QString key = formatKey(format);
  for (const Region& r : m_regions)
    if (r.region.format == key && r.region.kind == kind)
      return {r.region.x0 + shift, r.region.x1 + shift};
  return {0.0, 0.0};
}

QString HistogramChart::title() const {
  const QString detail = detailText();
  if (detail.isEmpty())
    return ChartWidget::title();
  return ChartWidget::title() + (m_detail.isEmpty() ? QStringLiteral(" ") : QStringLiteral(", ")) +
         detail;
}

// Exports carry the whole title (subject and detail), laid out once.
void HistogramChart::render(QPainter& painter, const QRectF& target,
                            const ExportStyle& style) const {
  auto* self = const_cast<HistogramChart*>(this);
  const QString screenTitle = ChartWidget::title();
  self->setTitle(title());
  ChartWidget::render(painter, target, style);
  self->setTitle(screenTitle);
}

const ExponentHistogram& HistogramChart::shown() const {
  return showScaled() ? m_scaled : m_unscaled;
}

std::optional<numeric::FormatId> HistogramChart::runFormat() const {
  return m_runFormat ? std::optional(m_runFormat->id) : std::nullopt;
}

void HistogramChart::setRunFormat(std::optional<numeric::FormatId> format, double operandShift,
                                  bool shade) {
  applyRunFormat(format ? std::optional(numeric::formatInfo(*format)) : std::nullopt, operandShift,
                 shade);
}

void HistogramChart::setRunFormat(const numeric::FloatFormat& format, double operandShift, bool shade) {
  applyRunFormat(format, operandShift, shade);
}

HistogramChart::Shaded* HistogramChart::shaded(const QString& key) {
  for (Shaded& f : m_formats)
    if (f.key == key)
      return &f;
  return nullptr;
}

const HistogramChart::Shaded* HistogramChart::shaded(const QString& key) const {
  return const_cast<HistogramChart*>(this)->shaded(key);
}

// One format's three regions, as series and labels (hidden until shaded).
void HistogramChart::addShaded(const numeric::FloatFormat& format, bool boxed) {
  m_formats.push_back({format, formatKey(format), false, boxed});
  for (const FormatRegion& region : formatRegions(format, RegionVoice::AsIf)) {
    Region r;
    r.region = region;
    r.upper = new QLineSeries(this);
    r.lower = new QLineSeries(this);
    r.area = new QAreaSeries(r.upper, r.lower);
    r.area->setParent(this);
    r.area->setName(region.label);
    r.area->setVisible(false);
    // Under the bars: the bars are added after the boxed formats' regions.
    if (m_bars != nullptr) {
      chart()->removeSeries(m_bars);
      chart()->addSeries(r.area);
      chart()->addSeries(m_bars);
      m_bars->attachAxis(m_x);
      m_bars->attachAxis(m_y);
    } else {
      chart()->addSeries(r.area);
    }
    r.area->attachAxis(m_x);
    r.area->attachAxis(m_y);
    r.label = new QGraphicsSimpleTextItem(region.label, chart());
    r.label->setZValue(20);
    r.label->setVisible(false);
    m_regions.push_back(r);
  }
  if (m_bars != nullptr)
    restyleSeries(chartStyle());
}

// Drops the formats without a box but the two kept (the run's, the user's).
void HistogramChart::removeUnboxed(const QString& keep1, const QString& keep2) {
  const auto drop = [&](const QString& key) {
    const Shaded* f = shaded(key);
    return f != nullptr && !f->boxed && key != keep1 && key != keep2;
  };
  for (auto it = m_regions.begin(); it != m_regions.end();) {
    if (!drop(it->region.format)) {
      ++it;
      continue;
    }
    chart()->removeSeries(it->area);
    const QPointer<QLineSeries> upper = it->upper; // in case the area deleted its lines
    const QPointer<QLineSeries> lower = it->lower;
    delete it->area;
    delete upper.data();
    delete lower.data();
    delete it->label;
    it = m_regions.erase(it);
  }
  std::erase_if(m_formats, [&](const Shaded& f) { return !f.boxed && f.key != keep1 && f.key != keep2; });
}

// Each label speaks of the run's format as its own, of every other as "if".
void HistogramChart::relabel() {
  const QString run = m_runFormat ? formatKey(*m_runFormat) : QString();
  for (Region& r : m_regions) {
    const Shaded* f = shaded(r.region.format);
    if (f == nullptr)
      continue;
    const RegionVoice voice = r.region.format == run ? RegionVoice::RunFormat : RegionVoice::AsIf;
    for (const FormatRegion& region : formatRegions(f->format, voice))
      if (region.kind == r.region.kind)
        r.region.label = region.label;
    r.area->setName(r.region.label);
    r.label->setText(r.region.label);
  }
}

void HistogramChart::applyRunFormat(const std::optional<numeric::FloatFormat>& format,
                                    double operandShift, bool shade) {
  if (!std::isfinite(operandShift))
    operandShift = 0.0;
  const QString key = format ? formatKey(*format) : QString();
  const QString oldKey = m_runFormat ? formatKey(*m_runFormat) : QString();
  const bool newFormat = key != oldKey || format.has_value() != m_runFormat.has_value() ||
                         shade != m_shadeRunFormat;
  if (!newFormat && operandShift == m_operandShift)
    return;
  m_runFormat = format;
  m_operandShift = operandShift;
  m_shadeRunFormat = shade;
  if (newFormat) {
    const QString overlay = m_overlay ? formatKey(*m_overlay) : QString();
    removeUnboxed(key, overlay);
    // FP32 (and any format as wide): its limits lie outside the histogram's
    // binades, and nothing is shaded (shading them stretched the axis to
    // 2^-152..2^130 and left the bars a sliver).
    const std::vector<FormatRegion> regions =
        format ? formatRegions(*format) : std::vector<FormatRegion>{};
    const bool outside = format && regions[0].x1 < ExponentHistogram::kMinExponent &&
                         regions[2].x0 > ExponentHistogram::kMaxExponent;
    if (format && !outside && shaded(key) == nullptr)
      addShaded(*format, false);
    const QString shadedKey = format ? key : formatKey(numeric::FormatId::Fp16);
    relabel();
    for (Shaded& f : m_formats) {
      f.visible = (f.key == shadedKey && shade) || (!overlay.isEmpty() && f.key == overlay);
      const auto toggle = m_formatToggles.find(f.key);
      if (toggle == m_formatToggles.end())
        continue;
      const QSignalBlocker block(toggle->second);
      toggle->second->setChecked(f.visible);
      const QString name = formatDisplayName(f.format);
      toggle->second->setToolTip(
          f.key == key ? tr("Shade where %1, the format the run holds these values in, flushes to "
                            "zero, is subnormal, overflows")
                             .arg(name)
                       : tr("Shade where these values would flush to zero, be subnormal, overflow "
                            "if they were held in %1 (the run does not hold them in it)")
                             .arg(name));
    }
  }
  updateTitle();
  updateChart();
}

void HistogramChart::setOverlayFormat(const std::optional<numeric::FloatFormat>& format) {
  const QString key = format ? formatKey(*format) : QString();
  const QString old = m_overlay ? formatKey(*m_overlay) : QString();
  if (key == old)
    return;
  if (Shaded* previous = shaded(old); previous != nullptr && previous->boxed)
    setFormatVisible(previous->format, false);
  m_overlay = format;
  removeUnboxed(m_runFormat ? formatKey(*m_runFormat) : QString(), key);
  if (format) {
    if (shaded(key) == nullptr)
      addShaded(*format, false);
    relabel();
    Shaded* f = shaded(key);
    f->visible = false; // setFormatVisible: the box, the title, the chart
    setFormatVisible(f->format, true);
    return;
  }
  updateTitle();
  updateChart();
}

void HistogramChart::setFormatVisible(numeric::FormatId format, bool visible) {
  setFormatVisible(numeric::formatInfo(format), visible);
}

void HistogramChart::setFormatVisible(const numeric::FloatFormat& format, bool visible) {
  Shaded* f = shaded(formatKey(format));
  if (f == nullptr || f->visible == visible)
    return;
  f->visible = visible;
  if (const auto toggle = m_formatToggles.find(f->key);
      toggle != m_formatToggles.end() && toggle->second->isChecked() != visible)
    toggle->second->setChecked(visible);
  updateTitle(); // says which formats are shaded as they would be
  updateChart();
}

void HistogramChart::addViewActions(QMenu& menu) {
  // Any format, a spec's included: a box (with the parser's error) opens
  // where the menu was. In the menu, as FP4 is: a control in the rows would
  // widen the dock beside the loss curve at 1280x720.
  if (isSignalConnected(QMetaMethod::fromSignal(&HistogramChart::otherFormatRequested))) {
    QAction* other = menu.addAction(tr("Shade another format (name or spec)…"));
    const QPoint at = QCursor::pos();
    connect(other, &QAction::triggered, this, [this, at] { emit otherFormatRequested(at); });
  }
  for (numeric::FormatId format : histogramFormats()) {
    if (m_formatToggles.contains(formatKey(format)))
      continue;
    QAction* action = menu.addAction(tr("Shade %1 regions").arg(formatName(format)));
    action->setCheckable(true);
    action->setChecked(isFormatVisible(format));
    connect(action, &QAction::toggled, this, [this, format](bool on) { setFormatVisible(format, on); });
  }
}

bool HistogramChart::isFormatVisible(numeric::FormatId format) const {
  return isVisible(formatKey(format));
}

bool HistogramChart::isFormatVisible(const numeric::FloatFormat& format) const {
  return isVisible(formatKey(format));
}

bool HistogramChart::isVisible(const QString& key) const {
  const Shaded* f = shaded(key);
  return f != nullptr && f->visible;
}

void HistogramChart::setLogScale(bool on) {
  if (on == m_log)
    return;
  m_log = on;
  if (m_logToggle->isChecked() != on)
    m_logToggle->setChecked(on);
  // Empty the series first: a log axis must never see a count of zero.
  m_barTop->clear();
  m_barBase->clear();
  for (Region& r : m_regions) {
    r.upper->clear();
    r.lower->clear();
  }
  replaceYAxis();
  updateChart();
}

void HistogramChart::setShowScaled(bool on) {
  const bool changed = m_showScaled != on;
  m_showScaled = on;
  if (m_scaledToggle->isChecked() != on)
    m_scaledToggle->setChecked(on);
  updateTitle();
  updateChart();
  if (changed)
    emit showScaledChanged(on);
}

void HistogramChart::replaceYAxis() {
  if (m_y != nullptr) {
    chart()->removeAxis(m_y);
    delete m_y;
  }
  if (m_log) {
    auto* axis = new QLogValueAxis(this);
    axis->setLabelFormat(QStringLiteral("%.0f"));
    axis->setMinorTickCount(0);
    m_y = axis;
  } else {
    auto* axis = new QValueAxis(this);
    axis->setLabelFormat(QStringLiteral("%.0f"));
    m_y = axis;
  }
  m_y->setTitleText(tr("values per binade (count)"));
  chart()->addAxis(m_y, Qt::AlignLeft);
  QMetaObject::invokeMethod(this, &HistogramChart::fitCountTitle, Qt::QueuedConnection);
  for (QAbstractSeries* series : chart()->series())
    series->attachAxis(m_y);
  styleAxis(m_y, chartStyle());
}

double HistogramChart::xMin() const { return m_x->min(); }
double HistogramChart::xMax() const { return m_x->max(); }

void HistogramChart::updateChart() {
  const ExponentHistogram& hist = shown();
  // x: the data (both histograms, so toggling keeps the axis still) and the
  // limits of every shaded format.
  double lo = -26.0;
  double hi = 17.0;
  for (const ExponentHistogram* h : {&m_unscaled, &m_scaled}) {
    if (const auto e = h->lowestExponent())
      lo = std::min(lo, *e - 2.0);
    if (const auto e = h->highestExponent())
      hi = std::max(hi, *e + 3.0);
  }
  for (const Region& r : m_regions) {
    const Shaded* f = shaded(r.region.format);
    if (f == nullptr || !f->visible)
      continue;
    const double shift = regionShiftOf(f->format);
    if (r.region.kind == RegionKind::FlushToZero && std::isfinite(r.region.x1))
      lo = std::min(lo, std::floor(r.region.x1 + shift) - 2.0);
    if (r.region.kind == RegionKind::Overflow)
      hi = std::max(hi, std::ceil(r.region.x0 + shift) + 2.0);
  }
  lo = std::max(lo, double(ExponentHistogram::kMinExponent) - 1.0);
  hi = std::min(hi, double(ExponentHistogram::kMaxExponent) + 2.0);
  m_x->setRange(lo, hi);
  const double span = hi - lo;
  m_x->setTickInterval(span > 150 ? 20.0 : span > 70 ? 10.0 : 5.0);

  const double base = m_log ? kLogBaseline : 0.0;
  QList<QPointF> top;
  QList<QPointF> bottom;
  std::uint64_t maxCount = 0;
  const int first = static_cast<int>(lo);
  const int last = static_cast<int>(hi) - 1;
  top.reserve(2 * (last - first + 1));
  for (int e = first; e <= last; ++e) {
    const std::uint64_t count = hist.count(e);
    maxCount = std::max(maxCount, count);
    const double y = count > 0 ? static_cast<double>(count) : base;
    top.append({double(e), y});
    top.append({double(e + 1), y});
  }
  bottom = {QPointF(first, base), QPointF(last + 1, base)};
  m_barTop->replace(top);
  m_barBase->replace(bottom);

  // Headroom above the bars for one row of region labels per visible format.
  int rows = 0;
  for (const Shaded& f : m_formats)
    rows += f.visible ? 1 : 0;
  const double peak = std::max<double>(1.0, static_cast<double>(maxCount));
  double y0 = base;
  double y1 = 0.0;
  if (m_log) {
    y1 = std::pow(10.0, std::ceil(std::log10(peak) + 0.35 * (rows + 1)));
    static_cast<QLogValueAxis*>(m_y)->setRange(y0, y1);
  } else {
    auto* axis = static_cast<QValueAxis*>(m_y);
    // Counts are whole numbers: a range of at least 5 keeps every tick on an
    // integer (a range of 1.5 gave the labels 0, 0, 1, 2 under "%.0f").
    const double needed = std::max(5.0, peak * (1.08 + 0.09 * rows));
    // Hysteresis: a new range re-lays out the whole chart (new tick labels),
    // so the axis stays while the bars fit and reach a third of it (a peak
    // that flips between two counts a factor 2 apart leaves it alone).
    if (axis->min() != 0.0 || needed > axis->max() || needed < kKeepRangeAbove * axis->max())
      setNiceRange(axis, 0.0, needed);
    y1 = axis->max();
  }
  updateRegions(lo, hi, y0, y1);

  const auto line = [](const QString& name, std::uint64_t n, bool warn) {
    return QStringLiteral("<tr><td>%1</td><td align=right%3>&nbsp;%2</td></tr>")
        .arg(name, QLocale().toString(qulonglong(n)),
             warn && n > 0 ? QStringLiteral(" style='color:%1; font-weight:bold'")
                                 .arg(palette::kVermillion.name())
                           : QString());
  };
  const QString counters = QStringLiteral("<table>") + line(tr("zeros"), hist.zeros, false) +
                           line(tr("+inf"), hist.posInf, true) + line(tr("−inf"), hist.negInf, true) +
                           line(tr("NaN"), hist.nan, true) + line(tr("total"), hist.total, false) +
                           QStringLiteral("</table>");
  if (counters != m_countersHtml) { // a new text document is laid out again
    m_countersHtml = counters;
    m_counters->setHtml(counters);
    fitCounters();
  } else {
    placeAnnotations(); // the region labels follow the ranges
  }
}

void HistogramChart::updateRegions(double x0, double x1, double y0, double y1) {
  for (Region& r : m_regions) {
    const Shaded* f = shaded(r.region.format);
    const double shift = f != nullptr ? regionShiftOf(f->format) : 0.0;
    const double a = std::max(r.region.x0 + shift, x0);
    const double b = std::min(r.region.x1 + shift, x1);
    const bool visible = f != nullptr && f->visible && a < b;
    r.area->setVisible(visible);
    r.label->setVisible(visible);
    if (!visible)
      continue;
    r.upper->replace({QPointF(a, y1), QPointF(b, y1)});
    r.lower->replace({QPointF(a, y0), QPointF(b, y0)});
  }
}

int HistogramChart::formatRow(const QString& key) const {
  int row = 0;
  for (const Shaded& f : m_formats) {
    if (f.key == key)
      return row;
    row += f.visible ? 1 : 0;
  }
  return row;
}

// The x (in chart coordinates) of every shown region's vertical edge inside
// the plot: the lines a label must not straddle.
std::vector<double> HistogramChart::regionEdges() const {
  const QRectF plot = chart()->plotArea();
  std::vector<double> edges;
  for (const Region& r : m_regions) {
    const QList<QPointF> edge = r.upper->points();
    if (!r.area->isVisible() || edge.size() != 2)
      continue;
    for (const QPointF& p : edge) {
      const double x = chart()->mapToPosition(p, r.area).x();
      if (x > plot.left() + 1.0 && x < plot.right() - 1.0)
        edges.push_back(x);
    }
  }
  return edges;
}

// Where a label of `width` goes, as near `wanted` as it can: inside the plot
// and clear of every region edge (an edge line through "FP16 → inf" reads
// "FP16 → |nf"). Falls back to `wanted` when no gap is wide enough.
double HistogramChart::clearOfEdges(double wanted, double width, const QRectF& plot,
                                    const std::vector<double>& edges, double lo, double hi) {
  constexpr double kGap = 3.0; // between a label and an edge line
  const auto inside = [&](double x) {
    // max(min()), not clamp(): a plot narrower than the label has hi < lo (UB for clamp).
    return std::max(plot.left() + 2.0, std::min(x, plot.right() - width - 2.0));
  };
  const auto clear = [&](double x) {
    return x >= plot.left() + 1.0 && x + width <= plot.right() - 1.0 &&
           std::none_of(edges.begin(), edges.end(), [&](double e) {
             return e > x - kGap && e < x + width + kGap;
           });
  };
  std::vector<double> candidates{inside(wanted)};
  for (double e : edges) {
    candidates.push_back(e + kGap + 1.0);
    candidates.push_back(e - kGap - 1.0 - width);
  }
  std::stable_sort(candidates.begin() + 1, candidates.end(), [&](double a, double b) {
    return std::abs(a - wanted) < std::abs(b - wanted);
  });
  for (double x : candidates)
    if (clear(x) && x >= lo && x <= hi)
      return x;
  for (double x : candidates)
    if (clear(x))
      return x;
  return inside(wanted);
}

// The count axis' title in as many words as the plot's height holds (Qt
// Charts would elide it: "values per binade (co..." on a short presenter
// histogram): the whole title, then "values per binade", then "count".
void HistogramChart::fitCountTitle() {
  if (m_y == nullptr)
    return;
  const double room = chart()->plotArea().height();
  if (room <= 0.0)
    return;
  const QFontMetricsF metrics(m_y->titleFont());
  const double pad = 2.0 * metrics.averageCharWidth();
  const QStringList titles{tr("values per binade (count)"), tr("values per binade"), tr("count")};
  QString fits = titles.back();
  for (const QString& title : titles)
    if (metrics.horizontalAdvance(title) + pad <= room) {
      fits = title;
      break;
    }
  if (m_y->titleText() != fits)
    m_y->setTitleText(fits);
}

void HistogramChart::placeAnnotations() {
  const QRectF plot = chart()->plotArea();
  const std::vector<double> edges = regionEdges();
  std::vector<QRectF> placed;
  for (Region& r : m_regions) {
    if (!r.label->isVisible())
      continue;
    const QList<QPointF> edge = r.upper->points();
    if (edge.size() != 2)
      continue;
    const double left = chart()->mapToPosition(edge[0], r.area).x();
    const double right = chart()->mapToPosition(edge[1], r.area).x();
    const QRectF text = r.label->boundingRect();
    double x = (left + right - text.width()) / 2.0;
    if (r.region.kind == RegionKind::FlushToZero)
      x = right - text.width() - 4.0;
    else if (r.region.kind == RegionKind::Overflow)
      x = left + 4.0;
    // Inside the region it names where a clear place is there ("if E4M3:
    // overflow" left of the overflow edge reads as the wrong side), else
    // the nearest clear place.
    constexpr double kInf = std::numeric_limits<double>::infinity();
    const double lo = r.region.kind == RegionKind::Overflow ? left : -kInf;
    const double hi = r.region.kind == RegionKind::FlushToZero ? right - text.width() : kInf;
    x = clearOfEdges(x, text.width(), plot, edges, lo, hi);
    QRectF box(x, plot.top() + 4.0 + formatRow(r.region.format) * (text.height() + 3.0),
               text.width(), text.height());
    while (std::any_of(placed.begin(), placed.end(),
                       [&](const QRectF& other) { return other.intersects(box); }))
      box.translate(0.0, text.height() + 3.0);
    placed.push_back(box.adjusted(-4.0, 0.0, 4.0, 0.0));
    r.label->setPos(box.topLeft());
  }
  m_counters->setPos(plot.right() + 12.0, plot.top());
}

void HistogramChart::fitCounters() {
  const int width = std::max(60, static_cast<int>(m_counters->boundingRect().width()) + 20);
  const QMargins margins(6, 6, width, 6);
  if (chart()->margins() != margins)
    chart()->setMargins(margins);
  placeAnnotations();
}

void HistogramChart::restyleSeries(const ChartStyle& style) {
  QPen outline(style.text(), std::max(1.0, 0.8 * style.penScale));
  outline.setJoinStyle(Qt::MiterJoin);
  m_bars->setPen(outline);
  QColor fill = palette::blend(style.text(), style.plotBackground().alpha() == 0
                                                 ? QColor(Qt::white)
                                                 : style.plotBackground(),
                               0.45);
  m_bars->setBrush(fill);
  for (Region& r : m_regions) {
    // A boxed format's own colour; the user's format sky blue, a run's own
    // custom format orange (each far from FP16's vermillion beside it).
    const Shaded* f = shaded(r.region.format);
    const bool overlay = m_overlay && formatKey(*m_overlay) == r.region.format;
    const QColor base = f != nullptr && f->boxed ? formatRegionColor(f->format.id)
                        : overlay                ? palette::kSkyBlue
                                                 : palette::kOrange;
    QColor color = base;
    color.setAlpha(regionAlpha(r.region.kind) + (style.dark ? 20 : 0));
    r.area->setBrush(color);
    r.area->setPen(QPen(base, std::max(1.0, style.penScale),
                        r.region.kind == RegionKind::Subnormal ? Qt::DotLine : Qt::SolidLine));
    r.label->setFont(style.labelFont());
    // Sky blue and orange are light: their text darker still, to read on a projector.
    const bool light = base == palette::kSkyBlue || base == palette::kOrange;
    const QColor labelColor = light && !style.dark ? base.darker(125) : base;
    r.label->setBrush(style.dark ? labelColor.lighter(130) : labelColor.darker(135));
  }
  m_counters->setFont(style.labelFont());
  m_counters->setDefaultTextColor(style.text());
  fitCounters();
}

QAreaSeries* HistogramChart::regionSeries(numeric::FormatId format, RegionKind kind) const {
  return regionSeries(numeric::formatInfo(format), kind);
}

QAreaSeries* HistogramChart::regionSeries(const numeric::FloatFormat& format, RegionKind kind) const {
  const QString key = formatKey(format);
  for (const Region& r : m_regions)
    if (r.region.format == key && r.region.kind == kind)
      return r.area;
  return nullptr;
}

QString HistogramChart::regionLabel(numeric::FormatId format, RegionKind kind) const {
  return regionLabel(numeric::formatInfo(format), kind);
}

QString HistogramChart::regionLabel(const numeric::FloatFormat& format, RegionKind kind) const {
  const QString key = formatKey(format);
  for (const Region& r : m_regions)
    if (r.region.format == key && r.region.kind == kind && r.label->isVisible())
      return r.label->text();
  return {};
}

QString HistogramChart::countersText() const { return m_counters->toPlainText(); }

QString HistogramChart::csv() const {
  QString out = QStringLiteral("binade,lower_bound,count");
  if (m_hasScaled)
    out += QStringLiteral(",count_scaled");
  out += QLatin1Char('\n');
  const int first = static_cast<int>(xMin());
  const int last = static_cast<int>(xMax()) - 1;
  for (int e = first; e <= last; ++e) {
    out += QStringLiteral("%1,%2,%3").arg(e).arg(std::ldexp(1.0, e), 0, 'g', 17).arg(m_unscaled.count(e));
    if (m_hasScaled)
      out += QStringLiteral(",%1").arg(m_scaled.count(e));
    out += QLatin1Char('\n');
  }
  return out;
}

QJsonDocument HistogramChart::json() const {
  const auto histogram = [](const ExponentHistogram& h) {
    QJsonArray bins;
    for (int e = ExponentHistogram::kMinExponent; e <= ExponentHistogram::kMaxExponent; ++e)
      if (h.count(e) > 0)
        bins.append(QJsonArray{e, double(h.count(e))});
    return QJsonObject{{QStringLiteral("bins"), bins},
                       {QStringLiteral("zeros"), double(h.zeros)},
                       {QStringLiteral("posInf"), double(h.posInf)},
                       {QStringLiteral("negInf"), double(h.negInf)},
                       {QStringLiteral("nan"), double(h.nan)},
                       {QStringLiteral("total"), double(h.total)}};
  };
  QJsonArray regions;
  const double shift = regionShift();
  for (const Region& r : m_regions) {
    const Shaded* f = shaded(r.region.format);
    if (f == nullptr || !f->visible)
      continue;
    const auto bound = [](double x) { return std::isfinite(x) ? QJsonValue(x) : QJsonValue(); };
    const double formatShift = regionShiftOf(f->format);
    regions.append(QJsonObject{{QStringLiteral("label"), r.region.label},
                               {QStringLiteral("format"), QString::fromStdString(f->format.spec())},
                               {QStringLiteral("fromLog2"), bound(r.region.x0 + formatShift)},
                               {QStringLiteral("toLog2"), bound(r.region.x1 + formatShift)}});
  }
  QJsonObject root{{QStringLiteral("chart"), title()},
                   {QStringLiteral("x"), QStringLiteral("binade exponent e: 2^e <= |x| < 2^(e+1)")},
                   {QStringLiteral("unscaled"), histogram(m_unscaled)},
                   {QStringLiteral("regions"), regions}};
  if (m_runFormat)
    root.insert(QStringLiteral("runFormat"), formatDisplayName(*m_runFormat));
  if (m_hasScaled) {
    root.insert(QStringLiteral("scaled"), histogram(m_scaled));
    root.insert(QStringLiteral("lossScale"), m_lossScale);
    root.insert(QStringLiteral("shown"), showScaled() ? QStringLiteral("scaled")
                                                      : QStringLiteral("unscaled"));
    root.insert(QStringLiteral("regionShiftLog2"), shift);
  }
  return QJsonDocument(root);
}

} // namespace mantissa::ui
