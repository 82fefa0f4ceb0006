// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/train/step_gate.h>

#include <cmath>

namespace mantissa::train {

void StepGate::begin(bool startPaused) {
  {
    std::lock_guard lock(m_mutex);
    m_paused = startPaused;
  }
  m_state = startPaused ? TrainerState::Paused : TrainerState::Running;
}

// The thread stores Finished without m_mutex, so Running <-> Paused is a
// compare-exchange: a load-then-store could overwrite a Finished that landed
// in between and leave a finished run Paused (or Running) for good.
void StepGate::pause() {
  {
    std::lock_guard lock(m_mutex);
    m_paused = true;
    TrainerState expected = TrainerState::Running;
    m_state.compare_exchange_strong(expected, TrainerState::Paused);
  }
  m_wake.notify_all(); // ends a pacing wait
}

void StepGate::resume() {
  {
    std::lock_guard lock(m_mutex);
    m_paused = false;
    TrainerState expected = TrainerState::Paused;
    m_state.compare_exchange_strong(expected, TrainerState::Running);
  }
  m_wake.notify_all();
}

void StepGate::stepOnce() {
  {
    std::lock_guard lock(m_mutex);
    if (m_paused)
      ++m_stepBudget;
  }
  m_wake.notify_all();
}

void StepGate::setPace(double stepsPerSecond) {
  {
    std::lock_guard lock(m_mutex);
    m_pace = stepsPerSecond > 0.0 && std::isfinite(stepsPerSecond) ? stepsPerSecond : 0.0;
  }
  m_wake.notify_all();
}

double StepGate::pace() const {
  std::lock_guard lock(m_mutex);
  return m_pace;
}

StepGate::Clock::duration StepGate::paceWait(double stepsPerSecond, Clock::time_point lastStart,
                                             Clock::time_point now) {
  if (!(stepsPerSecond > 0.0) || !std::isfinite(stepsPerSecond) || lastStart == Clock::time_point{})
    return Clock::duration::zero();
  const auto due =
      lastStart + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / stepsPerSecond));
  return now >= due ? Clock::duration::zero() : due - now;
}

StepGate::Next StepGate::waitForStep(std::stop_token stop, const std::function<bool()>& work) {
  const auto hasWork = [&] { return work && work(); };
  {
    std::unique_lock lock(m_mutex);
    bool go = false;
    while (!go) {
      // Returns false only when stop was requested while waiting.
      if (!m_wake.wait(lock, stop, [&] { return !m_paused || m_stepBudget > 0 || hasWork(); }))
        break;
      if (hasWork())
        return Next::Work;
      if (m_paused) { // a single step: not paced
        --m_stepBudget;
        go = true;
        break;
      }
      const auto now = Clock::now();
      const auto wait = paceWait(m_pace, m_lastStart, now);
      if (wait <= Clock::duration::zero())
        break;
      const auto due = now + wait;
      // Until the slot, a pause, a new pace or stop, whichever comes first;
      // then everything is checked again.
      const double pace = m_pace;
      m_wake.wait_until(lock, stop, due,
                        [&] { return m_paused || m_pace != pace || hasWork(); });
      if (stop.stop_requested())
        break;
    }
  }
  if (stop.stop_requested())
    return Next::Stop;
  m_lastStart = Clock::now();
  return Next::Step;
}

bool StepGate::waitUntil(std::stop_token stop, const std::function<bool()>& ready) {
  std::unique_lock lock(m_mutex);
  return m_wake.wait(lock, stop, ready);
}

} // namespace mantissa::train
