// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Structure-aware run logs: the fuzz bytes choose the shape of a log that is
// always valid JSON (header with a config, step rows with telemetry frames,
// evaluations, a summary) and fill it with hostile numbers: integers at and
// around the edges of int32, int64 and uint64, exponents far outside the FP32
// binades, bin counts whose sum wraps, steps negative or out of order, deep
// nesting. Byte-level fuzzing rarely gets past the JSON syntax to these.
//
// Checked: loadRunLog either refuses the log with a RunLogError naming the
// file, or accepts one that holds its documented invariants (steps strictly
// increasing, evaluations in order, each frame at its row's step and found by
// frameAt, every histogram's counts adding up to its total without overflow),
// and that written back with runLogText() reads to the same text.

#include <mantissa/telemetry/frame.h>
#include <mantissa/train/run_log.h>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>

#include <unistd.h>

namespace {

using nlohmann::json;

// Reads the fuzz bytes front to back; past the end, zeros.
class Bytes {
public:
  Bytes(const std::uint8_t* data, std::size_t size) : m_data(data), m_size(size) {}
  std::uint8_t byte() { return m_pos < m_size ? m_data[m_pos++] : 0; }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
      v = v << 8 | byte();
    return v;
  }
  std::size_t below(std::size_t n) { return n ? byte() % n : 0; }
  bool flag() { return byte() & 1; }

private:
  const std::uint8_t* m_data;
  std::size_t m_size;
  std::size_t m_pos = 0;
};

// An integer as JSON: mostly edge values, sometimes small or raw.
json hostileInt(Bytes& b, std::int64_t usual) {
  constexpr std::int64_t i64max = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t i64min = std::numeric_limits<std::int64_t>::min();
  switch (b.below(20)) {
  case 0: return usual;
  case 1: return 0;
  case 2: return -1;
  case 3: return std::numeric_limits<std::int32_t>::max();
  case 4: return std::int64_t{std::numeric_limits<std::int32_t>::max()} + 1;
  case 5: return std::int64_t{4294967312}; // 2^32 + 16: 16 once truncated to int
  case 6: return i64max;
  case 7: return i64max - static_cast<std::int64_t>(b.below(300));
  case 8: return i64min;
  case 9: return std::numeric_limits<std::uint64_t>::max();
  case 10: return std::uint64_t{1} << 63;
  case 11: return std::int64_t{1} << 62;
  case 12: return (std::int64_t{1} << 62) + 1;
  case 13: return std::int64_t{1} << 40;
  case 14: return (std::int64_t{1} << 40) + 1;
  case 15: return static_cast<std::int64_t>(b.below(256)) - 160;
  case 16: return b.u64();
  case 17: return static_cast<std::int64_t>(b.u64());
  case 18: return 1e300; // a float where an integer is expected
  default: // usual may itself be an edge value: add without signed overflow
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(usual) + b.below(5));
  }
}

json hostileNumber(Bytes& b, double usual) {
  switch (b.below(10)) {
  case 0: return nullptr;
  case 1: return 1e308;
  case 2: return -1e308;
  case 3: return -0.0;
  case 4: return 4.9e-324;
  case 5: return -1.0;
  case 6: return 2.0;
  case 7: return hostileInt(b, 0);
  default: return usual;
  }
}

json nested(Bytes& b, std::size_t depth) {
  json v = b.below(4);
  for (std::size_t i = 0; i < depth; ++i)
    v = (i % 2) ? json::array({std::move(v)}) : json{{"k", std::move(v)}};
  return v;
}

json tensor(Bytes& b) {
  static const char* const kClasses[] = {"weights", "activations", "activation_grads",
                                         "weight_grads", "updates", "bogus"};
  json t = {{"layer", b.flag() ? json(b.below(4)) : hostileInt(b, 0)},
            {"class", kClasses[b.below(6)]},
            {"scaled", b.flag()},
            {"loss_scale", b.flag() ? json(1.0) : hostileNumber(b, 65536.0)}};
  const std::size_t bins = b.flag() ? b.below(8) : b.below(300);
  json counts = json::array();
  std::uint64_t sum = 0; // wraps, as a careless reader's would
  for (std::size_t i = 0; i < bins; ++i) {
    const json c = b.flag() ? json(b.below(100)) : hostileInt(b, 1);
    counts.push_back(c);
    if (c.is_number_integer())
      sum += c.get<std::uint64_t>();
  }
  t["lo"] = bins == 0 && b.flag() ? json(nullptr) : b.flag() ? json(static_cast<int>(b.below(277)) - 149)
                                                             : hostileInt(b, -10);
  t["counts"] = std::move(counts);
  for (const char* key : {"zeros", "pos_inf", "neg_inf", "nan"}) {
    const json c = b.flag() ? json(0) : hostileInt(b, 0);
    t[key] = c;
    if (c.is_number_integer())
      sum += c.get<std::uint64_t>();
  }
  t["total"] = b.below(4) ? json(sum) : hostileInt(b, static_cast<std::int64_t>(sum));
  json cast = json::object();
  for (const char* name : {"fp16", "bf16", "fp8-e4m3", "fp8-e5m2"})
    if (b.below(16) != 0) // sometimes one is missing: an error
      cast[name] = json::array({b.flag() ? json(0.0) : hostileNumber(b, 0.5), 0.0, 0.0, 0.0});
  t["cast"] = std::move(cast);
  return t;
}

json frame(Bytes& b, std::int64_t step) {
  json tensors = json::array();
  const std::size_t n = b.below(4);
  for (std::size_t i = 0; i < n; ++i)
    tensors.push_back(tensor(b));
  json swamped = json::array();
  for (std::size_t i = b.below(3); i > 0; --i)
    swamped.push_back(hostileNumber(b, 0.25));
  return {{"step", b.below(4) ? json(step) : hostileInt(b, step)},
          {"telemetry_ms", hostileNumber(b, 0.5)},
          {"tensors", std::move(tensors)},
          {"swamped", std::move(swamped)}};
}

std::string buildLog(Bytes& b) {
  std::string text;
  const auto line = [&](const json& j) { text += j.dump() + "\n"; };
  if (b.flag()) {
    json config = {{"data", "spirals"}, {"model", "mlp:2-8-2"}, {"recipe", "fp16-mixed"}};
    static const char* const kInts[] = {"batch", "steps", "epochs", "seed", "telemetry_every",
                                        "eval_every", "grad_accumulation", "warmup_steps",
                                        "scaler_growth_interval"};
    for (std::size_t i = b.below(4); i > 0; --i)
      config[kInts[b.below(9)]] = hostileInt(b, 16);
    json header = {{"header", true}, {"config", std::move(config)}};
    if (b.flag())
      header["total_steps"] = hostileInt(b, 10);
    if (b.flag())
      header["extra"] = nested(b, b.below(80));
    line(header);
  }
  std::int64_t step = 0;
  for (std::size_t rows = b.below(24); rows > 0; --rows) {
    if (b.below(5) == 0) {
      line({{"eval", true},
            {"step", b.below(3) ? json(step) : hostileInt(b, step)},
            {"test_loss", hostileNumber(b, 0.5)},
            {"test_accuracy", hostileNumber(b, 0.5)},
            {"samples", hostileInt(b, 100)}});
      continue;
    }
    json row = {{"step", b.below(3) ? json(step) : hostileInt(b, step)},
                {"loss", hostileNumber(b, 1.0)}};
    if (b.flag())
      row["growth_tracker"] = hostileInt(b, 1);
    if (b.flag())
      row["hysteresis"] = hostileInt(b, 1);
    if (b.below(4) == 0)
      row["events"] = json::array({{{"event", b.flag() ? "backoff" : "growth"},
                                    {"scale_before", hostileNumber(b, 2.0)},
                                    {"scale_after", hostileNumber(b, 1.0)}}});
    if (b.below(3) == 0)
      row["telemetry"] = frame(b, step);
    line(row);
    step += static_cast<std::int64_t>(b.below(3));
  }
  if (b.flag())
    line({{"summary", true}, {"steps", hostileInt(b, step)}, {"test_loss", hostileNumber(b, 0.5)}});
  return text;
}

std::filesystem::path scratch(int which) {
  const std::filesystem::path dir =
      std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
  return dir / ("mantissa-fuzz-run-log-s-" + std::to_string(::getpid()) + "-" +
                std::to_string(which) + ".jsonl");
}

void writeFile(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void checkInvariants(const mantissa::train::RunLog& log) {
  for (std::size_t i = 1; i < log.steps.size(); ++i)
    if (log.steps[i].step <= log.steps[i - 1].step)
      std::abort();
  for (std::size_t i = 1; i < log.evals.size(); ++i)
    if (log.evals[i].step < log.evals[i - 1].step)
      std::abort();
  for (const auto& s : log.steps)
    if (s.step < 0 || s.growthTracker < 0 || s.hysteresis < 0)
      std::abort();
  for (const auto& f : log.frames) {
    if (log.frameAt(f.step) != &f)
      std::abort();
    for (const auto& t : f.tensors) {
      std::uint64_t sum = 0;
      for (const auto c : t.hist.bins)
        if (__builtin_add_overflow(sum, c, &sum))
          std::abort();
      for (const auto c : {t.hist.zeros, t.hist.posInf, t.hist.negInf, t.hist.nan})
        if (__builtin_add_overflow(sum, c, &sum))
          std::abort();
      if (sum != t.hist.total || t.layer < 0)
        std::abort();
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mantissa::train;
  Bytes bytes(data, size);
  const std::string built = buildLog(bytes);
  const std::filesystem::path first = scratch(0);
  writeFile(first, built);
  try {
    const RunLog log = loadRunLog(first);
    checkInvariants(log);
    const std::string text = runLogText(log);
    const std::filesystem::path second = scratch(1);
    writeFile(second, text);
    if (runLogText(loadRunLog(second)) != text)
      std::abort(); // written back, the log reads differently
  } catch (const RunLogError& e) {
    if (std::string_view(e.what()).find(first.filename().string()) == std::string_view::npos &&
        !built.empty())
      std::abort(); // the message must name the file
  }
  return 0;
}
