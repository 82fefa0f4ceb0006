// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The shadow pass: where a run loses accuracy, op by op.
//
// At a telemetry step (RunConfig::shadow, `mantissa-cli train --shadow
// fp32|fp64`), or when asked for the next step (Session::requestShadow), the
// step's batch runs again through a reference copy of the model in FP32 or
// FP64 (model/shadow_reference.h), from the same weights, before the
// optimizer changes them. Every tensor the run's forward and backward wrote
// (Network::shadowTensors) is then set against the reference's, value by
// value (backward's after dividing out the loss scale):
//   relative error   |a - r| / |r| over the values with r != 0: max, and median
//                    (of tensors over kMedianValues values: of every k-th value)
//   tensor error     ||a - r||_2 / ||r||_2, the tensor's relative error as a whole
//   ULPs             |a - r| / ulp(r) in the format the op stored the tensor in: max
//   SQNR             10 log10(sum r^2 / sum (a - r)^2) dB (+inf when equal)
//   flips            values whose sign or binade differs from the reference's
//                    (a zero against a non-zero counts)
// A value that is inf or NaN where the reference is finite makes every error
// of its tensor inf. The first tensor, in the order the passes wrote them,
// whose tensor error exceeds the threshold is named (ShadowFrame::firstOver),
// as the first non-finite op is when a run diverges.
//
// Cost: one forward and backward of the reference per shadowed step, plus
// one read of every tensor compared; nothing at other steps.

#include <mantissa/model/network.h>
#include <mantissa/model/shadow_reference.h>
#include <mantissa/tensor/dtype.h>

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::train {

enum class ShadowPrecision : std::uint8_t { Off, F32, F64 };
// "off", "fp32", "fp64"
std::string_view shadowPrecisionKey(ShadowPrecision p);
// nullopt for any other text.
std::optional<ShadowPrecision> parseShadowPrecision(std::string_view text);

// The most values a median is taken over (ShadowError::medianRelative).
inline constexpr std::size_t kMedianValues = std::size_t{1} << 12;

// Tests: the plain loop instead of the AVX-512 kernel (both give the same
// flips and maxima; the sums differ in their rounding only).
void setPortableShadowKernel(bool portable) noexcept;

// Default of RunConfig::shadowThreshold: a tensor error of 1%.
inline constexpr double kDefaultShadowThreshold = 1e-2;

// One tensor against its reference.
struct ShadowError {
  std::string tensor;
  bool backward = false;
  DType format = DType::F32;
  std::int64_t count = 0;     // values compared
  double maxRelative = 0.0;   // over values whose reference is non-zero
  double medianRelative = 0.0;
  double tensorRelative = 0.0; // ||a - r|| / ||r|| (0 when both are zero)
  double maxUlps = 0.0;        // in `format`
  double sqnrDb = 0.0;         // +inf when every value equals its reference
  std::int64_t flips = 0;      // sign or binade differs
  bool operator==(const ShadowError&) const = default;
};

// The errors of one step, in the order the passes wrote the tensors.
struct ShadowFrame {
  std::int64_t step = 0;
  ShadowPrecision reference = ShadowPrecision::F32;
  double threshold = kDefaultShadowThreshold;
  double ms = 0.0; // the reference's forward and backward plus the comparison
  std::vector<ShadowError> tensors;
  // Index in tensors of the first whose tensorRelative exceeds the threshold.
  std::optional<std::size_t> firstOver;
};

// The statistics above of `values` (divided by `scale` first) against
// `reference`, counting ULPs in `format`. Throws std::invalid_argument when
// the sizes differ or scale is not a positive finite number.
ShadowError measureShadowError(std::string_view tensor, std::span<const float> values,
                               std::span<const double> reference, DType format,
                               double scale = 1.0);
// The same against an FP32 reference (the FP32 copy's own values).
ShadowError measureShadowError(std::string_view tensor, std::span<const float> values,
                               std::span<const float> reference, DType format,
                               double scale = 1.0);

// One sentence on a frame: "shadow fp64 at step 40: first tensor over 1%
// error: h0.attention probs (error inf, 12288 values flipped)", or "shadow
// fp32 at step 40: every tensor within 1% of the reference (largest error:
// layer1.W gradient, 3.1e-03)".
std::string describeShadowFrame(const ShadowFrame& frame);

// A step row's "shadow" object in a run log, and back:
//   {"step", "reference": "fp32"|"fp64", "threshold", "ms", "first_over": index|null,
//    "tensors": [{"tensor", "pass": "forward"|"backward", "format", "count",
//                 "max_rel", "median_rel", "tensor_rel", "max_ulps", "sqnr_db", "flips"}]}
// An infinite statistic is written as the string "inf" (or "-inf": an SQNR
// whose reference is all zero); none is NaN.
// shadowFrameFromJson throws std::invalid_argument naming the field that is
// missing, of the wrong type or out of range (at most kMaxShadowTensors tensors).
inline constexpr std::size_t kMaxShadowTensors = 65536;
nlohmann::json shadowFrameJson(const ShadowFrame& frame);
ShadowFrame shadowFrameFromJson(const nlohmann::json& json);

// Runs the reference on the run model's batch and compares every tensor the
// model lists (Network::shadowTensors). Buffers are kept between steps.
//   forwardDone(step, run)    after the run's forward: the reference runs its
//                             forward and backward; forward's tensors compared
//                             (before the run's backward can reuse a buffer)
//   backwardDone(run, scale)  after the run's backward, before unscaling and the
//                             optimizer: backward's tensors divided by `scale`
//                             (what backward multiplied the mean loss by) and
//                             compared; the frame, its first tensor over the
//                             threshold named. backwardRan = false: the step
//                             stopped after forward (a diverged loss).
class ShadowPass {
public:
  // Throws std::invalid_argument for Off or no reference.
  ShadowPass(ShadowPrecision precision, std::unique_ptr<model::ShadowReference> reference,
             double threshold);
  ~ShadowPass();
  ShadowPrecision precision() const { return m_precision; }
  double threshold() const { return m_threshold; }
  void forwardDone(std::int64_t step, model::Network& run);
  std::shared_ptr<const ShadowFrame> backwardDone(model::Network& run, double backwardScale,
                                                  bool backwardRan = true);

private:
  void compare(bool backward, double scale);

  ShadowPrecision m_precision;
  std::unique_ptr<model::ShadowReference> m_reference;
  double m_threshold;
  std::vector<model::ShadowTensor> m_tensors;
  std::shared_ptr<ShadowFrame> m_frame; // between forwardDone() and backwardDone()
};

} // namespace mantissa::train
