// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// How the GPT's training step scales with model size: for each size, the
// step time, the model's FLOPs per step, the achieved GFLOP/s and its
// fraction of the CPU's measured 16-bit peak (MFU), for the matrix products
// alone and for the whole step, the peak resident memory, and PyTorch's step
// time and memory on the same model beside it. `bench_gpt --sizes` measures
// it (each size in a process of its own, so that peak memory is the size's)
// and writes the JSON below; the Speed page draws it.
//
// FLOPs count every matrix product of a step as 2 per multiply-add, forward
// and backward (twice the forward: the input and the weight gradient), the
// causal attention as the full T x T products it computes:
//   forward = B T (L (24 C^2 + 4 T C) + 2 C V)
//   step    = 3 x forward
// which is nanoGPT's estimate_mfu (6 N + 12 L C T per token, N counting the
// tied head once and not the position table) up to the biases and
// LayerNorms, which are not products.
//
// JSON (gptScalingToJson):
//   {"schema": 1, "cpu_model", "isa", "recipe": "bf16-mixed", "threads": 2,
//    "peak_gflops": 468.0, "peak_source": "vdpbf16ps zmm, 2 threads (ISA probe)",
//    "torch_version": "1.13.0" | "",
//    "sizes": [{"layers", "heads", "embd", "ctx", "batch", "vocab", "params",
//               "flops_per_step", "steps", "step_ms", "step_min_ms",
//               "step_max_ms", "matmul_ms", "peak_rss_bytes",
//               "torch": null | {"step_ms", "step_min_ms", "step_max_ms",
//                                "peak_rss_bytes"},
//               "torch_error": ""}],
//    "threads_scaling": [{"threads": 1, "step_ms": 40.1}, ...]}

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mantissa::bench {

struct GptSize {
  int layers = 4, heads = 4, embd = 128, ctx = 64, batch = 12;
  int vocab = 65; // Tiny Shakespeare's characters

  // "gpt:layers=4,heads=4,embd=128,ctx=64"
  std::string modelSpec() const;
  // "4x128 ctx 64 b 12"
  std::string label() const;
  bool operator==(const GptSize&) const = default;
};

// From shakespeare-char (4 layers, 128, ctx 64, batch 12) through embd 256
// and 384 and ctx 128 and 256 to nanoGPT's full shakespeare_char model
// (6 layers, 6 heads, 384, ctx 256, batch 64).
const std::vector<GptSize>& gptScalingSizes();

// Matrix-product FLOPs of one training step (forward and backward), as above.
double gptStepFlops(const GptSize& size);
// Trainable parameters: embeddings, blocks, final LayerNorm (head tied).
std::int64_t gptParameterCount(const GptSize& size);

struct TorchStep {
  double stepMs = 0, stepMinMs = 0, stepMaxMs = 0;
  std::int64_t peakRssBytes = 0;
};

struct GptScalingRow {
  GptSize size;
  std::int64_t params = 0;
  double flopsPerStep = 0;
  int steps = 0; // timed steps
  double stepMs = 0, stepMinMs = 0, stepMaxMs = 0;
  double matmulMs = 0; // the step's matrix products, median over the steps
  std::int64_t peakRssBytes = 0;
  std::optional<TorchStep> torch;
  std::string torchError; // why PyTorch's figure is missing, else ""

  double stepGflops() const;   // flopsPerStep / step time
  double matmulGflops() const; // flopsPerStep / matmul time
  double torchGflops() const;  // flopsPerStep / PyTorch's step time (0 without)
};

struct ThreadsStep {
  int threads = 0;
  double stepMs = 0;
};

struct GptScaling {
  std::string cpuModel, isa;
  std::string recipe = "bf16-mixed";
  int threads = 0;
  double peakGflops = 0;  // the fastest 16-bit path of the ISA probe, every core
  std::string peakSource; // which path, how many threads
  std::string torchVersion;
  std::vector<GptScalingRow> rows;
  // The first size's step at 1, 2, ... threads, same recipe.
  std::vector<ThreadsStep> threadsScaling;

  // gflops / peakGflops (0 without a peak).
  double mfu(double gflops) const;
};

nlohmann::json gptScalingToJson(const GptScaling& scaling);
// Throws std::invalid_argument naming the first missing, mistyped or
// out-of-range field ("sizes[2].step_ms: must be a positive number").
GptScaling gptScalingFromJson(const nlohmann::json& json);

// The peak the MFU is taken against: AMX BF16 tiles, else the AVX512_BF16
// dot product, else FP32 FMA; every hardware thread at once. Fills
// peakGflops and peakSource from the ISA probe (cached per machine).
void setScalingPeak(GptScaling& scaling);

// One size's Mantissa step in this process: `warmup` steps, then `steps`
// steps each timed on its own (no evaluation, no telemetry), on Tiny
// Shakespeare with the shakespeare-char preset's optimizer. Fills the row's
// step and matmul figures, params and FLOPs; not the memory.
GptScalingRow measureGptSize(const GptSize& size, const std::string& recipe, int warmup,
                             int steps);

} // namespace mantissa::bench
