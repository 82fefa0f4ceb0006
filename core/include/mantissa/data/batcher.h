// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Deterministic shuffled mini-batches. Epoch e visits the samples in a
// permutation drawn from (seed, e) alone, so a run can be replayed exactly; each
// sample appears exactly once per epoch, and the last partial batch of an epoch
// is dropped (stepsPerEpoch() = N / B).
//
// Legend: B = batch size, F = features.

#include <mantissa/data/dataset.h>

#include <cstdint>
#include <span>
#include <vector>

namespace mantissa {
class RunStateVisitor;
}

namespace mantissa::data {

class Batcher {
public:
  // The data set must outlive the batcher. Throws std::invalid_argument when
  // batchSize is not in [1, data.size()].
  Batcher(const Dataset& data, int batchSize, std::uint64_t seed);

  // Fills x [B, F] and y [B] with the next batch (sizes must match exactly).
  void next(std::span<float> x, std::span<std::int32_t> y);

  // Epoch of the batch last returned by next() (0 before the first call).
  std::int64_t epoch() const { return m_epoch; }
  std::int64_t stepsPerEpoch() const { return m_stepsPerEpoch; }
  int batchSize() const { return m_batchSize; }
  // The epoch and the position in it (tensor/run_state.h); the epoch's
  // order follows from them.
  void visitState(RunStateVisitor& v);

private:
  void shuffle(); // draws m_order for m_epoch

  const Dataset& m_data;
  int m_batchSize;
  std::uint64_t m_seed;
  std::int64_t m_stepsPerEpoch;
  std::int64_t m_epoch = 0;
  std::int64_t m_stepInEpoch = 0;
  std::vector<std::uint32_t> m_order; // [N] permutation of the current epoch
};

} // namespace mantissa::data
