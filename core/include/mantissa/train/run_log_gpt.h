// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A GPT run's log objects, in the run-log format of run_log.h (the one MLP
// runs write): `mantissa-cli train --log` with a GPT and the GUI's GPT runs
// write these, and loadRunLog / RunLogBuilder read them like any run.
//
//   {"header": true, "name": "fp32", "model": "gpt:...", "config": {...},
//    "policy": "fp32", "policy_table": [{op, precision}], "recipe_table":
//    [{op, precision, note}] (note: the kernel or emulation that ran),
//    "bytes": {...}, "bytes_at_recipe_precision": {...} (as every run's: run_log_rows.h),
//    "layers": [...] (telemetry layer names: GptRun::telemetryLayers),
//    "matmul": ..., "total_steps": ..., "telemetry_every": K, "parameters": ...,
//    "vocabulary": ..., "data": ..., "machine": {...}}
//   {"step": 0, "loss": ..., "lr": ..., "loss_scale": ..., "found_inf": ..., "skipped": ...,
//    "step_ms": ..., "grad_norm": ..., "op_ms": {"embedding": ..., ...}, "matmul_ms": ...,
//    "breakdown_ms": {"matmul_fwd", "matmul_bwd", "conversion", "elementwise", "loss",
//                     "optimizer", "telemetry", "data"} (the op kinds of every run's log),
//    "telemetry": {...}}                              every K steps
//   {"eval": true, "step": 250, "test_loss": <val_loss>, "val_loss": ..., "train_loss": ...}
//   {"summary": true, "recipe": <name>, "policy": ..., "val_loss": ..., "train_loss": ...,
//    "test_loss": <val_loss>, "steps": ..., "skipped_steps": ..., "wall_s": ...,
//    "sample": "...", "stopped_early": ..., "diverged": false, "divergence": {"message": ...}}
// Non-finite numbers are written as null.

#include <mantissa/train/gpt_run.h>

#include <nlohmann/json.hpp>

#include <string>

namespace mantissa::train {

// The run's name in its log (header "name", summary "recipe"): the recipe,
// or the policy's canonical spec when one was given.
std::string gptRunName(const Session& session); // precondition: session.gpt()
std::string gptRunName(const GptRun& run);

// The fixed parts of the run (what construction fixed).
nlohmann::json gptLogHeader(const Session& session); // precondition: session.gpt()
nlohmann::json gptLogHeader(const GptRun& run);
nlohmann::json gptLogStep(const GptStep& step);
nlohmann::json gptLogEval(const GptEval& eval);
nlohmann::json gptLogEval(const EvalReport& eval);

struct GptSummary {
  GptEval last; // the final evaluation
  std::int64_t steps = 0;
  std::int64_t skippedSteps = 0;
  double wallSeconds = 0.0;
  std::string sample;        // "" when none was asked for
  bool stoppedEarly = false; // interrupted or stopped before the last step
  std::optional<std::string> divergence;
};
GptSummary gptSummary(const GptRun& run, const GptEval& last, double wallSeconds,
                      std::string sample);
// The summary of a run a Trainer (or runToCompletion) ended.
GptSummary gptSummary(const RunSummary& summary, std::string sample);
nlohmann::json gptLogSummary(const Session& session, const GptSummary& summary);
nlohmann::json gptLogSummary(const GptRun& run, const GptSummary& summary);

// The op table of a GPT run (model::GptNetwork::opRows): one row per op class
// with the precision it ran in and how (the matmul kernel, 16-bit emulation,
// max subtraction).
struct GptOpRow {
  std::string op, precision, note;
};
std::vector<GptOpRow> gptOpTable(const GptRun& run);

} // namespace mantissa::train
