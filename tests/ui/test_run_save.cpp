// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Save Run of a live GUI run: saved mid-run (paused after K steps, and while
// training) and at the end, the log holds every step up to the save, reopens
// with those steps, and equals what `mantissa-cli train --log` writes for the
// same configuration and seed except for timing fields.
#include "drain_wait.h"
#include "spawn_process.h"
#include "ui/bridge/run_controller.h"
#include "../build_tree.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::ui {
namespace {

using nlohmann::json;

constexpr std::int64_t kSteps = 60;

train::RunConfig config() {
  train::RunConfig c;
  c.data = "spirals";
  c.model = "mlp:2-16-2:tanh";
  c.recipe = "fp16-mixed";
  c.batch = 32;
  c.steps = kSteps;
  c.seed = 3;
  c.evalEvery = 20;
  c.telemetryEvery = 10;
  return c;
}

// The same run from the command line (spawn_process.h: not QProcess, which
// TSan cannot follow), with its own platform choice.
QString cliLog(const QTemporaryDir& dir) {
  const QString path = dir.filePath("cli.jsonl");
  const auto r = mantissa::test::spawnProcess(
      mantissa::test::cliBinary(),
      {"train", "--data", "spirals", "--model", "mlp:2-16-2:tanh", "--recipe", "fp16-mixed",
       "--batch", "32", "--steps", std::to_string(kSteps), "--seed", "3", "--eval-every", "20",
       "--telemetry-every", "10", "--log", path.toStdString(), "--quiet"},
      {"QT_QPA_PLATFORM"});
  if (r.exitCode != 0)
    ADD_FAILURE() << "mantissa-cli train failed (exit " << r.exitCode << "): " << r.err;
  return path;
}

// The log's objects, with the fields that measure time removed.
std::vector<json> rowsWithoutTiming(const QString& path) {
  std::vector<json> rows;
  std::ifstream in(QFile::encodeName(path).toStdString());
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line);
    j.erase("step_ms");
    j.erase("breakdown_ms");
    j.erase("wall_s");
    if (j.contains("telemetry"))
      j["telemetry"].erase("telemetry_ms");
    rows.push_back(std::move(j));
  }
  return rows;
}

// Equal row by row; on a difference, names the first differing row (not the whole logs).
::testing::AssertionResult sameRows(const std::vector<json>& a, const std::vector<json>& b) {
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (a[i] != b[i]) {
      std::string where;
      for (const auto& [key, value] : a[i].items())
        if (!b[i].contains(key) || b[i][key] != value)
          where += " " + key;
      return ::testing::AssertionFailure() << "row " << i << " differs in" << where << ": "
                                           << a[i].dump().substr(0, 300) << " vs "
                                           << b[i].dump().substr(0, 300);
    }
  if (a.size() != b.size())
    return ::testing::AssertionFailure() << a.size() << " rows vs " << b.size();
  return ::testing::AssertionSuccess();
}

template <class Pred> bool waitFor(RunController& c, Pred pred, int ms = 60000) {
  return waitDrained(c, pred, ms);
}

// Step indices of the log's step rows, in order.
std::vector<std::int64_t> stepsOf(const std::vector<json>& rows) {
  std::vector<std::int64_t> steps;
  for (const json& j : rows)
    if (!j.contains("header") && !j.contains("eval") && !j.contains("summary"))
      steps.push_back(j["step"].get<std::int64_t>());
  return steps;
}

// The first rows of `full` up to and including step `lastStep` and the
// evaluations logged before the next step.
std::vector<json> prefix(const std::vector<json>& full, std::int64_t lastStep) {
  std::vector<json> out;
  for (const json& j : full) {
    const bool step = !j.contains("header") && !j.contains("eval") && !j.contains("summary");
    if ((step && j["step"].get<std::int64_t>() > lastStep) || j.contains("summary"))
      break;
    out.push_back(j);
  }
  return out;
}

TEST(RunSave, LiveRunSavedMidRunAndAtTheEndEqualsTheCliLog) {
  QTemporaryDir dir;
  const std::vector<json> cli = rowsWithoutTiming(cliLog(dir));
  ASSERT_EQ(stepsOf(cli).size(), std::size_t(kSteps));

  RunController c;
  ASSERT_EQ(c.setRuns({config()}), "");
  EXPECT_FALSE(c.isLoaded(0));
  // Paused after 25 steps: the save holds exactly steps 0..24 and the eval after 20.
  for (int i = 0; i < 25; ++i)
    c.stepOnce();
  ASSERT_TRUE(waitFor(c, [&] { return c.record(0).lastStep() == 24; }));
  const QString paused = dir.filePath("paused.jsonl");
  ASSERT_EQ(c.saveRun(0, paused), "");
  EXPECT_TRUE(QFile::exists(dir.filePath("paused.config.json")));
  const std::vector<json> atPause = rowsWithoutTiming(paused);
  EXPECT_EQ(stepsOf(atPause).size(), 25u);
  EXPECT_TRUE(sameRows(atPause, prefix(cli, 24)));

  // While training: whatever the save catches is a prefix of the CLI's log,
  // row for row. It may end between a step and the evaluation after it, or
  // hold the whole log: on a fast or a loaded machine (this thread preempted
  // after resume()) the remaining 35 steps and the summary can all be written
  // before the save copies the log.
  c.resume();
  const QString running = dir.filePath("running.jsonl");
  ASSERT_EQ(c.saveRun(0, running), "");
  const std::vector<json> whileRunning = rowsWithoutTiming(running);
  ASSERT_GE(stepsOf(whileRunning).size(), 25u);
  ASSERT_LE(whileRunning.size(), cli.size());
  EXPECT_TRUE(sameRows(whileRunning, std::vector<json>(cli.begin(), cli.begin() + std::ptrdiff_t(
                                                                          whileRunning.size()))));

  ASSERT_TRUE(waitFor(c, [&] { return c.state() == RunController::State::Finished; }));
  c.shutdown(); // joined: the summary line (written after Finished) is in
  const QString end = dir.filePath("end.jsonl");
  ASSERT_EQ(c.saveRun(0, end), "");
  EXPECT_TRUE(sameRows(rowsWithoutTiming(end), cli));

  // Each save reopens with every step up to it, beside the live run.
  ASSERT_EQ(c.loadRun(paused), "");
  ASSERT_EQ(c.loadRun(end), "");
  ASSERT_EQ(c.runCount(), 3);
  EXPECT_TRUE(c.isLoaded(1) && c.isLoaded(2));
  EXPECT_EQ(c.record(1).lastStep(), 24);
  EXPECT_EQ(c.record(1).history().rowsAppended(), 25);
  EXPECT_EQ(c.record(1).testLoss().size(), 1u);
  EXPECT_EQ(c.record(2).lastStep(), kSteps - 1);
  EXPECT_EQ(c.record(2).frames().size(), std::size_t(kSteps / 10));
  // The reopened record draws the same loss curve as the live one.
  EXPECT_EQ(c.record(2).history().series(RunRecord::Loss),
            c.record(0).history().series(RunRecord::Loss));
  EXPECT_EQ(c.record(2).testLoss(), c.record(0).testLoss());
}

TEST(RunSave, ALogThatCannotBeWrittenIsAnErrorNamingThePath) {
  RunController c;
  ASSERT_EQ(c.setRuns({config()}), "");
  c.stepOnce();
  ASSERT_TRUE(waitFor(c, [&] { return c.record(0).lastStep() == 0; }));
  const QString bad = QStringLiteral("/proc/mantissa-none/run.jsonl");
  const QString error = c.saveRun(0, bad);
  EXPECT_TRUE(error.contains(bad)) << error.toStdString();
}

} // namespace
} // namespace mantissa::ui
