// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <mantissa/numeric/format.h>

#include <QWidget>

namespace mantissa::ui {

// A format's range on a log2 axis shared by every format (2^-152 .. 2^132),
// so that strips stacked under each other compare: the subnormal band (min
// subnormal .. min normal), the normal band (.. max finite), and a marker
// where |value| falls, drawn in the warning colour when it lies outside.
class RangeStrip : public QWidget {
  Q_OBJECT
public:
  explicit RangeStrip(const numeric::FloatFormat& format, QWidget* parent = nullptr);

  // `outOfRange`: the value overflows or underflows this format (marker in
  // the warning colour).
  void setValue(double value, bool outOfRange);
  double value() const { return m_value; }
  bool outOfRange() const { return m_outOfRange; }

  static constexpr double kAxisMin = -152.0; // log2
  static constexpr double kAxisMax = 132.0;

  // x position of log2 magnitude `log2Value` (clamped to the axis).
  double xOf(double log2Value) const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

protected:
  void paintEvent(QPaintEvent* event) override;

private:
  QString rangeTooltip() const;

  const numeric::FloatFormat& m_format;
  double m_value = 0.0;
  bool m_outOfRange = false;
};

} // namespace mantissa::ui
