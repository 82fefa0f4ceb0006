// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/formats/bit_cells.h"

#include "ui/app_shell/palette.h"
#include "ui/app_shell/theme.h"
#include "ui/formats/number_text.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace mantissa::ui {

BitCells::BitCells(const numeric::FloatFormat& format, QWidget* parent)
    : QWidget(parent), m_format(format) {
  setMouseTracking(true);
  setCursor(Qt::PointingHandCursor);
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  connect(&Theme::instance(), &Theme::changed, this, [this] {
    updateGeometry();
    update();
  });
}

void BitCells::setBits(std::uint64_t bits) {
  if (bits == m_bits)
    return;
  m_bits = bits;
  update();
}

BitCells::Field BitCells::fieldOf(int index) const {
  if (index == m_format.totalBits() - 1)
    return Field::Sign;
  return index >= m_format.mantissaBits ? Field::Exponent : Field::Mantissa;
}

int BitCells::cellHeight() const {
  return QFontMetrics(Theme::instance().monospaceFont(1.35, true)).height() + 10;
}

int BitCells::fieldGap() const {
  return std::max(4, cellHeight() / 5);
}

int BitCells::cellWidth() const {
  const int preferred = QFontMetrics(Theme::instance().monospaceFont(1.35, true))
                                .horizontalAdvance(QLatin1Char('0')) *
                            2 +
                        6;
  const int fit = (width() - 2 * fieldGap()) / kLayoutBits;
  return std::max(8, std::min(preferred, fit));
}

QSize BitCells::sizeHint() const {
  const QFontMetrics fm(Theme::instance().monospaceFont(1.35, true));
  const int cell = fm.horizontalAdvance(QLatin1Char('0')) * 2 + 6;
  const QFontMetrics small(Theme::instance().monospaceFont(0.9));
  return {kLayoutBits * cell + 2 * fieldGap(), cellHeight() + small.height() + 8};
}

QSize BitCells::minimumSizeHint() const {
  const QSize hint = sizeHint();
  return {hint.width() * 3 / 5, hint.height()};
}

QRect BitCells::cellRect(int index) const {
  const int w = cellWidth();
  const int position = m_format.totalBits() - 1 - index; // 0 = leftmost
  int x = position * w;
  if (index < m_format.totalBits() - 1)
    x += fieldGap();
  if (index < m_format.mantissaBits)
    x += fieldGap();
  return {x, 0, w, cellHeight()};
}

int BitCells::bitAt(QPoint pos) const {
  for (int i = 0; i < m_format.totalBits(); ++i)
    if (cellRect(i).contains(pos))
      return i;
  return -1;
}

QString BitCells::bitDescription(int index) const {
  const int bit = (m_bits >> index) & 1u;
  switch (fieldOf(index)) {
  case Field::Sign:
    return tr("bit %1: sign (%2)").arg(index).arg(bit ? tr("negative") : tr("positive"));
  case Field::Exponent: {
    const int e = index - m_format.mantissaBits;
    return tr("bit %1: exponent bit %2 of %3, adds %4 to the biased exponent")
        .arg(index)
        .arg(e)
        .arg(m_format.exponentBits)
        .arg(1 << e);
  }
  case Field::Mantissa:
    return tr("bit %1: mantissa bit, worth %2 of the significand")
        .arg(index)
        .arg(powerOfTwoText(index - m_format.mantissaBits));
  }
  return {};
}

void BitCells::setBlank(bool blank) {
  if (blank == m_blank)
    return;
  m_blank = blank;
  update();
}

void BitCells::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const Theme& theme = Theme::instance();
  const QColor base = palette().color(QPalette::Base);
  const QColor text = palette().color(QPalette::WindowText);
  QFont cellFont = theme.monospaceFont(1.35, true);
  const double pen = theme.penWidthFactor();
  // Cells narrowed to fit the width (a narrow dock): the digits shrink with them.
  if (const int fits = cellWidth() - 4,
      needed = QFontMetrics(cellFont).horizontalAdvance(QLatin1Char('0'));
      fits < needed && needed > 0 && cellFont.pointSizeF() > 0)
    cellFont.setPointSizeF(std::max(5.0, cellFont.pointSizeF() * fits / needed));

  for (int i = 0; i < m_format.totalBits(); ++i) {
    const QRect r = cellRect(i).adjusted(1, 1, -1, -1);
    const QColor field = fieldOf(i) == Field::Sign       ? palette::kSign
                         : fieldOf(i) == Field::Exponent ? palette::kExponent
                                                         : palette::kMantissa;
    const bool set = (m_bits >> i) & 1u;
    if (m_blank) { // no value: an empty grey cell, no digit
      p.setPen(QPen(palette::blend(text, base, 0.7), pen));
      p.setBrush(palette::blend(text, base, 0.92));
      p.drawRoundedRect(QRectF(r), 3, 3);
      continue;
    }
    const QColor fill = set ? field : palette::blend(field, base, theme.dark() ? 0.78 : 0.8);
    p.setPen(QPen(palette::blend(field, text, 0.35), pen));
    p.setBrush(fill);
    p.drawRoundedRect(QRectF(r), 3, 3);
    if (i == m_hover) {
      p.setPen(QPen(text, 2 * pen));
      p.setBrush(Qt::NoBrush);
      p.drawRoundedRect(QRectF(r).adjusted(-1, -1, 1, 1), 3, 3);
    }
    p.setFont(cellFont);
    p.setPen(set ? Qt::black
                 : (theme.dark() ? QColor(0xDD, 0xDD, 0xDD) : QColor(0x30, 0x30, 0x30)));
    p.drawText(r, Qt::AlignCenter, set ? QStringLiteral("1") : QStringLiteral("0"));
  }

  // Field names under their cells, with a bar in the field colour.
  const QFont labelFont = theme.monospaceFont(0.9);
  const QFontMetrics fm(labelFont);
  p.setFont(labelFont);
  auto label = [&](int hi, int lo, const QColor& color, const QStringList& names) {
    if (hi < lo)
      return;
    const QRect span = cellRect(hi).united(cellRect(lo));
    const int y = span.bottom() + 3;
    p.setPen(Qt::NoPen);
    p.setBrush(color);
    p.drawRect(QRectF(span.left() + 1, y, span.width() - 2, 2.5 * pen));
    QString name;
    for (const QString& n : names)
      if (fm.horizontalAdvance(n) <= span.width() + 2) {
        name = n;
        break;
      }
    p.setPen(text);
    p.drawText(QRect(span.left() - 4, y + 2 * pen, span.width() + 8, fm.height()),
               Qt::AlignHCenter | Qt::AlignTop, name);
  };
  // Under each field its decoded value, shortened to fit the field's width.
  const int top = m_format.totalBits() - 1;
  const int mBits = m_format.mantissaBits;
  const std::uint64_t expField =
      (m_bits >> mBits) & ((std::uint64_t(1) << m_format.exponentBits) - 1);
  const std::uint64_t mantissa = m_bits & ((std::uint64_t(1) << mBits) - 1);
  const std::uint64_t expAllOnes = (std::uint64_t(1) << m_format.exponentBits) - 1;
  const QString minus(QChar(0x2212));
  const std::uint64_t mAllOnes = (std::uint64_t(1) << mBits) - 1;
  const QString mHex = QStringLiteral("0x") + QString::number(mantissa, 16).toUpper();
  QStringList expNames;
  QStringList mantNames;
  const bool ieeeSpecial = expField == expAllOnes && m_format.hasInfinity();
  const bool fnNan = expField == expAllOnes && !m_format.hasInfinity() && mantissa == mAllOnes;
  if (ieeeSpecial || fnNan) {
    const bool nan = fnNan || mantissa != 0;
    expNames = fnNan ? QStringList{tr("%1, m all ones: NaN").arg(expField), tr("NaN")}
                     : QStringList{tr("%1: ∞ or NaN").arg(expField), tr("∞/NaN")};
    mantNames = nan ? QStringList{tr("m %1 → NaN").arg(mHex), tr("NaN"), QString()}
                    : QStringList{tr("m 0 → ∞"), tr("∞"), QString()};
  } else {
    const int unbiased = expField == 0 ? 1 - m_format.bias() : int(expField) - m_format.bias();
    const QString power = powerOfTwoText(unbiased);
    if (expField == 0) {
      const QString what = mantissa == 0 ? tr("zero") : tr("subnormal");
      expNames = {tr("e 0: %1, %2").arg(what, power), tr("0: %1").arg(power), power};
    } else {
      expNames = {tr("e %1 − %2 → %3").arg(expField).arg(m_format.bias()).arg(power),
                  tr("%1−%2→%3").arg(expField).arg(m_format.bias()).arg(power), power};
    }
    const QString lead = expField == 0 ? QStringLiteral("0.m") : QStringLiteral("1.m");
    mantNames = {tr("m %1 → %2").arg(mHex, lead), tr("m %1").arg(mHex), mHex};
  }
  if (m_blank) { // no value: the fields' names, none of the last value's
    label(top, top, palette::kSign, {QString()});
    label(top - 1, mBits, palette::kExponent, {tr("exponent"), tr("exp"), QString()});
    label(mBits - 1, 0, palette::kMantissa, {tr("mantissa"), tr("m"), QString()});
    return;
  }
  label(top, top, palette::kSign, {(m_bits >> top) & 1u ? minus : QStringLiteral("+")});
  label(top - 1, mBits, palette::kExponent, expNames);
  label(mBits - 1, 0, palette::kMantissa, mantNames);
}

void BitCells::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton)
    return QWidget::mousePressEvent(event);
  const int bit = bitAt(event->position().toPoint());
  if (bit >= 0)
    emit bitClicked(bit);
}

void BitCells::mouseMoveEvent(QMouseEvent* event) {
  const int bit = bitAt(event->position().toPoint());
  if (bit != m_hover) {
    m_hover = bit;
    update();
  }
}

void BitCells::leaveEvent(QEvent*) {
  m_hover = -1;
  update();
}

bool BitCells::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int bit = bitAt(help->pos());
    if (bit >= 0)
      QToolTip::showText(help->globalPos(), bitDescription(bit) + tr("\nClick to flip it."), this,
                         cellRect(bit));
    else
      QToolTip::hideText();
    return true;
  }
  return QWidget::event(event);
}

} // namespace mantissa::ui
