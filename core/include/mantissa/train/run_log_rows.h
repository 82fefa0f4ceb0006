// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The objects of a run's JSONL log (format in run_log.h), made from what the
// trainer reports. `mantissa-cli train --log` and the GUI's live run log both
// write these, so a run saved from the dashboard reads exactly like one
// trained on the command line. Non-finite numbers are written as null.

#include <mantissa/train/session.h>
#include <mantissa/train/step_report.h>

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace mantissa::train {

// {"header": true, "config": {...}, "recipe_table": [...], "bytes": {...}
//  (really allocated per tensor class, Session::allocatedBytes),
//  "bytes_at_recipe_precision": {...} (the same tensors at the recipe's formats),
//  "matmul": the first product's kernel and path (as logs have always had it),
//  "matmuls": [{"layer", "product" ("forward", "dX", "dW"), "m", "n", "k",
//  "path" ("native", "fp32-compute"), "inputs", "kernel", "reason", "result"}]
//  (every product; absent in older logs), "total_steps": ..., "machine": {...}, ...}: the fixed
//  parts
// of the session (read only what construction fixed, so any thread may call it
// before the run starts).
nlohmann::json logHeader(const Session& session);
// The header's memory accounting, for every model: "bytes" (really allocated
// per tensor class, Session::allocatedBytes) and "bytes_at_recipe_precision"
// (the plan's tensors at their formats, per role).
nlohmann::json allocatedBytesJson(const Session& session);
nlohmann::json planBytesJson(const Session& session);
// {"step": 0, "loss": ..., ..., "breakdown_ms": {...}, "telemetry": {...}}
nlohmann::json logStep(const StepReport& report);
// One entry of the header's "matmuls", and back: nullopt for an entry that is
// not an object with a known "product" and "path" and integer m, n, k (other
// fields missing or of the wrong type read as empty).
nlohmann::json matmulUseJson(const nn::MatmulUse& use);
std::optional<nn::MatmulUse> matmulUseFromJson(const nlohmann::json& entry);
// All readable entries of an array (none for a missing or non-array value).
std::vector<nn::MatmulUse> matmulUsesFromJson(const nlohmann::json& array);
// {"eval": true, "step": 62, "test_loss": ..., "test_accuracy": ..., "samples": ...}
nlohmann::json logEval(const EvalReport& eval);
// {"summary": true, "test_accuracy": ..., "steps": ..., "wall_s": ..., ...}
nlohmann::json logSummary(const RunSummary& summary);

// The objects of any run's log, from its session: those above for an MLP or
// CNN, a GPT's of run_log_gpt.h (its policy and op table, val_loss and
// train_loss, the per-op times). runLogStep reads the GPT's op times from
// the network: call it right after the step, on the thread that ran it.
nlohmann::json runLogHeader(const Session& session);
nlohmann::json runLogStep(const Session& session, const StepReport& report);
nlohmann::json runLogEval(const Session& session, const EvalReport& eval);
nlohmann::json runLogSummary(const Session& session, const RunSummary& summary);

} // namespace mantissa::train
