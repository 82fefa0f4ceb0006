// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A saved run brought into the dashboard with no training: its JSONL log
// (Save Run, or `mantissa-cli train --log`) turned into the rows and the
// final snapshot its trainer would have published, so RunRecord::apply() and
// every Train page view treat it exactly like a live run. RunFacts are the
// fixed parts a view needs (layer widths, recipe, matmul backend, scaler),
// from the session of a live run or the header of a loaded one.

#include "ui/bridge/run_data.h"

#include <mantissa/amp/policy.h>
#include <mantissa/amp/recipe.h>
#include <mantissa/train/run_log.h>
#include <mantissa/train/session.h>

#include <QString>

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace mantissa::ui {

struct RunFacts {
  std::vector<int> widths;             // [features, hidden..., classes]; empty if unknown
  const amp::Recipe* recipe = nullptr; // nullptr: the log names no known recipe
  // The precision policy the run's tensors follow (train::runPolicy);
  // nullopt when the log does not say.
  std::optional<amp::Policy> policy;
  QString matmul;                      // "gemm:jit", "" if unknown
  bool matmulEmulated = false;         // 16-bit storage, FP32 compute
  QString conv;                        // the convolutions' kernel; "" without convolutions
  bool convEmulated = false;
  std::vector<std::array<QString, 3>> modelOpRows; // the model's own ops (Network::opRows)
  std::vector<nn::MatmulUse> matmuls;  // every product's path; empty if the log has none
  QString scalerDescription;           // amp::describeScaler(), "none"
  QString scalerPreset;                // "pytorch", ...; "" without loss scaling
  std::int64_t totalSteps = 0;         // planned optimizer steps
  int telemetryEvery = 0;              // 0: no histograms recorded
  // Logs of other trainers (a PyTorch tap): the header's names of the
  // layers (modules) and its op table (op, precision, note), when it has them.
  std::vector<QString> layerNames;
  struct OpRow {
    QString op, precision, note;
  };
  std::vector<OpRow> opRows;
  QString source; // "pytorch" for a tap's log; "" for Mantissa's own
};

RunFacts runFacts(const train::Session& session);
RunFacts runFacts(const train::RunLog& log);

// Mean time per step of each op group: `total` summed over `steps` steps
// (all zero when steps <= 0). Live publications and loaded logs both use it.
model::OpTimes meanOpTimes(const model::OpTimes& total, std::int64_t steps);

// Every step row (with its telemetry frame), every evaluation, and a finished
// snapshot (steps, elapsed time, mean op times, the summary when the run
// wrote one; none when it was killed).
RunMailbox::Drained drainedFromLog(const train::RunLog& log);

} // namespace mantissa::ui
