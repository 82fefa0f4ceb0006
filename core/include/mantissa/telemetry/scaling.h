// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Scaling telemetry: what an FP8 / microscaling recipe did to every tensor it
// scaled, step by step. One ScaledTensorStats per quantized matmul operand
// (X, W or dY of one linear layer) per step; a ScalingFrame holds one step.
//
// Scale convention (Transformer Engine's): `scale` multiplies the tensor into
// the element format, value ~= element / scale, so a larger scale means the
// tensor was magnified. Per-tensor recipes have one scale:
//   fp8-delayed  scale = (FP8_MAX / amax_h) / 2^margin, amax_h the maximum (or
//                most recent) amax over the history window, computed at the
//                end of the previous step (1 on the first step, and kept when
//                amax_h is 0 or not finite)
//   fp8-current  scale = FP8_MAX / amax of this very tensor (1 if amax is 0)
// Block recipes (fp8-block, mxfp8, nvfp4) have one scale per block: `scale`
// is then the median of the block scales and scaleMin / scaleMax their range
// (same convention: 1 / the block's decode scale, times nvfp4's tensor
// encode scale).
//
// The three fractions are over the tensor's finite values, as in
// numeric::QuantStats: clamped at the element's maximum, non-zero but stored
// as zero, stored as an element subnormal.
// sqnrDb = 10 log10(sum v^2 / sum (v - q)^2), q the dequantized value, against the
// unquantized FP32 tensor (+inf when exact, NaN when the tensor is all zero).
//
// JSON (a step row's "scaling" key in the run log, train/run_log.h):
//   {"step": 12, "tensors": [{"name": "h0.qkv.x", "role": "x", "format": "fp8-e4m3",
//     "scale": 120.5, "scale_min": 120.5, "scale_max": 120.5, "amax": 3.71,
//     "amax_history": 3.72, "history": 13, "count": 98304, "saturated": 0.0,
//     "lost_to_zero": 0.0012, "subnormal": 0.031, "sqnr_db": 31.2,
//     "blocks": 1, "blocks_clipped": 0}, ...]}
// Non-finite numbers are written as null. Limits when read: step in
// [0, 2^62], at most kMaxScaledTensors tensors, names of at most 128 bytes,
// fractions in [0, 1], history and counts non-negative.

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::telemetry {

// Which operand of a product a scaled tensor is.
enum class ScaledRole : std::uint8_t {
  Input,      // X, the activation entering a linear layer (forward format)
  Weight,     // W (forward format)
  GradOutput, // dY, the gradient arriving at a linear layer's output (backward format)
};
std::string_view scaledRoleKey(ScaledRole role); // "x", "w", "dy"
std::optional<ScaledRole> parseScaledRole(std::string_view key);

inline constexpr std::size_t kMaxScaledTensors = 4096;

struct ScaledTensorStats {
  std::string name;           // "h0.qkv.x", "layer1.w", "h3.fc.dy"
  ScaledRole role = ScaledRole::Input;
  std::string format;         // element format: "fp8-e4m3", "fp8-e5m2", "fp4-e2m1"
  double scale = 1.0;         // see the convention above (median for block recipes)
  double scaleMin = 1.0;      // block recipes: smallest and largest block scale;
  double scaleMax = 1.0;      // per-tensor recipes: == scale
  double amax = 0.0;          // this step's max |v| of the unquantized tensor
  double amaxHistory = 0.0;   // fp8-delayed: the amax its scale came from; else == amax
  std::int64_t history = 0;   // fp8-delayed: amaxes in the window so far; else 0
  std::int64_t count = 0;     // values quantized
  double fractionSaturated = 0.0;
  double fractionLostToZero = 0.0;
  double fractionSubnormal = 0.0;
  double sqnrDb = 0.0;
  std::int64_t blocks = 1;        // scales the tensor used (1 for per-tensor recipes)
  std::int64_t blocksClipped = 0; // blocks whose maximum was saturated
  bool operator==(const ScaledTensorStats&) const = default;
};

struct ScalingFrame {
  std::int64_t step = 0;
  std::vector<ScaledTensorStats> tensors; // in the order the products ran
  const ScaledTensorStats* find(std::string_view name) const;
  bool operator==(const ScalingFrame&) const = default;
};

nlohmann::json toJson(const ScalingFrame& frame);
// Throws TelemetryJsonError (telemetry/frame.h) naming the offending field
// ("scaling.tensors[2].saturated: must be a number in [0, 1]").
ScalingFrame scalingFromJson(const nlohmann::json& json);

} // namespace mantissa::telemetry
