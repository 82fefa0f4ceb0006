// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/train/trainer.h>

#include <chrono>
#include <cmath>
#include <stdexcept>

namespace mantissa::train {

namespace {

// Evaluate every eval_every steps, or once per epoch when 0 (a GPT: only at
// the end); always at the end.
bool evalDueFor(const Session& s, std::int64_t done) {
  if (s.config().evalEvery <= 0 && s.isText())
    return false;
  const std::int64_t every = s.config().evalEvery > 0 ? s.config().evalEvery : s.stepsPerEpoch();
  return done % every == 0 && done < s.totalSteps();
}

RunSummary summarise(const Session& s, const EvalReport& finalEval, double wallSeconds,
                     double lastLoss, bool stopped) {
  RunSummary r;
  r.recipe = s.config().recipe;
  r.steps = s.stepsDone();
  r.skippedSteps = s.skippedSteps();
  r.wallSeconds = wallSeconds;
  r.testAccuracy = finalEval.accuracy;
  r.testLoss = finalEval.loss;
  r.evalTrainLoss = finalEval.trainLoss;
  r.finalTrainLoss = lastLoss;
  r.stoppedEarly = stopped;
  r.divergence = s.divergence();
  return r;
}

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

RunSummary runToCompletion(Session& session, const TrainerCallbacks& cb,
                           const std::atomic<bool>* stop) {
  const auto start = std::chrono::steady_clock::now();
  double lastLoss = 0.0;
  bool stopped = false;
  while (!session.finished()) {
    if (stop && stop->load()) {
      stopped = true;
      break;
    }
    const auto& report = session.step();
    lastLoss = report.loss;
    if (cb.onStep)
      cb.onStep(report);
    if (!session.finished() && evalDueFor(session, session.stepsDone()) && cb.onEval)
      cb.onEval(session.evaluate());
  }
  const EvalReport last = session.evaluate();
  if (cb.onEval)
    cb.onEval(last);
  RunSummary summary = summarise(session, last, secondsSince(start), lastLoss, stopped);
  if (cb.onDone)
    cb.onDone(summary);
  return summary;
}

Trainer::Trainer(RunConfig config, TrainerCallbacks callbacks)
    : m_session(std::make_unique<Session>(std::move(config))), m_callbacks(std::move(callbacks)) {}

Trainer::Trainer(RunConfig config, std::shared_ptr<const data::TrainTest> data,
                 TrainerCallbacks callbacks)
    : m_session(std::make_unique<Session>(std::move(config), std::move(data))),
      m_callbacks(std::move(callbacks)) {}

Trainer::Trainer(RunConfig config, std::shared_ptr<const data::TextCorpus> text,
                 TrainerCallbacks callbacks)
    : m_session(std::make_unique<Session>(std::move(config), std::move(text))),
      m_callbacks(std::move(callbacks)) {}

Trainer::Trainer(std::unique_ptr<Session> session, TrainerCallbacks callbacks)
    : m_session(std::move(session)), m_callbacks(std::move(callbacks)) {
  if (!m_session)
    throw std::invalid_argument("Trainer: no session");
  m_stepsDone = m_session->stepsDone();
}

Trainer::~Trainer() {
  if (m_thread.joinable()) {
    m_thread.request_stop(); // the condition variable wakes on stop requests
    m_thread.join();
  }
}

void Trainer::start(bool startPaused) {
  if (m_thread.joinable() || m_gate.state() != TrainerState::Ready)
    throw std::logic_error("Trainer::start: already started");
  m_gate.begin(startPaused);
  m_thread = std::jthread([this](std::stop_token stop) { run(stop); });
}

void Trainer::keepServing(bool on) {
  if (m_thread.joinable())
    throw std::logic_error("Trainer::keepServing: after start");
  m_keepServing = on;
}

void Trainer::pause() {
  m_gate.pause();
}
void Trainer::resume() {
  m_gate.resume();
}
void Trainer::stepOnce() {
  m_gate.stepOnce();
}
void Trainer::setPace(double stepsPerSecond) {
  m_gate.setPace(stepsPerSecond);
}
double Trainer::pace() const {
  return m_gate.pace();
}

void Trainer::finish() {
  {
    std::lock_guard lock(m_gate.mutex());
    m_endRun = true;
  }
  m_gate.notify();
}

void Trainer::stop() {
  m_thread.request_stop(); // ends the gate's waits (they wait on the stop token)
}

void Trainer::wait() {
  if (m_thread.joinable())
    m_thread.join();
}

void Trainer::run(std::stop_token stop) {
  Session& s = *m_session;
  const auto start = std::chrono::steady_clock::now();
  double lastLoss = 0.0;
  const auto pending = [this] { return !m_visits.empty(); }; // under the gate's mutex
  const auto work = [this] { return !m_visits.empty() || m_endRun; };
  while (!s.finished()) {
    const StepGate::Next next = m_gate.waitForStep(stop, work);
    if (next == StepGate::Next::Work) {
      {
        std::lock_guard lock(m_gate.mutex());
        if (m_endRun)
          break;
      }
      serveVisits();
      continue;
    }
    if (next != StepGate::Next::Step)
      break;
    const auto& report = s.step();
    lastLoss = report.loss;
    m_stepsDone = s.stepsDone();
    if (m_callbacks.onStep)
      m_callbacks.onStep(report);
    if (!s.finished() && evalDueFor(s, s.stepsDone()) && m_callbacks.onEval)
      m_callbacks.onEval(s.evaluate());
  }
  const EvalReport last = s.evaluate();
  if (m_callbacks.onEval)
    m_callbacks.onEval(last);
  const RunSummary summary = summarise(s, last, secondsSince(start), lastLoss, !s.finished());
  m_gate.finish();
  if (m_callbacks.onDone)
    m_callbacks.onDone(summary);
  if (m_keepServing)
    while (m_gate.waitUntil(stop, pending))
      serveVisits();
  {
    std::lock_guard lock(m_gate.mutex());
    m_closed = true;
  }
  serveVisits(); // those posted before m_closed was set
}

bool Trainer::visit(std::function<void(const Session&)> visit) {
  return post([f = std::move(visit)](Session& s) {
    if (f)
      f(s);
  });
}

bool Trainer::sample(int n, double temperature, std::uint64_t seed,
                     std::function<void(std::string)> done) {
  if (!m_session->isText())
    return false;
  return post([n, temperature, seed, done = std::move(done)](Session& s) {
    std::string text = s.divergence() ? std::string() : s.sample(n, temperature, seed);
    if (done)
      done(std::move(text));
  });
}

bool Trainer::requestShadow(ShadowPrecision precision, std::function<void(std::string)> refused) {
  return post([precision, refused = std::move(refused)](Session& s) {
    try {
      s.requestShadow(precision);
    } catch (const std::exception& e) {
      if (refused)
        refused(e.what());
    }
  });
}

bool Trainer::post(std::function<void(Session&)> work) {
  {
    std::lock_guard lock(m_gate.mutex());
    if (m_closed)
      return false;
    m_visits.push_back(std::move(work));
  }
  m_gate.notify();
  return true;
}

void Trainer::serveVisits() {
  for (;;) {
    std::function<void(Session&)> f;
    {
      std::lock_guard lock(m_gate.mutex());
      if (m_visits.empty())
        return;
      f = std::move(m_visits.front());
      m_visits.pop_front();
    }
    if (f)
      f(*m_session);
  }
}

bool Trainer::evalDue(std::int64_t stepsDone) const {
  return evalDueFor(*m_session, stepsDone);
}

} // namespace mantissa::train
