// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <mantissa/telemetry/scaling.h>

#include <QElapsedTimer>
#include <QWidget>

#include <vector>

class QComboBox;
class QLabel;

namespace mantissa::ui {

class RunController;
class TensorScaleChart;

// The Train page's scale trace: a role chooser (X, W, dY) over the
// TensorScaleChart of the selected run, read from the run's log (the
// "scaling" of its step rows). Says so when the run's recipe scales nothing.
class TensorScaleView : public QWidget {
  Q_OBJECT
public:
  explicit TensorScaleView(QWidget* parent = nullptr);

  // Re-reads the run's scaling frames; while a run trains at most every two
  // seconds unless `force`.
  void refresh(RunController* controller, int run, bool force);
  // Shows these frames (a saved run's, or a test's).
  void setFrames(const std::vector<telemetry::ScalingFrame>& frames, const QString& subject);

  TensorScaleChart* chart() const { return m_chart; }
  QComboBox* roleBox() const { return m_role; }
  QLabel* message() const { return m_message; }

private:
  void redraw();

  QComboBox* m_role = nullptr;
  QLabel* m_message = nullptr;
  TensorScaleChart* m_chart = nullptr;
  std::vector<telemetry::ScalingFrame> m_frames;
  QString m_subject;
  QElapsedTimer m_sinceRead;
  int m_readRun = -1;
};

} // namespace mantissa::ui
