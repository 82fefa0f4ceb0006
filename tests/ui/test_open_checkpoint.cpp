// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// File > Open Checkpoint and the autosave on stop, through RunController:
// a checkpoint saved mid-run and opened to resume ends on the very loss bits
// and weights of a run that went straight through (a plain train::Session);
// a total at or below the saved step is refused; a GPT's checkpoint opened
// to sample generates the text `mantissa-cli sample` prints; hostile files
// (truncated, not a checkpoint, wrong tensor names) are refused by name and
// leave the runs as they were; a run that stops leaves its log and a
// checkpoint that restores in a folder of its own, and old folders go.

#include "drain_wait.h"
#include "ui/app_shell/main_window.h"
#include "ui/app_shell/open_checkpoint_dialog.h"
#include "ui/app_shell/run_files.h"
#include "ui/bridge/run_controller.h"
#include "ui/panels/generate_panel.h"
#include "ui/panels/train_panel.h"
#include "../build_tree.h"

#include <mantissa/io/safetensors.h>
#include <mantissa/model/network.h>
#include <mantissa/train/checkpoint.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/run_log.h>
#include <mantissa/train/session.h>

#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace mantissa::ui {
namespace {

train::RunConfig tiny(std::int64_t steps) {
  train::RunConfig c;
  c.data = "spirals";
  c.model = "mlp:2-16-2:tanh";
  c.recipe = "bf16-mixed";
  c.optimizer = "adamw";
  c.lr = 3e-3;
  c.batch = 32;
  c.steps = steps;
  c.telemetryEvery = 1;
  c.evalEvery = 1000000;
  return c;
}

template <class Pred> bool waitFor(RunController& c, Pred pred, int ms = 60000) {
  return waitDrained(c, pred, ms);
}

// Steps `steps` times while paused, then saves the run to `path`.
void saveAfter(RunController& c, int steps, const QString& path) {
  for (int i = 0; i < steps; ++i)
    c.stepOnce();
  ASSERT_TRUE(waitFor(c, [&] { return c.record(0).lastStep() == steps - 1; }));
  std::optional<QString> result;
  ASSERT_TRUE(c.saveCheckpoint(0, path, [&](const QString& error) { result = error; }));
  ASSERT_TRUE(waitFor(c, [&] { return result.has_value(); }));
  ASSERT_EQ(*result, QString());
}

// Opens `path` in `c`; returns "" or the problem.
QString open(RunController& c, const QString& path, RunController::CheckpointUse use,
             std::int64_t total) {
  std::optional<QString> result;
  if (!c.openCheckpoint(path, use, total, [&](const QString& error) { result = error; }))
    return QStringLiteral("not started");
  if (!waitFor(c, [&] { return result.has_value(); }))
    return QStringLiteral("no answer");
  return *result;
}

std::vector<float> weightsOf(RunController& c, int run, int layer) {
  std::optional<TensorSnapshot> got;
  EXPECT_TRUE(c.requestTensor(run, layer, telemetry::TensorClass::Weights,
                              [&](const TensorSnapshot& s) { got = s; }));
  EXPECT_TRUE(waitFor(c, [&] { return got.has_value(); }));
  // The copy holds each float as a double, exactly.
  return got ? std::vector<float>(got->values.begin(), got->values.end()) : std::vector<float>();
}

std::vector<std::uint32_t> bitsOf(std::span<const float> v) {
  std::vector<std::uint32_t> out;
  for (const float x : v)
    out.push_back(std::bit_cast<std::uint32_t>(x));
  return out;
}

TEST(OpenCheckpoint, ResumedToItsTotalEndsOnTheBitsOfAStraightRun) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString path = dir.filePath(QStringLiteral("mid.safetensors"));
  {
    RunController first;
    ASSERT_EQ(first.setRuns({tiny(12)}), QString());
    saveAfter(first, 5, path);
    first.shutdown();
  }

  RunController c;
  EXPECT_EQ(open(c, path, RunController::CheckpointUse::Resume, 12), QString());
  ASSERT_EQ(c.runCount(), 1);
  EXPECT_EQ(c.checkpointSource(0), path);
  EXPECT_EQ(c.state(), RunController::State::Paused) << "waits at its saved step";
  EXPECT_EQ(c.record(0).lastStep(), -1);
  c.resume();
  // (the last steps reach the record with the drains after Finished)
  EXPECT_TRUE(waitFor(c, [&] {
    return c.state() == RunController::State::Finished && c.record(0).lastStep() == 11;
  })) << "steps count on from the saved one: ran to " << c.record(0).lastStep();

  train::Session straight(tiny(12));
  std::vector<double> losses;
  for (int i = 0; i < 12; ++i)
    losses.push_back(straight.step().loss);
  QString error;
  const auto log = c.runLog(0, &error);
  ASSERT_TRUE(log) << error.toStdString();
  ASSERT_EQ(log->steps.size(), 7u);
  for (const auto& row : log->steps)
    EXPECT_EQ(std::bit_cast<std::uint64_t>(row.loss),
              std::bit_cast<std::uint64_t>(losses[std::size_t(row.step)]))
        << "step " << row.step;
  for (int layer = 0; layer < straight.model().layers(); ++layer)
    EXPECT_EQ(bitsOf(weightsOf(c, 0, layer)),
              bitsOf(straight.model().params()[std::size_t(layer)].w.f32()))
        << "layer " << layer;
  c.shutdown();
}

// The autosave's folder opened again: the log beside the checkpoint brings
// the steps before it, so the charts and the log run from step 0 on.
TEST(OpenCheckpoint, AnAutosavedRunResumesWithItsLogFromTheFirstStep) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  QString checkpoint;
  {
    RunController first;
    first.setAutosaveFolder(dir.path());
    QSignalSpy saved(&first, &RunController::autosaved);
    ASSERT_EQ(first.setRuns({tiny(12)}), QString());
    for (int i = 0; i < 5; ++i)
      first.stepOnce();
    ASSERT_TRUE(waitFor(first, [&] { return first.record(0).lastStep() == 4; }));
    first.stop();
    ASSERT_TRUE(waitFor(first, [&] { return saved.count() == 1; }));
    checkpoint = saved.at(0).at(1).toString();
    first.shutdown();
  }
  RunController c;
  EXPECT_EQ(open(c, checkpoint, RunController::CheckpointUse::Resume, 12), QString());
  ASSERT_EQ(c.runCount(), 1);
  EXPECT_EQ(c.record(0).lastStep(), 4) << "the steps before the checkpoint, from its log";
  ASSERT_NE(c.record(0).snapshot(), nullptr);
  EXPECT_EQ(c.record(0).snapshot()->stepsDone, 5);
  EXPECT_EQ(c.record(0).snapshot()->totalSteps, 12);
  c.resume();
  ASSERT_TRUE(waitFor(c, [&] { return c.state() == RunController::State::Finished; }));
  QString error;
  const auto log = c.runLog(0, &error);
  ASSERT_TRUE(log) << error.toStdString();
  train::Session straight(tiny(12));
  ASSERT_EQ(log->steps.size(), 12u);
  for (std::size_t i = 0; i < log->steps.size(); ++i) {
    EXPECT_EQ(log->steps[i].step, std::int64_t(i));
    EXPECT_EQ(std::bit_cast<std::uint64_t>(log->steps[i].loss),
              std::bit_cast<std::uint64_t>(straight.step().loss))
        << "step " << i;
  }
  c.shutdown();
}

TEST(OpenCheckpoint, ATotalAtOrBelowTheSavedStepIsRefusedAndChangesNothing) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString path = dir.filePath(QStringLiteral("at4.safetensors"));
  RunController c;
  ASSERT_EQ(c.setRuns({tiny(12)}), QString());
  saveAfter(c, 4, path);
  for (const std::int64_t total : {4, 2}) {
    const QString error = open(c, path, RunController::CheckpointUse::Resume, total);
    EXPECT_TRUE(error.contains(QStringLiteral("stopped at step 4"))) << error.toStdString();
    EXPECT_EQ(c.runCount(), 1);
  }
  const QString error = open(c, path, RunController::CheckpointUse::Sample, 0);
  EXPECT_TRUE(error.contains(QStringLiteral("not a GPT"))) << error.toStdString();
  EXPECT_EQ(c.runCount(), 1);
  EXPECT_EQ(c.record(0).lastStep(), 3);
  c.shutdown();
}

// The checkpoint's tensors and metadata, written again with Mantissa's
// plain safetensors writer, the first tensor under a name no model has.
void writeWrongNames(const QString& from, const QString& to) {
  const io::SafetensorsReader reader(from.toStdString());
  std::vector<std::vector<std::byte>> data;
  std::vector<io::SafetensorsEntry> entries;
  for (const auto& t : reader.header().tensors)
    data.push_back(reader.read(t));
  for (std::size_t i = 0; i < data.size(); ++i) {
    const auto& t = reader.header().tensors[i];
    entries.push_back({i == 0 ? std::string("layers.9.weight") : t.name, t.dtype, t.shape, data[i]});
  }
  io::writeSafetensors(to.toStdString(), entries, reader.header().metadata);
}

TEST(OpenCheckpoint, HostileFilesAreRefusedByNameAndTheRunsStayAsTheyWere) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString good = dir.filePath(QStringLiteral("good.safetensors"));
  RunController c;
  ASSERT_EQ(c.setRuns({tiny(12)}), QString());
  saveAfter(c, 3, good);
  QFile file(good);
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  const QByteArray bytes = file.readAll();
  file.close();

  const auto write = [&](const QString& name, const QByteArray& data) {
    QFile out(dir.filePath(name));
    EXPECT_TRUE(out.open(QIODevice::WriteOnly));
    out.write(data);
    return dir.filePath(name);
  };
  const QString truncated = write(QStringLiteral("truncated.safetensors"), bytes.left(bytes.size() / 2));
  const QString text = write(QStringLiteral("notes.safetensors"), QByteArray("ROMEO: not a checkpoint\n"));
  const QString wrong = dir.filePath(QStringLiteral("wrong.safetensors"));
  writeWrongNames(good, wrong);

  const QString name = c.runName(0);
  for (const QString& path : {truncated, text, wrong}) {
    std::optional<QString> seen;
    ASSERT_TRUE(c.inspectCheckpoint(
        path, [&](const std::optional<train::CheckpointInfo>&, const QString& e) { seen = e; }));
    ASSERT_TRUE(waitFor(c, [&] { return seen.has_value(); }));
    const QString error = open(c, path, RunController::CheckpointUse::Resume, 12);
    EXPECT_TRUE(error.contains(path)) << error.toStdString();
    EXPECT_EQ(c.runCount(), 1) << path.toStdString();
    EXPECT_EQ(c.runName(0), name);
    EXPECT_EQ(c.record(0).lastStep(), 2);
    EXPECT_EQ(c.state(), RunController::State::Paused);
    if (path == wrong) {
      EXPECT_EQ(*seen, QString()) << "its metadata is a checkpoint's";
      EXPECT_TRUE(error.contains(QStringLiteral("layers.9.weight"))) << error.toStdString();
    } else {
      EXPECT_TRUE(seen->contains(path)) << seen->toStdString();
    }
  }
  // The run goes on untouched.
  c.stepOnce();
  ASSERT_TRUE(waitFor(c, [&] { return c.record(0).lastStep() == 3; }));
  c.shutdown();
}

struct Window {
  MainWindow window;
  TrainPanel* train = nullptr;
  RunFiles* files = nullptr;
  RunController* c = nullptr;
  Window() {
    window.resize(1400, 900);
    window.show();
    train = window.findChild<TrainPanel*>();
    files = window.findChild<RunFiles*>();
    c = train ? train->controller() : nullptr;
  }
};

// File > Open Checkpoint past its file dialog: the metadata, the dialog and
// its inline refusal, then the run on the Train page, paused at its step.
TEST(OpenCheckpoint, TheDialogOffersResumeToATotalAboveTheSavedStep) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString path = dir.filePath(QStringLiteral("mlp.safetensors"));
  {
    RunController first;
    ASSERT_EQ(first.setRuns({tiny(12)}), QString());
    saveAfter(first, 6, path);
    first.shutdown();
  }
  Window w;
  ASSERT_TRUE(w.train && w.files && w.c);
  const int before = w.c->runCount();
  w.files->askToOpenCheckpoint(path);
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.files->checkpointDialog() != nullptr; }, 20000));
  OpenCheckpointDialog* dialog = w.files->checkpointDialog();
  EXPECT_TRUE(dialog->resumeButton()->isChecked());
  EXPECT_FALSE(dialog->sampleButton()->isEnabled()) << "an MLP generates no text";
  EXPECT_EQ(dialog->totalBox()->value(), 12) << "the saved run's total";
  EXPECT_TRUE(dialog->openButton()->isEnabled());
  dialog->totalBox()->setValue(6);
  EXPECT_FALSE(dialog->openButton()->isEnabled());
  EXPECT_FALSE(dialog->problemLabel()->isHidden());
  EXPECT_TRUE(dialog->problemLabel()->text().contains(QStringLiteral("step 6")))
      << dialog->problemLabel()->text().toStdString();
  dialog->totalBox()->setValue(9);
  EXPECT_TRUE(dialog->openButton()->isEnabled());
  EXPECT_TRUE(dialog->problemLabel()->isHidden());
  dialog->openButton()->click();
  ASSERT_TRUE(waitFor(*w.c, [&] {
    return w.c->runCount() > 0 && w.c->checkpointSource(w.c->runCount() - 1) == path;
  }));
  const int run = w.c->runCount() - 1;
  EXPECT_LE(w.c->runCount(), before + 1) << "runs built but not started make way";
  EXPECT_EQ(w.train->selectedRun(), run);
  EXPECT_EQ(w.c->session(run).totalSteps(), 9);
  EXPECT_EQ(w.c->state(), RunController::State::Paused);
  w.train->pauseAction()->trigger(); // Resume
  // Finished comes with the trainer's end; its last steps reach the record
  // with the drains after it.
  EXPECT_TRUE(waitFor(*w.c, [&] {
    return w.c->state() == RunController::State::Finished && w.c->record(run).lastStep() == 8;
  })) << "ran to step " << w.c->record(run).lastStep() << " of 9";
}

TEST(OpenCheckpoint, AFileThatIsNoCheckpointGetsAMessageAndTheRunsStay) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString path = dir.filePath(QStringLiteral("notes.safetensors"));
  QFile out(path);
  ASSERT_TRUE(out.open(QIODevice::WriteOnly));
  out.write("\x10\x00\x00\x00\x00\x00\x00\x00{\"a\": 1}", 17);
  out.close();
  Window w;
  ASSERT_TRUE(w.train && w.files && w.c);
  const int runs = w.c->runCount();
  const QString first = runs > 0 ? w.c->runName(0) : QString();
  w.files->askToOpenCheckpoint(path);
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.files->problemBox() != nullptr; }, 20000));
  const QString text = w.files->problemBox()->text();
  EXPECT_TRUE(text.contains(path)) << text.toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("unchanged"))) << text.toStdString();
  EXPECT_EQ(w.files->checkpointDialog(), nullptr);
  EXPECT_EQ(w.c->runCount(), runs);
  if (runs > 0) {
    EXPECT_EQ(w.c->runName(0), first);
  }
  w.files->problemBox()->close();
}

// A GPT's checkpoint opened to sample: the Generate dock at temperature 0
// writes what `mantissa-cli sample` prints.
TEST(OpenCheckpoint, AGptOpenedToSampleGeneratesWhatTheCliSamples) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString path = dir.filePath(QStringLiteral("gpt.safetensors"));
  train::RunConfig gpt = train::findPreset("shakespeare-char")->runs.front();
  gpt.steps = 3;
  gpt.warmupSteps = 1;
  gpt.telemetryEvery = 0;
  gpt.evalEvery = 1000;
  {
    RunController trained;
    ASSERT_EQ(trained.setRuns({gpt}), QString());
    saveAfter(trained, 2, path);
    trained.shutdown();
  }

  Window w;
  ASSERT_TRUE(w.train && w.files && w.c);
  std::optional<QString> result;
  ASSERT_TRUE(w.files->openCheckpoint(path, RunController::CheckpointUse::Sample, 0,
                                      [&](const QString& error) { result = error; }));
  ASSERT_TRUE(waitFor(*w.c, [&] { return result.has_value(); }));
  ASSERT_EQ(*result, QString());
  const int run = w.c->runCount() - 1;
  EXPECT_TRUE(w.c->isGpt(run));
  auto* genDock = w.train->findChild<QDockWidget*>(QStringLiteral("generateDock"));
  ASSERT_NE(genDock, nullptr);
  EXPECT_TRUE(genDock->isVisible());
  GeneratePanel* gen = w.train->generatePanel();
  ASSERT_TRUE(waitFor(*w.c, [&] { return gen->generateButton()->isEnabled(); }));
  gen->charactersBox()->setValue(60);
  gen->temperatureBox()->setValue(0.0);
  EXPECT_GE(gen->generate(), 1);
  ASSERT_TRUE(waitFor(*w.c, [&] { return gen->pending() == 0; }));
  const QString text = gen->text(run);
  EXPECT_EQ(text.size(), 60);

  QProcess cli;
  cli.start(QString::fromUtf8(mantissa::test::cliBinary()),
            {QStringLiteral("sample"), path, QStringLiteral("-n"), QStringLiteral("60"),
             QStringLiteral("--temperature"), QStringLiteral("0")});
  ASSERT_TRUE(cli.waitForFinished(120000));
  ASSERT_EQ(cli.exitCode(), 0) << cli.readAllStandardError().toStdString();
  EXPECT_EQ(QString::fromUtf8(cli.readAllStandardOutput()), text + QStringLiteral("\n"));
  EXPECT_EQ(w.c->trainerState(run), train::TrainerState::Finished) << "it does not train";
}

TEST(OpenCheckpoint, AStoppedRunLeavesItsLogAndACheckpointThatRestores) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString root = dir.filePath(QStringLiteral("runs"));
  RunController c;
  c.setAutosaveFolder(root, 2);
  QSignalSpy saved(&c, &RunController::autosaved);
  ASSERT_EQ(c.setRuns({tiny(40)}), QString());
  const QString folder = c.autosaveDir(0);
  EXPECT_TRUE(folder.startsWith(root)) << folder.toStdString();
  for (int i = 0; i < 5; ++i)
    c.stepOnce();
  ASSERT_TRUE(waitFor(c, [&] { return c.record(0).lastStep() == 4; }));
  c.stop();
  ASSERT_TRUE(waitFor(c, [&] { return saved.count() == 1; }));
  const QString checkpoint = saved.at(0).at(1).toString();
  EXPECT_EQ(saved.at(0).at(2).toString(), QString());
  EXPECT_EQ(QFileInfo(checkpoint).absolutePath(), QFileInfo(folder).absoluteFilePath());
  const QString base = checkpoint.left(checkpoint.size() - int(qstrlen(".safetensors")));
  EXPECT_TRUE(QFileInfo::exists(base + QStringLiteral(".jsonl")));
  EXPECT_TRUE(QFileInfo::exists(base + QStringLiteral(".config.json")));
  const auto log = train::loadRunLog((base + QStringLiteral(".jsonl")).toStdString());
  EXPECT_EQ(log.steps.size(), 5u);
  EXPECT_TRUE(log.summary.is_object()) << "the log ends with its summary";

  const train::CheckpointInfo info = train::readCheckpointInfo(checkpoint.toStdString());
  EXPECT_EQ(info.step, 5);
  train::Session restored(info.config), straight(tiny(40));
  train::restoreCheckpoint(restored, checkpoint.toStdString(), train::RestoreScope::Everything);
  for (int i = 0; i < 8; ++i) {
    const double expected = straight.step().loss;
    if (i >= 5) {
      EXPECT_EQ(std::bit_cast<std::uint64_t>(restored.step().loss),
                std::bit_cast<std::uint64_t>(expected))
          << "step " << i;
    }
  }

  // Two more runs that end: only the two newest folders stay.
  for (int n = 0; n < 2; ++n) {
    ASSERT_EQ(c.setRuns({tiny(2)}), QString());
    c.start();
    ASSERT_TRUE(waitFor(c, [&] { return saved.count() == 2 + n; }));
  }
  EXPECT_FALSE(QFileInfo::exists(folder)) << "the oldest went";
  EXPECT_EQ(QDir(root).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size(), 2);
  EXPECT_TRUE(QFileInfo::exists(c.autosaveDir(0)));
  c.shutdown();

  RunController off; // no folder: nothing written
  QSignalSpy none(&off, &RunController::autosaved);
  ASSERT_EQ(off.setRuns({tiny(2)}), QString());
  EXPECT_EQ(off.autosaveDir(0), QString());
  off.start();
  ASSERT_TRUE(waitFor(off, [&] { return off.state() == RunController::State::Finished; }));
  off.shutdown();
  EXPECT_EQ(none.count(), 0);
}

} // namespace
} // namespace mantissa::ui
