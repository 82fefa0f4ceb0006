// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/data/batcher.h>

#include "data/rng.h"

#include <mantissa/tensor/run_state.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace mantissa::data {

Batcher::Batcher(const Dataset& data, int batchSize, std::uint64_t seed)
    : m_data(data), m_batchSize(batchSize), m_seed(seed) {
  if (batchSize < 1 || static_cast<std::size_t>(batchSize) > data.size())
    throw std::invalid_argument("batch size " + std::to_string(batchSize) + " must be in [1, " +
                                std::to_string(data.size()) + "], the size of '" + data.name + "'");
  if (data.size() > UINT32_MAX)
    throw std::invalid_argument("data set '" + data.name + "' has over 2^32 samples");
  m_stepsPerEpoch = static_cast<std::int64_t>(data.size()) / batchSize;
  m_order.resize(data.size());
  shuffle();
}

void Batcher::visitState(RunStateVisitor& v) {
  const std::int64_t epoch = m_epoch;
  v.value("epoch", m_epoch);
  v.value("step_in_epoch", m_stepInEpoch);
  if (m_epoch < 0 || m_stepInEpoch < 0 || m_stepInEpoch > m_stepsPerEpoch)
    throw std::invalid_argument("batcher: epoch " + std::to_string(m_epoch) + ", step " +
                                std::to_string(m_stepInEpoch) + " is outside an epoch of " +
                                std::to_string(m_stepsPerEpoch) + " steps");
  if (m_epoch != epoch)
    shuffle();
}

void Batcher::shuffle() {
  // Fisher-Yates from the identity, so epoch e's order depends on (seed, e) only.
  std::iota(m_order.begin(), m_order.end(), 0u);
  detail::SplitMix64 rng(detail::mixSeed(m_seed, static_cast<std::uint64_t>(m_epoch)));
  for (std::size_t i = m_order.size() - 1; i > 0; --i)
    std::swap(m_order[i], m_order[rng.below(i + 1)]);
}

void Batcher::next(std::span<float> x, std::span<std::int32_t> y) {
  const auto f = static_cast<std::size_t>(m_data.features);
  const auto b = static_cast<std::size_t>(m_batchSize);
  if (x.size() != b * f || y.size() != b)
    throw std::invalid_argument("Batcher::next: buffers hold " + std::to_string(x.size()) + " and " +
                                std::to_string(y.size()) + " values, expected " +
                                std::to_string(b * f) + " and " + std::to_string(b));
  if (m_stepInEpoch == m_stepsPerEpoch) { // epoch over; the partial rest is dropped
    ++m_epoch;
    m_stepInEpoch = 0;
    shuffle();
  }
  const std::size_t first = static_cast<std::size_t>(m_stepInEpoch) * b;
  for (std::size_t i = 0; i < b; ++i) {
    const std::size_t s = m_order[first + i];
    std::copy_n(m_data.x.begin() + static_cast<std::ptrdiff_t>(s * f), f,
                x.begin() + static_cast<std::ptrdiff_t>(i * f));
    y[i] = m_data.y[s];
  }
  ++m_stepInEpoch;
}

} // namespace mantissa::data
