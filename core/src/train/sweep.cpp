// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/amp/policy.h>
#include <mantissa/data/text.h>
#include <mantissa/io/atomic_file.h>
#include <mantissa/io/excerpt.h>
#include <mantissa/io/regular_file.h>
#include <mantissa/model/gpt.h>
#include <mantissa/numeric/format_spec.h>
#include <mantissa/telemetry/csv_writer.h>
#include <mantissa/train/session.h>
#include <mantissa/train/sweep.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

namespace mantissa::train {
namespace {

using amp::OpClass;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// How a format sets a policy row.
struct FormatSetting {
  std::string name;
  std::optional<DType> precision; // bf16, fp16, fp32
  amp::ScalingOptions scaling;    // matmul inputs otherwise
  double bits = 32;
};

double dtypeBits(DType d) {
  return d == DType::F32 ? 32 : 16;
}

// Bits per value of a scaling setting: the element's, plus the block scale's share.
double scalingBits(const amp::ScalingOptions& s) {
  const double element = amp::operandElement(s, telemetry::ScaledRole::Input).totalBits();
  switch (s.scheme) {
  case amp::MatmulScaling::Mxfp8:
    return element + 8.0 / 32.0;
  case amp::MatmulScaling::Nvfp4:
    return element + 8.0 / 16.0;
  case amp::MatmulScaling::Fp8Block:
    return element + 32.0 / 128.0;
  default:
    return element;
  }
}

FormatSetting formatSetting(std::string_view name) {
  FormatSetting f;
  f.name = std::string(name);
  if (name == "bf16" || name == "fp16" || name == "fp32") {
    f.precision = name == "bf16" ? DType::BF16 : name == "fp16" ? DType::F16 : DType::F32;
    f.bits = dtypeBits(*f.precision);
    return f;
  }
  if (name == "fp8-e4m3") {
    f.scaling.scheme = amp::MatmulScaling::Fp8Current;
    f.scaling.element = "fp8-e4m3";
  } else if (name == "mxfp4") {
    f.scaling.scheme = amp::MatmulScaling::Mxfp8;
    f.scaling.element = "fp4-e2m1";
  } else if (const auto scheme = amp::parseMatmulScaling(name)) {
    f.scaling.scheme = *scheme;
  } else {
    const numeric::FormatParse p = numeric::parseFormatSpec(name);
    if (!p.format)
      throw SweepError("--formats: unknown format \"" + std::string(name) +
                       "\" (bf16, fp16, fp8-e4m3, mxfp4, mxfp8, nvfp4, fp8-current, fp8-delayed, "
                       "fp8-block, or an element format such as e3m4): " + p.error);
    if (p.format->id == numeric::FormatId::Bf16 || p.format->id == numeric::FormatId::Fp16 ||
        p.format->id == numeric::FormatId::Fp32) {
      const DType d = p.format->id == numeric::FormatId::Bf16   ? DType::BF16
                      : p.format->id == numeric::FormatId::Fp16 ? DType::F16
                                                                : DType::F32;
      f.precision = d;
      f.bits = dtypeBits(d);
      return f;
    }
    if (const std::string e = amp::elementFormatError(*p.format, amp::MatmulScaling::Unscaled);
        !e.empty())
      throw SweepError("--formats: " + e);
    f.scaling.scheme = amp::MatmulScaling::Unscaled;
    f.scaling.element = p.format->name;
  }
  f.bits = scalingBits(f.scaling);
  return f;
}

double inputBits(const amp::LinearInputs& in) {
  return in.scaling.scheme == amp::MatmulScaling::None ? dtypeBits(in.dtype)
                                                       : scalingBits(in.scaling);
}

// Shapes of the GPT a config trains.
struct Shape {
  double B, T, C, H, L, V, N;
  double params;
};

// One op to lower: a class, of one layer or model-wide.
struct Slot {
  OpClass op;
  std::string layer; // "h1.fc", "h0", ""
  int block = -1;
  std::string linear;
};

// Applies a format to a slot of a policy.
void lower(amp::Policy& p, const Slot& s, const FormatSetting& f) {
  if (s.op == OpClass::MatmulInputs) {
    amp::LayerPolicy& row = p.layerRow(s.layer);
    row.matmulInputs = f.precision ? *f.precision : DType::BF16;
    row.scaling = f.precision ? amp::ScalingOptions{} : f.scaling;
  } else if (s.op == OpClass::Softmax) {
    p.layerRow(s.layer).softmax = *f.precision;
  } else {
    p[s.op] = *f.precision;
  }
}

// Elements the slot's tensors hold or feed per step, and the bits they have under `p`.
std::pair<double, double> slotElements(const Slot& s, const Shape& g, const amp::Policy& p) {
  const double N = g.N, C = g.C, L = g.L;
  switch (s.op) {
  case OpClass::MatmulInputs: {
    const double in = s.linear == "fcproj" ? 4 * C : C;
    const double out = s.linear == "qkv" ? 3 * C : s.linear == "fc" ? 4 * C : C;
    return {in * out + N * in + N * out, inputBits(p.linearInputs(s.block, s.linear))};
  }
  case OpClass::Softmax:
    return {g.B * g.H * g.T * g.T, dtypeBits(p.softmaxOf(s.block))};
  case OpClass::Activations:
    return {L * N * 10 * C, dtypeBits(p[s.op])};
  case OpClass::Residual:
    return {L * 2 * N * C, dtypeBits(p[s.op])};
  case OpClass::NormStatistics:
    return {(2 * L + 1) * 2 * N, dtypeBits(p[s.op])};
  case OpClass::Gelu:
    return {L * N * 4 * C, dtypeBits(p[s.op])};
  case OpClass::Embedding:
    return {g.V * C + g.T * C + N * C, dtypeBits(p[s.op])};
  case OpClass::Loss:
    return {2 * N * g.V, dtypeBits(p[s.op])};
  case OpClass::Gradients:
    return {g.params + L * N * 10 * C, dtypeBits(p[s.op])};
  case OpClass::MasterWeights:
    return {g.params, dtypeBits(p[s.op])};
  case OpClass::OptimizerState:
    return {2 * g.params, dtypeBits(p[s.op])};
  default:
    return {0, dtypeBits(p[s.op])};
  }
}

double totalMatmulFlops(const Shape& g) {
  const double N = g.N, C = g.C;
  const double linear = 6 * N * (C * 3 * C + C * C + C * 4 * C + 4 * C * C) * g.L;
  const double head = 6 * N * C * g.V;
  const double attention = 6 * 2 * g.B * g.T * g.T * C * g.L; // QK^T and AV, 3 products each
  return linear + head + attention;
}

// The mean bits of the weights the forward products read.
double bitsPerParameter(const amp::Policy& p, const Shape& g) {
  const double C = g.C;
  double bits = 0, count = 0;
  const double master = dtypeBits(p[OpClass::MasterWeights]);
  const amp::LinearInputs global{p[OpClass::MatmulInputs], p.scaling, false};
  for (int l = 0; l < int(g.L); ++l)
    for (const std::string_view lin : amp::gptLinearLayers()) {
      const double in = lin == "fcproj" ? 4 * C : C;
      const double out = lin == "qkv" ? 3 * C : lin == "fc" ? 4 * C : C;
      bits += in * out * inputBits(p.linearInputs(l, lin));
      bits += out * master; // bias
      count += in * out + out;
    }
  const double wte = g.V * C;
  bits += wte * inputBits(global);
  count += wte;
  const double rest = g.params - count;
  bits += rest * master;
  return bits / g.params;
}

std::string opKeys() {
  std::string s;
  for (const OpClass c : amp::opClasses())
    if (c != OpClass::BatchNorm)
      s += (s.empty() ? "" : ", ") + std::string(amp::opClassKey(c));
  return s;
}

struct Plan {
  amp::Policy base;
  Shape shape{};
  std::vector<Slot> slots;
  std::vector<FormatSetting> formats;
  std::vector<SweepProbe> probes;
  std::vector<std::size_t> probeSlot; // probes[i]'s slot
  std::vector<std::size_t> probeFormat;
};

Plan makePlan(const SweepOptions& o) {
  Plan plan;
  if (!model::isGptSpec(o.config.model))
    throw SweepError("--model: '" + o.config.model +
                     "' is not a GPT; a sweep lowers the op classes of a GPT's policy");
  if (o.seeds < 1 || o.seeds > 64)
    throw SweepError("--seeds: must be from 1 to 64, got " + std::to_string(o.seeds));
  if (!(o.budget >= 0) || !std::isfinite(o.budget))
    throw SweepError("--budget: must be a finite number >= 0, got " + std::to_string(o.budget));
  if (o.jobs < 0)
    throw SweepError("--jobs: must be 0 (all cores) or more, got " + std::to_string(o.jobs));
  if (o.formats.empty())
    throw SweepError("--formats: empty; give formats such as bf16,fp16,fp8-e4m3,mxfp4");
  try {
    plan.base = amp::parsePolicy(o.base);
  } catch (const amp::PolicyError& e) {
    throw SweepError(std::string("--base: ") + e.what());
  }
  RunConfig check = o.config;
  check.policy = o.base;
  if (const auto problems = check.problems(); !problems.empty()) {
    std::string all;
    for (const auto& p : problems)
      all += (all.empty() ? "" : "; ") + p;
    throw SweepError("the run: " + all);
  }
  const model::GptSpec spec = model::parseGptSpec(o.config.model);
  for (const std::string& name : o.formats) {
    if (std::count(o.formats.begin(), o.formats.end(), name) > 1)
      throw SweepError("--formats: \"" + name + "\" is given twice");
    plan.formats.push_back(formatSetting(name));
  }
  std::vector<OpClass> ops;
  if (o.ops.empty()) {
    for (const OpClass c : amp::opClasses())
      if (c != OpClass::BatchNorm)
        ops.push_back(c);
  } else {
    for (const std::string& key : o.ops) {
      const auto classes = amp::opClasses();
      const auto it = std::find_if(classes.begin(), classes.end(),
                                   [&](OpClass c) { return amp::opClassKey(c) == key; });
      if (it == classes.end() || *it == OpClass::BatchNorm)
        throw SweepError("--ops: unknown op class \"" + key + "\" (a GPT's: " + opKeys() + ")");
      if (std::find(ops.begin(), ops.end(), *it) != ops.end())
        throw SweepError("--ops: \"" + key + "\" is given twice");
      ops.push_back(*it);
    }
    std::sort(ops.begin(), ops.end());
  }
  // Shapes: the parameter count from a model built without data.
  const int vocabulary = [&] {
    try {
      return int(data::loadTextSpec(o.config.data, spec.ctx).vocabularySize());
    } catch (const std::exception& e) {
      throw SweepError(std::string("--data: ") + e.what());
    }
  }();
  {
    const model::Gpt gpt(spec, vocabulary, o.config.batch, plan.base);
    plan.shape = {double(o.config.batch), double(spec.ctx), double(spec.embd), double(spec.heads),
                  double(spec.layers), double(vocabulary), double(o.config.batch) * spec.ctx,
                  double(gpt.parameterCount())};
  }
  for (const OpClass c : ops) {
    if (c == OpClass::MatmulInputs) {
      for (int l = 0; l < spec.layers; ++l)
        for (const std::string_view lin : amp::gptLinearLayers())
          plan.slots.push_back({c, "h" + std::to_string(l) + "." + std::string(lin), l,
                                std::string(lin)});
    } else if (c == OpClass::Softmax) {
      for (int l = 0; l < spec.layers; ++l)
        plan.slots.push_back({c, "h" + std::to_string(l), l, ""});
    } else {
      plan.slots.push_back({c, "", -1, ""});
    }
  }
  const double flops = totalMatmulFlops(plan.shape);
  for (std::size_t si = 0; si < plan.slots.size(); ++si) {
    const Slot& s = plan.slots[si];
    const auto [elements, oldBits] = slotElements(s, plan.shape, plan.base);
    for (std::size_t fi = 0; fi < plan.formats.size(); ++fi) {
      const FormatSetting& f = plan.formats[fi];
      if (!f.precision && s.op != OpClass::MatmulInputs)
        continue; // element formats: matmul inputs only
      if (f.bits >= oldBits)
        continue; // not a lowering
      amp::Policy p = plan.base;
      lower(p, s, f);
      std::string specText = p.toSpec();
      try {
        specText = amp::parsePolicy(specText).toSpec();
      } catch (const amp::PolicyError&) {
        continue; // cannot combine with the base (e.g. FP8 inputs, 16-bit accumulation)
      }
      SweepProbe probe;
      probe.layer = s.layer;
      probe.op = std::string(amp::opClassKey(s.op));
      probe.format = f.name;
      probe.policy = specText;
      probe.bits = f.bits;
      probe.bytesSaved = elements * (oldBits - f.bits) / 8.0;
      if (s.op == OpClass::MatmulInputs) {
        const double in = s.linear == "fcproj" ? 4 * plan.shape.C : plan.shape.C;
        const double out = s.linear == "qkv"  ? 3 * plan.shape.C
                           : s.linear == "fc" ? 4 * plan.shape.C
                                              : plan.shape.C;
        probe.matmulTimeSaved = 6 * plan.shape.N * in * out / flops * (1 - f.bits / oldBits);
      }
      probe.bitsPerParameter = bitsPerParameter(p, plan.shape);
      plan.probes.push_back(std::move(probe));
      plan.probeSlot.push_back(si);
      plan.probeFormat.push_back(fi);
    }
  }
  return plan;
}

// The runs saved in runs.json: val_loss by "policy@seed".
class RunStore {
public:
  RunStore(std::filesystem::path file, nlohmann::json sweep, bool resume)
      : m_file(std::move(file)), m_sweep(std::move(sweep)) {
    std::error_code ec;
    if (!std::filesystem::exists(m_file, ec))
      return;
    if (!resume)
      throw SweepError("--out: '" + m_file.string() + "' holds the runs of a sweep already; " +
                       "add --resume to continue it, or choose another folder");
    SweepRuns saved;
    try {
      saved = parseSweepRuns(io::readRegularFile(m_file, 64u << 20, "sweep runs file"));
    } catch (const std::exception& e) {
      throw SweepError("--resume: '" + m_file.string() + "': " + e.what());
    }
    if (saved.sweep != m_sweep.dump()) {
      const nlohmann::json was = nlohmann::json::parse(saved.sweep);
      std::string differ;
      for (const auto& [key, value] : m_sweep.items())
        if (!was.contains(key) || was[key] != value)
          differ += (differ.empty() ? "" : ", ") + key;
      throw SweepError("--resume: '" + m_file.string() + "' holds another sweep's runs (" +
                       (differ.empty() ? std::string("its settings differ") : "differs in " + differ) +
                       "); give the same options, or another --out");
    }
    m_runs = std::move(saved.runs);
  }
  std::optional<SweepRun> find(const std::string& key) const {
    std::lock_guard lock(m_mutex);
    const auto it = m_runs.find(key);
    return it == m_runs.end() ? std::nullopt : std::optional<SweepRun>(it->second);
  }
  void add(const std::string& key, SweepRun run) {
    std::lock_guard lock(m_mutex);
    m_runs[key] = run;
    nlohmann::json j;
    j["sweep"] = m_sweep;
    j["runs"] = nlohmann::json::object();
    for (const auto& [k, v] : m_runs)
      j["runs"][k] = std::isfinite(v.valLoss) ? nlohmann::json(v.valLoss)
                                              : nlohmann::json{{"diverged_at", v.divergedAt}};
    io::writeFileAtomically(m_file, j.dump(1) + "\n");
  }

private:
  std::filesystem::path m_file;
  nlohmann::json m_sweep;
  mutable std::mutex m_mutex;
  std::map<std::string, SweepRun> m_runs;
};

struct Cancelled {};

struct Runner {
  Runner(const SweepOptions& o, std::shared_ptr<const data::TextCorpus> t, RunStore& s,
         const std::function<void(const SweepProgress&)>& p, const std::atomic<bool>* c, int j)
      : options(o), text(std::move(t)), store(s), progress(p), cancel(c), jobs(j) {}
  const SweepOptions& options;
  std::shared_ptr<const data::TextCorpus> text;
  RunStore& store;
  const std::function<void(const SweepProgress&)>& progress;
  const std::atomic<bool>* cancel;
  int jobs;
  std::mutex mutex;
  int done = 0, total = 0, trained = 0, inFlight = 0, peak = 0;
  bool cancelled = false;

  static std::string key(const std::string& policy, std::uint64_t seed) {
    return policy + "@" + std::to_string(seed);
  }

  SweepRun train(const std::string& policy, std::uint64_t seed) {
    RunConfig c = options.config;
    c.policy = policy;
    c.seed = seed;
    c.telemetryEvery = 0;
    c.shadow.clear(); // a probe needs no reference (and has no telemetry steps)
    Session s(c, text);
    while (!s.finished()) {
      if (cancel && cancel->load())
        throw Cancelled{};
      s.step();
    }
    if (s.divergence())
      return {kNaN, s.divergence()->step};
    const double loss = s.evaluate().loss;
    return std::isfinite(loss) ? SweepRun{loss, -1} : SweepRun{kNaN, s.stepsDone()};
  }

  // The (policy, seed) pairs' runs, trained where not saved; nullopt when cancelled.
  std::optional<std::vector<SweepRun>> run(const std::vector<std::pair<std::string, std::uint64_t>>& runs,
                                         const std::vector<std::string>& labels) {
    std::vector<SweepRun> out(runs.size(), SweepRun{kNaN, -1});
    std::vector<std::size_t> todo;
    {
      std::lock_guard lock(mutex);
      total += int(runs.size());
      for (std::size_t i = 0; i < runs.size(); ++i) {
        if (const auto v = store.find(key(runs[i].first, runs[i].second))) {
          out[i] = *v;
          ++done;
        } else {
          todo.push_back(i);
        }
      }
    }
    std::atomic<std::size_t> next{0};
    std::exception_ptr error;
    auto worker = [&] {
      for (;;) {
        const std::size_t t = next.fetch_add(1);
        if (t >= todo.size())
          return;
        const std::size_t i = todo[t];
        {
          std::lock_guard lock(mutex);
          if (cancelled || error)
            return;
          peak = std::max(peak, ++inFlight);
        }
        try {
          const SweepRun loss = train(runs[i].first, runs[i].second);
          store.add(key(runs[i].first, runs[i].second), loss);
          std::lock_guard lock(mutex);
          --inFlight;
          out[i] = loss;
          ++done;
          ++trained;
          if (progress) {
            std::ostringstream what;
            what << labels[i] << ", seed " << runs[i].second << ": ";
            if (loss.divergedAt >= 0)
              what << "diverged at step " << loss.divergedAt;
            else
              what << "val_loss " << loss.valLoss;
            progress({done, total, what.str()});
          }
        } catch (const Cancelled&) {
          std::lock_guard lock(mutex);
          --inFlight;
          cancelled = true;
          return;
        } catch (...) {
          std::lock_guard lock(mutex);
          --inFlight;
          if (!error)
            error = std::current_exception();
          return;
        }
      }
    };
    const int threads = int(std::min<std::size_t>(std::size_t(jobs), todo.size()));
    if (threads <= 1) {
      worker();
    } else {
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t)
        pool.emplace_back(worker);
      for (std::thread& t : pool)
        t.join();
    }
    if (error)
      std::rethrow_exception(error);
    if (cancelled)
      return std::nullopt;
    return out;
  }
};

double orderKey(double d) {
  return std::isnan(d) ? kInf : d;
}

std::string number(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  return telemetry::formatCsvNumber(v);
}

nlohmann::json jsonNumber(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

} // namespace

SweepRuns parseSweepRuns(std::string_view text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw SweepError(std::string("not JSON: ") + e.what());
  }
  if (!j.is_object() || !j.contains("sweep") || !j.contains("runs") || !j["sweep"].is_object() ||
      !j["runs"].is_object())
    throw SweepError("not a sweep's runs file (an object with \"sweep\" and \"runs\" objects)");
  SweepRuns out;
  out.sweep = j["sweep"].dump();
  for (const auto& [key, value] : j["runs"].items()) {
    const std::size_t at = key.rfind('@');
    if (at == std::string::npos || at == 0 || at + 1 == key.size() ||
        key.find_first_not_of("0123456789", at + 1) != std::string::npos)
      throw SweepError("run \"" + io::excerpt(key) + "\" is not POLICY@SEED");
    if (value.is_number()) {
      out.runs[key] = {value.get<double>(), -1};
    } else if (value.is_object() && value.size() == 1 && value.contains("diverged_at") &&
               value["diverged_at"].is_number_integer() && value["diverged_at"].get<std::int64_t>() >= 0) {
      out.runs[key] = {kNaN, value["diverged_at"].get<std::int64_t>()};
    } else {
      throw SweepError("run \"" + io::excerpt(key) +
                       "\": neither a val_loss nor {\"diverged_at\": STEP}");
    }
  }
  return out;
}

RunConfig sweepRun(RunConfig c, std::int64_t steps) {
  c.steps = steps;
  c.epochs = 0;
  if (c.schedule == "cosine" && c.warmupSteps >= c.steps)
    c.warmupSteps = c.steps / 10;
  c.evalEvery = 0;
  return c;
}

int sweepJobs(int requested) {
  const int hardware = int(std::max(1u, std::thread::hardware_concurrency()));
  return requested <= 0 ? hardware : std::min(requested, hardware);
}

std::string SweepProbe::name() const {
  return (layer.empty() ? "" : layer + " ") + op + " " + format;
}

std::vector<SweepProbe> sweepProbes(const SweepOptions& options) {
  return makePlan(options).probes;
}

SweepResult runSweep(const SweepOptions& options, const std::filesystem::path& out,
                     const std::function<void(const SweepProgress&)>& progress,
                     const std::atomic<bool>* cancel) {
  const Plan plan = makePlan(options);
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec)
    throw SweepError("--out: cannot create '" + out.string() + "': " + ec.message());
  nlohmann::json fingerprint;
  fingerprint["config"] = toJson(options.config);
  fingerprint["base"] = plan.base.toSpec();
  fingerprint["formats"] = options.formats;
  fingerprint["ops"] = options.ops;
  fingerprint["seeds"] = options.seeds;
  fingerprint["budget"] = options.budget;
  RunStore store(out / "runs.json", fingerprint, options.resume);

  SweepResult result;
  for (int s = 0; s < options.seeds; ++s)
    result.seeds.push_back(options.config.seed + std::uint64_t(s));
  const model::GptSpec spec = model::parseGptSpec(options.config.model);
  auto text = std::make_shared<const data::TextCorpus>(data::loadTextSpec(options.config.data, spec.ctx));
  Runner runner(options, text, store, progress, cancel, sweepJobs(options.jobs));

  // Every probe and the base, at every seed, as one batch of runs.
  std::vector<std::pair<std::string, std::uint64_t>> runs;
  std::vector<std::string> labels;
  const std::string baseSpec = plan.base.toSpec();
  for (const std::uint64_t seed : result.seeds) {
    runs.emplace_back(baseSpec, seed);
    labels.push_back("base " + baseSpec);
  }
  for (const SweepProbe& p : plan.probes)
    for (const std::uint64_t seed : result.seeds) {
      runs.emplace_back(p.policy, seed);
      labels.push_back(p.name());
    }
  const auto finish = [&](SweepResult& r) {
    r.runsTrained = runner.trained;
    r.peakConcurrentRuns = runner.peak;
    return r;
  };
  const auto losses = runner.run(runs, labels);
  if (!losses)
    return finish(result);
  const std::size_t S = result.seeds.size();
  for (std::size_t s = 0; s < S; ++s)
    result.baseValLoss.push_back((*losses)[s].valLoss);
  for (std::size_t i = 0; i < plan.probes.size(); ++i) {
    SweepRow row;
    row.probe = plan.probes[i];
    double sum = 0, absSum = 0;
    for (std::size_t s = 0; s < S; ++s) {
      const SweepRun& run = (*losses)[S + i * S + s];
      const double v = run.valLoss;
      if (run.divergedAt >= 0 && (row.divergedAt < 0 || run.divergedAt < row.divergedAt))
        row.divergedAt = run.divergedAt;
      row.valLoss.push_back(v);
      row.delta.push_back(v - result.baseValLoss[s]);
      sum += orderKey(v - result.baseValLoss[s]);
      absSum += orderKey(std::abs(v - result.baseValLoss[s]));
    }
    row.meanDelta = sum / double(S);
    row.meanAbsDelta = absSum / double(S);
    result.rows.push_back(std::move(row));
  }
  std::vector<std::size_t> order(result.rows.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const SweepRow &x = result.rows[a], &y = result.rows[b];
    if (std::isinf(x.meanAbsDelta) && std::isinf(y.meanAbsDelta)) // both diverged: the later first
      return x.divergedAt > y.divergedAt;
    return x.meanAbsDelta < y.meanAbsDelta;
  });

  // The chosen policy: per slot its fewest-bit format within the budget, by Δ.
  std::map<std::size_t, std::size_t> best; // slot -> probe index
  for (std::size_t i = 0; i < plan.probes.size(); ++i) {
    if (!(result.rows[i].meanAbsDelta <= options.budget))
      continue;
    const std::size_t slot = plan.probeSlot[i];
    const auto it = best.find(slot);
    if (it == best.end() || plan.probes[i].bits < plan.probes[it->second].bits ||
        (plan.probes[i].bits == plan.probes[it->second].bits &&
         result.rows[i].meanAbsDelta < result.rows[it->second].meanAbsDelta))
      best[slot] = i;
  }
  std::vector<std::size_t> candidates;
  for (const std::size_t i : order)
    if (const auto it = best.find(plan.probeSlot[i]); it != best.end() && it->second == i)
      candidates.push_back(i);
  // Each prefix's policy; a candidate that cannot join those before it is dropped.
  std::vector<amp::Policy> prefix{plan.base};
  std::vector<std::size_t> kept;
  for (const std::size_t i : candidates) {
    amp::Policy p = prefix.back();
    lower(p, plan.slots[plan.probeSlot[i]], plan.formats[plan.probeFormat[i]]);
    try {
      p = amp::parsePolicy(p.toSpec());
    } catch (const amp::PolicyError&) {
      continue;
    }
    prefix.push_back(std::move(p));
    kept.push_back(i);
  }
  // Δ of prefix k, trained at every seed; nullopt when cancelled.
  std::map<std::size_t, std::pair<double, std::vector<double>>> measured;
  const auto measure = [&](std::size_t k) -> std::optional<double> {
    if (k == 0)
      return 0.0;
    if (const auto it = measured.find(k); it != measured.end())
      return it->second.first;
    std::vector<std::pair<std::string, std::uint64_t>> r;
    std::vector<std::string> l;
    const std::string specText = prefix[k].toSpec();
    for (const std::uint64_t seed : result.seeds) {
      r.emplace_back(specText, seed);
      l.push_back("combined, " + std::to_string(k) + " ops lowered");
    }
    const auto v = runner.run(r, l);
    if (!v)
      return std::nullopt;
    double sum = 0;
    std::vector<double> vals;
    for (std::size_t s = 0; s < S; ++s) {
      vals.push_back((*v)[s].valLoss);
      sum += orderKey(vals.back() - result.baseValLoss[s]);
    }
    measured[k] = {sum / double(S), vals};
    return sum / double(S);
  };
  std::size_t chosen = 0;
  if (!kept.empty()) {
    const auto all = measure(kept.size());
    if (!all)
      return finish(result);
    if (*all <= options.budget) {
      chosen = kept.size();
    } else {
      std::size_t lo = 0, hi = kept.size(); // Δ(lo) within, Δ(hi) over
      while (hi - lo > 1) {
        const std::size_t mid = (lo + hi) / 2;
        const auto d = measure(mid);
        if (!d)
          return finish(result);
        (*d <= options.budget ? lo : hi) = mid;
      }
      chosen = lo;
    }
  }
  result.chosenPolicy = prefix[chosen].toSpec();
  if (chosen == 0) {
    result.chosenValLoss = result.baseValLoss;
    result.chosenDelta = 0;
  } else {
    result.chosenDelta = measured[chosen].first;
    result.chosenValLoss = measured[chosen].second;
  }
  for (std::size_t k = 0; k < chosen; ++k) {
    result.chosenProbes.push_back(plan.probes[kept[k]].name());
    result.chosenBytesSaved += plan.probes[kept[k]].bytesSaved;
  }
  std::vector<SweepRow> ranked;
  for (std::size_t r = 0; r < order.size(); ++r) {
    ranked.push_back(result.rows[order[r]]);
    ranked.back().rank = int(r) + 1;
  }
  result.rows = std::move(ranked);
  for (SweepRow& a : result.rows) {
    if (!std::isfinite(a.meanAbsDelta))
      continue;
    a.paretoBits = a.paretoTime = true;
    for (const SweepRow& b : result.rows) {
      if (&a == &b || !std::isfinite(b.meanAbsDelta) || b.meanAbsDelta > a.meanAbsDelta)
        continue;
      const bool lessDelta = b.meanAbsDelta < a.meanAbsDelta;
      const double ab = a.probe.bitsPerParameter, bb = b.probe.bitsPerParameter;
      if (bb <= ab && (lessDelta || bb < ab))
        a.paretoBits = false;
      const double at = a.probe.matmulTimeSaved, bt = b.probe.matmulTimeSaved;
      if (bt >= at && (lessDelta || bt > at))
        a.paretoTime = false;
    }
  }
  result.complete = true;
  io::writeFileAtomically(out / "sweep.csv", sweepCsv(result));
  io::writeFileAtomically(out / "sweep.json", sweepJson(options, result));
  io::writeFileAtomically(out / "policy.txt", sweepPolicyFile(options, result));
  return finish(result);
}

std::string sweepCsv(const SweepResult& r) {
  std::string s = "rank,layer,op,format,mean_abs_delta_val_loss,mean_delta_val_loss";
  for (const std::uint64_t seed : r.seeds)
    s += ",delta_seed_" + std::to_string(seed);
  for (const std::uint64_t seed : r.seeds)
    s += ",val_loss_seed_" + std::to_string(seed);
  s += ",diverged_at_step,bits,bytes_saved,matmul_time_saved,bits_per_parameter,policy\n";
  for (const SweepRow& row : r.rows) {
    s += std::to_string(row.rank) + "," + telemetry::formatCsvField(row.probe.layer) + "," +
         row.probe.op + "," + telemetry::formatCsvField(row.probe.format) + "," +
         number(row.meanAbsDelta) + "," + number(row.meanDelta);
    for (const double d : row.delta)
      s += "," + number(d);
    for (const double v : row.valLoss)
      s += "," + number(v);
    s += "," + (row.divergedAt >= 0 ? std::to_string(row.divergedAt) : std::string()) + "," +
         number(row.probe.bits) + "," + number(row.probe.bytesSaved) + "," +
         number(row.probe.matmulTimeSaved) + "," + number(row.probe.bitsPerParameter) + "," +
         telemetry::formatCsvField(row.probe.policy) + "\n";
  }
  return s;
}

std::string sweepJson(const SweepOptions& o, const SweepResult& r) {
  nlohmann::json j;
  j["config"] = toJson(o.config);
  j["base"] = o.base;
  j["formats"] = o.formats;
  j["budget"] = o.budget;
  j["seeds"] = r.seeds;
  nlohmann::json base = nlohmann::json::array();
  for (const double v : r.baseValLoss)
    base.push_back(jsonNumber(v));
  j["base_val_loss"] = base;
  nlohmann::json rows = nlohmann::json::array();
  for (const SweepRow& row : r.rows) {
    nlohmann::json x;
    x["rank"] = row.rank;
    x["name"] = row.probe.name();
    x["layer"] = row.probe.layer;
    x["op"] = row.probe.op;
    x["format"] = row.probe.format;
    x["policy"] = row.probe.policy;
    x["mean_abs_delta_val_loss"] = jsonNumber(row.meanAbsDelta);
    x["mean_delta_val_loss"] = jsonNumber(row.meanDelta);
    x["delta_val_loss"] = nlohmann::json::array();
    x["val_loss"] = nlohmann::json::array();
    for (const double d : row.delta)
      x["delta_val_loss"].push_back(jsonNumber(d));
    for (const double v : row.valLoss)
      x["val_loss"].push_back(jsonNumber(v));
    if (row.divergedAt >= 0)
      x["diverged_at_step"] = row.divergedAt;
    x["bits"] = row.probe.bits;
    x["bytes_saved"] = row.probe.bytesSaved;
    x["matmul_time_saved"] = row.probe.matmulTimeSaved;
    x["bits_per_parameter"] = row.probe.bitsPerParameter;
    x["pareto_bits"] = row.paretoBits;
    x["pareto_time"] = row.paretoTime;
    rows.push_back(std::move(x));
  }
  j["rows"] = std::move(rows);
  nlohmann::json chosen;
  chosen["policy"] = r.chosenPolicy;
  chosen["lowered"] = r.chosenProbes;
  chosen["mean_delta_val_loss"] = jsonNumber(r.chosenDelta);
  chosen["val_loss"] = nlohmann::json::array();
  for (const double v : r.chosenValLoss)
    chosen["val_loss"].push_back(jsonNumber(v));
  chosen["bytes_saved"] = r.chosenBytesSaved;
  j["chosen"] = std::move(chosen);
  return j.dump(1) + "\n";
}

std::string sweepPolicyFile(const SweepOptions& o, const SweepResult& r) {
  std::ostringstream s;
  s << "# Precision policy chosen by mantissa-cli sweep from base " << o.base << "\n"
    << "# " << r.chosenProbes.size() << " ops lowered; mean delta val_loss "
    << r.chosenDelta << " (budget " << o.budget << ") over seeds";
  for (const std::uint64_t seed : r.seeds)
    s << " " << seed;
  s << "\n# Run: " << o.config.model << " on " << o.config.data << ", " << o.config.steps
    << " steps, batch " << o.config.batch << ", warm-up " << o.config.warmupSteps
    << "\n# Replay: mantissa-cli train --policy THIS_FILE with the same run settings and seed\n"
    << r.chosenPolicy << "\n";
  return s.str();
}

} // namespace mantissa::train
