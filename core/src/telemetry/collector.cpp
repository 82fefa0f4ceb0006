// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "telemetry/scan.h"

#include <mantissa/telemetry/collector.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>
#include <omp.h>
#include <stdexcept>
#include <string>
#include <vector>

namespace mantissa::telemetry {
namespace {

// Zero, normal, overflow per cast format: the view's thresholds (at most
// kMaxViewThresholds) and the counts below them.
using Thresholds = std::vector<std::uint32_t>;
using Below = std::array<std::uint64_t, kMaxViewThresholds>;
static_assert(2 * kMaxViewThresholds <= detail::kMaxThresholds);

// Threshold patterns for values that are still multiplied by 2^k (k >= 0):
// |x| / 2^k < T  <=>  |x| < T * 2^k, exact while T * 2^k is a normal float;
// past FLT_MAX only +inf is at or above it.
Thresholds scaledThresholds(const Thresholds& base, int k) {
  Thresholds t(base.size());
  for (std::size_t j = 0; j < base.size(); ++j) {
    const double v = std::ldexp(static_cast<double>(std::bit_cast<float>(base[j])), k);
    t[j] = v > std::numeric_limits<float>::max()
               ? 0x7f800000u
               : std::bit_cast<std::uint32_t>(static_cast<float>(v));
  }
  return t;
}

TensorTelemetry makeEntry(int layer, TensorClass cls, bool scaled, double lossScale,
                          const ExponentHistogram& hist, const Below& below,
                          const CastView& view, std::uint64_t bits) {
  TensorTelemetry t;
  t.bits = bits;
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
  for (std::size_t f = 0; f < view.formats.size(); ++f) {
    const std::size_t k = kCastTargetCount + f;
    CastCounts c;
    c.total = hist.total;
    c.zeros = hist.zeros;
    c.nan = hist.nan;
    c.toZero = below[3 * k];
    c.toSubnormal = below[3 * k + 1] - below[3 * k];
    c.overflow = hist.total - hist.nan - below[3 * k + 2];
    t.formatFractions.push_back(toFractions(c));
  }
  return t;
}

void checkView(const TensorScan& scan, const CastView& view, const char* call) {
  if (&scan.castView() != &view && scan.castView().thresholds != view.thresholds)
    throw std::invalid_argument(std::string("telemetry: ") + call +
                                " of counts taken against other cast formats than the "
                                "collector's (take them into emptyScan())");
}
// k when s == 2^k with 0 <= k <= 127, else -1.
int powerOfTwoExponent(float s) {
  int e = 0;
  const float m = std::frexp(s, &e);
  return (m == 0.5f && e - 1 >= 0 && e - 1 <= 127) ? e - 1 : -1;
}

// Threads for a tensor of n values: tensors of kParallelMin values or more
// are cut in contiguous parts for the calling thread's OpenMP team.
constexpr std::size_t kParallelMin = std::size_t{1} << 16;
int workersFor(std::size_t n) {
  if (n < kParallelMin)
    return 1;
  return std::clamp(omp_get_max_threads(), 1, TelemetryCollector::kMaxWorkers);
}

// detail::scan, the values cut in workersFor() parts scanned at once.
void scanSplit(std::span<const float> values, float scale,
               std::span<const std::uint32_t> thresholds, ExponentHistogram& hist,
               std::span<std::uint64_t> below, std::uint64_t& bits) {
  const int workers = workersFor(values.size());
  if (workers == 1) {
    detail::scan(values, scale, thresholds, hist, below, &bits);
    return;
  }
  std::array<std::uint64_t, TelemetryCollector::kMaxWorkers> sums{};
  std::array<ExponentHistogram, TelemetryCollector::kMaxWorkers> hists;
  std::array<std::array<std::uint64_t, detail::kMaxThresholds>, TelemetryCollector::kMaxWorkers>
      belows{};
#pragma omp parallel num_threads(workers)
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const auto nt = static_cast<std::size_t>(omp_get_num_threads());
    const std::size_t n = values.size();
    const std::size_t begin = n * t / nt, end = n * (t + 1) / nt;
    detail::scan(values.subspan(begin, end - begin), scale, thresholds, hists[t],
                 std::span(belows[t]).first(thresholds.size()), &sums[t]);
  }
  for (std::size_t t = 0; t < hists.size(); ++t) {
    hist += hists[t];
    bits += sums[t];
    for (std::size_t j = 0; j < thresholds.size(); ++j)
      below[j] += belows[t][j];
  }
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

// FP32 lanes whose weight is inf or NaN, which the optimizer's unchanged
// count (u != 0 and w + u == w) and the finite non-zero update count take in
// but the swamping fraction does not (see swampCounts): what to take off.
SwampCounts nonFiniteWeightLanes(std::span<const float> w, std::span<const float> u) {
  SwampCounts c;
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (std::isfinite(w[i]) || u[i] == 0.0f)
      continue;
    c.eligible += std::isfinite(u[i]) ? 1 : 0;
    c.swamped += w[i] + u[i] == w[i] ? 1 : 0;
  }
  return c;
}

} // namespace

// One layer's weights, gradients and updates between beginParameters() and
// endParameters(): per worker a Scanner per tensor, the swamping counts and
// the time spent.
struct TelemetryCollector::ParameterScan {
  struct Part {
    detail::Scanner weights{builtinCastView()->thresholds}, grads{builtinCastView()->thresholds},
        updates{builtinCastView()->thresholds};
    SwampCounts swamp; // per block; or, from the unchanged count, what to take off it
    double ms = 0.0;
  };
  int layer = -1; // -1: no layer open
  DType working = DType::F32;
  bool withWeights = true;
  bool withGrads = false;
  // Else the caller's unchanged count is the swamped count, less the lanes
  // of non-finite weights (nonFiniteWeightLanes) in blocks that may hold them.
  bool swampPerBlock = true;
  TensorScan counted;            // weights counted apart (addWeightCounts)
  bool countedNonFinite = false; // ... holding an inf or NaN
  std::array<Part, kMaxWorkers> parts;

  void block(Part& p, std::span<const float> w, std::span<const float> g, std::span<const float> u,
             bool countWeights) const {
    bool mayHoldNonFinite = countedNonFinite;
    if (withWeights && countWeights) {
      const std::uint64_t before = p.weights.nonFinite();
      p.weights.add(w);
      mayHoldNonFinite = p.weights.nonFinite() != before;
    }
    if (withGrads)
      p.grads.add(g);
    p.updates.add(u);
    if (!swampPerBlock) {
      if (mayHoldNonFinite) { // rare: a diverging run
        const SwampCounts c = nonFiniteWeightLanes(w, u);
        p.swamp.eligible += c.eligible;
        p.swamp.swamped += c.swamped;
      }
      return;
    }
    const SwampCounts c = swampCounts(w, u, working);
    p.swamp.eligible += c.eligible;
    p.swamp.swamped += c.swamped;
  }
};

void TelemetryCollector::setCastFormats(std::span<const numeric::FloatFormat> formats) {
  if (m_parameters->layer >= 0)
    throw std::logic_error("telemetry: setCastFormats() between beginParameters() and "
                           "endParameters()");
  m_view = makeCastView(formats);
  for (auto& part : m_parameters->parts) {
    part.weights = detail::Scanner(m_view->thresholds);
    part.grads = detail::Scanner(m_view->thresholds);
    part.updates = detail::Scanner(m_view->thresholds);
  }
}

TensorScan TelemetryCollector::emptyScan() const {
  TensorScan scan;
  scan.view = m_view;
  return scan;
}

TelemetryCollector::TelemetryCollector(int cadence)
    : m_cadence(cadence), m_view(builtinCastView()),
      m_parameters(std::make_unique<ParameterScan>()) {
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

void TelemetryCollector::observeAll(std::span<const Observed> items) {
  for (const Observed& item : items)
    checkLayer(item.layer);
  ScopedTimer timer(m_frame.telemetryMs);
  const Thresholds& kBase = m_view->thresholds;
  const std::size_t n = items.size();
  std::size_t total = 0;
  for (const Observed& item : items)
    total += item.values.size();
  const int workers = workersFor(total);
  // Pieces of about kPiece values, taken by the team's threads one at a
  // time: a run of whole small items, or a part of a large one (counted
  // apart, added to its item after the region). A thread that wakes late
  // (passive waiting) leaves more pieces to the others instead of making
  // them wait for its half.
  constexpr std::size_t kPiece = std::size_t{1} << 16;
  struct Piece {
    std::size_t first, last; // items [first, last) whole, or item `first`'s values [begin, end)
    std::size_t begin = 0, end = 0;
    std::size_t part = 0; // its counts' index among the parts
  };
  std::vector<Piece> pieces;
  std::size_t parts = 0;
  for (std::size_t i = 0; i < n;) {
    const std::size_t size = items[i].values.size();
    if (size > kPiece) {
      const std::size_t cuts = (size + kPiece - 1) / kPiece;
      for (std::size_t k = 0; k < cuts; ++k)
        pieces.push_back({i, i, size * k / cuts, size * (k + 1) / cuts, parts++});
      ++i;
      continue;
    }
    std::size_t last = i, values = 0;
    while (last < n && items[last].values.size() <= kPiece && values < kPiece)
      values += items[last++].values.size();
    pieces.push_back({i, last});
    i = last;
  }
  std::vector<ExponentHistogram> hists(n), partHists(parts);
  std::vector<Below> belows(n, Below{}), partBelows(parts, Below{});
  std::vector<std::uint64_t> sums(n, 0), partSums(parts, 0);
  const auto scanPiece = [&](const Piece& p) {
    if (p.last == p.first) {
      detail::scan(items[p.first].values.subspan(p.begin, p.end - p.begin), 1.0f, kBase,
                   partHists[p.part], std::span(partBelows[p.part]).first(kBase.size()),
                   &partSums[p.part]);
      return;
    }
    for (std::size_t i = p.first; i < p.last; ++i)
      detail::scan(items[i].values, 1.0f, kBase, hists[i],
                   std::span(belows[i]).first(kBase.size()), &sums[i]);
  };
  if (workers == 1) {
    for (const Piece& p : pieces)
      scanPiece(p);
  } else {
    const auto count = static_cast<long>(pieces.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(workers)
    for (long k = 0; k < count; ++k)
      scanPiece(pieces[static_cast<std::size_t>(k)]);
  }
  for (const Piece& p : pieces) {
    if (p.last != p.first)
      continue;
    hists[p.first] += partHists[p.part];
    sums[p.first] += partSums[p.part];
    for (std::size_t j = 0; j < kBase.size(); ++j)
      belows[p.first][j] += partBelows[p.part][j];
  }
  for (std::size_t i = 0; i < n; ++i)
    m_frame.tensors.push_back(
        makeEntry(items[i].layer, items[i].cls, false, 1.0, hists[i], belows[i], *m_view, sums[i]));
}

void TelemetryCollector::observe(int layer, TensorClass cls, std::span<const float> values,
                                 float lossScale) {
  checkLayer(layer);
  if (!(lossScale > 0.0f) || !std::isfinite(lossScale))
    throw std::invalid_argument("telemetry: loss scale must be a positive finite number, got " +
                                std::to_string(lossScale));
  ScopedTimer timer(m_frame.telemetryMs);
  const Thresholds& kBase = m_view->thresholds;

  if (lossScale == 1.0f) {
    ExponentHistogram hist;
    Below below{};
    std::uint64_t bits = 0;
    scanSplit(values, 1.0f, kBase, hist, std::span(below).first(kBase.size()), bits);
    m_frame.tensors.push_back(makeEntry(layer, cls, false, 1.0, hist, below, *m_view, bits));
    return;
  }

  const int k = powerOfTwoExponent(lossScale);
  if (k >= 0) {
    // One pass, both views (see collector.h).
    const std::size_t m = kBase.size();
    Thresholds thresholds = kBase;
    const Thresholds up = scaledThresholds(kBase, k);
    thresholds.insert(thresholds.end(), up.begin(), up.end());
    std::array<std::uint64_t, 2 * kMaxViewThresholds> below{};
    ExponentHistogram hist;
    std::uint64_t bits = 0;
    scanSplit(values, 1.0f, thresholds, hist, std::span(below).first(2 * m), bits);

    bool exact = true; // no non-zero |x| / 2^k below 2^-126
    for (int e = ExponentHistogram::kMinExponent; e < -126 + k && exact; ++e)
      exact = hist.count(e) == 0;
    Below scaledBelow{}, unscaledBelow{};
    std::copy(below.begin(), below.begin() + std::ptrdiff_t(m), scaledBelow.begin());
    std::copy(below.begin() + std::ptrdiff_t(m), below.begin() + std::ptrdiff_t(2 * m),
              unscaledBelow.begin());
    m_frame.tensors.push_back(
        makeEntry(layer, cls, true, lossScale, hist, scaledBelow, *m_view, bits));
    if (exact) {
      // Every finite non-zero value is normal in both views (exact): its
      // unscaled bit pattern is its own less k in the exponent field.
      const std::uint64_t unscaledBits =
          bits - hist.finiteNonZero() * (static_cast<std::uint64_t>(k) << 23);
      ExponentHistogram shifted = hist;
      shifted.bins.fill(0);
      for (int e = -126 + k; e <= ExponentHistogram::kMaxExponent; ++e)
        shifted.bins[static_cast<std::size_t>(ExponentHistogram::index(e - k))] = hist.count(e);
      m_frame.tensors.push_back(
          makeEntry(layer, cls, false, 1.0, shifted, unscaledBelow, *m_view, unscaledBits));
      return;
    }
    ExponentHistogram unscaled;
    Below again{};
    std::uint64_t unscaledBits = 0;
    scanSplit(values, 1.0f / lossScale, kBase, unscaled, std::span(again).first(kBase.size()),
              unscaledBits);
    m_frame.tensors.push_back(
        makeEntry(layer, cls, false, 1.0, unscaled, again, *m_view, unscaledBits));
    return;
  }

  // General scale: two passes, the second over x * (1/S) in FP32.
  ExponentHistogram hist, unscaled;
  Below below{}, again{};
  std::uint64_t bits = 0, unscaledBits = 0;
  scanSplit(values, 1.0f, kBase, hist, std::span(below).first(kBase.size()), bits);
  scanSplit(values, 1.0f / lossScale, kBase, unscaled, std::span(again).first(kBase.size()),
            unscaledBits);
  m_frame.tensors.push_back(makeEntry(layer, cls, true, lossScale, hist, below, *m_view, bits));
  m_frame.tensors.push_back(
      makeEntry(layer, cls, false, 1.0, unscaled, again, *m_view, unscaledBits));
}

void TelemetryCollector::record(int layer, TensorClass cls, const TensorScan& scan) {
  checkLayer(layer);
  checkView(scan, *m_view, "record()");
  m_frame.tensors.push_back(
      makeEntry(layer, cls, false, 1.0, scan.hist, scan.below, *m_view, scan.bits));
}

void TelemetryCollector::observeUpdate(int layer, std::span<const float> weights,
                                       std::span<const float> updates, DType working) {
  checkLayer(layer);
  if (weights.size() != updates.size())
    (void)swampCounts(weights, updates, working); // throws the size message
  if (m_parameters->layer >= 0)
    throw std::logic_error("telemetry: observeUpdate() between beginParameters() and "
                           "endParameters()");
  ParameterScan& p = *m_parameters;
  p.layer = layer;
  p.working = working;
  p.withWeights = false;
  p.withGrads = false;
  p.swampPerBlock = true;
  p.counted = emptyScan();
  p.countedNonFinite = false;
  {
    ScopedTimer timer(m_frame.telemetryMs);
    // One walk over the updates: each block is histogrammed and then checked
    // for swamping while it is still in cache (128 KiB of updates per block).
    constexpr std::size_t kBlock = std::size_t{1} << 15;
    for (std::size_t off = 0; off < updates.size(); off += kBlock) {
      const std::size_t n = std::min(kBlock, updates.size() - off);
      p.block(p.parts[0], weights.subspan(off, n), {}, updates.subspan(off, n), true);
    }
  }
  endParameters();
}

void TelemetryCollector::beginParameters(int layer, DType working, bool withWeights, bool withGrads,
                                         bool unchangedGiven) {
  checkLayer(layer);
  ParameterScan& p = *m_parameters;
  if (p.layer >= 0)
    throw std::logic_error("telemetry: beginParameters(" + std::to_string(layer) +
                           ") before endParameters() of layer " + std::to_string(p.layer));
  p.layer = layer;
  p.working = working;
  p.withWeights = withWeights;
  p.withGrads = withGrads;
  p.counted = emptyScan();
  p.countedNonFinite = false;
  // In FP32, for a finite w, w + u == w holds for no inf or NaN u: the
  // optimizer's unchanged count is then exactly the swamped count, and the
  // lanes of non-finite weights are taken off it block by block. That needs
  // to know which blocks may hold them: the blocks' own weights when they are
  // scanned here, else the layer's Weights entry observed earlier.
  const TensorTelemetry* weights = m_frame.find(layer, TensorClass::Weights, false);
  const bool weightsKnown = withWeights || weights != nullptr;
  p.swampPerBlock = !(unchangedGiven && working == DType::F32 && weightsKnown);
  if (!withWeights && weights != nullptr)
    p.countedNonFinite = weights->hist.posInf + weights->hist.negInf + weights->hist.nan != 0;
}

void TelemetryCollector::addWeightCounts(const TensorScan& counts) {
  checkView(counts, *m_view, "addWeightCounts()");
  ParameterScan& p = *m_parameters;
  if (p.layer < 0 || !p.withWeights)
    throw std::logic_error("telemetry: addWeightCounts() needs beginParameters() with weights");
  p.counted += counts;
  p.countedNonFinite = p.counted.hist.posInf + p.counted.hist.negInf + p.counted.hist.nan != 0;
}

void TelemetryCollector::observeParameterBlock(int worker, std::span<const float> weights,
                                               std::span<const float> grads,
                                               std::span<const float> updates, bool countWeights) {
  ParameterScan& p = *m_parameters;
  if (p.layer < 0)
    throw std::logic_error("telemetry: observeParameterBlock() without beginParameters()");
  if (worker < 0 || worker >= kMaxWorkers)
    throw std::invalid_argument("telemetry: worker " + std::to_string(worker) +
                                " out of range 0.." + std::to_string(kMaxWorkers - 1));
  if (weights.size() != updates.size() || (p.withGrads && grads.size() != weights.size())) {
    std::string message = "telemetry: parameter block of layer ";
    message.append(std::to_string(p.layer)).append(" has ");
    message.append(std::to_string(weights.size())).append(" weights, ");
    message.append(std::to_string(grads.size())).append(" gradients and ");
    message.append(std::to_string(updates.size())).append(" updates");
    throw std::invalid_argument(message);
  }
  auto& part = p.parts[static_cast<std::size_t>(worker)];
  ScopedTimer timer(part.ms);
  p.block(part, weights, grads, updates, countWeights);
}

void TelemetryCollector::endParameters(std::optional<std::uint64_t> unchanged) {
  ParameterScan& p = *m_parameters;
  if (p.layer < 0)
    throw std::logic_error("telemetry: endParameters() without beginParameters()");
  if (!p.swampPerBlock && !unchanged)
    throw std::logic_error("telemetry: endParameters() of layer " + std::to_string(p.layer) +
                           " needs the unchanged-update count promised to beginParameters()");
  // The workers ran side by side: the slowest one is what the step waited for.
  double slowest = 0.0;
  for (auto& part : p.parts) {
    slowest = std::max(slowest, part.ms);
    part.ms = 0.0;
  }
  m_frame.telemetryMs += slowest;
  ScopedTimer timer(m_frame.telemetryMs);
  const auto record = [&](detail::Scanner ParameterScan::Part::*scanner, TensorClass cls,
                          const TensorScan* apart) {
    ExponentHistogram hist;
    Below below{};
    const std::size_t m = m_view->thresholds.size();
    std::uint64_t bits = 0;
    for (auto& part : p.parts)
      (part.*scanner).finish(hist, std::span(below).first(m), &bits);
    if (apart != nullptr) {
      hist += apart->hist;
      bits += apart->bits;
      for (std::size_t j = 0; j < m; ++j)
        below[j] += apart->below[j];
    }
    m_frame.tensors.push_back(makeEntry(p.layer, cls, false, 1.0, hist, below, *m_view, bits));
    return hist.finiteNonZero();
  };
  if (p.withWeights)
    record(&ParameterScan::Part::weights, TensorClass::Weights, &p.counted);
  if (p.withGrads)
    record(&ParameterScan::Part::grads, TensorClass::WeightGrads, nullptr);
  const std::uint64_t finiteNonZeroUpdates =
      record(&ParameterScan::Part::updates, TensorClass::Updates, nullptr);
  SwampCounts swamp;
  for (auto& part : p.parts) {
    swamp.eligible += part.swamp.eligible;
    swamp.swamped += part.swamp.swamped;
    part.swamp = {};
  }
  if (!p.swampPerBlock) // less the lanes of non-finite weights, counted block by block
    swamp = SwampCounts{finiteNonZeroUpdates - swamp.eligible, *unchanged - swamp.swamped};
  setSwamped(p.layer, swamp.eligible, swamp.swamped);
  p.layer = -1;
}

void TelemetryCollector::recordParameters(int layer, const TensorScan& weights,
                                          const TensorScan& updates, std::uint64_t unchanged) {
  checkLayer(layer);
  if (m_parameters->layer >= 0)
    throw std::logic_error("telemetry: recordParameters() between beginParameters() and "
                           "endParameters()");
  checkView(weights, *m_view, "recordParameters()");
  checkView(updates, *m_view, "recordParameters()");
  const ExponentHistogram& w = weights.hist;
  if (w.posInf + w.negInf + w.nan != 0)
    throw std::invalid_argument("telemetry: recordParameters() of layer " + std::to_string(layer) +
                                " needs finite weights: the unchanged count is the swamped "
                                "count only beside finite weights");
  m_frame.tensors.push_back(
      makeEntry(layer, TensorClass::Weights, false, 1.0, w, weights.below, *m_view, weights.bits));
  m_frame.tensors.push_back(makeEntry(layer, TensorClass::Updates, false, 1.0, updates.hist,
                                      updates.below, *m_view, updates.bits));
  setSwamped(layer, updates.hist.finiteNonZero(), unchanged);
}

void TelemetryCollector::setSwamped(int layer, std::uint64_t eligible, std::uint64_t swamped) {
  auto& fractions = m_frame.swamped;
  if (fractions.size() <= static_cast<std::size_t>(layer))
    fractions.resize(static_cast<std::size_t>(layer) + 1, std::numeric_limits<double>::quiet_NaN());
  fractions[static_cast<std::size_t>(layer)] =
      eligible == 0 ? 0.0 : static_cast<double>(swamped) / static_cast<double>(eligible);
}

std::shared_ptr<const TelemetryFrame> TelemetryCollector::finish(std::int64_t step,
                                                                 std::optional<double> costMs) {
  auto frame = std::make_shared<TelemetryFrame>(std::move(m_frame));
  frame->step = step;
  for (const numeric::FloatFormat& f : m_view->formats)
    frame->castFormats.push_back(f.name);
  if (costMs)
    frame->telemetryMs = *costMs;
  m_frame = TelemetryFrame{};
  m_frame.tensors.reserve(frame->tensors.size());
  return frame;
}

} // namespace mantissa::telemetry
