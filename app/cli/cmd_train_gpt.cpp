// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli train with a GPT: character-level language modelling on a text
// (--model gpt:..., --data shakespeare or a text file, --preset
// shakespeare-char, or a --config file naming one), in a recipe or a
// precision policy.
//
// Log (--log FILE.jsonl), flushed line by line: the run-log format of every
// run (core/include/mantissa/train/run_log_gpt.h), read by report, plot and
// the GUI: header, step rows (a telemetry frame every --telemetry-every K
// steps), eval rows (val_loss as test_loss, train_loss), and the summary with
// val_loss, train_loss and sample.
// Exit status: 0 finished, 1 error, 2 bad usage, 3 diverged, 130 interrupted
// (Ctrl+C or SIGTERM: the log holds every step run and the summary).
#include "args.h"
#include "commands.h"
#include "run_outputs.h"
#include "train_config.h"

#include <mantissa/data/dataset.h>
#include <mantissa/train/gpt_run.h>
#include <mantissa/train/run_config.h>
#include <mantissa/train/run_log_gpt.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>

namespace mantissa::cli {

namespace {

std::atomic<bool> g_gptInterrupted{false};
extern "C" void onGptInterrupt(int) { g_gptInterrupted.store(true); }

} // namespace

bool wantsGptTraining(const Args& args) {
  std::optional<std::string> config;
  bool modelOrDataGiven = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--")
      break;
    const std::string next = i + 1 < args.size() ? args[i + 1] : "";
    auto valueOf = [&](const std::string& name) -> std::optional<std::string> {
      if (a == "--" + name)
        return next;
      if (a.rfind("--" + name + "=", 0) == 0)
        return a.substr(name.size() + 3);
      return std::nullopt;
    };
    if (auto v = valueOf("model")) {
      modelOrDataGiven = true;
      if (*v == "gpt" || v->rfind("gpt:", 0) == 0)
        return true;
    }
    if (auto v = valueOf("preset"); v && *v == "shakespeare-char")
      return true;
    if (auto v = valueOf("data")) {
      modelOrDataGiven = true;
      if (namesText(*v))
        return true;
    }
    if (valueOf("policy") || valueOf("sample"))
      return true;
    if (auto v = valueOf("config"))
      config = *v;
  }
  // No flag decides: the configuration file's model and data do (a file that
  // cannot be read is reported by the path that reads it again).
  if (config && !modelOrDataGiven)
    if (const auto file = readConfigFile(*config, /*quiet=*/true))
      return configWantsGpt(file->config, file->sets("model"), file->sets("data"));
  return false;
}

int runTrainGpt(const Args& args) {
  ArgParser p("train", "Train a character-level GPT on a text in a recipe or a precision policy.");
  p.option("config", "FILE", "Start from a run configuration: a JSON file, or a run log (.jsonl) "
                             "whose header holds one; flags override it (default: none)");
  p.option("preset", "NAME", "shakespeare-char: nanoGPT's CPU configuration (the defaults)");
  p.option("data", "NAME|PATH", "shakespeare, or a UTF-8 text file (default shakespeare)");
  p.option("model", "SPEC", "gpt:layers=4,heads=4,embd=128,ctx=64");
  p.option("recipe", "NAME", "fp32, bf16-mixed, fp16-mixed, ... (default fp32)");
  p.option("policy", "SPEC", "NAME[,class=precision...]: fp32, autocast-cpu-bf16, "
                             "autocast-cuda-fp16, llm.c, all-bf16, all-fp16 (replaces the recipe's)");
  p.option("batch", "B", "Batch size (default 12)");
  p.option("steps", "N", "Optimizer steps (default 2000)");
  p.option("lr", "X", "Peak learning rate of warm-up + cosine (default 1e-3)");
  p.option("lr-floor", "X", "Learning rate at the end of the cosine (default 1e-4)");
  p.option("warmup-steps", "N", "Warm-up steps (default 100)");
  p.option("weight-decay", "X", "AdamW weight decay on matrices and embeddings (default 0.1)");
  p.option("clip-norm", "X", "Clip gradients by global norm (default 1.0, 0 = off)");
  p.option("seed", "S", "Seed of initialisation, batches and sampling (default 1)");
  p.option("eval-every", "N", "Evaluate train_loss and val_loss every N steps (default 250)");
  p.option("eval-batches", "N", "Fixed batches per split for each evaluation (default 20)");
  p.option("telemetry-every", "K", "Telemetry frame (histograms of weights, gradients and "
                                   "activations, cast fractions) every K steps in the log "
                                   "(default 0: off)");
  p.option("sample", "N", "After training, print N generated characters");
  p.option("temperature", "T", "Sampling temperature, > 0 (default 1.0)");
  p.option("log", "FILE.jsonl", "Write one JSON object per step (flushed per line)");
  p.flag("quiet", "No progress lines on stderr");
  if (auto rc = p.parse(args))
    return *rc;

  train::GptRunConfig config = train::shakespeareCharPreset();
  if (auto name = p.optionalValue("preset"); name && *name != "shakespeare-char") {
    std::cerr << "mantissa-cli train: --preset: '" << *name
              << "' is not a GPT preset (shakespeare-char); see mantissa-cli train --list-presets\n";
    return 2;
  }
  std::optional<ConfigFile> configFile;
  if (auto path = p.optionalValue("config")) {
    configFile = readConfigFile(*path);
    if (!configFile)
      return 2;
    // The fields the file sets that a GPT reads, over the preset's values
    // (a file's optimizer, schedule and epochs are those of an image model).
    const train::RunConfig& c = configFile->config;
    const auto take = [&](const char* key, auto& out, const auto& value) {
      if (configFile->sets(key))
        out = static_cast<std::remove_reference_t<decltype(out)>>(value);
    };
    take("data", config.data, c.data);
    take("model", config.model, c.model);
    take("recipe", config.recipe, c.recipe);
    take("policy", config.policy, c.policy);
    take("batch", config.batch, c.batch);
    take("steps", config.steps, c.steps);
    take("lr", config.lr, c.lr);
    take("lr_floor", config.lrFloor, c.lrFloor);
    take("warmup_steps", config.warmupSteps, c.warmupSteps);
    take("weight_decay", config.weightDecay, c.weightDecay);
    take("clip_norm", config.clipNorm, c.clipNorm);
    take("seed", config.seed, c.seed);
    take("beta1", config.beta1, c.beta1);
    take("beta2", config.beta2, c.beta2);
    take("eval_batches", config.evalBatches, c.evalBatches);
    take("eval_every", config.evalEvery, c.evalEvery);
    take("telemetry_every", config.telemetryEvery, c.telemetryEvery);
  }
  for (const char* key : {"data", "model", "recipe", "policy"})
    if (auto v = p.optionalValue(key)) {
      const std::string k = key;
      (k == "data" ? config.data : k == "model" ? config.model : k == "recipe" ? config.recipe
                                                                                : config.policy) = *v;
    }
  auto real = [&](const char* name, double& out) {
    if (auto v = p.optionalValue(name)) {
      auto x = parseReal("train", name, *v);
      if (!x)
        return false;
      out = *x;
    }
    return true;
  };
  auto integer = [&](const char* name, auto& out, long long min, long long max) {
    if (auto v = p.optionalValue(name)) {
      auto x = parseInteger("train", name, *v, min, max);
      if (!x)
        return false;
      out = static_cast<std::remove_reference_t<decltype(out)>>(*x);
    }
    return true;
  };
  int sampleChars = 0;
  double temperature = 1.0;
  if (!real("lr", config.lr) || !real("lr-floor", config.lrFloor) ||
      !real("weight-decay", config.weightDecay) || !real("clip-norm", config.clipNorm) ||
      !real("temperature", temperature) || !integer("batch", config.batch, 1, 4096) ||
      !integer("steps", config.steps, 1, 1LL << 40) ||
      !integer("warmup-steps", config.warmupSteps, 0, 1LL << 40) ||
      !integer("seed", config.seed, 0, std::numeric_limits<long long>::max()) ||
      !integer("eval-every", config.evalEvery, 0, 1LL << 40) ||
      !integer("eval-batches", config.evalBatches, 1, 10000) ||
      !integer("telemetry-every", config.telemetryEvery, 0, 1 << 30) ||
      !integer("sample", sampleChars, 0, 1000000))
    return 2;
  if (!(temperature > 0 && temperature <= 100)) {
    std::cerr << "mantissa-cli train: --temperature: must be in (0, 100], got " << temperature << "\n";
    return 2;
  }
  const bool stepsGiven = p.has("steps") || (configFile && configFile->sets("steps"));
  const bool warmupGiven =
      p.has("warmup-steps") || (configFile && configFile->sets("warmup_steps"));
  if (stepsGiven && !warmupGiven && config.warmupSteps >= config.steps)
    config.warmupSteps = config.steps / 10;
  if (const auto problems = config.problems(); !problems.empty()) {
    for (const auto& problem : problems)
      std::cerr << "mantissa-cli train: " << problem << "\n";
    return 2;
  }

  // Outputs before any work: an unwritable log, or one that is an input
  // (--config or the --data text), is refused before the data is read.
  std::unique_ptr<JsonlLog> log;
  if (auto path = p.optionalValue("log")) {
    log = openRunLog(*path, inputFiles(p.optionalValue("config"), config.data));
    if (!log)
      return 2;
  }

  std::unique_ptr<train::GptRun> run;
  try {
    run = std::make_unique<train::GptRun>(config);
  } catch (const data::DataError& e) {
    // The data named by the configuration file is that file's field.
    if (configFile && !p.has("data") && configFile->sets("data"))
      std::cerr << "mantissa-cli train: --config " << configFile->path << ": \"data\": " << e.what()
                << "\n";
    else
      std::cerr << "mantissa-cli train: --data: " << e.what() << "\n";
    return 2;
  } catch (const train::ConfigError& e) {
    std::cerr << "mantissa-cli train: " << e.what() << "\n";
    return 2;
  }

  if (log) {
    log->start();
    log->write(train::gptLogHeader(*run));
  }
  const bool quiet = p.has("quiet");
  if (!quiet)
    std::cerr << "training " << model::parseGptSpec(config.model).toString() << " ("
              << run->model().parameterCount() << " parameters) on " << run->corpus().name << " ("
              << run->corpus().vocabularySize() << " characters), policy " << run->policy().toSpec()
              << ", " << config.steps << " steps; matmul " << run->model().matmulImplementation()
              << "\n";

  auto evalRow = [&](const train::GptEval& e) {
    if (log)
      log->write(train::gptLogEval(e));
    if (!quiet)
      std::cerr << "step " << e.step << ": train_loss " << e.trainLoss << ", val_loss " << e.valLoss
                << "\n";
  };

  std::signal(SIGINT, onGptInterrupt);
  std::signal(SIGTERM, onGptInterrupt);
  const auto start = std::chrono::steady_clock::now();
  auto lastPrint = start;
  while (!run->finished() && !g_gptInterrupted.load()) {
    const train::GptStep& r = run->step();
    if (log)
      log->write(train::gptLogStep(r));
    const auto now = std::chrono::steady_clock::now();
    if (!quiet && std::chrono::duration<double>(now - lastPrint).count() >= 2.0) {
      std::cerr << "step " << r.step + 1 << "/" << config.steps << "  loss " << r.loss << "  "
                << r.stepMs << " ms/step\n";
      lastPrint = now;
    }
    if (config.evalEvery > 0 && run->stepsDone() % config.evalEvery == 0 && !run->finished())
      evalRow(run->evaluate());
  }
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  const train::GptEval last = run->evaluate();
  evalRow(last);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string sample;
  if (sampleChars > 0 && !run->divergence())
    sample = run->sample(sampleChars, temperature, config.seed);
  if (log)
    log->write(train::gptLogSummary(*run, train::gptSummary(*run, last, wall, sample)));
  std::cout << "policy " << run->policy().toSpec() << ": val_loss " << last.valLoss
            << ", train_loss " << last.trainLoss << ", " << run->stepsDone() << " steps ("
            << run->skippedSteps() << " skipped) in " << wall << " s\n";
  if (sampleChars > 0)
    std::cout << sample << "\n";
  if (log && !log->error().empty()) {
    std::cerr << "mantissa-cli train: --log: cannot write '" << *p.optionalValue("log")
              << "': " << log->error() << "\n";
    return 1;
  }
  if (run->divergence()) {
    std::cerr << "mantissa-cli train: diverged: " << *run->divergence() << "\n";
    return 3;
  }
  if (g_gptInterrupted.load()) {
    if (!quiet)
      std::cerr << "mantissa-cli train: interrupted after " << run->stepsDone() << " steps\n";
    return 130; // as the MLP path: `train && report` stops on a cut-short run
  }
  return 0;
}

} // namespace mantissa::cli
