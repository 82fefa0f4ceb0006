// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "chart_widget.h"

#include <mantissa/lessons/demo_registry.h>

#include <string>
#include <utility>
#include <vector>

class QAbstractAxis;
class QBarCategoryAxis;
class QAreaSeries;
class QBarSeries;
class QGraphicsSimpleTextItem;
class QXYSeries;

namespace mantissa::ui {

// A lesson demo's figure. Trajectories are lines; bar series are real bars:
// with categories (per format, per dtype, per scale) grouped bars with their
// value printed above each bar, large enough for a projector; without (a
// histogram) filled bins [x, x + bin width) under the lines of the other series.
// Linear or log y axis. Exportable like every chart (PNG/SVG/PDF/CSV/JSON).
class LessonChart : public ChartWidget {
  Q_OBJECT
public:
  explicit LessonChart(QWidget* parent = nullptr);

  void setDemo(const lessons::DemoOutput& demo);
  void clearDemo();
  // The demo's line series, in the demo's order (bar series are not among them).
  const std::vector<QXYSeries*>& series() const { return m_series; }
  // The grouped bars (categories on x), or nullptr.
  QBarSeries* bars() const { return m_bars; }
  double yAxisMin() const; // the y axis' lower end (a log axis: the bars' floor)
  QAbstractAxis* xAxis() const { return m_x; }
  QAbstractAxis* yAxis() const { return m_y; }
  // The log2 axis on the right of the series with rightAxis, or nullptr.
  QAbstractAxis* rightAxis() const { return m_right; }
  // The histogram bins as filled areas, one per bar series, or empty.
  const std::vector<QAreaSeries*>& bins() const { return m_bins; }
  // Points in all line series plus bars and bins (what the GUI test checks).
  qsizetype pointCount() const;
  // The bars whose value is NaN or infinite, drawn as a red "NaN" / "inf" in
  // their slot: (category, text), in category order.
  std::vector<std::pair<std::string, QString>> nonFiniteBars() const;

  QString csv() const override;
  QJsonDocument json() const override;

protected:
  void restyleSeries(const ChartStyle& style) override;

private:
  void rebuildAxes(bool logY, bool barCategories, const std::vector<std::string>& categories,
                   bool right);
  void addBars(const lessons::DemoOutput& demo, double logFloor);
  void addBins(const lessons::DemoSeries& s, int colourIndex, double baseline);
  void fitTexts();
  void fitCategories(QBarCategoryAxis* axis);
  void fitBarLabels();
  void fitLegend();

  lessons::DemoOutput m_demo;
  std::vector<QXYSeries*> m_series;
  std::vector<int> m_seriesColour; // colour index of each line series (the demo's series order)
  QBarSeries* m_bars = nullptr;
  std::vector<QAreaSeries*> m_bins;
  std::vector<int> m_binColour;
  std::vector<std::vector<bool>> m_missing; // [bar set][category]: no value (out of range)
  struct NonFiniteBar {
    int set = 0;
    int category = 0;
    QGraphicsSimpleTextItem* text = nullptr; // "NaN" or "inf", in the bar's slot
  };
  std::vector<NonFiniteBar> m_nonFinite;
  void placeNonFiniteBars();
  QAbstractAxis* m_x = nullptr;
  QAbstractAxis* m_y = nullptr;
  QAbstractAxis* m_right = nullptr; // log2, for series with rightAxis
  double m_yHigh = 1.0; // the top of the y range setDemo() chose (before room for upright labels)
};

} // namespace mantissa::ui
