// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/formats/range_strip.h"

#include "ui/app_shell/palette.h"
#include "ui/app_shell/theme.h"
#include "ui/formats/number_text.h"

#include <QPainter>
#include <QPainterPath>

#include <cmath>

namespace mantissa::ui {

RangeStrip::RangeStrip(const numeric::FloatFormat& format, QWidget* parent)
    : QWidget(parent), m_format(format) {
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  connect(&Theme::instance(), &Theme::changed, this, [this] {
    updateGeometry();
    update();
  });
  setToolTip(rangeTooltip());
}

void RangeStrip::setValue(double value, bool outOfRange) {
  m_value = value;
  m_outOfRange = outOfRange;
  setToolTip(rangeTooltip());
  update();
}

QString RangeStrip::rangeTooltip() const {
  QString t =
      tr("%1 range on a log₂ axis shared by all formats\n"
         "min subnormal %2 ≈ %3\nmin normal %4 ≈ %5\nmax finite %6")
          .arg(QString::fromUtf8(m_format.displayName.data(),
                                 qsizetype(m_format.displayName.size())),
               powerOfTwoText(m_format.minSubnormal()), shortNumber(m_format.minSubnormal(), 4),
               powerOfTwoText(m_format.minNormal()), shortNumber(m_format.minNormal(), 4),
               shortNumber(m_format.maxFinite(), 8));
  const double a = std::fabs(m_value);
  if (a > 0 && std::isfinite(a))
    t += tr("\n|value| ≈ 2^%1").arg(std::log2(a), 0, 'f', 2);
  return t;
}

double RangeStrip::xOf(double log2Value) const {
  const double margin = 6.0;
  const double t = (std::clamp(log2Value, kAxisMin, kAxisMax) - kAxisMin) / (kAxisMax - kAxisMin);
  return margin + t * (width() - 2 * margin);
}

QSize RangeStrip::sizeHint() const {
  const QFontMetrics fm(Theme::instance().uiFont(0.9));
  return {400, fm.height() + static_cast<int>(14 * Theme::instance().fontScale()) + 6};
}

QSize RangeStrip::minimumSizeHint() const {
  return {200, sizeHint().height()};
}

void RangeStrip::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const Theme& theme = Theme::instance();
  const QColor text = palette().color(QPalette::WindowText);
  const QColor base = palette().color(QPalette::Base);
  const double pen = theme.penWidthFactor();
  const double barTop = 3.0;
  const double barHeight = 12.0 * theme.fontScale();
  const double barBottom = barTop + barHeight;

  // Axis track with faint ticks every 2^16 and a stronger one at 2^0 = 1.
  p.setPen(Qt::NoPen);
  p.setBrush(palette::blend(text, base, 0.9));
  p.drawRoundedRect(QRectF(xOf(kAxisMin), barTop, xOf(kAxisMax) - xOf(kAxisMin), barHeight), 3, 3);
  for (int e = -144; e <= 128; e += 16) {
    p.setPen(QPen(palette::blend(text, base, e == 0 ? 0.45 : 0.75), e == 0 ? 1.5 * pen : 1.0));
    p.drawLine(QPointF(xOf(e), barTop), QPointF(xOf(e), barBottom));
  }

  // Subnormal band (pale) and normal band (full colour).
  const double lSub = std::log2(m_format.minSubnormal());
  const double lNorm = std::log2(m_format.minNormal());
  const double lMax = std::log2(m_format.maxFinite());
  const QColor band = palette::kBlue;
  p.setPen(Qt::NoPen);
  p.setBrush(palette::kSkyBlue);
  p.drawRect(QRectF(xOf(lSub), barTop, xOf(lNorm) - xOf(lSub), barHeight));
  p.setBrush(band);
  p.drawRect(QRectF(xOf(lNorm), barTop, xOf(lMax) - xOf(lNorm), barHeight));

  // Labels at the band's ends: outside the band when there is room.
  const QFont font = theme.uiFont(0.9);
  const QFontMetrics fm(font);
  p.setFont(font);
  p.setPen(text);
  const double labelY = barBottom + 2;
  const QString left = powerOfTwoText(m_format.minSubnormal());
  const QString right = shortNumber(m_format.maxFinite(), 6);
  const int wl = fm.horizontalAdvance(left);
  const int wr = fm.horizontalAdvance(right);
  const double xl = xOf(lSub);
  const double xr = xOf(lMax);
  const double leftX = xl - wl >= 0 ? xl - wl : xl;
  const double rightX = xr + wr <= width() ? xr : xr - wr;
  p.drawText(QPointF(leftX, labelY + fm.ascent()), left);
  p.drawText(QPointF(rightX, labelY + fm.ascent()), right);

  // Where |value| falls.
  const double a = std::fabs(m_value);
  if (std::isnan(a))
    return;
  double lv = 0.0;
  QString tag;
  if (a == 0.0) {
    lv = kAxisMin;
    tag = QStringLiteral("0");
  } else if (std::isinf(a)) {
    lv = kAxisMax;
    tag = QStringLiteral("∞");
  } else {
    lv = std::log2(a);
  }
  const QColor marker = m_outOfRange ? palette::kWarning : text;
  const double x = xOf(lv);
  p.setPen(QPen(theme.dark() ? Qt::black : Qt::white, 5 * pen, Qt::SolidLine, Qt::RoundCap));
  p.drawLine(QPointF(x, barTop - 2), QPointF(x, barBottom + 2));
  p.setPen(QPen(marker, 2.5 * pen, Qt::SolidLine, Qt::RoundCap));
  p.drawLine(QPointF(x, barTop - 2), QPointF(x, barBottom + 2));
  if (!tag.isEmpty()) {
    p.setPen(marker);
    const int wt = fm.horizontalAdvance(tag);
    // max(min()), not clamp(): a strip narrower than its tag has hi < lo (UB for clamp).
    const double tx = std::max(0.0, std::min(x - wt / 2.0, double(width() - wt)));
    p.drawText(QPointF(tx, labelY + fm.ascent()), tag);
  }
}

} // namespace mantissa::ui
