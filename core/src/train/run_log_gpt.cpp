// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/amp/recipe.h>
#include <mantissa/model/gpt_network.h>
#include <mantissa/numeric/cpu_features.h>
#include <mantissa/telemetry/frame.h>
#include <mantissa/train/run_log_gpt.h>
#include <mantissa/train/run_log_rows.h>

#include <algorithm>
#include <cmath>

namespace mantissa::train {

namespace {

using nlohmann::json;

json finiteOrNull(double v) {
  return std::isfinite(v) ? json(v) : json();
}

} // namespace

std::string gptRunName(const Session& session) {
  return session.config().policy.empty() ? session.config().recipe
                                         : session.gpt()->gpt().policy().toSpec();
}

std::string gptRunName(const GptRun& run) {
  return gptRunName(run.session());
}

std::vector<GptOpRow> gptOpTable(const GptRun& run) {
  std::vector<GptOpRow> rows;
  for (auto& row : run.session().model().opRows())
    rows.push_back({std::move(row.op), std::move(row.precision), std::move(row.note)});
  return rows;
}

json gptLogHeader(const Session& session) {
  const RunConfig& c = session.config();
  const model::GptNetwork& net = *session.gpt();
  const model::Gpt& gpt = net.gpt();
  // Every op class a GPT has: BatchNorm's is a CNN's.
  json policyTable = json::array();
  for (const auto& row : amp::policyTable(gpt.policy()))
    if (row.op != amp::opClassLabel(amp::OpClass::BatchNorm))
      policyTable.push_back({{"op", row.op}, {"precision", row.precision}});
  json recipeTable = json::array();
  for (const auto& row : net.opRows())
    recipeTable.push_back({{"op", row.op}, {"precision", row.precision}, {"note", row.note}});
  return {{"header", true},
          {"name", gptRunName(session)},
          {"model", gpt.spec().toString()},
          {"config", toJson(c)},
          {"policy", gpt.policy().toSpec()},
          {"policy_table", policyTable},
          {"recipe_table", recipeTable},
          {"scaler", gpt.policy().lossScaling ? "dynamic loss scaling (GradScaler)" : "none"},
          {"bytes", allocatedBytesJson(session)},
          {"bytes_at_recipe_precision", planBytesJson(session)},
          {"layers", net.telemetryLayers()},
          {"matmul", gpt.matmulImplementation()},
          {"total_steps", c.steps},
          {"telemetry_every", c.telemetryEvery},
          {"parameters", gpt.parameterCount()},
          {"vocabulary", session.text().vocabularySize()},
          {"data", session.text().name},
          {"machine",
           {{"cpu", numeric::cpuFeatures().modelName},
            {"isa", numeric::describeIsa()},
            {"onednn", numeric::onednnVersion() + " (" + numeric::onednnIsa() + ")"}}}};
}

json gptLogHeader(const GptRun& run) {
  return gptLogHeader(run.session());
}

json gptLogStep(const GptStep& r) {
  json ops = json::object();
  for (std::size_t o = 0; o < model::kGptOpCount; ++o)
    ops[std::string(model::gptOpName(model::GptOp(o)))] = r.times.ms[o];
  json j = {{"step", r.step},
            {"loss", finiteOrNull(r.loss)},
            {"lr", r.lr},
            {"loss_scale", r.lossScale},
            {"found_inf", r.foundInf},
            {"skipped", r.skipped},
            {"step_ms", r.stepMs},
            {"grad_norm", finiteOrNull(r.gradNorm)},
            {"op_ms", ops},
            {"matmul_ms", r.times.matmulMs}};
  // The op kinds every run's log has (the dashboards' time table): the GPT's
  // ops less their products are its elementwise work (norms, softmax, GELU,
  // residual adds, embedding); telemetry's own time is outside the op times.
  const auto at = [&](model::GptOp op) { return r.times.ms[std::size_t(op)]; };
  const double casts = at(model::GptOp::Casts), loss = at(model::GptOp::Loss);
  j["breakdown_ms"] = {
      {"matmul_fwd", r.matmulForwardMs},
      {"matmul_bwd", r.times.matmulMs - r.matmulForwardMs},
      {"conversion", casts},
      {"elementwise", std::max(0.0, r.times.total() - r.times.matmulMs - casts - loss)},
      {"loss", loss},
      {"optimizer", r.optimizerMs},
      {"telemetry", r.telemetryMs},
      {"data", r.dataMs}};
  if (r.telemetry)
    j["telemetry"] = telemetry::toJson(*r.telemetry);
  if (r.scaling)
    j["scaling"] = telemetry::toJson(*r.scaling);
  return j;
}

json gptLogEval(const GptEval& e) {
  return {{"eval", true},
          {"step", e.step},
          {"test_loss", finiteOrNull(e.valLoss)},
          {"val_loss", finiteOrNull(e.valLoss)},
          {"train_loss", finiteOrNull(e.trainLoss)}};
}

json gptLogEval(const EvalReport& e) {
  return gptLogEval(GptEval{e.step, e.trainLoss.value_or(0.0), e.loss});
}

GptSummary gptSummary(const GptRun& run, const GptEval& last, double wallSeconds,
                      std::string sample) {
  GptSummary s;
  s.last = last;
  s.steps = run.stepsDone();
  s.skippedSteps = run.skippedSteps();
  s.wallSeconds = wallSeconds;
  s.sample = std::move(sample);
  s.stoppedEarly = !run.finished();
  s.divergence = run.divergence();
  return s;
}

GptSummary gptSummary(const RunSummary& r, std::string sample) {
  GptSummary s;
  s.last = GptEval{r.steps, r.evalTrainLoss.value_or(0.0), r.testLoss};
  s.steps = r.steps;
  s.skippedSteps = r.skippedSteps;
  s.wallSeconds = r.wallSeconds;
  s.sample = std::move(sample);
  s.stoppedEarly = r.stoppedEarly;
  if (r.divergence)
    s.divergence = r.divergence->message;
  return s;
}

json gptLogSummary(const Session& session, const GptSummary& s) {
  json j = {{"summary", true},
            {"recipe", gptRunName(session)},
            {"policy", session.gpt()->gpt().policy().toSpec()},
            {"val_loss", finiteOrNull(s.last.valLoss)},
            {"train_loss", finiteOrNull(s.last.trainLoss)},
            {"test_loss", finiteOrNull(s.last.valLoss)},
            {"steps", s.steps},
            {"skipped_steps", s.skippedSteps},
            {"wall_s", s.wallSeconds},
            {"sample", s.sample},
            {"stopped_early", s.stoppedEarly},
            {"diverged", s.divergence.has_value()}};
  if (s.divergence)
    j["divergence"] = {{"message", *s.divergence}};
  return j;
}

json gptLogSummary(const GptRun& run, const GptSummary& s) {
  return gptLogSummary(run.session(), s);
}

} // namespace mantissa::train
