// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "chart_widget.h"

#include <QList>
#include <QPointF>

#include <vector>

class QLineSeries;
class QLogValueAxis;
class QValueAxis;

namespace mantissa::ui {

struct ThroughputCurve {
  QString backend;       // "oneDNN fp32", "bf16 via fp32", "Eigen fp32"
  bool emulated = false; // drawn dashed and labelled "(emulated)"
  QList<QPointF> points; // (n for an n x n x n product, GFLOP/s), n increasing
};

// Matmul throughput against size, one line per backend, with the machine's
// peak as a horizontal line.
class ThroughputChart : public ChartWidget {
  Q_OBJECT
public:
  explicit ThroughputChart(QWidget* parent = nullptr);
  // peakGflops <= 0: no peak line. peakLabel: "FP32 peak, AVX2 FMA".
  void setData(const std::vector<ThroughputCurve>& curves, double peakGflops,
               const QString& peakLabel = {});

  QLineSeries* curveSeries(int index) const;
  QLineSeries* peakSeries() const { return m_peak; }

  QString csv() const override;
  QJsonDocument json() const override;

protected:
  void restyleSeries(const ChartStyle& style) override;

private:
  std::vector<ThroughputCurve> m_curves;
  std::vector<QLineSeries*> m_lines;
  double m_peakGflops = 0.0;
  QString m_peakLabel;
  QLineSeries* m_peak = nullptr;
  QLogValueAxis* m_x = nullptr;
  QValueAxis* m_y = nullptr;
};

} // namespace mantissa::ui
