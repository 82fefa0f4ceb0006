// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "shadow_error_map.h"

#include "colour_map.h"
#include "export_menu.h"
#include "ui/app_shell/palette.h"
#include "ui/app_shell/theme.h"

#include <QContextMenuEvent>
#include <QFontMetricsF>
#include <QJsonArray>
#include <QJsonObject>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mantissa::ui {

namespace {

// Where a finite non-zero error starts on viridis: below it lies the colour of 0.
constexpr double kFirstShade = 0.2;
constexpr int kWidestDecades[2] = {-30, 10};

QString precisionName(train::ShadowPrecision p) {
  switch (p) {
  case train::ShadowPrecision::F32: return QStringLiteral("FP32");
  case train::ShadowPrecision::F64: return QStringLiteral("FP64");
  case train::ShadowPrecision::Off: break;
  }
  return QStringLiteral("off");
}

QString formatName(DType d) {
  switch (d) {
  case DType::F32: return QStringLiteral("FP32");
  case DType::BF16: return QStringLiteral("BF16");
  case DType::F16: return QStringLiteral("FP16");
  }
  return QStringLiteral("?");
}

// An error as read: "0", "inf", "3.2e-03".
QString errorText(double x) {
  if (std::isinf(x) || std::isnan(x))
    return QStringLiteral("inf");
  if (x == 0.0)
    return QStringLiteral("0");
  return QString::number(x, 'e', 1);
}

// A CSV / JSON number: "inf" for what is not finite, else full precision.
QString exactText(double x) {
  if (std::isinf(x) && x < 0)
    return QStringLiteral("-inf");
  if (std::isinf(x) || std::isnan(x))
    return QStringLiteral("inf");
  return QString::number(x, 'g', 17);
}

// As the run log writes them (train/shadow.h): "inf" / "-inf" for what is not finite.
QJsonValue jsonNumber(double x) {
  if (std::isfinite(x))
    return QJsonValue(x);
  return QJsonValue(x < 0 ? QStringLiteral("-inf") : QStringLiteral("inf"));
}

// "1%", "0.1%", "5e-05%".
QString percentText(double fraction) {
  return QString::number(100.0 * fraction, 'g', 3) + QLatin1Char('%');
}

// 10 to the power `d`, as a label: "1", "10", "10⁻³".
QString powerOfTen(int d) {
  if (d == 0)
    return QStringLiteral("1");
  if (d == 1)
    return QStringLiteral("10");
  static const QChar digits[] = {u'\u2070', u'\u00b9', u'\u00b2', u'\u00b3', u'\u2074',
                                 u'\u2075', u'\u2076', u'\u2077', u'\u2078', u'\u2079'};
  QString out = QStringLiteral("10");
  if (d < 0)
    out += u'\u207b';
  for (const QChar c : QString::number(std::abs(d)))
    out += digits[c.digitValue()];
  return out;
}

} // namespace

ShadowErrorMap::ShadowErrorMap(QWidget* parent) : QWidget(parent), m_style(ChartStyle::fromTheme()) {
  connect(&Theme::instance(), &Theme::changed, this,
          [this] { setChartStyle(ChartStyle::fromTheme()); });
  setMouseTracking(true);
  // No fixed minimum: minimumSizeHint() grows with the rows, so that a scroll area scrolls them.
  setAttribute(Qt::WA_OpaquePaintEvent);
}

void ShadowErrorMap::setFrames(std::vector<std::shared_ptr<const train::ShadowFrame>> frames) {
  m_frames.clear();
  for (auto& f : frames)
    if (f && (m_frames.empty() || f->step > m_frames.back()->step))
      m_frames.push_back(std::move(f));
  rebuild();
  updateGeometry();
  update();
}

void ShadowErrorMap::setSubject(const QString& run) {
  m_subject = run;
  update();
}

void ShadowErrorMap::setChartStyle(const ChartStyle& style) {
  m_style = style;
  updateGeometry();
  update();
}

// The rows: every tensor name in the order the frames list them (a tensor
// new in a later frame goes after the last row of its pass).
void ShadowErrorMap::rebuild() {
  m_rows.clear();
  m_index.clear();
  for (const auto& frame : m_frames)
    for (const train::ShadowError& e : frame->tensors) {
      const QString name = QString::fromStdString(e.tensor);
      const auto same = [&](const Row& r) { return r.name == name && r.backward == e.backward; };
      if (std::find_if(m_rows.begin(), m_rows.end(), same) != m_rows.end())
        continue;
      auto at = m_rows.end();
      if (!e.backward) // before the first backward row
        at = std::find_if(m_rows.begin(), m_rows.end(), [](const Row& r) { return r.backward; });
      m_rows.insert(at, Row{name, e.backward});
    }
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  for (const auto& frame : m_frames) {
    std::vector<int> index(m_rows.size(), -1);
    for (std::size_t i = 0; i < frame->tensors.size(); ++i) {
      const train::ShadowError& e = frame->tensors[i];
      const QString name = QString::fromStdString(e.tensor);
      for (std::size_t r = 0; r < m_rows.size(); ++r)
        if (m_rows[r].name == name && m_rows[r].backward == e.backward) {
          index[r] = static_cast<int>(i);
          break;
        }
      if (std::isfinite(e.tensorRelative) && e.tensorRelative > 0.0) {
        lo = std::min(lo, e.tensorRelative);
        hi = std::max(hi, e.tensorRelative);
      }
    }
    m_index.push_back(std::move(index));
  }
  m_firstDecade = -8;
  m_lastDecade = 0;
  if (std::isfinite(lo)) {
    m_firstDecade = std::min(m_firstDecade, static_cast<int>(std::floor(std::log10(lo))));
    m_lastDecade = std::max(m_lastDecade, static_cast<int>(std::ceil(std::log10(hi))));
  }
  m_firstDecade = std::max(m_firstDecade, kWidestDecades[0]);
  m_lastDecade = std::clamp(m_lastDecade, m_firstDecade + 1, kWidestDecades[1]);
}

QString ShadowErrorMap::tensorOfRow(int row) const { return m_rows.at(std::size_t(row)).name; }
bool ShadowErrorMap::rowIsBackward(int row) const { return m_rows.at(std::size_t(row)).backward; }
std::int64_t ShadowErrorMap::stepOfColumn(int column) const {
  return m_frames.at(std::size_t(column))->step;
}

const train::ShadowError* ShadowErrorMap::cell(int row, int column) const {
  if (row < 0 || column < 0 || row >= rowCount() || column >= columnCount())
    return nullptr;
  const int i = m_index[std::size_t(column)][std::size_t(row)];
  return i < 0 ? nullptr : &m_frames[std::size_t(column)]->tensors[std::size_t(i)];
}

QRgb ShadowErrorMap::zeroColour() { return viridis(0.0) | 0xff000000u; }
QRgb ShadowErrorMap::infiniteColour() { return palette::kVermillion.rgb() | 0xff000000u; }

double ShadowErrorMap::barPosition(double error) const {
  const double t = (std::log10(error) - m_firstDecade) / double(m_lastDecade - m_firstDecade);
  return std::clamp(t, 0.0, 1.0);
}

QRgb ShadowErrorMap::colourOfError(double error) const {
  if (std::isinf(error) || std::isnan(error))
    return infiniteColour();
  if (error <= 0.0)
    return zeroColour();
  return viridis(kFirstShade + (1.0 - kFirstShade) * barPosition(error)) | 0xff000000u;
}

QRgb ShadowErrorMap::cellColour(int row, int column) const {
  const train::ShadowError* e = cell(row, column);
  return e ? colourOfError(e->tensorRelative) : QRgb(0);
}

QString ShadowErrorMap::firstOverSentence(const train::ShadowFrame& f) {
  const QString head = tr("Shadow %1, step %2").arg(precisionName(f.reference)).arg(f.step);
  if (f.firstOver && *f.firstOver < f.tensors.size()) {
    const train::ShadowError& e = f.tensors[*f.firstOver];
    return tr("%1: first tensor over %2 error: %3 (tensor error %4)")
        .arg(head, percentText(f.threshold), QString::fromStdString(e.tensor),
             errorText(e.tensorRelative));
  }
  double worst = 0.0;
  QString worstName;
  for (const auto& e : f.tensors)
    if (worstName.isEmpty() || e.tensorRelative > worst) {
      worst = e.tensorRelative;
      worstName = QString::fromStdString(e.tensor);
    }
  if (worstName.isEmpty())
    return tr("%1: no tensor compared").arg(head);
  if (worst == 0.0)
    return tr("%1: every tensor equals the reference exactly").arg(head);
  return tr("%1: no tensor over %2 error (largest: %3, %4)")
      .arg(head, percentText(f.threshold), worstName, errorText(worst));
}

QString ShadowErrorMap::latestSentence() const {
  return m_frames.empty() ? QString() : firstOverSentence(*m_frames.back());
}

QString ShadowErrorMap::emptyText() {
  return tr("No shadow frames in this run. To see where precision is lost, tensor by tensor: "
            "set Setup > Shadow reference to FP32 or FP64 before Start (it runs at the "
            "histogram steps), or press Check Against Reference Now while the run trains or "
            "is paused. Saved runs show the frames their logs hold (mantissa-cli train "
            "--shadow fp32).");
}

QStringList ShadowErrorMap::legendTexts() const {
  QStringList out{tr("0 (exact)"), tr("inf")};
  if (!m_frames.empty())
    out << tr("threshold %1").arg(percentText(m_frames.back()->threshold));
  return out;
}

QString ShadowErrorMap::title() const {
  const QString reference = m_frames.empty() ? QString()
                                             : tr(" against %1").arg(precisionName(m_frames.back()->reference));
  return m_subject.isEmpty() ? tr("Tensor error%1").arg(reference)
                             : tr("Tensor error%1: %2").arg(reference, m_subject);
}

int ShadowErrorMap::labelEvery(double rowHeight, double labelHeight) {
  if (rowHeight <= 0.0)
    return 1;
  return std::max(1, static_cast<int>(std::ceil(labelHeight / rowHeight)));
}

ShadowErrorMap::Layout ShadowErrorMap::layoutFor(const QRectF& target, const ChartStyle& style) const {
  auto* self = const_cast<ShadowErrorMap*>(this);
  const QFontMetricsF title(style.titleFont(), self);
  const QFontMetricsF label(style.labelFont(), self);
  const QFontMetricsF axis(style.axisTitleFont(), self);
  const double margin = 8.0 * style.fontScale;
  Layout layout;
  layout.figure = target;
  layout.margin = margin;
  const double titleHeight =
      title.boundingRect(QRectF(0, 0, std::max(10.0, target.width() - 2.0 * margin), 1e6),
                         Qt::TextWordWrap | Qt::AlignHCenter, this->title())
          .height();
  layout.title = QRectF(target.left() + margin, target.top() + margin, target.width() - 2.0 * margin,
                        titleHeight);
  const QString sentence = m_frames.empty() ? QString() : latestSentence();
  const double subtitleHeight =
      sentence.isEmpty()
          ? 0.0
          : label.boundingRect(QRectF(0, 0, std::max(10.0, target.width() - 2.0 * margin), 1e6),
                               Qt::TextWordWrap | Qt::AlignHCenter, sentence)
                    .height();
  layout.subtitle = QRectF(layout.title.left(), layout.title.bottom() + 2.0, layout.title.width(),
                           subtitleHeight);
  const double top = layout.subtitle.bottom() + margin;

  // Left: the pass names (rotated), then the row labels, at most 40% of the figure.
  double widest = 0.0;
  for (const Row& r : m_rows)
    widest = std::max(widest, label.horizontalAdvance(r.name));
  const double passWidth = axis.height() + 4.0;
  const double labels = std::min(widest + 8.0, 0.4 * target.width());
  layout.labelLeft = target.left() + margin + passWidth;
  const double left = layout.labelLeft + labels;
  // Right: the bar, its labels ("10⁻¹²", the legend's words) and its rotated title.
  double legendWidth = label.horizontalAdvance(powerOfTen(-12));
  for (const QString& text : legendTexts())
    legendWidth = std::max(legendWidth, label.horizontalAdvance(text));
  const double barWidth = 14.0 * style.fontScale;
  const double right = 2.0 * margin + barWidth + 6.0 + legendWidth + axis.height() + margin;
  const double bottom = label.height() + 6.0 + axis.height() + 2.0 * margin;
  layout.plot = QRectF(left, top, std::max(10.0, target.right() - right - left),
                       std::max(10.0, target.bottom() - bottom - top));
  // Under the bar, one swatch per legend entry.
  const double swatch = label.height();
  const double legendHeight = double(legendTexts().size()) * (swatch + 4.0) + 6.0;
  const double barLeft = layout.plot.right() + 2.0 * margin;
  layout.colourBar = QRectF(barLeft, layout.plot.top(), barWidth,
                            std::max(10.0, layout.plot.height() - legendHeight));
  layout.zeroSwatch = QRectF(barLeft, layout.colourBar.bottom() + 6.0, barWidth, swatch);
  layout.infSwatch = QRectF(barLeft, layout.zeroSwatch.bottom() + 4.0, barWidth, swatch);
  return layout;
}

QRectF ShadowErrorMap::plotRect() const { return layoutFor(QRectF(rect()), m_style).plot; }

QRectF ShadowErrorMap::cellRect(int row, int column) const {
  const QRectF plot = plotRect();
  if (rowCount() == 0 || columnCount() == 0)
    return {};
  const double w = plot.width() / columnCount();
  const double h = plot.height() / rowCount();
  return {plot.left() + column * w, plot.top() + row * h, w, h};
}

int ShadowErrorMap::rowLabelEvery() const {
  const QFontMetricsF label(m_style.labelFont(), const_cast<ShadowErrorMap*>(this));
  return rowCount() == 0 ? 1 : labelEvery(plotRect().height() / rowCount(), label.height());
}

// Tall enough for rows of half a label's height: a long list (a GPT's)
// then scrolls in the dock rather than shrinking to lines.
QSize ShadowErrorMap::minimumSizeHint() const {
  const QFontMetricsF label(m_style.labelFont(), const_cast<ShadowErrorMap*>(this));
  const double probe = 2000.0;
  const Layout layout = layoutFor(QRectF(0, 0, std::max(width(), 400), probe), m_style);
  const double chrome = probe - layout.plot.height();
  const int rows = std::max(rowCount(), 6);
  return {280, static_cast<int>(std::ceil(chrome + rows * 0.5 * label.height()))};
}

void ShadowErrorMap::paintFigure(QPainter& painter, const QRectF& target, const ChartStyle& style) const {
  const Layout layout = layoutFor(target, style);
  painter.fillRect(target, style.transparentBackground ? QColor(Qt::transparent) : style.background());
  painter.setFont(style.titleFont());
  painter.setPen(style.text());
  painter.drawText(layout.title, Qt::AlignHCenter | Qt::TextWordWrap, title());
  if (m_frames.empty()) {
    paintEmpty(painter, target, style);
    return;
  }
  painter.setFont(style.labelFont());
  const bool over = m_frames.back()->firstOver.has_value();
  painter.setPen(over ? (style.dark ? palette::kVermillion.lighter(130) : palette::kVermillion)
                      : style.text());
  painter.drawText(layout.subtitle, Qt::AlignHCenter | Qt::TextWordWrap, latestSentence());
  paintRows(painter, layout, style);
  paintColourBar(painter, layout, style);
}

void ShadowErrorMap::paintEmpty(QPainter& painter, const QRectF& target, const ChartStyle& style) const {
  const double margin = 24.0 * style.fontScale;
  QFont font = style.axisTitleFont();
  painter.setFont(font);
  painter.setPen(style.mutedText());
  const QRectF box = target.adjusted(margin, margin * 2.5, -margin, -margin);
  painter.drawText(box, Qt::AlignCenter | Qt::TextWordWrap, emptyText());
}

void ShadowErrorMap::paintRows(QPainter& painter, const Layout& layout, const ChartStyle& style) const {
  const QRectF plot = layout.plot;
  const int rows = rowCount();
  const int cols = columnCount();
  painter.fillRect(plot, style.plotBackground());
  const double w = plot.width() / std::max(1, cols);
  const double h = plot.height() / std::max(1, rows);
  // Cells, drawn as rectangles edge to edge (no gaps, no antialiasing seams).
  painter.save();
  painter.setRenderHint(QPainter::Antialiasing, false);
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r)
      if (const QRgb colour = cellColour(r, c); colour != 0) {
        const QRectF cellBox(plot.left() + c * w, plot.top() + r * h, w, h);
        painter.fillRect(cellBox.adjusted(0, 0, 0.5, 0.5), QColor::fromRgb(colour));
      }
  painter.restore();

  // The first tensor over the threshold of each step, outlined.
  const QColor outline = style.dark ? Qt::white : Qt::black;
  painter.setPen(QPen(outline, std::max(1.5, 1.5 * style.penScale)));
  painter.setBrush(Qt::NoBrush);
  for (int c = 0; c < cols; ++c) {
    const auto& f = *m_frames[std::size_t(c)];
    if (!f.firstOver)
      continue;
    const auto& index = m_index[std::size_t(c)];
    const auto it = std::find(index.begin(), index.end(), int(*f.firstOver));
    if (it == index.end())
      continue;
    const int r = int(it - index.begin());
    painter.drawRect(QRectF(plot.left() + c * w, plot.top() + r * h, w, h).adjusted(1, 1, -1, -1));
  }

  // Forward | backward: a line between the passes and their names at the far left.
  const QFontMetricsF label(style.labelFont(), painter.device());
  const QFontMetricsF axis(style.axisTitleFont(), painter.device());
  int firstBackward = rows;
  for (int r = 0; r < rows; ++r)
    if (m_rows[std::size_t(r)].backward) {
      firstBackward = r;
      break;
    }
  painter.setPen(QPen(style.axisLine(), std::max(1.0, style.penScale)));
  painter.drawRect(plot);
  if (firstBackward > 0 && firstBackward < rows) {
    // Across the cells and beside the pass names; not through the row labels.
    const double y = plot.top() + firstBackward * h;
    painter.setPen(QPen(style.text(), 2.0 * style.penScale));
    painter.drawLine(QPointF(plot.left() - 4.0, y), QPointF(plot.right(), y));
    painter.drawLine(QPointF(layout.labelLeft - axis.height() - 2.0, y), QPointF(layout.labelLeft - 2.0, y));
  }
  painter.setFont(style.axisTitleFont());
  painter.setPen(style.text());
  const auto passName = [&](int from, int to, const QString& name, const QString& shortName) {
    if (to <= from)
      return;
    const double span = (to - from) * h;
    const QString text = axis.horizontalAdvance(name) <= span ? name
                         : axis.horizontalAdvance(shortName) <= span ? shortName
                                                                     : QString();
    if (text.isEmpty())
      return;
    painter.save();
    painter.translate(layout.labelLeft - 4.0, plot.top() + (from + to) * h / 2.0);
    painter.rotate(-90.0);
    painter.drawText(QRectF(-span / 2.0, -axis.height(), span, axis.height()), Qt::AlignCenter, text);
    painter.restore();
  };
  passName(0, firstBackward, tr("forward"), tr("fwd"));
  passName(firstBackward, rows, tr("backward"), tr("bwd"));

  // Row labels: every row's, or every k-th one's where they would overlap.
  painter.setFont(style.labelFont());
  const int every = labelEvery(h, label.height());
  const double labelWidth = plot.left() - 6.0 - layout.labelLeft;
  for (int r = 0; r < rows; r += every) {
    const double y = plot.top() + (r + 0.5) * h;
    const QString text = label.elidedText(m_rows[std::size_t(r)].name, Qt::ElideMiddle, labelWidth);
    painter.drawText(QRectF(layout.labelLeft, y - label.height() / 2.0, labelWidth, label.height()),
                     Qt::AlignRight | Qt::AlignVCenter, text);
    if (every > 1)
      painter.drawLine(QPointF(plot.left() - 4.0, y), QPointF(plot.left(), y));
  }

  // Steps along the bottom: as many labels as fit side by side.
  double widestStep = 0.0;
  for (const auto& f : m_frames)
    widestStep = std::max(widestStep, label.horizontalAdvance(QString::number(f->step)));
  const int stepEvery = std::max(1, static_cast<int>(std::ceil((widestStep + label.averageCharWidth() * 2.0) / w)));
  for (int c = 0; c < cols; c += stepEvery) {
    const double x = plot.left() + (c + 0.5) * w;
    painter.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 4.0));
    painter.drawText(QRectF(x - widestStep, plot.bottom() + 4.0, 2.0 * widestStep, label.height()),
                     Qt::AlignHCenter, QString::number(m_frames[std::size_t(c)]->step));
  }
  // The axis title centred under the plot, kept inside the figure; shorter where it does not fit.
  painter.setFont(style.axisTitleFont());
  const double room = layout.figure.width() - 2.0 * layout.margin;
  QString title = tr("training step (steps the shadow pass ran)");
  if (axis.horizontalAdvance(title) > room)
    title = tr("training step");
  const double width = std::min(room, axis.horizontalAdvance(title) + 4.0);
  const double centre = std::clamp(plot.center().x(), layout.figure.left() + layout.margin + width / 2.0,
                                   layout.figure.right() - layout.margin - width / 2.0);
  painter.drawText(QRectF(centre - width / 2.0, plot.bottom() + 6.0 + label.height(), width, axis.height()),
                   Qt::AlignHCenter, title);
}

void ShadowErrorMap::paintColourBar(QPainter& painter, const Layout& layout, const ChartStyle& style) const {
  const QRectF bar = layout.colourBar;
  QImage gradient(1, 256, QImage::Format_RGB32);
  for (int i = 0; i < 256; ++i)
    gradient.setPixel(0, i, viridis(kFirstShade + (1.0 - kFirstShade) * (1.0 - i / 255.0)));
  painter.drawImage(bar, gradient);
  painter.setPen(QPen(style.axisLine(), 1.0));
  painter.setBrush(Qt::NoBrush);
  painter.drawRect(bar);
  const QFontMetricsF fm(style.labelFont(), painter.device());
  painter.setFont(style.labelFont());
  painter.setPen(style.text());
  const int decades = m_lastDecade - m_firstDecade;
  const int every = std::max(1, static_cast<int>(std::ceil(decades * 1.6 * fm.height() / bar.height())));
  for (int d = m_lastDecade; d >= m_firstDecade; d -= every) {
    const double y = bar.bottom() - double(d - m_firstDecade) / decades * bar.height();
    painter.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 4.0, y));
    painter.drawText(QRectF(bar.right() + 6.0, y - fm.height() / 2.0, 200.0, fm.height()),
                     Qt::AlignLeft | Qt::AlignVCenter, powerOfTen(d));
  }
  // The threshold, across the bar.
  const QColor warn = style.dark ? palette::kVermillion.lighter(130) : palette::kVermillion;
  const double threshold = m_frames.back()->threshold;
  const bool thresholdShown = threshold > 0.0 && std::isfinite(threshold);
  const double ty = bar.bottom() - barPosition(threshold) * bar.height();
  if (thresholdShown) {
    painter.setPen(QPen(style.dark ? Qt::white : Qt::black, 4.0 * style.penScale));
    painter.drawLine(QPointF(bar.left() - 3.0, ty), QPointF(bar.right() + 3.0, ty));
    painter.setPen(QPen(warn, 2.0 * style.penScale));
    painter.drawLine(QPointF(bar.left() - 3.0, ty), QPointF(bar.right() + 3.0, ty));
  }
  // Legend: 0 (exact), inf, the threshold line.
  const QStringList legend = legendTexts();
  const auto entry = [&](const QRectF& swatch, const QString& text) {
    painter.setPen(style.text());
    painter.drawText(QRectF(swatch.right() + 6.0, swatch.top(), 400.0, swatch.height()),
                     Qt::AlignLeft | Qt::AlignVCenter, text);
  };
  painter.fillRect(layout.zeroSwatch, QColor::fromRgb(zeroColour()));
  entry(layout.zeroSwatch, legend[0]);
  painter.fillRect(layout.infSwatch, QColor::fromRgb(infiniteColour()));
  entry(layout.infSwatch, legend[1]);
  if (legend.size() > 2) {
    const QRectF line = layout.infSwatch.translated(0, layout.infSwatch.height() + 4.0);
    painter.setPen(QPen(warn, 2.0 * style.penScale));
    painter.drawLine(QPointF(line.left(), line.center().y()), QPointF(line.right(), line.center().y()));
    entry(line, legend[2]);
  }
  // The bar's title, rotated, at the far right.
  painter.save();
  painter.setFont(style.axisTitleFont());
  const QFontMetricsF axis(style.axisTitleFont(), painter.device());
  double labelWidth = fm.horizontalAdvance(powerOfTen(-12));
  for (const QString& text : legend)
    labelWidth = std::max(labelWidth, fm.horizontalAdvance(text));
  const QString full = tr("tensor error ‖a − r‖ / ‖r‖ (log colour)");
  const QString text = axis.horizontalAdvance(full) <= bar.height() ? full : tr("tensor error");
  painter.translate(bar.right() + 8.0 + labelWidth, bar.center().y());
  painter.rotate(90.0);
  painter.drawText(QRectF(-bar.height() / 2.0, -axis.height(), bar.height(), axis.height()),
                   Qt::AlignCenter, text);
  painter.restore();
}

QString ShadowErrorMap::cellToolTip(int row, int column) const {
  const train::ShadowError* e = cell(row, column);
  if (!e)
    return {};
  const train::ShadowFrame& f = *m_frames[std::size_t(column)];
  const QString format = formatName(e->format);
  QString overNote;
  if (std::isinf(e->tensorRelative) || e->tensorRelative > f.threshold)
    overNote = tr(" (over the %1 threshold)").arg(percentText(f.threshold));
  QStringList lines;
  lines << QStringLiteral("<b>%1</b> (%2, stored in %3)")
               .arg(QString::fromStdString(e->tensor).toHtmlEscaped(),
                    e->backward ? tr("backward") : tr("forward"), format);
  lines << tr("step %1, against the %2 reference").arg(f.step).arg(precisionName(f.reference));
  lines << tr("tensor error ‖a − r‖ / ‖r‖: <b>%1</b>%2").arg(errorText(e->tensorRelative), overNote);
  lines << tr("max relative error: %1").arg(errorText(e->maxRelative));
  lines << tr("median relative error: %1").arg(errorText(e->medianRelative));
  lines << tr("max ULPs (in %1): %2")
               .arg(format, std::isfinite(e->maxUlps) ? QString::number(e->maxUlps, 'g', 4)
                                                       : QStringLiteral("inf"));
  lines << tr("SQNR: %1").arg(std::isinf(e->sqnrDb) && e->sqnrDb > 0
                                  ? tr("inf (equal to the reference)")
                                  : std::isfinite(e->sqnrDb) ? tr("%1 dB").arg(e->sqnrDb, 0, 'f', 1)
                                                             : tr("−inf"));
  lines << tr("flips (sign or binade differs): %1").arg(QLocale().toString(qlonglong(e->flips)));
  lines << tr("values compared: %1").arg(QLocale().toString(qlonglong(e->count)));
  return lines.join(QStringLiteral("<br>"));
}

void ShadowErrorMap::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  paintFigure(painter, QRectF(rect()), m_style);
}

void ShadowErrorMap::mouseMoveEvent(QMouseEvent* event) {
  const QRectF plot = plotRect();
  const QPointF p = event->position();
  if (m_frames.empty() || !plot.contains(p)) {
    QToolTip::hideText();
    return;
  }
  const int column = std::clamp(int((p.x() - plot.left()) / plot.width() * columnCount()), 0, columnCount() - 1);
  const int row = std::clamp(int((p.y() - plot.top()) / plot.height() * rowCount()), 0, rowCount() - 1);
  const QString tip = cellToolTip(row, column);
  if (tip.isEmpty())
    QToolTip::hideText();
  else
    QToolTip::showText(event->globalPosition().toPoint(), tip, this);
}

void ShadowErrorMap::contextMenuEvent(QContextMenuEvent* event) {
  popupExportMenu(this, *this, event->globalPos());
}

void ShadowErrorMap::render(QPainter& painter, const QRectF& target, const ExportStyle& style) const {
  const ChartStyle chartStyle = exportChartStyle(m_style, style);
  painter.save();
  paintFigure(painter, target, chartStyle);
  painter.restore();
}

// Every cell: one line per tensor per shadow step.
QString ShadowErrorMap::csv() const {
  QString out = QStringLiteral("step,reference,threshold,tensor,pass,format,count,max_rel,median_rel,"
                               "tensor_rel,max_ulps,sqnr_db,flips,first_over\n");
  for (int c = 0; c < columnCount(); ++c) {
    const train::ShadowFrame& f = *m_frames[std::size_t(c)];
    for (int r = 0; r < rowCount(); ++r) {
      const train::ShadowError* e = cell(r, c);
      if (!e)
        continue;
      const bool first = f.firstOver && &f.tensors[*f.firstOver] == e;
      out += QStringList{QString::number(f.step),
                         precisionName(f.reference),
                         exactText(f.threshold),
                         csvField(QString::fromStdString(e->tensor)),
                         e->backward ? QStringLiteral("backward") : QStringLiteral("forward"),
                         formatName(e->format),
                         QString::number(e->count),
                         exactText(e->maxRelative),
                         exactText(e->medianRelative),
                         exactText(e->tensorRelative),
                         exactText(e->maxUlps),
                         exactText(e->sqnrDb),
                         QString::number(e->flips),
                         first ? QStringLiteral("1") : QStringLiteral("0")}
                 .join(u',') +
             u'\n';
    }
  }
  return out;
}

QJsonDocument ShadowErrorMap::json() const {
  QJsonArray steps;
  for (int c = 0; c < columnCount(); ++c) {
    const train::ShadowFrame& f = *m_frames[std::size_t(c)];
    QJsonArray cells;
    for (int r = 0; r < rowCount(); ++r) {
      const train::ShadowError* e = cell(r, c);
      if (!e)
        continue;
      cells.append(QJsonObject{{QStringLiteral("tensor"), QString::fromStdString(e->tensor)},
                               {QStringLiteral("pass"), e->backward ? QStringLiteral("backward")
                                                                    : QStringLiteral("forward")},
                               {QStringLiteral("format"), formatName(e->format)},
                               {QStringLiteral("count"), double(e->count)},
                               {QStringLiteral("max_rel"), jsonNumber(e->maxRelative)},
                               {QStringLiteral("median_rel"), jsonNumber(e->medianRelative)},
                               {QStringLiteral("tensor_rel"), jsonNumber(e->tensorRelative)},
                               {QStringLiteral("max_ulps"), jsonNumber(e->maxUlps)},
                               {QStringLiteral("sqnr_db"), jsonNumber(e->sqnrDb)},
                               {QStringLiteral("flips"), double(e->flips)}});
    }
    steps.append(QJsonObject{
        {QStringLiteral("step"), double(f.step)},
        {QStringLiteral("reference"), precisionName(f.reference)},
        {QStringLiteral("threshold"), jsonNumber(f.threshold)},
        {QStringLiteral("first_over"), f.firstOver && *f.firstOver < f.tensors.size()
                                           ? QJsonValue(QString::fromStdString(f.tensors[*f.firstOver].tensor))
                                           : QJsonValue()},
        {QStringLiteral("tensors"), cells}});
  }
  QJsonArray rows;
  for (const Row& r : m_rows)
    rows.append(r.name);
  return QJsonDocument(QJsonObject{{QStringLiteral("chart"), title()},
                                   {QStringLiteral("colour"), QStringLiteral("log10 tensor_rel")},
                                   {QStringLiteral("rows"), rows},
                                   {QStringLiteral("steps"), steps}});
}

} // namespace mantissa::ui
