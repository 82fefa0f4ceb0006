// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Optimizers applying the recipe's update rule.
//
// Every parameter tensor is a Slot: FP32 storage `value` (the master copy, or
// the only copy whose values are exact in the recipe's weight dtype) and its
// gradient, already unscaled and clipped. step() computes the update u
// (PyTorch semantics, below) and applies it:
//   master weights / FP32 recipe:  value += u in FP32
//   pure BF16, nearest:            value = rne_bf16(value + u)
//   pure BF16, stochastic:         value = sr_bf16(value + u), seeded generator
//   pure BF16, Kahan:              y = u - c; t = rne(value + y);
//                                  c = rne((t - value) - y); value = t
// Optimizer state (momentum, Adam moments, Kahan c) is rounded to the
// recipe's optimizer-state dtype after each update.
//
// SGD (torch.optim.SGD, dampening 0, no Nesterov):
//   g += wd * w;  buf = g on the first step, else momentum * buf + g;  u = -lr * buf
// AdamW (torch.optim.AdamW):
//   w *= 1 - lr * wd;  m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
//   u = -lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
//
// All state is allocated in the constructor; step() does not allocate.

#include <mantissa/amp/recipe.h>
#include <mantissa/model/tensor_plan.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::amp {

enum class OptimizerKind : std::uint8_t { Sgd, AdamW };
std::string_view optimizerName(OptimizerKind kind); // "sgd", "adamw"
std::optional<OptimizerKind> parseOptimizer(std::string_view name);

struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::Sgd;
  double momentum = 0.9;     // SGD
  double beta1 = 0.9;        // AdamW
  double beta2 = 0.999;      // AdamW
  double eps = 1e-8;         // AdamW
  double weightDecay = 0.0;  // SGD: L2 added to g; AdamW: decoupled
};

struct Slot {
  std::string name;        // "layer0.W"
  std::span<float> value;  // [n] FP32 storage
  std::span<const float> grad; // [n]
};

// How many non-zero updates left the stored weight unchanged (swamping).
struct UpdateStats {
  std::int64_t nonzero = 0;
  std::int64_t unchanged = 0;
  double lostFraction() const { return nonzero ? double(unchanged) / double(nonzero) : 0.0; }
};

class Optimizer {
public:
  // `params` fixes the parameter set; its spans must stay valid.
  Optimizer(OptimizerConfig config, const Recipe& recipe, std::vector<Slot> params,
            std::uint64_t seed);

  // One update with learning rate lr. The intended update u of each slot is
  // kept for telemetry (lastUpdate()); recordUpdates is accepted for callers
  // that want to say so.
  void step(double lr, bool recordUpdates = false);

  std::span<const float> lastUpdate(std::size_t slot) const { return m_updates[slot]; }
  std::span<const UpdateStats> lastStats() const { return m_stats; } // [slots]
  // The parameter set, in construction order. (Not named slots(): Qt's
  // `slots` keyword macro would swallow it in every GUI translation unit.)
  const std::vector<Slot>& parameters() const { return m_slots; }
  const OptimizerConfig& config() const { return m_config; }
  std::int64_t steps() const { return m_step; }

  // State tensors at the recipe's precision, for the bytes table.
  std::vector<model::PlanRow> plan() const;

private:
  std::uint32_t nextRandom();
  float store(float current, float update, float& compensation);

  OptimizerConfig m_config;
  const Recipe& m_recipe;
  std::vector<Slot> m_slots;
  std::vector<std::vector<float>> m_first;  // [slots][n] momentum / Adam m
  std::vector<std::vector<float>> m_second; // [slots][n] Adam v (AdamW only)
  std::vector<std::vector<float>> m_kahan;  // [slots][n] compensation (Kahan only)
  std::vector<std::vector<float>> m_updates; // [slots][n] last intended update
  std::vector<float> m_scratch;              // [largest slot] new values before they are stored
  std::vector<UpdateStats> m_stats;          // [slots]
  std::uint64_t m_rng;
  std::int64_t m_step = 0;
};

// sqrt(sum of g^2) over every parameter's gradient, accumulated in double.
double globalGradNorm(std::span<const Slot> params);

// Clip by global norm (torch.nn.utils.clip_grad_norm_): when norm > maxNorm,
// multiply every gradient by maxNorm / (norm + 1e-6). Returns the factor used
// (1 when not clipped). The gradients are the spans `grads` (mutable views of
// the slots' gradients).
double clipByGlobalNorm(std::span<const std::span<float>> grads, double norm, double maxNorm);

} // namespace mantissa::amp
