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
// Exit status: 0 finished (or interrupted), 1 error, 2 bad usage, 3 diverged
// (a step produced a non-finite value, or the finished run's test loss is not
// finite).
//
// Outputs are checked before any data is loaded: --log and --export must be
// writable and must not be one of the inputs (--config, --data, or a file
// beside an IDX --data file or in a --data directory). The log file is only
// emptied once the run is about to start. --export keeps at most
// train::kMaxExportStepRows step rows and kMaxExportFrames telemetry frames in
// memory, evenly spaced (the first, the last and every scaler event and
// divergence row are kept), so a long run's charts cost bounded memory.
#include "args.h"
#include "commands.h"

#include <mantissa/data/dataset.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/run_log.h>
#include <mantissa/train/run_log_rows.h>
#include <mantissa/train/trainer.h>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <cmath>
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

namespace mantissa::cli {

namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void onInterrupt(int) { g_interrupted.store(true); }

// A line-flushed JSONL writer (C stdio: one fwrite + fflush per object).
// Opened without truncating, so a run refused before it starts leaves an
// existing log as it was; start() empties it.
class JsonlLog {
public:
  explicit JsonlLog(const std::string& path) : m_path(path) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
    m_created = fd >= 0;
    if (fd < 0 && errno == EEXIST)
      fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
      m_error = std::strerror(errno);
      return;
    }
    m_file = ::fdopen(fd, "w");
    if (!m_file) {
      m_error = std::strerror(errno);
      ::close(fd);
    }
  }
  ~JsonlLog() {
    if (m_file)
      std::fclose(m_file);
    if (m_created && !m_started) // refused before it started: leave no empty log behind
      ::unlink(m_path.c_str());
  }
  JsonlLog(const JsonlLog&) = delete;
  JsonlLog& operator=(const JsonlLog&) = delete;
  bool ok() const { return m_file != nullptr; }
  const std::string& openError() const { return m_error; }
  // Empties a regular file (a FIFO or /dev/stdout is written as it is).
  void start() {
    m_started = true;
    struct stat st {};
    if (m_file && ::fstat(::fileno(m_file), &st) == 0 && S_ISREG(st.st_mode) &&
        ::ftruncate(::fileno(m_file), 0) != 0 && m_error.empty())
      m_error = std::strerror(errno);
  }
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
  std::string m_path;
  std::FILE* m_file = nullptr;
  std::string m_error;
  bool m_created = false; // this run made the file
  bool m_started = false;
};

// dev/inode of an existing path (following symlinks), if any.
std::optional<std::pair<dev_t, ino_t>> fileId(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return std::nullopt;
  return std::make_pair(st.st_dev, st.st_ino);
}

// The files a run reads: --config, and for a --data path the path itself, every
// file of a data directory, or every file beside an IDX file (its labels and
// test set are found there).
std::vector<std::string> inputFiles(const std::optional<std::string>& config,
                                    const std::string& data) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  if (config)
    out.push_back(*config);
  std::error_code ec;
  const auto builtins = data::builtinNames();
  if (std::find(builtins.begin(), builtins.end(), data) != builtins.end())
    return out;
  out.push_back(data);
  fs::path dir;
  if (fs::is_directory(data, ec))
    dir = data;
  else if (fs::path(data).extension() != ".csv")
    dir = fs::path(data).parent_path().empty() ? fs::path(".") : fs::path(data).parent_path();
  if (!dir.empty()) {
    std::size_t n = 0;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator() &&
                                                    n < 10000;
         it.increment(ec), ++n)
      out.push_back(it->path().string());
  }
  return out;
}

// "" when `path` is none of the inputs, else the input it is.
std::string inputAt(const std::string& path, const std::vector<std::string>& inputs) {
  const auto id = fileId(path);
  if (!id)
    return {};
  for (const auto& in : inputs)
    if (fileId(in) == id)
      return in;
  return {};
}

// Checks that files can be created in dir (creating it if needed): a probe file
// made with O_EXCL and removed again. "" when they can, else the reason.
std::string checkWritableDirectory(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return ec.message();
  if (!std::filesystem::is_directory(dir, ec))
    return "not a directory";
  const std::string probe =
      (std::filesystem::path(dir) / (".mantissa-probe-" + std::to_string(::getpid()))).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return {};
}

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
  ArgParser p("train", "Train a model on the CPU in a mixed-precision recipe; log every step.");
  p.option("config", "FILE.json", "Start from this run configuration (flags override it)");
  p.option("preset", "NAME", "Start from a phenomenon preset's first run (see --list-presets)");
  p.flag("list-presets", "List the phenomenon presets and exit");
  p.option("data", "NAME|PATH", "mnist, fashion, spirals, blobs, or an IDX/CSV path (default mnist)");
  p.option("model", "SPEC", "mlp:784-256-256-10[:relu|gelu|tanh|sigmoid]");
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

  // Outputs before inputs are loaded: an unwritable log or export folder, or
  // an output that would overwrite an input, is refused before any work.
  const std::vector<std::string> inputs = inputFiles(p.optionalValue("config"), config.data);
  std::unique_ptr<JsonlLog> log;
  if (auto path = p.optionalValue("log")) {
    if (const std::string in = inputAt(*path, inputs); !in.empty()) {
      std::cerr << "mantissa-cli train: --log: '" << *path << "' is the input '" << in
                << "'; choose another file\n";
      return 2;
    }
    log = std::make_unique<JsonlLog>(*path);
    if (!log->ok()) {
      std::cerr << "mantissa-cli train: --log: cannot write '" << *path
                << "': " << log->openError() << "\n";
      return 2;
    }
  }
  if (auto dir = p.optionalValue("export")) {
#ifndef MANTISSA_CLI_HAS_UI
    std::cerr << "mantissa-cli train: --export: this mantissa-cli was built without the GUI "
                 "libraries (MANTISSA_BUILD_GUI=OFF)\n";
    return 2;
#endif
    if (const std::string in = inputAt(*dir, inputs); !in.empty()) {
      std::cerr << "mantissa-cli train: --export: '" << *dir << "' is the input '" << in << "'\n";
      return 2;
    }
    if (const std::string why = checkWritableDirectory(*dir); !why.empty()) {
      std::cerr << "mantissa-cli train: --export: cannot write to '" << *dir << "': " << why
                << "\n";
      return 2;
    }
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

  if (log) {
    log->start();
    log->write(train::logHeader(*session));
  }
  // --export: the same objects the log holds, decimated to a bounded number.
  std::optional<train::RunLogDecimator> exported;
  if (p.has("export")) {
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
  train::RunSummary s = train::runToCompletion(*session, cb, &g_interrupted);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);

  // A run that ends with a non-finite test loss diverged, even when no single
  // step's values were caught becoming non-finite.
  if (!s.divergence && !s.stoppedEarly && s.steps > 0 && !std::isfinite(s.testLoss)) {
    train::Divergence d;
    d.step = s.steps - 1;
    d.layer = 0;
    d.op = "evaluation";
    d.reason = "non-finite test loss";
    std::ostringstream loss;
    loss << s.testLoss;
    d.message = "non-finite test loss at step " + std::to_string(d.step) +
                ": the test loss after the last step is " + loss.str() +
                " (the weights hold non-finite or overflowing values)";
    s.divergence = std::move(d);
  }
  const nlohmann::json summary = train::logSummary(s);
  if (log)
    log->write(summary);
  if (exported) {
    exported->add(summary);
#ifdef MANTISSA_CLI_HAS_UI
    if (const int rc = exportTrainedRun(exported->take(), p.value("export")); rc != 0)
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
