// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "curve_chart.h"

namespace mantissa::ui {

// Train and test loss per run, linear or log y, skipped steps marked.
class LossChart : public CurveChart {
  Q_OBJECT
public:
  explicit LossChart(QWidget* parent = nullptr)
      : CurveChart(tr("Loss"), tr("cross-entropy loss (nats)"), true, parent) {}
};

// Train and test accuracy per run, in percent.
class AccuracyChart : public CurveChart {
  Q_OBJECT
public:
  explicit AccuracyChart(QWidget* parent = nullptr)
      : CurveChart(tr("Accuracy"), tr("accuracy (%)"), false, parent) {
    setYCeiling(100.0);
  }
};

} // namespace mantissa::ui
