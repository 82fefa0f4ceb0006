// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/train/gpt_run.h>
#include <mantissa/nn/precision.h>
#include <mantissa/train/run_config.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

namespace mantissa::train {
namespace {

std::string num(double v) {
  std::string s = std::to_string(v);
  return s;
}

} // namespace

std::vector<std::string> GptRunConfig::problems() const {
  std::vector<std::string> out;
  if (data.empty())
    out.emplace_back("data: empty (shakespeare, or a path to a UTF-8 .txt file)");
  if (model.starts_with("mlp")) {
    out.push_back("model: '" + model + "' is an MLP; text data (" + data +
                  ") trains a GPT: --model gpt:layers=4,heads=4,embd=128,ctx=64");
  } else {
    try {
      model::parseGptSpec(model);
    } catch (const std::exception& e) {
      out.push_back(std::string("model: ") + e.what());
    }
  }
  if (!amp::findRecipe(recipe)) {
    try {
      amp::recipeByName(recipe);
    } catch (const std::exception& e) {
      out.push_back(std::string("recipe: ") + e.what());
    }
  }
  if (!policy.empty()) {
    try {
      amp::parsePolicy(policy);
    } catch (const amp::PolicyError& e) {
      out.push_back(std::string("policy: ") + e.what());
    }
  }
  if (batch < 1 || batch > 4096)
    out.push_back("batch: must be in [1, 4096], got " + std::to_string(batch));
  if (steps < 1)
    out.push_back("steps: must be positive, got " + std::to_string(steps));
  if (!(std::isfinite(lr) && lr > 0))
    out.push_back("lr: must be a positive finite number, got " + num(lr));
  if (!(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1))
    out.emplace_back("beta1/beta2: must be in [0, 1)");
  if (!(weightDecay >= 0 && std::isfinite(weightDecay)))
    out.push_back("weight_decay: must be >= 0, got " + num(weightDecay));
  if (warmupSteps < 0 || warmupSteps >= steps)
    out.push_back("warmup_steps: must be in [0, steps), got " + std::to_string(warmupSteps));
  if (std::isfinite(lr) && lr > 0 && !(lrFloor >= 0 && lrFloor <= lr))
    out.push_back("lr_floor: must be in [0, lr], got " + num(lrFloor));
  if (!(clipNorm >= 0 && std::isfinite(clipNorm)))
    out.push_back("clip_norm: must be >= 0, got " + num(clipNorm));
  if (evalBatches < 1 || evalBatches > 10000)
    out.push_back("eval_batches: must be in [1, 10000], got " + std::to_string(evalBatches));
  if (evalEvery < 0)
    out.push_back("eval_every: must be >= 0, got " + std::to_string(evalEvery));
  if (telemetryEvery < 0)
    out.push_back("telemetry_every: must be >= 0, got " + std::to_string(telemetryEvery));
  return out;
}

GptRunConfig shakespeareCharPreset() {
  return GptRunConfig{}; // the defaults are nanoGPT's shakespeare_char CPU configuration
}

amp::Policy policyForRecipe(const amp::Recipe& r) {
  using amp::OpClass;
  amp::Policy p = amp::parsePolicy("fp32");
  p[OpClass::MatmulInputs] = r.matmulInputs;
  p[OpClass::MatmulAccumulation] = r.accumulation;
  p[OpClass::Activations] = r.activations;
  p[OpClass::Gelu] = r.activations;
  p[OpClass::Loss] = r.loss;
  p[OpClass::Gradients] = r.gradients;
  p[OpClass::MasterWeights] = r.masterWeights ? DType::F32 : r.weights;
  p[OpClass::OptimizerState] = r.optimizerState;
  p.lossScaling = r.lossScaling;
  p.scaling.scheme = r.scaling;
  return p;
}

GptRun::GptRun(GptRunConfig config)
    : m_config(std::move(config)), m_recipe(amp::recipeByName("fp32")),
      m_collector(std::max(0, m_config.telemetryEvery)) {
  if (const auto list = m_config.problems(); !list.empty()) {
    std::string joined;
    for (const auto& s : list)
      joined += (joined.empty() ? "" : "; ") + s;
    throw ConfigError(joined);
  }
  m_spec = model::parseGptSpec(m_config.model);
  const amp::Recipe& named = amp::recipeByName(m_config.recipe);
  if (m_config.policy.empty()) {
    m_policy = policyForRecipe(named);
    m_recipe = named;
  } else {
    using amp::OpClass;
    m_policy = amp::parsePolicy(m_config.policy);
    const DType master = m_policy[OpClass::MasterWeights];
    m_recipe = amp::Recipe{"policy", "", m_policy[OpClass::MatmulInputs],
                           m_policy[OpClass::MatmulAccumulation], m_policy[OpClass::Activations],
                           m_policy[OpClass::Loss], DType::F32, master,
                           m_policy[OpClass::Gradients], m_policy[OpClass::OptimizerState],
                           master == DType::F32, m_policy.lossScaling,
                           amp::UpdateRounding::Nearest, m_policy.lossScaling ? "pytorch" : "none"};
  }
  m_corpus = std::make_unique<data::TextCorpus>(data::loadTextSpec(m_config.data, m_spec.ctx));
  m_model = std::make_unique<model::Gpt>(m_spec, m_corpus->vocabularySize(), m_config.batch, m_policy);
  m_model->initialize(m_config.seed);
  const DType master = m_policy[amp::OpClass::MasterWeights];
  if (master != DType::F32) {
    for (auto& p : m_model->params())
      nn::roundSpan(master, p.value.f32());
    m_model->refreshWorkingWeights();
  }
  m_batcher = std::make_unique<data::TextBatcher>(*m_corpus, data::TextSplit::Train, m_spec.ctx,
                                                  m_config.seed);

  for (const auto& p : m_model->params())
    m_telemetryLayers.push_back(p.name);
  for (const auto& a : m_model->observedActivations())
    m_telemetryLayers.push_back(a.name);

  std::vector<amp::Slot> decay, noDecay;
  for (auto& p : m_model->params()) {
    amp::Slot s{p.name, p.value.f32(), p.grad.f32()};
    (p.matrix ? decay : noDecay).push_back(s);
    m_allSlots.push_back(s);
    m_gradSpans.push_back(p.grad.f32());
  }
  amp::OptimizerConfig oc;
  oc.kind = amp::OptimizerKind::AdamW;
  oc.beta1 = m_config.beta1;
  oc.beta2 = m_config.beta2;
  oc.weightDecay = m_config.weightDecay;
  m_decay = std::make_unique<amp::Optimizer>(oc, m_recipe, decay, m_config.seed);
  oc.weightDecay = 0.0;
  m_noDecay = std::make_unique<amp::Optimizer>(oc, m_recipe, noDecay, m_config.seed + 1);
  if (m_policy.lossScaling)
    m_scaler.emplace(amp::scalerPreset("pytorch"));
  amp::LrScheduleConfig lc;
  lc.kind = amp::LrScheduleKind::WarmupCosine;
  lc.baseLr = m_config.lr;
  lc.warmupSteps = m_config.warmupSteps;
  lc.totalSteps = m_config.steps;
  lc.floorLr = m_config.lrFloor;
  m_schedule = std::make_unique<amp::LrSchedule>(lc);

  // Fixed evaluation batches, drawn once.
  const std::size_t n = std::size_t(m_config.batch) * std::size_t(m_spec.ctx);
  for (auto [split, store] : {std::pair{data::TextSplit::Train, &m_evalTrain},
                              std::pair{data::TextSplit::Validation, &m_evalVal}}) {
    data::TextBatcher fixed(*m_corpus, split, m_spec.ctx, m_config.seed ^ 0x5eed5eedull);
    store->resize(2 * n * std::size_t(m_config.evalBatches));
    for (int b = 0; b < m_config.evalBatches; ++b) {
      const std::span<std::int32_t> all(*store);
      fixed.next(m_config.batch, all.subspan(2 * n * std::size_t(b), n),
                 all.subspan(2 * n * std::size_t(b) + n, n));
    }
  }
}

GptRun::~GptRun() = default;

const GptStep& GptRun::step() {
  const auto start = std::chrono::steady_clock::now();
  GptStep& r = m_report;
  r = GptStep{};
  r.step = m_step;
  r.lr = m_schedule->lrAt(m_step);
  using Clock = std::chrono::steady_clock;
  const auto msSince = [](Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  };
  m_batcher->next(m_config.batch, m_model->tokens(), m_model->targets());
  r.dataMs = msSince(start);
  r.loss = m_model->forward();
  r.matmulForwardMs = m_model->times().matmulMs;
  const double scale = m_scaler ? m_scaler->scale() : 1.0;
  r.lossScale = scale;
  const bool observe = m_collector.wants(m_step);
  // The frame is finished on every path out of the step, so a diverging step
  // shows where its values went.
  auto finish = [&] {
    r.times = m_model->times();
    r.stepMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (observe) {
      r.telemetryMs = m_collector.pendingMs();
      r.telemetry = m_collector.finish(r.step);
    }
    if (m_policy.scaling.scheme != amp::MatmulScaling::None)
      r.scaling = std::make_shared<const telemetry::ScalingFrame>(
          telemetry::ScalingFrame{r.step, m_model->scalingStats()});
  };
  if (observe) {
    using telemetry::TensorClass;
    const auto& params = m_model->params();
    for (std::size_t i = 0; i < params.size(); ++i)
      m_collector.observe(int(i), TensorClass::Weights, params[i].value.f32());
    const auto acts = m_model->observedActivations();
    for (std::size_t i = 0; i < acts.size(); ++i)
      m_collector.observe(int(params.size() + i), TensorClass::Activations, acts[i].values);
  }
  if (!std::isfinite(r.loss)) {
    const auto site = m_model->firstNonFinite();
    const char* value = std::isnan(r.loss) ? "NaN" : r.loss > 0 ? "inf" : "-inf";
    m_divergence = std::string("non-finite loss (") + value + ") at step " +
                   std::to_string(m_step) + " in policy " + m_policy.toSpec() +
                   (site ? ": first non-finite value at " + *site : std::string());
    ++m_step;
    finish();
    return r;
  }
  m_model->backward(static_cast<float>(scale));
  if (observe) {
    // Gradients as backward left them (x the loss scale) and unscaled.
    const auto& params = m_model->params();
    for (std::size_t i = 0; i < params.size(); ++i)
      m_collector.observe(int(i), telemetry::TensorClass::WeightGrads, params[i].grad.f32(),
                          static_cast<float>(scale));
  }
  const auto optimizerStart = Clock::now();
  bool foundInf = false;
  const float inv = m_scaler ? m_scaler->invScale() : 1.0f;
  for (auto& g : m_gradSpans)
    foundInf = amp::LossScaler::unscaleAndCheck(g, inv) || foundInf;
  r.foundInf = foundInf;
  if (m_scaler) {
    const amp::ScalerUpdate u = m_scaler->update(m_step, foundInf);
    if (u.skipped) {
      r.skipped = true;
      ++m_skipped;
      ++m_step;
      r.optimizerMs = msSince(optimizerStart);
      finish();
      return r;
    }
  } else if (foundInf) {
    m_divergence = "non-finite gradients at step " + std::to_string(m_step) + " in policy " +
                   m_policy.toSpec();
    ++m_step;
    finish();
    return r;
  }
  r.gradNorm = amp::globalGradNorm(m_allSlots);
  if (m_config.clipNorm > 0)
    amp::clipByGlobalNorm(m_gradSpans, r.gradNorm, m_config.clipNorm);
  m_decay->step(r.lr);
  m_noDecay->step(r.lr);
  m_model->refreshWorkingWeights();
  r.optimizerMs = msSince(optimizerStart);
  ++m_step;
  finish();
  return r;
}

GptEval GptRun::evaluate() {
  GptEval e;
  e.step = m_step;
  const std::size_t n = std::size_t(m_config.batch) * std::size_t(m_spec.ctx);
  for (auto [values, out] : {std::pair{&m_evalTrain, &e.trainLoss}, std::pair{&m_evalVal, &e.valLoss}}) {
    double sum = 0.0;
    for (int b = 0; b < m_config.evalBatches; ++b) {
      const auto* x = values->data() + 2 * n * std::size_t(b);
      std::copy(x, x + n, m_model->tokens().begin());
      std::copy(x + n, x + 2 * n, m_model->targets().begin());
      sum += m_model->forward();
    }
    *out = sum / m_config.evalBatches;
  }
  return e;
}

std::string GptRun::sample(int n, double temperature, std::uint64_t seed) {
  const int T = m_spec.ctx, V = m_corpus->vocabularySize();
  std::mt19937_64 rng(seed);
  std::vector<std::int32_t> context;
  const std::int32_t start = m_corpus->tokenOf(U'\n');
  context.push_back(start >= 0 ? start : 0);
  std::vector<std::int32_t> generated;
  std::vector<double> p(static_cast<std::size_t>(V));
  auto tokens = m_model->tokens();
  for (int i = 0; i < n; ++i) {
    const std::size_t len = std::min<std::size_t>(context.size(), std::size_t(T));
    std::fill(tokens.begin(), tokens.end(), 0);
    std::copy(context.end() - std::ptrdiff_t(len), context.end(), tokens.begin());
    m_model->forward();
    const float* logits = m_model->logits().f32().data() + (len - 1) * std::size_t(V);
    double mx = -1e300;
    for (int v = 0; v < V; ++v)
      mx = std::max(mx, double(logits[v]) / temperature);
    double z = 0;
    for (int v = 0; v < V; ++v)
      z += (p[std::size_t(v)] = std::exp(double(logits[v]) / temperature - mx));
    double u = std::uniform_real_distribution<double>(0.0, z)(rng);
    int pick = V - 1;
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
  return m_corpus->decode(generated);
}

} // namespace mantissa::train
