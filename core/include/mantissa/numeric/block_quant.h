// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Block-scaled quantization, as pure functions: a tensor of values in, its
// scales, its element bits and the values they stand for out.
//
// Schemes:
//  - OCP Microscaling (MX v1.0, section 6.3): mxfp8-e4m3, mxfp8-e5m2,
//    mxfp6-e2m3, mxfp6-e3m2, mxfp4 and mxint8. Blocks of 32 consecutive
//    values share one E8M0 scale X = 2^(floor(log2 amax) - emax_elem), emax_elem
//    the exponent of the element's largest normal; each element is Vi / X
//    rounded to the element format, values above its largest normal clamped
//    to it (MXINT8: to +-127/64). A scale exponent below -127 is clamped to
//    -127 (an all-zero block gets 2^-127); above 127, or a block holding an
//    Inf or a NaN, gives the NaN scale 0xFF: every element of that block
//    then reads as NaN.
//    The scale exponent can also be rounded as torchao offers, because floor
//    can clip a block's maximum (amax / X may round above the element max):
//      floor : floor(log2 amax) - emax_elem                    (the spec)
//      ceil  : ceil(log2 amax) - emax_elem                     (never clips)
//      even  : floor(log2 amax') - emax_elem, amax' = amax rounded to the
//              element's mantissa width, half away from zero
//      rceil : ceil(log2(amax / max_elem)), the smallest X with
//              amax / X <= max_elem                           (never clips)
//  - nvfp4: E2M1 elements in blocks of 16, one E4M3 scale per block, one FP32
//    scale per tensor (NVIDIA's two-level recipe, in FP32 arithmetic):
//      encode = 448 x 6 / amax(tensor)          (1 if amax is 0 or encode overflows)
//      block scale (E4M3, nearest, saturating) = amax(block) / 6 x encode
//      element = E2M1(v x encode / block scale), value = element x block scale / encode
//  - fp8-block: DeepSeek-V3's blocks with one FP32 scale each,
//    scale = amax / 448 (E4M3 elements, saturating): 1 x 128 tiles along each
//    row for activations, 128 x 128 blocks for weights.
//  - fp8-tensor: one FP32 scale amax / 448 for the whole tensor (current scaling).

#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/format.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::numeric {

enum class BlockScheme : std::uint8_t {
  Mxfp8E4M3, Mxfp8E5M2, Mxfp6E2M3, Mxfp6E3M2, Mxfp4, Mxint8, Nvfp4, Fp8Block, Fp8Tensor,
};

enum class ScaleRounding : std::uint8_t { Floor, Ceil, Even, RCeil };

struct SchemeInfo {
  BlockScheme scheme;
  std::string_view name;        // "mxfp4" (the CLI's spelling)
  FormatId element;             // fp4-e2m1, ...
  FormatId scale;               // e8m0 (MX), fp8-e4m3 (nvfp4), fp32 (fp8-block, fp8-tensor)
  int blockSize;                // 32, 16, 128; 0 for one scale per tensor
  std::string_view description; // one line, for help text
  bool isMx() const { return scale == FormatId::E8M0; }
};

std::span<const BlockScheme> allSchemes();
const SchemeInfo& schemeInfo(BlockScheme scheme);
std::optional<BlockScheme> parseSchemeName(std::string_view name);
std::optional<ScaleRounding> parseScaleRoundingName(std::string_view name);
std::string_view scaleRoundingName(ScaleRounding rounding);

struct QuantizeOptions {
  ScaleRounding scaleRounding = ScaleRounding::Floor; // MX schemes only
  Rounding elementRounding = Rounding::NearestEven;
  std::uint64_t seed = 1; // random bits for Rounding::Stochastic, one draw per element
  // The tensor's shape, row-major; cols == 0 means one row of all the values.
  // fp8-block cuts 1 x 128 tiles along each row, or 128 x 128 blocks with
  // weightBlocks. The MX and nvfp4 blocks run along rows as well (a row's
  // last block may be short).
  std::size_t cols = 0;
  bool weightBlocks = false;
};

// Per-element outcome, as bits of QuantizedTensor::flags.
enum ElementFlag : std::uint8_t {
  kSaturated = 1,  // |v| / scale was above the element's max and was clamped
  kLostToZero = 2, // v != 0 stored as zero
  kSubnormal = 4,  // stored as an element subnormal
  kNotFinite = 8,  // v is Inf or NaN (for the FP32-scaled schemes: beyond FP32's range too)
};

struct QuantBlock {
  std::size_t row = 0, col = 0;       // top-left value of the block
  std::size_t rows = 1, cols = 0;     // its extent (1 x n for tiles)
  std::size_t count = 0;              // values in it
  double amax = 0.0;                  // largest finite |v| (NaN if any value is NaN or Inf)
  std::uint64_t scaleBits = 0;        // in the scheme's scale format
  double scale = 1.0;                 // value = element x scale x tensor scale (NaN: all NaN)
  int scaleExponent = 0;              // MX: the unbiased E8M0 exponent
  bool maxClipped = false;            // an element at amax was saturated
};

struct QuantizedTensor {
  BlockScheme scheme = BlockScheme::Mxfp8E4M3;
  std::size_t rows = 1, cols = 0;
  double tensorScale = 1.0;           // nvfp4's decode scale 1 / encode (FP32); 1 otherwise
  std::uint32_t tensorScaleBits = 0x3f800000u; // FP32 bits of tensorScale
  std::vector<QuantBlock> blocks;
  std::vector<std::uint32_t> blockOf; // per value: index into blocks
  std::vector<std::uint64_t> elementBits;
  std::vector<double> elementValue;   // the element as decoded, before scaling
  std::vector<double> dequantized;    // element x block scale x tensor scale
  std::vector<std::uint8_t> flags;    // ElementFlag bits
};

// Quantizes `values` (row-major, options.cols per row) with `scheme`.
QuantizedTensor quantize(std::span<const double> values, BlockScheme scheme,
                         const QuantizeOptions& options = {});

// The same with another element format or scale format: `scheme` gives the
// block shape; `scale` decides the rule. E8M0 (ue8m0): MX's power-of-two
// scale from the block's amax and `element`'s largest exponent. An 8-bit
// float scale (ue4m3, fp8-e4m3): NVFP4's rule, a block scale amax / max_elem
// stored in that format times an FP32 tensor scale. FP32: amax / max_elem.
// `element` is any format of at most 16 bits (numeric::tensorFormatError);
// throws std::invalid_argument otherwise or for another scale format.
QuantizedTensor quantize(std::span<const double> values, BlockScheme scheme, const FloatFormat& element,
                         const FloatFormat& scale, const QuantizeOptions& options = {});

// The MX scale exponent for a block of maximum `amax` (finite, >= 0) with the
// element format `element`, before clamping to E8M0's range.
int mxScaleExponent(double amax, FormatId element, ScaleRounding rounding);

// What quantization did to a tensor, over its finite values (those without kNotFinite).
struct QuantStats {
  std::size_t count = 0;          // finite values
  std::size_t nonFinite = 0;      // Inf and NaN inputs
  double fractionSaturated = 0.0; // clamped at the element's max
  double fractionLostToZero = 0.0;
  double fractionSubnormal = 0.0; // stored as element subnormals
  double sqnrDb = 0.0;            // 10 log10(sum v^2 / sum (v - q)^2); +inf if exact, NaN if all zero
  std::size_t blocks = 0;
  std::size_t blocksMaxClipped = 0;
};
QuantStats quantStats(std::span<const double> values, const QuantizedTensor& q);

// The what-if table: every scheme's statistics on the same values (each
// scheme quantizes them with `options`; fp8-block uses 1 x 128 tiles unless
// options.weightBlocks). In allSchemes() order.
struct SchemeStats {
  BlockScheme scheme;
  QuantStats stats;
};
std::vector<SchemeStats> whatIf(std::span<const double> values, const QuantizeOptions& options = {});

} // namespace mantissa::numeric
