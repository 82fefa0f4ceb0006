// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// File > Open Run on a log whose header and summary hold numbers no run
// writes: doubles far outside the integer fields' range are never cast (UB),
// the field falls back as when it is absent.
#include "ui/bridge/run_loader.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <limits>

namespace mantissa::ui {
namespace {

using nlohmann::json;

TEST(RunLoaderHostile, OutOfRangeDoublesFallBack) {
  train::RunLog log;
  for (std::int64_t s = 0; s < 3; ++s) {
    train::RunStepRow row;
    row.step = s;
    row.loss = 1.0;
    row.raw = {{"step", s},
               {"loss", 1.0},
               {"divergence", {{"step", 1e300}, {"layer", -1e19}, {"pass", "forward"}}}};
    log.steps.push_back(row);
  }
  log.header = {{"header", true}, {"total_steps", 1e300}};
  log.summary = {{"summary", true},
                 {"steps", -1e300},
                 {"skipped_steps", std::numeric_limits<double>::infinity()},
                 {"divergence", {{"step", 9.3e18}, {"layer", 3e9}}}};
  const RunFacts facts = runFacts(log);
  EXPECT_EQ(facts.totalSteps, 3); // as if absent: the steps present
  const auto drained = drainedFromLog(log);
  ASSERT_TRUE(drained.snapshot);
  ASSERT_TRUE(drained.snapshot->summary.has_value());
  EXPECT_EQ(drained.snapshot->summary->steps, 3);
  EXPECT_EQ(drained.snapshot->summary->skippedSteps, 0);
  ASSERT_TRUE(drained.snapshot->summary->divergence.has_value());
  EXPECT_EQ(drained.snapshot->summary->divergence->step, 0);
  EXPECT_EQ(drained.snapshot->summary->divergence->layer, 0);
  ASSERT_TRUE(drained.rows.back().divergence.has_value());
  EXPECT_EQ(drained.rows.back().divergence->layer, 0);
  // In range, read as written.
  log.summary["steps"] = 2.0;
  log.summary["divergence"] = {{"step", 2}, {"layer", 1}};
  const auto again = drainedFromLog(log);
  EXPECT_EQ(again.snapshot->summary->steps, 2);
  EXPECT_EQ(again.snapshot->summary->divergence->layer, 1);
}

} // namespace
} // namespace mantissa::ui
