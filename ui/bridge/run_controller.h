// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "ui/bridge/run_loader.h"
#include "ui/bridge/run_record.h"
#include "ui/bridge/tensor_snapshot.h"
#include "ui/bridge/thread_handoff.h"

#include <mantissa/telemetry/histogram.h>
#include <mantissa/train/checkpoint.h>
#include <mantissa/train/run_config.h>
#include <mantissa/train/trainer.h>

#include <QColor>
#include <QObject>
#include <QString>
#include <QTemporaryDir>
#include <QTimer>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace mantissa::ui {

class RunFollower;

// Owns one core Trainer per run (several side by side, one colour each: MLPs,
// CNNs and GPTs alike) and
// brings their progress to the GUI thread. Each trainer thread appends a row
// per step to its run's mailbox and, at most every ~30 ms (always when
// paused, finished or diverged), publishes a snapshot and nudges the
// controller. The first nudge starts a single-shot timer (33 ms, longer while
// the GUI thread uses more than 8% of a core: drainGap()); its timeout drains
// every mailbox by swap and then emits updated() for the views to redraw.
// A mailbox that fills between two drains coalesces its rows (StepRow::absorb)
// instead of dropping them. Threads hand over data, never widgets.
//
// Each live run also writes its full JSONL log while it trains (LiveRunLog:
// the objects `mantissa-cli train --log` writes), so saveRun() can write the
// whole run at any moment. A saved run can be opened beside the others
// (loadRun): it has no trainer, its record is filled once from the log, and
// it counts as finished.
class RunController : public QObject {
  Q_OBJECT
public:
  enum class State { Empty, Ready, Running, Paused, Finished };

  explicit RunController(QObject* parent = nullptr);
  ~RunController() override; // stops and joins every trainer

  // Replaces the runs (stopping any current ones), each a train::Trainer on
  // its own thread: MLPs and CNNs on images, GPTs ("gpt:..." models) on text.
  // Data sets and texts are loaded once per distinct data spec, as
  // train::Session loads them (so a run equals the one `mantissa-cli train`
  // makes). Returns "" or the problems, one per line, naming the run
  // ("bf16-mixed: lr: must be ...").
  QString setRuns(const std::vector<train::RunConfig>& configs);

  bool isGpt(int run) const; // a live GPT run
  bool hasGptRuns() const;
  // Text from a GPT run's current weights, made by the run's own thread
  // between steps (never racing a step); `done` is called on the GUI thread
  // (with this controller alive). False, and no call, when `run` is not a
  // started GPT run.
  bool sampleGpt(int run, int characters, double temperature, std::uint64_t seed,
                 std::function<void(const QString&)> done);

  // The next step of each live run that is training or paused runs the
  // shadow pass against a reference in `precision` (F32 or F64:
  // train::Trainer::requestShadow); its frame arrives with that step's row.
  // `refused` is called on the GUI thread (with this controller alive) with
  // the run and why it cannot be shadowed. Returns the runs asked.
  int requestShadow(train::ShadowPrecision precision,
                    std::function<void(int run, const QString& why)> refused);

  // Writes a live run to a checkpoint (train::saveCheckpoint: weights,
  // working copies and every state a resume needs), made by the run's own
  // thread between two steps, paused or finished alike. `done` gets "" or
  // the error on the GUI thread (with this controller alive). False, and no
  // call, when `run` is not a started live run.
  bool saveCheckpoint(int run, const QString& path, std::function<void(const QString&)> done);

  // What an opened checkpoint becomes: a run that trains on from its saved
  // step (its state restored: train::RestoreScope::Everything, its data
  // loaded from its configuration), or a GPT's weights that only sample
  // (train::openCheckpointForSampling: what `mantissa-cli sample` uses).
  enum class CheckpointUse { Resume, Sample };
  // Opens a checkpoint as one more live run. The file is read, the data
  // loaded and the state restored on a worker thread; then, on the GUI
  // thread, the run joins the others (runs built but not started yet are
  // dropped first, as by loadRun), paused at its saved step (Resume, to
  // `totalSteps` in all, which must lie above it) or finished (Sample: the
  // Generate dock samples it). `done` gets "" or the problem naming the
  // file; on a problem the runs are left as they were. False, and no call,
  // while another checkpoint is being opened.
  bool openCheckpoint(const QString& path, CheckpointUse use, std::int64_t totalSteps,
                      std::function<void(const QString&)> done);
  bool isOpeningCheckpoint() const { return m_opening; }
  // What a checkpoint holds (train::readCheckpointInfo: its header only),
  // read on the same worker thread; `done` gets the info, or nullopt and the
  // problem naming the file. False, and no call, while another is read.
  bool inspectCheckpoint(
      const QString& path,
      std::function<void(const std::optional<train::CheckpointInfo>&, const QString&)> done);
  // A run opened from a checkpoint: its file ("" otherwise).
  QString checkpointSource(int run) const;

  // Autosave: when a live run that took a step ends (its last step, Stop, a
  // divergence, the runs replaced or the window closed), its own thread writes its log
  // (<name>.jsonl, with its configuration) and its checkpoint
  // (<name>.safetensors) into a folder of its own under `folder`
  // (<yyyyMMdd-HHmmss>-<run id>), atomically; autosaved() then reports it.
  // The `keep` most recent such folders stay; older ones are removed.
  // "" turns it off (the default). Applies to runs built afterwards.
  void setAutosaveFolder(const QString& folder, int keep = 20);
  QString autosaveFolder() const { return m_autosaveFolder; }
  QString autosaveDir(int run) const; // this run's folder ("" when not autosaved)

  // A copy of a live MLP or CNN run's tensor (Weights or WeightGrads of
  // `layer`): taken on its training thread between two steps, or at once when
  // no thread runs (not started, or ended). `done` is called on the GUI thread
  // (with this controller alive). False, and no call, for a loaded or GPT run,
  // another class, or a layer the model does not have.
  bool requestTensor(int run, int layer, telemetry::TensorClass cls,
                     std::function<void(const TensorSnapshot&)> done);

  // Opens a saved run (JSONL log) as one more run, read-only. Runs built but
  // not started yet are dropped first; started ones keep going beside it.
  // Returns "" or the problem naming the file and line; the current runs are
  // then left as they were.
  QString loadRun(const QString& path);
  // Follows a log another process is still writing (RunFollower): opened
  // like loadRun(), its steps are added as they are written. When following
  // stops (the file truncated, replaced, removed, or a bad line) the run so
  // far stays and followStopped() says why. "" or the problem.
  QString followRun(const QString& path);
  bool isFollowing(int run) const;            // still following its file
  QString followError(int run) const;         // why following stopped ("" while it goes on)
  const RunFollower* follower(int run) const; // nullptr unless followed
  bool isLoaded(int run) const;
  int loadedCount() const;
  QString runSource(int run) const; // loaded run: its file; live run: ""

  // Writes the run's complete log so far (header, every step with its
  // telemetry, evaluations, the summary once finished) and its
  // configuration (train::configPath) atomically. "" or the error.
  QString saveRun(int run, const QString& path) const;
  // The run's log as of now (for reports and chart export); nullopt with
  // *error set when it cannot be read.
  std::optional<train::RunLog> runLog(int run, QString* error) const;

  int runCount() const { return int(m_runs.size()); }
  QString runId(int run) const;   // "run1"
  // "bf16-mixed"; distinct among the runs: runs of one recipe add what
  // differs ("fp16-mixed · scaler pytorch", "fp16-mixed · no scaler").
  QString runName(int run) const;
  // Every setting the run was built with, one "key: value" a line (the
  // run's tooltip).
  QString runSettings(int run) const;
  // Which run this is: never given to another run by this controller, so a
  // view can keep its selection on a run while runs come and go.
  std::uint64_t runKey(int run) const;
  QColor runColor(int run) const;
  const train::RunConfig& config(int run) const;
  const RunFacts& facts(int run) const; // fixed parts: widths, recipe, backend, scaler, steps
  const train::Session& session(int run) const; // live runs only: fixed parts (recipe, plan, model)
  const RunRecord& record(int run) const;
  train::TrainerState trainerState(int run) const; // a loaded run: Finished
  State state() const;

  void start(); // from Ready; runs paused if pausedStart
  void pause();
  void resume();
  void togglePause();
  void stepOnce(); // paused (or Ready: starts paused, then one step)
  void stop();     // every run ends after its current step; finished runs stay readable and
                   // GPT runs keep generating text
  void reset();    // stops, joins, and rebuilds the same runs from scratch
  void shutdown(); // stops and joins every trainer (window closing); the records stay
  // At most this many steps per second per run (0: full speed), now and for
  // the runs built later. The trainer threads wait between steps; the step
  // times (and the throughput from them) stay those of full speed.
  void setPace(double stepsPerSecond);
  double pace() const { return m_pace; }

  // Which weight of `run` to watch: layer, flat index into W [I, O].
  void setWatch(int run, int layer, std::int64_t index);
  // At its next step, the trainer of `run` picks the first element of
  // `layer` whose value of `cls` (Weights, WeightGrads or Updates) lies in
  // binade `exponent`, and watches that weight.
  void watchInBinade(int run, int layer, telemetry::TensorClass cls, int exponent);

  // Drains now (tests; the timer does this during normal use).
  void drainNow();
  // The current pause between drains: 33 ms, longer while the GUI thread is busy.
  std::chrono::milliseconds drainGap() const { return m_drainGap; }

signals:
  void runsChanged();
  void stateChanged();
  void updated(); // after a drain that brought something new
  void followStopped(int run, const QString& message);
  // A run's autosave was written to `checkpoint` (beside its log), or failed (`error`).
  void autosaved(int run, const QString& checkpoint, const QString& error);

private:
  struct Run;
  void nudge(); // any thread
  void onNudge();
  void drain();
  void joinAll();
  void buildTrainer(Run& run, const std::shared_ptr<const data::TrainTest>& data,
                    const std::shared_ptr<const data::TextCorpus>& text);
  void onTrainerStep(Run& run, const train::StepReport& report);
  void attachFollower(Run* run); // a followed log's record: grows with run->follower's file
  void nameRuns();               // every run's name from its base name (distinctRunNames)
  struct Opened;
  void addOpened(const std::shared_ptr<Opened>& opened); // GUI thread: the worker's result
  void startLog(Run& run);
  train::TrainerCallbacks callbacksFor(Run& run);
  void autosave(Run& run); // training thread, once the run ended
  static QString fileName(QString runName);
  void pruneAutosaves();
  // `work` on m_opener, then `then` on the GUI thread (with this controller alive).
  bool offThread(std::function<void()> work, std::function<void()> then);
  static QString problemIn(const QString& path, const std::exception& e);

  std::vector<train::RunConfig> m_configs;
  QTemporaryDir m_logDir; // the live runs' logs (outlives m_runs, whose logs live in it)
  int m_logCount = 0;
  std::vector<std::unique_ptr<Run>> m_runs;
  static double guiCpuSeconds();

  QTimer m_drainTimer;
  ThreadHandoff m_handoff; // trainer threads -> onNudge on the GUI thread
  std::atomic<bool> m_nudged{false};
  std::chrono::steady_clock::time_point m_lastDrain{};
  double m_lastDrainCpu = -1.0;
  std::chrono::milliseconds m_drainGap{33}; // between drains, from the GUI's CPU use
  bool m_started = false;
  std::uint64_t m_lastKey = 0; // the last Run::key given
  double m_pace = 0.0;
  QString m_autosaveFolder; // "" = no autosave
  int m_autosaveKeep = 20;
  bool m_opening = false;  // a checkpoint is being read by m_opener
  std::jthread m_opener;   // reads one checkpoint at a time; joined in the destructor
};

} // namespace mantissa::ui
