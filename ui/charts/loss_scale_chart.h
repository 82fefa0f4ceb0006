// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "chart_widget.h"

#include <mantissa/amp/loss_scaler.h>
#include <mantissa/telemetry/events.h>

#include <vector>

class QCheckBox;
class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace mantissa::ui {

// The loss scale over steps as log2 (a step line), with markers for overflows,
// backoffs, growths and skipped steps, optionally the growth tracker and the
// hysteresis counter on a second axis; the scaler preset in the title.
class LossScaleChart : public ChartWidget {
  Q_OBJECT
public:
  explicit LossScaleChart(QWidget* parent = nullptr);

  // "pytorch", "deepspeed", ...; `settings` (train::settingsBeyondSetup:
  // "scaler initial scale 2^32") follow it in the title.
  void setPreset(const QString& preset, const QStringList& settings = {});
  // records: one per step in step order (the scaler state after the update);
  // events: the scaler's events in any order. Records may be decimated; the
  // step line only needs the steps where the scale changed.
  void setTrace(const std::vector<telemetry::LossScaleRecord>& records,
                const std::vector<amp::ScalerEvent>& events);
  void setCountersVisible(bool on); // growth tracker and hysteresis
  bool countersVisible() const { return m_countersVisible; }

  QLineSeries* scaleSeries() const { return m_scale; }
  QScatterSeries* markerSeries(amp::ScalerEventKind kind) const;
  QLineSeries* growthTrackerSeries() const { return m_tracker; }
  QLineSeries* hysteresisSeries() const { return m_hysteresis; }

  QString csv() const override;
  QJsonDocument json() const override;

protected:
  void restyleSeries(const ChartStyle& style) override;

private:
  void updateRanges();
  void pushCounters();

  QString m_preset;
  std::vector<telemetry::LossScaleRecord> m_records;
  std::vector<amp::ScalerEvent> m_events;
  bool m_countersVisible = false;

  QLineSeries* m_scale = nullptr;
  QScatterSeries* m_markers[4] = {}; // by ScalerEventKind
  QLineSeries* m_tracker = nullptr;
  QLineSeries* m_hysteresis = nullptr;
  QValueAxis* m_x = nullptr;
  QValueAxis* m_y = nullptr;
  QValueAxis* m_counterAxis = nullptr;
  QCheckBox* m_countersToggle = nullptr;
};

// Drops the points of a piecewise-linear sequence that lie on the straight
// line through their neighbours: exact, and a growth tracker that counts up by
// one per step shrinks to its corners.
QList<QPointF> dropCollinear(const QList<QPointF>& points);

} // namespace mantissa::ui
