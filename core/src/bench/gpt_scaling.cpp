// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/bench/gpt_scaling.h>

#include <mantissa/bench/isa_probe.h>
#include <mantissa/numeric/cpu_features.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/session.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <omp.h>
#include <stdexcept>

namespace mantissa::bench {

namespace {

using nlohmann::json;

double median(std::vector<double> v) {
  if (v.empty())
    return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw std::invalid_argument("GPT scaling result: " + where + ": " + what);
}

const json& member(const json& j, const char* key, const std::string& where) {
  const std::string name = where.empty() ? key : where + "." + key;
  if (!j.is_object())
    bad(where.empty() ? "top level" : where, "must be an object");
  const auto it = j.find(key);
  if (it == j.end())
    bad(name, "missing");
  return *it;
}

std::string text(const json& j, const char* key, const std::string& where) {
  const json& v = member(j, key, where);
  if (!v.is_string())
    bad(where.empty() ? key : where + "." + key, "must be a string");
  return v.get<std::string>();
}

double number(const json& j, const char* key, const std::string& where, double lo, double hi) {
  const json& v = member(j, key, where);
  const std::string name = where.empty() ? key : where + "." + key;
  if (!v.is_number())
    bad(name, "must be a number");
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || x > hi)
    bad(name, "out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return x;
}

int integer(const json& j, const char* key, const std::string& where, int lo, int hi) {
  const double x = number(j, key, where, lo, hi);
  if (x != std::floor(x))
    bad(where.empty() ? key : where + "." + key, "must be a whole number");
  return static_cast<int>(x);
}

constexpr double kMaxMs = 1e9;
constexpr double kMaxBytes = 1e15;

TorchStep torchFrom(const json& j, const std::string& where) {
  TorchStep t;
  t.stepMs = number(j, "step_ms", where, 1e-9, kMaxMs);
  t.stepMinMs = number(j, "step_min_ms", where, 0, kMaxMs);
  t.stepMaxMs = number(j, "step_max_ms", where, 0, kMaxMs);
  t.peakRssBytes = static_cast<std::int64_t>(number(j, "peak_rss_bytes", where, 0, kMaxBytes));
  return t;
}

} // namespace

std::string GptSize::modelSpec() const {
  return "gpt:layers=" + std::to_string(layers) + ",heads=" + std::to_string(heads) +
         ",embd=" + std::to_string(embd) + ",ctx=" + std::to_string(ctx);
}

std::string GptSize::label() const {
  return std::to_string(layers) + "x" + std::to_string(embd) + " ctx " + std::to_string(ctx) +
         " b " + std::to_string(batch);
}

const std::vector<GptSize>& gptScalingSizes() {
  static const std::vector<GptSize> sizes{
      {4, 4, 128, 64, 12},  // shakespeare-char
      {4, 4, 256, 64, 12},  // wider
      {6, 6, 384, 64, 12},  // nanoGPT's width and depth
      {6, 6, 384, 128, 32}, // longer context, larger batch
      {6, 6, 384, 256, 64}, // nanoGPT's full shakespeare_char model
  };
  return sizes;
}

double gptStepFlops(const GptSize& s) {
  const double B = s.batch, T = s.ctx, C = s.embd, L = s.layers, V = s.vocab;
  const double forward = B * T * (L * (24.0 * C * C + 4.0 * T * C) + 2.0 * C * V);
  return 3.0 * forward;
}

std::int64_t gptParameterCount(const GptSize& s) {
  const std::int64_t C = s.embd;
  return std::int64_t(s.vocab) * C + std::int64_t(s.ctx) * C +
         std::int64_t(s.layers) * (12 * C * C + 13 * C) + 2 * C;
}

double GptScalingRow::stepGflops() const { return stepMs > 0 ? flopsPerStep / (stepMs * 1e6) : 0.0; }
double GptScalingRow::matmulGflops() const {
  return matmulMs > 0 ? flopsPerStep / (matmulMs * 1e6) : 0.0;
}
double GptScalingRow::torchGflops() const {
  return torch && torch->stepMs > 0 ? flopsPerStep / (torch->stepMs * 1e6) : 0.0;
}

double GptScaling::mfu(double gflops) const { return peakGflops > 0 ? gflops / peakGflops : 0.0; }

json gptScalingToJson(const GptScaling& s) {
  json sizes = json::array();
  for (const GptScalingRow& r : s.rows) {
    json torch = nullptr;
    if (r.torch)
      torch = {{"step_ms", r.torch->stepMs},
               {"step_min_ms", r.torch->stepMinMs},
               {"step_max_ms", r.torch->stepMaxMs},
               {"peak_rss_bytes", r.torch->peakRssBytes}};
    sizes.push_back({{"layers", r.size.layers},
                     {"heads", r.size.heads},
                     {"embd", r.size.embd},
                     {"ctx", r.size.ctx},
                     {"batch", r.size.batch},
                     {"vocab", r.size.vocab},
                     {"params", r.params},
                     {"flops_per_step", r.flopsPerStep},
                     {"steps", r.steps},
                     {"step_ms", r.stepMs},
                     {"step_min_ms", r.stepMinMs},
                     {"step_max_ms", r.stepMaxMs},
                     {"matmul_ms", r.matmulMs},
                     {"peak_rss_bytes", r.peakRssBytes},
                     {"torch", torch},
                     {"torch_error", r.torchError}});
  }
  json threads = json::array();
  for (const ThreadsStep& t : s.threadsScaling)
    threads.push_back({{"threads", t.threads}, {"step_ms", t.stepMs}});
  return {{"schema", 1},          {"cpu_model", s.cpuModel},     {"isa", s.isa},
          {"recipe", s.recipe},   {"threads", s.threads},        {"peak_gflops", s.peakGflops},
          {"peak_source", s.peakSource}, {"torch_version", s.torchVersion}, {"sizes", sizes},
          {"threads_scaling", threads}};
}

GptScaling gptScalingFromJson(const json& j) {
  if (integer(j, "schema", "", 1, 1) != 1)
    bad("schema", "unknown");
  GptScaling s;
  s.cpuModel = text(j, "cpu_model", "");
  s.isa = text(j, "isa", "");
  s.recipe = text(j, "recipe", "");
  s.threads = integer(j, "threads", "", 1, 4096);
  s.peakGflops = number(j, "peak_gflops", "", 0, 1e9);
  s.peakSource = text(j, "peak_source", "");
  s.torchVersion = text(j, "torch_version", "");
  const json& sizes = member(j, "sizes", "");
  if (!sizes.is_array())
    bad("sizes", "must be an array");
  if (sizes.size() > 1000)
    bad("sizes", "more than 1000 entries");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::string where = "sizes[" + std::to_string(i) + "]";
    const json& e = sizes[i];
    GptScalingRow r;
    r.size.layers = integer(e, "layers", where, 1, 1024);
    r.size.heads = integer(e, "heads", where, 1, 1024);
    r.size.embd = integer(e, "embd", where, 1, 1 << 20);
    r.size.ctx = integer(e, "ctx", where, 1, 1 << 20);
    r.size.batch = integer(e, "batch", where, 1, 1 << 20);
    r.size.vocab = integer(e, "vocab", where, 1, 1 << 24);
    r.params = static_cast<std::int64_t>(number(e, "params", where, 1, 1e15));
    r.flopsPerStep = number(e, "flops_per_step", where, 1, 1e21);
    r.steps = integer(e, "steps", where, 1, 1 << 24);
    r.stepMs = number(e, "step_ms", where, 1e-9, kMaxMs);
    r.stepMinMs = number(e, "step_min_ms", where, 0, kMaxMs);
    r.stepMaxMs = number(e, "step_max_ms", where, 0, kMaxMs);
    r.matmulMs = number(e, "matmul_ms", where, 0, kMaxMs);
    r.peakRssBytes = static_cast<std::int64_t>(number(e, "peak_rss_bytes", where, 0, kMaxBytes));
    const json& torch = member(e, "torch", where);
    if (!torch.is_null())
      r.torch = torchFrom(torch, where + ".torch");
    r.torchError = text(e, "torch_error", where);
    s.rows.push_back(r);
  }
  const json& threads = member(j, "threads_scaling", "");
  if (!threads.is_array() || threads.size() > 4096)
    bad("threads_scaling", "must be an array of at most 4096 entries");
  for (std::size_t i = 0; i < threads.size(); ++i) {
    const std::string where = "threads_scaling[" + std::to_string(i) + "]";
    s.threadsScaling.push_back(
        {integer(threads[i], "threads", where, 1, 4096), number(threads[i], "step_ms", where, 1e-9, kMaxMs)});
  }
  return s;
}

void setScalingPeak(GptScaling& scaling) {
  const IsaProbe probe = isaProbe();
  for (const char* id : {"bf16_amx", "bf16_dot_avx512", "fp32_fma_avx512", "fp32_fma_avx2"}) {
    const ProbePath* p = probe.find(id);
    if (p && p->present && p->gflopsAllCores > 0) {
      scaling.peakGflops = p->gflopsAllCores;
      scaling.peakSource = p->instruction + ", " + std::to_string(probe.threads) +
                           " thread(s) (ISA probe)";
      return;
    }
  }
  scaling.peakGflops = 0;
  scaling.peakSource = "no probe path measured";
}

GptScalingRow measureGptSize(const GptSize& size, const std::string& recipe, int warmup,
                             int steps) {
  if (steps < 1 || warmup < 0)
    throw std::invalid_argument("measureGptSize: needs steps >= 1 and warmup >= 0");
  train::RunConfig c = train::findPreset("shakespeare-char")->runs.front();
  c.model = size.modelSpec();
  c.batch = size.batch;
  c.recipe = recipe;
  c.steps = std::int64_t(warmup) + steps + 1;
  c.warmupSteps = 1;
  c.evalEvery = 0;
  c.evalBatches = 1;
  c.telemetryEvery = 0;
  train::Session session(c);
  for (int i = 0; i < warmup; ++i)
    session.step();
  std::vector<double> stepMs, matmulMs;
  for (int i = 0; i < steps; ++i) {
    stepMs.push_back(session.step().stepMs);
    matmulMs.push_back(session.model().matmulMs());
  }
  GptScalingRow r;
  r.size = size;
  r.params = session.model().parameterCount();
  r.flopsPerStep = gptStepFlops(size);
  r.steps = steps;
  r.stepMs = median(stepMs);
  r.stepMinMs = *std::min_element(stepMs.begin(), stepMs.end());
  r.stepMaxMs = *std::max_element(stepMs.begin(), stepMs.end());
  r.matmulMs = median(matmulMs);
  return r;
}

} // namespace mantissa::bench
