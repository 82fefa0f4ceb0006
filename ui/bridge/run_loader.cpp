// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/bridge/run_loader.h"

#include <mantissa/amp/loss_scaler.h>
#include <mantissa/model/model_registry.h>
#include <mantissa/model/mlp.h>
#include <mantissa/train/run_log.h>
#include <mantissa/train/run_log_rows.h>
#include <mantissa/train/run_precision.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <exception>
#include <limits>
#include <memory>
#include <string>

namespace mantissa::ui {

namespace {

using nlohmann::json;

double number(const json& o, const char* key, double fallback = 0.0) {
  const auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : fallback;
}

// An integer field of an untrusted log: the fallback unless it is a finite
// number in [lo, hi] (a double outside the target type's range must never
// reach a cast).
std::int64_t integer(const json& o, const char* key, std::int64_t lo, std::int64_t hi,
                     std::int64_t fallback = 0) {
  const double v = number(o, key, double(fallback));
  if (!(v >= double(lo) && v <= double(hi)))
    return fallback;
  return static_cast<std::int64_t>(v);
}

constexpr std::int64_t kMaxStep = std::int64_t{1} << 62;

// A true/false field (train::RunLogBuilder has checked the type of those a
// log's header and summary hold; anything else reads as false).
bool flag(const json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_boolean() && it->get<bool>();
}

QString text(const json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_string() ? QString::fromStdString(it->get<std::string>())
                                          : QString();
}

model::OpTimes opTimes(const json& row) {
  const auto it = row.find("breakdown_ms");
  if (it == row.end() || !it->is_object())
    return {};
  const json& b = *it;
  model::OpTimes t{number(b, "matmul_fwd"),  number(b, "matmul_bwd"), number(b, "conversion"),
                   number(b, "elementwise"), number(b, "loss"),       number(b, "optimizer"),
                   number(b, "telemetry"),   number(b, "data")};
  t.convForward = number(b, "conv_fwd");
  t.convBackward = number(b, "conv_bwd");
  return t;
}

std::optional<train::Divergence> divergence(const json& o) {
  const auto it = o.find("divergence");
  if (it == o.end() || !it->is_object())
    return std::nullopt;
  train::Divergence d;
  d.step = integer(*it, "step", 0, kMaxStep);
  d.layer = int(integer(*it, "layer", 0, std::numeric_limits<int>::max()));
  d.backward = text(*it, "pass") == QLatin1String("backward");
  d.op = text(*it, "op").toStdString();
  d.reason = text(*it, "reason").toStdString();
  d.message = text(*it, "message").toStdString();
  return d;
}

std::optional<train::RunSummary> summaryOf(const train::RunLog& log) {
  const json& s = log.summary;
  if (!s.is_object())
    return std::nullopt;
  train::RunSummary summary;
  summary.recipe = log.name();
  summary.steps = integer(s, "steps", 0, kMaxStep, std::int64_t(log.steps.size()));
  summary.skippedSteps = integer(s, "skipped_steps", 0, kMaxStep);
  summary.wallSeconds = number(s, "wall_s");
  // Absent (a PyTorch tap's log, a GPT's) is not 0 %: NaN, shown as "—".
  summary.testAccuracy = number(s, "test_accuracy", std::numeric_limits<double>::quiet_NaN());
  summary.testLoss = number(s, "test_loss", std::numeric_limits<double>::quiet_NaN());
  if (const auto it = s.find("train_loss"); it != s.end() && it->is_number()) // a GPT's
    summary.evalTrainLoss = it->get<double>();
  summary.finalTrainLoss = log.steps.empty() ? 0.0 : log.steps.back().loss;
  summary.stoppedEarly = flag(s, "stopped_early");
  summary.divergence = divergence(s);
  return summary;
}

// A tap's header (mantissa_torch): layer names, the op table, the telemetry cadence.
void addForeignFacts(RunFacts& f, const json& h) {
  f.source = text(h, "source");
  if (const auto it = h.find("layers"); it != h.end() && it->is_array())
    for (const json& name : *it)
      f.layerNames.push_back(name.is_string() ? QString::fromStdString(name.get<std::string>())
                                              : QString());
  if (const auto it = h.find("recipe_table"); it != h.end() && it->is_array()) {
    if (f.recipe == nullptr) {
      for (const json& row : *it)
        if (row.is_object())
          f.opRows.push_back({text(row, "op"), text(row, "precision"), text(row, "note")});
    } else {
      // A model's own ops (a CNN's convolutions) follow the recipe's rows.
      const std::size_t recipeRows = amp::recipeTable(*f.recipe).size();
      for (std::size_t i = recipeRows; i < it->size(); ++i)
        if ((*it)[i].is_object())
          f.modelOpRows.push_back(
              {text((*it)[i], "op"), text((*it)[i], "precision"), text((*it)[i], "note")});
    }
  }
  if (f.telemetryEvery == 0)
    f.telemetryEvery = int(std::clamp(number(h, "telemetry_every"), 0.0, 1e9));
  if (f.widths.size() < f.layerNames.size() + 1)
    f.widths.resize(f.layerNames.size() + 1, 0);
}

} // namespace

RunFacts runFacts(const train::Session& session) {
  // A model that runs a per-op policy: the fixed parts as its log's header
  // gives them (the views read its tensor names and op table from there,
  // live or saved alike).
  if (session.model().policy()) {
    train::RunLogBuilder builder;
    builder.add(train::runLogHeader(session));
    return runFacts(builder.log());
  }
  RunFacts f;
  for (const auto& layer : session.model().layerInfo()) {
    if (f.widths.empty())
      f.widths.push_back(layer.rows);
    f.widths.push_back(layer.cols);
    if (!session.model().convImplementation().empty()) // a CNN: blocks are named
      f.layerNames.push_back(QString::fromStdString(layer.name));
  }
  f.recipe = &session.recipe();
  try {
    f.policy = train::runPolicy(session.config());
  } catch (const std::exception&) {
    // A configuration this version cannot read: the charts do not claim a format.
  }
  f.matmul = QString::fromStdString(session.model().matmulImplementation());
  f.matmulEmulated = session.model().matmulEmulated();
  f.conv = QString::fromStdString(session.model().convImplementation());
  f.convEmulated = session.model().convEmulated();
  for (const auto& r : session.model().opRows())
    f.modelOpRows.push_back({QString::fromStdString(r.op), QString::fromStdString(r.precision),
                             QString::fromStdString(r.note)});
  f.matmuls = session.model().matmulUses();
  f.scalerDescription = QString::fromStdString(session.scalerDescription());
  if (session.scaler())
    f.scalerPreset = QString::fromStdString(session.scaler()->config().preset);
  f.totalSteps = session.totalSteps();
  f.telemetryEvery = session.config().telemetryEvery;
  return f;
}

RunFacts runFacts(const train::RunLog& log) {
  RunFacts f;
  const json& h = log.header.is_object() ? log.header : json::object();
  // A GPT run's log carries its own op table (its policy): a recipe's name
  // there does not mean the MLP recipe's table.
  f.recipe = log.config && model::modelKind(log.config->model).takesPolicy
                 ? nullptr
                 : amp::findRecipe(log.name());
  f.matmul = text(h, "matmul");
  f.matmulEmulated = flag(h, "matmul_emulated");
  f.conv = text(h, "conv");
  if (const auto it = h.find("conv_emulated"); it != h.end() && it->is_boolean())
    f.convEmulated = it->get<bool>();
  if (h.contains("matmuls"))
    f.matmuls = train::matmulUsesFromJson(h["matmuls"]);
  f.scalerDescription = text(h, "scaler");
  f.policy = train::runPolicy(log);
  f.totalSteps = integer(h, "total_steps", 0, kMaxStep, std::int64_t(log.steps.size()));
  if (log.config) {
    try {
      f.widths = model::parseMlpSpec(log.config->model).widths;
    } catch (const std::exception&) {
      // A model this version cannot parse: the layer pickers stay empty.
    }
    f.telemetryEvery = log.config->telemetryEvery;
  }
  std::string scaler;
  try {
    scaler = train::runScalerPreset(log);
  } catch (const std::exception&) {
    scaler = log.config ? log.config->scaler : std::string(); // a recipe this version does not know
  }
  if (!scaler.empty()) {
    try {
      f.scalerPreset = QString::fromStdString(amp::scalerPreset(scaler).preset);
    } catch (const std::exception&) {
      f.scalerPreset = QString::fromStdString(scaler);
    }
  }
  if (f.widths.empty() && !log.frames.empty()) // no config: at least the layers that were recorded
    for (const auto& t : log.frames.back().tensors)
      f.widths.resize(std::max<std::size_t>(f.widths.size(), std::size_t(t.layer) + 2), 0);
  if (f.telemetryEvery == 0 && log.frames.size() >= 2)
    f.telemetryEvery = int(std::clamp<std::int64_t>(log.frames[1].step - log.frames[0].step, 0,
                                                    std::numeric_limits<int>::max()));
  addForeignFacts(f, h);
  return f;
}

model::OpTimes meanOpTimes(const model::OpTimes& t, std::int64_t steps) {
  if (steps <= 0)
    return {};
  const double n = double(steps);
  return {t.matmulForward / n, t.matmulBackward / n, t.conversion / n, t.elementwise / n,
          t.loss / n,          t.optimizer / n,      t.telemetry / n,  t.data / n,
          t.convForward / n,   t.convBackward / n};
}

RunMailbox::Drained drainedFromLog(const train::RunLog& log) {
  RunMailbox::Drained drained;
  drained.rows.reserve(log.steps.size() + log.evals.size());
  std::size_t frame = 0;
  std::size_t shadow = 0;
  std::size_t eval = 0;
  model::OpTimes totalTimes;
  const auto evalsUpTo = [&](std::int64_t stepsDone) {
    for (; eval < log.evals.size() && log.evals[eval].step <= stepsDone; ++eval) {
      StepRow row;
      row.kind = StepRow::Kind::Eval;
      row.step = log.evals[eval].step;
      row.loss = log.evals[eval].testLoss;
      row.accuracy = log.evals[eval].testAccuracy;
      drained.rows.push_back(std::move(row));
    }
  };
  bool timesRecorded = false;
  for (const train::RunStepRow& s : log.steps) {
    evalsUpTo(s.step); // an evaluation after `step` steps follows step index step - 1
    StepRow row;
    row.step = s.step;
    row.loss = s.loss;
    row.accuracy = s.trainAccuracy;
    row.lr = s.lr;
    row.lossScale = s.lossScale;
    row.gradNorm = s.gradNorm;
    row.stepMs = s.stepMs;
    row.foundInf = s.foundInf;
    row.skipped = s.skipped;
    row.scaler = {s.lossScale, s.growthTracker, s.hysteresis};
    for (const auto& e : s.events)
      if (row.eventCount < int(row.events.size()))
        row.events[std::size_t(row.eventCount++)] = e;
    row.times = opTimes(s.raw);
    timesRecorded = timesRecorded || s.raw.contains("breakdown_ms");
    totalTimes += row.times;
    while (frame < log.frames.size() && log.frames[frame].step < s.step)
      ++frame;
    if (frame < log.frames.size() && log.frames[frame].step == s.step)
      row.frame = std::make_shared<const telemetry::TelemetryFrame>(log.frames[frame]);
    while (shadow < log.shadow.size() && log.shadow[shadow].step < s.step)
      ++shadow;
    if (shadow < log.shadow.size() && log.shadow[shadow].step == s.step)
      row.shadow = std::make_shared<const train::ShadowFrame>(log.shadow[shadow]);
    row.divergence = divergence(s.raw);
    drained.rows.push_back(std::move(row));
  }
  evalsUpTo(std::numeric_limits<std::int64_t>::max());

  auto snapshot = std::make_shared<RunSnapshot>();
  snapshot->stepsDone = log.steps.empty() ? 0 : log.steps.back().step + 1;
  snapshot->totalSteps = runFacts(log).totalSteps;
  snapshot->summary = summaryOf(log);
  double wall = 0.0;
  for (const auto& s : log.steps)
    wall += s.stepMs / 1000.0;
  snapshot->elapsedSeconds = snapshot->summary ? snapshot->summary->wallSeconds : wall;
  snapshot->meanTimes = meanOpTimes(totalTimes, std::int64_t(log.steps.size()));
  snapshot->timesRecorded = timesRecorded;
  snapshot->finished = true;
  drained.snapshot = std::move(snapshot);
  return drained;
}

} // namespace mantissa::ui
