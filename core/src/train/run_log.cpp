// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/train/run_log.h>

#include <mantissa/io/atomic_file.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

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

RunStepRow stepRow(const json& o, const std::string& where) {
  const char* kind = "step row";
  RunStepRow r;
  r.step = integer(o, "step", where, kind);
  if (r.step < 0)
    fail(where, "step row: \"step\" must be >= 0, got " + std::to_string(r.step));
  r.loss = numberOrNull(o, "loss", where, kind);
  r.trainAccuracy = numberOrNull(o, "train_accuracy", where, kind, 0.0);
  r.lr = numberOrNull(o, "lr", where, kind, 0.0);
  r.lossScale = numberOrNull(o, "loss_scale", where, kind, 1.0);
  r.gradNorm = numberOrNull(o, "grad_norm", where, kind, 0.0);
  r.stepMs = numberOrNull(o, "step_ms", where, kind, 0.0);
  r.foundInf = boolean(o, "found_inf", where, kind);
  r.skipped = boolean(o, "skipped", where, kind);
  r.growthTracker = static_cast<int>(integer(o, "growth_tracker", where, kind, 0));
  r.hysteresis = static_cast<int>(integer(o, "hysteresis", where, kind, 0));
  if (const auto it = o.find("events"); it != o.end()) {
    if (!it->is_array())
      fail(where, "step row: \"events\" must be an array");
    for (const auto& e : *it) {
      if (!e.is_object())
        fail(where, "step row: each of \"events\" must be an object");
      r.events.push_back({r.step, eventKind(e.value("event", json()), where),
                          numberOrNull(e, "scale_before", where, "scaler event"),
                          numberOrNull(e, "scale_after", where, "scaler event")});
    }
  }
  r.raw = o;
  r.raw.erase("telemetry");
  return r;
}

RunEvalRow evalRow(const json& o, const std::string& where) {
  const char* kind = "eval row";
  RunEvalRow e;
  e.step = integer(o, "step", where, kind);
  e.testLoss = numberOrNull(o, "test_loss", where, kind);
  e.testAccuracy = numberOrNull(o, "test_accuracy", where, kind);
  e.samples = integer(o, "samples", where, kind, 0);
  return e;
}

} // namespace

std::string RunLog::name() const {
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
  if (o.contains("header")) {
    if (!m_log.steps.empty() || !m_log.header.is_null())
      fail(where, "a header must come first and only once");
    m_log.header = o;
    if (const auto it = o.find("config"); it != o.end()) {
      try {
        m_log.config = runConfigFromJson(*it);
      } catch (const std::exception& e) {
        fail(where, std::string("header: config: ") + e.what());
      }
    }
  } else if (o.contains("summary")) {
    m_log.summary = o;
  } else if (o.contains("eval")) {
    m_log.evals.push_back(evalRow(o, where));
  } else if (o.contains("step")) {
    RunStepRow row = stepRow(o, where);
    if (!m_log.steps.empty() && row.step <= m_log.steps.back().step)
      fail(where, "step " + std::to_string(row.step) + " does not follow step " +
                      std::to_string(m_log.steps.back().step));
    if (const auto it = o.find("telemetry"); it != o.end()) {
      try {
        m_log.frames.push_back(telemetry::fromJson(*it));
      } catch (const std::exception& e) {
        fail(where, std::string("telemetry: ") + e.what());
      }
    }
    m_log.steps.push_back(std::move(row));
  } else {
    fail(where, "not a header, step, eval or summary row (no \"header\", \"step\", \"eval\" or "
                "\"summary\" key)");
  }
}

RunLog loadRunLog(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw RunLogError("cannot open run log '" + path.string() + "'");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  if (in.bad())
    throw RunLogError("cannot read run log '" + path.string() + "'");

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
    json object = json::parse(line, nullptr, false);
    if (object.is_discarded()) {
      // A killed run: the last line is cut short and has no newline.
      if (!complete) {
        RunLog log = builder.take();
        log.truncated = true;
        if (!any)
          throw RunLogError(where + ": the only line is incomplete (no complete record)");
        log.source = path.string();
        return log;
      }
      fail(where, "not valid JSON");
    }
    builder.add(object, where);
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
  std::size_t frame = 0;
  std::size_t eval = 0;
  const auto evalsUpTo = [&](std::int64_t stepsDone) {
    for (; eval < log.evals.size() && log.evals[eval].step <= stepsDone; ++eval) {
      const RunEvalRow& e = log.evals[eval];
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
