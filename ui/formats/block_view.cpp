// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/formats/block_view.h"

#include "ui/app_shell/palette.h"

#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/value_list.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace mantissa::ui {
namespace {

using namespace numeric;
namespace colors = mantissa::ui::palette;

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

QString binary(std::uint64_t bits, int width) {
  return QStringLiteral("%1").arg(qulonglong(bits), width, 2, QLatin1Char('0'));
}

QString hexBits(std::uint64_t bits, int width) {
  return QStringLiteral("0x%1").arg(qulonglong(bits), (width + 3) / 4, 16, QLatin1Char('0'));
}

QString number(double v) {
  if (std::isnan(v))
    return QStringLiteral("NaN");
  return QString::number(v, 'g', 9);
}

} // namespace

BlockView::BlockView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("blockView"));
  setWindowTitle(tr("Block view"));
  auto* layout = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  auto* label = new QLabel(tr("&Values"));
  m_values = new QLineEdit;
  m_values->setObjectName(QStringLiteral("blockValues"));
  m_values->setPlaceholderText(tr("up to 32 numbers: 7, 1.3, -0.2, 0.1"));
  m_values->setClearButtonEnabled(true);
  label->setBuddy(m_values);
  m_scheme = new QComboBox;
  m_scheme->setObjectName(QStringLiteral("blockScheme"));
  for (BlockScheme s : allSchemes())
    m_scheme->addItem(qs(schemeInfo(s).name), int(s));
  m_scheme->setCurrentIndex(int(BlockScheme::Mxfp4));
  m_scaleRounding = new QComboBox;
  m_scaleRounding->setObjectName(QStringLiteral("scaleRounding"));
  m_scaleRounding->setToolTip(tr("How the shared E8M0 exponent is rounded: floor (OCP MX) can clip "
                                 "the block's maximum; ceil and rceil never do"));
  for (ScaleRounding r : {ScaleRounding::Floor, ScaleRounding::Ceil, ScaleRounding::Even, ScaleRounding::RCeil})
    m_scaleRounding->addItem(tr("scale %1").arg(qs(scaleRoundingName(r))), int(r));
  row->addWidget(label);
  row->addWidget(m_values, 1);
  row->addWidget(m_scheme);
  row->addWidget(m_scaleRounding);
  layout->addLayout(row);

  m_source = new QLabel;
  m_source->setObjectName(QStringLiteral("blockSource"));
  m_source->setWordWrap(true);
  m_source->hide();
  layout->addWidget(m_source);
  m_scale = new QLabel;
  m_scale->setObjectName(QStringLiteral("blockScale"));
  m_scale->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_scale->setWordWrap(true);
  layout->addWidget(m_scale);
  m_message = new QLabel;
  m_message->setObjectName(QStringLiteral("blockMessage"));
  m_message->setWordWrap(true);
  layout->addWidget(m_message);

  m_table = new QTableWidget(0, 6);
  m_table->setObjectName(QStringLiteral("blockElements"));
  m_table->setHorizontalHeaderLabels(
      {tr("input"), tr("bits"), tr("element"), tr("scale"), tr("stored value"), tr("note")});
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setStretchLastSection(true);
  layout->addWidget(m_table, 1);

  connect(m_values, &QLineEdit::textChanged, this, [this] {
    m_source->hide(); // typed by hand: no longer the picked block
    refresh();
  });
  connect(m_scheme, &QComboBox::currentIndexChanged, this, &BlockView::refresh);
  connect(m_scaleRounding, &QComboBox::currentIndexChanged, this, &BlockView::refresh);
  m_values->setText(QStringLiteral("7, 1.3, -0.2, 0.1"));
  refresh();
}

void BlockView::showBlock(const std::vector<double>& values, BlockScheme scheme, ScaleRounding rounding,
                          const QString& source) {
  QStringList text;
  for (std::size_t i = 0; i < values.size() && i < kMaxValues; ++i)
    text << QString::number(values[i], 'g', QLocale::FloatingPointShortest); // round-trips exactly
  const QSignalBlocker a(m_values), b(m_scheme), c(m_scaleRounding);
  m_values->setText(text.join(QStringLiteral(", ")));
  m_values->setCursorPosition(0);
  m_scheme->setCurrentIndex(m_scheme->findData(int(scheme)));
  m_scaleRounding->setCurrentIndex(m_scaleRounding->findData(int(rounding)));
  m_source->setText(tr("From %1").arg(source));
  m_source->show();
  refresh();
}

void BlockView::refresh() {
  const auto scheme = static_cast<BlockScheme>(m_scheme->currentData().toInt());
  const SchemeInfo& info = schemeInfo(scheme);
  m_scaleRounding->setEnabled(info.isMx());
  m_result.reset();
  m_table->setRowCount(0);
  m_scale->clear();

  ValueListLimits limits;
  limits.maxValues = kMaxValues;
  const std::string text = m_values->text().toStdString();
  const ValueListResult parsed = parseValueList(text, limits);
  const QString warning = QStringLiteral("color:%1").arg(colors::kWarning.name());
  if (!parsed.error.empty() || parsed.values.empty()) {
    m_message->setStyleSheet(warning);
    m_message->setText(parsed.error.empty() ? tr("Type up to %1 numbers").arg(kMaxValues)
                                            : tr("Column %1: %2")
                                                  .arg(parsed.column)
                                                  .arg(qs(parsed.error.substr(parsed.error.find(": ") + 2))));
    return;
  }
  m_message->setStyleSheet({});
  m_message->clear();

  QuantizeOptions options;
  options.scaleRounding = static_cast<ScaleRounding>(m_scaleRounding->currentData().toInt());
  m_result = quantize(parsed.values, scheme, options);
  const QuantizedTensor& q = *m_result;
  const FloatFormat& ef = formatInfo(info.element);
  const FloatFormat& sf = formatInfo(info.scale);

  QStringList scales;
  for (std::size_t b = 0; b < q.blocks.size(); ++b) {
    const QuantBlock& blk = q.blocks[b];
    QString value = std::isnan(blk.scale) ? QStringLiteral("NaN")
                    : info.isMx()         ? QStringLiteral("2^%1").arg(blk.scaleExponent)
                                          : number(blk.scale);
    scales << tr("%1 scale %2 (%3) = %4, block max %5%6")
                  .arg(qs(sf.name), binary(blk.scaleBits, sf.totalBits()), hexBits(blk.scaleBits, sf.totalBits()),
                       value, number(blk.amax), blk.maxClipped ? tr(" — clipped") : QString());
  }
  if (scheme == BlockScheme::Nvfp4)
    scales << tr("fp32 tensor scale %1 = %2").arg(hexBits(q.tensorScaleBits, 32), number(q.tensorScale));
  m_scale->setText(scales.join(QLatin1Char('\n')));

  const std::size_t n = parsed.values.size();
  m_table->setRowCount(int(n));
  for (std::size_t i = 0; i < n; ++i) {
    const int r = int(i);
    const QuantBlock& blk = q.blocks[q.blockOf[i]];
    QString note;
    QColor tint;
    if (q.flags[i] & kNotFinite) {
      note = tr("not finite: the block is NaN");
      tint = colors::kWarning;
    } else if (q.flags[i] & kSaturated) {
      note = tr("clipped to the element maximum");
      tint = colors::kWarning;
    } else if (q.flags[i] & kLostToZero) {
      note = tr("lost to zero");
      tint = colors::kSkyBlue;
    } else if (q.flags[i] & kSubnormal) {
      note = tr("subnormal element");
    }
    const QStringList cells{number(parsed.values[i]),
                            binary(q.elementBits[i], ef.totalBits()),
                            number(q.elementValue[i]),
                            std::isnan(blk.scale) ? QStringLiteral("NaN") : number(blk.scale * q.tensorScale),
                            number(q.dequantized[i]),
                            note};
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (tint.isValid())
        item->setBackground(colors::blend(tint, QWidget::palette().color(QPalette::Base), 0.7));
      m_table->setItem(r, c, item);
    }
  }
}

} // namespace mantissa::ui
