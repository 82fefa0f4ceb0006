// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Runs a GptRun on its own std::jthread, with the pause / single-step / pace /
// stop rules of every trainer thread (train/step_gate.h). Progress leaves as
// the run's log objects (train/run_log_gpt.h): step, eval and summary rows,
// handed in order to onRecord on the training thread. The header
// (gptLogHeader(run())) is the caller's to write before start().
//
// Text generation never races training: sample() posts a request that the
// run's own thread serves between two steps, while running, paused, or after
// the run ended (the thread then waits for requests until stop() or the
// destructor). The finished text goes to the request's callback, on the
// training thread.
//
// The GptRun is built in the constructor on the caller's thread, so a bad
// configuration or text throws there (ConfigError / data::DataError).

#include <mantissa/train/gpt_run.h>
#include <mantissa/train/step_gate.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace mantissa::train {

struct GptTrainerCallbacks {
  std::function<void(const nlohmann::json&)> onRecord; // every log object, in order
  std::function<void(const GptStep&)> onStep;           // after its record
  std::function<void()> onDone;                         // after the summary record
};

class GptTrainer {
public:
  GptTrainer(GptRunConfig config, GptTrainerCallbacks callbacks);
  ~GptTrainer(); // requests stop, then joins
  GptTrainer(const GptTrainer&) = delete;
  GptTrainer& operator=(const GptTrainer&) = delete;

  void start(bool startPaused = false); // once only
  void pause() { m_gate.pause(); }
  void resume() { m_gate.resume(); }
  void stepOnce() { m_gate.stepOnce(); }
  void setPace(double stepsPerSecond) { m_gate.setPace(stepsPerSecond); }
  double pace() const { return m_gate.pace(); }
  // Ends the run after the current step (the final evaluation and the
  // summary are written); the thread goes on serving samples.
  void finishEarly();
  // finishEarly(), and the thread ends (no more samples).
  void stop();
  void wait(); // joins; returns once stop() was called (or the thread never started)

  TrainerState state() const { return m_gate.state(); }
  std::int64_t stepsDone() const { return m_stepsDone.load(); }
  std::int64_t totalSteps() const { return m_run->config().steps; }
  // Fixed parts only (config, policy, spec, telemetry layer names) after start().
  const GptRun& run() const { return *m_run; }

  // n characters at temperature t from the current weights, made on the
  // training thread between steps; `done` gets the text there. Before
  // start() nothing serves requests: they wait for it. False (and `done`
  // never called) once stop() was called.
  bool sample(int n, double temperature, std::uint64_t seed,
              std::function<void(std::string)> done);

private:
  struct SampleRequest {
    int n;
    double temperature;
    std::uint64_t seed;
    std::function<void(std::string)> done;
  };
  void threadMain(std::stop_token stop);
  void serveSamples();

  std::unique_ptr<GptRun> m_run;
  GptTrainerCallbacks m_callbacks;
  StepGate m_gate;
  std::deque<SampleRequest> m_samples; // guarded by m_gate.mutex()
  bool m_endRun = false;               // guarded by m_gate.mutex()
  std::atomic<std::int64_t> m_stepsDone{0};
  std::jthread m_thread; // last member: joined first on destruction
};

} // namespace mantissa::train
