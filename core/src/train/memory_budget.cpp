// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/train/memory_budget.h>

#include <mantissa/amp/optimizer.h>
#include <mantissa/model/cnn.h>
#include <mantissa/model/mlp.h>

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

MemoryNeed gptMemoryNeed(const model::GptSpec& spec, int vocabulary, int batch, int evalBatches,
                         bool kahan) {
  const std::uint64_t B = std::uint64_t(std::max(batch, 0)), T = std::uint64_t(spec.ctx),
                      C = std::uint64_t(spec.embd), H = std::uint64_t(spec.heads),
                      L = std::uint64_t(spec.layers), V = std::uint64_t(std::max(vocabulary, 0));
  const std::uint64_t N = mul(B, T);
  // Parameters (Gpt's constructor): wte, wpe, per block ln1, qkv, attproj,
  // ln2, fc, fcproj (weights and biases), lnf.
  const std::uint64_t perBlockParams = add(mul(12, mul(C, C)), mul(13, C));
  const std::uint64_t params = add(add(mul(V, C), mul(T, C)), add(mul(L, perBlockParams), 2 * C));
  const std::uint64_t NC = mul(N, C), scores = mul(mul(B, H), mul(T, T));
  // Per block: x, ln1, atty, attproj, r, ln2, fcproj (N x C), qkv (N x 3C),
  // fch and gelu (N x 4C), attention q, k, v (N x C) and probs.
  const std::uint64_t blockActs = add(mul(21, NC), scores);
  // Shared by the blocks: attention's scores and O (backward's dP and dO);
  // encoded, xL, lnf; logits and probabilities (N x V).
  const std::uint64_t activations =
      add(add(add(mul(L, blockActs), scores), mul(4, NC)), mul(2, mul(N, V)));
  // Shared by the blocks: attention's dq, dk, dv, then dres, dln, datty,
  // dqkv, dfch, dgelu (14 N x C) and dlogits.
  const std::uint64_t gradBuffers = add(mul(3, NC), add(mul(14, NC), mul(N, V)));
  // Fixed evaluation batches: per split and batch, B x T inputs and targets.
  const std::uint64_t evaluation = mul(mul(2, mul(2, N)), std::uint64_t(std::max(evalBatches, 0)));
  return terms(mul(params, kFloat), mul(add(params, gradBuffers), kFloat),
               mul(activations, kFloat), optimizerBytes(params, true, kahan),
               mul(evaluation, kFloat));
}

MemoryNeed imageMemoryNeed(const RunConfig& c, const data::Dataset& train) {
  const std::uint64_t B = std::uint64_t(std::max(c.batch, 0));
  const bool adam = c.optimizer == "adamw";
  bool kahan = false;
  try {
    kahan = amp::recipeByName(c.recipe).updateRounding == amp::UpdateRounding::Kahan;
  } catch (const std::exception&) {
    // an unknown recipe is the configuration's to report
  }
  std::uint64_t params = 0, acts = 0, grads = 0;
  try {
    if (model::isCnnSpec(c.model)) {
      const auto layout = model::cnnLayout(model::parseCnnSpec(c.model), train.features,
                                           train.imageHeight, train.imageWidth, train.classes);
      for (std::size_t l = 0; l < layout.size(); ++l) {
        const auto& L = layout[l];
        const std::uint64_t in = std::uint64_t(L.inValues()), out = std::uint64_t(L.outValues());
        const std::uint64_t w = L.block.conv ? mul(std::uint64_t(L.cout),
                                                   mul(std::uint64_t(L.cin),
                                                       std::uint64_t(L.block.kernel) * L.block.kernel))
                                             : mul(std::uint64_t(L.cin), std::uint64_t(L.cout));
        const std::uint64_t pre =
            L.block.conv ? mul(std::uint64_t(L.cout), mul(std::uint64_t(L.h), std::uint64_t(L.w)))
                         : std::uint64_t(L.cout);
        params = add(params, add(w, std::uint64_t(L.cout)));
        acts = add(acts, mul(B, pre)); // pre
        grads = add(grads, mul(B, pre)); // dpre
        if (l + 1 < layout.size())
          acts = add(acts, mul(B, out)); // post
        if (l > 0)
          grads = add(grads, mul(B, in)); // dIn
        if (L.block.batchNorm) {
          params = add(params, 2 * std::uint64_t(L.cout)); // scale and shift
          acts = add(acts, mul(B, pre));  // out
          grads = add(grads, mul(B, pre)); // dout
        }
        if (L.block.pool)
          acts = add(acts, mul(B, out)); // argmax
      }
      acts = add(acts, mul(2, mul(B, std::uint64_t(layout.front().inValues())))); // x, standardized
    } else {
      const auto spec = model::parseMlpSpec(c.model);
      for (std::size_t l = 0; l + 1 < spec.widths.size(); ++l) {
        const std::uint64_t in = std::uint64_t(spec.widths[l]), out = std::uint64_t(spec.widths[l + 1]);
        params = add(params, add(mul(in, out), out));
        acts = add(acts, mul(2, mul(B, out)));  // pre, post
        grads = add(grads, mul(B, out));        // dpre
        if (l > 0)
          grads = add(grads, mul(B, in)); // dIn
      }
      acts = add(acts, mul(B, std::uint64_t(spec.widths.front()))); // x
    }
  } catch (const std::exception&) {
    return {}; // the model's constructor names what is wrong with the spec
  }
  return terms(mul(params, kFloat), mul(add(params, grads), kFloat), mul(acts, kFloat),
               optimizerBytes(params, adam, kahan));
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
