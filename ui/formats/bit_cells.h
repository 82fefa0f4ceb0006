// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <mantissa/numeric/format.h>

#include <QWidget>

#include <cstdint>

namespace mantissa::ui {

// One cell per bit, most significant on the left, coloured by field (sign,
// exponent, mantissa) with each field's decoded value underneath. Set bits are drawn in
// the full field colour, clear bits in a pale tint. Clicking a cell emits
// bitClicked(index) with index 0 = least significant bit. Every format gets
// room for 32 cells so that stacked rows line up bit for bit.
class BitCells : public QWidget {
  Q_OBJECT
public:
  explicit BitCells(const numeric::FloatFormat& format, QWidget* parent = nullptr);

  void setBits(std::uint64_t bits);
  // Blank: empty grey cells, no digits (the input does not give a value).
  void setBlank(bool blank);
  bool isBlank() const { return m_blank; }
  std::uint64_t bits() const { return m_bits; }
  const numeric::FloatFormat& format() const { return m_format; }

  // Cell rectangle of bit `index` (0 = least significant), in widget coordinates.
  QRect cellRect(int index) const;
  // The bit under `pos`, or -1.
  int bitAt(QPoint pos) const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

  static constexpr int kLayoutBits = 32;

signals:
  void bitClicked(int index);

protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  bool event(QEvent* event) override;

private:
  enum class Field { Sign, Exponent, Mantissa };
  Field fieldOf(int index) const;
  QString bitDescription(int index) const;
  int cellWidth() const;
  int cellHeight() const;
  int fieldGap() const;

  const numeric::FloatFormat& m_format;
  std::uint64_t m_bits = 0;
  bool m_blank = false;
  int m_hover = -1;
};

} // namespace mantissa::ui
