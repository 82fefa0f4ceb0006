// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Runs a Session on its own std::jthread. Another thread can start, pause,
// single-step, resume and stop it (the rules of train/step_gate.h). Progress goes to plain callbacks called
// on the training thread (no Qt here: the GUI's bridge turns them into
// snapshots for its mailbox).
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
// before any thread exists.

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
  Trainer(RunConfig config, std::shared_ptr<const data::TrainTest> data, TrainerCallbacks callbacks);
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  // Starts the thread (running, or paused when startPaused). Once only.
  void start(bool startPaused = false);
  void pause();
  void resume();
  // While paused: run exactly one step, then stay paused.
  void stepOnce();
  // Asks the thread to finish after the current step; returns at once.
  void stop();
  // At most this many steps start per second (0 or less: full speed). Any
  // thread, any time; single steps while paused are never held back.
  void setPace(double stepsPerSecond);
  double pace() const;
  // Blocks until the thread has finished (after onDone).
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

private:
  void run(std::stop_token stop);
  bool evalDue(std::int64_t stepsDone) const;
  void serveVisits();

  std::unique_ptr<Session> m_session;
  TrainerCallbacks m_callbacks;
  StepGate m_gate; // pause, single steps, pace
  std::atomic<std::int64_t> m_stepsDone{0};
  std::deque<std::function<void(const Session&)>> m_visits; // guarded by m_gate.mutex()
  bool m_closed = false;                                   // guarded by m_gate.mutex()
  std::jthread m_thread; // last member: joined first on destruction
};

// Runs the whole session on the calling thread with the same callbacks and
// evaluation cadence as a Trainer (the CLI and tests use it). `stop`, when
// given, is checked once per step.
RunSummary runToCompletion(Session& session, const TrainerCallbacks& callbacks,
                           const std::atomic<bool>* stop = nullptr);

} // namespace mantissa::train
