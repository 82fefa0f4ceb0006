// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "scaling_chart.h"

#include "chart_export.h"
#include "chart_style.h"

#include <nlohmann/json.hpp>

#include <QChart>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLegend>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mantissa::ui {

ScalingChart::ScalingChart(QWidget* parent) : ChartWidget(parent) {
  setTitle(tr("GPT step against model size"));
  m_x = new QLogValueAxis(this);
  m_x->setBase(10.0);
  m_x->setLabelFormat(QStringLiteral("%g"));
  m_x->setMinorTickCount(0);
  m_x->setTitleText(tr("model GFLOP per step"));
  chart()->addAxis(m_x, Qt::AlignBottom);
  m_y = new QValueAxis(this);
  m_y->setTitleText(tr("MFU (%)"));
  m_y->setLabelFormat(QStringLiteral("%.0f"));
  chart()->addAxis(m_y, Qt::AlignLeft);
  for (QLineSeries** s : {&m_step, &m_matmul, &m_torch}) {
    *s = new QLineSeries(this);
    (*s)->setPointsVisible(true);
    chart()->addSeries(*s);
    (*s)->attachAxis(m_x);
    (*s)->attachAxis(m_y);
  }
  chart()->legend()->setAlignment(Qt::AlignBottom);
  controls()->addStretch(1);
  setData({});
  applyStyle(chartStyle());
}

void ScalingChart::setData(const bench::GptScaling& scaling) {
  m_data = scaling;
  QList<QPointF> step, matmul, torch;
  double xMin = std::numeric_limits<double>::infinity(), xMax = -xMin, yMax = 0.0;
  for (const bench::GptScalingRow& r : scaling.rows) {
    const double x = r.flopsPerStep / 1e9;
    if (!(x > 0.0))
      continue;
    xMin = std::min(xMin, x);
    xMax = std::max(xMax, x);
    const auto add = [&](QList<QPointF>& to, double gflops) {
      if (gflops <= 0.0 || scaling.peakGflops <= 0.0)
        return;
      const double mfu = 100.0 * scaling.mfu(gflops);
      to.append({x, mfu});
      yMax = std::max(yMax, mfu);
    };
    add(step, r.stepGflops());
    add(matmul, r.matmulGflops());
    add(torch, r.torchGflops());
  }
  m_step->replace(step);
  m_matmul->replace(matmul);
  m_torch->replace(torch);
  m_step->setName(tr("Mantissa %1, whole step").arg(QString::fromStdString(scaling.recipe)));
  m_matmul->setName(tr("Mantissa, matrix products alone"));
  m_torch->setName(scaling.torchVersion.empty()
                       ? tr("PyTorch bf16 autocast, whole step")
                       : tr("PyTorch %1 bf16 autocast, whole step")
                             .arg(QString::fromStdString(scaling.torchVersion)));
  m_torch->setVisible(!torch.isEmpty());
  if (!(xMin <= xMax)) {
    xMin = 1.0;
    xMax = 1000.0;
  }
  xMin = std::pow(10.0, std::floor(std::log10(xMin)));
  xMax = std::pow(10.0, std::ceil(std::log10(xMax)));
  if (xMax <= xMin)
    xMax = xMin * 10.0;
  m_x->setRange(xMin, xMax);
  setNiceRange(m_y, 0.0, std::min(100.0, yMax > 0.0 ? yMax * 1.15 : 50.0));
  restyleSeries(chartStyle());
}

void ScalingChart::restyleSeries(const ChartStyle& style) {
  QPen step(seriesColor(0), style.linePenWidth());
  m_step->setPen(step);
  QPen matmul(seriesColor(2), 0.75 * style.linePenWidth(), Qt::DashLine);
  m_matmul->setPen(matmul);
  QPen torch(seriesColor(1), style.linePenWidth());
  m_torch->setPen(torch);
}

QString ScalingChart::csv() const {
  QString out = QStringLiteral(
      "size,layers,heads,embd,ctx,batch,params,gflop_per_step,steps,step_ms,step_min_ms,"
      "step_max_ms,matmul_ms,mfu_step,mfu_matmul,peak_rss_bytes,torch_step_ms,torch_mfu,"
      "torch_peak_rss_bytes,step_vs_torch\n");
  const auto g = [](double v) { return QString::number(v, 'g', 9); };
  for (const bench::GptScalingRow& r : m_data.rows) {
    QStringList cells{csvField(QString::fromStdString(r.size.label())),
                      QString::number(r.size.layers),
                      QString::number(r.size.heads),
                      QString::number(r.size.embd),
                      QString::number(r.size.ctx),
                      QString::number(r.size.batch),
                      QString::number(r.params),
                      g(r.flopsPerStep / 1e9),
                      QString::number(r.steps),
                      g(r.stepMs),
                      g(r.stepMinMs),
                      g(r.stepMaxMs),
                      g(r.matmulMs),
                      g(m_data.mfu(r.stepGflops())),
                      g(m_data.mfu(r.matmulGflops())),
                      QString::number(r.peakRssBytes)};
    if (r.torch)
      cells << g(r.torch->stepMs) << g(m_data.mfu(r.torchGflops()))
            << QString::number(r.torch->peakRssBytes) << g(r.stepMs / r.torch->stepMs);
    else
      cells << QString() << QString() << QString() << QString();
    out += cells.join(u',') + u'\n';
  }
  return out;
}

QJsonDocument ScalingChart::json() const {
  return QJsonDocument::fromJson(QByteArray::fromStdString(bench::gptScalingToJson(m_data).dump()));
}

} // namespace mantissa::ui
