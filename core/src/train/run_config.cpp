// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/train/run_config.h>
#include <mantissa/telemetry/tensor_scan.h>

#include <mantissa/amp/loss_scaler.h>
#include <mantissa/amp/optimizer.h>
#include <mantissa/amp/recipe.h>
#include <mantissa/amp/policy.h>
#include <mantissa/io/excerpt.h>
#include <mantissa/io/json_fields.h>
#include <mantissa/model/model_registry.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <sstream>

namespace mantissa::train {

namespace {

std::string num(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// Runs `parse`, turning its exception into a problem line.
template <class F> void check(std::vector<std::string>& out, const char* field, F&& parse) {
  try {
    parse();
  } catch (const std::exception& e) {
    out.push_back(std::string(field) + ": " + e.what());
  }
}

} // namespace

std::vector<std::string> RunConfig::rangeProblems() const {
  std::vector<std::string> out;
  if (scalerGrowthInterval && (*scalerGrowthInterval < 1 || *scalerGrowthInterval > (1 << 30)))
    out.push_back("scaler_growth_interval: must be in [1, 2^30], got " +
                  std::to_string(*scalerGrowthInterval));
  if (warmupSteps < 0 || warmupSteps > kMaxSteps)
    out.push_back("warmup_steps: must be in [0, 2^40], got " + std::to_string(warmupSteps));
  if (batch < 1 || batch > kMaxBatch)
    out.push_back("batch: must be in [1, 65536], got " + std::to_string(batch));
  if (steps < 0 || steps > kMaxSteps)
    out.push_back("steps: must be in [1, 2^40], got " + std::to_string(steps));
  if (epochs < 0 || epochs > kMaxEpochs)
    out.push_back("epochs: must be in [1, 1000000], got " + std::to_string(epochs));
  if (seed > kMaxSeed)
    out.push_back("seed: must be in [0, 2^63 - 1], got " + std::to_string(seed));
  if (telemetryEvery < 0 || telemetryEvery > kMaxTelemetryEvery)
    out.push_back("telemetry_every: must be in [0, 2^30], got " + std::to_string(telemetryEvery));
  if (!telemetryFormats.empty()) {
    std::string error;
    if (!telemetry::parseCastFormatList(telemetryFormats, error))
      out.push_back("telemetry_formats: " + error);
  }
  if (evalEvery < 0 || evalEvery > kMaxSteps)
    out.push_back("eval_every: must be in [0, 2^40], got " + std::to_string(evalEvery));
  if (gradAccumulation < 1 || gradAccumulation > kMaxGradAccumulation)
    out.push_back("grad_accumulation: must be in [1, 1024], got " + std::to_string(gradAccumulation));
  if (!shadow.empty() && shadow != "fp32" && shadow != "fp64")
    out.push_back("shadow: must be fp32 or fp64 (the reference's precision), got '" +
                  io::excerpt(shadow) + "'");
  if (!(shadowThreshold > 0.0) || !std::isfinite(shadowThreshold))
    out.push_back("shadow_threshold: must be a positive finite number, got " +
                  io::shownNumber(shadowThreshold));
  return out;
}

namespace {

// 2^-14 for a power of two, else up to six significant digits.
std::string factorText(double v) {
  int e = 0;
  if (v > 0.0 && std::isfinite(v) && std::frexp(v, &e) == 0.5)
    return "2^" + std::to_string(e - 1);
  std::ostringstream out;
  out.precision(6);
  out << v;
  return out.str();
}

} // namespace

std::vector<std::string> settingsBeyondSetup(const RunConfig& c) {
  const RunConfig d;
  std::vector<std::string> out;
  if (c.lossMultiplier != d.lossMultiplier)
    out.push_back("loss × " + factorText(c.lossMultiplier));
  if (c.scalerInitScale)
    out.push_back("scaler initial scale " + factorText(*c.scalerInitScale));
  if (c.scalerGrowthInterval)
    out.push_back("scaler growth every " + std::to_string(*c.scalerGrowthInterval) + " steps");
  if (c.optimizer == "sgd" && c.momentum != d.momentum)
    out.push_back("momentum " + factorText(c.momentum));
  if (c.initGain != d.initGain)
    out.push_back("init gain " + factorText(c.initGain));
  return out;
}

std::vector<std::string> RunConfig::problems() const {
  std::vector<std::string> out = rangeProblems();
  if (!shadow.empty() && telemetryEvery == 0)
    out.emplace_back("shadow: the shadow pass runs at telemetry steps: set telemetry_every "
                     "(--telemetry-every K) too");
  if (!shadow.empty() && gradAccumulation > 1)
    out.emplace_back("shadow: compares one batch's tensors with the reference's, so it needs "
                     "grad_accumulation 1, got " + std::to_string(gradAccumulation));
  if (data.empty())
    out.emplace_back("data: empty (a built-in name: mnist, fashion, spirals, blobs, or a path)");
  const model::ModelKind& kind = model::modelKind(model);
  check(out, "model", [&] { kind.parse(model); });
  if (kind.takesPolicy) {
    if (!policy.empty()) {
      check(out, "policy", [&] {
        const amp::Policy parsed = amp::parsePolicy(policy);
        if (kind.checkPolicy)
          kind.checkPolicy(model, parsed);
      });
      // A class the policy table holds for other models: naming it for a
      // model without BatchNorm would be echoed and never applied.
      for (std::size_t at = policy.find(','); at != std::string::npos; at = policy.find(',', at + 1))
        if (policy.compare(at + 1, 10, "batchnorm=") == 0)
          out.push_back(std::string("policy: batchnorm cannot apply: ") + kind.noun +
                        " has no BatchNorm (the batchnorm setting is a CNN's)");
    }
  } else if (!policy.empty()) {
    out.push_back("policy: a precision policy applies to " + model::policyModels() + ", not to '" +
                  model + "'; choose a recipe");
  }
  if (kind.input == model::ModelInput::Tokens) {
    if (!(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1))
      out.emplace_back("beta1/beta2: must be in [0, 1)");
    if (evalBatches < 1 || evalBatches > 10000)
      out.push_back("eval_batches: must be in [1, 10000], got " + std::to_string(evalBatches));
  } else if (evalBatches != RunConfig{}.evalBatches) {
    out.push_back("eval_batches: model '" + model + "' is " + kind.noun +
                  ", evaluated on its whole test set; fixed evaluation batches are " +
                  model::tokenModels() + "'s");
  }
  if (!kind.accumulates && gradAccumulation != 1)
    out.push_back("grad_accumulation: model '" + model + "' is " + kind.noun +
                  ", which trains on one batch per step (1), got " +
                  std::to_string(gradAccumulation));
  if (!batchnorm.empty() && batchnorm != "fp32" && batchnorm != "bf16" && batchnorm != "fp16")
    out.push_back("batchnorm: the precision of BatchNorm statistics is fp32, bf16 or fp16 (or "
                  "empty: the recipe's reductions), got '" + batchnorm + "'");
  const amp::Recipe* r = amp::findRecipe(recipe);
  check(out, "recipe", [&] { amp::recipeByName(recipe); });
  // "none" is every recipe's choice (for fp16-mixed: scale 1, no skipped steps).
  if (r && !scaler.empty() && scaler != "none") {
    if (!r->lossScaling)
      out.push_back("scaler: recipe '" + recipe +
                    "' does not use loss scaling (choose fp16-mixed to use a scaler, or none)");
    else
      check(out, "scaler", [&] { amp::scalerPreset(scaler); });
  }
  if (scalerInitScale && !(std::isfinite(*scalerInitScale) && *scalerInitScale > 0))
    out.push_back("scaler_init_scale: must be a positive finite number, got " + num(*scalerInitScale));
  if (!amp::parseOptimizer(optimizer))
    out.push_back("optimizer: unknown '" + optimizer + "' (sgd, adamw)");
  if (!(std::isfinite(lr) && lr > 0))
    out.push_back("lr: must be a positive finite number, got " + num(lr));
  if (!(momentum >= 0 && momentum < 1))
    out.push_back("momentum: must be in [0, 1), got " + num(momentum));
  if (!(weightDecay >= 0 && std::isfinite(weightDecay)))
    out.push_back("weight_decay: must be >= 0, got " + num(weightDecay));
  if (schedule != "constant" && schedule != "cosine")
    out.push_back("schedule: unknown '" + schedule + "' (constant, cosine)");
  if (std::isfinite(lr) && lr > 0 && !(lrFloor >= 0 && lrFloor <= lr))
    out.push_back("lr_floor: must be in [0, lr], got " + num(lrFloor));
  if ((steps > 0) == (epochs > 0))
    out.emplace_back("steps/epochs: give exactly one of them as a positive number");
  if (!(clipNorm >= 0 && std::isfinite(clipNorm)))
    out.push_back("clip_norm: must be >= 0, got " + num(clipNorm));
  if (!(initGain > 0 && std::isfinite(initGain)))
    out.push_back("init_gain: must be a positive finite number, got " + num(initGain));
  if (!(lossMultiplier > 0 && std::isfinite(lossMultiplier)))
    out.push_back("loss_multiplier: must be a positive finite number, got " + num(lossMultiplier));
  if (schedule == "cosine" && steps > 0 && warmupSteps >= steps)
    out.push_back("warmup_steps: must be below steps for the cosine schedule");
  return out;
}

void RunConfig::validate() const {
  const auto list = problems();
  if (list.empty())
    return;
  std::string msg = "invalid run configuration: ";
  for (std::size_t i = 0; i < list.size(); ++i)
    msg += (i ? "; " : "") + list[i];
  throw ConfigError(msg);
}

nlohmann::json toJson(const RunConfig& c) {
  nlohmann::json j = {
      {"data", c.data},           {"model", c.model},
      {"recipe", c.recipe},       {"scaler", c.scaler},
      {"optimizer", c.optimizer}, {"lr", c.lr},
      {"momentum", c.momentum},   {"weight_decay", c.weightDecay},
      {"schedule", c.schedule},   {"warmup_steps", c.warmupSteps},
      {"lr_floor", c.lrFloor},    {"batch", c.batch},
      {"steps", c.steps},         {"epochs", c.epochs},
      {"seed", c.seed},           {"telemetry_every", c.telemetryEvery},
      {"eval_every", c.evalEvery}, {"grad_accumulation", c.gradAccumulation},
      {"clip_norm", c.clipNorm},  {"init_gain", c.initGain},
      {"loss_multiplier", c.lossMultiplier}};
  if (!c.telemetryFormats.empty())
    j["telemetry_formats"] = c.telemetryFormats;
  if (!c.shadow.empty()) {
    j["shadow"] = c.shadow;
    j["shadow_threshold"] = c.shadowThreshold;
  }
  j["scaler_init_scale"] = c.scalerInitScale ? nlohmann::json(*c.scalerInitScale) : nullptr;
  j["scaler_growth_interval"] =
      c.scalerGrowthInterval ? nlohmann::json(*c.scalerGrowthInterval) : nullptr;
  if (!c.batchnorm.empty()) // only models with BatchNorm read it
    j["batchnorm"] = c.batchnorm;
  const model::ModelKind& kind = model::modelKind(c.model);
  if (kind.takesPolicy) // only models that take a policy read it
    j["policy"] = c.policy;
  if (kind.input == model::ModelInput::Tokens) { // only text models read them
    j["beta1"] = c.beta1;
    j["beta2"] = c.beta2;
    j["eval_batches"] = c.evalBatches;
  }
  return j;
}

namespace {

template <class T> void read(const nlohmann::json& j, const char* key, T& out) {
  if (!j.contains(key))
    return;
  const auto& v = j.at(key);
  using Plain = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<Plain, std::string>) {
    if (!v.is_string())
      throw ConfigError(std::string(key) + ": expected a string");
  } else if constexpr (std::is_integral_v<Plain>) {
    if (!v.is_number_integer())
      throw ConfigError(std::string(key) + ": expected an integer");
    if constexpr (std::is_unsigned_v<Plain>)
      if (v.is_number_integer() && !v.is_number_unsigned())
        throw ConfigError(std::string(key) + ": expected a non-negative integer");
    // Out of the field's type is refused, never truncated: 4294967312 is not 16.
    const bool fits = v.is_number_unsigned()
                          ? v.get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<Plain>::max())
                          : v.get<std::int64_t>() >= std::int64_t(std::numeric_limits<Plain>::min()) &&
                                (std::is_unsigned_v<Plain> ||
                                 v.get<std::int64_t>() <= std::int64_t(std::numeric_limits<Plain>::max()));
    if (!fits)
      throw ConfigError(std::string(key) + ": " + v.dump() + " is out of range");
  } else {
    if (!v.is_number())
      throw ConfigError(std::string(key) + ": expected a number");
  }
  out = v.get<Plain>();
}

template <class T> void readOptional(const nlohmann::json& j, const char* key, std::optional<T>& out) {
  if (!j.contains(key) || j.at(key).is_null())
    return;
  T value{};
  read(j, key, value);
  out = value;
}

} // namespace

RunConfig runConfigFromJson(const nlohmann::json& j) {
  if (!j.is_object())
    throw ConfigError("run configuration: expected a JSON object");
  const RunConfig defaults;
  const auto known = toJson(defaults);
  for (const auto& [key, value] : j.items())
    if (!known.contains(key) && key != "batchnorm" && key != "policy" && key != "beta1" &&
        key != "beta2" && key != "eval_batches" && key != "telemetry_formats" &&
        key != "shadow" && key != "shadow_threshold")
      throw ConfigError("run configuration: unknown key '" + key + "'");
  RunConfig c;
  read(j, "data", c.data);
  read(j, "model", c.model);
  read(j, "recipe", c.recipe);
  if (j.contains("batchnorm"))
    read(j, "batchnorm", c.batchnorm);
  read(j, "scaler", c.scaler);
  readOptional(j, "scaler_init_scale", c.scalerInitScale);
  readOptional(j, "scaler_growth_interval", c.scalerGrowthInterval);
  read(j, "optimizer", c.optimizer);
  read(j, "lr", c.lr);
  read(j, "momentum", c.momentum);
  read(j, "weight_decay", c.weightDecay);
  read(j, "schedule", c.schedule);
  read(j, "warmup_steps", c.warmupSteps);
  read(j, "lr_floor", c.lrFloor);
  read(j, "batch", c.batch);
  read(j, "steps", c.steps);
  read(j, "epochs", c.epochs);
  read(j, "seed", c.seed);
  read(j, "telemetry_every", c.telemetryEvery);
  read(j, "telemetry_formats", c.telemetryFormats);
  read(j, "eval_every", c.evalEvery);
  read(j, "grad_accumulation", c.gradAccumulation);
  read(j, "clip_norm", c.clipNorm);
  read(j, "init_gain", c.initGain);
  read(j, "loss_multiplier", c.lossMultiplier);
  read(j, "policy", c.policy);
  read(j, "beta1", c.beta1);
  read(j, "beta2", c.beta2);
  read(j, "eval_batches", c.evalBatches);
  read(j, "shadow", c.shadow);
  read(j, "shadow_threshold", c.shadowThreshold);
  return c;
}

} // namespace mantissa::train
