// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "curve_chart.h"

#include <mantissa/telemetry/scaling.h>

#include <vector>

namespace mantissa::ui {

// The scale trace of an FP8 / microscaling run: for each scaled tensor of one
// role (inputs X, weights W or output gradients dY), log2 of its scale over
// the steps (solid) and log2 of its amax (dashed), one colour per tensor.
// The scale follows Transformer Engine's convention (value = element /
// scale): per-tensor scaling keeps scale x amax near the format's maximum,
// and delayed scaling shows the lag of its amax history. Block recipes show
// the median of their block scales. Exports like every curve chart.
class TensorScaleChart : public CurveChart {
  Q_OBJECT
public:
  explicit TensorScaleChart(QWidget* parent = nullptr);

  // frames in step order. Shows the tensors of `role`; subject names the run.
  void setFrames(const std::vector<telemetry::ScalingFrame>& frames, telemetry::ScaledRole role,
                 const QString& subject);
  QStringList tensorNames() const { return m_names; } // shown, in first-seen order
  int frameCount() const { return m_frames; }

private:
  void hideSkipLegend();
  QStringList m_names;
  int m_frames = 0;
};

} // namespace mantissa::ui
