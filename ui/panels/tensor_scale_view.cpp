// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/panels/tensor_scale_view.h"

#include "ui/bridge/run_controller.h"
#include "ui/charts/tensor_scale_chart.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace mantissa::ui {

TensorScaleView::TensorScaleView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("tensorScaleView"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* row = new QHBoxLayout;
  m_role = new QComboBox;
  m_role->setObjectName(QStringLiteral("scaledRole"));
  m_role->addItem(tr("weights W"), int(telemetry::ScaledRole::Weight));
  m_role->addItem(tr("inputs X"), int(telemetry::ScaledRole::Input));
  m_role->addItem(tr("output gradients dY"), int(telemetry::ScaledRole::GradOutput));
  m_message = new QLabel;
  m_message->setObjectName(QStringLiteral("tensorScaleMessage"));
  // One line that never widens or heightens the dock group (the whole text
  // is its tooltip).
  m_message->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  m_message->setMinimumWidth(1);
  row->addWidget(m_role);
  row->addWidget(m_message, 1);
  layout->addLayout(row);
  m_chart = new TensorScaleChart;
  m_chart->setMinimumSize(200, 110); // the bottom group fits a 1280 x 720 window
  layout->addWidget(m_chart, 1);
  connect(m_role, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
}

void TensorScaleView::refresh(RunController* controller, int run, bool force) {
  if (controller == nullptr || run < 0 || run >= controller->runCount())
    return;
  const bool training = controller->trainerState(run) == train::TrainerState::Running;
  if (!force && run == m_readRun && training && m_sinceRead.isValid() && m_sinceRead.elapsed() < 2000)
    return;
  m_sinceRead.start();
  m_readRun = run;
  QString error;
  const auto log = controller->runLog(run, &error);
  if (!log) {
    m_frames.clear();
    m_subject = controller->runName(run);
    m_message->setText(tr("Cannot read the run's log: %1").arg(error));
    m_message->setToolTip(m_message->text());
    redraw();
    return;
  }
  setFrames(log->scaling, controller->runName(run));
}

void TensorScaleView::setFrames(const std::vector<telemetry::ScalingFrame>& frames, const QString& subject) {
  m_frames = frames;
  m_subject = subject;
  m_message->setText(frames.empty() ? tr("%1 scales no tensors: pick an FP8 or microscaling recipe "
                                         "(fp8-delayed, fp8-current, fp8-block, mxfp8, nvfp4)")
                                          .arg(subject)
                                    : QString());
  m_message->setToolTip(m_message->text());
  redraw();
}

void TensorScaleView::redraw() {
  m_chart->setFrames(m_frames, telemetry::ScaledRole(m_role->currentData().toInt()), m_subject);
}

} // namespace mantissa::ui
