// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The scan of a model: every decoded tensor read once as FP32 slices and
// measured against every target format.
//
// Per tensor: min, max, absmax, zeros, NaN, +-inf, the exact exponent
// histogram (telemetry/histogram.h), RMS and the outlier ratio absmax / RMS
// (over finite values).
// Per target, over the finite values:
//  - elementwise casts fp16, bf16, fp8-e4m3, fp8-e5m2 (no scaling): the
//    counts of cast_fractions.h (castThresholds; round to nearest even):
//    overflow (finite values past max finite), lost to zero (non-zero values
//    that become zero), subnormal; SQNR of the cast with overflow saturated
//    at max finite;
//  - block schemes mxfp8 (E4M3 elements), mxfp6 (E2M3), mxfp4, nvfp4 and
//    fp8-block (DeepSeek-V3's 128 x 128 blocks for 2-D tensors, the
//    weights; 1 x 128 tiles along rows otherwise): exactly
//    numeric::quantize()'s rules (floor
//    E8M0 scales; nvfp4's two levels with its tensor scale from the finite
//    absmax; amax / 448 FP32 scales), blocks along rows (the innermost
//    dimension; a row's last block may be short). Saturated elements,
//    elements lost to zero, element subnormals, SQNR, blocks and blocks
//    whose maximum was clipped. A block holding Inf or NaN decodes as NaN in
//    these schemes: it is counted in poisonedBlocks and left out of SQNR.
// SQNR = 10 log10(sum x^2 / sum (x - q)^2), +inf when exact, NaN
// when every value is zero (sums in double for the casts, in FP32 per block
// for the block schemes). Counts are exact; a test holds them to a plain
// double loop and the block schemes to numeric::quantize().
//
// Each tensor is read in slices of whole blocks; the slices are shared by
// the calling thread's OpenMP team. nvfp4 needs the tensor's absmax, and
// fp8-block's 128 x 128 blocks their amax, before their elements: that first
// look reads the tensor's values once more (the tensor, not the file: the
// pages are still in memory), keeping one float per 128 x 128 block.

#include <mantissa/inspect/model_file.h>
#include <mantissa/telemetry/histogram.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::inspect {

enum class Target : std::uint8_t {
  Fp16, Bf16, Fp8E4M3, Fp8E5M2, Mxfp8, Mxfp6, Mxfp4, Nvfp4, Fp8Block,
};
inline constexpr int kTargetCount = 9;
inline constexpr std::array<Target, kTargetCount> kTargets{
    Target::Fp16,  Target::Bf16,  Target::Fp8E4M3, Target::Fp8E5M2, Target::Mxfp8,
    Target::Mxfp6, Target::Mxfp4, Target::Nvfp4,   Target::Fp8Block};
std::string_view targetName(Target t);        // "fp16", "mxfp4", "fp8-block", ...
std::string_view targetDisplayName(Target t); // "FP16", "MXFP4", "FP8 block-128", ...
bool targetIsBlock(Target t);
int targetBlockSize(Target t);                // 0 for the elementwise casts

struct TargetStats {
  std::uint64_t overflow = 0;   // elementwise: past max finite; blocks: saturated elements
  std::uint64_t lostToZero = 0; // non-zero finite values that become zero
  std::uint64_t subnormal = 0;  // stored as a subnormal of the (element) format
  double signal = 0.0, noise = 0.0; // sums of x^2 and (x - q)^2 over the SQNR's values
  std::uint64_t blocks = 0, clippedBlocks = 0, poisonedBlocks = 0;
  double sqnrDb() const;
  TargetStats& operator+=(const TargetStats& o);
};

struct TensorStats {
  std::size_t index = 0;            // into ModelFile::tensors()
  bool scanned = false;             // false: not decoded (or the scan was cancelled)
  std::uint64_t count = 0;          // values
  std::uint64_t finite = 0;
  std::uint64_t zeros = 0, nan = 0, posInf = 0, negInf = 0;
  double min = 0.0, max = 0.0, absmax = 0.0; // over finite values (0 when none)
  double sumSquares = 0.0;          // over finite values
  telemetry::ExponentHistogram hist;
  std::array<TargetStats, kTargetCount> targets{};
  // A 2-D tensor's 128 x 128 blocks (fp8-block's weight blocks), row-major,
  // weightBlockCols per row: each block's largest finite |value|, NaN when
  // it holds Inf or NaN. Empty for other tensors.
  std::vector<float> weightBlockAmax;
  std::uint64_t weightBlockCols = 0;

  std::uint64_t nonFinite() const { return nan + posInf + negInf; }
  double rms() const;
  double outlierRatio() const;      // absmax / RMS; 0 when RMS is 0
  // The finite value of largest magnitude (min or max; max on a tie).
  double largestMagnitude() const { return -min > max ? min : max; }
  double fraction(std::uint64_t n) const { return finite ? double(n) / double(finite) : 0.0; }
  const TargetStats& at(Target t) const { return targets[static_cast<std::size_t>(t)]; }
};

// Scans one tensor's values (row-major, rowLength per row); the reference
// the tests hold the file scan to. weightBlocks: fp8-block in 128 x 128
// blocks (what the file scan does for 2-D tensors).
TensorStats scanValues(std::span<const float> values, std::uint64_t rowLength, bool weightBlocks = false);

struct ScanProgress {
  std::uint64_t bytesDone = 0, bytesTotal = 0;
  std::size_t tensorsDone = 0, tensorsTotal = 0;
};

// Scans every decoded tensor of `model`. `progress` (may be empty) is called
// on the calling thread after each tensor and at most every few MB; `cancel`
// (may be null) is checked between slices: a cancelled scan returns what it
// has, the rest with scanned = false. Results are in tensor order.
std::vector<TensorStats> scanModel(const ModelFile& model,
                                   const std::function<void(const ScanProgress&)>& progress = {},
                                   const std::atomic<bool>* cancel = nullptr);

// The scan runs an AVX-512 kernel where the CPU has AVX-512 F/BW/DQ/VL and
// portable code otherwise, with identical counts (the tests compare them).
// Force the portable code; whether the kernel would run now.
void setPortableModelScan(bool portable) noexcept;
bool modelScanUsesAvx512() noexcept;

// One tensor of a model (the GUI's and the tests' way to scan one).
TensorStats scanTensor(const ModelFile& model, std::size_t index,
                       const std::atomic<bool>* cancel = nullptr);

} // namespace mantissa::inspect
