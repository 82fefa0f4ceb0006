// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Scaled low-precision matmul operands: the FP8 and microscaling recipes.
//
// Every operand of a linear layer's products (X, W, dY) is quantized to the
// recipe's element format and dequantized exactly back into FP32, then the
// products run on those FP32 values with FP32 accumulation: the values a
// scaled FP8 / FP4 GEMM multiplies, with the scales applied before rather
// than after the sum.
//
//   fp8-delayed  Transformer Engine's DelayedScaling defaults: X and W in E4M3,
//                dY in E5M2 (HYBRID), one FP32 scale per tensor from the amax
//                history (length 1024, max over the window or most_recent,
//                margin 0): scale = (FP8_MAX / amax_h) / 2^margin, updated
//                after each quantization with that tensor's amax; 1 before
//                the first update, and kept when amax_h is 0 or not finite.
//                q = E4M3(x * scale) saturating, value = q * (1 / scale), in FP32.
//   fp8-current  the same formats, scale = FP8_MAX / amax of the tensor itself
//                (1 when amax is 0, Inf or NaN; FLT_MAX when the quotient overflows).
//   fp8-block    DeepSeek-V3: E4M3 everywhere, FP32 scale amax / 448 per 1 x 128
//                tile along the reduction dimension of the product for X and
//                dY, per 128 x 128 block for W.
//   mxfp8        OCP MX v1.0: E4M3 elements, one E8M0 scale per 32 values along
//                the reduction dimension, scale exponent floor(log2 amax) - 8 (the spec).
//   nvfp4        E2M1 elements, one E4M3 scale per 16 values along the
//                reduction dimension, one FP32 tensor scale; dY is rounded
//                stochastically (seeded), X and W to nearest.
// Block recipes quantize X and dY once per product they feed (X along its
// features for Y = X W, along the batch for dW = X^T dY; dY along its
// features for dX = dY W^T, along the batch for dW), and W along its input
// dimension for the forward and its output dimension for dX (fp8-block's
// 128 x 128 blocks serve both). The per-tensor recipes quantize each operand
// once and use it in both of its products.
// The element rules are numeric::quantize's (block_quant.h): nearest-even,
// saturating at the element's maximum, block formulas in FP32.

#include <mantissa/numeric/format.h>
#include <mantissa/telemetry/scaling.h>

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

enum class MatmulScaling : std::uint8_t { None, Fp8Delayed, Fp8Current, Fp8Block, Mxfp8, Nvfp4 };

// "fp8-delayed", "fp8-current", "fp8-block", "mxfp8", "nvfp4" ("none" for None).
std::string_view matmulScalingName(MatmulScaling scaling);
std::optional<MatmulScaling> parseMatmulScaling(std::string_view name); // not "none"
std::span<const MatmulScaling> matmulScalings(); // the five recipes, None excluded

enum class AmaxCompute : std::uint8_t { Max, MostRecent };
std::string_view amaxComputeName(AmaxCompute compute); // "max", "most-recent"

inline constexpr int kDefaultAmaxHistory = 1024;
inline constexpr int kMaxAmaxHistory = 1 << 16;
inline constexpr int kMaxScalingMargin = 32;

struct ScalingOptions {
  MatmulScaling scheme = MatmulScaling::None;
  int historyLength = kDefaultAmaxHistory; // fp8-delayed
  AmaxCompute amaxCompute = AmaxCompute::Max;
  int margin = 0;                          // fp8-delayed, fp8-current
  bool operator==(const ScalingOptions&) const = default;
};

// The element format of an operand: E4M3 for X and W; E5M2 for dY under the
// per-tensor recipes (HYBRID), E4M3 under fp8-block and mxfp8, E2M1 for all under nvfp4.
numeric::FormatId operandFormat(MatmulScaling scheme, telemetry::ScaledRole role);

// Transformer Engine's delayed-scaling state of one tensor.
class DelayedScale {
public:
  DelayedScale(float fp8Max, int historyLength, AmaxCompute compute, int margin);
  // The scale to quantize with now.
  float scale() const { return m_scale; }
  // Records a quantization's amax and computes the next scale:
  // amax_h = max over the last historyLength recorded amaxes (NaN ignored) or
  // this amax (most-recent); scale = (fp8Max * 2^-margin) / amax_h in FP32
  // when amax_h is finite and > 0, else unchanged.
  void update(float amax);
  float historyAmax() const { return m_historyAmax; } // amax_h of the last update
  std::int64_t filled() const { return m_filled; }    // amaxes in the window
  // The amax history, its position, the scale (tensor/run_state.h, under prefix).
  void visitState(RunStateVisitor& v, std::string_view prefix);

private:
  std::vector<float> m_history; // ring buffer
  std::size_t m_next = 0;
  std::int64_t m_filled = 0;
  AmaxCompute m_compute;
  float m_scaledMax;
  float m_scale = 1.0f;
  float m_historyAmax = 0.0f;
};

// One value's rounding to a small float format (E4M3, E5M2 or E2M1),
// nearest-even or, with `random`, up with probability equal to the fraction
// of the element's ULP (random / 2^32 below the fraction). Saturating.
struct ElementRounding {
  float value = 0.0f;     // the element, signed
  bool saturated = false; // rounded past the element's maximum and clamped
  bool subnormal = false; // a non-zero element subnormal
};
ElementRounding roundElement(float x, numeric::FormatId element,
                             std::optional<std::uint32_t> random = std::nullopt);

// How blocks run over a [rows, cols] row-major operand: along each row, or
// down each column.
enum class BlockAxis : std::uint8_t { Rows, Columns };

struct OperandRequest {
  MatmulScaling scheme = MatmulScaling::Fp8Current;
  numeric::FormatId element = numeric::FormatId::Fp8E4M3;
  int rows = 0, cols = 0;
  BlockAxis axis = BlockAxis::Rows;
  bool weightBlocks = false;  // fp8-block: 128 x 128 blocks instead of 1 x 128 tiles
  float scale = 1.0f;         // fp8-delayed: the scale to use
  int margin = 0;             // fp8-current
  bool stochastic = false;    // nvfp4: stochastic element rounding
  std::uint64_t seed = 1;     // its random bits: a hash of (seed, element index)
};

// Quantizes `in` ([rows, cols] row-major FP32) as `request` says and writes
// the dequantized values to `out` (same size; may alias `in`). Non-finite
// inputs give NaN (the whole block under the block recipes). Returns the
// tensor's statistics (name and role left for the caller to fill; amax is
// that of `in`, amaxHistory == amax, history 0).
telemetry::ScaledTensorStats quantizeOperand(std::span<const float> in, std::span<float> out,
                                             const OperandRequest& request);

} // namespace mantissa::amp
