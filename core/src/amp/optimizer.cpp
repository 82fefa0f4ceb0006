// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "kernels/step_isa_variants.h"
#include "optimizer_fused.h"

#include <mantissa/amp/optimizer.h>

#include <mantissa/model/mlp.h>
#include <mantissa/numeric/convert.h>
#include <mantissa/numeric/cpu_features.h>
#include <mantissa/tensor/run_state.h>

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <stdexcept>

namespace mantissa::amp {

namespace {

float roundNearest(DType dtype, float v) {
  if (dtype == DType::BF16)
    return numeric::bf16ToF32(numeric::f32ToBf16(v));
  if (dtype == DType::F16)
    return numeric::f16ToF32(numeric::f32ToF16(v));
  return v;
}

float roundStochastic(DType dtype, float v, std::uint32_t random) {
  if (dtype == DType::BF16)
    return numeric::bf16ToF32(numeric::f32ToBf16Stochastic(v, random));
  if (dtype == DType::F16)
    return numeric::f16ToF32(numeric::f32ToF16Stochastic(v, random));
  return v;
}

// Loops built for AVX-512, AVX2 and baseline x86-64; the loader picks the one
// the CPU runs (function multiversioning, dispatched on CPUID). None of these
// targets enables FMA, so no multiply-add is contracted and every clone
// rounds alike.
// Not under ASan or TSan: the loader runs the clones' resolver before the
// sanitizer's runtime is set up (under TSan the instrumented resolver crashes).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) &&                            \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define MANTISSA_KERNEL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define MANTISSA_KERNEL_CLONES
#endif

// SGD with FP32 state into FP32 (or master) weights, computed and applied in
// one pass: the operations of computeUpdate and applyUpdate, value by value.
struct Counts {
  std::int64_t nonzero = 0;
  std::int64_t unchanged = 0;
};
MANTISSA_KERNEL_CLONES Counts sgdFp32Pass(const float* __restrict g, float* __restrict w,
                                          float* __restrict m1, float* __restrict u, std::size_t n,
                                          float momentum, float wd, float flr) {
  std::int64_t nonzero = 0, unchanged = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float m = momentum * m1[i] + (g[i] + wd * w[i]);
    m1[i] = m;
    const float step = -flr * m;
    u[i] = step;
    const float updated = w[i] + step;
    nonzero += step != 0.0f ? 1 : 0;
    unchanged += (step != 0.0f && updated == w[i]) ? 1 : 0;
    w[i] = updated;
  }
  return {nonzero, unchanged};
}

// The same without keeping u: three arrays fewer bytes written per value.
MANTISSA_KERNEL_CLONES Counts sgdFp32PassNoUpdate(const float* __restrict g, float* __restrict w,
                                                  float* __restrict m1, std::size_t n,
                                                  float momentum, float wd, float flr) {
  std::int64_t nonzero = 0, unchanged = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float m = momentum * m1[i] + (g[i] + wd * w[i]);
    m1[i] = m;
    const float step = -flr * m;
    const float updated = w[i] + step;
    nonzero += step != 0.0f ? 1 : 0;
    unchanged += (step != 0.0f && updated == w[i]) ? 1 : 0;
    w[i] = updated;
  }
  return {nonzero, unchanged};
}

MANTISSA_KERNEL_CLONES void sgdFp32Update(const float* __restrict g, const float* __restrict w,
                                          float* __restrict m1, float* __restrict u, std::size_t n,
                                          float momentum, float wd, float flr) {
  for (std::size_t i = 0; i < n; ++i) {
    m1[i] = momentum * m1[i] + (g[i] + wd * w[i]);
    u[i] = -flr * m1[i];
  }
}

MANTISSA_KERNEL_CLONES Counts applyFp32(float* __restrict w, const float* __restrict u,
                                        std::size_t n) {
  std::int64_t nonzero = 0, unchanged = 0;
  for (std::size_t i = 0; i < n; ++i) { // one fused pass: FP32 weights
    const float updated = w[i] + u[i];
    nonzero += u[i] != 0.0f ? 1 : 0;
    unchanged += (u[i] != 0.0f && updated == w[i]) ? 1 : 0;
    w[i] = updated;
  }
  return {nonzero, unchanged};
}

// AdamW with FP32 state: m, v and the update u of each value, in the
// operations and order of torch.optim.AdamW (see optimizer.h); with
// kApply, u is also added to FP32 (or master) weights in the same pass,
// counting the swamped values as applyFp32 does, and kept only with kKeep.
struct AdamwConstants {
  float b1, b2, flr, wd, bias1, bias2Sqrt, eps;
};
template <bool kApply, bool kKeep>
[[gnu::always_inline]] inline Counts
adamwFp32(const float* __restrict g, float* __restrict w, float* __restrict m1,
          float* __restrict m2, float* __restrict u, std::size_t n, AdamwConstants k) {
  const float b1 = k.b1, b2 = k.b2, flr = k.flr, wd = k.wd, bias1 = k.bias1,
              bias2Sqrt = k.bias2Sqrt, eps = k.eps;
  std::int64_t nonzero = 0, unchanged = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float m = b1 * m1[i] + (1.0f - b1) * g[i];
    const float v = b2 * m2[i] + (1.0f - b2) * g[i] * g[i];
    m1[i] = m;
    m2[i] = v;
    const float step = -flr * wd * w[i] - flr * (m / bias1) / (std::sqrt(v) / bias2Sqrt + eps);
    if constexpr (kKeep)
      u[i] = step;
    if constexpr (kApply) {
      const float updated = w[i] + step;
      nonzero += step != 0.0f ? 1 : 0;
      unchanged += (step != 0.0f && updated == w[i]) ? 1 : 0;
      w[i] = updated;
    }
  }
  return {nonzero, unchanged};
}
[[gnu::always_inline]] inline Counts adamwPassBody(const float* g, float* w, float* m1, float* m2,
                                                   float* u, std::size_t n, AdamwConstants k) {
  return adamwFp32<true, true>(g, w, m1, m2, u, n, k);
}
[[gnu::always_inline]] inline Counts adamwPassNoUpdateBody(const float* g, float* w, float* m1,
                                                           float* m2, float* u, std::size_t n,
                                                           AdamwConstants k) {
  return adamwFp32<true, false>(g, w, m1, m2, u, n, k);
}
[[gnu::always_inline]] inline Counts adamwUpdateBody(const float* g, float* w, float* m1, float* m2,
                                                     float* u, std::size_t n, AdamwConstants k) {
  return adamwFp32<false, true>(g, w, m1, m2, u, n, k);
}
#define MANTISSA_ADAMW_PARAMS                                                                      \
  (const float* g, float* w, float* m1, float* m2, float* u, std::size_t n, AdamwConstants k)
MANTISSA_STEP_VARIANTS(Counts, adamwPass, MANTISSA_ADAMW_PARAMS, (g, w, m1, m2, u, n, k))
MANTISSA_STEP_VARIANTS(Counts, adamwPassNoUpdate, MANTISSA_ADAMW_PARAMS, (g, w, m1, m2, u, n, k))
MANTISSA_STEP_VARIANTS(Counts, adamwUpdate, MANTISSA_ADAMW_PARAMS, (g, w, m1, m2, u, n, k))
#undef MANTISSA_ADAMW_PARAMS

AdamwConstants adamwConstants(const OptimizerConfig& c, bool decay, float flr, float bias1,
                              float bias2Sqrt) {
  return {static_cast<float>(c.beta1),
          static_cast<float>(c.beta2),
          flr,
          decay ? static_cast<float>(c.weightDecay) : 0.0f,
          bias1,
          bias2Sqrt,
          static_cast<float>(c.eps)};
}

} // namespace

std::string_view optimizerName(OptimizerKind kind) {
  return kind == OptimizerKind::Sgd ? "sgd" : "adamw";
}

std::optional<OptimizerKind> parseOptimizer(std::string_view name) {
  if (name == "sgd")
    return OptimizerKind::Sgd;
  if (name == "adamw")
    return OptimizerKind::AdamW;
  return std::nullopt;
}

Optimizer::Optimizer(OptimizerConfig config, const Recipe& recipe, std::vector<Slot> params,
                     std::uint64_t seed)
    : m_config(config), m_recipe(recipe), m_slots(std::move(params)),
      m_rng(seed ^ 0x9e3779b97f4a7c15ull) {
  for (const auto& s : m_slots) {
    if (s.value.size() != s.grad.size())
      throw std::invalid_argument("optimizer slot '" + s.name + "': value and gradient sizes differ");
    if (!s.working.empty() && (s.working.size() != s.value.size() ||
                               (s.workingType != DType::BF16 && s.workingType != DType::F16)))
      throw std::invalid_argument("optimizer slot '" + s.name +
                                  "': the working copy needs the value's size and BF16 or F16");
    m_first.emplace_back(s.value.size(), 0.0f);
    m_second.emplace_back(config.kind == OptimizerKind::AdamW ? s.value.size() : 0, 0.0f);
    m_kahan.emplace_back(recipe.updateRounding == UpdateRounding::Kahan ? s.value.size() : 0, 0.0f);
    m_updates.emplace_back(s.value.size(), 0.0f);
  }
  m_scratch.resize(kMaxWorkers * kStepBlock);
  m_stats.resize(m_slots.size());
}

void Optimizer::visitState(RunStateVisitor& v) {
  for (std::size_t s = 0; s < m_slots.size(); ++s) {
    const std::string& name = m_slots[s].name;
    v.floats(stateName(name, "m"), m_first[s]);
    if (!m_second[s].empty())
      v.floats(stateName(name, "v"), m_second[s]);
    if (!m_kahan[s].empty())
      v.floats(stateName(name, "kahan"), m_kahan[s]);
  }
  v.value("rng", m_rng);
  v.value("step", m_step);
  v.value("momentum", m_momentum);
  v.value("bias1", m_bias1);
  v.value("bias2_sqrt", m_bias2Sqrt);
  if (m_step < 0)
    throw std::invalid_argument("optimizer step: " + std::to_string(m_step) + " is negative");
}

// splitmix64: a seeded, platform-independent stream for stochastic rounding.
std::uint32_t Optimizer::nextRandom() {
  std::uint64_t z = (m_rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return static_cast<std::uint32_t>((z ^ (z >> 31)) >> 32);
}

// Kahan-compensated store of one weight (pure recipes): y = u - c;
// t = rne(w + y); c = rne((t - w) - y).
float Optimizer::store(float current, float u, float& compensation) {
  const float y = u - compensation;
  const float t = roundNearest(m_recipe.weights, current + y);
  compensation = roundNearest(m_recipe.optimizerState, (t - current) - y);
  return t;
}

void Optimizer::step(double lr, StepObserver* observer, bool keepUpdates) {
  ++m_step;
  m_keepUpdates = keepUpdates || observer != nullptr;
  const auto& c = m_config;
  m_momentum = m_step == 1 ? 0.0f : static_cast<float>(c.momentum);
  m_bias1 = static_cast<float>(1.0 - std::pow(c.beta1, double(m_step)));
  m_bias2Sqrt = static_cast<float>(std::sqrt(1.0 - std::pow(c.beta2, double(m_step))));
  const float flr = static_cast<float>(lr);
  for (std::size_t s = 0; s < m_slots.size(); ++s) {
    StepObserver* watcher = observer != nullptr && observer->beginSlot(s) ? observer : nullptr;
    const std::size_t n = m_slots[s].value.size();
    const int workers = workersFor(s);
    std::array<UpdateStats, kMaxWorkers> part{};
    if (workers == 1) {
      updateRange(s, 0, 0, n, flr, watcher, part[0]);
    } else {
      // Whole blocks per worker; the team may be smaller than asked for.
      static_assert(kMaxWorkers == 2);
      const std::size_t split = shareBegin(n, 1, 2);
#pragma omp parallel num_threads(workers)
      {
        const auto t = static_cast<std::size_t>(omp_get_thread_num());
        const auto nt = static_cast<std::size_t>(omp_get_num_threads());
        const std::size_t begin = t == 0 ? 0 : split;
        const std::size_t end = nt == 1 || t == 1 ? n : split;
        updateRange(s, static_cast<int>(t), begin, end, flr, watcher, part[t]);
      }
    }
    UpdateStats stats;
    for (const auto& p : part) {
      stats.nonzero += p.nonzero;
      stats.unchanged += p.unchanged;
    }
    m_stats[s] = stats;
    if (watcher != nullptr)
      watcher->endSlot(s, stats);
  }
}

namespace {
std::atomic<bool> g_bf16PassAllowed{true};
}

bool Optimizer::castsBf16InUpdatePass() {
  return g_bf16PassAllowed.load(std::memory_order_relaxed) &&
         kernels::stepIsa() == kernels::StepIsa::Avx512 && detail::bf16PassAvailable();
}

void Optimizer::allowBf16UpdatePass(bool allowed) {
  g_bf16PassAllowed.store(allowed, std::memory_order_relaxed);
}

int Optimizer::workersFor(std::size_t s) const {
  const bool sequentialRandom = !m_recipe.masterWeights && m_recipe.weights != DType::F32 &&
                                m_recipe.updateRounding == UpdateRounding::Stochastic;
  if (m_slots[s].value.size() < kParallelMin || sequentialRandom)
    return 1;
  return std::clamp(omp_get_max_threads(), 1, kMaxWorkers);
}

void Optimizer::updateRange(std::size_t s, int worker, std::size_t begin, std::size_t end,
                            float flr, StepObserver* observer, UpdateStats& stats) {
  // Unobserved SGD or AdamW with FP32 state into FP32 weights: one pass per block.
  const bool fp32 = observer == nullptr && m_recipe.optimizerState == DType::F32 &&
                    (m_recipe.masterWeights || m_recipe.weights == DType::F32);
  const bool fused = fp32 && m_config.kind == OptimizerKind::Sgd;
  const bool fusedAdamw = fp32 && m_config.kind == OptimizerKind::AdamW;
  // ... and, updates not kept, into a BF16 working copy in the same pass.
  const Slot& slot = m_slots[s];
  const bool withCast = (fused || fusedAdamw) && !m_keepUpdates && !slot.working.empty() &&
                        slot.workingType == DType::BF16 && castsBf16InUpdatePass();
  const float wd = slot.decay ? static_cast<float>(m_config.weightDecay) : 0.0f;
  for (std::size_t off = begin; off < end; off += kStepBlock) {
    const std::size_t len = std::min(kStepBlock, end - off);
    if (withCast) {
      const float* g = slot.grad.data() + off;
      float* w = slot.value.data() + off;
      std::uint16_t* low = slot.working.data() + off;
      const detail::PassCounts c =
          fusedAdamw
              ? detail::adamwBf16Pass(g, w, m_first[s].data() + off, m_second[s].data() + off, low,
                                      len,
                                      {static_cast<float>(m_config.beta1),
                                       static_cast<float>(m_config.beta2), flr, wd, m_bias1,
                                       m_bias2Sqrt, static_cast<float>(m_config.eps)})
              : detail::sgdBf16Pass(g, w, m_first[s].data() + off, low, len, {m_momentum, wd, flr});
      stats.nonzero += c.nonzero;
      stats.unchanged += c.unchanged;
      continue;
    }
    if (fusedAdamw) {
      const AdamwConstants k =
          adamwConstants(m_config, m_slots[s].decay, flr, m_bias1, m_bias2Sqrt);
      const float* g = m_slots[s].grad.data() + off;
      float* w = m_slots[s].value.data() + off;
      float* m1 = m_first[s].data() + off;
      float* m2 = m_second[s].data() + off;
      float* u = m_updates[s].data() + off;
      const Counts c = m_keepUpdates
                           ? MANTISSA_STEP_DISPATCH(adamwPass, (g, w, m1, m2, u, len, k))
                           : MANTISSA_STEP_DISPATCH(adamwPassNoUpdate, (g, w, m1, m2, u, len, k));
      stats.nonzero += c.nonzero;
      stats.unchanged += c.unchanged;
    } else if (fused) {
      const auto c =
          m_keepUpdates
              ? sgdFp32Pass(m_slots[s].grad.data() + off, m_slots[s].value.data() + off,
                            m_first[s].data() + off, m_updates[s].data() + off, len, m_momentum,
                            wd, flr)
              : sgdFp32PassNoUpdate(m_slots[s].grad.data() + off, m_slots[s].value.data() + off,
                                    m_first[s].data() + off, len, m_momentum, wd, flr);
      stats.nonzero += c.nonzero;
      stats.unchanged += c.unchanged;
    } else {
      computeUpdate(s, off, len, flr);
      if (observer != nullptr)
        observer->block(s, worker, off, m_slots[s].value.subspan(off, len),
                        m_slots[s].grad.subspan(off, len),
                        std::span<const float>(m_updates[s]).subspan(off, len));
      applyUpdate(s, worker, off, len, stats);
    }
    castWorking(s, off, len);
  }
}

void Optimizer::castWorking(std::size_t s, std::size_t off, std::size_t n) {
  const Slot& slot = m_slots[s];
  if (slot.working.empty())
    return;
  const std::span<const float> values = std::span<const float>(slot.value).subspan(off, n);
  if (slot.workingType == DType::BF16)
    numeric::convertF32ToBf16(values, slot.working.subspan(off, n));
  else
    numeric::convertF32ToF16(values, slot.working.subspan(off, n));
}

// Each phase is a separate loop over the block so that the common paths
// (FP32 state, FP32 or master weights) vectorise; rounding to BF16/FP16 uses
// the batch conversions (model::roundTo), stochastic rounding and Kahan the
// scalar ones.
void Optimizer::computeUpdate(std::size_t s, std::size_t off, std::size_t n, float flr) {
  const auto& c = m_config;
  const DType state = m_recipe.optimizerState;
  const float wd = m_slots[s].decay ? static_cast<float>(c.weightDecay) : 0.0f;
  const float* w = m_slots[s].value.data() + off;
  const float* g = m_slots[s].grad.data() + off;
  float* u = m_updates[s].data() + off;
  float* m1 = m_first[s].data() + off;
  if (c.kind == OptimizerKind::AdamW && state == DType::F32) {
    const AdamwConstants k = adamwConstants(c, m_slots[s].decay, flr, m_bias1, m_bias2Sqrt);
    float* m2 = m_second[s].data() + off;
    MANTISSA_STEP_DISPATCH(adamwUpdate, (g, m_slots[s].value.data() + off, m1, m2, u, n, k));
    return;
  }
  if (c.kind == OptimizerKind::AdamW) {
    float* m2 = m_second[s].data() + off;
    const float b1 = static_cast<float>(c.beta1), b2 = static_cast<float>(c.beta2);
    for (std::size_t i = 0; i < n; ++i) {
      m1[i] = b1 * m1[i] + (1.0f - b1) * g[i];
      m2[i] = b2 * m2[i] + (1.0f - b2) * g[i] * g[i];
    }
    model::roundTo(state, {m1, n});
    model::roundTo(state, {m2, n});
    const float bias1 = m_bias1, bias2Sqrt = m_bias2Sqrt;
    const float eps = static_cast<float>(c.eps);
    for (std::size_t i = 0; i < n; ++i)
      u[i] = -flr * wd * w[i] - flr * (m1[i] / bias1) / (std::sqrt(m2[i]) / bias2Sqrt + eps);
    return;
  }
  const float momentum = m_momentum;
  if (state == DType::F32) {
    sgdFp32Update(g, w, m1, u, n, momentum, wd, flr);
  } else {
    for (std::size_t i = 0; i < n; ++i)
      m1[i] = momentum * m1[i] + (g[i] + wd * w[i]);
    model::roundTo(state, {m1, n});
    for (std::size_t i = 0; i < n; ++i)
      u[i] = -flr * m1[i];
  }
}

void Optimizer::applyUpdate(std::size_t s, int worker, std::size_t off, std::size_t n,
                            UpdateStats& stats) {
  float* w = m_slots[s].value.data() + off;
  const float* u = m_updates[s].data() + off;
  std::int64_t nonzero = 0, unchanged = 0;
  if (m_recipe.masterWeights || m_recipe.weights == DType::F32) {
    const auto c = applyFp32(w, u, n);
    stats.nonzero += c.nonzero;
    stats.unchanged += c.unchanged;
    return;
  }
  float* next = m_scratch.data() + static_cast<std::size_t>(worker) * kStepBlock;
  if (m_recipe.updateRounding == UpdateRounding::Nearest) {
    for (std::size_t i = 0; i < n; ++i)
      next[i] = w[i] + u[i];
    model::roundTo(m_recipe.weights, {next, n});
  } else if (m_recipe.updateRounding == UpdateRounding::Stochastic) {
    for (std::size_t i = 0; i < n; ++i)
      next[i] = roundStochastic(m_recipe.weights, w[i] + u[i], nextRandom());
  } else {
    float* comp = m_kahan[s].data() + off;
    for (std::size_t i = 0; i < n; ++i)
      next[i] = store(w[i], u[i], comp[i]);
  }
  for (std::size_t i = 0; i < n; ++i) {
    nonzero += u[i] != 0.0f ? 1 : 0;
    unchanged += (u[i] != 0.0f && next[i] == w[i]) ? 1 : 0;
    w[i] = next[i];
  }
  stats.nonzero += nonzero;
  stats.unchanged += unchanged;
}

std::size_t Optimizer::allocatedBytes() const {
  std::size_t n = m_scratch.capacity();
  for (const auto* v : {&m_first, &m_second, &m_kahan, &m_updates})
    for (const auto& s : *v)
      n += s.capacity();
  return n * sizeof(float);
}

std::vector<model::PlanRow> Optimizer::plan() const {
  std::vector<model::PlanRow> rows;
  const DType state = m_recipe.optimizerState;
  for (std::size_t s = 0; s < m_slots.size(); ++s) {
    const auto n = static_cast<std::int64_t>(m_slots[s].value.size());
    const std::string& name = m_slots[s].name;
    if (m_config.kind == OptimizerKind::AdamW) {
      rows.push_back({name + " Adam m", model::TensorRole::OptimizerState, state, 1, n});
      rows.push_back({name + " Adam v", model::TensorRole::OptimizerState, state, 1, n});
    } else if (m_config.momentum != 0.0) {
      rows.push_back({name + " momentum", model::TensorRole::OptimizerState, state, 1, n});
    }
    if (!m_kahan[s].empty())
      rows.push_back({name + " Kahan c", model::TensorRole::OptimizerState, state, 1, n});
  }
  return rows;
}

namespace {
// Eight independent chains, which the compiler vectorises (a single running
// sum is one long chain of dependent additions: ~4 cycles a value). No FMA
// in either target, so both round alike.
[[gnu::always_inline]] inline double sumOfSquaresBody(const float* x, std::size_t n) {
  constexpr std::size_t kLanes = 8;
  std::array<double, kLanes> acc{};
  const std::size_t whole = n - n % kLanes;
  for (std::size_t i = 0; i < whole; i += kLanes)
    for (std::size_t k = 0; k < kLanes; ++k) {
      const double g = x[i + k];
      acc[k] += g * g;
    }
  for (std::size_t i = whole; i < n; ++i) {
    const double g = x[i];
    acc[i - whole] += g * g;
  }
  return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
}
[[gnu::target("avx2")]] double sumOfSquaresAvx2(const float* x, std::size_t n) {
  return sumOfSquaresBody(x, n);
}
double sumOfSquaresBase(const float* x, std::size_t n) { return sumOfSquaresBody(x, n); }
} // namespace

double sumOfSquares(std::span<const float> values) {
  static const bool avx2 = numeric::cpuFeatures().avx2;
  return avx2 ? sumOfSquaresAvx2(values.data(), values.size())
              : sumOfSquaresBase(values.data(), values.size());
}

// The slots' sums are independent: large sets of them are shared by the
// OpenMP team, a slot per thread at a time, and added in slot order.
double globalGradNorm(std::span<const Slot> params) {
  constexpr std::size_t kBatch = 64;
  constexpr std::size_t kParallelValues = std::size_t{1} << 17;
  std::array<double, kBatch> part{};
  double sum = 0.0;
  for (std::size_t b = 0; b < params.size(); b += kBatch) {
    const std::size_t nb = std::min(kBatch, params.size() - b);
    std::size_t values = 0;
    for (std::size_t k = 0; k < nb; ++k)
      values += params[b + k].grad.size();
    const int threads = values >= kParallelValues && omp_in_parallel() == 0
                            ? std::min(omp_get_max_threads(), static_cast<int>(nb))
                            : 1;
    if (threads > 1) {
      const auto count = static_cast<long>(nb);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
      for (long k = 0; k < count; ++k)
        part[static_cast<std::size_t>(k)] = sumOfSquares(params[b + static_cast<std::size_t>(k)].grad);
    } else {
      for (std::size_t k = 0; k < nb; ++k)
        part[k] = sumOfSquares(params[b + k].grad);
    }
    for (std::size_t k = 0; k < nb; ++k)
      sum += part[k];
  }
  return std::sqrt(sum);
}

bool clipsAt(double norm, double maxNorm) {
  return maxNorm > 0.0 && norm > maxNorm;
}

double clipByGlobalNorm(std::span<const std::span<float>> grads, double norm, double maxNorm) {
  if (!clipsAt(norm, maxNorm))
    return 1.0;
  const double factor = maxNorm / (norm + 1e-6);
  const float f = static_cast<float>(factor);
  for (auto g : grads)
    for (float& v : g)
      v *= f;
  return factor;
}

} // namespace mantissa::amp
