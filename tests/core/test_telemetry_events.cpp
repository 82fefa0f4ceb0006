// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The loss-scale stream against a scripted scaler trace (PyTorch GradScaler
// rules: init 2^16, x0.5 and skip on overflow, x2 after 2000 consecutive
// finite steps), the first-non-finite rule, the bound, and the JSONL form.
#include <mantissa/amp/loss_scaler.h>
#include <mantissa/telemetry/events.h>
#include <mantissa/telemetry/frame.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace {

namespace tl = mantissa::telemetry;
using mantissa::amp::ScalerEventKind;

TEST(EventLog, RecordsAScriptedPytorchTrace) {
  mantissa::amp::LossScaler scaler(mantissa::amp::scalerPreset("pytorch"));
  tl::EventLog log;
  // Overflows at steps 5 and 6; then 2000 finite steps 7..2006: growth at 2006.
  for (std::int64_t step = 0; step <= 2010; ++step) {
    const bool inf = step == 5 || step == 6;
    const auto u = scaler.update(step, inf);
    log.onScalerUpdate(step, inf, u, scaler.lastEvents());
  }
  std::vector<mantissa::amp::ScalerEvent> backoffs, growths, skips;
  for (const auto& e : log.scalerEvents()) {
    if (e.kind == ScalerEventKind::Backoff)
      backoffs.push_back(e);
    if (e.kind == ScalerEventKind::Growth)
      growths.push_back(e);
    if (e.kind == ScalerEventKind::SkippedStep)
      skips.push_back(e);
  }
  ASSERT_EQ(backoffs.size(), 2u);
  EXPECT_EQ(backoffs[0].step, 5);
  EXPECT_EQ(backoffs[0].scaleBefore, 65536.0);
  EXPECT_EQ(backoffs[0].scaleAfter, 32768.0);
  EXPECT_EQ(backoffs[1].step, 6);
  EXPECT_EQ(backoffs[1].scaleAfter, 16384.0);
  ASSERT_EQ(skips.size(), 2u);
  EXPECT_EQ(skips[1].step, 6);
  ASSERT_EQ(growths.size(), 1u);
  EXPECT_EQ(growths[0].step, 2006);
  EXPECT_EQ(growths[0].scaleAfter, 32768.0);
  EXPECT_EQ(log.total(ScalerEventKind::Backoff), 2u);
  EXPECT_EQ(log.total(ScalerEventKind::Growth), 1u);
  ASSERT_TRUE(log.lastRecord().has_value());
  EXPECT_EQ(log.lastRecord()->step, 2010);
  EXPECT_EQ(log.lastRecord()->state.scale, 32768.0);
  EXPECT_EQ(log.lastRecord()->state.growthTracker, 4); // steps 2007..2010
  EXPECT_FALSE(log.lastRecord()->skipped);
}

TEST(EventLog, KeepsTheFirstNonFiniteOfAStepAndStaysBounded) {
  tl::EventLog log(3);
  log.onNonFinite({10, 2, "matmul", tl::Pass::Backward});
  log.onNonFinite({10, 1, "relu", tl::Pass::Backward}); // same step: ignored
  for (std::int64_t s = 11; s < 15; ++s)
    log.onNonFinite({s, 0, "softmax_xent", tl::Pass::Forward});
  ASSERT_EQ(log.nonFiniteEvents().size(), 3u);
  EXPECT_EQ(log.nonFiniteEvents().front().step, 12);
  EXPECT_EQ(log.nonFiniteTotal(), 5u);
  EXPECT_EQ(log.dropped(), 2u);
  EXPECT_THROW(tl::EventLog(0), std::invalid_argument);
}

TEST(EventLog, JsonRoundTripsAndNamesBadFields) {
  const tl::LossScaleRecord r{12, {32768.0, 0, 1}, true, true};
  EXPECT_EQ(tl::lossScaleRecordFromJson(nlohmann::json::parse(tl::toJson(r).dump())), r);
  const mantissa::amp::ScalerEvent e{12, ScalerEventKind::Backoff, 65536.0, 32768.0};
  const auto j = tl::toJson(e);
  EXPECT_EQ(j.at("event"), "backoff");
  const auto back = tl::scalerEventFromJson(j);
  EXPECT_EQ(back.kind, e.kind);
  EXPECT_EQ(back.scaleAfter, 32768.0);
  const tl::NonFiniteEvent n{40, 2, "matmul", tl::Pass::Backward};
  EXPECT_EQ(tl::nonFiniteEventFromJson(tl::toJson(n)), n);

  auto bad = tl::toJson(r);
  bad.erase("loss_scale");
  EXPECT_THROW(tl::lossScaleRecordFromJson(bad), tl::TelemetryJsonError);
  auto badKind = j;
  badKind["event"] = "explosion";
  try {
    tl::scalerEventFromJson(badKind);
    FAIL();
  } catch (const tl::TelemetryJsonError& err) {
    EXPECT_NE(std::string(err.what()).find("explosion"), std::string::npos);
  }
}

} // namespace
