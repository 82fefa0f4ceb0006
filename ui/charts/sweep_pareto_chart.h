// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "chart_widget.h"

#include <QString>

#include <vector>

class QComboBox;
class QGraphicsSimpleTextItem;
class QScatterSeries;
class QLogValueAxis;
class QValueAxis;

namespace mantissa::ui {

// One probe of a precision sweep (train/sweep.h) as the chart shows it.
struct SweepPoint {
  QString name;               // "h1.fc matmul-inputs mxfp4"
  double bitsPerParameter = 32;
  double matmulTimeSaved = 0; // fraction of the step's product time
  double delta = 0;           // mean |Δ val_loss|; not finite: diverged (listed, not drawn)
  bool paretoBits = false;    // on the front against bits per parameter (core decides)
  bool paretoTime = false;    // on the front against time saved
};

// The sweep's Pareto chart: mean |Δ val_loss| up (log scale; an exact 0 at
// the axis floor), bits per parameter (or the
// estimated matmul time saved) across, every probe a point named beside it,
// the points on the Pareto front filled. Probes that diverged are named in
// the title, not drawn.
class SweepParetoChart : public ChartWidget {
  Q_OBJECT
public:
  enum class Across { BitsPerParameter, MatmulTimeSaved };
  explicit SweepParetoChart(QWidget* parent = nullptr);

  void setPoints(std::vector<SweepPoint> points);
  void setAcross(Across across);
  Across across() const { return m_across; }
  const std::vector<SweepPoint>& points() const { return m_points; }
  // The names shown beside the points, in point order (drawn points only).
  QStringList shownNames() const;

  QString csv() const override;
  QJsonDocument json() const override;

protected:
  void restyleSeries(const ChartStyle& style) override;

private:
  void rebuild();
  void placeLabels();
  double xOf(const SweepPoint& p) const;
  bool frontOf(const SweepPoint& p) const;

  std::vector<SweepPoint> m_points;
  Across m_across = Across::BitsPerParameter;
  QComboBox* m_acrossBox = nullptr;
  QScatterSeries* m_front = nullptr;
  QScatterSeries* m_rest = nullptr;
  QValueAxis* m_x = nullptr;
  QLogValueAxis* m_y = nullptr;
  std::vector<QGraphicsSimpleTextItem*> m_labels;
  std::vector<QPointF> m_labelAt; // data coordinates of each label's point
};

} // namespace mantissa::ui
