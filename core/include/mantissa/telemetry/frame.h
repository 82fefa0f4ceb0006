// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// One telemetry frame: every observed tensor of one training step, as
// immutable data the trainer publishes and the UI / JSONL log consume.
//
// JSON (one object per frame, compact; the GUI reads saved runs back):
//   {"step": 1200, "telemetry_ms": 1.7,
//    "tensors": [{"layer": 0, "class": "weight_grads", "scaled": true, "loss_scale": 65536,
//                 "lo": -31, "counts": [3, 0, 17, ...],   // binades lo, lo+1, ... (non-empty
//                 range) "zeros": 12, "pos_inf": 0, "neg_inf": 0, "nan": 0, "total": 802816,
//                 "cast": {"fp16": [to_zero, to_subnormal, overflow, nonzero_lost_to_zero],
//                          "bf16": [...], "fp8-e4m3": [...], "fp8-e5m2": [...],
//                          "fp8-e4m3fnuz": [...]},  // + the run's other formats
//                 "bits": 8817266201}, ...],           // optional: TensorTelemetry::bits
//    "cast_formats": ["fp8-e4m3fnuz"],                   // the run's other formats (absent when none)
//    "swamped": [0.0, 0.31, null]}                       // per layer; null = no update observed
// A tensor with no finite non-zero value has "lo": null and "counts": [].
// Limits when read: step in [0, 2^62], layer in [0, 4096], lo null or in
// [-149, 127] with lo + len(counts) - 1 <= 127 (at most 277 bins), and the
// bins plus the special counters adding up to total without overflowing 2^64.

#include <mantissa/telemetry/cast_fractions.h>
#include <mantissa/telemetry/histogram.h>

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mantissa::telemetry {

struct TensorTelemetry {
  int layer = 0;
  TensorClass cls = TensorClass::Weights;
  // true: the values as stored during backward, multiplied by lossScale (what
  // FP16 holds); false: the values the optimizer uses (unscaled).
  bool scaled = false;
  double lossScale = 1.0; // the factor of this view (1 when scaled == false)
  ExponentHistogram hist;
  std::array<CastFractions, kCastTargetCount> fractions{}; // indexed as kCastTargets
  std::vector<CastFractions> formatFractions;               // indexed as TelemetryFrame::castFormats
  // The sum of the values' FP32 bit patterns (as unsigned integers, mod
  // 2^64): equal tensors have equal sums, and a tensor in which one value
  // changed, by as little as one ULP, has another (its bits changed by
  // d != 0 with |d| < 2^32). Two runs are compared by it (train/run_diff.h).
  // Absent in logs written before it was recorded and in other trainers' logs.
  std::optional<std::uint64_t> bits;
  bool operator==(const TensorTelemetry&) const = default;
};

struct TelemetryFrame {
  std::int64_t step = 0;
  std::vector<TensorTelemetry> tensors; // in observe() order
  std::vector<double> swamped;          // [layer]: swamped update fraction; NaN if not observed
  double telemetryMs = 0.0;             // time spent computing this frame (telemetry's own cost)
  // The run's cast formats beyond the four targets (--telemetry-formats), by
  // name: each tensor's formatFractions follow this order.
  std::vector<std::string> castFormats;

  // The entry for (layer, cls, scaled), or nullptr.
  const TensorTelemetry* find(int layer, TensorClass cls, bool scaled = false) const;
};

class TelemetryJsonError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

nlohmann::json toJson(const TelemetryFrame& frame);
// Throws TelemetryJsonError naming the offending field ("tensors[3].counts:
// 280 bins starting at -149 run past exponent 127").
TelemetryFrame fromJson(const nlohmann::json& json);

} // namespace mantissa::telemetry
