// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "ui/formats/explorer_model.h"

#include <QFrame>

class QGridLayout;
class QLabel;
class QToolButton;

namespace mantissa::ui {

class BitCells;
class RangeStrip;

// One format's row in the Float Explorer: name, bit cells, range strip, the
// decoded fields, exact stored value, rounding error, ULP, neighbours, class,
// overflow/underflow flags, and buttons to step one ULP.
class FormatCard : public QFrame {
  Q_OBJECT
public:
  explicit FormatCard(const numeric::FloatFormat& format, QWidget* parent = nullptr);

  void showReading(const FormatReading& reading, double typedValue);
  // The input does not parse: no value, no bits (nothing stale from before).
  void showNoValue();
  bool showsValue() const { return m_showsValue; }
  void setSelected(bool selected);
  // The explorer gives every card the same bit-cell width so that rows line up.
  void setBitsWidth(int width);
  int nameColumnWidth() const;
  // Narrow windows: the details go under the bits instead of beside them.
  void setCompact(bool compact);
  bool isCompact() const { return m_compact; }
  bool isSelected() const { return m_selected; }

  const numeric::FloatFormat& format() const { return m_format; }
  BitCells* bitCells() const { return m_bits; }
  RangeStrip* rangeStrip() const { return m_strip; }
  // True when the shown value overflowed or underflowed in this format.
  bool flagged() const { return m_flagged; }

signals:
  void bitClicked(mantissa::numeric::FormatId id, int bit);
  void stepRequested(mantissa::numeric::FormatId id, int direction);
  void activated(mantissa::numeric::FormatId id);

protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

private:
  QLabel* caption(const QString& text);
  void applyFonts();

  const numeric::FloatFormat& m_format;
  BitCells* m_bits = nullptr;
  RangeStrip* m_strip = nullptr;
  QLabel* m_name = nullptr;
  QLabel* m_widths = nullptr;
  QLabel* m_hex = nullptr;
  QLabel* m_class = nullptr;
  QLabel* m_flags = nullptr;
  QLabel* m_stored = nullptr;
  QLabel* m_error = nullptr;
  QLabel* m_ulp = nullptr;
  QLabel* m_neighbours = nullptr;
  QList<QLabel*> m_captions;
  QToolButton* m_up = nullptr;
  QToolButton* m_down = nullptr;
  QGridLayout* m_grid = nullptr;
  QGridLayout* m_details = nullptr;
  bool m_compact = false;
  bool m_selected = false;
  bool m_flagged = false;
  bool m_showsValue = true;
};

} // namespace mantissa::ui
