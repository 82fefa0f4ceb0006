// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/panels/quant_panel.h"

#include "ui/app_shell/palette.h"
#include "ui/bridge/run_controller.h"
#include "ui/charts/block_scale_map.h"
#include "ui/formats/block_view.h"
#include "ui/panels/whatif_table.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTextDocument>
#include <QThreadPool>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <memory>

namespace mantissa::ui {

namespace {

using namespace numeric;

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

struct Computed {
  std::vector<SchemeStats> whatIf;
  QuantizedTensor map;
};

} // namespace

QuantPanel::QuantPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("quantPanel"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* row = new QHBoxLayout;
  m_subject = new QLabel(tr("Pick a run's weights or weight gradients in the histogram's choosers"));
  m_subject->setObjectName(QStringLiteral("quantSubject"));
  // One line that never heightens the dock group (a hidden tab counts too).
  m_subject->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  m_subject->setMinimumWidth(1);
  m_subject->installEventFilter(this); // a new width picks the form that fits
  m_take = new QPushButton(tr("&Take tensor"));
  m_take->setObjectName(QStringLiteral("takeTensor"));
  m_take->setToolTip(tr("Copy the tensor from the run now (between two of its steps)"));
  m_follow = new QCheckBox(tr("Follow"));
  m_follow->setObjectName(QStringLiteral("followTensor"));
  m_follow->setToolTip(tr("Take the tensor again every two seconds while the run trains"));
  m_scheme = new QComboBox;
  m_scheme->setObjectName(QStringLiteral("mapScheme"));
  m_scheme->setToolTip(tr("The block scheme of the heat map"));
  for (BlockScheme s : allSchemes())
    if (schemeInfo(s).blockSize > 0)
      m_scheme->addItem(qs(schemeInfo(s).name), int(s));
  m_scaleRounding = new QComboBox;
  m_scaleRounding->setObjectName(QStringLiteral("mapScaleRounding"));
  m_scaleRounding->setToolTip(tr("How the MX schemes round their shared exponent: floor (OCP MX) can clip "
                                 "a block's maximum; ceil and rceil never do"));
  for (ScaleRounding r : {ScaleRounding::Floor, ScaleRounding::Ceil, ScaleRounding::Even, ScaleRounding::RCeil})
    m_scaleRounding->addItem(tr("scale %1").arg(qs(scaleRoundingName(r))), int(r));
  row->addWidget(m_subject, 1);
  row->addWidget(m_scheme);
  row->addWidget(m_scaleRounding);
  row->addWidget(m_follow);
  row->addWidget(m_take);
  layout->addLayout(row);
  m_message = new QLabel;
  m_message->setObjectName(QStringLiteral("quantMessage"));
  m_message->setWordWrap(true);
  m_message->hide();
  layout->addWidget(m_message);

  auto* split = new QSplitter(Qt::Horizontal);
  m_split = split;
  m_table = new WhatIfTable;
  m_table->setMinimumSize(120, 60); // the bottom group fits a 1280 x 720 window
  m_map = new BlockScaleMap;
  split->addWidget(m_table);
  split->addWidget(m_map);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  layout->addWidget(split, 1);

  m_followTimer = new QTimer(this);
  m_followTimer->setInterval(2000);
  connect(m_followTimer, &QTimer::timeout, this, [this] {
    const RunController* c = m_controller.data();
    if (c != nullptr && isVisible() && !busy() && m_run >= 0 && m_run < c->runCount() &&
        c->trainerState(m_run) == train::TrainerState::Running)
      take();
  });
  connect(m_follow, &QCheckBox::toggled, this, [this](bool on) {
    if (on)
      m_followTimer->start();
    else
      m_followTimer->stop();
  });
  connect(m_take, &QPushButton::clicked, this, [this] { take(); });
  connect(m_scheme, &QComboBox::currentIndexChanged, this, [this] { recompute(); });
  connect(m_scaleRounding, &QComboBox::currentIndexChanged, this, [this] { recompute(); });
  connect(m_map, &BlockScaleMap::blockClicked, this, [this](int index) { openBlock(index); });
  m_map->clear(tr("No tensor yet: train a run, pick a layer's weights, and press Take tensor"));
}

QuantPanel::~QuantPanel() = default;

void QuantPanel::clearShown(const QString& why) {
  ++m_generation; // drops any computation still running
  m_tensor.reset();
  m_matrix.clear();
  m_mapQuantized.reset();
  m_table->clearStats();
  m_map->clear(why);
  m_subjectForms.clear();
  m_subject->setToolTip({});
  m_subject->setText(tr("No tensor"));
}

// The table's columns whole where the panel is wide enough to leave the map
// room; else an even split (the table scrolls).
void QuantPanel::fitTable() {
  const int total = m_split->width();
  const int table = m_table->wholeWidth();
  if (total - table >= m_map->minimumSizeHint().width())
    m_split->setSizes({table, total - table});
}

// The line above the table never widens the dock (it may be narrower than
// its text): it shows the most detailed form that fits, the full one in its
// tooltip, instead of a text cut at the edge ("(outputs × input").
void QuantPanel::fitSubject() {
  if (m_subjectForms.isEmpty())
    return;
  const int room = m_subject->contentsRect().width();
  QTextDocument doc;
  doc.setDefaultFont(m_subject->font());
  doc.setDocumentMargin(0);
  QString shown;
  for (const QString& form : m_subjectForms) {
    doc.setHtml(form);
    if (doc.idealWidth() <= room) {
      shown = form;
      break;
    }
  }
  if (shown.isEmpty()) { // a projector's narrow dock: the name alone, ending in "…"
    QFont bold = m_subject->font();
    bold.setBold(true);
    shown =
        QStringLiteral("<b>%1</b>")
            .arg(
                QFontMetrics(bold).elidedText(m_subjectName, Qt::ElideRight, room).toHtmlEscaped());
  }
  m_subject->setToolTip(m_subjectForms.front());
  if (m_subject->text() != shown)
    m_subject->setText(shown);
}

bool QuantPanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_subject && event->type() == QEvent::Resize)
    fitSubject();
  return QWidget::eventFilter(watched, event);
}

void QuantPanel::forget() {
  clearShown(tr("No tensor yet"));
  showMessage({}, false);
}

void QuantPanel::showMessage(const QString& text, bool warning) {
  m_message->setText(text);
  m_message->setStyleSheet(warning ? QStringLiteral("color:%1").arg(palette::kWarning.name()) : QString());
  m_message->setVisible(!text.isEmpty());
}

QuantizeOptions QuantPanel::options() const {
  QuantizeOptions o;
  o.scaleRounding = static_cast<ScaleRounding>(m_scaleRounding->currentData().toInt());
  o.cols = m_cols;
  o.weightBlocks = true; // a weight-shaped matrix: fp8-block cuts 128 x 128 blocks
  return o;
}

void QuantPanel::setSource(RunController* controller, int run, int layer, telemetry::TensorClass cls, bool takeNow) {
  const bool same = controller == m_controller && run == m_run && layer == m_layer && cls == m_cls;
  m_controller = controller;
  m_run = run;
  m_layer = layer;
  m_cls = cls;
  if (takeNow && (!same || !m_tensor))
    take();
}

bool QuantPanel::take() {
  RunController* controller = m_controller.data();
  if (controller == nullptr || m_run < 0 || m_run >= controller->runCount()) {
    showMessage(tr("No run to take a tensor from"), true);
    clearShown(tr("No tensor to show"));
    return false;
  }
  if (m_cls != telemetry::TensorClass::Weights && m_cls != telemetry::TensorClass::WeightGrads) {
    showMessage(tr("Pick weights or weight gradients: those are the tensors a run keeps between steps"), true);
    clearShown(tr("No tensor to show"));
    return false;
  }
  ++m_pending;
  const std::uint64_t generation = ++m_generation;
  QPointer<QuantPanel> self(this);
  const bool asked = controller->requestTensor(m_run, m_layer, m_cls, [self, generation](const TensorSnapshot& t) {
    QuantPanel* panel = self.data();
    if (panel == nullptr)
      return;
    --panel->m_pending;
    if (generation == panel->m_generation)
      panel->setTensor(t);
  });
  if (!asked) {
    --m_pending;
    showMessage(controller->isLoaded(m_run) || controller->isGpt(m_run)
                    ? tr("%1: a saved or GPT run keeps no tensors to inspect here; a live MLP or CNN run does")
                          .arg(controller->runName(m_run))
                    : tr("%1 has no layer %2").arg(controller->runName(m_run)).arg(m_layer),
                true);
    clearShown(tr("No tensor to show"));
    return false;
  }
  return true;
}

void QuantPanel::setTensor(const TensorSnapshot& tensor) {
  // Another tensor: what was shown goes at once (a refresh of the same one
  // stays until its new numbers are ready).
  if (!m_tensor || m_tensor->subject != tensor.subject || m_tensor->rows != tensor.rows ||
      m_tensor->cols != tensor.cols) {
    m_table->clearStats();
    m_mapQuantized.reset();
    m_map->clear(tr("Quantizing %1…").arg(tensor.subject));
  }
  m_tensor = tensor;
  // W [inputs, outputs] -> [outputs, inputs]: blocks along the inputs (K).
  const auto in = std::size_t(tensor.rows), out = std::size_t(tensor.cols);
  m_rows = out;
  m_cols = in;
  m_matrix.assign(tensor.values.size(), 0.0);
  for (std::size_t i = 0; i < in; ++i)
    for (std::size_t o = 0; o < out; ++o)
      m_matrix[o * in + i] = tensor.values[i * out + o];
  const QString subject = QStringLiteral("<b>%1</b>").arg(tensor.subject.toHtmlEscaped());
  m_subjectForms = {
      tr("%1 · after step %2 · %3 × %4 (outputs × inputs)")
          .arg(subject)
          .arg(tensor.stepsDone)
          .arg(out)
          .arg(in),
      tr("%1 · after step %2 · %3 × %4").arg(subject).arg(tensor.stepsDone).arg(out).arg(in),
      tr("%1 · step %2").arg(subject).arg(tensor.stepsDone), subject};
  m_subjectName = tensor.subject;
  fitSubject();
  showMessage({}, false);
  recompute();
}

void QuantPanel::recompute() {
  if (!m_tensor || m_matrix.empty())
    return;
  const auto scheme = static_cast<BlockScheme>(m_scheme->currentData().toInt());
  const QuantizeOptions opts = options();
  const std::uint64_t generation = ++m_generation;
  ++m_pending;
  auto values = std::make_shared<const std::vector<double>>(m_matrix);
  QPointer<QuantPanel> self(this);
  QThreadPool::globalInstance()->start([self, values, scheme, opts, generation] {
    auto result = std::make_shared<Computed>();
    result->whatIf = whatIf(*values, opts);
    result->map = quantize(*values, scheme, opts);
    QMetaObject::invokeMethod(
        qApp,
        [self, result, generation] {
          QuantPanel* panel = self.data();
          if (panel == nullptr)
            return;
          --panel->m_pending;
          if (generation != panel->m_generation || !panel->m_tensor)
            return;
          const QString subject = panel->m_tensor->subject;
          panel->m_table->setStats(result->whatIf, subject);
          panel->fitTable();
          panel->m_mapQuantized = std::move(result->map);
          const auto& blocks = panel->m_mapQuantized->blocks;
          if (std::none_of(blocks.begin(), blocks.end(), [](const QuantBlock& b) { return b.amax != 0.0; }))
            panel->m_map->clear(tr("Every value of %1 is zero: a run that has not stepped yet has no gradients")
                                    .arg(subject));
          else
            panel->m_map->setQuantized(*panel->m_mapQuantized, subject, tr("output"), tr("input (K)"));
          emit panel->computed();
        },
        Qt::QueuedConnection);
  });
}

BlockView* QuantPanel::openBlock(int index) {
  if (!m_mapQuantized || index < 0 || std::size_t(index) >= m_mapQuantized->blocks.size())
    return nullptr;
  const QuantizedTensor& q = *m_mapQuantized;
  const QuantBlock& b = q.blocks[std::size_t(index)];
  std::vector<double> values;
  for (std::size_t r = b.row; r < b.row + b.rows && values.size() < BlockView::kMaxValues; ++r)
    for (std::size_t c = b.col; c < b.col + b.cols && values.size() < BlockView::kMaxValues; ++c)
      values.push_back(m_matrix[r * m_cols + c]);
  if (m_blockView == nullptr) {
    m_blockView = new BlockView(this);
    m_blockView->setWindowFlag(Qt::Window);
    m_blockView->resize(900, 700);
  }
  QString source = tr("%1 · output %2, inputs %3–%4").arg(m_tensor->subject).arg(b.row).arg(b.col).arg(b.col + b.cols - 1);
  if (b.count > values.size())
    source += tr(" · the first %1 of the block's %2 values").arg(values.size()).arg(b.count);
  if (q.scheme == BlockScheme::Nvfp4)
    source += tr(" · NVFP4's tensor scale here is this block's own");
  m_blockView->showBlock(values, q.scheme, options().scaleRounding, source);
  m_blockView->show();
  m_blockView->raise();
  return m_blockView;
}

} // namespace mantissa::ui
