// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "tensor_scale_chart.h"

#include <QChart>
#include <QLegend>
#include <QLegendMarker>

#include <cmath>
#include <map>

namespace mantissa::ui {

TensorScaleChart::TensorScaleChart(QWidget* parent)
    : CurveChart(tr("Tensor scales"), tr("log2"), false, parent) {
  setObjectName(QStringLiteral("tensorScaleChart"));
}

void TensorScaleChart::hideSkipLegend() {
  // Scaled recipes skip no steps: the curve chart's skip mark has no place here.
  for (QLegendMarker* marker : chart()->legend()->markers())
    if (marker->series() != nullptr && marker->series()->type() == QAbstractSeries::SeriesTypeScatter)
      marker->setVisible(false);
}

void TensorScaleChart::setFrames(const std::vector<telemetry::ScalingFrame>& frames, telemetry::ScaledRole role,
                                 const QString& subject) {
  struct Curves {
    QList<QPointF> scale, amax;
  };
  std::map<QString, Curves> curves;
  QStringList names;
  for (const auto& f : frames)
    for (const auto& t : f.tensors) {
      if (t.role != role)
        continue;
      const QString name = QString::fromStdString(t.name);
      auto [it, added] = curves.try_emplace(name);
      if (added)
        names << name;
      if (std::isfinite(t.scale) && t.scale > 0)
        it->second.scale.append(QPointF(double(f.step), std::log2(t.scale)));
      if (std::isfinite(t.amax) && t.amax > 0)
        it->second.amax.append(QPointF(double(f.step), std::log2(t.amax)));
    }
  m_names = names;
  m_frames = int(frames.size());
  QList<ChartRun> runs;
  for (const QString& name : names)
    runs.append(ChartRun{name, name, QColor()});
  setRuns(runs);
  for (const QString& name : names)
    updateRun(name, curves[name].scale, curves[name].amax);
  // Short enough to read whole in a narrow dock: the run is the Train page's
  // inspected run (and the export's file name).
  Q_UNUSED(subject);
  const QString roleName = role == telemetry::ScaledRole::Input    ? QStringLiteral("X")
                           : role == telemetry::ScaledRole::Weight ? QStringLiteral("W")
                                                                   : QStringLiteral("dY");
  setTitle(tr("Scale (solid) and amax (dashed) of %1").arg(roleName));
  hideSkipLegend();
}

} // namespace mantissa::ui
