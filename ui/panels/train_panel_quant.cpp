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
#include <QScrollArea>
#include <QTabWidget>

#include <algorithm>

namespace mantissa::ui {

void TrainPanel::buildQuantDocks() {
  // One dock, "FP8", beside the heat map, with two pages: the Block scales
  // view and the scale trace. Each page scrolls below its controls' size (as
  // the Watch panel), so it never squeezes the page's other views.
  const auto scrolled = [](QWidget* view, const char* name) {
    auto* scroll = new QScrollArea;
    scroll->setObjectName(QLatin1String(name));
    scroll->setWidget(view);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    return scroll;
  };
  auto* pages = new QTabWidget;
  pages->setObjectName(QStringLiteral("fp8Pages"));
  pages->setDocumentMode(true);
  m_quant = new QuantPanel;
  m_tensorScales = new TensorScaleView;
  pages->addTab(scrolled(m_quant, "quantScroll"), tr("Block scales"));
  pages->addTab(scrolled(m_tensorScales, "tensorScaleScroll"), tr("Tensor scales"));
  auto* dock = addDock(pages, tr("FP8"), QStringLiteral("fp8Dock"), Qt::BottomDockWidgetArea);
  if (auto* heat = dockNamed("heatmapDock")) {
    tabifyDockWidget(heat, dock);
    heat->raise(); // the heat map stays the tab in front
  }

  const auto follow = [this] { inspectQuant(false); };
  connect(m_layerPicker, &QComboBox::currentIndexChanged, this, follow);
  connect(m_classPicker, &QComboBox::currentIndexChanged, this, follow);
  connect(m_runPicker, &QComboBox::currentIndexChanged, this, follow);
  connect(m_controller, &RunController::runsChanged, this, [this] {
    m_quant->forget(); // new runs under the same indices: the old tensor is gone
    inspectQuant(false);
  });
  connect(m_controller, &RunController::stateChanged, this, [this] {
    const RunController::State s = m_controller->state();
    if (s == RunController::State::Paused || s == RunController::State::Finished)
      inspectQuant(true);
  });

  const auto refreshScales = [this](bool force) {
    if (shows(m_tensorScales) && selectedRun() >= 0)
      m_tensorScales->refresh(m_controller, selectedRun(), force);
  };
  connect(m_controller, &RunController::updated, this, [refreshScales] { refreshScales(false); });
  connect(m_controller, &RunController::stateChanged, this, [refreshScales] { refreshScales(true); });
  connect(m_runPicker, &QComboBox::currentIndexChanged, this, [refreshScales] { refreshScales(true); });
  // The page that shows comes up to date (a hidden one is not redrawn).
  const auto shown = [this, refreshScales] {
    QMetaObject::invokeMethod(this, [this, refreshScales] {
      inspectQuant(false);
      refreshScales(true);
    }, Qt::QueuedConnection);
  };
  connect(dock, &QDockWidget::visibilityChanged, this, [shown](bool visible) {
    if (visible)
      shown();
  });
  connect(pages, &QTabWidget::currentChanged, this, shown);
}

// again: take the tensor even if it is the one shown (its values moved on).
void TrainPanel::inspectQuant(bool again) {
  if (!shows(m_quant) || selectedRun() < 0)
    return;
  const int layer = std::max(0, m_layerPicker->currentIndex());
  const auto cls = telemetry::TensorClass(m_classPicker->currentData().toInt());
  m_quant->setSource(m_controller, selectedRun(), layer, cls, true);
  if (again && !m_quant->busy())
    m_quant->take();
}

} // namespace mantissa::ui
