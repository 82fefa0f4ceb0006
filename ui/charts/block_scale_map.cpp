// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "block_scale_map.h"

#include "colour_map.h"
#include "export_menu.h"
#include "ui/app_shell/palette.h"

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

using namespace numeric;

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

QString scaleText(double log2Scale, bool mx) {
  if (std::isnan(log2Scale))
    return QStringLiteral("NaN");
  if (mx)
    return QStringLiteral("2^%1").arg(int(log2Scale));
  return QStringLiteral("%1 (2^%2)").arg(std::exp2(log2Scale), 0, 'g', 6).arg(log2Scale, 0, 'f', 2);
}

} // namespace

BlockScaleMap::BlockScaleMap(QWidget* parent) : QWidget(parent), m_style(ChartStyle::fromTheme()) {
  setObjectName(QStringLiteral("blockScaleMap"));
  setMouseTracking(true);
  m_message = tr("No tensor yet");
}

void BlockScaleMap::setChartStyle(const ChartStyle& style) {
  m_style = style;
  update();
}

void BlockScaleMap::setMarkClipped(bool mark) {
  m_markClipped = mark;
  rebuildImage();
  update();
}

void BlockScaleMap::clear(const QString& message) {
  m_blocks.clear();
  m_grid.clear();
  m_gridRows = m_gridCols = 0;
  m_clipped = 0;
  m_message = message;
  m_image = QImage();
  update();
}

void BlockScaleMap::setQuantized(const QuantizedTensor& q, const QString& subject, const QString& rowTitle,
                                 const QString& colTitle) {
  m_scheme = q.scheme;
  m_blocks = q.blocks;
  m_tensorScale = q.tensorScale;
  m_rows = q.rows;
  m_cols = q.cols;
  m_subject = subject;
  m_rowTitle = rowTitle;
  m_colTitle = colTitle;
  m_message.clear();
  m_blockRows = 1;
  m_blockCols = 1;
  for (const QuantBlock& b : m_blocks) { // the largest block is the nominal one (edges are short)
    m_blockRows = std::max(m_blockRows, int(b.rows));
    m_blockCols = std::max(m_blockCols, int(b.cols));
  }
  m_gridRows = int((m_rows + std::size_t(m_blockRows) - 1) / std::size_t(m_blockRows));
  m_gridCols = int((m_cols + std::size_t(m_blockCols) - 1) / std::size_t(m_blockCols));
  m_grid.assign(std::size_t(m_gridRows) * std::size_t(m_gridCols), -1);
  m_clipped = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t i = 0; i < m_blocks.size(); ++i) {
    const QuantBlock& b = m_blocks[i];
    const std::size_t gr = b.row / std::size_t(m_blockRows), gc = b.col / std::size_t(m_blockCols);
    if (gr < std::size_t(m_gridRows) && gc < std::size_t(m_gridCols))
      m_grid[gr * std::size_t(m_gridCols) + gc] = int(i);
    if (b.maxClipped)
      ++m_clipped;
    const double l = log2Scale(int(i));
    if (std::isfinite(l) && b.amax > 0.0) {
      lo = std::min(lo, l);
      hi = std::max(hi, l);
    }
  }
  if (!std::isfinite(lo)) {
    lo = 0.0;
    hi = 1.0;
  }
  if (hi - lo < 1.0) { // one scale (or nearly): a range of one binade around it
    const double mid = 0.5 * (lo + hi);
    lo = mid - 0.5;
    hi = mid + 0.5;
  }
  m_lo = lo;
  m_hi = hi;
  rebuildImage();
  update();
}

double BlockScaleMap::log2Scale(int index) const {
  const QuantBlock& b = m_blocks.at(std::size_t(index));
  if (std::isnan(b.scale))
    return std::numeric_limits<double>::quiet_NaN();
  if (b.scale <= 0.0)
    return -std::numeric_limits<double>::infinity();
  return std::log2(b.scale * m_tensorScale);
}

QRgb BlockScaleMap::colourFor(double log2Scale) const { return viridis((log2Scale - m_lo) / (m_hi - m_lo)); }

int BlockScaleMap::blockAt(int gridRow, int gridCol) const {
  if (gridRow < 0 || gridCol < 0 || gridRow >= m_gridRows || gridCol >= m_gridCols)
    return -1;
  return m_grid[std::size_t(gridRow) * std::size_t(m_gridCols) + std::size_t(gridCol)];
}

void BlockScaleMap::rebuildImage() {
  if (m_gridRows == 0 || m_gridCols == 0) {
    m_image = QImage();
    return;
  }
  m_image = QImage(m_gridCols, m_gridRows, QImage::Format_ARGB32);
  m_image.fill(Qt::transparent);
  const QRgb warning = palette::kWarning.rgb();
  for (int r = 0; r < m_gridRows; ++r)
    for (int c = 0; c < m_gridCols; ++c) {
      const int i = blockAt(r, c);
      if (i < 0)
        continue;
      const QuantBlock& b = m_blocks[std::size_t(i)];
      const double l = log2Scale(i);
      if (m_markClipped && b.maxClipped)
        m_image.setPixel(c, r, warning);
      else if (std::isfinite(l) && b.amax > 0.0)
        m_image.setPixel(c, r, colourFor(l));
    }
}

QString BlockScaleMap::countText() const {
  if (m_blocks.empty())
    return {};
  const QLocale locale;
  return tr("%1 of %2 blocks clipped their maximum (%3 %)")
      .arg(locale.toString(qulonglong(m_clipped)), locale.toString(qulonglong(m_blocks.size())))
      .arg(100.0 * double(m_clipped) / double(m_blocks.size()), 0, 'g', 3);
}

QString BlockScaleMap::title() const {
  if (m_blocks.empty())
    return tr("Block scales");
  const SchemeInfo& info = schemeInfo(m_scheme);
  const QString shape = m_blockRows > 1 ? QStringLiteral("%1×%2").arg(m_blockRows).arg(m_blockCols)
                                        : QStringLiteral("1×%1").arg(m_blockCols);
  return tr("Block scales, %1 (%2 blocks): %3").arg(qs(info.name), shape, m_subject);
}

QString BlockScaleMap::xTitleText() const {
  return tr("%1, %2 values per block").arg(m_colTitle).arg(m_blockCols);
}

namespace {
constexpr int kCentred = Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap;
constexpr int kLeft = Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap;

// Height of `text` wrapped in `width`: at least one line.
double wrappedHeight(const QFontMetricsF& fm, double width, int flags, const QString& text) {
  return std::max(fm.height(),
                  fm.boundingRect(QRectF(0, 0, std::max(1.0, width), 1e6), flags, text).height());
}
} // namespace

// The title, the horizontal axis's title and the count line each wrap in the
// whole width (a narrow dock beside the what-if table left the axis title and
// the count cut at the plot's edges); the plot takes what height is left.
BlockScaleMap::Layout BlockScaleMap::layoutFor(const QRectF& target, const ChartStyle& style) const {
  const QFontMetricsF title(style.titleFont()), axis(style.axisTitleFont()), label(style.labelFont());
  Layout l;
  const double pad = 8.0 * style.fontScale;
  const double inner = target.width() - 2 * pad;
  l.title = QRectF(target.left() + pad, target.top() + pad * 0.5, inner,
                   wrappedHeight(title, inner, kCentred, this->title()));
  const double swatch = m_markClipped ? label.height() * 0.7 + 6 : 0.0;
  const double countH = wrappedHeight(label, inner - swatch, kLeft, countText());
  l.count = QRectF(target.left() + pad, target.bottom() - countH - pad * 0.5, inner, countH);
  const double xTitleH =
      m_blocks.empty() ? 0.0 : wrappedHeight(axis, inner, kCentred, xTitleText());
  const double left = target.left() + pad + axis.height() + label.horizontalAdvance(QStringLiteral("00000")) + pad;
  const double barW = 16.0 * style.fontScale;
  const double barLabels = label.horizontalAdvance(QStringLiteral("2^-000")) + axis.height() + pad;
  const double right = target.right() - pad - barW - barLabels - pad;
  const double top = l.title.bottom() + pad;
  const double bottom = l.count.top() - pad - label.height() - xTitleH - pad * 0.5;
  l.plot = QRectF(QPointF(left, top), QPointF(std::max(left + 10, right), std::max(top + 10, bottom)));
  l.bar = QRectF(l.plot.right() + pad * 1.5, l.plot.top(), barW, l.plot.height());
  l.xTitle = QRectF(target.left() + pad, l.plot.bottom() + 2 + label.height(), inner, xTitleH);
  if (axis.horizontalAdvance(xTitleText()) <= l.plot.width()) // one line: under the plot
    l.xTitle = QRectF(l.plot.left(), l.xTitle.top(), l.plot.width(), xTitleH);
  return l;
}

QStringList BlockScaleMap::cutTexts() const {
  const Layout l = layoutFor(QRectF(rect()), m_style);
  const QFontMetricsF title(m_style.titleFont()), axis(m_style.axisTitleFont()),
      label(m_style.labelFont());
  const double swatch = m_markClipped ? label.height() * 0.7 + 6 : 0.0;
  struct Placed {
    QString text;
    QRectF box;
    const QFontMetricsF* fm;
    int flags;
  };
  std::vector<Placed> placed{{this->title(), l.title, &title, kCentred}};
  if (!m_blocks.empty()) {
    placed.push_back({xTitleText(), l.xTitle, &axis, kCentred});
    placed.push_back({countText(), l.count.adjusted(swatch, 0, 0, 0), &label, kLeft});
  }
  QStringList out;
  const QRectF inside = QRectF(rect()).adjusted(-0.5, -0.5, 0.5, 0.5);
  for (const Placed& p : placed) {
    const QRectF needs =
        p.fm->boundingRect(QRectF(p.box.left(), p.box.top(), p.box.width(), 1e6), p.flags, p.text);
    if (needs.width() > p.box.width() + 0.5 || needs.height() > p.box.height() + 0.5 ||
        !inside.contains(p.box))
      out << p.text;
  }
  return out;
}

QRectF BlockScaleMap::plotRect() const { return layoutFor(QRectF(rect()), m_style).plot; }

QRectF BlockScaleMap::cellRect(int gridRow, int gridCol) const {
  const QRectF p = plotRect();
  if (m_gridRows == 0 || m_gridCols == 0)
    return {};
  const double w = p.width() / m_gridCols, h = p.height() / m_gridRows;
  return QRectF(p.left() + gridCol * w, p.top() + gridRow * h, w, h);
}

int BlockScaleMap::blockAtPosition(const QPointF& position) const {
  const QRectF p = plotRect();
  if (m_gridRows == 0 || !p.contains(position))
    return -1;
  const int c = std::clamp(int((position.x() - p.left()) / p.width() * m_gridCols), 0, m_gridCols - 1);
  const int r = std::clamp(int((position.y() - p.top()) / p.height() * m_gridRows), 0, m_gridRows - 1);
  return blockAt(r, c);
}

void BlockScaleMap::paintFigure(QPainter& painter, const QRectF& target, const ChartStyle& style) const {
  painter.setRenderHint(QPainter::Antialiasing, true);
  painter.setRenderHint(QPainter::TextAntialiasing, true);
  if (!style.transparentBackground)
    painter.fillRect(target, style.background());
  const Layout l = layoutFor(target, style);
  painter.setPen(style.text());
  painter.setFont(style.titleFont());
  painter.drawText(l.title, kCentred, title());
  if (m_blocks.empty()) {
    painter.setFont(style.labelFont());
    painter.setPen(style.mutedText());
    painter.drawText(l.plot, Qt::AlignCenter | Qt::TextWordWrap, m_message);
    return;
  }
  painter.fillRect(l.plot, style.plotBackground());
  painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
  painter.drawImage(l.plot, m_image);
  painter.setPen(QPen(style.axisLine(), 1.0));
  painter.setBrush(Qt::NoBrush);
  painter.drawRect(l.plot);

  // Axis ends: first and last index of each dimension, in values (not blocks).
  const QFontMetricsF label(style.labelFont()), axis(style.axisTitleFont());
  painter.setFont(style.labelFont());
  painter.setPen(style.text());
  const QLocale locale;
  painter.drawText(QRectF(l.plot.left(), l.plot.bottom() + 2, 200, label.height()), Qt::AlignLeft | Qt::AlignTop,
                   QStringLiteral("0"));
  painter.drawText(QRectF(l.plot.right() - 200, l.plot.bottom() + 2, 200, label.height()),
                   Qt::AlignRight | Qt::AlignTop, locale.toString(qulonglong(m_cols)));
  const double yLabelRight = l.plot.left() - 4;
  painter.drawText(QRectF(yLabelRight - 200, l.plot.top(), 200, label.height()), Qt::AlignRight | Qt::AlignTop,
                   QStringLiteral("0"));
  painter.drawText(QRectF(yLabelRight - 200, l.plot.bottom() - label.height(), 200, label.height()),
                   Qt::AlignRight | Qt::AlignBottom, locale.toString(qulonglong(m_rows)));
  painter.setFont(style.axisTitleFont());
  painter.drawText(l.xTitle, kCentred, xTitleText());
  painter.save();
  painter.translate(target.left() + 8.0 * style.fontScale, l.plot.center().y());
  painter.rotate(-90);
  painter.drawText(QRectF(-l.plot.height() / 2, 0, l.plot.height(), axis.height()), Qt::AlignCenter,
                   m_blockRows > 1 ? tr("%1, %2 per block").arg(m_rowTitle).arg(m_blockRows) : m_rowTitle);
  painter.restore();

  // Colour bar: log2 scale, integer ticks.
  QLinearGradient g(l.bar.bottomLeft(), l.bar.topLeft());
  for (int i = 0; i <= 10; ++i)
    g.setColorAt(i / 10.0, QColor::fromRgb(viridis(i / 10.0)));
  painter.fillRect(l.bar, g);
  painter.setPen(style.axisLine());
  painter.drawRect(l.bar);
  painter.setFont(style.labelFont());
  painter.setPen(style.text());
  const int span = int(std::ceil(m_hi) - std::floor(m_lo));
  const int every = std::max(1, int(std::ceil(span / std::max(2.0, l.bar.height() / (label.height() * 1.6)))));
  for (int e = int(std::ceil(m_lo)); e <= int(std::floor(m_hi)); ++e) {
    if (e % every != 0)
      continue;
    const double y = l.bar.bottom() - (e - m_lo) / (m_hi - m_lo) * l.bar.height();
    painter.drawLine(QPointF(l.bar.right(), y), QPointF(l.bar.right() + 4, y));
    painter.drawText(QRectF(l.bar.right() + 6, y - label.height() / 2, 200, label.height()),
                     Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("2^%1").arg(e));
  }
  painter.save();
  painter.setFont(style.axisTitleFont());
  const double barTitleX = l.bar.right() + 6 + label.horizontalAdvance(QStringLiteral("2^-000")) + 4;
  painter.translate(barTitleX + axis.height(), l.bar.center().y());
  painter.rotate(90);
  painter.drawText(QRectF(-l.bar.height() / 2, 0, l.bar.height(), axis.height()), Qt::AlignCenter, tr("block scale"));
  painter.restore();

  // The count, with the clipped swatch.
  painter.setFont(style.labelFont());
  const double sw = label.height() * 0.7;
  QRectF swatch(l.count.left(), l.count.top() + (label.height() - sw) / 2, sw,
                sw); // by the first line
  if (m_markClipped) {
    painter.fillRect(swatch, palette::kWarning);
    swatch.setWidth(sw + 6);
  } else {
    swatch.setWidth(0);
  }
  painter.setPen(m_clipped > 0 ? style.text() : style.mutedText());
  painter.drawText(l.count.adjusted(swatch.width(), 0, 0, 0), kLeft, countText());
}

void BlockScaleMap::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  paintFigure(painter, QRectF(rect()), m_style);
}

void BlockScaleMap::render(QPainter& painter, const QRectF& target, const ExportStyle& style) const {
  const ChartStyle chartStyle = exportChartStyle(m_style, style);
  painter.save();
  paintFigure(painter, target, chartStyle);
  painter.restore();
}

void BlockScaleMap::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton)
    return QWidget::mousePressEvent(event);
  if (const int i = blockAtPosition(event->position()); i >= 0)
    emit blockClicked(i);
}

void BlockScaleMap::mouseMoveEvent(QMouseEvent* event) {
  const int i = blockAtPosition(event->position());
  if (i < 0) {
    QToolTip::hideText();
    return;
  }
  const QuantBlock& b = m_blocks[std::size_t(i)];
  QString text = tr("rows %1–%2, columns %3–%4\nscale %5, block max %6")
                     .arg(b.row)
                     .arg(b.row + b.rows - 1)
                     .arg(b.col)
                     .arg(b.col + b.cols - 1)
                     .arg(scaleText(log2Scale(i), schemeInfo(m_scheme).isMx()))
                     .arg(b.amax, 0, 'g', 6);
  if (b.maxClipped)
    text += tr("\nits maximum was clipped");
  text += tr("\nclick: open in the block view");
  QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

void BlockScaleMap::contextMenuEvent(QContextMenuEvent* event) { popupExportMenu(this, *this, event->globalPos()); }

QString BlockScaleMap::csv() const {
  QString out = QStringLiteral("row,col,rows,cols,amax,scale,log2_scale,scale_bits,max_clipped\n");
  for (std::size_t i = 0; i < m_blocks.size(); ++i) {
    const QuantBlock& b = m_blocks[i];
    out += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,0x%8,%9\n")
               .arg(b.row)
               .arg(b.col)
               .arg(b.rows)
               .arg(b.cols)
               .arg(b.amax, 0, 'g', 17)
               .arg(b.scale * m_tensorScale, 0, 'g', 17)
               .arg(log2Scale(int(i)), 0, 'g', 17)
               .arg(qulonglong(b.scaleBits), 0, 16)
               .arg(b.maxClipped ? 1 : 0);
  }
  return out;
}

QJsonDocument BlockScaleMap::json() const {
  QJsonObject root;
  root[QStringLiteral("title")] = title();
  root[QStringLiteral("scheme")] = qs(schemeInfo(m_scheme).name);
  root[QStringLiteral("rows")] = double(m_rows);
  root[QStringLiteral("cols")] = double(m_cols);
  root[QStringLiteral("tensor_scale")] = m_tensorScale;
  root[QStringLiteral("blocks_max_clipped")] = double(m_clipped);
  QJsonArray blocks;
  for (std::size_t i = 0; i < m_blocks.size(); ++i) {
    const QuantBlock& b = m_blocks[i];
    QJsonObject o;
    o[QStringLiteral("row")] = double(b.row);
    o[QStringLiteral("col")] = double(b.col);
    o[QStringLiteral("amax")] = b.amax;
    o[QStringLiteral("scale")] = b.scale * m_tensorScale;
    o[QStringLiteral("max_clipped")] = b.maxClipped;
    blocks.append(o);
  }
  root[QStringLiteral("blocks")] = blocks;
  return QJsonDocument(root);
}

} // namespace mantissa::ui
