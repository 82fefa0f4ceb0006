// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/amp/optimizer.h>
#include <mantissa/model/mlp.h>
#include <mantissa/numeric/convert.h>

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

Optimizer::Optimizer(OptimizerConfig config, const Recipe& recipe, std::vector<Slot> slots,
                     std::uint64_t seed)
    : m_config(config), m_recipe(recipe), m_slots(std::move(slots)),
      m_rng(seed ^ 0x9e3779b97f4a7c15ull) {
  for (const auto& s : m_slots) {
    if (s.value.size() != s.grad.size())
      throw std::invalid_argument("optimizer slot '" + s.name + "': value and gradient sizes differ");
    m_first.emplace_back(s.value.size(), 0.0f);
    m_second.emplace_back(config.kind == OptimizerKind::AdamW ? s.value.size() : 0, 0.0f);
    m_kahan.emplace_back(recipe.updateRounding == UpdateRounding::Kahan ? s.value.size() : 0, 0.0f);
    m_updates.emplace_back(s.value.size(), 0.0f);
  }
  m_stats.resize(m_slots.size());
}

// splitmix64: a seeded, platform-independent stream for stochastic rounding.
std::uint32_t Optimizer::nextRandom() {
  std::uint64_t z = (m_rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return static_cast<std::uint32_t>((z ^ (z >> 31)) >> 32);
}

// The new stored value of a weight `current` receiving update u.
float Optimizer::store(float current, float u, float& compensation) {
  const DType w = m_recipe.weights;
  if (m_recipe.masterWeights || w == DType::F32)
    return current + u;
  switch (m_recipe.updateRounding) {
  case UpdateRounding::Nearest:
    return roundNearest(w, current + u);
  case UpdateRounding::Stochastic:
    return roundStochastic(w, current + u, nextRandom());
  case UpdateRounding::Kahan: {
    const float y = u - compensation;
    const float t = roundNearest(w, current + y);
    compensation = roundNearest(m_recipe.optimizerState, (t - current) - y);
    return t;
  }
  }
  return current + u;
}

void Optimizer::step(double lr, bool recordUpdates) {
  ++m_step;
  const auto& c = m_config;
  const DType state = m_recipe.optimizerState;
  const float flr = static_cast<float>(lr);
  const float wd = static_cast<float>(c.weightDecay);
  const bool adam = c.kind == OptimizerKind::AdamW;
  const float b1 = static_cast<float>(c.beta1), b2 = static_cast<float>(c.beta2);
  const float bias1 = static_cast<float>(1.0 - std::pow(c.beta1, double(m_step)));
  const float bias2Sqrt = static_cast<float>(std::sqrt(1.0 - std::pow(c.beta2, double(m_step))));
  const float eps = static_cast<float>(c.eps);
  const float momentum = static_cast<float>(c.momentum);
  const bool kahan = !m_kahan.empty() && m_recipe.updateRounding == UpdateRounding::Kahan;
  for (std::size_t s = 0; s < m_slots.size(); ++s) {
    auto value = m_slots[s].value;
    auto grad = m_slots[s].grad;
    auto& first = m_first[s];
    UpdateStats stats;
    float unusedCompensation = 0.0f;
    for (std::size_t i = 0; i < value.size(); ++i) {
      const float w = value[i];
      float u;
      if (adam) {
        const float g = grad[i];
        float& v = m_second[s][i];
        first[i] = roundNearest(state, b1 * first[i] + (1.0f - b1) * g);
        v = roundNearest(state, b2 * v + (1.0f - b2) * g * g);
        const float denom = std::sqrt(v) / bias2Sqrt + eps;
        u = -flr * wd * w - flr * (first[i] / bias1) / denom;
      } else {
        const float g = grad[i] + wd * w;
        first[i] = roundNearest(state, m_step == 1 ? g : momentum * first[i] + g);
        u = -flr * first[i];
      }
      float& comp = kahan ? m_kahan[s][i] : unusedCompensation;
      const float next = store(w, u, comp);
      value[i] = next;
      if (u != 0.0f) {
        ++stats.nonzero;
        stats.unchanged += next == w ? 1 : 0;
      }
      if (recordUpdates)
        m_updates[s][i] = u;
    }
    m_stats[s] = stats;
  }
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

double globalGradNorm(std::span<const Slot> slots) {
  double sum = 0.0;
  for (const auto& s : slots) {
    float partial = 0.0f; // FP32 within a tensor (vectorisable), double across tensors
    for (float g : s.grad)
      partial += g * g;
    sum += partial;
  }
  return std::sqrt(sum);
}

double clipByGlobalNorm(std::span<const std::span<float>> grads, double norm, double maxNorm) {
  if (!(maxNorm > 0.0) || !(norm > maxNorm))
    return 1.0;
  const double factor = maxNorm / (norm + 1e-6);
  const float f = static_cast<float>(factor);
  for (auto g : grads)
    for (float& v : g)
      v *= f;
  return factor;
}

} // namespace mantissa::amp
