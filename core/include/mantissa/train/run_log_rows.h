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
#include <string>
#include <vector>

namespace mantissa::train {

// The header's memory accounting, for every model: "bytes" (really allocated
// per tensor class, Session::allocatedBytes) and "bytes_at_recipe_precision"
// (the plan's tensors at their formats, per role).
nlohmann::json allocatedBytesJson(const Session& session);
nlohmann::json planBytesJson(const Session& session);
// One entry of the header's "matmuls", and back: nullopt for an entry that is
// not an object with a known "product" and "path" and integer m, n, k (other
// fields missing or of the wrong type read as empty).
nlohmann::json matmulUseJson(const nn::MatmulUse& use);
std::optional<nn::MatmulUse> matmulUseFromJson(const nlohmann::json& entry);
// All readable entries of an array (none for a missing or non-array value).
std::vector<nn::MatmulUse> matmulUsesFromJson(const nlohmann::json& array);
// The run's name in its log (a GPT header's "name", every summary's
// "recipe"): the recipe, or a GPT's policy spec when one was given.
std::string runName(const Session& session);

// The objects of any run's log, one path for every model; a model adds the
// fields it has:
//   header  {"header": true, "config": {...}, "recipe_table": [...], "scaler": ...,
//            "bytes": {...} (really allocated per tensor class, Session::allocatedBytes),
//            "bytes_at_recipe_precision": {...} (the same tensors at the recipe's formats),
//            "matmul": the first product's kernel and path, "matmul_emulated": ...,
//            "matmuls": [{"layer", "product" ("forward", "dX", "dW"), "m", "n", "k",
//            "path" ("native", "fp32-compute"), "inputs", "kernel", "reason", "result"}],
//            "total_steps", "parameters", "data", "machine": {...}}
//           images: "train_samples", "test_samples"; a CNN: "conv", "conv_emulated",
//           "layers"; a GPT: "name", "model", "policy", "policy_table" [{op, precision}],
//           "layers" (its telemetry frames' tensors), "telemetry_every", "vocabulary".
//           Only what construction fixed is read, so any thread may call it
//           before the run starts.
//   step    {"step": 0, "loss", "lr", "loss_scale", "found_inf", "skipped", "step_ms",
//            "grad_norm", "epoch", "train_accuracy", "clip_factor", ..., "breakdown_ms":
//            {"matmul_fwd", "matmul_bwd", "conversion", "elementwise", "loss", "optimizer",
//            "telemetry", "data"}, "telemetry": {...}, "scaling": {...}, "divergence": {...}}
//           a GPT: "op_ms" {per op, forward + backward} and "matmul_ms", read from the
//           network: call it right after the step, on the thread that ran it.
//   eval    {"eval": true, "step": 62, "test_loss": ...} with "test_accuracy" and
//           "samples" (images), or "val_loss" (= test_loss) and "train_loss" (a GPT)
//   summary {"summary": true, "recipe", "test_loss", "steps", "skipped_steps", "wall_s",
//            "stopped_early", "diverged", "divergence": {...}} with "test_accuracy"
//           (images), or "policy", "val_loss" and "train_loss" (a GPT)
nlohmann::json runLogHeader(const Session& session);
nlohmann::json runLogStep(const Session& session, const StepReport& report);
nlohmann::json runLogEval(const Session& session, const EvalReport& eval);
nlohmann::json runLogSummary(const Session& session, const RunSummary& summary);

} // namespace mantissa::train
