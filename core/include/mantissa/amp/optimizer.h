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
// step() walks each slot in blocks of kStepBlock values: the update of a
// block is computed, shown to a StepObserver if there is one (telemetry reads
// the block while it is in cache instead of re-reading the tensors from
// memory afterwards), then applied. A slot of kParallelMin values or more is
// cut into contiguous halves for the calling thread's OpenMP team (oneDNN's
// threads, idle between products), at most kMaxWorkers threads, except with
// stochastic rounding (its random stream is drawn in index order). Every
// operation is elementwise, so the results do not depend on the blocking,
// the threads, or whether anyone observes.
//
// All state is allocated in the constructor; step() does not allocate.

#include <mantissa/amp/recipe.h>
#include <mantissa/model/tensor_plan.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa {
class RunStateVisitor;
}

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
  // Optional [n] 16-bit working copy (BF16 or F16 bits): after each step the
  // updated values are cast into it, to nearest-even (Tensor::convertFrom's
  // bits), block by block while they are in cache.
  std::span<std::uint16_t> working = {};
  DType workingType = DType::F32;
  bool decay = true;       // weight decay applies (GPT: matrices and embeddings only)
};

// How many non-zero updates left the stored weight unchanged (swamping).
struct UpdateStats {
  std::int64_t nonzero = 0;
  std::int64_t unchanged = 0;
  double lostFraction() const { return nonzero ? double(unchanged) / double(nonzero) : 0.0; }
};

// Sees a step's tensors block by block, between computing a block's update
// and applying it (called on the thread running step()).
class StepObserver {
public:
  // Called before slot `slot`'s first block; true: observe this slot.
  virtual bool beginSlot(std::size_t slot) = 0;
  // Values [offset, offset + weights.size()) of an observed slot: the stored
  // weights before this step's update, the gradient as the optimizer reads
  // it (unscaled and clipped; before SGD's weight decay is added) and the
  // intended update u. Called concurrently by the workers of a slot
  // (0 <= worker < Optimizer::kMaxWorkers); each worker's blocks come in
  // index order.
  virtual void block(std::size_t slot, int worker, std::size_t offset,
                     std::span<const float> weights, std::span<const float> grads,
                     std::span<const float> updates) = 0;
  // After the last block of an observed slot (also when it has no values),
  // with the slot's counts of this step (lastStats()[slot]).
  virtual void endSlot(std::size_t slot, const UpdateStats& stats) = 0;

protected:
  ~StepObserver() = default;
};

class Optimizer {
public:
  static constexpr std::size_t kStepBlock = 4096; // values per block: its arrays stay in L1/L2
  static constexpr std::size_t kParallelMin = std::size_t{1} << 16;
  static constexpr int kMaxWorkers = 2;

  // `params` fixes the parameter set; its spans must stay valid.
  Optimizer(OptimizerConfig config, const Recipe& recipe, std::vector<Slot> params,
            std::uint64_t seed);

  // One update with learning rate lr. The intended update u of each slot is
  // kept (lastUpdate()) unless keepUpdates is false and nobody observes (the
  // update is then not written out: less memory traffic; lastUpdate() then
  // holds an earlier step's); `observer`, when given, sees every block (above).
  void step(double lr, StepObserver* observer = nullptr, bool keepUpdates = true);

  // True where unobserved steps that keep no updates, with FP32 state into
  // FP32 master weights, write a slot's BF16 working copy in the update's own
  // pass (one AVX-512 pass with VCVTNEPS2BF16: this CPU has AVX-512 BF16 and
  // kernels::stepIsa() is AVX-512); else the block is cast after its update.
  // The bits are the same either way.
  static bool castsBf16InUpdatePass();
  // false: cast after each block's update even where the single pass runs
  // (process-wide; the benchmark times both side by side). Default true.
  static void allowBf16UpdatePass(bool allowed);

  std::span<const float> lastUpdate(std::size_t slot) const { return m_updates[slot]; }
  std::span<const UpdateStats> lastStats() const { return m_stats; } // [slots]
  // The parameter set, in construction order. (Not named slots(): Qt's
  // `slots` keyword macro would swallow it in every GUI translation unit.)
  const std::vector<Slot>& parameters() const { return m_slots; }
  const OptimizerConfig& config() const { return m_config; }
  std::int64_t steps() const { return m_step; }

  // State tensors at the recipe's precision, for the bytes table.
  std::vector<model::PlanRow> plan() const;
  // Bytes really allocated for the optimizer's FP32 state (momentum / Adam
  // m and v / Kahan compensation), the last intended updates and the
  // per-worker scratch.
  std::size_t allocatedBytes() const;
  // The moments, the Kahan compensation, the stochastic-rounding stream and
  // the step count under "<slot>.m", "<slot>.v", "<slot>.kahan", "rng",
  // "step", ... (tensor/run_state.h): what a resumed run needs to take the
  // same next step.
  void visitState(RunStateVisitor& v);


private:
  // Threads asked for slot s (1 .. kMaxWorkers); the team may be smaller.
  int workersFor(std::size_t s) const;
  // First value of worker t's share of a slot of n values cut for nt
  // workers: whole blocks, so a block never straddles two shares.
  static std::size_t shareBegin(std::size_t n, std::size_t t, std::size_t nt) {
    const std::size_t blocks = (n + kStepBlock - 1) / kStepBlock;
    return std::min(n, blocks * t / nt * kStepBlock);
  }
  std::uint32_t nextRandom();
  float store(float current, float update, float& compensation);
  // Values [begin, end) of slot s, block by block, on worker `worker`.
  void updateRange(std::size_t s, int worker, std::size_t begin, std::size_t end, float lr,
                   StepObserver* observer, UpdateStats& stats);
  // Values [off, off + n) of slot s: state and update direction u, then the
  // update applied to the stored weights (counting swamped ones into stats).
  void computeUpdate(std::size_t s, std::size_t off, std::size_t n, float lr);
  void castWorking(std::size_t slot, std::size_t offset, std::size_t n);
  void applyUpdate(std::size_t s, int worker, std::size_t off, std::size_t n, UpdateStats& stats);

  OptimizerConfig m_config;
  const Recipe& m_recipe;
  std::vector<Slot> m_slots;
  std::vector<std::vector<float>> m_first;  // [slots][n] momentum / Adam m
  std::vector<std::vector<float>> m_second; // [slots][n] Adam v (AdamW only)
  std::vector<std::vector<float>> m_kahan;  // [slots][n] compensation (Kahan only)
  std::vector<std::vector<float>> m_updates; // [slots][n] last intended update
  bool m_keepUpdates = true;                 // this step writes m_updates
  std::vector<float> m_scratch; // [kMaxWorkers][kStepBlock] new values before they are stored
  std::vector<UpdateStats> m_stats;          // [slots]
  std::uint64_t m_rng;
  std::int64_t m_step = 0;
  // Constants of the step being taken (set at the start of step()).
  float m_momentum = 0.0f;  // SGD: 0 on the first step
  float m_bias1 = 1.0f;     // AdamW: 1 - beta1^t
  float m_bias2Sqrt = 1.0f; // AdamW: sqrt(1 - beta2^t)
};

// sqrt(sum of g^2) over every parameter's gradient: each tensor's
// sumOfSquares added up.
double globalGradNorm(std::span<const Slot> params);
// Sum of g^2 in double (each square is exact in double; a huge finite
// gradient does not overflow), in eight interleaved partial sums: vectorised,
// and its rounding error grows with n / 8, not n. The same bits on every CPU.
double sumOfSquares(std::span<const float> values);

// Whether clipByGlobalNorm(grads, norm, maxNorm) changes the gradients.
bool clipsAt(double norm, double maxNorm);

// Clip by global norm (torch.nn.utils.clip_grad_norm_): when norm > maxNorm,
// multiply every gradient by maxNorm / (norm + 1e-6). Returns the factor used
// (1 when not clipped). The gradients are the spans `grads` (mutable views of
// the slots' gradients).
double clipByGlobalNorm(std::span<const std::span<float>> grads, double norm, double maxNorm);

} // namespace mantissa::amp
