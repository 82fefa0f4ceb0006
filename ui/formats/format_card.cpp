// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/formats/format_card.h"

#include "ui/app_shell/palette.h"
#include "ui/app_shell/theme.h"
#include "ui/formats/bit_cells.h"
#include "ui/formats/number_text.h"
#include "ui/formats/range_strip.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QToolButton>

#include <cmath>
#include <limits>

namespace mantissa::ui {
namespace {

using numeric::FloatClass;

QString qs(std::string_view s) {
  return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

QString className(const numeric::Decoded& d) {
  switch (d.cls) {
  case FloatClass::Zero: return d.negative ? QObject::tr("zero (−0)") : QObject::tr("zero");
  case FloatClass::Subnormal: return QObject::tr("subnormal");
  case FloatClass::Normal: return QObject::tr("normal");
  case FloatClass::Infinity: return d.negative ? QObject::tr("−infinity") : QObject::tr("infinity");
  case FloatClass::NaN: return QObject::tr("NaN");
  }
  return {};
}

QString hexOf(const numeric::FloatFormat& f, std::uint64_t bits) {
  const int digits = (f.totalBits() + 3) / 4;
  return QStringLiteral("0x") + QString::number(bits, 16).toUpper().rightJustified(digits, u'0');
}

QString fieldsText(const numeric::FloatFormat& f, const numeric::Decoded& d) {
  const QString minus(QChar(0x2212));
  QString e = QObject::tr("e %1").arg(d.biasedExponent);
  if (d.cls == FloatClass::Normal || d.cls == FloatClass::Subnormal || d.cls == FloatClass::Zero)
    e += QStringLiteral(" → 2%1").arg(powerOfTwoText(d.unbiasedExponent).mid(1));
  const int mDigits = (f.mantissaBits + 3) / 4;
  const QString m = QStringLiteral("0x") +
                    QString::number(d.mantissa, 16).toUpper().rightJustified(mDigits, u'0');
  return QObject::tr("s %1 · %2 · m %3 · %4.m")
      .arg(d.negative ? 1 : 0)
      .arg(e, m)
      .arg(d.implicitBit)
      .replace(u'-', minus);
}

QString flagsText(const FormatReading& r) {
  if (r.overflowed) {
    // Saturation (or a directed rounding that stops at max) leaves a finite value.
    if (r.decoded.cls == FloatClass::Normal)
      return QObject::tr("OVERFLOW: clamped to max");
    if (r.decoded.cls == FloatClass::NaN)
      return QObject::tr("OVERFLOW → NaN (no ∞ here)");
    return QObject::tr("OVERFLOW → ∞");
  }
  if (r.underflowed)
    return r.flushed ? QObject::tr("UNDERFLOW: flushed to 0 (FTZ)") : QObject::tr("UNDERFLOW → 0");
  if (r.flushed)
    return QObject::tr("flushed to 0 (FTZ)");
  return {};
}

} // namespace

FormatCard::FormatCard(const numeric::FloatFormat& format, QWidget* parent)
    : QFrame(parent), m_format(format) {
  setObjectName(QStringLiteral("card_") + qs(format.name));
  setAutoFillBackground(false);
  auto* grid = m_grid = new QGridLayout(this);
  grid->setContentsMargins(14, 8, 10, 8);
  grid->setHorizontalSpacing(14);
  grid->setVerticalSpacing(4);

  m_name = new QLabel(qs(format.displayName));
  m_name->setObjectName(QStringLiteral("name"));
  m_widths = new QLabel(tr("%1 bits\n1 · %2 · %3")
                            .arg(format.totalBits())
                            .arg(format.exponentBits)
                            .arg(format.mantissaBits));
  m_widths->setToolTip(tr("sign · exponent · mantissa bits; bias %1").arg(format.bias()));
  m_bits = new BitCells(format);
  m_strip = new RangeStrip(format);
  grid->addWidget(m_name, 0, 0, Qt::AlignLeft | Qt::AlignTop);
  grid->addWidget(m_widths, 1, 0, Qt::AlignLeft | Qt::AlignTop);
  grid->addWidget(m_bits, 0, 1);
  grid->addWidget(m_strip, 1, 1, Qt::AlignTop);

  auto* details = m_details = new QGridLayout;
  details->setHorizontalSpacing(10);
  details->setVerticalSpacing(2);
  auto* head = new QHBoxLayout;
  head->setSpacing(16);
  m_hex = new QLabel;
  m_hex->setObjectName(QStringLiteral("bitsHex"));
  m_hex->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_class = new QLabel;
  m_class->setObjectName(QStringLiteral("classText"));
  m_flags = new QLabel;
  m_flags->setObjectName(QStringLiteral("flags"));
  m_flags->setVisible(false);
  head->addWidget(m_hex);
  head->addWidget(m_class, 1);
  details->addLayout(head, 0, 0, 1, 2);
  details->addWidget(m_flags, 1, 0, 1, 2);
  auto addRow = [&](int row, const QString& name, QLabel*& label, const char* objectName) {
    label = new QLabel;
    label->setObjectName(QLatin1String(objectName));
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    details->addWidget(caption(name), row, 0, Qt::AlignLeft | Qt::AlignTop);
    details->addWidget(label, row, 1, Qt::AlignTop);
  };
  addRow(2, tr("stored"), m_stored, "storedValue");
  addRow(3, tr("error"), m_error, "error");
  addRow(4, tr("ULP"), m_ulp, "ulp");
  addRow(5, tr("next"), m_neighbours, "neighbours");
  details->setColumnStretch(1, 1);
  grid->addLayout(details, 0, 2, 3, 1);

  m_up = new QToolButton;
  m_up->setObjectName(QStringLiteral("stepUp"));
  m_up->setText(QStringLiteral("▲"));
  m_up->setToolTip(tr("Next %1 value up (+1 ULP)").arg(qs(format.displayName)));
  m_down = new QToolButton;
  m_down->setObjectName(QStringLiteral("stepDown"));
  m_down->setText(QStringLiteral("▼"));
  m_down->setToolTip(tr("Next %1 value down (−1 ULP)").arg(qs(format.displayName)));
  grid->addWidget(m_up, 0, 3, Qt::AlignTop);
  grid->addWidget(m_down, 1, 3, Qt::AlignTop);
  grid->setColumnStretch(2, 1);
  grid->setRowStretch(2, 1);
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);

  connect(m_bits, &BitCells::bitClicked, this, [this](int bit) {
    emit activated(m_format.id);
    emit bitClicked(m_format.id, bit);
  });
  connect(m_up, &QToolButton::clicked, this, [this] {
    emit activated(m_format.id);
    emit stepRequested(m_format.id, +1);
  });
  connect(m_down, &QToolButton::clicked, this, [this] {
    emit activated(m_format.id);
    emit stepRequested(m_format.id, -1);
  });
  connect(&Theme::instance(), &Theme::changed, this, &FormatCard::applyFonts);
  applyFonts();
}

QLabel* FormatCard::caption(const QString& text) {
  auto* label = new QLabel(text);
  m_captions << label;
  return label;
}

void FormatCard::applyFonts() {
  const Theme& t = Theme::instance();
  m_name->setFont(t.uiFont(1.45, true));
  m_widths->setFont(t.uiFont(0.85));
  m_hex->setFont(t.monospaceFont(1.25, true));
  m_class->setFont(t.uiFont(1.1, true));
  m_flags->setFont(t.uiFont(1.1, true));
  for (QLabel* l : {m_stored, m_error, m_ulp, m_neighbours})
    l->setFont(t.monospaceFont(1.1));
  for (QLabel* l : m_captions) {
    l->setFont(t.uiFont(1.0));
    l->setForegroundRole(QPalette::PlaceholderText);
  }
  for (QToolButton* b : {m_up, m_down}) {
    b->setFont(t.uiFont(1.1));
    b->setMinimumSize(QSize(34, 28) * t.fontScale());
  }
  m_name->setMinimumWidth(
      QFontMetrics(m_name->font()).horizontalAdvance(QStringLiteral("FP8 E4M3")));
}

void FormatCard::showNoValue() {
  m_showsValue = false;
  m_bits->setBlank(true);
  const QString none = QStringLiteral("—");
  for (QLabel* label : {m_hex, m_stored, m_error, m_ulp, m_neighbours})
    label->setText(none);
  for (QLabel* label : {m_hex, m_stored, m_neighbours})
    label->setToolTip({});
  m_class->clear();
  m_flags->clear();
  m_flags->setVisible(false);
  m_flagged = false;
  m_strip->setValue(std::numeric_limits<double>::quiet_NaN(), false);
  update();
}

void FormatCard::showReading(const FormatReading& r, double typedValue) {
  m_showsValue = true;
  m_bits->setBlank(false);
  const numeric::Decoded& d = r.decoded;
  const int digits = distinguishingDigits(m_format);
  m_bits->setBits(r.bits);
  m_hex->setText(hexOf(m_format, r.bits));
  if (m_format.id == numeric::FormatId::Bf16 && d.cls == FloatClass::Subnormal) {
    // The format has subnormals; Mantissa's FP32 -> BF16 casts (as
    // VCVTNEPS2BF16) flush them, so training never stores this value.
    m_class->setText(tr("subnormal (training casts flush it to 0)"));
    m_class->setToolTip(tr("BF16 has subnormals, but the FP32 to BF16 casts of training flush "
                           "them to zero, as the VCVTNEPS2BF16 instruction does: a value this "
                           "small becomes 0 in a training run."));
  } else {
    m_class->setText(className(d));
    m_class->setToolTip({});
  }
  m_hex->setToolTip(fieldsText(m_format, d) + u'\n' + QString::fromStdString(d.formula));
  m_stored->setText(exactDigitsText(d.exactDecimal));
  m_stored->setToolTip(tr("The exact value these bits store, every digit"));

  // Flags in words; the colour comes from paintEvent and the label's palette.
  const QString flags = flagsText(r);
  m_flagged = r.overflowed || r.underflowed;
  m_flags->setText(flags);
  m_flags->setVisible(!flags.isEmpty());
  QPalette warn = m_flags->palette();
  warn.setColor(QPalette::WindowText, palette::kWarning);
  m_flags->setPalette(warn);

  if (std::isnan(r.absError)) {
    m_error->setText(tr("n/a (NaN)"));
  } else if (r.absError == 0.0) {
    m_error->setText(r.isSource ? tr("exact (bits set here)") : tr("exact"));
  } else {
    m_error->setText(
        tr("%1  (rel %2)").arg(shortNumber(r.absError, 3, true), shortNumber(r.relError, 3, true)));
  }

  if (std::isnan(r.ulp)) {
    m_ulp->setText(d.cls == FloatClass::NaN ? tr("n/a (NaN)") : tr("n/a (∞)"));
    m_neighbours->setText(d.cls == FloatClass::NaN ? tr("NaN stays NaN") : tr("n/a (∞)"));
    m_neighbours->setToolTip({});
  } else {
    const numeric::Decoded prev = numeric::decode(m_format, r.prevBits);
    const numeric::Decoded next = numeric::decode(m_format, r.nextBits);
    m_ulp->setText(tr("%1 ≈ %2").arg(powerOfTwoText(r.ulp), shortNumber(r.ulp, 3)));
    m_ulp->setToolTip(
        tr("ULP: the spacing of %1 values around this one").arg(qs(m_format.displayName)));
    // At the format's end the neighbour is what a value beyond converts to.
    const auto shown = [&](numeric::NeighbourKind kind, const numeric::Decoded& n) {
      switch (kind) {
      case numeric::NeighbourKind::NaN: return tr("NaN");
      case numeric::NeighbourKind::Saturates:
        return tr("saturates at %1").arg(shortNumber(n.value, digits));
      case numeric::NeighbourKind::None: return tr("none");
      case numeric::NeighbourKind::Value:
      case numeric::NeighbourKind::Infinity: break;
      }
      return shortNumber(n.value, digits);
    };
    const auto exact = [&](numeric::NeighbourKind kind, const numeric::Decoded& n, bool up) {
      const QString end = up ? tr("no larger value") : tr("no smaller value");
      switch (kind) {
      case numeric::NeighbourKind::NaN: return tr("%1; a value beyond converts to NaN").arg(end);
      case numeric::NeighbourKind::Saturates:
        return tr("%1; a value beyond saturates to %2")
            .arg(end, QString::fromStdString(n.exactDecimal));
      case numeric::NeighbourKind::None: return tr("nothing beyond");
      case numeric::NeighbourKind::Value:
      case numeric::NeighbourKind::Infinity: break;
      }
      return QString::fromStdString(n.exactDecimal);
    };
    m_neighbours->setText(tr("↓ %1  ↑ %2").arg(shown(r.prevKind, prev), shown(r.nextKind, next)));
    m_neighbours->setToolTip(tr("Neighbouring %1 values, exactly\nbelow: %2\nabove: %3")
                                 .arg(qs(m_format.displayName), exact(r.prevKind, prev, false),
                                      exact(r.nextKind, next, true)));
  }
  m_strip->setValue(typedValue, m_flagged);
  update();
}

void FormatCard::setBitsWidth(int width) {
  m_bits->setFixedWidth(width);
  m_strip->setFixedWidth(width);
}

int FormatCard::nameColumnWidth() const {
  return m_name->minimumWidth();
}

void FormatCard::setCompact(bool compact) {
  if (compact == m_compact)
    return;
  m_compact = compact;
  m_grid->removeItem(m_details);
  if (compact)
    m_grid->addLayout(m_details, 2, 1, 1, 2);
  else
    m_grid->addLayout(m_details, 0, 2, 3, 1);
}

void FormatCard::setSelected(bool selected) {
  if (selected == m_selected)
    return;
  m_selected = selected;
  update();
}

void FormatCard::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const double pen = Theme::instance().penWidthFactor();
  const QColor base = palette().color(QPalette::Base);
  const QColor border =
      m_selected ? palette().color(QPalette::Highlight) : palette().color(QPalette::Mid);
  const QRectF r = QRectF(rect()).adjusted(1.5, 1.5, -1.5, -1.5);
  p.setBrush(m_flagged ? palette::blend(palette::kWarning, base, 0.9) : base);
  p.setPen(QPen(border, (m_selected ? 2.5 : 1.0) * pen));
  p.drawRoundedRect(r, 6, 6);
  if (m_flagged) {
    p.setPen(Qt::NoPen);
    p.setBrush(palette::kWarning);
    p.drawRoundedRect(QRectF(r.left(), r.top(), 6, r.height()), 3, 3);
  }
}

void FormatCard::mousePressEvent(QMouseEvent* event) {
  emit activated(m_format.id);
  QFrame::mousePressEvent(event);
}

} // namespace mantissa::ui
