// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// What a scan means, in words and tables: one verdict per target format,
// the pairing of already-quantized tensors with their scales, and the
// report as JSON, CSV and HTML (all plain text, written atomically by the
// caller).
//
// Verdict rules, per target:
//  - overflow: tensors with a finite value past the format's max (elementwise
//    casts), with a hint of where to keep them (FP16 -> BF16; BF16 -> FP32;
//    FP8 -> a scaled scheme); for block schemes, tensors holding Inf or NaN
//    (their blocks decode as NaN);
//  - underflow: tensors losing more than 1% of their non-zero values to zero;
//  - the lowest SQNR and its tensor.
// Scale pairing (by name, then by element count):
//  - "X.weight_scale_inv" with "X.weight": DeepSeek's 128 x 128 blocks
//    (the scale's shape must be ceil(rows / 128) x ceil(cols / 128));
//  - "X.weight_scale" with "X.weight": one scale (1 element), one per row,
//    MX E8M0 per 32 values (an F8_E8M0 scale of elements / 32) or NVFP4's
//    E4M3 per 16 (an F8_E4M3 scale of elements / 16, with "X.weight_scale_2"
//    the global FP32 scale); the per-32 and per-16 scales have the weight's
//    shape with its last dimension (in values: two per byte of a packed U8
//    weight) divided by 32 or 16, rounded up, or the pairing notes it;
//  - "X.input_scale": an activation scale of the layer X (an orphan when
//    there is no "X.weight");
//  - GPT-OSS style "X_blocks" [..., groups, 16] / "X_scales" [..., groups]
//    (U8): MX E2M1 pairs (first value in the low nibble) with E8M0 per 32.
// Orphans: a low-precision tensor (8 bits or fewer) with no scale; a scale
// (weight_scale_inv, weight_scale, weight_scale_2, input_scale, U8 or E8M0
// X_scales) with no weight; U8 "X_blocks" with no "X_scales". The note names
// the missing tensor.

#include <mantissa/inspect/model_file.h>
#include <mantissa/inspect/model_scan.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mantissa::inspect {

struct FormatVerdict {
  Target target = Target::Fp16;
  std::vector<std::string> overflowing;   // tensor names, in file order
  std::vector<std::string> underflowing;  // more than 1% of non-zero values lost to zero
  std::optional<double> lowestSqnrDb;
  std::string lowestSqnrTensor;
  std::string text;                       // one sentence
};
std::vector<FormatVerdict> verdicts(const ModelFile& model, const std::vector<TensorStats>& stats);

enum class ScaleKind : std::uint8_t {
  Block128, PerTensor, PerRow, Mx32, Nvfp4, InputScale, Orphan,
};
std::string_view scaleKindName(ScaleKind kind); // "block-128", "per-tensor", ..., "orphan"

struct ScalePairing {
  std::size_t tensor = 0;                  // the low-precision (or weight) tensor
  std::optional<std::size_t> scale;        // its scale tensor
  std::optional<std::size_t> globalScale;  // nvfp4's weight_scale_2
  ScaleKind kind = ScaleKind::Orphan;
  std::string note;                        // a shape mismatch, ...
};
std::vector<ScalePairing> pairScales(const ModelFile& model);

// Shape text as listings show it: "[4096, 11008]".
std::string shapeText(const std::vector<std::uint64_t>& shape);

std::string reportJson(const ModelFile& model, const std::vector<TensorStats>& stats);
std::string reportCsv(const ModelFile& model, const std::vector<TensorStats>& stats);
std::string reportHtml(const ModelFile& model, const std::vector<TensorStats>& stats);

} // namespace mantissa::inspect
