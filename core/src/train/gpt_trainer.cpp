// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/train/gpt_trainer.h>

#include <mantissa/train/run_log_gpt.h>

#include <chrono>
#include <stdexcept>

namespace mantissa::train {

GptTrainer::GptTrainer(GptRunConfig config, GptTrainerCallbacks callbacks)
    : m_run(std::make_unique<GptRun>(std::move(config))), m_callbacks(std::move(callbacks)) {}

GptTrainer::~GptTrainer() {
  if (m_thread.joinable()) {
    m_thread.request_stop();
    m_thread.join();
  }
}

void GptTrainer::start(bool startPaused) {
  if (m_thread.joinable() || m_gate.state() != TrainerState::Ready)
    throw std::logic_error("GptTrainer::start: already started");
  m_gate.begin(startPaused);
  m_thread = std::jthread([this](std::stop_token stop) { threadMain(stop); });
}

void GptTrainer::finishEarly() {
  {
    std::lock_guard lock(m_gate.mutex());
    m_endRun = true;
  }
  m_gate.notify();
}

void GptTrainer::stop() { m_thread.request_stop(); }

void GptTrainer::wait() {
  if (m_thread.joinable())
    m_thread.join();
}

bool GptTrainer::sample(int n, double temperature, std::uint64_t seed,
                        std::function<void(std::string)> done) {
  if (m_thread.get_stop_token().stop_requested())
    return false;
  {
    std::lock_guard lock(m_gate.mutex());
    m_samples.push_back({n, temperature, seed, std::move(done)});
  }
  m_gate.notify();
  return true;
}

void GptTrainer::serveSamples() {
  for (;;) {
    SampleRequest r;
    {
      std::lock_guard lock(m_gate.mutex());
      if (m_samples.empty())
        return;
      r = std::move(m_samples.front());
      m_samples.pop_front();
    }
    std::string text = m_run->divergence() ? std::string() : m_run->sample(r.n, r.temperature, r.seed);
    if (r.done)
      r.done(std::move(text));
  }
}

void GptTrainer::threadMain(std::stop_token stop) {
  GptRun& run = *m_run;
  auto emit = [&](const nlohmann::json& j) {
    if (m_callbacks.onRecord)
      m_callbacks.onRecord(j);
  };
  const auto pending = [this] { return !m_samples.empty(); }; // under the gate's mutex
  const auto work = [this] { return !m_samples.empty() || m_endRun; };
  const auto start = std::chrono::steady_clock::now();
  const std::int64_t evalEvery = run.config().evalEvery;
  while (!run.finished()) {
    const StepGate::Next next = m_gate.waitForStep(stop, work);
    if (next == StepGate::Next::Stop)
      break;
    if (next == StepGate::Next::Work) {
      {
        std::lock_guard lock(m_gate.mutex());
        if (m_endRun)
          break;
      }
      serveSamples();
      continue;
    }
    const GptStep& step = run.step();
    m_stepsDone = run.stepsDone();
    emit(gptLogStep(step));
    if (m_callbacks.onStep)
      m_callbacks.onStep(step);
    if (evalEvery > 0 && run.stepsDone() % evalEvery == 0 && !run.finished())
      emit(gptLogEval(run.evaluate()));
  }
  const GptEval last = run.evaluate();
  emit(gptLogEval(last));
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  emit(gptLogSummary(run, gptSummary(run, last, wall, "")));
  m_gate.finish();
  if (m_callbacks.onDone)
    m_callbacks.onDone();
  // Until stop: samples of the final weights.
  while (m_gate.waitUntil(stop, pending))
    serveSamples();
}

} // namespace mantissa::train
