// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/panels/policy_editor.h"

#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QEvent>
#include <QFormLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

namespace mantissa::ui {

namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

// A row's precision as its box shows it: matmul inputs under an FP8 or
// microscaling recipe show the recipe ("fp8-delayed"), as the spec names it.
QString shownPrecision(const amp::Policy& p, amp::OpClass c) {
  if (c == amp::OpClass::MatmulInputs && p.scaling.scheme != amp::MatmulScaling::None)
    return qs(amp::matmulScalingName(p.scaling.scheme));
  return qs(amp::precisionKey(p[c]));
}

const amp::PolicyPreset* presetNamed(const QString& name) {
  for (const auto& p : amp::policyPresets())
    if (qs(p.name) == name)
      return &p;
  return nullptr;
}

} // namespace

PolicyEditor::PolicyEditor(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* form = new QFormLayout;
  m_preset = new QComboBox;
  m_preset->setObjectName(QStringLiteral("policyPreset"));
  for (const auto& p : amp::policyPresets()) {
    m_preset->addItem(qs(p.name));
    m_preset->setItemData(m_preset->count() - 1, qs(p.summary), Qt::ToolTipRole);
  }
  form->addRow(tr("Preset"), m_preset);
  layout->addLayout(form);

  m_table = new QTableWidget(int(amp::kOpClassCount), 2);
  m_table->setObjectName(QStringLiteral("policyTable"));
  m_table->setHorizontalHeaderLabels({tr("Op class"), tr("Precision")});
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  m_table->setSelectionMode(QAbstractItemView::NoSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  // In a narrow setup dock the long class names ("activations stored for
  // backward", "LayerNorm/RMSNorm statistics") wrap onto a second line of
  // their row instead of ending in "...".
  m_table->setWordWrap(true);
  m_table->setTextElideMode(Qt::ElideNone);
  for (const amp::OpClass c : amp::opClasses()) {
    const int row = int(c);
    auto* item = new QTableWidgetItem(qs(amp::opClassLabel(c)));
    item->setToolTip(tr("%1 (--policy key: %2)").arg(qs(amp::opClassLabel(c)), qs(amp::opClassKey(c))));
    m_table->setItem(row, 0, item);
    auto* box = new QComboBox;
    box->addItems({QStringLiteral("fp32"), QStringLiteral("bf16"), QStringLiteral("fp16")});
    if (c == amp::OpClass::MatmulInputs) { // FP8 and microscaling of the linear layers' X, W, dY
      for (const amp::MatmulScaling scheme : amp::matmulScalings())
        box->addItem(qs(amp::matmulScalingName(scheme)));
      box->setToolTip(tr("fp8-delayed, fp8-current, fp8-block, mxfp8 and nvfp4 quantize every "
                         "linear layer's X, W and dY with that recipe and multiply in FP32; "
                         "attention's products then take BF16 inputs"));
    }
    box->setObjectName(QStringLiteral("precision_") + qs(amp::opClassKey(c)));
    auto* cell = new QWidget; // the box keeps its height in a row of two lines
    auto* cellLayout = new QVBoxLayout(cell);
    cellLayout->setContentsMargins(0, 0, 0, 0);
    cellLayout->addWidget(box, 0, Qt::AlignVCenter);
    m_table->setCellWidget(row, 1, cell);
    m_rows[std::size_t(row)] = box;
    connect(box, &QComboBox::currentTextChanged, this, [this] { update(); });
  }
  // The editor sets the policy of a GPT run (the only model that takes one),
  // and a GPT has no BatchNorm: that class's row (a CNN's, set by --batchnorm)
  // stays out of sight; its precision still follows the preset.
  m_table->setRowHidden(int(amp::OpClass::BatchNorm), true);
  m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  // A new width of the names' column wraps them to other heights.
  connect(m_table->horizontalHeader(), &QHeaderView::sectionResized, this, [this](int section) {
    if (section == 0)
      QMetaObject::invokeMethod(this, &PolicyEditor::fitTable, Qt::QueuedConnection);
  });
  fitTable();
  layout->addWidget(m_table);

  auto* extra = new QFormLayout;
  extra->setRowWrapPolicy(QFormLayout::WrapLongRows); // narrow setup docks: field under label
  m_promote = new QSpinBox;
  m_promote->setObjectName(QStringLiteral("promoteEvery"));
  m_promote->setRange(0, amp::kMaxPromoteEvery);
  m_promote->setSpecialValueText(tr("never"));
  m_promote->setToolTip(tr("16-bit accumulation: round the running sum after every addition, "
                           "and add it into an FP32 total every N_C products (0: never)"));
  extra->addRow(tr("16-bit sums: promote every N_C"), m_promote);
  m_softmaxMax = new QCheckBox(tr("Subtract row max before exp"));
  m_softmaxMax->setObjectName(QStringLiteral("softmaxMax"));
  extra->addRow(tr("Softmax"), m_softmaxMax);
  m_lossScaling = new QCheckBox(tr("Dynamic loss scaling"));
  m_lossScaling->setObjectName(QStringLiteral("lossScaling"));
  extra->addRow(tr("Loss"), m_lossScaling);
  layout->addLayout(extra);

  m_layerBox = new QWidget;
  auto* layerLayout = new QVBoxLayout(m_layerBox);
  layerLayout->setContentsMargins(0, 0, 0, 0);
  auto* layerHead = new QHBoxLayout;
  layerHead->addWidget(new QLabel(tr("Per-layer rows (over the table's):")), 1);
  m_clearLayers = new QPushButton(tr("Clear"));
  m_clearLayers->setToolTip(tr("Remove the per-layer rows: every layer follows the table"));
  connect(m_clearLayers, &QPushButton::clicked, this, &PolicyEditor::clearLayerRows);
  layerHead->addWidget(m_clearLayers);
  layerLayout->addLayout(layerHead);
  m_layerRows = new QLabel;
  m_layerRows->setTextFormat(Qt::PlainText);
  m_layerRows->setWordWrap(true);
  m_layerRows->setToolTip(tr("Rows for one block (hN) or one linear layer (hN.qkv, hN.attproj, "
                             "hN.fc, hN.fcproj), from the spec loaded (a precision sweep's "
                             "chosen policy, a --policy file)"));
  layerLayout->addWidget(m_layerRows);
  m_layerBox->hide();
  layout->addWidget(m_layerBox);
  connect(m_promote, &QSpinBox::valueChanged, this, [this] { update(); });
  connect(m_softmaxMax, &QCheckBox::toggled, this, [this] { update(); });
  connect(m_lossScaling, &QCheckBox::toggled, this, [this] { update(); });

  // The spec as the command line takes it, wrapped (after its commas) in a
  // narrow dock rather than scrolled out of sight; Copy puts the exact text
  // on the clipboard.
  m_spec = new QLabel;
  m_spec->setObjectName(QStringLiteral("policySpec"));
  m_spec->setWordWrap(true);
  m_spec->setTextFormat(Qt::PlainText);
  m_spec->setToolTip(tr("The same text runs this policy from the command line: "
                        "mantissa-cli train --policy SPEC"));
  auto* copy = new QPushButton(tr("Copy"));
  copy->setObjectName(QStringLiteral("copyPolicySpec"));
  copy->setToolTip(tr("Copy the spec for mantissa-cli train --policy"));
  connect(copy, &QPushButton::clicked, this,
          [this] { QGuiApplication::clipboard()->setText(m_editedSpec); });
  auto* specRow = new QHBoxLayout; // "--policy" and Copy, the spec in the whole width below
  specRow->addWidget(new QLabel(tr("Command line: --policy")), 1);
  specRow->addWidget(copy);
  layout->addLayout(specRow);
  layout->addWidget(m_spec);
  m_error = new QLabel;
  m_error->setObjectName(QStringLiteral("policyError"));
  m_error->setWordWrap(true);
  m_error->setStyleSheet(QStringLiteral("color: #c0392b; font-weight: bold"));
  m_error->hide();
  layout->addWidget(m_error);
  m_summary = new QLabel; // what the preset is
  m_summary->setWordWrap(true);
  layout->addWidget(m_summary);

  connect(m_preset, &QComboBox::currentTextChanged, this, [this](const QString& name) {
    if (!m_loading)
      setPreset(name);
  });
  setPreset(QStringLiteral("fp32"));
}

void PolicyEditor::fitTable() {
  m_table->resizeRowsToContents();
  int h = m_table->horizontalHeader()->sizeHint().height() + 2 * m_table->frameWidth();
  for (int r = 0; r < m_table->rowCount(); ++r)
    if (!m_table->isRowHidden(r))
      h += m_table->rowHeight(r);
  m_table->setMinimumHeight(h);
  m_table->setMaximumHeight(h);
}

void PolicyEditor::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange)
    QMetaObject::invokeMethod(this, &PolicyEditor::fitTable, Qt::QueuedConnection);
}

void PolicyEditor::load(const amp::Policy& p) {
  m_loading = true;
  m_loadedScaling = p.scaling;
  m_loadedUpdate = p.update;
  m_loadedLayers = p.layers;
  {
    const QSignalBlocker b(m_preset);
    m_preset->setCurrentText(QString::fromStdString(p.name));
  }
  for (const amp::OpClass c : amp::opClasses()) {
    const QSignalBlocker b(m_rows[std::size_t(c)]);
    m_rows[std::size_t(c)]->setCurrentText(shownPrecision(p, c));
  }
  {
    const QSignalBlocker b1(m_promote), b2(m_softmaxMax), b3(m_lossScaling);
    m_promote->setValue(p.promoteEvery);
    m_softmaxMax->setChecked(p.softmaxMax);
    m_lossScaling->setChecked(p.lossScaling);
  }
  m_loading = false;
  update();
}

void PolicyEditor::setPreset(const QString& name) {
  if (const auto* p = presetNamed(name))
    load(p->policy);
}

bool PolicyEditor::setSpec(const QString& spec) {
  try {
    load(amp::parsePolicy(spec.toStdString()));
    return true;
  } catch (const amp::PolicyError&) {
    return false;
  }
}

void PolicyEditor::clearLayerRows() {
  m_loadedLayers.clear();
  update();
}

void PolicyEditor::setPrecision(amp::OpClass c, const QString& precision) {
  m_rows[std::size_t(c)]->setCurrentText(precision);
}

QString PolicyEditor::precision(amp::OpClass c) const {
  return m_rows[std::size_t(c)]->currentText();
}

void PolicyEditor::setPromoteEvery(int n) { m_promote->setValue(n); }
void PolicyEditor::setSoftmaxMax(bool on) { m_softmaxMax->setChecked(on); }

// The spec: the preset, then each row that differs from it, then the extras
// that differ, as the CLI writes it; amp::parsePolicy decides what is valid.
void PolicyEditor::update() {
  if (m_loading)
    return;
  const amp::PolicyPreset* base = presetNamed(m_preset->currentText());
  if (!base)
    return;
  QString spec = m_preset->currentText();
  for (const amp::OpClass c : amp::opClasses()) {
    const QString value = m_rows[std::size_t(c)]->currentText();
    const bool overridden = value != shownPrecision(base->policy, c);
    if (overridden)
      spec += QStringLiteral(",%1=%2").arg(qs(amp::opClassKey(c)), value);
    QFont f = m_table->item(int(c), 0)->font();
    f.setBold(overridden);
    m_table->item(int(c), 0)->setFont(f);
    // Only the weight is set on the box: its size follows the page's font
    // (presenter mode and back) like every other box of the setup.
    QFont weight;
    weight.setBold(overridden);
    m_rows[std::size_t(c)]->setFont(weight);
  }
  fitTable(); // a name in bold may take another line
  // The FP8 options a loaded spec set (no box of their own), while its recipe stays.
  const amp::ScalingOptions defaults;
  if (m_loadedScaling.scheme != amp::MatmulScaling::None &&
      m_rows[std::size_t(amp::OpClass::MatmulInputs)]->currentText() ==
          qs(amp::matmulScalingName(m_loadedScaling.scheme))) {
    if (m_loadedScaling.historyLength != defaults.historyLength)
      spec += QStringLiteral(",fp8-history=%1").arg(m_loadedScaling.historyLength);
    if (m_loadedScaling.amaxCompute != defaults.amaxCompute)
      spec += QStringLiteral(",fp8-amax=%1").arg(qs(amp::amaxComputeName(m_loadedScaling.amaxCompute)));
    if (m_loadedScaling.margin != defaults.margin)
      spec += QStringLiteral(",fp8-margin=%1").arg(m_loadedScaling.margin);
  }
  if (m_promote->value() != base->policy.promoteEvery)
    spec += QStringLiteral(",promote-every=%1").arg(m_promote->value());
  if (m_softmaxMax->isChecked() != base->policy.softmaxMax)
    spec += m_softmaxMax->isChecked() ? QStringLiteral(",softmax-max=on")
                                      : QStringLiteral(",softmax-max=off");
  if (m_lossScaling->isChecked() != base->policy.lossScaling)
    spec += m_lossScaling->isChecked() ? QStringLiteral(",loss-scaling=on")
                                       : QStringLiteral(",loss-scaling=off");
  if (m_loadedUpdate != base->policy.update) // kept while its master weights stay BF16
    spec += QStringLiteral(",update=%1").arg(qs(amp::updateRoundingKey(m_loadedUpdate)));
  // The per-layer rows, last, as the parser's canonical spec writes them.
  QStringList layerRows;
  if (!m_loadedLayers.empty()) {
    amp::Policy withRows = base->policy;
    withRows.layers = m_loadedLayers;
    const std::string all = withRows.toSpec(), plain = base->policy.toSpec();
    const QString tail = qs(all.rfind(plain, 0) == 0 ? std::string_view(all).substr(plain.size())
                                                      : std::string_view());
    spec += tail;
    for (const QString& row : tail.split(u',', Qt::SkipEmptyParts))
      layerRows << QString(row).replace(u'=', QStringLiteral(" = "));
  }
  m_layerRows->setText(layerRows.join(u'\n'));
  m_layerBox->setVisible(!layerRows.isEmpty());
  m_editedSpec = spec;
  m_summary->setText(qs(base->summary));
  try {
    amp::parsePolicy(spec.toStdString());
    m_errorText.clear();
  } catch (const amp::PolicyError& e) {
    m_errorText = QString::fromUtf8(e.what());
  }
  QString shown = spec; // lines break after a comma only: hyphens shown non-breaking
  shown.replace(u'-', QChar(0x2011)).replace(u',', QStringLiteral(",\u200B"));
  m_spec->setText(shown);
  m_error->setText(m_errorText);
  m_error->setVisible(!m_errorText.isEmpty());
  emit changed();
}

QString PolicyEditor::spec() const { return m_errorText.isEmpty() ? m_editedSpec : QString(); }
QString PolicyEditor::editedSpec() const { return m_editedSpec; }
QString PolicyEditor::error() const { return m_errorText; }

std::optional<amp::Policy> PolicyEditor::policy() const {
  if (!m_errorText.isEmpty())
    return std::nullopt;
  return amp::parsePolicy(m_editedSpec.toStdString());
}

} // namespace mantissa::ui
