// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The scales of an already-quantized tensor (a pairing of model_report.h)
// as a grid of blocks over its weight, and the weight dequantized with them:
//   block-128  value = element x weight_scale_inv[r / 128][c / 128]
//              (DeepSeek-V3: the stored scale multiplies, despite its name);
//   per-tensor value = element x weight_scale;
//   per-row    value = element x weight_scale[r];
//   mx-e8m0-32 value = element x 2^(scale - 127), per 32 values along a row;
//   nvfp4      value = element x E4M3 scale per 16 along a row x weight_scale_2.
// Elements and scales are read as the file stores them (decode()), the
// product in double: exact for every stored format (at most 24 + 24 bits).
// A packed U8 weight of the MX and NVFP4 layouts (GPT-OSS "X_blocks",
// ModelOpt's NVFP4 "X.weight") holds two E2M1 values per byte, the first in
// the low nibble; GPT-OSS's U8 "X_scales" are E8M0 (2^(byte - 127), 0xFF
// NaN). Other packed weights have no dequantized values; their grid still
// shows.

#include <mantissa/inspect/model_file.h>
#include <mantissa/inspect/model_report.h>
#include <mantissa/inspect/model_scan.h>
#include <mantissa/numeric/block_quant.h>
#include <mantissa/telemetry/histogram.h>

#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace mantissa::inspect {

struct ScaleGrid {
  std::uint64_t rows = 0, cols = 0;           // blocks down and across
  std::uint64_t blockRows = 1, blockCols = 1; // weight values per block (down, across)
  std::uint64_t weightRows = 0, weightCols = 0;
  std::vector<double> scale;                  // per block, row-major: the dequantizing factor
  double globalScale = 1.0;                   // nvfp4's weight_scale_2; 1 otherwise
  bool dequantizable = false;                 // the weight's elements are decoded
  std::string error;                          // why there is no grid ("" when there is)
  bool ok() const { return error.empty(); }
  double scaleAt(std::uint64_t row, std::uint64_t col) const { // of weight value (row, col)
    return scale[(row / blockRows) * cols + col / blockCols];
  }
  // What block k's elements are multiplied by: its scale times the global scale.
  double effectiveScale(std::size_t block) const { return scale.at(block) * globalScale; }
};

// The grid of a pairing; error set for orphans, input scales, shape
// mismatches and layouts it cannot place.
ScaleGrid scaleGrid(const ModelFile& model, const ScalePairing& pairing);

// Weight values [first, first + dst.size()) of the pairing, dequantized.
// Throws std::invalid_argument when the grid is not ok() or not dequantizable.
void dequantize(const ModelFile& model, const ScalePairing& pairing, const ScaleGrid& grid,
                std::uint64_t first, std::span<double> dst);

// The grid as quantized blocks for block charts (rows, cols, scale, FP32
// bits of the scale; tensorScale the global scale): the block scheme of the
// layout (block-128 fp8-block, MX mxfp8/mxfp4 by the element type, nvfp4,
// per-tensor and per-row fp8-tensor), amax the largest dequantized |value|
// of the block (0 when the weight is not decoded; NaN when it holds NaN).
// Block-128 takes it from the weight's scan (weightStats->weightBlockAmax
// times the scale: exact, the scale is positive); other layouts, or without
// the scan, read the weight once; `cancel` (may be null) stops that (amax
// left 0).
numeric::QuantizedTensor scaleBlocks(const ModelFile& model, const ScalePairing& pairing,
                                     const ScaleGrid& grid, const TensorStats* weightStats = nullptr,
                                     const std::atomic<bool>* cancel = nullptr);

// The scales' exponent histogram (binades of |scale| x global scale; zeros,
// Inf and NaN in their counters).
telemetry::ExponentHistogram scaleHistogram(const ScaleGrid& grid);

} // namespace mantissa::inspect
