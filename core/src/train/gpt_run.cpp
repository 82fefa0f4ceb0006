// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/model/gpt_network.h>
#include <mantissa/train/gpt_run.h>
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

RunConfig GptRunConfig::toRunConfig() const {
  RunConfig c;
  c.data = data;
  c.model = model;
  c.recipe = recipe;
  c.policy = policy;
  c.optimizer = "adamw";
  c.lr = lr;
  c.beta1 = beta1;
  c.beta2 = beta2;
  c.weightDecay = weightDecay;
  c.schedule = "cosine";
  c.warmupSteps = warmupSteps;
  c.lrFloor = lrFloor;
  c.clipNorm = clipNorm;
  c.batch = batch;
  c.steps = steps;
  c.seed = seed;
  c.evalBatches = evalBatches;
  c.evalEvery = evalEvery;
  c.telemetryEvery = telemetryEvery;
  return c;
}

GptRun::GptRun(GptRunConfig config) : m_config(std::move(config)) {
  if (const auto list = m_config.problems(); !list.empty()) {
    std::string joined;
    for (const auto& s : list)
      joined += (joined.empty() ? "" : "; ") + s;
    throw ConfigError(joined);
  }
  m_session = std::make_unique<Session>(m_config.toRunConfig());
}

GptRun::~GptRun() = default;

model::Gpt& GptRun::model() {
  return m_session->gpt()->gpt();
}
const model::Gpt& GptRun::model() const {
  return m_session->gpt()->gpt();
}
const std::vector<std::string>& GptRun::telemetryLayers() const {
  return m_session->gpt()->telemetryLayers();
}

GptStep gptStepOf(const StepReport& s, const model::GptNetwork& net) {
  GptStep r;
  r.step = s.step;
  r.loss = s.loss;
  r.lr = s.lr;
  r.lossScale = s.lossScale;
  r.foundInf = s.foundInf;
  r.skipped = s.skipped;
  r.gradNorm = s.skipped || s.divergence ? 0.0 : s.gradNorm;
  r.stepMs = s.stepMs;
  r.times = net.gpt().times();
  r.matmulForwardMs = net.matmulForwardMs();
  r.dataMs = s.times.data;
  r.optimizerMs = s.times.optimizer + (s.skipped || s.divergence ? 0.0 : net.refreshMs());
  r.telemetryMs = s.times.telemetry;
  r.telemetry = s.telemetry;
  r.scaling = s.scaling;
  return r;
}

const GptStep& GptRun::step() {
  const StepReport& s = m_session->step();
  m_report = gptStepOf(s, *m_session->gpt());
  if (s.divergence && !m_divergence)
    m_divergence = s.divergence->message; // Session::nameGptDivergence
  return m_report;
}

GptEval GptRun::evaluate() {
  const EvalReport e = m_session->evaluate();
  if (m_session->divergence() && !m_divergence) // a non-finite evaluation (Session::evaluate)
    m_divergence = m_session->divergence()->message;
  return GptEval{e.step, e.trainLoss.value_or(0.0), e.loss};
}

std::string GptRun::sample(int n, double temperature, std::uint64_t seed) {
  return m_session->sample(n, temperature, seed);
}

} // namespace mantissa::train
