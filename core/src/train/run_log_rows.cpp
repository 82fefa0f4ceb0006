// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/amp/policy.h>
#include <mantissa/amp/recipe.h>
#include <mantissa/kernels/matmul_path.h>
#include <mantissa/kernels/threads.h>
#include <mantissa/model/tensor_plan.h>
#include <mantissa/numeric/cpu_features.h>
#include <mantissa/telemetry/frame.h>
#include <mantissa/train/run_log_rows.h>

#include <cmath>
#include <string>

namespace mantissa::train {

namespace {

using nlohmann::json;

json finiteOrNull(double v) {
  return std::isfinite(v) ? json(v) : json();
}

// Where a run diverged, and the sentence for people.
json divergenceJson(const Divergence& d) {
  return {{"step", d.step},     {"layer", d.layer},
          {"op", d.op},         {"pass", d.backward ? "backward" : "forward"},
          {"reason", d.reason}, {"message", d.message}};
}

} // namespace

json matmulUseJson(const nn::MatmulUse& u) {
  return {{"layer", u.layer},
          {"product", u.product},
          {"m", u.shape.m},
          {"n", u.shape.n},
          {"k", u.shape.k},
          {"path", std::string(kernels::matmulPathName(u.path))},
          {"inputs", std::string(dtypeName(u.inputs))},
          {"kernel", u.kernel},
          {"reason", u.reason},
          {"result", u.result}};
}

std::optional<nn::MatmulUse> matmulUseFromJson(const json& j) {
  if (!j.is_object())
    return std::nullopt;
  auto str = [&](const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  auto dim = [&](const char* key) -> std::optional<std::int64_t> {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer())
      return std::nullopt;
    const auto v = it->get<std::int64_t>();
    return v > 0 ? std::optional(v) : std::nullopt;
  };
  nn::MatmulUse u;
  u.product = str("product");
  if (u.product != "forward" && u.product != "dX" && u.product != "dW")
    return std::nullopt;
  const auto path = kernels::parseMatmulPath(str("path"));
  const auto m = dim("m"), n = dim("n"), k = dim("k");
  if (!path || *path == kernels::MatmulPath::Auto || !m || !n || !k)
    return std::nullopt;
  u.path = *path;
  u.shape = {*m, *n, *k};
  const auto layer = j.find("layer");
  if (layer != j.end() && layer->is_number_integer() && layer->get<std::int64_t>() >= 0 &&
      layer->get<std::int64_t>() <= 1 << 20)
    u.layer = int(layer->get<std::int64_t>());
  const std::string inputs = str("inputs");
  u.inputs = inputs == "bf16" ? DType::BF16 : inputs == "f16" ? DType::F16 : DType::F32;
  u.kernel = str("kernel");
  u.reason = str("reason");
  u.result = str("result");
  return u;
}

std::vector<nn::MatmulUse> matmulUsesFromJson(const json& array) {
  std::vector<nn::MatmulUse> uses;
  if (array.is_array())
    for (const auto& e : array)
      if (auto u = matmulUseFromJson(e))
        uses.push_back(std::move(*u));
  return uses;
}

json allocatedBytesJson(const Session& s) {
  json bytes = json::object();
  for (const auto& [name, n] : s.allocatedBytes())
    bytes[name] = n;
  return bytes;
}

json planBytesJson(const Session& s) {
  const auto plan = s.plan();
  json nominal = json::object();
  for (auto role : {model::TensorRole::Weights, model::TensorRole::MasterWeights,
                    model::TensorRole::Activations, model::TensorRole::Gradients,
                    model::TensorRole::OptimizerState})
    nominal[std::string(model::tensorRoleName(role))] = model::bytesFor(plan, role);
  return nominal;
}

std::string runName(const Session& s) {
  const amp::Policy* policy = s.model().policy();
  return policy && !s.config().policy.empty() ? policy->toSpec() : s.config().recipe;
}

json runLogHeader(const Session& s) {
  const model::Network& net = s.model();
  auto table = json::array();
  // A model that runs a policy has op rows for every op class of it (with
  // the kernel or emulation that ran); the others' add to the recipe's.
  if (!net.policy())
    for (const auto& row : amp::recipeTable(s.recipe()))
      table.push_back({{"op", row.op}, {"precision", row.precision}, {"note", row.note}});
  for (const auto& row : net.opRows())
    table.push_back({{"op", row.op}, {"precision", row.precision}, {"note", row.note}});
  auto matmuls = json::array();
  for (const auto& u : net.matmulUses())
    matmuls.push_back(matmulUseJson(u));
  json h = {{"header", true},
            {"config", toJson(s.config())},
            {"recipe_table", table},
            {"scaler", s.scalerDescription()},
            {"bytes", allocatedBytesJson(s)},
            {"bytes_at_recipe_precision", planBytesJson(s)},
            {"matmul", net.matmulImplementation()},
            {"matmul_emulated", net.matmulEmulated()},
            {"matmuls", matmuls},
            {"total_steps", s.totalSteps()},
            {"parameters", net.parameterCount()},
            {"machine",
             {{"cpu", numeric::cpuFeatures().modelName},
              {"isa", numeric::describeIsa()},
              {"onednn", numeric::onednnVersion() + " (" + numeric::onednnIsa() + ")"},
              {"threads", kernels::kernelThreads()}}}};
  if (s.isText()) {
    h["data"] = s.text().name;
    h["vocabulary"] = s.text().vocabularySize();
  } else {
    h["data"] = s.data().train.name;
    h["train_samples"] = s.data().train.size();
    h["test_samples"] = s.data().test.size();
  }
  if (const auto conv = net.convImplementation(); !conv.empty()) {
    h["conv"] = conv;
    h["conv_emulated"] = net.convEmulated();
    auto layers = json::array(); // names for the layer pickers, as a tap's header has them
    for (const auto& l : net.layerInfo())
      layers.push_back(l.name);
    h["layers"] = layers;
  }
  if (const amp::Policy* policy = net.policy()) {
    // The policy the model runs (named by it when one was given) and its
    // table with every op class the model has (BatchNorm's only with a
    // convolution).
    json policyTable = json::array();
    for (const auto& row : amp::policyTable(*policy))
      if (!net.convImplementation().empty() || row.op != amp::opClassLabel(amp::OpClass::BatchNorm))
        policyTable.push_back({{"op", row.op}, {"precision", row.precision}});
    h["name"] = runName(s);
    h["model"] = net.specString();
    h["policy"] = policy->toSpec();
    h["policy_table"] = policyTable;
    h["telemetry_every"] = s.config().telemetryEvery;
  }
  if (const auto names = net.telemetryNames(); !names.empty())
    h["layers"] = names; // the names of its telemetry frames' layers
  return h;
}

json runLogStep(const Session& session, const StepReport& r) {
  const auto& t = r.times;
  json j = {{"step", r.step},
            {"loss", finiteOrNull(r.loss)},
            {"lr", r.lr},
            {"loss_scale", r.lossScale},
            {"found_inf", r.foundInf},
            {"skipped", r.skipped},
            {"step_ms", r.stepMs},
            {"grad_norm", finiteOrNull(r.gradNorm)},
            {"epoch", r.epoch},
            {"train_accuracy", r.accuracy},
            {"clip_factor", r.clipFactor},
            {"growth_tracker", r.scaler.growthTracker},
            {"hysteresis", r.scaler.hysteresisLeft},
            {"updates_lost", r.updates.lostFraction()},
            {"breakdown_ms",
             {{"matmul_fwd", t.matmulForward},
              {"matmul_bwd", t.matmulBackward},
              {"conversion", t.conversion},
              {"elementwise", t.elementwise},
              {"loss", t.loss},
              {"optimizer", t.optimizer},
              {"telemetry", t.telemetry},
              {"data", t.data}}}};
  if (t.convForward > 0.0 || t.convBackward > 0.0) { // a model with convolutions
    j["breakdown_ms"]["conv_fwd"] = t.convForward;
    j["breakdown_ms"]["conv_bwd"] = t.convBackward;
  }
  if (!r.scalerEvents.empty()) {
    auto events = json::array();
    for (const auto& e : r.scalerEvents)
      events.push_back({{"event", amp::toString(e.kind)},
                        {"scale_before", e.scaleBefore},
                        {"scale_after", e.scaleAfter}});
    j["events"] = events;
  }
  if (!r.underflow.empty()) {
    auto u = json::array();
    for (const auto& g : r.underflow)
      u.push_back(g.fraction());
    j["grad_underflow"] = u; // per layer: non-zero FP32 dW values that became zero when stored
  }
  if (r.firstNonFinite)
    j["non_finite"] = {{"layer", r.firstNonFinite->layer},
                       {"op", r.firstNonFinite->op},
                       {"pass", r.firstNonFinite->backward ? "backward" : "forward"}};
  if (r.telemetry)
    j["telemetry"] = telemetry::toJson(*r.telemetry);
  if (r.scaling)
    j["scaling"] = telemetry::toJson(*r.scaling);
  if (r.shadow)
    j["shadow"] = shadowFrameJson(*r.shadow);
  if (r.divergence)
    j["divergence"] = divergenceJson(*r.divergence);
  if (const auto opMs = session.model().opMs(); !opMs.empty()) {
    // The model's own op times (forward + backward of this step), read from
    // the network right after the step.
    json ops = json::object();
    for (const auto& [op, ms] : opMs)
      ops[op] = ms;
    j["op_ms"] = ops;
    j["matmul_ms"] = session.model().matmulMs();
  }
  return j;
}

json runLogEval(const Session&, const EvalReport& e) {
  json j = {{"eval", true}, {"step", e.step}, {"test_loss", finiteOrNull(e.loss)}};
  if (e.trainLoss) { // a GPT's: the losses over both splits' fixed batches
    j["val_loss"] = finiteOrNull(e.loss);
    j["train_loss"] = finiteOrNull(*e.trainLoss);
  } else {
    j["test_accuracy"] = e.accuracy;
    j["samples"] = e.samples;
  }
  return j;
}

json runLogSummary(const Session& session, const RunSummary& s) {
  json j = {{"summary", true},
            {"recipe", runName(session)},
            {"test_loss", finiteOrNull(s.testLoss)},
            {"steps", s.steps},
            {"skipped_steps", s.skippedSteps},
            {"wall_s", s.wallSeconds},
            {"stopped_early", s.stoppedEarly},
            {"diverged", s.divergence.has_value()}};
  if (const amp::Policy* policy = session.model().policy())
    j["policy"] = policy->toSpec();
  if (session.isText()) { // the losses over both splits' fixed batches
    j["val_loss"] = finiteOrNull(s.testLoss);
    j["train_loss"] = finiteOrNull(s.evalTrainLoss.value_or(0.0));
  } else {
    j["test_accuracy"] = s.testAccuracy;
  }
  if (s.divergence)
    j["divergence"] = divergenceJson(*s.divergence);
  return j;
}

} // namespace mantissa::train
