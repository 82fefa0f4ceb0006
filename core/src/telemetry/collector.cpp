// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "telemetry/scan.h"

#include <mantissa/telemetry/collector.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace mantissa::telemetry {
namespace {

constexpr std::size_t kPerView = 3 * kCastTargetCount; // zero, normal, overflow per target
using Thresholds = std::array<std::uint32_t, kPerView>;
using Below = std::array<std::uint64_t, kPerView>;

Thresholds baseThresholds() {
  Thresholds t{};
  for (std::size_t k = 0; k < kCastTargetCount; ++k) {
    const CastThresholds c = castThresholds(kCastTargets[k]);
    t[3 * k] = c.zeroBelow;
    t[3 * k + 1] = c.normalBelow;
    t[3 * k + 2] = c.overflowFrom;
  }
  return t;
}

// The thresholds of the unscaled view: every target's zero, normal, overflow.
const Thresholds& base() {
  static const Thresholds kBase = baseThresholds();
  return kBase;
}

// Threshold patterns for values that are still multiplied by 2^k (k >= 0):
// |x| / 2^k < T  <=>  |x| < T * 2^k, exact while T * 2^k is a normal float;
// past FLT_MAX only +inf is at or above it.
Thresholds scaledThresholds(const Thresholds& base, int k) {
  Thresholds t{};
  for (std::size_t j = 0; j < kPerView; ++j) {
    const double v = std::ldexp(static_cast<double>(std::bit_cast<float>(base[j])), k);
    t[j] = v > std::numeric_limits<float>::max()
               ? 0x7f800000u
               : std::bit_cast<std::uint32_t>(static_cast<float>(v));
  }
  return t;
}

TensorTelemetry makeEntry(int layer, TensorClass cls, bool scaled, double lossScale,
                          const ExponentHistogram& hist, const Below& below) {
  TensorTelemetry t;
  t.layer = layer;
  t.cls = cls;
  t.scaled = scaled;
  t.lossScale = lossScale;
  t.hist = hist;
  for (std::size_t k = 0; k < kCastTargetCount; ++k) {
    CastCounts c;
    c.total = hist.total;
    c.zeros = hist.zeros;
    c.nan = hist.nan;
    c.toZero = below[3 * k];
    c.toSubnormal = below[3 * k + 1] - below[3 * k];
    c.overflow = hist.total - hist.nan - below[3 * k + 2];
    t.fractions[k] = toFractions(c);
  }
  return t;
}

// k when s == 2^k with 0 <= k <= 127, else -1.
int powerOfTwoExponent(float s) {
  int e = 0;
  const float m = std::frexp(s, &e);
  return (m == 0.5f && e - 1 >= 0 && e - 1 <= 127) ? e - 1 : -1;
}

class ScopedTimer {
public:
  explicit ScopedTimer(double& sinkMs)
      : m_sinkMs(sinkMs), m_start(std::chrono::steady_clock::now()) {}
  ~ScopedTimer() {
    m_sinkMs +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_start)
            .count();
  }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

private:
  double& m_sinkMs;
  std::chrono::steady_clock::time_point m_start;
};

} // namespace

// One layer's weights, gradients and updates between beginParameters() and
// endParameters(): a Scanner per tensor and the swamping counts.
struct TelemetryCollector::ParameterScan {
  int layer = -1; // -1: no layer open
  DType working = DType::F32;
  bool withWeights = true;
  bool withGrads = false;
  detail::Scanner weights{base()}, grads{base()}, updates{base()};
  SwampCounts swamp;

  void block(std::span<const float> w, std::span<const float> g, std::span<const float> u) {
    if (withWeights)
      weights.add(w);
    if (withGrads)
      grads.add(g);
    updates.add(u);
    const SwampCounts part = swampCounts(w, u, working);
    swamp.eligible += part.eligible;
    swamp.swamped += part.swamped;
  }
};

TelemetryCollector::TelemetryCollector(int cadence)
    : m_cadence(cadence), m_parameters(std::make_unique<ParameterScan>()) {
  if (cadence < 0)
    throw std::invalid_argument("telemetry cadence must be >= 0 (0 = off), got " +
                                std::to_string(cadence));
}

TelemetryCollector::~TelemetryCollector() = default;
TelemetryCollector::TelemetryCollector(TelemetryCollector&&) noexcept = default;
TelemetryCollector& TelemetryCollector::operator=(TelemetryCollector&&) noexcept = default;

void TelemetryCollector::checkLayer(int layer) const {
  if (layer < 0)
    throw std::invalid_argument("telemetry: layer index must be >= 0, got " +
                                std::to_string(layer));
}

void TelemetryCollector::observe(int layer, TensorClass cls, std::span<const float> values,
                                 float lossScale) {
  checkLayer(layer);
  if (!(lossScale > 0.0f) || !std::isfinite(lossScale))
    throw std::invalid_argument("telemetry: loss scale must be a positive finite number, got " +
                                std::to_string(lossScale));
  ScopedTimer timer(m_frame.telemetryMs);
  const Thresholds& kBase = base();

  if (lossScale == 1.0f) {
    ExponentHistogram hist;
    Below below{};
    detail::scan(values, 1.0f, kBase, hist, below);
    m_frame.tensors.push_back(makeEntry(layer, cls, false, 1.0, hist, below));
    return;
  }

  const int k = powerOfTwoExponent(lossScale);
  if (k >= 0) {
    // One pass, both views (see collector.h).
    std::array<std::uint32_t, 2 * kPerView> thresholds{};
    const Thresholds up = scaledThresholds(kBase, k);
    std::copy(kBase.begin(), kBase.end(), thresholds.begin());
    std::copy(up.begin(), up.end(), thresholds.begin() + kPerView);
    std::array<std::uint64_t, 2 * kPerView> below{};
    ExponentHistogram hist;
    detail::scan(values, 1.0f, thresholds, hist, below);

    bool exact = true; // no non-zero |x| / 2^k below 2^-126
    for (int e = ExponentHistogram::kMinExponent; e < -126 + k && exact; ++e)
      exact = hist.count(e) == 0;
    Below scaledBelow{}, unscaledBelow{};
    std::copy(below.begin(), below.begin() + kPerView, scaledBelow.begin());
    std::copy(below.begin() + kPerView, below.end(), unscaledBelow.begin());
    m_frame.tensors.push_back(makeEntry(layer, cls, true, lossScale, hist, scaledBelow));
    if (exact) {
      ExponentHistogram shifted = hist;
      shifted.bins.fill(0);
      for (int e = -126 + k; e <= ExponentHistogram::kMaxExponent; ++e)
        shifted.bins[static_cast<std::size_t>(ExponentHistogram::index(e - k))] = hist.count(e);
      m_frame.tensors.push_back(makeEntry(layer, cls, false, 1.0, shifted, unscaledBelow));
      return;
    }
    ExponentHistogram unscaled;
    Below again{};
    detail::scan(values, 1.0f / lossScale, kBase, unscaled, again);
    m_frame.tensors.push_back(makeEntry(layer, cls, false, 1.0, unscaled, again));
    return;
  }

  // General scale: two passes, the second over x * (1/S) in FP32.
  ExponentHistogram hist, unscaled;
  Below below{}, again{};
  detail::scan(values, 1.0f, kBase, hist, below);
  detail::scan(values, 1.0f / lossScale, kBase, unscaled, again);
  m_frame.tensors.push_back(makeEntry(layer, cls, true, lossScale, hist, below));
  m_frame.tensors.push_back(makeEntry(layer, cls, false, 1.0, unscaled, again));
}

void TelemetryCollector::observeUpdate(int layer, std::span<const float> weights,
                                       std::span<const float> updates, DType working) {
  checkLayer(layer);
  if (weights.size() != updates.size())
    (void)swampCounts(weights, updates, working); // throws the size message
  if (m_parameters->layer >= 0)
    throw std::logic_error("telemetry: observeUpdate() between beginParameters() and "
                           "endParameters()");
  ScopedTimer timer(m_frame.telemetryMs);
  ParameterScan& p = *m_parameters;
  p.layer = layer;
  p.working = working;
  p.withWeights = false;
  p.withGrads = false;
  // One walk over the updates: each block is histogrammed and then checked
  // for swamping while it is still in cache (128 KiB of updates per block).
  constexpr std::size_t kBlock = std::size_t{1} << 15;
  for (std::size_t off = 0; off < updates.size(); off += kBlock) {
    const std::size_t n = std::min(kBlock, updates.size() - off);
    p.block(weights.subspan(off, n), {}, updates.subspan(off, n));
  }
  endParameters();
}

void TelemetryCollector::beginParameters(int layer, DType working, bool withGrads) {
  checkLayer(layer);
  ParameterScan& p = *m_parameters;
  if (p.layer >= 0)
    throw std::logic_error("telemetry: beginParameters(" + std::to_string(layer) +
                           ") before endParameters() of layer " + std::to_string(p.layer));
  p.layer = layer;
  p.working = working;
  p.withWeights = true;
  p.withGrads = withGrads;
}

void TelemetryCollector::observeParameterBlock(std::span<const float> weights,
                                               std::span<const float> grads,
                                               std::span<const float> updates) {
  ParameterScan& p = *m_parameters;
  if (p.layer < 0)
    throw std::logic_error("telemetry: observeParameterBlock() without beginParameters()");
  if (weights.size() != updates.size() || (p.withGrads && grads.size() != weights.size())) {
    std::string message = "telemetry: parameter block of layer ";
    message.append(std::to_string(p.layer)).append(" has ");
    message.append(std::to_string(weights.size())).append(" weights, ");
    message.append(std::to_string(grads.size())).append(" gradients and ");
    message.append(std::to_string(updates.size())).append(" updates");
    throw std::invalid_argument(message);
  }
  ScopedTimer timer(m_frame.telemetryMs);
  p.block(weights, grads, updates);
}

void TelemetryCollector::endParameters() {
  ParameterScan& p = *m_parameters;
  if (p.layer < 0)
    throw std::logic_error("telemetry: endParameters() without beginParameters()");
  ScopedTimer timer(m_frame.telemetryMs);
  const auto record = [&](detail::Scanner& scanner, TensorClass cls) {
    ExponentHistogram hist;
    Below below{};
    scanner.finish(hist, below);
    m_frame.tensors.push_back(makeEntry(p.layer, cls, false, 1.0, hist, below));
  };
  if (p.withWeights)
    record(p.weights, TensorClass::Weights);
  if (p.withGrads)
    record(p.grads, TensorClass::WeightGrads);
  record(p.updates, TensorClass::Updates);
  setSwamped(p.layer, p.swamp.eligible, p.swamp.swamped);
  p.swamp = {};
  p.layer = -1;
}

void TelemetryCollector::setSwamped(int layer, std::uint64_t eligible, std::uint64_t swamped) {
  auto& fractions = m_frame.swamped;
  if (fractions.size() <= static_cast<std::size_t>(layer))
    fractions.resize(static_cast<std::size_t>(layer) + 1, std::numeric_limits<double>::quiet_NaN());
  fractions[static_cast<std::size_t>(layer)] =
      eligible == 0 ? 0.0 : static_cast<double>(swamped) / static_cast<double>(eligible);
}

std::shared_ptr<const TelemetryFrame> TelemetryCollector::finish(std::int64_t step) {
  auto frame = std::make_shared<TelemetryFrame>(std::move(m_frame));
  frame->step = step;
  m_frame = TelemetryFrame{};
  m_frame.tensors.reserve(frame->tensors.size());
  return frame;
}

} // namespace mantissa::telemetry
