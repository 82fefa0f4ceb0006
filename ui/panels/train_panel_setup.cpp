// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/panels/train_panel_setup.h"

#include "ui/app_shell/palette.h"
#include "ui/bridge/run_names.h"
#include "ui/panels/chip_grid_layout.h"
#include "ui/panels/memory_need_text.h"
#include "ui/panels/policy_editor.h"

#include <mantissa/amp/recipe.h>
#include <mantissa/data/dataset.h>
#include <mantissa/data/text.h>
#include <mantissa/model/model_registry.h>
#include <mantissa/train/memory_budget.h>
#include <mantissa/train/presets.h>

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace mantissa::ui {

namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

// A recipe toggle whose checked state reads at a glance, on a projector too:
// filled, bold and ticked (however it was set: a click, a preset, the setup).
// Painted here rather than by a style sheet, which would pin the font it was
// polished with (leaving presenter mode left the toggles at presenter size).
class RecipeChip : public QPushButton {
public:
  explicit RecipeChip(const QString& name) : QPushButton(name), m_name(name) { setCheckable(true); }

  // As wide checked as unchecked (bold, ticked): the grid does not move
  // when a recipe is picked.
  QSize sizeHint() const override {
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics fm(bold);
    const QSize base = QPushButton::sizeHint();
    return {std::max(base.width(), fm.horizontalAdvance(QStringLiteral("✓ ") + m_name) + 12), base.height()};
  }

protected:
  void checkStateSet() override {
    QPushButton::checkStateSet();
    showState();
  }
  void nextCheckState() override {
    QPushButton::nextCheckState();
    showState();
  }
  void paintEvent(QPaintEvent* event) override {
    if (!isChecked()) {
      QPushButton::paintEvent(event);
      return;
    }
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QColor fill = isEnabled() ? palette::kBlue : palette::blend(palette::kBlue, Qt::gray, 0.5);
    p.setPen(QPen(fill.darker(140), 2.0));
    p.setBrush(fill);
    p.drawRoundedRect(QRectF(rect()).adjusted(1, 1, -1, -1), 4, 4);
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(Qt::white);
    p.drawText(rect(), Qt::AlignCenter, text());
    if (hasFocus()) {
      p.setPen(QPen(Qt::white, 1.0, Qt::DotLine));
      p.setBrush(Qt::NoBrush);
      p.drawRoundedRect(QRectF(rect()).adjusted(3.5, 3.5, -3.5, -3.5), 3, 3);
    }
  }

private:
  void showState() { setText(isChecked() ? QStringLiteral("✓ ") + m_name : m_name); }
  QString m_name;
};

} // namespace

QSize TrainSetup::sizeHint() const {
  const QMargins m = layout()->contentsMargins();
  const int width = std::max(minimumSizeHint().width(), m_recipes->sizeHint().width() + m.left() + m.right());
  return {width, QWidget::sizeHint().height()};
}

std::vector<train::RunConfig> TrainSetup::defaultConfigs() {
  std::vector<train::RunConfig> runs;
  for (const char* recipe : {"fp32", "bf16-mixed", "fp16-mixed"}) {
    train::RunConfig c = train::referenceRun(recipe);
    c.telemetryEvery = 5;
    runs.push_back(c);
  }
  return runs;
}

TrainSetup::TrainSetup(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("trainSetup"));
  auto* layout = new QVBoxLayout(this);

  auto* presets = new QGroupBox(tr("Phenomena (one click)"));
  auto* presetGrid = new ChipGridLayout(presets);
  for (const auto& preset : train::presets()) {
    auto* button = new QPushButton(qs(preset.name));
    button->setObjectName(QStringLiteral("preset_") + qs(preset.name));
    button->setToolTip(qs(preset.title) + QStringLiteral("\n\n") + qs(preset.explanation));
    const QString name = qs(preset.name);
    connect(button, &QPushButton::clicked, this, [this, name] { applyPreset(name); });
    presetGrid->addWidget(button);
  }
  layout->addWidget(presets);

  auto* recipes = new QGroupBox(tr("Recipes (one run each)"));
  m_recipes = recipes;
  auto* chipGrid = new ChipGridLayout(recipes);
  for (const auto& recipe : amp::recipes()) {
    auto* chip = new RecipeChip(qs(recipe.name));
    chip->setObjectName(QStringLiteral("recipe_") + qs(recipe.name));
    chip->setToolTip(qs(recipe.summary));
    connect(chip, &QPushButton::toggled, this, &TrainSetup::editedByHand);
    m_recipeChips[qs(recipe.name)] = chip;
    chipGrid->addWidget(chip);
  }
  layout->addWidget(recipes);

  auto* form = new QFormLayout;
  m_data = new QComboBox;
  m_data->setEditable(true);
  for (const auto& name : data::builtinNames())
    m_data->addItem(qs(name));
  m_data->addItem(QStringLiteral("shakespeare")); // text, for a GPT
  m_data->setToolTip(tr("A built-in set (shakespeare: Tiny Shakespeare, text for a GPT), or "
                        "the path of an IDX, CSV or text file"));
  form->addRow(tr("Data"), m_data);

  m_model = new QLineEdit;
  m_model->setObjectName(QStringLiteral("modelSpec"));
  m_model->setToolTip(tr("mlp:WIDTHS[:ACTIVATION], e.g. mlp:784-256-256-10:relu; for images "
                          "also cnn:lenet, cnn:lenet-bn or cnn:LAYERS, e.g. "
                          "cnn:c32k5b-p2-c64k5b-p2-f128 (cNkK[b] convolution, b = BatchNorm; "
                          "p2 pooling; fN fully connected); for text "
                          "gpt:layers=L,heads=H,embd=E,ctx=T"));
  m_modelChoice = new QComboBox;
  m_modelChoice->setObjectName(QStringLiteral("modelChoice"));
  m_modelChoice->setToolTip(tr("Models for this data: MLPs and CNNs for images, a GPT for text"));
  // Sized apart from its items, which change with the data.
  m_modelChoice->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_modelChoice->setMinimumContentsLength(10);
  auto* modelRow = new QHBoxLayout;
  modelRow->addWidget(m_model, 1);
  modelRow->addWidget(m_modelChoice);
  form->addRow(tr("Model"), modelRow);
  connect(m_modelChoice, &QComboBox::activated, this, [this](int index) {
    const QString spec = m_modelChoice->itemData(index).toString();
    if (!spec.isEmpty())
      m_model->setText(spec);
  });
  m_modelError = new QLabel;
  m_modelError->setObjectName(QStringLiteral("modelError"));
  m_modelError->setWordWrap(true);
  m_modelError->setStyleSheet(QStringLiteral("color: %1").arg(palette::kWarning.name()));
  m_modelError->hide();
  form->addRow(QString(), m_modelError);

  m_scaler = new QComboBox;
  m_scaler->addItem(tr("recipe default"), QString());
  for (const char* s : {"pytorch", "keras", "apex", "deepspeed", "megatron", "static:1024", "none"})
    m_scaler->addItem(QString::fromLatin1(s), QString::fromLatin1(s));
  m_scaler->setToolTip(tr("Loss-scaler preset for recipes that scale the loss"));
  form->addRow(tr("Loss scaler"), m_scaler);

  m_optimizer = new QComboBox;
  m_optimizer->addItems({QStringLiteral("sgd"), QStringLiteral("adamw")});
  form->addRow(tr("Optimizer"), m_optimizer);
  m_lr = new QDoubleSpinBox;
  m_lr->setDecimals(5);
  m_lr->setRange(0.00001, 10.0);
  m_lr->setSingleStep(0.005);
  form->addRow(tr("Learning rate"), m_lr);
  m_batch = new QSpinBox;
  m_batch->setObjectName(QStringLiteral("batch"));
  m_batch->setRange(1, 4096);
  form->addRow(tr("Batch"), m_batch);
  auto* length = new QHBoxLayout;
  m_length = new QSpinBox;
  m_length->setRange(1, 10'000'000);
  m_lengthUnit = new QComboBox;
  m_lengthUnit->addItems({tr("epochs"), tr("steps")});
  length->addWidget(m_length, 1);
  length->addWidget(m_lengthUnit);
  form->addRow(tr("Length"), length);
  m_seed = new QSpinBox;
  m_seed->setRange(0, 1'000'000'000);
  form->addRow(tr("Seed"), m_seed);
  m_telemetry = new QSpinBox;
  m_telemetry->setRange(0, 100000);
  m_telemetry->setSpecialValueText(tr("off"));
  m_telemetry->setSuffix(tr(" steps"));
  m_telemetry->setToolTip(tr("A histogram frame every K steps (0 = off)"));
  form->addRow(tr("Histograms every"), m_telemetry);
  m_shadow = new QComboBox;
  m_shadow->setObjectName(QStringLiteral("shadowReference"));
  m_shadow->addItem(tr("Off"), QString());
  m_shadow->addItem(tr("FP32"), QStringLiteral("fp32"));
  m_shadow->addItem(tr("FP64"), QStringLiteral("fp64"));
  m_shadow->setToolTip(tr("At every histogram step, run the step's batch again through a copy of "
                          "the model in FP32 or FP64 and measure each tensor's error against it "
                          "(the Error view). Runs at the histogram steps only (Histograms every), "
                          "costing one more forward and backward there; Check Against Reference "
                          "Now asks for one step at any time."));
  form->addRow(tr("Shadow reference"), m_shadow);
  m_shadowThreshold = new QDoubleSpinBox;
  m_shadowThreshold->setObjectName(QStringLiteral("shadowThreshold"));
  m_shadowThreshold->setDecimals(4);
  m_shadowThreshold->setRange(0.0001, 10000.0);
  m_shadowThreshold->setSuffix(tr(" %"));
  m_shadowThreshold->setToolTip(tr("The first tensor whose error ‖a − r‖ / ‖r‖ against the "
                                   "reference exceeds this is named (1 % = 0.01)"));
  form->addRow(tr("Name tensors over"), m_shadowThreshold);
  m_evalEvery = new QSpinBox;
  m_evalEvery->setObjectName(QStringLiteral("evalEvery"));
  m_evalEvery->setRange(0, 1'000'000);
  m_evalEvery->setSuffix(tr(" steps"));
  form->addRow(tr("Evaluate every"), m_evalEvery);
  m_evalBatches = new QSpinBox;
  m_evalBatches->setObjectName(QStringLiteral("evalBatches"));
  m_evalBatches->setRange(1, 10000);
  m_evalBatches->setToolTip(tr("train_loss and val_loss are measured on this many fixed batches"));
  form->addRow(tr("Evaluation batches"), m_evalBatches);
  m_form = form;
  layout->addLayout(form);

  auto* policyBox = new QGroupBox(tr("Precision policy"));
  // As wide as the setup's other rows, not wider: the editor wraps its
  // op-class names to the column it is given.
  policyBox->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  auto* policyLayout = new QVBoxLayout(policyBox);
  m_policyRun = new QCheckBox(tr("Also train a run in this policy:"));
  m_policyRun->setObjectName(QStringLiteral("policyRun"));
  policyLayout->addWidget(m_policyRun);
  m_policy = new PolicyEditor;
  policyLayout->addWidget(m_policy);
  layout->addWidget(policyBox);
  connect(m_policyRun, &QCheckBox::toggled, this, &TrainSetup::validate);
  connect(m_policy, &PolicyEditor::changed, this, &TrainSetup::validate);

  m_problems = new QLabel;
  m_problems->setObjectName(QStringLiteral("setupProblems"));
  m_problems->setWordWrap(true);
  m_problems->setStyleSheet(QStringLiteral("color: %1").arg(palette::kWarning.name()));
  layout->addWidget(m_problems);
  m_beyond = new QLabel;
  m_beyond->setObjectName(QStringLiteral("setupBeyondFields"));
  m_beyond->setWordWrap(true);
  m_beyond->setToolTip(tr("Settings of the preset that have no field here; choosing anything "
                          "by hand returns them to their defaults"));
  layout->addWidget(m_beyond);
  m_memory = new QLabel;
  m_memory->setObjectName(QStringLiteral("setupMemory"));
  m_memory->setWordWrap(true);
  layout->addWidget(m_memory);
  layout->addStretch(1);

  // setConfigs() blocks these signals: they fire only for edits by hand.
  for (QLineEdit* e : {m_model})
    connect(e, &QLineEdit::textChanged, this, &TrainSetup::editedByHand);
  connect(m_data, &QComboBox::currentTextChanged, this, &TrainSetup::editedByHand);
  // The shadow pass is read by configs() for every run: choosing it keeps a preset.
  connect(m_shadow, &QComboBox::currentIndexChanged, this, &TrainSetup::validate);
  connect(m_shadowThreshold, &QDoubleSpinBox::valueChanged, this, &TrainSetup::validate);
  for (QComboBox* c : {m_scaler, m_optimizer, m_lengthUnit})
    connect(c, &QComboBox::currentIndexChanged, this, &TrainSetup::editedByHand);
  connect(m_lr, &QDoubleSpinBox::valueChanged, this, &TrainSetup::editedByHand);
  for (QSpinBox* s : {m_batch, m_length, m_seed, m_telemetry, m_evalEvery, m_evalBatches})
    connect(s, &QSpinBox::valueChanged, this, &TrainSetup::editedByHand);

  setConfigs(defaultConfigs());
}

void TrainSetup::setConfigs(const std::vector<train::RunConfig>& runs) {
  if (runs.empty())
    return;
  m_base = runs;
  const train::RunConfig& c = runs.front();
  const QSignalBlocker blocks[] = {QSignalBlocker(m_data),   QSignalBlocker(m_model),
                                   QSignalBlocker(m_scaler), QSignalBlocker(m_optimizer),
                                   QSignalBlocker(m_lr),     QSignalBlocker(m_batch),
                                   QSignalBlocker(m_length), QSignalBlocker(m_lengthUnit),
                                   QSignalBlocker(m_seed),   QSignalBlocker(m_telemetry),
                                   QSignalBlocker(m_evalEvery), QSignalBlocker(m_evalBatches),
                                   QSignalBlocker(m_policyRun), QSignalBlocker(m_policy),
                                   QSignalBlocker(m_shadow),   QSignalBlocker(m_shadowThreshold)};
  m_data->setCurrentText(QString::fromStdString(c.data));
  m_model->setText(QString::fromStdString(c.model));
  m_model->setCursorPosition(0); // a narrow field shows the spec's start ("mlp:784-…"), not its end
  const int scaler = m_scaler->findData(QString::fromStdString(c.scaler));
  m_scaler->setCurrentIndex(scaler >= 0 ? scaler : 0);
  m_optimizer->setCurrentText(QString::fromStdString(c.optimizer));
  m_lr->setValue(c.lr);
  m_batch->setValue(c.batch);
  m_lengthUnit->setCurrentIndex(c.steps > 0 ? 1 : 0);
  m_length->setValue(int(c.steps > 0 ? c.steps : std::max<std::int64_t>(c.epochs, 1)));
  m_seed->setValue(int(c.seed));
  m_telemetry->setValue(c.telemetryEvery);
  m_evalEvery->setValue(int(c.evalEvery));
  m_evalBatches->setValue(c.evalBatches);
  const int shadow = m_shadow->findData(QString::fromStdString(c.shadow));
  m_shadow->setCurrentIndex(shadow >= 0 ? shadow : 0);
  m_shadowThreshold->setValue(100.0 * c.shadowThreshold);
  const auto policyRun = std::find_if(runs.begin(), runs.end(),
                                      [](const auto& r) { return !r.policy.empty(); });
  m_policyRun->setChecked(policyRun != runs.end());
  if (policyRun != runs.end())
    m_policy->setSpec(QString::fromStdString(policyRun->policy));
  for (auto& [name, chip] : m_recipeChips) {
    const QSignalBlocker block(chip);
    chip->setChecked(std::any_of(runs.begin(), runs.end(), [&n = name](const auto& r) {
      return r.policy.empty() && QString::fromStdString(r.recipe) == n;
    }));
  }
  validate();
}

void TrainSetup::applyPreset(const QString& name) {
  const train::Preset* preset = train::findPreset(name.toStdString());
  if (!preset)
    return;
  setConfigs(preset->runs);
  m_presetActive = true;
  emit presetApplied(QString::fromStdString(preset->title),
                     QString::fromStdString(preset->explanation));
}

// Anything chosen by hand ends a preset: its values the form does not show
// (the loss multiplier, the scaler's initial scale and growth interval, ...)
// go back to the defaults (a GPT's are the shakespeare-char preset's), so
// every run trains with what Setup shows.
void TrainSetup::editedByHand() {
  if (m_presetActive) {
    m_presetActive = false;
    const std::string defaults =
        model::modelKind(m_model->text().trimmed().toStdString()).defaultsPreset;
    m_base = defaults.empty() ? defaultConfigs() : train::findPreset(defaults)->runs;
    emit presetEnded();
  }
  validate();
}

QStringList TrainSetup::checkedRecipes() const {
  QStringList out;
  for (const auto& recipe : amp::recipes()) { // the UI's order, not the map's
    const auto* chip = m_recipeChips.at(qs(recipe.name));
    if (chip->isChecked())
      out << qs(recipe.name);
  }
  return out;
}

// A QComboBox forgets its size hint on a font change but keeps its minimum
// size hint, which a layout may have read under the old font meanwhile (the
// policy editor fits its table on a font change): a style change clears both,
// so every box of the setup returns to its size when presenter mode ends.
void TrainSetup::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() != QEvent::FontChange)
    return;
  for (QComboBox* box : findChildren<QComboBox*>()) {
    QEvent styleChange(QEvent::StyleChange);
    QCoreApplication::sendEvent(box, &styleChange);
  }
}

void TrainSetup::setPolicyRun(bool on) { m_policyRun->setChecked(on); }

void TrainSetup::setRecipeChecked(const QString& recipe, bool on) {
  if (auto it = m_recipeChips.find(recipe); it != m_recipeChips.end())
    it->second->setChecked(on);
}

train::RunConfig TrainSetup::baseFor(const std::string& recipe) const {
  for (const auto& r : m_base)
    if (r.policy.empty() && r.recipe == recipe)
      return r;
  train::RunConfig c = m_base.empty() ? train::RunConfig{} : m_base.front();
  c.recipe = recipe;
  c.policy.clear();
  c.scaler.clear(); // a scaler of another recipe may not apply to this one
  c.scalerInitScale.reset();
  c.scalerGrowthInterval.reset();
  return c;
}

std::vector<train::RunConfig> TrainSetup::configs() const {
  std::vector<train::RunConfig> out;
  // The preset's order first (its first run is the one the phenomenon is about).
  QStringList order;
  const QStringList checked = checkedRecipes();
  for (const auto& r : m_base)
    if (r.policy.empty() && checked.contains(QString::fromStdString(r.recipe)))
      order << QString::fromStdString(r.recipe);
  for (const QString& r : checked)
    if (!order.contains(r))
      order << r;
  const bool text = model::readsTokens(m_model->text().trimmed().toStdString());
  if (m_policyRun->isChecked() && !m_policy->spec().isEmpty())
    order << QString(); // the policy run, after the recipes
  for (const QString& recipe : order) {
    train::RunConfig c = baseFor(recipe.isEmpty() ? std::string("fp32") : recipe.toStdString());
    if (recipe.isEmpty())
      c.policy = m_policy->spec().toStdString();
    c.data = m_data->currentText().trimmed().toStdString();
    c.model = m_model->text().trimmed().toStdString();
    const QString scaler = m_scaler->currentData().toString();
    const amp::Recipe* r = amp::findRecipe(c.recipe);
    if (!scaler.isEmpty() && r && r->lossScaling)
      c.scaler = scaler.toStdString();
    c.optimizer = m_optimizer->currentText().toStdString();
    c.lr = m_lr->value();
    c.batch = m_batch->value();
    c.steps = m_lengthUnit->currentIndex() == 1 ? m_length->value() : 0;
    c.epochs = m_lengthUnit->currentIndex() == 0 ? m_length->value() : 0;
    c.seed = std::uint64_t(m_seed->value());
    c.telemetryEvery = m_telemetry->value();
    c.evalEvery = m_evalEvery->value();
    c.shadow = m_shadow->currentData().toString().toStdString();
    c.shadowThreshold = m_shadowThreshold->value() / 100.0;
    if (text)
      c.evalBatches = m_evalBatches->value();
    if (c.steps > 0 && c.warmupSteps >= c.steps)
      c.warmupSteps = c.steps / 10; // as the CLI does for a short run
    out.push_back(c);
  }
  return out;
}

train::ShadowPrecision TrainSetup::onDemandShadow() const {
  return m_shadow->currentData().toString() == QStringLiteral("fp64") ? train::ShadowPrecision::F64
                                                                      : train::ShadowPrecision::F32;
}

QString TrainSetup::problems() const {
  QStringList out;
  if (m_policyRun->isChecked() && !m_policy->error().isEmpty())
    out << tr("Policy: %1").arg(m_policy->error());
  const auto runs = configs();
  if (runs.empty() && out.isEmpty())
    out << tr("Check at least one recipe, or a policy run.");
  for (const auto& c : runs)
    for (const auto& p : c.problems())
      out << QString::fromStdString(p); // the form's fields are shared by every run
  out.removeDuplicates();
  return out.join(u'\n');
}

namespace {

// The built-in image sets, and IDX image files, are 28x28 (or other) images.
bool namesImages(const QString& data) {
  return data == QLatin1String("mnist") || data == QLatin1String("fashion") ||
         data == QLatin1String("mnist-10k") || data == QLatin1String("fashion-12k") ||
         data.contains(QLatin1String("idx3"), Qt::CaseInsensitive);
}

} // namespace

void TrainSetup::showBeyondFields() {
  QStringList lines;
  for (const auto& c : configs())
    if (const QStringList s = settingsBeyondSetupText(c); !s.isEmpty())
      lines << tr("%1: %2").arg(QString::fromStdString(c.recipe), s.join(QStringLiteral(", ")));
  m_beyond->setText(tr("Also set by the preset:\n%1").arg(lines.join(u'\n')));
  m_beyond->setVisible(!lines.isEmpty());
}

void TrainSetup::showMemory() {
  // The shape of the data for a CNN's layout: the built-in image sets are
  // 28x28 digits or clothes in 10 classes (an MLP's spec holds its own).
  data::Dataset shape;
  shape.features = 784;
  shape.imageWidth = shape.imageHeight = 28;
  shape.classes = 10;
  const auto runs = configs();
  train::MemoryNeed need; // the runs are built side by side: their terms add up
  if (!runs.empty() && model::readsTokens(runs.front().model)) {
    try {
      for (const auto& c : runs) {
        const model::ModelKind& kind = model::modelKind(c.model);
        if (m_vocabulary == 0) // the distinct characters of the text: the embedding's rows
          m_vocabulary = data::loadTextSpec(c.data, kind.context(c.model)).vocabularySize();
        const bool kahan =
            amp::recipeByName(c.recipe).updateRounding == amp::UpdateRounding::Kahan;
        model::ModelBuild b;
        b.spec = c.model;
        b.batch = c.batch;
        b.vocabulary = m_vocabulary;
        need.add(train::modelMemoryNeed(b, c.optimizer == "adamw", kahan, c.evalBatches));
      }
    } catch (const std::exception&) {
      need = {}; // the problems label says what is wrong with the runs
    }
    showMemoryNeed(m_memory, need);
    return;
  }
  // A layer list (an MLP's) holds its own shape; other families need the data's.
  const bool known = !runs.empty() && (namesImages(m_data->currentText().trimmed()) ||
                                       model::modelKind(runs.front().model).name ==
                                           std::string_view("mlp"));
  for (const auto& c : known ? runs : std::vector<train::RunConfig>{})
    need.add(train::imageMemoryNeed(c, shape));
  showMemoryNeed(m_memory, need);
}

void TrainSetup::offerModels() {
  const bool images = namesImages(m_data->currentText().trimmed());
  const bool text = m_data->currentText().trimmed() == QLatin1String("shakespeare");
  const QSignalBlocker block(m_modelChoice);
  m_modelChoice->clear();
  m_modelChoice->addItem(tr("choose…"), QString());
  // Text models first, then image models, each family's offers in the
  // order of the registry.
  for (const auto input : {model::ModelInput::Tokens, model::ModelInput::Images})
    for (const model::ModelKind* kind : model::modelKinds())
      if (kind->input == input && (input == model::ModelInput::Tokens ? text : images))
        for (const model::ModelOffer& offer : kind->offered) {
          m_modelChoice->addItem(QString::fromUtf8(offer.label), QString::fromUtf8(offer.spec));
          const QString tip = QString::fromUtf8(*offer.tip ? offer.tip : kind->description);
          m_modelChoice->setItemData(m_modelChoice->count() - 1, tip, Qt::ToolTipRole);
        }
  m_modelChoice->setEnabled(images || text);
  // The chooser names the model the field holds when it offers it (a narrow
  // field shows only the spec's start, "gpt:lay…").
  m_modelChoice->setCurrentIndex(std::max(0, m_modelChoice->findData(m_model->text().trimmed())));
}

void TrainSetup::showModelFields(bool gpt) {
  m_form->setRowVisible(m_evalBatches, gpt);
  m_evalEvery->setSpecialValueText(gpt ? tr("at the end") : tr("each epoch"));
  m_evalEvery->setToolTip(gpt ? tr("train_loss and val_loss on fixed batches every N steps: "
                                   "the dashed validation curve")
                              : tr("Test accuracy every N steps (0: after each epoch)"));
}

void TrainSetup::validate() {
  offerModels();
  QString modelProblem;
  try {
    const std::string spec = m_model->text().trimmed().toStdString();
    const model::ModelKind& kind = model::modelKind(spec);
    showModelFields(kind.input == model::ModelInput::Tokens);
    kind.parse(spec);
  } catch (const std::exception& e) {
    modelProblem = QString::fromUtf8(e.what());
  }
  m_modelError->setText(modelProblem);
  m_modelError->setVisible(!modelProblem.isEmpty());
  m_model->setStyleSheet(modelProblem.isEmpty()
                             ? QString()
                             : QStringLiteral("border: 2px solid %1").arg(palette::kWarning.name()));
  m_problems->setText(problems());
  showBeyondFields();
  showMemory();
  emit changed();
}

} // namespace mantissa::ui
