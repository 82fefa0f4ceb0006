// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <QLayout>
#include <QList>

namespace mantissa::ui {

// Lays its items left to right and wraps onto the next line when the width
// runs out (the lesson's link buttons in a narrow presenter column).
class FlowLayout : public QLayout {
public:
  explicit FlowLayout(QWidget* parent = nullptr, int spacing = 6);
  ~FlowLayout() override;

  void addItem(QLayoutItem* item) override;
  int count() const override { return static_cast<int>(m_items.size()); }
  QLayoutItem* itemAt(int index) const override;
  QLayoutItem* takeAt(int index) override;

  Qt::Orientations expandingDirections() const override { return {}; }
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  QSize minimumSize() const override;
  QSize sizeHint() const override;
  void setGeometry(const QRect& rect) override;

private:
  // Places the items in `rect` (or only measures when !apply); returns the height used.
  int arrange(const QRect& rect, bool apply) const;

  QList<QLayoutItem*> m_items;
  int m_spacing;
};

} // namespace mantissa::ui
