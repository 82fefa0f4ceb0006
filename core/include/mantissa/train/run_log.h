// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A training run as its JSONL log holds it, read back for browsing, plotting
// and reports. The format is the one `mantissa-cli train --log` writes (see
// app/cli/cmd_train.cpp); one JSON object per line:
//   {"header": true, "config": {...}, "recipe_table": [...], ...}   optional, first
//   {"step": 0, "loss": 2.30, "lr": 0.05, "loss_scale": 65536, ..., "telemetry": {...},
//    "scaling": {...}, "shadow": {...}}   (scaling: FP8 / microscaling recipes,
//    telemetry/scaling.h; shadow: the shadow pass, train/shadow.h)
//   {"eval": true, "step": 62, "test_loss": 0.42, "test_accuracy": 0.88}
//     (a GPT's: "test_loss" is its val_loss, with "val_loss" and "train_loss"
//     beside it and no accuracy; see run_log_rows.h)
//   {"summary": true, "test_accuracy": 0.92, ...}                   optional, last
// A run killed with kill -9 leaves its last line cut short: that one line is
// dropped (truncated = true) and every complete step is kept. Any other bad
// line is an error naming the file, the line number and the problem.
//
// Limits (a log that passes them is read in memory bounded by a small multiple
// of its size; one that breaks them is refused with a message naming the limit):
//   kMaxRunLogBytes   file size (only regular files: no FIFO, device, socket)
//   kMaxRunLogRows    step + eval rows
//   kMaxRunLogLineBytes  bytes of one line (a longer one is refused before it
//                     is parsed, or, in a stream, before the rest of it is kept)
//   kMaxRunLogDepth   JSON nesting depth of one line, no key twice in one
//                     object (io/json_text.h: every JSON of outside input)
//   kMaxRunLogStep    step indices (>= 0; steps strictly increasing, evals in
//                     order and after the step rows they follow, a telemetry
//                     frame's step equal to its row's)
// and the telemetry frame limits of telemetry/frame.h (277 bins, exponents,
// counts that add up without overflow). Fields are range-checked: a loss
// scale is 0 or lies in [kMinLoggedLossScale, kMaxLoggedLossScale], accuracies are
// fractions in [0, 1]. The header's and the summary's fields the program
// reads ("matmul_emulated", "stopped_early", "divergence", ...) are
// type-checked when the line is read, so a wrong type is an error naming the
// file, the line and the field, never an exception in a later reader.

#include <mantissa/amp/loss_scaler.h>
#include <mantissa/io/json_text.h>
#include <mantissa/telemetry/frame.h>
#include <mantissa/telemetry/scaling.h>
#include <mantissa/train/run_config.h>
#include <mantissa/train/shadow.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::train {

class RunLogError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

inline constexpr std::uintmax_t kMaxRunLogBytes = std::uintmax_t{256} << 20; // 256 MiB
inline constexpr std::size_t kMaxRunLogRows = std::size_t{1} << 20;          // 1,048,576
inline constexpr std::size_t kMaxRunLogLineBytes = std::size_t{8} << 20; // 8 MiB
inline constexpr std::size_t kMaxRunLogDepth = io::kMaxJsonDepth;
inline constexpr std::int64_t kMaxRunLogStep = std::int64_t{1} << 62;
// A loss scale as any scaler stores it: a float32, positive (subnormals
// included) or 0 (one held in float32 that backed off below them).
inline constexpr double kMinLoggedLossScale = std::numeric_limits<float>::denorm_min();
inline constexpr double kMaxLoggedLossScale = std::numeric_limits<float>::max();

// One optimizer step. Non-finite values were logged as null and read as NaN.
struct RunStepRow {
  std::int64_t step = 0;        // 0-based step index
  double loss = 0.0;            // mean training loss of the step (NaN if non-finite)
  double trainAccuracy = 0.0;   // fraction in [0, 1] of the step's batch
  double lr = 0.0;
  double lossScale = 1.0;       // after this step's scaler update
  double gradNorm = 0.0;        // NaN if non-finite
  double stepMs = 0.0;
  bool foundInf = false;
  bool skipped = false;
  int growthTracker = 0;
  int hysteresis = 0;
  std::vector<amp::ScalerEvent> events; // this step's scaler events (step = this step)
  nlohmann::json raw;           // the whole object as logged, without "telemetry"
};

struct RunEvalRow {
  std::int64_t step = 0;        // optimizer steps done when evaluated
  double testLoss = 0.0;        // NaN if non-finite (a GPT's: its val_loss)
  double testAccuracy = 0.0;    // fraction in [0, 1]; NaN when not logged (a GPT)
  std::int64_t samples = 0;
  double trainLoss = std::numeric_limits<double>::quiet_NaN(); // a GPT's train_loss; NaN if absent
  nlohmann::json raw;           // the whole object as logged
};

struct RunLog {
  std::string source;                    // file it was read from ("" if built in memory)
  nlohmann::json header;                 // the header object, or null when absent
  std::optional<RunConfig> config;       // header.config, when present
  std::vector<RunStepRow> steps;         // in log order (steps increasing)
  std::vector<RunEvalRow> evals;
  std::vector<telemetry::TelemetryFrame> frames; // from the steps that carried telemetry
  // FP8 / microscaling recipes: the step rows' "scaling" frames (telemetry/scaling.h),
  // in step order; empty for other recipes.
  std::vector<telemetry::ScalingFrame> scaling;
  // Runs with the shadow pass: the step rows' "shadow" frames (train/shadow.h), in step order.
  std::vector<ShadowFrame> shadow;
  nlohmann::json summary;                // the summary object, or null (killed run)
  bool truncated = false;                // an incomplete last line was dropped

  // "fp32", from the config, the summary or the header's "name"; "run" if none says.
  std::string name() const;
  // The frame of exactly `step`, or nullptr (frames are in increasing step
  // order: RunLogBuilder refuses anything else).
  const telemetry::TelemetryFrame* frameAt(std::int64_t step) const;
};

// Builds a RunLog one logged object at a time: what loadRunLog() does per
// line, and what a live run does with the very objects it writes to its log,
// so a report made live equals one made from the saved log.
class RunLogBuilder {
public:
  // Adds one object; throws RunLogError with `where` ("run.jsonl:12") prefixed.
  void add(const nlohmann::json& object, const std::string& where = "record");
  const RunLog& log() const { return m_log; }
  RunLog take() { return std::move(m_log); }

private:
  void addChecked(const nlohmann::json& object, const std::string& where);
  RunLog m_log;
};

// What `mantissa-cli train --export` keeps of a run as it goes, so memory stays
// bounded however long the run: the same objects as RunLogBuilder takes, with
// at most kMaxExportStepRows step rows (evenly spaced by a stride that doubles
// when the cap is reached; the first row, the row before each kept evaluation,
// the last row and a divergence row are always kept, scaler-event rows while
// they fit), kMaxExportFrames telemetry frames and kMaxExportEvals evaluations.
inline constexpr std::size_t kMaxExportStepRows = 20000;
inline constexpr std::size_t kMaxExportFrames = 256;
inline constexpr std::size_t kMaxExportEvals = 2000;

class RunLogDecimator {
public:
  void add(const nlohmann::json& object); // throws RunLogError as RunLogBuilder does, at take()
  RunLog take();                          // the kept objects, through a RunLogBuilder
  std::size_t stepRows() const;           // kept so far
  std::size_t frames() const;
  std::size_t evals() const;

private:
  void thin();
  nlohmann::json m_header;
  std::vector<nlohmann::json> m_rows; // kept step and eval rows, in order
  nlohmann::json m_pending;           // the latest step row not kept (null if none)
  nlohmann::json m_summary;
  std::int64_t m_stride = 1, m_frameStride = 1, m_evalStride = 1;
  std::int64_t m_evalIndex = 0;
  bool m_keepEvents = true;
  std::size_t m_stepRows = 0, m_frames = 0, m_evals = 0;
};

// Reads a JSONL run log. Throws RunLogError ("run.jsonl:7: step row: "loss"
// must be a number or null") for an unreadable file, an empty file, or any
// malformed line except an incomplete last one.
RunLog loadRunLog(const std::filesystem::path& path);

// The log as JSONL text: header, then steps (telemetry re-attached to its
// step) with evaluations placed after the step they follow, then the summary.
std::string runLogText(const RunLog& log);

// Writes runLogText() to `path` and the run's configuration as JSON to
// configPath(path) ("run.jsonl" -> "run.config.json"), each atomically.
// Throws io::AtomicFileError naming the path on failure.
void saveRun(const RunLog& log, const std::filesystem::path& path);
std::filesystem::path configPath(const std::filesystem::path& logPath);

} // namespace mantissa::train
