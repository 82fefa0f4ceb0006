// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/panels/watch_panel.h"

#include "ui/app_shell/palette.h"
#include "ui/charts/steady_label.h"
#include "ui/formats/bit_cells.h"

#include <mantissa/numeric/convert.h>
#include <mantissa/numeric/format.h>

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <bit>
#include <cmath>

namespace mantissa::ui {

namespace {

double decode(DType d, std::uint32_t bits) {
  switch (d) {
  case DType::BF16:
    return numeric::bf16ToF32(numeric::Bf16Bits(bits));
  case DType::F16:
    return numeric::f16ToF32(numeric::F16Bits(bits));
  case DType::F32:
    break;
  }
  return std::bit_cast<float>(bits);
}

QString number(double v) { return QString::number(v, 'g', 9); }

} // namespace

WatchPanel::WatchPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("watchPanel"));
  auto* layout = new QVBoxLayout(this);
  auto* pick = new QHBoxLayout;
  m_layer = new QSpinBox;
  m_row = new QSpinBox;
  m_col = new QSpinBox;
  m_layer->setObjectName(QStringLiteral("watchLayer"));
  pick->addWidget(new QLabel(tr("Layer")));
  pick->addWidget(m_layer);
  pick->addWidget(new QLabel(tr("W row (input)")));
  pick->addWidget(m_row);
  pick->addWidget(new QLabel(tr("column (output)")));
  pick->addWidget(m_col);
  pick->addStretch(1);
  layout->addLayout(pick);
  for (QSpinBox* s : {m_layer, m_row, m_col})
    connect(s, &QSpinBox::valueChanged, this, &WatchPanel::emitRequest);
  connect(m_layer, &QSpinBox::valueChanged, this, [this](int l) {
    if (l + 1 < int(m_widths.size())) {
      m_row->setMaximum(m_widths[std::size_t(l)] - 1);
      m_col->setMaximum(m_widths[std::size_t(l) + 1] - 1);
    }
  });

  auto* grid = new QGridLayout;
  m_masterTitle = new QLabel(tr("FP32 master"));
  m_masterValue = new QLabel;
  m_master = new BitCells(numeric::formatInfo(numeric::FormatId::Fp32));
  m_master->setObjectName(QStringLiteral("watchMasterBits"));
  grid->addWidget(m_masterTitle, 0, 0);
  grid->addWidget(m_masterValue, 0, 1);
  grid->addWidget(m_master, 1, 0, 1, 2);
  m_workingTitle = new QLabel(tr("Working precision"));
  m_workingValue = new QLabel;
  m_workingStack = new QStackedWidget;
  const numeric::FormatId ids[3] = {numeric::FormatId::Fp32, numeric::FormatId::Bf16,
                                    numeric::FormatId::Fp16};
  for (int i = 0; i < 3; ++i) {
    m_working[i] = new BitCells(numeric::formatInfo(ids[i]));
    m_working[i]->setObjectName(QStringLiteral("watchWorkingBits"));
    m_workingStack->addWidget(m_working[i]);
  }
  grid->addWidget(m_workingTitle, 2, 0);
  grid->addWidget(m_workingValue, 2, 1);
  grid->addWidget(m_workingStack, 3, 0, 1, 2);
  grid->setColumnStretch(1, 1);
  // Long values and titles wrap rather than widen the panel past its dock,
  // which cut the bit cells off at the right edge.
  for (QLabel* label : {m_masterTitle, m_masterValue, m_workingTitle, m_workingValue})
    label->setWordWrap(true);
  layout->addLayout(grid);
  m_gradient = new QLabel;
  m_live = new QLabel;
  m_live->setObjectName(QStringLiteral("watchLive"));
  m_live->hide();
  m_swamp = new QLabel;
  m_swamp->setObjectName(QStringLiteral("watchSwamp"));
  m_swamp->setWordWrap(true);
  layout->addWidget(m_gradient);
  layout->addWidget(m_live);
  layout->addWidget(m_swamp);
  layout->addStretch(1);
  m_gradient->setText(tr("Start a run to watch one of its weights. Tip: click a bar of the "
                         "gradient histogram to pick a weight from that binade."));
  m_gradient->setWordWrap(true);
}

void WatchPanel::setModelWidths(const std::vector<int>& widths) {
  m_widths = widths;
  const QSignalBlocker b1(m_layer), b2(m_row), b3(m_col);
  m_layer->setMaximum(std::max(0, int(widths.size()) - 2));
  const int l = m_layer->value();
  if (l + 1 < int(widths.size())) {
    m_row->setMaximum(widths[std::size_t(l)] - 1);
    m_col->setMaximum(widths[std::size_t(l) + 1] - 1);
  }
}

int WatchPanel::layer() const { return m_layer->value(); }

std::int64_t WatchPanel::flatIndex() const {
  const int l = m_layer->value();
  const int cols = l + 1 < int(m_widths.size()) ? m_widths[std::size_t(l) + 1] : 1;
  return std::int64_t(m_row->value()) * cols + m_col->value();
}

void WatchPanel::emitRequest() { emit watchRequested(layer(), flatIndex()); }

const BitCells* WatchPanel::workingBits() const {
  return static_cast<const BitCells*>(m_workingStack->currentWidget());
}

QString WatchPanel::swampText() const { return m_swamp->text(); }

void WatchPanel::showSearching(const QString& what, int exponent) {
  m_live->hide();
  m_gradient->show();
  m_gradient->setText(tr("Looking for a weight whose %1 lies in [2^%2, 2^%3): picked at the "
                         "next training step.")
                          .arg(what)
                          .arg(exponent)
                          .arg(exponent + 1));
}

void WatchPanel::setSample(const std::optional<WatchSample>& sample, std::int64_t step) {
  if (!sample)
    return;
  const WatchSample& s = *sample;
  if (s.layer != m_layer->value() || s.index != flatIndex()) {
    // The trainer picked another element (histogram click): follow it.
    const QSignalBlocker b1(m_layer), b2(m_row), b3(m_col);
    m_layer->setValue(s.layer);
    const int cols = s.layer + 1 < int(m_widths.size()) ? m_widths[std::size_t(s.layer) + 1] : 1;
    if (s.layer + 1 < int(m_widths.size())) {
      m_row->setMaximum(m_widths[std::size_t(s.layer)] - 1);
      m_col->setMaximum(cols - 1);
    }
    m_row->setValue(int(s.index / cols));
    m_col->setValue(int(s.index % cols));
  }
  m_masterTitle->setText(s.hasMaster ? tr("FP32 master copy")
                                     : tr("FP32 storage (no master copy: holds the %1 value)")
                                           .arg(QString::fromLatin1(dtypeName(s.working).data())
                                                    .toUpper()));
  // The texts that change at every step keep their label's size (the widest
  // so far): a new value repaints the label, not the page around it.
  setSteadyText(m_masterValue, number(s.master), false);
  m_master->setBits(std::bit_cast<std::uint32_t>(s.master));
  const int slot = s.working == DType::BF16 ? 1 : s.working == DType::F16 ? 2 : 0;
  m_workingStack->setCurrentIndex(slot);
  m_working[slot]->setBits(s.workingBits);
  m_workingTitle->setText(tr("Working precision: %1 (what the matmuls read)")
                              .arg(QString::fromLatin1(dtypeName(s.working).data()).toUpper()));
  const double working = decode(s.working, s.workingBits);
  setSteadyText(m_workingValue, working == double(s.master)
                                   ? number(working)
                                   : tr("%1  (rounding error %2)")
                                         .arg(number(working), number(working - double(s.master))),
                false);
  m_gradient->hide(); // the tip, or the search started by a histogram click
  m_live->show();
  setSteadyText(m_live, tr("Step %1 · W[%2] of layer %3 · gradient %4")
                            .arg(step)
                            .arg(s.index)
                            .arg(s.layer)
                            .arg(number(s.gradient)),
                false);
  const QString mark =
      s.swamped ? tr("<b style='color:%1'>⚠ Update swamped at step %2</b>: the gradient was "
                     "non-zero but the stored weight did not change. ")
                      .arg(palette::kWarning.name())
                      .arg(step)
                : QString();
  m_swamp->setText(mark + tr("Swamped updates of this weight so far: %1").arg(s.swampedSoFar));
}

} // namespace mantissa::ui
