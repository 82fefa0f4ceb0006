// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/panels/chip_grid_layout.h"

#include <QStyle>
#include <QWidget>

#include <algorithm>

namespace mantissa::ui {

ChipGridLayout::ChipGridLayout(QWidget* parent) : QLayout(parent) {}

ChipGridLayout::~ChipGridLayout() {
  while (QLayoutItem* item = takeAt(0))
    delete item;
}

void ChipGridLayout::addItem(QLayoutItem* item) { m_items.append(item); }
int ChipGridLayout::count() const { return int(m_items.size()); }
QLayoutItem* ChipGridLayout::itemAt(int index) const {
  return index >= 0 && index < m_items.size() ? m_items.at(index) : nullptr;
}
QLayoutItem* ChipGridLayout::takeAt(int index) {
  return index >= 0 && index < m_items.size() ? m_items.takeAt(index) : nullptr;
}

Qt::Orientations ChipGridLayout::expandingDirections() const { return Qt::Horizontal; }
bool ChipGridLayout::hasHeightForWidth() const { return true; }

QSize ChipGridLayout::cell() const {
  QSize c(0, 0);
  for (const QLayoutItem* item : m_items)
    if (!item->isEmpty())
      c = c.expandedTo(item->sizeHint());
  return c;
}

// The style's spacing between controls, unless one was set.
int ChipGridLayout::hSpacing() const {
  if (spacing() >= 0)
    return spacing();
  const QWidget* w = parentWidget();
  return w ? w->style()->pixelMetric(QStyle::PM_LayoutHorizontalSpacing, nullptr, w) : 6;
}
int ChipGridLayout::vSpacing() const {
  if (spacing() >= 0)
    return spacing();
  const QWidget* w = parentWidget();
  return w ? w->style()->pixelMetric(QStyle::PM_LayoutVerticalSpacing, nullptr, w) : 6;
}

int ChipGridLayout::columnsFor(int width) const {
  const QMargins m = contentsMargins();
  const int inner = width - m.left() - m.right();
  const int c = std::max(1, cell().width());
  return std::clamp((inner + hSpacing()) / (c + hSpacing()), 1, std::max(1, count()));
}

int ChipGridLayout::heightFor(int columns) const {
  const QMargins m = contentsMargins();
  const int rows = (count() + columns - 1) / std::max(1, columns);
  return m.top() + m.bottom() + rows * cell().height() + std::max(0, rows - 1) * vSpacing();
}

int ChipGridLayout::heightForWidth(int width) const { return heightFor(columnsFor(width)); }

QSize ChipGridLayout::minimumSize() const {
  const QMargins m = contentsMargins();
  return {m.left() + m.right() + cell().width(), heightFor(1)};
}

QSize ChipGridLayout::sizeHint() const {
  const QMargins m = contentsMargins();
  const int columns = std::min(2, std::max(1, count()));
  return {m.left() + m.right() + columns * cell().width() + (columns - 1) * hSpacing(), heightFor(columns)};
}

void ChipGridLayout::setGeometry(const QRect& rect) {
  QLayout::setGeometry(rect);
  const QRect inner = rect.marginsRemoved(contentsMargins());
  const int columns = columnsFor(rect.width());
  const int gap = hSpacing();
  // The cells share the width: the grid fills its box as a QGridLayout would.
  const int width = std::max(cell().width(), (inner.width() - (columns - 1) * gap) / columns);
  const int height = cell().height();
  int i = 0;
  for (QLayoutItem* item : m_items) {
    if (item->isEmpty())
      continue;
    const int row = i / columns;
    const int col = i % columns;
    item->setGeometry(QRect(inner.left() + col * (width + gap), inner.top() + row * (height + vSpacing()),
                            width, height));
    ++i;
  }
}

} // namespace mantissa::ui
