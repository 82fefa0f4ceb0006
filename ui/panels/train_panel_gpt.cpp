// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The Train page's GPT parts: the GPT setup (preset, steps, recipes side by
// side, the policy editor) as a tab beside the MLP setup, and the Generate
// dock beside the op table.
#include "ui/bridge/run_controller.h"
#include "ui/panels/generate_panel.h"
#include "ui/panels/gpt_setup.h"
#include "ui/panels/train_panel.h"

#include <QDockWidget>
#include <QLabel>
#include <QScrollArea>
#include <QTabWidget>

#include <memory>
#include <vector>

namespace mantissa::ui {

void TrainPanel::buildGptDocks() {
  // The setup dock holds both setups as tabs: the MLP's form and the GPT's.
  m_gptSetup = new GptSetup;
  auto* scroll = new QScrollArea;
  scroll->setObjectName(QStringLiteral("gptSetupScroll"));
  scroll->setWidget(m_gptSetup);
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  if (auto* setupDock = findChild<QDockWidget*>(QStringLiteral("setupDock"))) {
    auto* tabs = new QTabWidget;
    tabs->setObjectName(QStringLiteral("setupTabs"));
    tabs->setDocumentMode(true);
    QWidget* mlp = setupDock->widget();
    tabs->addTab(mlp, tr("MLP"));
    tabs->addTab(scroll, tr("GPT"));
    tabs->setTabToolTip(0, tr("An MLP on images (MNIST, ...)"));
    tabs->setTabToolTip(1, tr("A GPT on text (Tiny Shakespeare), recipes and precision policies"));
    setupDock->setWidget(tabs);
  }

  // Generate: shown while GPT runs are set up, as a tab beside the op table.
  m_generate = new GeneratePanel(m_controller);
  m_generate->setObjectName(QStringLiteral("generatePanel"));
  auto* genDock =
      addDock(m_generate, tr("Generate"), QStringLiteral("generateDock"), Qt::RightDockWidgetArea);
  if (auto* opDock = findChild<QDockWidget*>(QStringLiteral("opTableDock")))
    tabifyDockWidget(opDock, genDock);
  genDock->hide();
  // GPT runs have no accuracy and no watched MLP weight: those docks give
  // their tabs to Generate while GPT runs are set up, and come back after.
  auto hiddenForGpt = std::make_shared<std::vector<QDockWidget*>>();
  connect(m_controller, &RunController::runsChanged, this, [this, genDock, hiddenForGpt] {
    const bool gpt = m_controller->hasGptRuns();
    if (gpt && hiddenForGpt->empty()) {
      for (const char* name : {"accuracyDock", "watchDock"})
        if (auto* d = findChild<QDockWidget*>(QLatin1String(name)); d && d->isVisible()) {
          d->hide();
          hiddenForGpt->push_back(d);
        }
    } else if (!gpt) {
      for (QDockWidget* d : *hiddenForGpt)
        d->show();
      hiddenForGpt->clear();
    }
    genDock->setVisible(gpt);
    if (gpt)
      genDock->raise();
  });

  connect(m_gptSetup, &GptSetup::runsRequested, this,
          [this](const std::vector<train::RunConfig>& configs) {
            if (!setUpGptRuns(configs))
              return;
            showGptTab(); // the setup dock shows what Start trains
            m_banner->setText(tr("<b>GPT on Tiny Shakespeare</b>: %1 run(s) side by side. Press "
                                 "Start (Ctrl+R). Histograms: pick a layer such as "
                                 "“h0.attention probs” or “h0.ln1 input”; Generate samples "
                                 "from paused or finished runs.")
                                  .arg(m_controller->runCount()));
          });
  connect(m_controller, &RunController::stateChanged, this, [this] {
    const auto s = m_controller->state();
    m_gptSetup->setEnabled(s != RunController::State::Running && s != RunController::State::Paused);
  });
}

bool TrainPanel::setUpGptRuns(const std::vector<train::RunConfig>& configs) {
  if (!confirmReplaceLoadedRuns())
    return false;
  const QString problems = m_controller->setRuns(configs);
  if (!problems.isEmpty()) {
    m_banner->setText(QStringLiteral("<b>%1</b><br>%2")
                          .arg(tr("Cannot build the GPT runs:"),
                               problems.toHtmlEscaped().replace(u'\n', QStringLiteral("<br>"))));
    return false;
  }
  m_presetNote.clear();
  return true;
}

bool TrainPanel::gptTabShown() const {
  const auto* tabs = findChild<QTabWidget*>(QStringLiteral("setupTabs"));
  return tabs != nullptr && tabs->currentWidget() != nullptr &&
         tabs->currentWidget()->isAncestorOf(m_gptSetup);
}

void TrainPanel::showGptTab() {
  if (auto* tabs = findChild<QTabWidget*>(QStringLiteral("setupTabs")))
    tabs->setCurrentWidget(findChild<QWidget*>(QStringLiteral("gptSetupScroll")));
}

bool TrainPanel::buildGptRunsFromSetup() {
  const QString problems = m_gptSetup->problems();
  if (!problems.isEmpty()) {
    m_banner->setText(QStringLiteral("<b>%1</b><br>%2")
                          .arg(tr("Cannot build the GPT runs:"),
                               problems.toHtmlEscaped().replace(u'\n', QStringLiteral("<br>"))));
    return false;
  }
  return setUpGptRuns(m_gptSetup->configs());
}

bool TrainPanel::startGptRuns() {
  // Start trains what the setup dock shows: with the GPT tab current, the
  // runs of the GPT setup as it stands (built afresh, as Start builds the
  // MLP runs from the MLP form); with the MLP tab current, the MLP form's
  // runs, whatever ran before.
  if (!gptTabShown())
    return false;
  if (buildGptRunsFromSetup()) {
    m_controller->start();
    m_banner->setText(trainingBanner());
  }
  return true;
}

} // namespace mantissa::ui
