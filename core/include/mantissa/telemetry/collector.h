// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// TelemetryCollector: what the training thread calls, every K steps.
//
//   if (collector.wants(step)) {
//     collector.observe(l, TensorClass::Activations, act, 1.0f);        // forward
//     collector.observe(l, TensorClass::WeightGrads, dW, lossScale);    // backward, still scaled
//     collector.observeUpdate(l, weights, update, DType::F32);          // optimizer
//     mailbox.publish(collector.finish(step));
//   }
//
// The optimizer's tensors (weights, weight gradients, updates: most of the
// values) are best scanned inside the optimizer's own loop, block by block
// while each block is in cache, instead of re-read from memory:
//
//     collector.beginParameters(l, DType::F32, true, true);      // per layer
//     collector.observeParameterBlock(worker, w, g, u);          // each block
//     collector.endParameters();  // = observe(Weights), observe(WeightGrads), observeUpdate
//
// Large tensors are scanned by up to kMaxWorkers threads of the calling
// thread's OpenMP team (oneDNN's threads, idle between products); blocks of
// parameters may come from that many threads at once, one per worker index.
// Counts do not depend on how the values were split.
// observe() takes the values as the trainer holds them. With lossScale S != 1
// they are the loss-scaled values (backward of S x loss), and two entries are
// recorded: scaled = true for the values themselves (what an FP16 gradient
// stores) and scaled = false for values x (1/S) in FP32 (what unscaling gives
// the optimizer). With S == 1 only the unscaled entry is recorded.
// For S = 2^k >= 1 both views come from a single pass: the unscaled
// histogram is the scaled one shifted by k binades, and its cast thresholds
// are the scaled thresholds times S, both exact as long as no value drops into
// the FP32 subnormal range when unscaled (otherwise a second pass is made).
//
// One collector belongs to one thread (the trainer's); it is not shared,
// except for observeParameterBlock() calls of different workers.

#include <mantissa/telemetry/frame.h>
#include <mantissa/telemetry/tensor_scan.h>
#include <mantissa/tensor/dtype.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>

namespace mantissa::telemetry {

class TelemetryCollector {
public:
  static constexpr int kMaxWorkers = 2;

  // cadence K >= 1: a frame every K steps (steps 0, K, 2K, ...); 0: off.
  // Throws std::invalid_argument for K < 0.
  explicit TelemetryCollector(int cadence);
  ~TelemetryCollector();
  TelemetryCollector(TelemetryCollector&&) noexcept;
  TelemetryCollector& operator=(TelemetryCollector&&) noexcept;

  int cadence() const { return m_cadence; }

  // Cast fractions for these formats too, beyond fp16, bf16, fp8-e4m3 and
  // fp8-e5m2 (makeCastView: at most kMaxCastFormats others; throws
  // std::invalid_argument naming a format that cannot be one). Each entry's
  // formatFractions and the frame's castFormats follow.
  void setCastFormats(std::span<const numeric::FloatFormat> formats);
  const std::shared_ptr<const CastView>& castView() const { return m_view; }
  // Counts to take apart (scanInto) for record(), addWeightCounts() and
  // recordParameters(): empty, against this collector's formats.
  TensorScan emptyScan() const;
  bool wants(std::int64_t step) const { return m_cadence > 0 && step % m_cadence == 0; }

  // Throws std::invalid_argument for layer < 0 or a lossScale that is not a
  // positive finite number.
  void observe(int layer, TensorClass cls, std::span<const float> values, float lossScale = 1.0f);
  // observe(layer, cls, values) (loss scale 1) of every item, in order, with
  // the same entries, in one parallel region of the calling thread's OpenMP
  // team (one wake-up of the team instead of one per large tensor): the
  // items are cut into pieces (runs of whole small tensors, or parts of a
  // large one) that the threads take one at a time, so a thread that wakes
  // late leaves more pieces to the others.
  struct Observed {
    int layer;
    TensorClass cls;
    std::span<const float> values;
  };
  void observeAll(std::span<const Observed> items);

  // Records the entry observe(layer, cls, values) (lossScale 1) records,
  // from counts taken apart from the collector (scanInto).
  void record(int layer, TensorClass cls, const TensorScan& scan);

  // Records the Updates histogram of `updates` for `layer` and the layer's
  // swamped fraction (see swampedFraction) of the updates applied to
  // `weights`. Do not also observe() Updates.
  void observeUpdate(int layer, std::span<const float> weights, std::span<const float> updates,
                     DType working);

  // One layer's weights, weight gradients and updates, handed over in blocks
  // (any order, from workers 0 <= worker < kMaxWorkers, concurrently for
  // different workers; a block's spans have equal sizes, grads empty when
  // withGrads is false). endParameters() records exactly the entries of
  //   observe(layer, Weights, weights) (only withWeights);
  //   observe(layer, WeightGrads, grads) (lossScale 1, only withGrads);
  //   observeUpdate(layer, weights, updates, working)
  // on all the blocks together. Throws std::invalid_argument for layer < 0,
  // a bad worker or a block whose sizes differ, and std::logic_error for
  // calls out of order.
  // unchangedGiven: endParameters() will be given how many non-zero updates
  // left their weight unchanged in FP32 (the optimizer's
  // UpdateStats::unchanged). With FP32 working precision, less the lanes of
  // inf or NaN weights, that is the swamped count exactly, and finite blocks
  // are not checked one by one. Which blocks may hold such weights is known
  // from their own weights when withWeights, else from the layer's Weights
  // entry observed earlier in this frame (without one, every block is checked).
  // With unchangedGiven and FP32 working precision, the blocks that may hold
  // inf or NaN weights are checked lane by lane (a diverging run).
  // countWeights = false: this block's weights are not counted here; they
  // must be in the counts given to addWeightCounts() (before this block),
  // which endParameters() adds to the Weights entry. The caller keeps every
  // weight counted exactly once. (The optimizer's worker 0 counts its blocks'
  // weights while another thread counted worker 1's share before the step:
  // each core reads only the weights it writes; see Session.)
  void beginParameters(int layer, DType working, bool withWeights, bool withGrads,
                       bool unchangedGiven = false);
  void addWeightCounts(const TensorScan& counts);
  void observeParameterBlock(int worker, std::span<const float> weights,
                             std::span<const float> grads, std::span<const float> updates,
                             bool countWeights = true);
  void endParameters(std::optional<std::uint64_t> unchanged = std::nullopt);
  // Records what beginParameters(layer, DType::F32, true, false, true), the
  // blocks and endParameters(unchanged) record, from counts taken apart: the
  // weights before the update and the updates. The swamped count is then
  // `unchanged` itself, which holds for finite weights only: throws
  // std::invalid_argument when `weights` counted an inf or NaN (std::
  // logic_error between beginParameters() and endParameters()).
  void recordParameters(int layer, const TensorScan& weights, const TensorScan& updates,
                        std::uint64_t unchanged);

  // Time spent in this collector since the last finish(), in ms.
  double pendingMs() const { return m_frame.telemetryMs; }

  // Hands over the frame built since the last finish() and starts a new one.
  // costMs, when given, replaces the frame's telemetryMs (the time spent in
  // this collector): the telemetry time of the step as its caller measured
  // it, when counts were also taken apart (Session's background counts).
  std::shared_ptr<const TelemetryFrame> finish(std::int64_t step,
                                               std::optional<double> costMs = std::nullopt);

private:
  struct ParameterScan; // scanners of the layer between begin- and endParameters

  void checkLayer(int layer) const;
  void setSwamped(int layer, std::uint64_t eligible, std::uint64_t swamped);

  int m_cadence;
  std::shared_ptr<const CastView> m_view;
  TelemetryFrame m_frame;                      // being filled
  std::unique_ptr<ParameterScan> m_parameters; // allocated once, reused every layer
};

} // namespace mantissa::telemetry
