// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <QLayout>
#include <QList>

namespace mantissa::ui {

// Buttons of one kind (recipes, presets) in equal cells, as many columns as
// the width holds: two in a 300 px dock at the screen font, one when the
// font is large or the dock narrow, three when it is wide. Nothing is cut,
// and the cells line up like a grid. Heights follow the width
// (heightForWidth), so a scroll area around it grows as it wraps.
class ChipGridLayout : public QLayout {
public:
  explicit ChipGridLayout(QWidget* parent = nullptr);
  ~ChipGridLayout() override;

  void addItem(QLayoutItem* item) override;
  int count() const override;
  QLayoutItem* itemAt(int index) const override;
  QLayoutItem* takeAt(int index) override;

  Qt::Orientations expandingDirections() const override;
  bool hasHeightForWidth() const override;
  int heightForWidth(int width) const override;
  QSize minimumSize() const override;
  QSize sizeHint() const override;
  void setGeometry(const QRect& rect) override;

  // The columns a layout this wide (margins included) shows.
  int columnsFor(int width) const;

private:
  QSize cell() const; // every item's size hint, the widest and tallest
  int hSpacing() const;
  int vSpacing() const;
  int heightFor(int columns) const; // margins included

  QList<QLayoutItem*> m_items;
};

} // namespace mantissa::ui
