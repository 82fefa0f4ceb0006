// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// TrainPanel: the Error view (the shadow pass's tensor errors over the
// steps, train/shadow.h), Check Against Reference Now, the banner line that
// names the first tensor over the threshold, and the op table's Error column.
#include "ui/app_shell/palette.h"
#include "ui/bridge/run_controller.h"
#include "ui/charts/shadow_error_map.h"
#include "ui/panels/op_table_panel.h"
#include "ui/panels/train_panel.h"
#include "ui/panels/train_panel_setup.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QToolButton>
#include <QVBoxLayout>

namespace mantissa::ui {

QDockWidget* TrainPanel::buildShadowDock() {
  m_checkShadow = new QAction(tr("Check Against Reference Now"), this);
  m_checkShadow->setObjectName(QStringLiteral("checkShadowAction"));
  m_checkShadow->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
  m_checkShadow->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  m_checkShadow->setToolTip(
      tr("Run the next step's batch again through an FP32 or FP64 copy of the model (Setup > "
         "Shadow reference; FP32 when Off) and show every tensor's error in the Error view (%1)")
          .arg(m_checkShadow->shortcut().toString(QKeySequence::NativeText)));
  m_checkShadow->setEnabled(false);
  addAction(m_checkShadow);
  connect(m_checkShadow, &QAction::triggered, this, &TrainPanel::checkAgainstReference);

  auto* box = new QWidget;
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* row = new QHBoxLayout;
  row->setContentsMargins(6, 2, 6, 0);
  m_shadowMessage = new QLabel;
  m_shadowMessage->setObjectName(QStringLiteral("shadowMessage"));
  m_shadowMessage->setWordWrap(true);
  m_shadowMessage->setTextFormat(Qt::RichText);
  m_shadowMessage->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  auto* check = new QToolButton;
  check->setDefaultAction(m_checkShadow);
  check->setObjectName(QStringLiteral("checkShadowButton"));
  row->addWidget(m_shadowMessage, 1);
  row->addWidget(check);
  layout->addLayout(row);
  m_shadowMap = new ShadowErrorMap;
  m_shadowMap->setObjectName(QStringLiteral("shadowErrorMap"));
  // A long tensor list (a GPT's) scrolls: the map asks for rows half a label high.
  auto* scroll = new QScrollArea;
  scroll->setObjectName(QStringLiteral("shadowScroll"));
  scroll->setWidget(m_shadowMap);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  layout->addWidget(scroll, 1);
  m_shadowDock = addDock(box, tr("Error"), QStringLiteral("shadowDock"), Qt::BottomDockWidgetArea);
  m_shadowDock->toggleViewAction()->setText(tr("&Error View (Shadow Pass)"));
  m_shadowDock->toggleViewAction()->setToolTip(
      tr("Each tensor's error against an FP32 or FP64 reference, step by step"));
  // Choosing a reference in the setup brings the view forward.
  connect(m_setup->shadowPicker(), &QComboBox::currentIndexChanged, this, [this] {
    if (!m_setup->shadowPicker()->currentData().toString().isEmpty())
      showShadowDock();
  });
  return m_shadowDock;
}

QAction* TrainPanel::shadowViewAction() const { return m_shadowDock->toggleViewAction(); }

bool TrainPanel::shadowWanted() const {
  for (int i = 0; i < m_controller->runCount(); ++i)
    if (!m_controller->config(i).shadow.empty() || m_controller->record(i).shadowTotal() > 0)
      return true;
  return false;
}

// On a short page the Error view starts hidden (its tab would take the loss
// curve's width from the chart group) and comes when it has something to
// show: a run with the shadow pass, a frame, a check asked for, or View >
// Error View.
void TrainPanel::showShadowDock() {
  if (m_shadowDock->isHidden())
    m_shadowDock->show();
  m_shadowDock->raise();
}

void TrainPanel::checkAgainstReference() {
  showShadowDock();
  const train::ShadowPrecision precision = m_setup->onDemandShadow();
  const QString reference = precision == train::ShadowPrecision::F64 ? tr("FP64") : tr("FP32");
  const int asked = m_controller->requestShadow(precision, [this](int run, const QString& why) {
    m_shadowMessage->setText(QStringLiteral("<span style=\"color:%1\"><b>%2</b>: %3</span>")
                                 .arg(palette::kWarning.name(),
                                      m_controller->runName(run).toHtmlEscaped(), why.toHtmlEscaped()));
  });
  if (asked == 0) {
    m_shadowMessage->setText(
        QStringLiteral("<span style=\"color:%1\">%2</span>")
            .arg(palette::kWarning.name(),
                 tr("No run is training or paused: start a run (or resume it) to check it.")));
    return;
  }
  const bool paused = m_controller->state() == RunController::State::Paused;
  m_shadowMessage->setText(
      tr("The next step of %n run(s) is checked against %1.", nullptr, asked).arg(reference) +
      (paused ? tr(" Press Step (N) or Resume.") : QString()));
}

QString TrainPanel::shadowMessage() const { return m_shadowMessage->text(); }

QString TrainPanel::shadowText() const {
  QStringList out;
  for (int i = 0; i < m_controller->runCount(); ++i) {
    const auto& frames = m_controller->record(i).shadowFrames();
    if (!frames.empty())
      out << QStringLiteral("<b>%1</b> \u2014 %2")
                 .arg(m_controller->runName(i).toHtmlEscaped(),
                      ShadowErrorMap::firstOverSentence(*frames.back()).toHtmlEscaped());
  }
  return out.join(QStringLiteral("<br>"));
}

// A new shadow frame that names a tensor over the threshold goes to the
// banner, as a divergence's first op does (a divergence keeps the banner).
void TrainPanel::announceShadow() {
  std::int64_t total = 0;
  bool over = false;
  for (int i = 0; i < m_controller->runCount(); ++i) {
    const RunRecord& r = m_controller->record(i);
    total += r.shadowTotal();
    if (!r.shadowFrames().empty() && r.shadowFrames().back()->firstOver)
      over = true;
  }
  if (total == m_shadowAnnounced)
    return;
  if (total > 0 && m_shadowDock->isHidden())
    showShadowDock();
  const bool fresh = total > m_shadowAnnounced && m_shadowAnnounced >= 0;
  m_shadowAnnounced = total;
  if (!fresh || !over || !divergenceText().isEmpty())
    return;
  m_banner->setText(shadowText());
}

void TrainPanel::refreshShadow() {
  const int run = selectedRun();
  if (run < 0) {
    m_shadowMap->setFrames({});
    m_opTable->setShadowFrame(nullptr);
    m_shadowKey.clear();
    return;
  }
  const RunRecord& r = m_controller->record(run);
  const QString key = QStringLiteral("%1/%2/%3")
                          .arg(m_controller->runKey(run))
                          .arg(r.shadowTotal())
                          .arg(r.shadowFrames().size());
  if (key == m_shadowKey)
    return;
  m_shadowKey = key;
  m_opTable->setShadowFrame(r.shadowFrames().empty() ? nullptr : r.shadowFrames().back());
  m_shadowMap->setSubject(m_controller->runName(run));
  m_shadowMap->setFrames(r.shadowFrames());
}

} // namespace mantissa::ui
