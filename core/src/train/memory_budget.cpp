// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/train/memory_budget.h>

#include <mantissa/amp/optimizer.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace mantissa::train {
namespace {

constexpr std::uint64_t kFloat = 4; // every buffer below is FP32 (or int32)

// Saturating: a product past 2^64 stays "too much", it does not wrap.
std::uint64_t mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
std::uint64_t add(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

MemoryNeed terms(std::uint64_t weights, std::uint64_t gradients, std::uint64_t activations,
                 std::uint64_t optimizerState, std::uint64_t evaluation = 0) {
  MemoryNeed n;
  n.terms = {{"weights", weights},
             {"gradients", gradients},
             {"activations", activations},
             {"optimizer state", optimizerState}};
  if (evaluation > 0)
    n.terms.push_back({"evaluation batches", evaluation});
  return n;
}

// The optimizer's FP32 state (amp::Optimizer's constructor): per parameter
// the first moment (or momentum) and the update, the second moment for
// AdamW, a compensation for Kahan summation; and its per-worker scratch.
std::uint64_t optimizerBytes(std::uint64_t params, bool adam, bool kahan) {
  const std::uint64_t perParam = 2 + (adam ? 1 : 0) + (kahan ? 1 : 0);
  return mul(add(mul(perParam, params), std::uint64_t(amp::Optimizer::kMaxWorkers) *
                                            amp::Optimizer::kStepBlock),
             kFloat);
}

// One value per line of /proc/meminfo-style text ("Key:   123 kB"), in bytes.
std::optional<std::uint64_t> meminfoValue(const std::string& key) {
  std::ifstream in("/proc/meminfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key + ":", 0) == 0) {
      std::istringstream fields(line.substr(key.size() + 1));
      std::uint64_t kb = 0;
      if (fields >> kb)
        return mul(kb, 1024);
    }
  return std::nullopt;
}

std::optional<std::uint64_t> fileNumber(const char* path) {
  std::ifstream in(path);
  std::uint64_t v = 0;
  if (in >> v)
    return v;
  return std::nullopt; // absent, or "max"
}

} // namespace

std::uint64_t MemoryNeed::total() const {
  std::uint64_t sum = 0;
  for (const auto& t : terms)
    sum = train::add(sum, t.bytes);
  return sum;
}

const MemoryTerm* MemoryNeed::largest() const {
  const auto it = std::max_element(terms.begin(), terms.end(),
                                    [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
  return it == terms.end() ? nullptr : &*it;
}

void MemoryNeed::add(const MemoryNeed& other) {
  for (const auto& t : other.terms) {
    auto it = std::find_if(terms.begin(), terms.end(), [&](const auto& n) { return n.name == t.name; });
    if (it == terms.end())
      terms.push_back(t);
    else
      it->bytes = train::add(it->bytes, t.bytes);
  }
}

MemoryNeed modelMemoryNeed(const model::ModelBuild& build, bool adam, bool kahan,
                           int evalBatches) {
  const model::ModelKind& kind = model::modelKind(build.spec);
  if (!kind.sizes)
    return {};
  model::ModelSizes s;
  try {
    s = kind.sizes(build);
  } catch (const std::exception&) {
    return {}; // the model's constructor names what is wrong with the spec
  }
  return terms(mul(s.params, kFloat), mul(add(s.params, s.gradBuffers), kFloat),
               mul(s.activations, kFloat), optimizerBytes(s.params, adam, kahan),
               mul(mul(s.evaluationPerBatch, std::uint64_t(std::max(evalBatches, 0))), kFloat));
}

MemoryNeed gptMemoryNeed(const model::GptSpec& spec, int vocabulary, int batch, int evalBatches,
                         bool kahan) {
  model::ModelBuild b;
  b.spec = spec.toString();
  b.batch = batch;
  b.vocabulary = vocabulary;
  return modelMemoryNeed(b, true, kahan, evalBatches);
}

MemoryNeed imageMemoryNeed(const RunConfig& c, const data::Dataset& train) {
  bool kahan = false;
  try {
    kahan = amp::recipeByName(c.recipe).updateRounding == amp::UpdateRounding::Kahan;
  } catch (const std::exception&) {
    // an unknown recipe is the configuration's to report
  }
  model::ModelBuild b;
  b.spec = c.model;
  b.batch = c.batch;
  b.images = &train;
  return modelMemoryNeed(b, c.optimizer == "adamw", kahan, 0);
}

std::optional<std::uint64_t> availableMemory() {
  std::optional<std::uint64_t> best = meminfoValue("MemAvailable");
  const auto lower = [&](std::uint64_t v) { best = best ? std::min(*best, v) : v; };
  // A container's limit (cgroup v2, as the container sees it).
  if (const auto max = fileNumber("/sys/fs/cgroup/memory.max")) {
    const std::uint64_t used = fileNumber("/sys/fs/cgroup/memory.current").value_or(0);
    lower(*max > used ? *max - used : 0);
  }
  // ulimit -v and -d, less what this process already maps.
  const std::uint64_t page = std::uint64_t(::sysconf(_SC_PAGESIZE));
  std::uint64_t size = 0, resident = 0, shared = 0, text = 0, lib = 0, data = 0;
  {
    std::ifstream statm("/proc/self/statm");
    statm >> size >> resident >> shared >> text >> lib >> data;
  }
  for (const auto& [resource, used] : {std::pair{RLIMIT_AS, size}, std::pair{RLIMIT_DATA, data}}) {
    rlimit limit{};
    if (::getrlimit(resource, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
      const std::uint64_t held = mul(used, page);
      lower(limit.rlim_cur > held ? std::uint64_t(limit.rlim_cur) - held : 0);
    }
  }
  return best;
}

std::string formatBytes(std::uint64_t bytes) {
  char text[32];
  if (bytes >= 1000000000ull)
    std::snprintf(text, sizeof text, "%.1f GB", double(bytes) / 1e9);
  else
    std::snprintf(text, sizeof text, "%.1f MB", double(bytes) / 1e6);
  return text;
}

void checkMemory(const MemoryNeed& need, std::optional<std::uint64_t> available,
                 const std::string& subject) {
  const MemoryTerm* top = need.largest();
  if (!available || !top || need.total() <= *available)
    return;
  const std::string hint = top->name == "evaluation batches"
                               ? "fewer evaluation batches (eval_batches) or a smaller batch"
                           : top->name == "activations" || top->name == "gradients"
                               ? "a smaller batch or model"
                               : "a smaller model";
  throw ConfigError("memory: " + subject + " " + formatBytes(need.total()) + " (" + top->name +
                    " " + formatBytes(top->bytes) + ") but " + formatBytes(*available) +
                    " is available; choose " + hint);
}

} // namespace mantissa::train
