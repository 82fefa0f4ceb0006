// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// TrainPanel: the Block scales dock. It inspects the tensor the histogram's
// choosers name (run, layer, weights or weight gradients), taken from the
// run when the dock shows, when the choice changes, and when the run pauses
// or ends.
#include "ui/bridge/run_controller.h"
#include "ui/panels/quant_panel.h"
#include "ui/panels/tensor_scale_view.h"
#include "ui/panels/train_panel.h"

#include <QComboBox>
#include <QDockWidget>

#include <algorithm>

namespace mantissa::ui {

void TrainPanel::buildQuantDocks() {
  m_quant = new QuantPanel;
  auto* dock = addDock(m_quant, tr("Block scales"), QStringLiteral("quantDock"), Qt::BottomDockWidgetArea);
  if (auto* heat = findChild<QDockWidget*>(QStringLiteral("heatmapDock")))
    tabifyDockWidget(heat, dock);
  m_quant->setMinimumSize(300, 150);
  const auto follow = [this] { inspectQuant(false); };
  connect(m_layerPicker, &QComboBox::currentIndexChanged, this, follow);
  connect(m_classPicker, &QComboBox::currentIndexChanged, this, follow);
  connect(m_runPicker, &QComboBox::currentIndexChanged, this, follow);
  connect(m_controller, &RunController::runsChanged, this, [this] {
    m_quant->forget(); // new runs under the same indices: the old tensor is gone
    inspectQuant(false);
  });
  connect(dock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
    if (visible)
      inspectQuant(false);
  });
  connect(m_controller, &RunController::stateChanged, this, [this] {
    const RunController::State s = m_controller->state();
    if (s == RunController::State::Paused || s == RunController::State::Finished)
      inspectQuant(true);
  });

  // The scale trace, beside the loss-scale trace.
  m_tensorScales = new TensorScaleView;
  auto* scaleDock = addDock(m_tensorScales, tr("Tensor scales"), QStringLiteral("tensorScaleDock"),
                            Qt::RightDockWidgetArea);
  if (auto* lossScale = findChild<QDockWidget*>(QStringLiteral("lossScaleDock")))
    tabifyDockWidget(lossScale, scaleDock);
  const auto refreshScales = [this](bool force) {
    if (shows(m_tensorScales) && selectedRun() >= 0)
      m_tensorScales->refresh(m_controller, selectedRun(), force);
  };
  connect(m_controller, &RunController::updated, this, [refreshScales] { refreshScales(false); });
  connect(m_controller, &RunController::stateChanged, this, [refreshScales] { refreshScales(true); });
  connect(m_runPicker, &QComboBox::currentIndexChanged, this, [refreshScales] { refreshScales(true); });
  connect(scaleDock, &QDockWidget::visibilityChanged, this, [refreshScales](bool visible) {
    if (visible)
      refreshScales(true);
  });
}

// again: take the tensor even if it is the one shown (its values moved on).
void TrainPanel::inspectQuant(bool again) {
  if (!m_quant->isVisible() || selectedRun() < 0)
    return;
  const int layer = std::max(0, m_layerPicker->currentIndex());
  const auto cls = telemetry::TensorClass(m_classPicker->currentData().toInt());
  m_quant->setSource(m_controller, selectedRun(), layer, cls, true);
  if (again && !m_quant->busy())
    m_quant->take();
}

} // namespace mantissa::ui
