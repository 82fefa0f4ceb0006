// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "chart_widget.h"

#include <mantissa/lessons/demo_registry.h>

#include <string>
#include <vector>

class QAbstractAxis;
class QXYSeries;

namespace mantissa::ui {

// A lesson demo's figure: its series as lines (trajectories) or as points
// joined by a line with large markers ("bars": per-row values, histograms),
// on a linear or log y axis. Exportable like every chart.
class LessonChart : public ChartWidget {
  Q_OBJECT
public:
  explicit LessonChart(QWidget* parent = nullptr);

  void setDemo(const lessons::DemoOutput& demo);
  void clearDemo();
  const std::vector<QXYSeries*>& series() const { return m_series; }
  // Points in all series (what the GUI test checks).
  qsizetype pointCount() const;

  QString csv() const override;
  QJsonDocument json() const override;

protected:
  void restyleSeries(const ChartStyle& style) override;

private:
  void rebuildAxes(bool logY, const std::vector<std::string>& categories);

  lessons::DemoOutput m_demo;
  std::vector<QXYSeries*> m_series;
  QAbstractAxis* m_x = nullptr;
  QAbstractAxis* m_y = nullptr;
};

} // namespace mantissa::ui
