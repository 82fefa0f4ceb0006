// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "chart_widget.h"

#include <mantissa/bench/gpt_scaling.h>

class QLineSeries;
class QLogValueAxis;
class QValueAxis;

namespace mantissa::ui {

// The GPT's training step against model size (bench/gpt_scaling.h): the
// fraction of the CPU's measured 16-bit peak each size reaches (MFU), for
// Mantissa's whole step, for its matrix products alone, and for PyTorch's
// step on the same model. x: the model's FLOPs per step (log scale). The
// CSV holds every figure of every size.
class ScalingChart : public ChartWidget {
  Q_OBJECT
public:
  explicit ScalingChart(QWidget* parent = nullptr);
  void setData(const bench::GptScaling& scaling);
  const bench::GptScaling& data() const { return m_data; }

  QLineSeries* stepSeries() const { return m_step; }
  QLineSeries* matmulSeries() const { return m_matmul; }
  QLineSeries* torchSeries() const { return m_torch; }

  QString csv() const override;
  QJsonDocument json() const override;

protected:
  void restyleSeries(const ChartStyle& style) override;

private:
  bench::GptScaling m_data;
  QLineSeries* m_step = nullptr;
  QLineSeries* m_matmul = nullptr;
  QLineSeries* m_torch = nullptr;
  QLogValueAxis* m_x = nullptr;
  QValueAxis* m_y = nullptr;
};

} // namespace mantissa::ui
