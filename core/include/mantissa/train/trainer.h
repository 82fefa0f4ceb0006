// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Runs a Session on its own std::jthread. Another thread can start, pause,
// single-step, resume and stop it (the rules of train/step_gate.h). Progress goes to plain
// callbacks called on the training thread (no Qt here: the GUI's bridge turns them into snapshots
// for its mailbox).
//
//   stop:  an atomic request checked once per step (std::stop_token); the
//          destructor requests stop, then joins.
//   pause: the loop waits on a condition variable between steps; stepOnce()
//          lets exactly one step through and stays paused.
//   pace:  a cap in steps per second (0: full speed). The loop waits on the
//          same condition variable until the next step's slot, so pause, stop
//          and a new pace end the wait at once. The wait lies between steps:
//          StepReport::stepMs (and the op times) measure the step at full speed.
//
// The Session is built in the constructor on the caller's thread, so a bad
// configuration or data file throws there (ConfigError / data::DataError),
// before any thread exists. Every model trains through it alike: an MLP or
// CNN on images, a GPT on text.
//
// Serving: visit() and sample() run on the training thread between two
// steps. With keepServing(true) the thread stays after the run has ended
// (its last step, finish(), or a divergence), serving them until stop() or
// destruction, so a finished run can still be read and sampled without
// touching the session from another thread.

#include <mantissa/train/run_config.h>
#include <mantissa/train/session.h>
#include <mantissa/train/step_gate.h>
#include <mantissa/train/step_report.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace mantissa::train {

struct TrainerCallbacks {
  std::function<void(const StepReport&)> onStep; // every step
  std::function<void(const EvalReport&)> onEval; // every eval interval and at the end
  std::function<void(const RunSummary&)> onDone; // once, last call from the thread
};

class Trainer {
public:
  Trainer(RunConfig config, TrainerCallbacks callbacks);
  Trainer(RunConfig config, std::shared_ptr<const data::TrainTest> data,
          TrainerCallbacks callbacks);
  // A GPT on a text already loaded (shared by several runs).
  Trainer(RunConfig config, std::shared_ptr<const data::TextCorpus> text,
          TrainerCallbacks callbacks);
  // A session built (and perhaps restored from a checkpoint: train/
  // checkpoint.h) elsewhere, on any thread; it continues from its own step.
  Trainer(std::unique_ptr<Session> session, TrainerCallbacks callbacks);
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  // Before start(): whether the thread stays after the run ended, serving
  // visit() and sample() until stop() (off by default: the thread ends after
  // onDone).
  void keepServing(bool on);
  // Starts the thread (running, or paused when startPaused). Once only.
  void start(bool startPaused = false);
  void pause();
  void resume();
  // While paused: run exactly one step, then stay paused.
  void stepOnce();
  // Ends the run after the current step (the final evaluation and onDone
  // follow, as after the last step); with keepServing the thread then goes
  // on serving. Returns at once.
  void finish();
  // finish(), and the thread ends. Returns at once.
  void stop();
  // At most this many steps start per second (0 or less: full speed). Any
  // thread, any time; single steps while paused are never held back.
  void setPace(double stepsPerSecond);
  double pace() const;
  // Blocks until the thread has ended (after onDone; with keepServing, after
  // stop()).
  void wait();

  TrainerState state() const { return m_gate.state(); }
  std::int64_t stepsDone() const { return m_stepsDone.load(); }
  std::int64_t totalSteps() const { return m_session->totalSteps(); }
  // Read-only after start() for everything the session fixed at construction
  // (config, recipe, plan); do not call step() on it.
  const Session& session() const { return *m_session; }

  // Runs `visit` with the session on the training thread between two steps
  // (while paused too), where reading the model's weights and gradients
  // races nothing. Before start() requests wait for it. False, and no call,
  // once the thread has ended: the session is then only the caller's to read.
  bool visit(std::function<void(const Session&)> visit);
  // A GPT's text: n characters sampled from the current weights
  // (Session::sample) on the training thread between two steps; `done` gets
  // it there ("" once the run diverged). False, and no call, when the model
  // is not a GPT or the thread no longer serves.
  bool sample(int n, double temperature, std::uint64_t seed, std::function<void(std::string)> done);
  // The next step runs the shadow pass against a reference in `precision`
  // (Session::requestShadow); its frame comes with that step's report. False
  // when the thread no longer serves; `refused` gets, on the training thread,
  // why the run cannot be shadowed.
  bool requestShadow(ShadowPrecision precision, std::function<void(std::string)> refused = {});

private:
  void run(std::stop_token stop);
  bool evalDue(std::int64_t stepsDone) const;
  bool post(std::function<void(Session&)> work);
  void serveVisits();

  std::unique_ptr<Session> m_session;
  TrainerCallbacks m_callbacks;
  StepGate m_gate; // pause, single steps, pace
  std::atomic<std::int64_t> m_stepsDone{0};
  std::deque<std::function<void(Session&)>> m_visits; // guarded by m_gate.mutex()
  bool m_closed = false;                              // guarded by m_gate.mutex()
  bool m_endRun = false;                              // guarded by m_gate.mutex(): finish()
  bool m_keepServing = false;                         // set before start()
  std::jthread m_thread;                              // last member: joined first on destruction
};

// Runs the whole session on the calling thread with the same callbacks and
// evaluation cadence as a Trainer (the CLI and tests use it). `stop`, when
// given, is checked once per step.
RunSummary runToCompletion(Session& session, const TrainerCallbacks& callbacks,
                           const std::atomic<bool>* stop = nullptr);

} // namespace mantissa::train
