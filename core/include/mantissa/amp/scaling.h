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
//   unscaled     (the policy's matmul-inputs=FORMAT) every operand rounded to
//                that element format with scale 1: what a tensor stored in the
//                format holds.
// Any element format: ScalingOptions::element (X, W and dY) and gradElement
// (dY) replace the recipe's, as spec strings (numeric/format_spec.h). The
// recipe's formulas then use that format's maximum and exponent range: FP8_MAX
// is the element's max finite value, mxfp8's exponent is floor(log2 amax) -
// emax(element). blockScale picks the block scale of mxfp8 and nvfp4: E8M0
// (mxfp8's rule) or UE4M3 (nvfp4's rule: UE4M3(amax / max x tensor scale),
// tensor scale 448 x max / tensor amax). An element format must have a sign
// bit, at most 16 bits, and all its values inside FP32's normal range
// (elementFormatError); the fp8 recipes take 8-bit elements only. Formats
// without negative zero (fnuz) give +0 for negative values that round to 0.
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

enum class MatmulScaling : std::uint8_t {
  None, Fp8Delayed, Fp8Current, Fp8Block, Mxfp8, Nvfp4,
  Unscaled, // operands rounded to ScalingOptions::element, scale 1
};

// "fp8-delayed", "fp8-current", "fp8-block", "mxfp8", "nvfp4" ("none" for
// None, "unscaled" for Unscaled).
std::string_view matmulScalingName(MatmulScaling scaling);
std::optional<MatmulScaling> parseMatmulScaling(std::string_view name); // not "none", "unscaled"
std::span<const MatmulScaling> matmulScalings(); // the five recipes, None excluded

enum class AmaxCompute : std::uint8_t { Max, MostRecent };
std::string_view amaxComputeName(AmaxCompute compute); // "max", "most-recent"

inline constexpr int kDefaultAmaxHistory = 1024;
inline constexpr int kMaxAmaxHistory = 1 << 16;
inline constexpr int kMaxScalingMargin = 32;

// The block scale of mxfp8 and nvfp4: Default is E8M0 for mxfp8, UE4M3 for nvfp4.
enum class BlockScale : std::uint8_t { Default, E8m0, Ue4m3 };
std::string_view blockScaleName(BlockScale scale); // "default", "e8m0", "ue4m3"
// The scale a recipe uses: E8m0 or Ue4m3 (Default resolved).
BlockScale effectiveBlockScale(MatmulScaling scheme, BlockScale scale);

struct ScalingOptions {
  MatmulScaling scheme = MatmulScaling::None;
  int historyLength = kDefaultAmaxHistory; // fp8-delayed
  AmaxCompute amaxCompute = AmaxCompute::Max;
  int margin = 0;                          // fp8-delayed, fp8-current
  // Element formats as spec strings; "" = the recipe's (operandFormat).
  std::string element{};     // X, W and dY
  std::string gradElement{}; // dY (over element)
  BlockScale blockScale = BlockScale::Default;
  bool operator==(const ScalingOptions&) const = default;
};

// The element format of an operand: E4M3 for X and W; E5M2 for dY under the
// per-tensor recipes (HYBRID), E4M3 under fp8-block and mxfp8, E2M1 for all under nvfp4.
numeric::FormatId operandFormat(MatmulScaling scheme, telemetry::ScaledRole role);
// The element format an operand uses under `options`: gradElement for dY,
// else element, else operandFormat. Throws std::invalid_argument naming the
// field ("element: ...") for a spec that does not parse or cannot be an element.
numeric::FloatFormat operandElement(const ScalingOptions& options, telemetry::ScaledRole role);
// "" if `format` can be the element format of `scheme`'s operands, else why
// not (the message starts with the format's name, no field).
std::string elementFormatError(const numeric::FloatFormat& format, MatmulScaling scheme);

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
// The same for any element format (elementFormatError(format, Unscaled) empty).
ElementRounding roundElement(float x, const numeric::FloatFormat& element,
                             std::optional<std::uint32_t> random = std::nullopt);

// How blocks run over a [rows, cols] row-major operand: along each row, or
// down each column.
enum class BlockAxis : std::uint8_t { Rows, Columns };

struct OperandRequest {
  MatmulScaling scheme = MatmulScaling::Fp8Current;
  numeric::FormatId element = numeric::FormatId::Fp8E4M3;
  std::optional<numeric::FloatFormat> format; // when set, the element format (over `element`)
  BlockScale blockScale = BlockScale::Default; // mxfp8, nvfp4
  int rows = 0, cols = 0;
  BlockAxis axis = BlockAxis::Rows;
  bool weightBlocks = false;  // fp8-block: 128 x 128 blocks instead of 1 x 128 tiles
  float scale = 1.0f;         // fp8-delayed: the scale to use (unscaled: 1)
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
