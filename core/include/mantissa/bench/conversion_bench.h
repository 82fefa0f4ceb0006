// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Throughput of the batch conversions in numeric/convert.h beside memcpy of
// the same buffer, measured in one run so the ratio is side by side.
//
// Shared by tests/bench/bench_convert and (later) the GUI Speed panel. Method: all
// operations are timed round-robin, `repetitions` rounds after `warmup`
// untimed ones, so drift in machine load hits them alike; each sample is one
// pass over the whole buffer. Reported: median GB/s over the samples and
// their coefficient of variation. GB/s counts bytes read plus bytes written
// (memcpy of N FP32 values moves 8N bytes, FP32 -> BF16 moves 6N).
// While the portable kernels are timed, setForcePortableConversions(true) is
// in effect process-wide: conversions elsewhere give the same bits, slower.

#include <cstddef>
#include <string>
#include <vector>

namespace mantissa::bench {

struct ConversionBenchOptions {
  std::size_t elements = std::size_t{16} << 20; // FP32 values: 16 Mi = a 64 MiB source buffer
  int warmup = 1;
  int repetitions = 11;
  bool portableToo = true; // also time the portable kernels (setForcePortableConversions)
};

struct ConversionResult {
  std::string operation; // "memcpy fp32", "fp32->bf16", "bf16->fp32", "fp32->fp16", "fp16->fp32"
  std::string path;      // "memcpy", "F16C", "AVX512_BF16", "portable rule, AVX2", "portable"
  double bytesPerPass;   // bytes read + written by one pass
  double gbps;           // median over the repetitions
  double cv;             // coefficient of variation of the samples (0.05 = 5 %)
  double ratioToMemcpy;  // gbps / memcpy's gbps in the same run
};

// The first result is memcpy; then the four conversions on the path the
// batch functions use on this CPU, then (portableToo) on the portable path.
std::vector<ConversionResult> measureConversionThroughput(const ConversionBenchOptions& options = {});

} // namespace mantissa::bench
