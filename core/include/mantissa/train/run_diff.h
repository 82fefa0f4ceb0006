// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Where two runs part: two run logs (Mantissa's own or a PyTorch tap's, both
// read by loadRunLog) compared step by step and tensor by tensor.
//
// Alignment: steps by index; telemetry frames by step (only steps both logs
// observed are compared); tensors by (name, class, scaled view), the name
// being the header's "layers" entry when both headers name their layers,
// else the layer index.
//
// What differs, per aligned pair:
//   the training loss of a step, and an evaluation's test / validation and
//     train loss: by their distance in ULPs of double (the logged value),
//     beyond `toleranceUlps`; a non-finite loss (null) equals only another;
//   a tensor's exponent histogram: the earth-mover distance between the two
//     (finite non-zero values, as fractions of them, one binade apart = 1),
//     different when > 0;
//   a tensor's recorded statistics: zeros, +inf, -inf, NaN and total counts
//     (exactly), the cast fractions (within `toleranceUlps`) and, when both
//     logs record it, the sum of its bit patterns ("bits",
//     TensorTelemetry::bits), which any one-ULP change of one value moves;
//   a layer's swamped-update fraction (within `toleranceUlps`);
//   the run's length (one log has steps the other lacks).
// Each (tensor, pass) that differs somewhere gives one row: the first step at
// which it does. Rows are sorted by that step, then by pass (forward: weights
// and activations, layer 0 up; the loss; backward: gradients, last layer
// first; the update; the evaluation after the step), then by op order within
// the pass. The first row is where the two runs part.
//
// What one log lacks is noted, never an error: frames without "bits" (older
// logs, taps), steps or frames only one log has, tensors only one frame has.

#include <mantissa/train/run_log.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mantissa::train {

enum class DiffPass { Forward, Loss, Backward, Update, Eval };
// "forward", "loss", "backward", "update", "eval"
const char* diffPassName(DiffPass pass);

struct RunDiffRow {
  std::int64_t step = 0;   // first step (index) at which the pair differs
  DiffPass pass = DiffPass::Forward;
  std::string tensor;      // "layer 1 activations", "h0.attn.qkv weight_grads", "loss", "val_loss"
  int layer = -1;          // the tensor's layer index in A (-1: not a tensor)
  int order = 0;           // op order within the pass (the sort key after pass)
  std::string measure;     // what differs first: "loss", "histogram", "bits", "zeros", ...
  double a = 0.0, b = 0.0; // the two values of that measure (counts as numbers; NaN for none)
  // The same two values exactly, when the measure is a count or a bit sum
  // (a double holds them to 53 bits only).
  std::optional<std::uint64_t> countA, countB;
  double ulps = 0.0;       // |a - b| in ULPs of double, for a loss or fraction (else 0)
  double emd = 0.0;        // histogram earth-mover distance at that step (0: same histogram)
  std::string detail;      // every measure that differs at that step, e.g. "bits; zeros 3 vs 4"
};

struct RunDiffOptions {
  std::uint64_t toleranceUlps = 0;
};

struct RunDiff {
  std::string nameA, nameB;       // the logs' sources
  std::vector<RunDiffRow> rows;   // sorted: rows.front() is the first divergence
  std::vector<std::string> notes; // what could not be compared, and why
  std::int64_t stepsCompared = 0;
  std::int64_t framesCompared = 0;
  std::int64_t tensorsCompared = 0; // tensor pairs over all compared frames
  bool differ() const { return !rows.empty(); }
};

// The distance in ULPs of double between a and b (0 when equal, +0 and -0
// too; UINT64_MAX when one is NaN and the other is not).
std::uint64_t ulpDistance(double a, double b);

// The earth-mover distance, in binades, between two exponent histograms'
// finite non-zero values taken as fractions of their counts: the sum over
// binades of |CDF_a - CDF_b|. 0 when both are empty; infinite when only one
// is (shown as null in JSON).
double exponentEmd(const telemetry::ExponentHistogram& a, const telemetry::ExponentHistogram& b);

RunDiff diffRuns(const RunLog& a, const RunLog& b, const RunDiffOptions& options = {});

// The table as CSV (a header line, then one line per row) and as JSON
// ({"differ", "first", "rows", "notes", ...}).
std::string runDiffCsv(const RunDiff& diff);
nlohmann::json runDiffJson(const RunDiff& diff);

} // namespace mantissa::train
