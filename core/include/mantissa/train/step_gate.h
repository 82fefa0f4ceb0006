// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// When a training thread may start its next step: the pause, single-step,
// pace and stop rules shared by every trainer thread.
//
//   stop:  the thread's std::stop_token, checked before every step; a stop
//          request ends any wait at once.
//   pause: the thread waits between steps; stepOnce() lets exactly one step
//          through and stays paused.
//   pace:  at most this many step starts per second (0: full speed); the wait
//          lies between steps, so step times measure full speed.
// Any thread may call the controls; only the training thread calls
// waitForStep(), finish() and serve().

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stop_token>

namespace mantissa::train {

enum class TrainerState : std::uint8_t { Ready, Running, Paused, Finished };

class StepGate {
public:
  // Ready -> Running, or Paused when startPaused.
  void begin(bool startPaused);
  void pause();
  void resume();
  void stepOnce();
  void setPace(double stepsPerSecond); // 0 or less, or not finite: full speed
  double pace() const;
  TrainerState state() const { return m_state.load(); }

  using Clock = std::chrono::steady_clock;
  // How long the training thread waits, at `now`, before starting a step
  // under `stepsPerSecond` when the previous step started at `lastStart`
  // (Clock::time_point{}: none yet): the rest of the 1/pace slot, zero once
  // it has passed, at full speed (pace 0, negative, not finite) and for the
  // first step. waitForStep() waits exactly this long (unless woken early).
  static Clock::duration paceWait(double stepsPerSecond, Clock::time_point lastStart, Clock::time_point now);

  // Training thread: waits until the next step may start (Step), stop was
  // requested (Stop), or `work` returns true (Work: the thread has other
  // work to do first, e.g. a sample; it calls waitForStep again after).
  // `work` is read under mutex(): whoever makes it true holds mutex() while
  // doing so, then calls notify().
  enum class Next : std::uint8_t { Step, Work, Stop };
  Next waitForStep(std::stop_token stop, const std::function<bool()>& work = {});
  // Training thread: the run has ended.
  void finish() { m_state = TrainerState::Finished; }

  // Wakes the training thread's waits (after posting it work).
  void notify() { m_wake.notify_all(); }
  // Training thread: waits until `ready()` (read under mutex()) holds or stop
  // is requested. False on stop.
  bool waitUntil(std::stop_token stop, const std::function<bool()>& ready);
  std::mutex& mutex() { return m_mutex; }

private:
  mutable std::mutex m_mutex;
  std::condition_variable_any m_wake;
  bool m_paused = false;          // guarded by m_mutex
  std::int64_t m_stepBudget = 0;  // guarded by m_mutex: steps allowed while paused
  double m_pace = 0.0;            // guarded by m_mutex
  std::chrono::steady_clock::time_point m_lastStart{}; // training thread only
  std::atomic<TrainerState> m_state{TrainerState::Ready};
};

} // namespace mantissa::train
