// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/panels/gpt_setup.h"

#include "ui/panels/memory_need_text.h"
#include "ui/panels/policy_editor.h"

#include <mantissa/amp/recipe.h>
#include <mantissa/data/text.h>
#include <mantissa/model/gpt.h>
#include <mantissa/train/memory_budget.h>
#include <mantissa/train/presets.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace mantissa::ui {

namespace {

// The recipes offered side by side: the ones a GPT lesson compares, then the
// FP8 and microscaling recipes (bf16-mixed with the linear layers' operands quantized).
const char* const kRecipes[] = {"fp32",        "bf16-mixed",  "fp16-mixed", "bf16-pure",
                                "fp8-delayed", "fp8-current", "fp8-block",  "mxfp8",
                                "nvfp4"};

} // namespace

GptSetup::GptSetup(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  m_preset = new QComboBox;
  m_preset->setObjectName(QStringLiteral("gptPreset"));
  m_preset->addItem(tr("Tiny Shakespeare"), QStringLiteral("shakespeare-char"));
  m_preset->setToolTip(tr("nanoGPT's CPU configuration: 4 layers, 4 heads, embedding 128, "
                          "context 64, batch 12, AdamW lr 1e-3, warm-up 100 then cosine"));
  form->addRow(tr("Preset"), m_preset);
  const train::RunConfig& preset = train::findPreset("shakespeare-char")->runs.front();
  auto* model = new QLabel(tr("shakespeare-char: 4 layers, 4 heads, embedding 128, context 64, "
                              "batch 12"));
  model->setWordWrap(true);
  form->addRow(tr("Model"), model);
  m_steps = new QSpinBox;
  m_steps->setObjectName(QStringLiteral("gptSteps"));
  m_steps->setRange(1, 1000000);
  m_steps->setValue(int(preset.steps));
  form->addRow(tr("Steps"), m_steps);
  m_telemetry = new QSpinBox;
  m_telemetry->setObjectName(QStringLiteral("gptTelemetry"));
  m_telemetry->setRange(0, 100000);
  m_telemetry->setValue(25);
  m_telemetry->setSpecialValueText(tr("off"));
  m_telemetry->setToolTip(tr("A frame of histograms (weights, gradients, attention "
                             "probabilities, LayerNorm inputs, ...) every K steps"));
  form->addRow(tr("Histograms every"), m_telemetry);
  m_evalEvery = new QSpinBox;
  m_evalEvery->setObjectName(QStringLiteral("gptEvalEvery"));
  m_evalEvery->setRange(0, 1000000);
  m_evalEvery->setValue(int(preset.evalEvery));
  m_evalEvery->setSpecialValueText(tr("at the end"));
  m_evalEvery->setToolTip(tr("train_loss and val_loss on fixed batches every N steps: the "
                             "dashed validation curve"));
  form->addRow(tr("Evaluate every"), m_evalEvery);
  layout->addLayout(form);

  auto* recipes = new QGroupBox(tr("Recipes, side by side"));
  auto* grid = new QGridLayout(recipes);
  int i = 0;
  for (const char* name : kRecipes) {
    if (!amp::findRecipe(name))
      continue;
    auto* box = new QCheckBox(QString::fromLatin1(name));
    box->setObjectName(QStringLiteral("gptRecipe_") + QString::fromLatin1(name));
    box->setToolTip(QString::fromStdString(std::string(amp::findRecipe(name)->summary)));
    box->setChecked(i < 2); // fp32 and bf16-mixed: the pair
    grid->addWidget(box, i, 0);
    m_recipes[QString::fromLatin1(name)] = box;
    connect(box, &QCheckBox::toggled, this, &GptSetup::validate);
    ++i;
  }
  layout->addWidget(recipes);

  auto* policyBox = new QGroupBox(tr("Precision policy"));
  auto* policyLayout = new QVBoxLayout(policyBox);
  m_policyRun = new QCheckBox(tr("Also train a run in this policy:"));
  m_policyRun->setObjectName(QStringLiteral("gptPolicyRun"));
  policyLayout->addWidget(m_policyRun);
  m_policy = new PolicyEditor;
  policyLayout->addWidget(m_policy);
  layout->addWidget(policyBox);
  connect(m_policyRun, &QCheckBox::toggled, this, &GptSetup::validate);
  connect(m_policy, &PolicyEditor::changed, this, &GptSetup::validate);

  m_problems = new QLabel;
  m_problems->setObjectName(QStringLiteral("gptProblems"));
  m_problems->setWordWrap(true);
  m_problems->setStyleSheet(QStringLiteral("color: #c0392b; font-weight: bold"));
  layout->addWidget(m_problems);
  m_memory = new QLabel;
  m_memory->setObjectName(QStringLiteral("gptMemory"));
  m_memory->setWordWrap(true);
  layout->addWidget(m_memory);
  m_setUp = new QPushButton(tr("Set up GPT runs"));
  m_setUp->setObjectName(QStringLiteral("gptSetUp"));
  m_setUp->setToolTip(tr("Replaces the runs with these GPT runs; Start trains them"));
  layout->addWidget(m_setUp);
  layout->addStretch(1);
  connect(m_setUp, &QPushButton::clicked, this, [this] {
    if (problems().isEmpty())
      emit runsRequested(configs());
  });
  connect(m_steps, &QSpinBox::valueChanged, this, &GptSetup::validate);
  validate();
}

std::vector<train::RunConfig> GptSetup::configs() const {
  std::vector<train::RunConfig> out;
  train::RunConfig base = train::findPreset("shakespeare-char")->runs.front();
  base.steps = m_steps->value();
  if (base.warmupSteps >= base.steps)
    base.warmupSteps = base.steps / 10; // as the CLI does for a short run
  base.telemetryEvery = m_telemetry->value();
  base.evalEvery = m_evalEvery->value();
  for (const auto& [name, box] : m_recipes)
    if (box->isChecked()) {
      train::RunConfig c = base;
      c.recipe = name.toStdString();
      out.push_back(c);
    }
  // Recipes in the offered order, not the map's.
  std::vector<train::RunConfig> ordered;
  for (const char* name : kRecipes)
    for (const auto& c : out)
      if (c.recipe == name)
        ordered.push_back(c);
  if (m_policyRun->isChecked() && !m_policy->spec().isEmpty()) {
    train::RunConfig c = base;
    c.policy = m_policy->spec().toStdString();
    ordered.push_back(c);
  }
  return ordered;
}

QString GptSetup::problems() const {
  QStringList out;
  if (m_policyRun->isChecked() && !m_policy->error().isEmpty())
    out << tr("Policy: %1").arg(m_policy->error());
  const auto runs = configs();
  if (runs.empty() && out.isEmpty())
    out << tr("Choose at least one recipe, or a policy run.");
  for (const auto& c : runs)
    for (const auto& p : c.problems())
      out << QString::fromStdString(p);
  out.removeDuplicates();
  return out.join(u'\n');
}

void GptSetup::validate() {
  const QString p = problems();
  m_problems->setText(p);
  m_problems->setVisible(!p.isEmpty());
  m_setUp->setEnabled(p.isEmpty());
  showMemory();
}

void GptSetup::showMemory() {
  train::MemoryNeed need; // the runs are built side by side: their terms add up
  try {
    for (const auto& c : configs()) {
      const model::GptSpec spec = model::parseGptSpec(c.model);
      if (m_vocabulary == 0) // the distinct characters of the text: the embedding's rows
        m_vocabulary = data::loadTextSpec(c.data, spec.ctx).vocabularySize();
      const bool kahan = amp::recipeByName(c.recipe).updateRounding == amp::UpdateRounding::Kahan;
      need.add(train::gptMemoryNeed(spec, m_vocabulary, c.batch, c.evalBatches, kahan));
    }
  } catch (const std::exception&) {
    need = {}; // the problems label says what is wrong with the runs
  }
  showMemoryNeed(m_memory, need);
}

void GptSetup::setSteps(int steps) { m_steps->setValue(steps); }
void GptSetup::setTelemetryEvery(int k) { m_telemetry->setValue(k); }
void GptSetup::setEvalEvery(int steps) { m_evalEvery->setValue(steps); }
void GptSetup::setRecipeChecked(const QString& recipe, bool on) {
  if (const auto it = m_recipes.find(recipe); it != m_recipes.end())
    it->second->setChecked(on);
}
void GptSetup::setPolicyRun(bool on) { m_policyRun->setChecked(on); }

} // namespace mantissa::ui
