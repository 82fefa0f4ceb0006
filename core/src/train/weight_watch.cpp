// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/train/weight_watch.h>

#include <mantissa/model/network.h>
#include <mantissa/numeric/convert.h>
#include <mantissa/train/session.h>

#include <bit>
#include <cmath>
#include <span>

namespace mantissa::train {

namespace {

std::uint32_t bitsIn(DType dtype, float value) {
  switch (dtype) {
  case DType::BF16: return numeric::f32ToBf16(value);
  case DType::F16: return numeric::f32ToF16(value);
  case DType::F32: break;
  }
  return std::bit_cast<std::uint32_t>(value);
}

} // namespace

std::int64_t findInBinade(const model::Network& net, int layer, telemetry::TensorClass cls,
                          int exponent) {
  if (layer < 0 || layer >= net.layers())
    return -1;
  const std::span<const float> values =
      cls == telemetry::TensorClass::WeightGrads ? net.grads()[std::size_t(layer)].w.f32()
                                                 : net.params()[std::size_t(layer)].w.f32();
  for (std::size_t i = 0; i < values.size(); ++i)
    if (std::isfinite(values[i]) && values[i] != 0.0f && telemetry::binadeOf(values[i]) == exponent)
      return std::int64_t(i);
  return -1;
}

std::optional<WatchSample> WeightWatch::sample(const Session& session, const StepReport& report,
                                               int layer, std::int64_t index) {
  const model::Network& net = session.model();
  if (layer < 0 || layer >= net.layers() || index < 0)
    return std::nullopt;
  const std::span<const float> w = net.params()[std::size_t(layer)].w.f32();
  const std::span<const float> g = net.grads()[std::size_t(layer)].w.f32();
  if (std::size_t(index) >= w.size() || std::size_t(index) >= g.size())
    return std::nullopt;
  const amp::Recipe& recipe = session.recipe();
  WatchSample s;
  s.layer = layer;
  s.index = index;
  s.master = w[std::size_t(index)];
  s.hasMaster = recipe.masterWeights;
  s.working = recipe.masterWeights ? recipe.matmulInputs : recipe.weights;
  s.workingBits = bitsIn(s.working, s.master);
  s.gradient = g[std::size_t(index)];
  const bool same = m_previous && m_previous->layer == layer && m_previous->index == index;
  s.swamped = same && !report.skipped && s.gradient != 0.0f && std::isfinite(s.gradient) &&
              std::bit_cast<std::uint32_t>(s.master) == std::bit_cast<std::uint32_t>(m_previous->master);
  s.swampedSoFar = (same ? m_previous->swampedSoFar : 0) + (s.swamped ? 1 : 0);
  m_previous = s;
  return s;
}

} // namespace mantissa::train
