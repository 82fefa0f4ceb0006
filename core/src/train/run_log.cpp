// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/train/run_log.h>

#include "run_log_line.h"

#include <mantissa/io/atomic_file.h>
#include <mantissa/io/json_fields.h>
#include <mantissa/io/regular_file.h>
#include <mantissa/amp/policy.h>
#include <mantissa/model/model_registry.h>
#include <mantissa/train/presets.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mantissa::train {

namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw RunLogError(where + ": " + what);
}

// A number, or NaN for null (how the trainer logs a non-finite value).
double numberOrNull(const json& o, const char* key, const std::string& where, const char* kind,
                    std::optional<double> fallback = std::nullopt) {
  const auto it = o.find(key);
  if (it == o.end()) {
    if (fallback)
      return *fallback;
    fail(where, std::string(kind) + ": \"" + key + "\" is missing");
  }
  if (it->is_null())
    return std::numeric_limits<double>::quiet_NaN();
  if (!it->is_number())
    fail(where, std::string(kind) + ": \"" + key + "\" must be a number or null, got " +
                    it->dump());
  return it->get<double>();
}

std::int64_t integer(const json& o, const char* key, const std::string& where, const char* kind,
                     std::optional<std::int64_t> fallback = std::nullopt) {
  const auto it = o.find(key);
  if (it == o.end()) {
    if (fallback)
      return *fallback;
    fail(where, std::string(kind) + ": \"" + key + "\" is missing");
  }
  if (!it->is_number_integer())
    fail(where, std::string(kind) + ": \"" + key + "\" must be an integer, got " + it->dump());
  return it->get<std::int64_t>();
}

bool boolean(const json& o, const char* key, const std::string& where, const char* kind) {
  const auto it = o.find(key);
  if (it == o.end())
    return false;
  if (!it->is_boolean())
    fail(where, std::string(kind) + ": \"" + key + "\" must be true or false, got " + it->dump());
  return it->get<bool>();
}

amp::ScalerEventKind eventKind(const json& name, const std::string& where) {
  for (auto kind : {amp::ScalerEventKind::Overflow, amp::ScalerEventKind::Backoff,
                    amp::ScalerEventKind::Growth, amp::ScalerEventKind::SkippedStep})
    if (name.is_string() && name.get<std::string>() == amp::toString(kind))
      return kind;
  fail(where, "step row: unknown scaler event " + name.dump() +
                  " (expected overflow, backoff, growth or skipped)");
}

// An integer field that must lie in [lo, hi] (a count or index the program
// later casts or adds to).
std::int64_t integerIn(const json& o, const char* key, const std::string& where, const char* kind,
                       std::int64_t lo, std::int64_t hi,
                       std::optional<std::int64_t> fallback = std::nullopt) {
  const auto it = o.find(key);
  if (it != o.end() && it->is_number_unsigned() && it->get<std::uint64_t>() > std::uint64_t(hi))
    fail(where, std::string(kind) + ": \"" + key + "\" must be in [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + "], got " + it->dump());
  const std::int64_t v = integer(o, key, where, kind, fallback);
  if (v < lo || v > hi)
    fail(where, std::string(kind) + ": \"" + key + "\" must be in [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + "], got " + std::to_string(v));
  return v;
}

// A number or null (NaN) that must lie in [lo, hi] when it is a number.
double numberIn(const json& o, const char* key, const std::string& where, const char* kind,
                double lo, double hi, std::optional<double> fallback = std::nullopt) {
  const double v = numberOrNull(o, key, where, kind, fallback);
  if (!std::isnan(v) && !(v >= lo && v <= hi))
    fail(where, std::string(kind) + ": \"" + key + "\" must be in [" + io::shownNumber(lo) + ", " +
                    io::shownNumber(hi) + "], got " + io::shownValue(o.at(key)));
  return v;
}

// A loss scale as any scaler keeps it: a float32, positive (subnormals
// included), or 0 when a scale held in float32 has backed off below its
// smallest subnormal (PyTorch's, Keras' after some 166 overflows in a row);
// -1, 5e-324 or 1e308 are no scale a run could have had.
double lossScaleIn(const json& o, const char* key, const std::string& where, const char* kind,
                   std::optional<double> fallback = std::nullopt) {
  const double v = numberOrNull(o, key, where, kind, fallback);
  if (v == 0.0)
    return v;
  return numberIn(o, key, where, kind, kMinLoggedLossScale, kMaxLoggedLossScale, fallback);
}

RunStepRow stepRow(const json& o, const std::string& where) {
  const char* kind = "step row";
  RunStepRow r;
  r.step = integerIn(o, "step", where, kind, 0, kMaxRunLogStep);
  r.loss = numberOrNull(o, "loss", where, kind);
  r.trainAccuracy = numberIn(o, "train_accuracy", where, kind, 0.0, 1.0, 0.0);
  r.lr = numberOrNull(o, "lr", where, kind, 0.0);
  r.lossScale = lossScaleIn(o, "loss_scale", where, kind, 1.0);
  r.gradNorm = numberOrNull(o, "grad_norm", where, kind, 0.0);
  r.stepMs = numberOrNull(o, "step_ms", where, kind, 0.0);
  r.foundInf = boolean(o, "found_inf", where, kind);
  r.skipped = boolean(o, "skipped", where, kind);
  r.growthTracker = static_cast<int>(
      integerIn(o, "growth_tracker", where, kind, 0, std::numeric_limits<int>::max(), 0));
  r.hysteresis = static_cast<int>(
      integerIn(o, "hysteresis", where, kind, 0, std::numeric_limits<int>::max(), 0));
  if (const auto it = o.find("events"); it != o.end()) {
    if (!it->is_array())
      fail(where, "step row: \"events\" must be an array");
    for (const auto& e : *it) {
      if (!e.is_object())
        fail(where, "step row: each of \"events\" must be an object");
      r.events.push_back({r.step, eventKind(e.value("event", json()), where),
                          lossScaleIn(e, "scale_before", where, "scaler event"),
                          lossScaleIn(e, "scale_after", where, "scaler event")});
    }
  }
  r.raw = o;
  r.raw.erase("telemetry");
  r.raw.erase("scaling");
  r.raw.erase("shadow");
  return r;
}

RunEvalRow evalRow(const json& o, const std::string& where) {
  const char* kind = "eval row";
  RunEvalRow e;
  e.step = integerIn(o, "step", where, kind, 0, kMaxRunLogStep);
  e.testLoss = numberOrNull(o, "test_loss", where, kind);
  e.testAccuracy = numberIn(o, "test_accuracy", where, kind, 0.0, 1.0,
                            std::numeric_limits<double>::quiet_NaN());
  e.samples = integerIn(o, "samples", where, kind, 0, kMaxRunLogStep, 0);
  e.trainLoss =
      numberOrNull(o, "train_loss", where, kind, std::numeric_limits<double>::quiet_NaN());
  e.raw = o;
  return e;
}

// The header's fields the program reads, type-checked once here so every
// reader after this one (the GUI, the report, the CLI) can take them as they are.
void checkHeader(const json& o, const std::string& where) {
  const io::JsonFields f(o, where, "header");
  for (const char* key : {"matmul_emulated", "conv_emulated"})
    f.boolean(key);
  for (const char* key : {"name", "source", "matmul", "conv", "scaler", "data"})
    if (const auto it = o.find(key); it != o.end() && !it->is_null())
      f.string(key);
  f.object("machine");
  for (const char* key : {"layers", "matmuls"})
    f.array(key);
  f.integer("telemetry_every", 0, kMaxRunLogStep);
  for (const char* key : {"total_steps", "train_samples", "test_samples"})
    f.integer(key, 0, kMaxRunLogStep);
  if (const json* table = f.array("recipe_table"))
    for (const json& row : *table) {
      if (!row.is_object())
        f.fail("recipe_table", "must hold objects {\"op\", \"precision\", \"note\"}, got " +
                                   io::shownValue(row));
      const io::JsonFields r(row, where, "header: recipe_table");
      for (const char* key : {"op", "precision", "note"})
        if (const auto it = row.find(key); it != row.end() && !it->is_null())
          r.string(key);
    }
}

// An older GPT log's header holds its configuration as "gpt_config", with
// the fields it did not write at the values they then always had (those of
// the shakespeare-char preset: AdamW, warm-up + cosine, betas 0.9 and 0.99):
// the header as it reads today, with that configuration as "config".
json withConfig(const json& header, const std::string& where) {
  const auto old = header.find("gpt_config");
  if (old == header.end())
    return header;
  if (!old->is_object())
    fail(where, "header: \"gpt_config\" must be an object, got " + io::shownValue(*old));
  json out = header;
  if (!out.contains("config")) {
    json config = toJson(findPreset("shakespeare-char")->runs.front());
    if (const auto model = header.find("model"); model != header.end() && model->is_string())
      config["model"] = *model;
    config.update(*old);
    out["config"] = std::move(config);
  }
  out.erase("gpt_config");
  return out;
}

// The summary's fields, checked as the header's are.
void checkSummary(const json& o, const std::string& where) {
  const io::JsonFields f(o, where, "summary");
  for (const char* key : {"stopped_early", "diverged"})
    f.boolean(key);
  for (const char* key : {"steps", "skipped_steps"})
    f.integer(key, 0, kMaxRunLogStep);
  f.numberIn("test_accuracy", 0.0, 1.0);
  f.numberIn("wall_s", 0.0, 1e12);
  for (const char* key : {"test_loss", "train_loss", "val_loss"})
    f.numberOrNull(key);
  if (const auto it = o.find("recipe"); it != o.end() && !it->is_null())
    f.string("recipe");
  if (const json* d = f.object("divergence")) {
    const io::JsonFields g(*d, where, "summary: divergence");
    g.integer("step", 0, kMaxRunLogStep);
    g.integer("layer", -1, std::numeric_limits<int>::max());
    for (const char* key : {"pass", "op", "message", "reason"})
      if (const auto it = d->find(key); it != d->end() && !it->is_null())
        g.string(key);
  }
}

} // namespace

std::string RunLog::name() const {
  if (config && model::modelKind(config->model).takesPolicy && !config->policy.empty()) {
    try {
      return amp::parsePolicy(config->policy).toSpec(); // as a GPT run names itself
    } catch (const std::exception&) {
      return config->policy;
    }
  }
  if (config)
    return config->recipe;
  if (summary.is_object() && summary.contains("recipe") && summary["recipe"].is_string())
    return summary["recipe"].get<std::string>();
  if (header.is_object() && header.contains("name") && header["name"].is_string())
    return header["name"].get<std::string>(); // logs of other trainers (a PyTorch tap)
  return "run";
}

const telemetry::TelemetryFrame* RunLog::frameAt(std::int64_t step) const {
  const auto it = std::lower_bound(frames.begin(), frames.end(), step,
                                   [](const auto& f, std::int64_t s) { return f.step < s; });
  return it != frames.end() && it->step == step ? &*it : nullptr;
}

void RunLogBuilder::add(const json& o, const std::string& where) {
  if (!o.is_object())
    fail(where, "expected a JSON object, got " + std::string(o.type_name()));
  if (m_log.steps.size() + m_log.evals.size() >= kMaxRunLogRows)
    fail(where, "more than " + std::to_string(kMaxRunLogRows) + " rows, the limit of a run log");
  try {
    addChecked(o, where);
  } catch (const io::JsonFieldError& e) {
    throw RunLogError(e.what()); // names the file, line and field
  }
}

void RunLogBuilder::addChecked(const json& o, const std::string& where) {
  if (o.contains("header")) {
    if (!m_log.steps.empty() || !m_log.header.is_null())
      fail(where, "a header must come first and only once");
    json header = withConfig(o, where);
    checkHeader(header, where);
    m_log.header = std::move(header);
    if (const auto it = m_log.header.find("config"); it != m_log.header.end()) {
      try {
        m_log.config = runConfigFromJson(*it);
      } catch (const std::exception& e) {
        fail(where, std::string("header: config: ") + e.what());
      }
      if (const auto problems = m_log.config->rangeProblems(); !problems.empty())
        fail(where, "header: config: " + problems.front());
    }
  } else if (o.contains("summary")) {
    checkSummary(o, where);
    m_log.summary = o;
  } else if (o.contains("eval")) {
    RunEvalRow e = evalRow(o, where);
    // An evaluation after `step` steps follows step index step - 1 and comes
    // before any later evaluation.
    if (!m_log.evals.empty() && e.step < m_log.evals.back().step)
      fail(where, "eval at step " + std::to_string(e.step) + " comes after the eval at step " +
                      std::to_string(m_log.evals.back().step));
    if (!m_log.steps.empty() && e.step < m_log.steps.back().step + 1)
      fail(where, "eval at step " + std::to_string(e.step) + " comes after step row " +
                      std::to_string(m_log.steps.back().step));
    m_log.evals.push_back(e);
  } else if (o.contains("step")) {
    RunStepRow row = stepRow(o, where);
    if (!m_log.steps.empty() && row.step <= m_log.steps.back().step)
      fail(where, "step " + std::to_string(row.step) + " does not follow step " +
                      std::to_string(m_log.steps.back().step));
    if (!m_log.evals.empty() && row.step < m_log.evals.back().step)
      fail(where, "step " + std::to_string(row.step) + " comes after the eval at step " +
                      std::to_string(m_log.evals.back().step));
    if (const auto it = o.find("telemetry"); it != o.end()) {
      telemetry::TelemetryFrame frame;
      try {
        frame = telemetry::fromJson(*it);
      } catch (const std::exception& e) {
        fail(where, std::string("telemetry: ") + e.what());
      }
      // A frame belongs to its row: frameAt() and the report look it up by step.
      if (frame.step != row.step)
        fail(where, "telemetry: frame of step " + std::to_string(frame.step) + " in step row " +
                        std::to_string(row.step));
      m_log.frames.push_back(std::move(frame));
    }
    if (const auto it = o.find("scaling"); it != o.end()) {
      telemetry::ScalingFrame frame;
      try {
        frame = telemetry::scalingFromJson(*it);
      } catch (const std::exception& e) {
        fail(where, e.what());
      }
      if (frame.step != row.step)
        fail(where, "scaling: frame of step " + std::to_string(frame.step) + " in step row " +
                        std::to_string(row.step));
      m_log.scaling.push_back(std::move(frame));
    }
    if (const auto it = o.find("shadow"); it != o.end()) {
      ShadowFrame frame;
      try {
        frame = shadowFrameFromJson(*it);
      } catch (const std::exception& e) {
        fail(where, e.what());
      }
      if (frame.step != row.step)
        fail(where, "shadow: frame of step " + std::to_string(frame.step) + " in step row " +
                        std::to_string(row.step));
      m_log.shadow.push_back(std::move(frame));
    }
    m_log.steps.push_back(std::move(row));
  } else {
    fail(where, "not a header, step, eval or summary row (no \"header\", \"step\", \"eval\" or "
                "\"summary\" key)");
  }
}

namespace {

std::int64_t rowStep(const json& row) {
  const auto it = row.find("step");
  return it != row.end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
}
bool isEval(const json& row) { return row.contains("eval"); }

} // namespace

void RunLogDecimator::add(const json& o) {
  if (!o.is_object())
    return;
  if (o.contains("header")) {
    m_header = o;
    return;
  }
  if (o.contains("summary")) {
    m_summary = o;
    return;
  }
  if (isEval(o)) {
    if (m_evalIndex++ % m_evalStride != 0)
      return;
    if (!m_pending.is_null()) { // the step row this evaluation follows
      m_rows.push_back(std::move(m_pending));
      m_pending = nullptr;
      ++m_stepRows;
    }
    m_rows.push_back(o);
    ++m_evals;
  } else {
    const std::int64_t step = rowStep(o);
    json row = o;
    if (row.contains("telemetry")) {
      if (step % m_frameStride == 0)
        ++m_frames;
      else
        row.erase("telemetry"), row.erase("shadow");
    }
    const bool keep = m_stepRows == 0 || step % m_stride == 0 || row.contains("telemetry") ||
                      row.contains("divergence") || (m_keepEvents && row.contains("events"));
    if (!keep) {
      m_pending = std::move(row);
      return;
    }
    m_pending = nullptr;
    m_rows.push_back(std::move(row));
    ++m_stepRows;
  }
  if (m_stepRows > kMaxExportStepRows || m_frames > kMaxExportFrames || m_evals > kMaxExportEvals)
    thin();
}

void RunLogDecimator::thin() {
  while (m_stepRows > kMaxExportStepRows * 3 / 4 || m_frames > kMaxExportFrames * 3 / 4 ||
         m_evals > kMaxExportEvals * 3 / 4) {
    if (m_stepRows > kMaxExportStepRows * 3 / 4) {
      if (m_stride >= (std::int64_t{1} << 40))
        m_keepEvents = false;
      else
        m_stride *= 2;
    }
    if (m_frames > kMaxExportFrames * 3 / 4)
      m_frameStride *= 2;
    // Kept evaluations are those whose index is a multiple of the stride:
    // doubling it keeps every other one of them.
    const bool halveEvals = m_evals > kMaxExportEvals * 3 / 4;
    if (halveEvals)
      m_evalStride *= 2;
    std::vector<json> kept;
    std::size_t steps = 0, frames = 0, evals = 0;
    std::size_t evalPosition = 0;
    bool first = true;
    for (json& row : m_rows) {
      if (isEval(row)) {
        if (!halveEvals || evalPosition++ % 2 == 0) {
          kept.push_back(std::move(row));
          ++evals;
        }
        continue;
      }
      const std::int64_t step = rowStep(row);
      if (row.contains("telemetry") && step % m_frameStride != 0)
        row.erase("telemetry"), row.erase("shadow");
      const bool keep = first || step % m_stride == 0 || row.contains("telemetry") ||
                        row.contains("divergence") || (m_keepEvents && row.contains("events"));
      first = false;
      if (keep) {
        frames += row.contains("telemetry") ? 1 : 0;
        ++steps;
        kept.push_back(std::move(row));
      }
    }
    m_rows = std::move(kept);
    m_stepRows = steps;
    m_frames = frames;
    m_evals = evals;
  }
}

RunLog RunLogDecimator::take() {
  RunLogBuilder builder;
  if (!m_header.is_null())
    builder.add(m_header, "header");
  for (const json& row : m_rows)
    builder.add(row, "row");
  if (!m_pending.is_null())
    builder.add(m_pending, "last step");
  if (!m_summary.is_null())
    builder.add(m_summary, "summary");
  *this = RunLogDecimator();
  return builder.take();
}

std::size_t RunLogDecimator::stepRows() const { return m_stepRows; }
std::size_t RunLogDecimator::frames() const { return m_frames; }
std::size_t RunLogDecimator::evals() const { return m_evals; }

namespace detail {

std::optional<json> parseRunLogLine(std::string_view line, const std::string& where,
                                    bool mayBeCut) {
  if (line.size() > kMaxRunLogLineBytes)
    fail(where, "line of " + std::to_string(line.size()) + " bytes, over the limit of " +
                    io::byteLimitText(kMaxRunLogLineBytes) + " for one line of a run log");
  try {
    return io::parseJsonText(line, kMaxRunLogDepth);
  } catch (const io::JsonTextError& e) {
    // A killed run: the last line is cut short and has no newline.
    if (mayBeCut && e.kind() == io::JsonTextError::Kind::Syntax)
      return std::nullopt;
    fail(where, e.detail() + (e.column() > 0 ? " (column " + std::to_string(e.column()) + ")"
                                             : std::string()));
  }
}

} // namespace detail

RunLog loadRunLog(const std::filesystem::path& path) {
  std::string text;
  try {
    text = io::readRegularFile(path, kMaxRunLogBytes, "run log");
  } catch (const io::FileReadError& e) {
    throw RunLogError(e.what());
  }

  RunLogBuilder builder;
  std::size_t begin = 0;
  std::size_t lineNo = 0;
  bool any = false;
  while (begin < text.size()) {
    const std::size_t end = text.find('\n', begin);
    const bool complete = end != std::string::npos;
    const std::string_view line(text.data() + begin, (complete ? end : text.size()) - begin);
    begin = complete ? end + 1 : text.size();
    ++lineNo;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos)
      continue;
    const std::string where = path.string() + ":" + std::to_string(lineNo);
    std::optional<json> object = detail::parseRunLogLine(line, where, !complete);
    if (!object) {
      RunLog log = builder.take();
      log.truncated = true;
      if (!any)
        throw RunLogError(where + ": the only line is incomplete (no complete record)");
      log.source = path.string();
      return log;
    }
    builder.add(*object, where);
    any = true;
  }
  if (!any)
    throw RunLogError("run log '" + path.string() + "' is empty");
  RunLog log = builder.take();
  log.source = path.string();
  return log;
}

std::string runLogText(const RunLog& log) {
  const auto line = [](const json& j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  };
  std::string out;
  if (!log.header.is_null())
    out += line(log.header);
  std::size_t frame = 0, scaling = 0, shadow = 0;
  std::size_t eval = 0;
  const auto evalsUpTo = [&](std::int64_t stepsDone) {
    for (; eval < log.evals.size() && log.evals[eval].step <= stepsDone; ++eval) {
      const RunEvalRow& e = log.evals[eval];
      if (e.raw.is_object()) {
        out += line(e.raw);
        continue;
      }
      out += line({{"eval", true},
                   {"step", e.step},
                   {"test_loss", std::isfinite(e.testLoss) ? json(e.testLoss) : json()},
                   {"test_accuracy", e.testAccuracy},
                   {"samples", e.samples}});
    }
  };
  for (const RunStepRow& r : log.steps) {
    evalsUpTo(r.step); // evaluations after `step` steps come after step index step - 1
    json j = r.raw.is_object() ? r.raw : json{{"step", r.step}, {"loss", r.loss}};
    while (frame < log.frames.size() && log.frames[frame].step < r.step)
      ++frame;
    if (frame < log.frames.size() && log.frames[frame].step == r.step)
      j["telemetry"] = telemetry::toJson(log.frames[frame]);
    while (scaling < log.scaling.size() && log.scaling[scaling].step < r.step)
      ++scaling;
    if (scaling < log.scaling.size() && log.scaling[scaling].step == r.step)
      j["scaling"] = telemetry::toJson(log.scaling[scaling]);
    while (shadow < log.shadow.size() && log.shadow[shadow].step < r.step)
      ++shadow;
    if (shadow < log.shadow.size() && log.shadow[shadow].step == r.step)
      j["shadow"] = shadowFrameJson(log.shadow[shadow]);
    out += line(j);
  }
  evalsUpTo(std::numeric_limits<std::int64_t>::max());
  if (!log.summary.is_null())
    out += line(log.summary);
  return out;
}

std::filesystem::path configPath(const std::filesystem::path& logPath) {
  std::filesystem::path p = logPath;
  p.replace_extension(".config.json");
  return p;
}

void saveRun(const RunLog& log, const std::filesystem::path& path) {
  io::writeFileAtomically(path, runLogText(log));
  json config = log.config ? toJson(*log.config)
                           : (log.header.is_object() && log.header.contains("config")
                                  ? log.header["config"]
                                  : json::object());
  io::writeFileAtomically(configPath(path), config.dump(2) + "\n");
}

} // namespace mantissa::train
