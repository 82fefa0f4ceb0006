// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "background_scans.h"

#include <mantissa/amp/policy.h>
#include <mantissa/data/dataset.h>
#include <mantissa/io/excerpt.h>
#include <mantissa/kernels/threads.h>
#include <mantissa/model/model_registry.h>
#include <mantissa/telemetry/tensor_scan.h>
#include <mantissa/tensor/run_state.h>
#include <mantissa/train/memory_budget.h>
#include <mantissa/train/session.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <random>
#include <string>

namespace mantissa::train {

namespace {

const RunConfig& validated(const RunConfig& config) {
  config.validate();
  return config;
}

// "input contains NaN" / "input contains inf" (the first non-finite value
// decides), nullptr when the batch is finite. The first pass is the integer
// test of unscaleAndCheck, which vectorises; the second runs only on a hit.
const char* nonFiniteInput(std::span<const float> x) {
  std::uint32_t any = 0;
  for (float v : x)
    any |= (std::bit_cast<std::uint32_t>(v) & 0x7F800000u) == 0x7F800000u;
  if (!any)
    return nullptr;
  for (float v : x)
    if (!std::isfinite(v))
      return std::isnan(v) ? "input contains NaN" : "input contains inf";
  return nullptr;
}

// Hands the optimizer's blocks of each weight matrix (slot 2l is "layer<l>.W")
// to the collector while they are in cache: the layer's Weights (before the
// update), Updates and the swamped fraction. (The weight gradients are taken
// before the optimizer.) With `counted`, the weights were counted before the
// step (counted[l]) and are not counted again.
static_assert(amp::Optimizer::kMaxWorkers <= telemetry::TelemetryCollector::kMaxWorkers);
class ParameterTelemetry final : public amp::StepObserver {
public:
  ParameterTelemetry(telemetry::TelemetryCollector& collector, DType working,
                     const std::vector<telemetry::TensorScan>* counted, std::size_t layers)
      : m_collector(collector), m_working(working), m_counted(counted), m_layers(layers) {}

  bool beginSlot(std::size_t slot) override {
    if (slot % 2 != 0 || slot >= 2 * m_layers)
      return false; // biases and the parameters past the layers' (BatchNorm): not observed
    const std::size_t layer = slot / 2;
    m_collector.beginParameters(static_cast<int>(layer), m_working, true, false, true);
    if (m_counted != nullptr)
      m_collector.addWeightCounts((*m_counted)[layer]);
    return true;
  }
  void block(std::size_t, int worker, std::size_t, std::span<const float> weights,
             std::span<const float>, std::span<const float> updates) override {
    m_collector.observeParameterBlock(worker, weights, {}, updates, m_counted == nullptr);
  }
  void endSlot(std::size_t, const amp::UpdateStats& stats) override {
    m_collector.endParameters(static_cast<std::uint64_t>(stats.unchanged));
  }

private:
  telemetry::TelemetryCollector& m_collector;
  DType m_working;
  const std::vector<telemetry::TensorScan>* m_counted;
  std::size_t m_layers;
};

// The Activations entry of a layer: its output (pre for the last layer, whose
// softmax is part of the loss).
std::span<const float> activationValues(const model::LayerActs& a) {
  return a.post.size() ? a.post.f32() : a.pre.f32();
}

// Waits for the background counts however the step ends (a step that throws
// leaves nothing running for the next).
class Drained {
public:
  explicit Drained(BackgroundScans& scans) : m_scans(scans) {}
  ~Drained() { m_scans.wait(); }
  Drained(const Drained&) = delete;
  Drained& operator=(const Drained&) = delete;

private:
  BackgroundScans& m_scans;
};

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

constexpr std::int64_t kMaxTotalSteps = std::int64_t{1} << 40; // as --steps

amp::OptimizerConfig optimizerConfig(const RunConfig& c) {
  amp::OptimizerConfig o;
  o.kind = *amp::parseOptimizer(c.optimizer);
  o.momentum = c.momentum;
  o.beta1 = c.beta1;
  o.beta2 = c.beta2;
  o.weightDecay = c.weightDecay;
  return o;
}

// The model the config names, checked against the data's shape (images) or
// built for the text's vocabulary (tokens).
std::unique_ptr<model::Network> makeNetwork(const RunConfig& c, const amp::Recipe& recipe,
                                            const data::Dataset* images, int vocabulary) {
  const model::ModelKind& kind = model::modelKind(c.model);
  const amp::Policy policy = kind.takesPolicy && !c.policy.empty()
                                 ? amp::parsePolicy(c.policy)
                                 : amp::policyForRecipe(recipe);
  model::ModelBuild b;
  b.spec = c.model;
  b.batch = c.batch;
  b.gradAccumulation = c.gradAccumulation;
  b.recipe = &recipe;
  b.policy = &policy;
  b.batchnorm = c.batchnorm;
  b.images = images;
  b.vocabulary = vocabulary;
  try {
    return kind.build(b);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(e.what());
  }
}

} // namespace

Session::~Session() = default;
Session::Session(Session&&) noexcept = default;

namespace {

bool readsTokens(const RunConfig& c) {
  return model::readsTokens(c.model);
}

// The recipe a run follows: the named one, or for a GPT with a policy spec
// one built from the policy (its master-weight precision, loss scaling with
// PyTorch's GradScaler when the policy scales).
amp::Recipe recipeFor(const RunConfig& c) {
  if (!model::modelKind(c.model).takesPolicy || c.policy.empty())
    return amp::recipeByName(c.recipe);
  using amp::OpClass;
  const amp::Policy p = amp::parsePolicy(c.policy);
  const DType master = p[OpClass::MasterWeights];
  amp::Recipe r{"policy",
                "",
                p[OpClass::MatmulInputs],
                p[OpClass::MatmulAccumulation],
                p[OpClass::Activations],
                p[OpClass::Loss],
                DType::F32,
                master,
                p[OpClass::Gradients],
                p[OpClass::OptimizerState],
                master == DType::F32,
                p.lossScaling,
                p.update,
                p.lossScaling ? "pytorch" : "none"};
  r.scaling = p.scaling.scheme; // FP8 / microscaling of the linear layers' operands
  return r;
}

// The divergence an evaluation after `steps` steps shows, if any.
std::optional<Divergence> evaluationDivergence(const EvalReport& e, std::int64_t steps,
                                               const amp::Policy* policy) {
  // After a step, a non-finite evaluation loss means the weights hold
  // non-finite or overflowing values: the run diverged, in every model, even
  // when no single step's values were caught becoming non-finite (a scaler
  // that skips steps, a NaN the loss of a batch hid).
  const bool finite = std::isfinite(e.loss) && (!e.trainLoss || std::isfinite(*e.trainLoss));
  if (finite || steps == 0)
    return std::nullopt;
  const double bad = std::isfinite(e.loss) ? *e.trainLoss : e.loss;
  char value[32];
  std::snprintf(value, sizeof value, "%g", bad);
  Divergence d;
  d.step = steps - 1;
  d.layer = 0;
  d.op = "evaluation";
  d.reason = "non-finite test loss";
  if (policy) {
    d.message = std::string("non-finite ") +
                (std::isfinite(e.loss) ? "training" : "validation") + " loss (" +
                (std::isnan(bad) ? "NaN" : bad > 0 ? "inf" : "-inf") + ") at step " +
                std::to_string(d.step) + " in policy " + policy->toSpec() +
                ": the evaluation after the step gives it (the weights hold non-finite or "
                "overflowing values)";
  } else {
    d.message = "non-finite test loss at step " + std::to_string(d.step) +
                ": the test loss after the last step is " + value +
                " (the weights hold non-finite or overflowing values)";
  }
  return d;
}

} // namespace

Session::Session(RunConfig config)
    : m_config(validated(config)), m_recipe(recipeFor(m_config)),
      m_telemetry(m_config.telemetryEvery) {
  if (readsTokens(m_config)) {
    m_text = std::make_shared<const data::TextCorpus>(
        data::loadTextSpec(m_config.data, model::modelKind(m_config.model).context(m_config.model)));
    initText();
  } else {
    m_data = std::make_shared<const data::TrainTest>(data::loadDataSpec(m_config.data));
    initImages();
  }
  initTraining();
}

Session::Session(RunConfig config, std::shared_ptr<const data::TrainTest> loaded)
    : m_config(validated(config)), m_recipe(recipeFor(m_config)), m_data(std::move(loaded)),
      m_telemetry(m_config.telemetryEvery) {
  if (readsTokens(m_config))
    throw ConfigError("model: '" + m_config.model + "' is " + model::modelKind(m_config.model).noun +
                      "; it trains on text, not on " + m_data->train.name);
  initImages();
  initTraining();
}

Session::Session(RunConfig config, std::shared_ptr<const data::TextCorpus> text)
    : m_config(validated(config)), m_recipe(recipeFor(m_config)), m_text(std::move(text)),
      m_telemetry(m_config.telemetryEvery) {
  if (!readsTokens(m_config))
    throw ConfigError("model: '" + m_config.model + "' trains on images; text data trains " +
                      model::textModelKind().noun + " (" +
                      model::textModelKind().offered.front().spec + ")");
  initText();
  initTraining();
}

void Session::initImages() {
  const auto& train = m_data->train;
  const auto& test = m_data->test;
  if (test.features != train.features || test.classes != train.classes)
    throw ConfigError("data: the test set " + test.name + " has " + std::to_string(test.features) +
                      " features and " + std::to_string(test.classes) +
                      " classes, the training set " + train.name + " " +
                      std::to_string(train.features) + " and " + std::to_string(train.classes));
  if (static_cast<std::size_t>(m_config.batch) > train.size())
    throw ConfigError("batch: " + std::to_string(m_config.batch) + " exceeds the " +
                      std::to_string(train.size()) + " training samples of " + train.name);
  // The bytes of the model and optimizer, before any is allocated.
  checkMemory(imageMemoryNeed(m_config, train), availableMemory());
  m_model = makeNetwork(m_config, m_recipe, &train, 0);
  m_model->initialize(m_config.seed, static_cast<float>(m_config.initGain));
  m_batcher = std::make_unique<data::Batcher>(train, m_config.batch, m_config.seed + 1);
}

void Session::initText() {
  const int ctx = model::modelKind(m_config.model).context(m_config.model);
  // A model that predicts the next character has nothing to choose from in
  // a text of one distinct character.
  if (m_text->vocabularySize() < 2) {
    const std::int32_t only[] = {0};
    std::string shown = m_text->vocabularySize() == 1 ? m_text->decode(only) : std::string();
    shown = shown == "\n" ? "the newline" : shown == " " ? "the space" : "'" + io::excerpt(shown) + "'";
    throw data::DataError(m_text->name + ": only one distinct character (" + shown +
                          "): a GPT predicts the next character, so a text needs at least two "
                          "distinct characters");
  }
  // The bytes of the model, optimizer and evaluation batches, before any is allocated.
  model::ModelBuild sized;
  sized.spec = m_config.model;
  sized.batch = m_config.batch;
  sized.vocabulary = m_text->vocabularySize();
  checkMemory(modelMemoryNeed(sized, m_config.optimizer == "adamw", m_recipe.updateRounding == amp::UpdateRounding::Kahan,
                              m_config.evalBatches),
              availableMemory());
  m_model = makeNetwork(m_config, m_recipe, nullptr, m_text->vocabularySize());
  m_context = ctx;
  m_model->initialize(m_config.seed);
  m_textBatcher =
      std::make_unique<data::TextBatcher>(*m_text, data::TextSplit::Train, ctx, m_config.seed);
  // Fixed evaluation batches, drawn once.
  const std::size_t n = std::size_t(m_config.batch) * std::size_t(ctx);
  for (auto [split, store] : {std::pair{data::TextSplit::Train, &m_evalTrain},
                              std::pair{data::TextSplit::Validation, &m_evalVal}}) {
    data::TextBatcher fixed(*m_text, split, ctx, m_config.seed ^ 0x5eed5eedull);
    store->resize(2 * n * std::size_t(m_config.evalBatches));
    const std::span<std::int32_t> all(*store);
    for (int b = 0; b < m_config.evalBatches; ++b)
      fixed.next(m_config.batch, all.subspan(2 * n * std::size_t(b), n),
                 all.subspan(2 * n * std::size_t(b) + n, n));
  }
}

void Session::initTraining() {
  if (!m_config.telemetryFormats.empty()) {
    std::string error;
    const auto formats = telemetry::parseCastFormatList(m_config.telemetryFormats, error);
    if (!formats)
      throw ConfigError("telemetry_formats: " + error);
    m_telemetry.setCastFormats(*formats);
  }
  // Every parameter of the model's registry is an optimizer slot. Where the
  // model names a working copy, the optimizer casts each block of updated
  // weights into it while the block is in cache (the bits the model's
  // refreshWorkingWeights would write); otherwise the model casts its own.
  std::vector<amp::Slot> params;
  m_optimizerCastsWorking = false;
  for (const model::Parameter& p : m_model->parameters()) {
    amp::Slot slot{.name = p.name, .value = p.value->f32(), .grad = p.grad->f32(), .decay = p.decay};
    if (p.optimizerCasts) {
      slot.working = p.working->u16();
      slot.workingType = p.working->dtype();
      m_optimizerCastsWorking = true;
    }
    m_gradSpans.push_back(p.grad->f32());
    params.push_back(std::move(slot));
  }
  m_optimizer = std::make_unique<amp::Optimizer>(optimizerConfig(m_config), m_recipe,
                                                 std::move(params), m_config.seed + 2);
  const auto layers = static_cast<std::size_t>(m_model->layers());
  m_weightScans.resize(layers);
  m_activationScans.resize(2 * layers);
  m_gradScans.resize(layers);
  m_updateScans.resize(layers);
  m_background = std::make_unique<BackgroundScans>();
  m_background->setIdlePriority(!m_model->setParallelSections(m_background.get()));
  m_namedTelemetry = !m_model->telemetryNames().empty();
  // Telemetry and the shadow pass read the forward's tensors after it.
  m_model->keepForwardTensors(m_config.telemetryEvery > 0 || !m_config.shadow.empty());
  if (m_recipe.lossScaling) {
    auto sc = amp::scalerPreset(m_config.scaler.empty() ? m_recipe.defaultScaler : m_config.scaler);
    if (m_config.scalerInitScale)
      sc.initScale = *m_config.scalerInitScale;
    if (m_config.scalerGrowthInterval)
      sc.growthInterval = *m_config.scalerGrowthInterval;
    m_scaler.emplace(sc);
  }

  // Checked: a product that wraps would run a different number of steps than asked.
  if (m_config.steps > 0) {
    m_totalSteps = m_config.steps;
  } else if (__builtin_mul_overflow(m_config.epochs, stepsPerEpoch(), &m_totalSteps) ||
             m_totalSteps > kMaxTotalSteps) {
    throw ConfigError("epochs: " + std::to_string(m_config.epochs) + " epochs of " +
                      std::to_string(stepsPerEpoch()) + " steps exceed the limit of 2^40 steps");
  }
  if (m_totalSteps > kMaxTotalSteps)
    throw ConfigError("steps: " + std::to_string(m_totalSteps) + " exceeds the limit of 2^40");
  amp::LrScheduleConfig lr;
  lr.baseLr = m_config.lr;
  if (m_config.schedule == "cosine") {
    lr.kind = amp::LrScheduleKind::WarmupCosine;
    lr.warmupSteps = m_config.warmupSteps;
    if (m_config.warmupSteps > kMaxTotalSteps) // validated() already refuses this
      throw ConfigError("warmup_steps: exceeds the limit of 2^40");
    lr.totalSteps = std::max<std::int64_t>(m_totalSteps, m_config.warmupSteps + 1);
    lr.floorLr = m_config.lrFloor;
  }
  m_schedule = std::make_unique<amp::LrSchedule>(lr);
  m_events.reserve(8);
  m_report.totalSteps = m_totalSteps;
  if (!m_config.shadow.empty()) { // its reference built now: a model it cannot mirror is refused here
    try {
      shadowPass(*parseShadowPrecision(m_config.shadow));
    } catch (const std::invalid_argument& e) {
      throw ConfigError(e.what());
    }
  }
}

std::int64_t Session::stepsPerEpoch() const {
  if (m_text) // windows of B * T characters per step over the training split
    return std::max<std::int64_t>(
        1, static_cast<std::int64_t>(m_text->split(data::TextSplit::Train).size()) /
               (std::int64_t(m_config.batch) * m_context));
  return std::max<std::int64_t>(1, m_batcher->stepsPerEpoch() / m_config.gradAccumulation);
}

void Session::visitState(RunStateVisitor& v) {
  v.value("step", m_step);
  v.value("skipped_steps", m_skipped);
  v.value("forward_overflow_run", m_forwardOverflowRun);
  if (m_step < 0 || m_skipped < 0 || m_skipped > m_step || m_forwardOverflowRun < 0)
    throw std::invalid_argument("step " + std::to_string(m_step) + " with " +
                                std::to_string(m_skipped) + " skipped is not a run's position");
  PrefixedStateVisitor data(v, "data");
  if (m_textBatcher)
    m_textBatcher->visitState(data);
  else
    m_batcher->visitState(data);
  PrefixedStateVisitor optimizer(v, "optimizer");
  m_optimizer->visitState(optimizer);
  if (m_scaler) {
    PrefixedStateVisitor scaler(v, "scaler");
    m_scaler->visitState(scaler);
  }
  PrefixedStateVisitor model(v, "model");
  m_model->visitState(model);
}

std::string Session::scalerDescription() const {
  return m_scaler ? amp::describeScaler(m_scaler->config()) : "none";
}

std::map<std::string, std::size_t> Session::allocatedBytes() const {
  auto b = m_model->allocatedBytes();
  b["optimizer state"] = m_optimizer->allocatedBytes();
  return b;
}

std::vector<model::PlanRow> Session::plan() const {
  auto rows = m_model->plan();
  const auto state = m_optimizer->plan();
  rows.insert(rows.end(), state.begin(), state.end());
  return rows;
}

void Session::fail(const model::NonFiniteSite& site, std::string_view reason,
                   std::string_view detail) {
  Divergence d;
  d.step = m_step;
  d.layer = site.layer;
  d.backward = site.backward;
  d.op = site.op;
  d.reason = reason;
  d.message = d.reason + " at step " + std::to_string(m_step) + ": first in layer " +
              std::to_string(site.layer) + ", op " + site.op + " (" +
              (site.backward ? "backward" : "forward") + ")";
  if (!detail.empty())
    d.message += ". " + std::string(detail);
  m_divergence = d;
  m_report.divergence = d;
}

void Session::nameDivergenceInPolicy(StepReport& r, const amp::Policy& policy) {
  Divergence& d = *r.divergence;
  const std::string where = " at step " + std::to_string(d.step) + " in policy " + policy.toSpec();
  if (d.reason == "non-finite loss") {
    const auto site = m_model->firstNonFinite(false);
    const char* value = std::isnan(r.loss) ? "NaN" : r.loss > 0 ? "inf" : "-inf";
    d.message = std::string("non-finite loss (") + value + ")" + where +
                (site ? ": first non-finite value at " + site->op : std::string());
  } else if (d.reason == "non-finite gradient") {
    d.message = "non-finite gradients" + where;
  } else {
    d.message = d.reason + where + ": " + d.message;
  }
  m_divergence = d;
}

const char* Session::inputProblem() const {
  // With accumulation the earlier micro-batches are gone: step() scanned each.
  return m_config.gradAccumulation > 1 ? m_inputProblem : nonFiniteInput(m_model->inputs());
}

bool Session::failAtInput() {
  const char* problem = inputProblem();
  if (!problem)
    return false;
  fail(model::NonFiniteSite{0, false, "input"}, problem,
       m_scaler ? "The training data holds it, and the forward pass never sees the loss scale: "
                  "backing the scale off cannot cure it"
                : "The training data holds it");
  return true;
}

void Session::observeNamed(model::Network::TelemetryPass pass) {
  model::ScopedTimer t(m_report.times.telemetry);
  m_model->telemetryTensors(pass, m_namedItems);
  const auto scale = static_cast<float>(m_report.lossScale);
  if (pass == model::Network::TelemetryPass::Gradients && scale != 1.0f) {
    // As backward left them (x the loss scale), and unscaled.
    for (const auto& item : m_namedItems)
      m_telemetry.observe(item.layer, item.cls, item.values, scale);
    return;
  }
  // Every tensor in one pass of the OpenMP team (TelemetryCollector::observeAll).
  m_telemetry.observeAll(m_namedItems);
}

void Session::postNamedForward() {
  model::ScopedTimer t(m_report.times.telemetry);
  m_model->telemetryTensors(model::Network::TelemetryPass::Forward, m_namedForward);
  m_namedScans.assign(m_namedForward.size(), m_telemetry.emptyScan());
  for (std::size_t k = 0; k < m_namedForward.size(); ++k)
    m_background->post({m_namedForward[k].values, &m_namedScans[k]});
  m_namedForwardPosted = true;
}

void Session::observeTelemetry() {
  if (m_namedTelemetry) {
    if (m_namedForwardPosted) {
      model::ScopedTimer t(m_report.times.telemetry);
      m_background->wait();
      for (std::size_t k = 0; k < m_namedScans.size(); ++k)
        m_telemetry.record(m_namedForward[k].layer, m_namedForward[k].cls, m_namedScans[k]);
    }
    observeNamed(model::Network::TelemetryPass::Gradients);
    return;
  }
  model::ScopedTimer t(m_report.times.telemetry);
  const float scale = static_cast<float>(m_report.lossScale);
  for (int l = 0; l < m_model->layers(); ++l) {
    const auto& a = m_model->acts()[l];
    m_telemetry.observe(l, telemetry::TensorClass::Activations, activationValues(a), 1.0f);
    m_telemetry.observe(l, telemetry::TensorClass::ActivationGrads, a.dpre.f32(), scale);
    m_telemetry.observe(l, telemetry::TensorClass::WeightGrads, m_model->grads()[l].w.f32(), scale);
  }
}

void Session::postWeightScans() {
  for (int l = 0; l < m_model->layers(); ++l) {
    auto& counts = m_weightScans[static_cast<std::size_t>(l)];
    counts = m_telemetry.emptyScan();
    m_background->post({m_model->params()[l].w.f32(), &counts});
  }
}

void Session::postActivationScans() {
  for (int l = 0; l < m_model->layers(); ++l) {
    auto& counts = m_activationScans[2 * static_cast<std::size_t>(l)];
    counts = m_telemetry.emptyScan();
    m_background->post({activationValues(m_model->acts()[l]), &counts});
  }
}

void Session::postGradientScans(int layer) {
  const auto i = static_cast<std::size_t>(layer);
  m_activationScans[2 * i + 1] = m_gradScans[i] = m_telemetry.emptyScan();
  m_background->post({m_model->acts()[i].dpre.f32(), &m_activationScans[2 * i + 1]});
  m_background->post({m_model->grads()[i].w.f32(), &m_gradScans[i]});
}

double Session::gradNormBesideTelemetry(bool posted, double& waitedMs) {
  if (!posted) {
    postActivationScans();
    for (int l = m_model->layers() - 1; l >= 0; --l)
      postGradientScans(l);
  }
  const double norm = amp::globalGradNorm(m_optimizer->parameters());
  const auto start = std::chrono::steady_clock::now();
  m_background->wait();
  waitedMs = msSince(start);
  for (int l = 0; l < m_model->layers(); ++l) {
    const auto i = static_cast<std::size_t>(l);
    m_telemetry.record(l, telemetry::TensorClass::Activations, m_activationScans[2 * i]);
    m_telemetry.record(l, telemetry::TensorClass::ActivationGrads, m_activationScans[2 * i + 1]);
  }
  for (int l = 0; l < m_model->layers(); ++l)
    m_telemetry.record(l, telemetry::TensorClass::WeightGrads,
                       m_gradScans[static_cast<std::size_t>(l)]);
  return norm;
}

bool Session::weightsCountedFinite() const {
  return std::all_of(m_weightScans.begin(), m_weightScans.end(), [](const auto& counts) {
    return counts.hist.posInf + counts.hist.negInf + counts.hist.nan == 0;
  });
}

void Session::postUpdateScans() {
  for (int l = 0; l < m_model->layers(); ++l) {
    auto& counts = m_updateScans[static_cast<std::size_t>(l)];
    counts = m_telemetry.emptyScan();
    m_background->post({m_optimizer->lastUpdate(static_cast<std::size_t>(2 * l)), &counts});
  }
}

void Session::recordParametersApart() {
  model::ScopedTimer t(m_report.times.telemetry);
  m_background->wait();
  const auto stats = m_optimizer->lastStats();
  for (int l = 0; l < m_model->layers(); ++l) {
    const auto i = static_cast<std::size_t>(l);
    m_telemetry.recordParameters(l, m_weightScans[i], m_updateScans[i],
                                 static_cast<std::uint64_t>(stats[2 * i].unchanged));
  }
}

void Session::observeWeightsApart(bool counted) {
  model::ScopedTimer t(m_report.times.telemetry);
  if (counted)
    m_background->wait();
  for (int l = 0; l < m_model->layers(); ++l) {
    if (counted)
      m_telemetry.record(l, telemetry::TensorClass::Weights,
                         m_weightScans[static_cast<std::size_t>(l)]);
    else
      m_telemetry.observe(l, telemetry::TensorClass::Weights, m_model->params()[l].w.f32(), 1.0f);
  }
}

std::unique_ptr<model::Network> Session::fp32Copy() const {
  RunConfig c = m_config;
  c.recipe = "fp32";
  c.policy.clear();
  c.batchnorm = "fp32";
  c.gradAccumulation = 1;
  return m_text ? makeNetwork(c, amp::recipeByName("fp32"), nullptr, m_text->vocabularySize())
                : makeNetwork(c, amp::recipeByName("fp32"), &m_data->train, 0);
}

ShadowPass& Session::shadowPass(ShadowPrecision precision) {
  auto& pass = m_shadowPasses[precision == ShadowPrecision::F64 ? 1 : 0];
  if (!pass) {
    if (m_config.gradAccumulation > 1)
      throw ConfigError("shadow: compares one batch's tensors with the reference's, so it needs "
                        "grad_accumulation 1, got " + std::to_string(m_config.gradAccumulation));
    auto reference = precision == ShadowPrecision::F64 ? model::makeFp64Reference(*m_model)
                                                       : model::makeFp32Reference(fp32Copy());
    pass = std::make_unique<ShadowPass>(precision, std::move(reference), m_config.shadowThreshold);
  }
  return *pass;
}

void Session::requestShadow(ShadowPrecision precision) {
  if (precision == ShadowPrecision::Off)
    throw std::invalid_argument("shadow: a check needs a reference in FP32 or FP64");
  shadowPass(precision);
  m_shadowRequest = precision;
}

void Session::setActivationNudge(std::optional<ActivationNudge> nudge) {
  if (nudge && (nudge->layer < 0 || nudge->layer >= m_model->layers()))
    throw std::invalid_argument("activation nudge: layer " + std::to_string(nudge->layer) +
                                " is not one of the model's " +
                                std::to_string(m_model->layers()) + " layers");
  m_nudge = nudge;
}

void Session::applyNudge() {
  // The activations are the model's own buffers, written by forward and
  // read by backward; Network hands them out read-only, and this test
  // hook is their one writer outside the model.
  const auto& a = m_model->acts()[static_cast<std::size_t>(m_nudge->layer)];
  const Tensor& t = a.post.size() ? a.post : a.pre;
  for (float& v : const_cast<Tensor&>(t).f32()) {
    if (std::isfinite(v) && v != 0.0f) {
      v = std::nextafter(v, std::copysign(std::numeric_limits<float>::infinity(), v));
      return;
    }
  }
}

const StepReport& Session::step() {
  kernels::applyKernelThreads();
  const auto start = std::chrono::steady_clock::now();
  auto& r = m_report;
  r.step = m_step;
  r.times = {};
  r.telemetry.reset();
  r.scaling.reset();
  r.divergence.reset();
  r.firstNonFinite.reset();
  r.shadow.reset();
  r.underflow = {};
  r.foundInf = false;
  r.skipped = false;
  r.clipFactor = 1.0;
  r.updates = {};
  m_events.clear();
  r.lr = m_schedule->lrAt(m_step);
  r.lossScale = m_scaler ? m_scaler->scale() : 1.0;
  const bool observe = m_telemetry.wants(m_step);
  m_model->setMeasureUnderflow(observe);
  // The shadow pass: at telemetry steps when the config asks, or once on request.
  ShadowPass* shadow = nullptr;
  if (m_shadowRequest)
    shadow = &shadowPass(*std::exchange(m_shadowRequest, std::nullopt));
  else if (observe && !m_config.shadow.empty())
    shadow = &shadowPass(*parseShadowPrecision(m_config.shadow));
  // Telemetry and the shadow pass read the forward's tensors after it.
  m_model->keepForwardTensors(observe || shadow);
  bool backwardRan = false;
  m_namedForwardPosted = false;
  // Without a loss scaler or multiplier nothing changes the weights before
  // the optimizer, nor the activations and gradients once backward stored
  // them: the background counts the weights during forward and backward, the
  // activations and gradients as backward produces them and during the
  // gradient norm (gradNormBesideTelemetry), on the core the model leaves
  // idle (updates too, after the optimizer, with FP32 working precision).
  // Otherwise all but the weights are taken before unscaling, and weights
  // and updates in the optimizer's loop.
  const bool beside = observe && !m_scaler && m_config.lossMultiplier == 1.0 && !m_namedTelemetry;
  const Drained drained(*m_background);
  if (beside)
    postWeightScans();
  bool parametersObserved = false;

  const int micro = m_config.gradAccumulation;
  // Without accumulation the activations are final once forward ran, and
  // each layer's gradients once backward finished the layer: posted then,
  // the background counts them between the backward products.
  const bool postEarly = beside && micro == 1;
  const auto postGradients = [this](int layer) { postGradientScans(layer); };
  const float backwardScale =
      static_cast<float>(r.lossScale * m_config.lossMultiplier / static_cast<double>(micro));
  double lossSum = 0.0;
  int correct = 0;
  m_inputProblem = nullptr;
  // A scaler that skips overflowing steps treats an overflow in the forward
  // pass as PyTorch's GradScaler does: the loss is inf, backward carries it
  // into the gradients, the step is skipped and the scale backs off.
  const bool skipsOverflow = m_scaler && m_scaler->config().skipOnOverflow;
  bool forwardOverflow = false;
  for (int m = 0; m < micro; ++m) {
    {
      model::ScopedTimer t(r.times.data);
      if (m_textBatcher)
        m_textBatcher->next(m_config.batch, m_model->tokens(), m_model->labels());
      else
        m_batcher->next(m_model->inputs(), m_model->labels());
      if (micro > 1 && !m_inputProblem)
        m_inputProblem = nonFiniteInput(m_model->inputs());
    }
    const auto x = m_model->forward(r.times);
    if (m_nudge && m_nudge->step == m_step) [[unlikely]]
      applyNudge();
    lossSum += x.loss;
    correct += x.correct;
    // Named telemetry's weights and activations are counted during backward
    // on the core it leaves idle (backward writes neither), unless the loss
    // is scaled, accumulation overwrites them or the forward pass diverged:
    // then at once.
    if (observe && m_namedTelemetry &&
        (micro > 1 || r.lossScale != 1.0 || !std::isfinite(x.loss)))
      observeNamed(model::Network::TelemetryPass::Forward);
    else if (observe && m_namedTelemetry)
      postNamedForward();
    if (shadow) {
      model::ScopedTimer t(r.times.telemetry);
      shadow->forwardDone(m_step, *m_model);
    }
    if (!std::isfinite(x.loss)) {
      if (failAtInput())
        break;
      if (!skipsOverflow) {
        fail(m_model->firstNonFinite(false).value_or(
                 model::NonFiniteSite{m_model->layers() - 1, false, "softmax-xent"}),
             "non-finite loss");
        break;
      }
      forwardOverflow = true;
    }
    if (postEarly)
      postActivationScans();
    m_model->backward(backwardScale, m > 0, r.times,
                      postEarly ? std::function<void(int)>(postGradients) : nullptr);
    backwardRan = true;
  }
  if (shadow) {
    model::ScopedTimer t(r.times.telemetry);
    r.shadow = shadow->backwardDone(*m_model, backwardScale, backwardRan);
  }
  r.epoch = m_batcher ? m_batcher->epoch() : m_step / stepsPerEpoch();
  r.loss = lossSum / micro;
  r.accuracy = double(correct) / (double(micro) * double(m_model->labels().size()));

  const bool gradsSeen = !r.divergence; // backward ran: the step's gradients exist
  if (!r.divergence) {
    if (observe && !beside)
      observeTelemetry();  // before unscaling changes the gradients
    double waitedMs = 0.0; // waiting for the background counts beside the gradient norm
    {
      model::ScopedTimer t(r.times.optimizer);
      if (m_scaler) {
        const float inv = m_scaler->invScale();
        for (auto g : m_gradSpans)
          r.foundInf |= amp::LossScaler::unscaleAndCheck(g, inv);
        r.foundInf |= forwardOverflow;
      }
      // Undo the loss multiplier so the optimizer sees d(mean CE)/dw.
      if (m_config.lossMultiplier != 1.0) {
        const float undo = static_cast<float>(1.0 / m_config.lossMultiplier);
        for (auto g : m_gradSpans)
          for (float& v : g)
            v *= undo;
      }
      if (beside)
        r.gradNorm = gradNormBesideTelemetry(postEarly, waitedMs);
      else
        r.gradNorm = r.foundInf ? std::numeric_limits<double>::quiet_NaN()
                                : amp::globalGradNorm(m_optimizer->parameters());
      if (m_scaler) {
        if (r.foundInf) // rare: locate where the overflow began (forward, else backward order)
          r.firstNonFinite =
              forwardOverflow ? m_model->firstNonFinite(false) : m_model->firstNonFinite(true);
        // A NaN in the data (hidden from the loss when a ReLU maps it to 0)
        // makes every step containing it "overflow": the scale is not the
        // cause, so report it instead of skipping steps for ever.
        if (!r.foundInf || !failAtInput())
          applyScalerUpdate(r);
        // The forward pass never sees the loss scale: an overflow there that
        // persists while the steps are skipped (the weights unchanged) is not
        // cured by backing off. GradScaler would skip for ever; the run ends
        // after kForwardOverflowLimit such steps in a row, as a divergence.
        m_forwardOverflowRun = forwardOverflow ? m_forwardOverflowRun + 1 : 0;
        if (forwardOverflow && !r.divergence && m_forwardOverflowRun >= kForwardOverflowLimit)
          fail(r.firstNonFinite.value_or(
                   model::NonFiniteSite{m_model->layers() - 1, false, "softmax-xent"}),
               "forward overflow",
               "The forward pass overflowed in " + std::to_string(m_forwardOverflowRun) +
                   " steps in a row, each skipped with the loss scale backed off; the forward "
                   "pass never sees the scale, so backing off cannot cure it");
      } else if (!std::isfinite(r.gradNorm) && !failAtInput()) {
        // A NaN the forward pass produced can be hidden from the loss (ReLU
        // maps NaN to 0) and surface only in the gradients: report where it
        // first appeared, which is the forward op when there is one.
        auto site = m_model->firstNonFinite(false);
        if (!site)
          site = m_model->firstNonFinite(true);
        fail(site.value_or(model::NonFiniteSite{0, true, "linear dW"}), "non-finite gradient");
      }
    }
    r.times.optimizer -= waitedMs;
    r.times.telemetry += waitedMs;
  }
  if (!r.divergence && !r.skipped) {
    // Updates land in the FP32 master copy where there is one: that is the
    // precision that can swamp them.
    const DType working = m_recipe.masterWeights ? DType::F32 : m_recipe.weights;
    // Beside finite FP32 weights the optimizer's unchanged count is the
    // swamped count: nothing needs the update blocks in the optimizer's loop,
    // and the updates are counted after it, in the background while the
    // working weights are cast. Otherwise the loop shows every block.
    const bool updatesApart = beside && working == DType::F32 && weightsCountedFinite();
    const double telemetryBefore = m_telemetry.pendingMs();
    {
      model::ScopedTimer t(r.times.optimizer);
      r.clipFactor = amp::clipByGlobalNorm(m_gradSpans, r.gradNorm, m_config.clipNorm);
      ParameterTelemetry parameters(m_telemetry, working, beside ? &m_weightScans : nullptr,
                                    static_cast<std::size_t>(m_model->layers()));
      // The updates are kept at telemetry steps only (postUpdateScans reads them).
      m_optimizer->step(r.lr, observe && !updatesApart ? &parameters : nullptr, observe);
      parametersObserved = observe;
      for (const auto& s : m_optimizer->lastStats()) {
        r.updates.nonzero += s.nonzero;
        r.updates.unchanged += s.unchanged;
      }
    }
    // The collector's share of the optimizer's time is telemetry's.
    const double fusedMs = m_telemetry.pendingMs() - telemetryBefore;
    r.times.optimizer -= fusedMs;
    r.times.telemetry += fusedMs;
    if (updatesApart)
      postUpdateScans();
    if (!m_optimizerCastsWorking)
      m_model->refreshWorkingWeights(r.times);
    if (updatesApart)
      recordParametersApart();
  }
  if (observe && gradsSeen && !parametersObserved) // skipped or diverged: no update
    observeWeightsApart(beside);
  m_skipped += r.skipped ? 1 : 0;
  if (observe) {
    model::ScopedTimer t(r.times.telemetry);
    r.telemetry = m_telemetry.finish(m_step, r.times.telemetry);
    r.underflow = m_model->underflow();
  }
  if (m_recipe.scaling != amp::MatmulScaling::None)
    r.scaling = std::make_shared<const telemetry::ScalingFrame>(
        telemetry::ScalingFrame{m_step, m_model->scalingStats()});
  r.scaler = m_scaler ? m_scaler->state() : amp::ScalerState{1.0, 0, 0};
  r.scalerEvents = m_events;
  if (r.divergence && m_model->policy())
    nameDivergenceInPolicy(r, *m_model->policy());
  ++m_step;
  r.stepMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return r;
}

void Session::applyScalerUpdate(StepReport& r) {
  const auto u = m_scaler->update(m_step, r.foundInf);
  r.skipped = u.skipped;
  for (const auto& e : m_scaler->lastEvents())
    m_events.push_back(e);
  if (u.stopReason.empty())
    return;
  // DeepSpeed raises when an overflow finds the scale already at min_scale
  // (deepspeed/runtime/fp16/loss_scaler.py, DynamicLossScaler.update_scale):
  // the run ends there, reported like a divergence at the overflow's origin.
  char scale[32];
  std::snprintf(scale, sizeof scale, "%g", u.scaleBefore);
  fail(r.firstNonFinite.value_or(model::NonFiniteSite{m_model->layers() - 1, true, "softmax-xent"}),
       "loss scale at its minimum",
       "The scaled gradients overflowed with the loss scale already at its minimum (" +
           std::string(scale) + "), where " + m_scaler->config().preset + " ends the run: \"" +
           std::string(u.stopReason) + "\"");
}

EvalReport Session::evaluateText() {
  EvalReport e;
  e.step = m_step;
  const std::size_t n = m_model->tokens().size();
  model::OpTimes ignored;
  double losses[2] = {0.0, 0.0};
  std::int64_t correct = 0;
  const std::vector<std::int32_t>* splits[2] = {&m_evalTrain, &m_evalVal};
  for (int s = 0; s < 2; ++s) {
    for (int b = 0; b < m_config.evalBatches; ++b) {
      const auto* x = splits[s]->data() + 2 * n * std::size_t(b);
      std::copy(x, x + n, m_model->tokens().begin());
      std::copy(x + n, x + 2 * n, m_model->labels().begin());
      const auto res = m_model->forward(ignored);
      losses[s] += res.loss;
      if (s == 1)
        correct += res.correct;
    }
    losses[s] /= m_config.evalBatches;
  }
  e.trainLoss = losses[0];
  e.loss = losses[1];
  e.samples = static_cast<std::int64_t>(n) * m_config.evalBatches;
  e.accuracy = double(correct) / double(e.samples);
  return e;
}

std::string Session::sample(int n, double temperature, std::uint64_t seed,
                            std::u32string_view prompt) {
  if (!m_text)
    throw std::logic_error("Session::sample: the model does not predict text");
  const int T = m_context, V = m_text->vocabularySize();
  std::mt19937_64 rng(seed);
  std::vector<std::int32_t> context;
  for (std::size_t i = 0; i < prompt.size(); ++i) {
    const std::int32_t t = m_text->tokenOf(prompt[i]);
    if (t < 0)
      throw std::invalid_argument("prompt: character " + std::to_string(i + 1) + " (U+" +
                                  [](char32_t c) {
                                    char b[16];
                                    std::snprintf(b, sizeof b, "%04X", unsigned(c));
                                    return std::string(b);
                                  }(prompt[i]) +
                                  ") is not in the model's vocabulary");
    context.push_back(t);
  }
  if (context.empty()) {
    const std::int32_t start = m_text->tokenOf(U'\n');
    context.push_back(start >= 0 ? start : 0);
  }
  std::vector<std::int32_t> generated;
  std::vector<double> p(static_cast<std::size_t>(V));
  auto tokens = m_model->tokens();
  model::OpTimes ignored;
  for (int i = 0; i < n; ++i) {
    const std::size_t len = std::min<std::size_t>(context.size(), std::size_t(T));
    std::fill(tokens.begin(), tokens.end(), 0);
    std::copy(context.end() - std::ptrdiff_t(len), context.end(), tokens.begin());
    m_model->forward(ignored);
    const float* logits = m_model->logits().data() + (len - 1) * std::size_t(V);
    // The largest logit is subtracted before dividing by t: each exponent
    // (logit - max) / t is <= 0 for any t > 0, and exp of it is in [0, 1]
    // with the largest logit's weight exactly 1 (so z >= 1). A tiny t sends
    // every other exponent to -inf: the pick is greedy, the first largest.
    int best = 0;
    for (int v = 1; v < V; ++v)
      if (logits[v] > logits[best])
        best = v;
    if (temperature <= 0) { // greedy: the first largest logit
      context.push_back(best);
      generated.push_back(best);
      continue;
    }
    const double mx = logits[best];
    double z = 0;
    for (int v = 0; v < V; ++v) {
      const double w = v == best ? 1.0 : std::exp((double(logits[v]) - mx) / temperature);
      z += (p[std::size_t(v)] = std::isnan(w) ? 0.0 : w); // a NaN logit is never picked
    }
    double u = std::uniform_real_distribution<double>(0.0, z)(rng);
    int pick = best; // rounding can leave u >= 0 after the loop: the likeliest, not the last
    for (int v = 0; v < V; ++v) {
      u -= p[std::size_t(v)];
      if (u < 0) {
        pick = v;
        break;
      }
    }
    context.push_back(pick);
    generated.push_back(pick);
  }
  return m_text->decode(generated);
}

EvalReport Session::evaluate() {
  kernels::applyKernelThreads();
  if (m_text) {
    EvalReport e = evaluateText();
    if (!m_divergence)
      m_divergence = evaluationDivergence(e, m_step, m_model->policy());
    return e;
  }
  const auto& test = m_data->test;
  const int batch = m_config.batch;
  const int features = test.features;
  const std::size_t n = test.size();
  EvalReport e;
  e.step = m_step;
  double lossSum = 0.0;
  std::int64_t correct = 0;
  model::OpTimes ignored;
  auto x = m_model->inputs();
  auto y = m_model->labels();
  // BatchNorm on its running statistics while evaluating; training again after.
  struct Evaluating {
    model::Network& m;
    explicit Evaluating(model::Network& net) : m(net) { m.setTraining(false); }
    ~Evaluating() { m.setTraining(true); }
  } evaluating(*m_model);
  for (std::size_t first = 0; first < n; first += static_cast<std::size_t>(batch)) {
    const int rows = static_cast<int>(std::min<std::size_t>(batch, n - first));
    for (int r = 0; r < batch; ++r) {
      // Rows past the end repeat the last sample; they are not counted.
      const std::size_t src = first + static_cast<std::size_t>(std::min(r, rows - 1));
      std::memcpy(x.data() + static_cast<std::size_t>(r) * features,
                  test.x.data() + src * static_cast<std::size_t>(features),
                  sizeof(float) * static_cast<std::size_t>(features));
      y[static_cast<std::size_t>(r)] = test.y[src];
    }
    const auto res = m_model->forward(ignored, rows);
    lossSum += res.loss * rows;
    correct += res.correct;
  }
  e.samples = static_cast<std::int64_t>(n);
  e.loss = n ? lossSum / double(n) : 0.0;
  e.accuracy = n ? double(correct) / double(n) : 0.0;
  if (!m_divergence)
    m_divergence = evaluationDivergence(e, m_step, m_model->policy());
  return e;
}


} // namespace mantissa::train
