// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli train: a headless training run with a JSONL log.
//
// Log (--log FILE.jsonl), flushed line by line so a killed run keeps every
// step written so far:
//   {"header": true, "config": {...}, "recipe_table": [...], "bytes": {...}, ...}
//   {"step": 0, "loss": 2.30, "lr": 0.05, "loss_scale": 65536, "found_inf": false,
//    "skipped": false, "step_ms": 4.1, "grad_norm": 1.2, ..., "telemetry": {...}}
//   {"eval": true, "step": 62, "test_loss": 0.42, "test_accuracy": 0.88}
//   {"summary": true, "test_accuracy": 0.92, "test_loss": 0.25, "steps": 186,
//    "wall_s": 36.1, "recipe": "fp32", ...}
// Exit status: 0 finished (or interrupted), 1 error, 2 bad usage, 3 diverged.
#include "args.h"
#include "commands.h"

#include <mantissa/data/dataset.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/run_log.h>
#include <mantissa/train/run_log_rows.h>
#include <mantissa/train/trainer.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

namespace mantissa::cli {

namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void onInterrupt(int) { g_interrupted.store(true); }

// A line-flushed JSONL writer (C stdio: one fwrite + fflush per object).
class JsonlLog {
public:
  explicit JsonlLog(const std::string& path) : m_file(std::fopen(path.c_str(), "w")) {}
  ~JsonlLog() {
    if (m_file)
      std::fclose(m_file);
  }
  JsonlLog(const JsonlLog&) = delete;
  JsonlLog& operator=(const JsonlLog&) = delete;
  bool ok() const { return m_file != nullptr; }
  void write(const nlohmann::json& j) {
    if (!m_file)
      return;
    const std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    // A full disk fails the write or the flush: remember the first reason, so
    // the run can say its log is incomplete instead of exiting 0.
    if ((std::fwrite(line.data(), 1, line.size(), m_file) != line.size() ||
         std::fflush(m_file) != 0) &&
        m_error.empty())
      m_error = std::strerror(errno);
  }
  const std::string& error() const { return m_error; } // "" while every line was written

private:
  std::FILE* m_file;
  std::string m_error;
};

std::optional<int> applyNumber(const ArgParser& p, const char* name, double& out) {
  if (auto v = p.optionalValue(name)) {
    auto x = parseReal("train", name, *v);
    if (!x)
      return 2;
    out = *x;
  }
  return std::nullopt;
}

template <class Int>
std::optional<int> applyInteger(const ArgParser& p, const char* name, Int& out, long long min,
                                long long max) {
  if (auto v = p.optionalValue(name)) {
    auto x = parseInteger("train", name, *v, min, max);
    if (!x)
      return 2;
    out = static_cast<Int>(*x);
  }
  return std::nullopt;
}

} // namespace

int runTrain(const Args& args) {
  if (wantsGptTraining(args))
    return runTrainGpt(args);
  ArgParser p("train", "Train a model on the CPU in a mixed-precision recipe; log every step.");
  p.option("config", "FILE.json", "Start from this run configuration (flags override it)");
  p.option("preset", "NAME", "Start from a phenomenon preset's first run (see --list-presets)");
  p.flag("list-presets", "List the phenomenon presets and exit");
  p.option("data", "NAME|PATH", "mnist, fashion, spirals, blobs, or an IDX/CSV path (default mnist)");
  p.option("model", "SPEC", "mlp:784-256-256-10[:relu|gelu|tanh|sigmoid], or gpt:layers=4,heads=4,"
                            "embd=128,ctx=64 for a GPT on text (options: train --model gpt --help)");
  p.option("recipe", "NAME", "fp32, bf16-mixed, fp16-mixed, fp16-mixed-noscale, bf16-pure, "
                             "bf16-pure-sr, bf16-pure-kahan (default fp32)");
  p.option("scaler", "NAME", "pytorch, keras, apex, deepspeed, megatron, static:S (fp16-mixed only)");
  p.option("optimizer", "NAME", "sgd or adamw (default sgd)");
  p.option("lr", "X", "Learning rate (default 0.05)");
  p.option("momentum", "X", "SGD momentum (default 0.9)");
  p.option("weight-decay", "X", "Weight decay (default 0)");
  p.option("schedule", "NAME", "constant or cosine (warm-up + cosine; default constant)");
  p.option("warmup-steps", "N", "Warm-up steps of the cosine schedule");
  p.option("batch", "B", "Batch size (default 128)");
  p.option("steps", "N", "Optimizer steps to run");
  p.option("epochs", "E", "Passes over the training set (default 1 when --steps is absent)");
  p.option("grad-accumulation", "N", "Micro-batches per optimizer step (default 1)");
  p.option("clip-norm", "X", "Clip gradients by global norm (default 0 = off)");
  p.option("seed", "S", "Seed of initialisation, batching and stochastic rounding (default 1)");
  p.option("eval-every", "N", "Evaluate on the test set every N steps (default: every epoch)");
  p.option("telemetry-every", "K", "Telemetry frame (histograms, cast fractions) every K steps");
  p.option("log", "FILE.jsonl", "Write one JSON object per step (flushed per line)");
  p.option("export", "DIR", "When the run ends, write every chart (SVG, PNG) and its data (CSV) to DIR");
  p.flag("quiet", "No progress lines on stderr");
  if (auto rc = p.parse(args))
    return *rc;

  if (p.has("list-presets")) {
    for (const auto& preset : train::presets())
      std::cout << preset.name << "  " << preset.title << "\n";
    std::cout << "shakespeare-char  Character-level GPT on Tiny Shakespeare (nanoGPT's CPU configuration)\n";
    return 0;
  }

  train::RunConfig config;
  if (auto path = p.optionalValue("config")) {
    std::ifstream in(*path);
    if (!in) {
      std::cerr << "mantissa-cli train: --config: cannot open '" << *path << "'\n";
      return 2;
    }
    try {
      config = train::runConfigFromJson(nlohmann::json::parse(in));
    } catch (const nlohmann::json::exception& e) {
      std::cerr << "mantissa-cli train: --config " << *path << ": not valid JSON: " << e.what() << "\n";
      return 2;
    } catch (const train::ConfigError& e) {
      std::cerr << "mantissa-cli train: --config " << *path << ": " << e.what() << "\n";
      return 2;
    }
  } else if (auto name = p.optionalValue("preset")) {
    const train::Preset* preset = train::findPreset(*name);
    if (!preset) {
      std::cerr << "mantissa-cli train: --preset: unknown '" << *name
                << "' (see mantissa-cli train --list-presets)\n";
      return 2;
    }
    config = preset->runs.front();
  }
  for (const char* key : {"data", "model", "recipe", "scaler", "optimizer", "schedule"})
    if (auto v = p.optionalValue(key)) {
      const std::string k = key;
      (k == "data"        ? config.data
       : k == "model"     ? config.model
       : k == "recipe"    ? config.recipe
       : k == "scaler"    ? config.scaler
       : k == "optimizer" ? config.optimizer
                          : config.schedule) = *v;
    }
  if (auto rc = applyNumber(p, "lr", config.lr))
    return *rc;
  if (auto rc = applyNumber(p, "momentum", config.momentum))
    return *rc;
  if (auto rc = applyNumber(p, "weight-decay", config.weightDecay))
    return *rc;
  if (auto rc = applyNumber(p, "clip-norm", config.clipNorm))
    return *rc;
  if (auto rc = applyInteger(p, "warmup-steps", config.warmupSteps, 0, 1LL << 40))
    return *rc;
  if (auto rc = applyInteger(p, "batch", config.batch, 1, 65536))
    return *rc;
  if (p.has("steps") && p.has("epochs")) {
    std::cerr << "mantissa-cli train: give --steps or --epochs, not both\n";
    return 2;
  }
  if (p.has("steps"))
    config.epochs = 0;
  if (p.has("epochs"))
    config.steps = 0;
  if (auto rc = applyInteger(p, "steps", config.steps, 1, 1LL << 40))
    return *rc;
  if (auto rc = applyInteger(p, "epochs", config.epochs, 1, 1000000))
    return *rc;
  if (config.steps == 0 && config.epochs == 0)
    config.epochs = 1;
  if (auto rc = applyInteger(p, "grad-accumulation", config.gradAccumulation, 1, 1024))
    return *rc;
  if (auto rc = applyInteger(p, "seed", config.seed, 0, std::numeric_limits<long long>::max()))
    return *rc;
  if (auto rc = applyInteger(p, "eval-every", config.evalEvery, 0, 1LL << 40))
    return *rc;
  if (auto rc = applyInteger(p, "telemetry-every", config.telemetryEvery, 0, 1 << 30))
    return *rc;

  if (const auto problems = config.problems(); !problems.empty()) {
    for (const auto& problem : problems)
      std::cerr << "mantissa-cli train: " << problem << "\n";
    return 2;
  }

  std::unique_ptr<train::Session> session;
  try {
    session = std::make_unique<train::Session>(config);
  } catch (const data::DataError& e) {
    std::cerr << "mantissa-cli train: --data: " << e.what() << "\n";
    return 2;
  } catch (const train::ConfigError& e) {
    std::cerr << "mantissa-cli train: " << e.what() << "\n";
    return 2;
  }

  std::unique_ptr<JsonlLog> log;
  if (auto path = p.optionalValue("log")) {
    log = std::make_unique<JsonlLog>(*path);
    if (!log->ok()) {
      std::cerr << "mantissa-cli train: --log: cannot write '" << *path << "'\n";
      return 2;
    }
    log->write(train::logHeader(*session));
  }
  // --export: the same objects the log holds, kept in memory for the charts.
  std::optional<train::RunLogBuilder> exported;
  if (p.has("export")) {
#ifndef MANTISSA_CLI_HAS_UI
    std::cerr << "mantissa-cli train: --export: this mantissa-cli was built without the GUI "
                 "libraries (MANTISSA_BUILD_GUI=OFF)\n";
    return 2;
#endif
    exported.emplace();
    exported->add(train::logHeader(*session));
  }

  const bool quiet = p.has("quiet");
  const std::int64_t total = session->totalSteps();
  if (!quiet)
    std::cerr << "training " << config.model << " on " << session->data().train.name << ", recipe "
              << config.recipe << ", " << total << " steps; matmul "
              << session->model().matmulImplementation() << "\n";
  auto lastPrint = std::chrono::steady_clock::now();
  std::int64_t stepsAtPrint = 0;
  train::TrainerCallbacks cb;
  cb.onStep = [&](const train::StepReport& r) {
    if (log || exported) {
      const nlohmann::json row = train::logStep(r);
      if (log)
        log->write(row);
      if (exported)
        exported->add(row);
    }
    const auto now = std::chrono::steady_clock::now();
    const double dt = std::chrono::duration<double>(now - lastPrint).count();
    if (!quiet && (dt >= 1.0 || r.step + 1 == total)) {
      const double rate = double(r.step + 1 - stepsAtPrint) / std::max(dt, 1e-9);
      std::ostringstream line;
      line << "step " << r.step + 1 << "/" << total << "  loss " << r.loss << "  " << rate
           << " steps/s";
      if (r.lossScale != 1.0)
        line << "  scale " << r.lossScale;
      std::cerr << line.str() << "\n";
      lastPrint = now;
      stepsAtPrint = r.step + 1;
    }
  };
  cb.onEval = [&](const train::EvalReport& e) {
    const nlohmann::json row = train::logEval(e);
    if (log)
      log->write(row);
    if (exported)
      exported->add(row);
  };

  std::signal(SIGINT, onInterrupt);
  std::signal(SIGTERM, onInterrupt);
  const train::RunSummary s = train::runToCompletion(*session, cb, &g_interrupted);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);

  const nlohmann::json summary = train::logSummary(s);
  if (log)
    log->write(summary);
  if (exported) {
    exported->add(summary);
#ifdef MANTISSA_CLI_HAS_UI
    if (const int rc = exportTrainedRun(exported->log(), p.value("export")); rc != 0)
      return rc;
#endif
  }

  std::cout << "recipe " << s.recipe << ": test accuracy " << s.testAccuracy * 100.0
            << " %, test loss " << s.testLoss << ", " << s.steps << " steps (" << s.skippedSteps
            << " skipped) in " << s.wallSeconds << " s\n";
  if (log && !log->error().empty()) {
    std::cerr << "mantissa-cli train: --log: cannot write '" << *p.optionalValue("log")
              << "': " << log->error() << "\n";
    return 1;
  }
  if (s.divergence) {
    std::cerr << "mantissa-cli train: diverged: " << s.divergence->message << "\n";
    return 3;
  }
  if (s.stoppedEarly && !quiet)
    std::cerr << "mantissa-cli train: interrupted after " << s.steps << " steps\n";
  return 0;
}

} // namespace mantissa::cli
