// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli train: a headless training run with a JSONL log, for every
// model: an MLP or a CNN on images, a GPT on text (--model gpt:..., a text
// --data, --preset shakespeare-char, or a --config file naming one). A run's
// defaults are its model's: a GPT starts from the shakespeare-char preset.
//
// Log (--log FILE.jsonl), flushed line by line so a killed run keeps every
// step written so far:
//   {"header": true, "config": {...}, "recipe_table": [...], "bytes": {...}, ...}
//   {"step": 0, "loss": 2.30, "lr": 0.05, "loss_scale": 65536, "found_inf": false,
//    "skipped": false, "step_ms": 4.1, "grad_norm": 1.2, ..., "telemetry": {...}}
//   {"eval": true, "step": 62, "test_loss": 0.42, "test_accuracy": 0.88}
//   {"summary": true, "test_accuracy": 0.92, "test_loss": 0.25, "steps": 186,
//    "wall_s": 36.1, "recipe": "fp32", ...}
// A GPT's rows add its policy and op table to the header, val_loss and
// train_loss to the eval rows and the summary (run_log_rows.h), and the
// --sample text to the summary.
// Exit status: 0 finished, 1 error, 2 bad usage, 3 diverged (a step produced
// a non-finite value, or an evaluation's loss is not finite: Session::evaluate), 130
// interrupted (Ctrl+C or SIGTERM: the log and --export still hold every step run).
//
// Outputs are checked before any data is loaded: --log and --export must be
// writable and must not be one of the inputs (--config, --data, or a file
// beside an IDX --data file or in a --data directory). An existing log is
// replaced only once the new one holds its first row (JsonlLog). --export keeps at most
// train::kMaxExportStepRows step rows and kMaxExportFrames telemetry frames in
// memory, evenly spaced (the first, the last and every scaler event and
// divergence row are kept), so a long run's charts cost bounded memory.
#include "args.h"
#include "commands.h"
#include "run_outputs.h"
#include "train_config.h"

#include <mantissa/telemetry/tensor_scan.h>
#include <mantissa/amp/loss_scaler.h>
#include <mantissa/amp/policy.h>
#include <mantissa/amp/recipe.h>
#include <mantissa/data/dataset.h>
#include <mantissa/io/atomic_file.h>
#include <mantissa/io/excerpt.h>
#include <mantissa/io/regular_file.h>
#include <mantissa/io/safetensors.h>
#include <mantissa/model/mlp.h>
#include <mantissa/model/model_registry.h>
#include <mantissa/train/checkpoint.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/run_config_file.h>
#include <mantissa/train/run_log.h>
#include <mantissa/train/run_log_rows.h>
#include <mantissa/train/run_precision.h>
#include <mantissa/train/shadow.h>
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
#include <iomanip>
#include <iostream>
#include <iterator>
#include <sstream>

namespace mantissa::cli {

namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void onInterrupt(int) { g_interrupted.store(true); }

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

// The nearest known name to the first unknown one in the configuration, or "".
std::string nameHint(const train::RunConfig& c) {
  const auto near = [](const std::string& given, const std::vector<std::string>& names) {
    if (std::find(names.begin(), names.end(), given) != names.end())
      return std::string();
    return closestName(given, names).value_or(std::string());
  };
  if (!amp::findRecipe(c.recipe))
    return near(c.recipe, amp::recipeNames());
  if (!c.scaler.empty() && c.scaler.rfind("static", 0) != 0)
    if (auto h = near(c.scaler, {"pytorch", "keras", "apex", "deepspeed", "megatron", "none"}); !h.empty())
      return h;
  if (auto h = near(c.optimizer, {"sgd", "adamw"}); !h.empty())
    return h;
  return near(c.schedule, {"constant", "cosine"});
}

// The default model for data other than 28x28 images: two hidden layers
// between the data's features and classes.
std::string modelFor(const data::TrainTest& d) {
  const int hidden = d.train.features > 64 ? 256 : 64;
  return "mlp:" + std::to_string(d.train.features) + "-" + std::to_string(hidden) + "-" +
         std::to_string(hidden) + "-" + std::to_string(d.train.classes) + ":relu";
}

// A session on image data. fitModel: a model that does not fit the data (the
// default one is sized for 28x28 digits) is replaced by one of the data's shape.
std::unique_ptr<train::Session> imageSession(train::RunConfig& config, bool fitModel) {
  auto loaded = std::make_shared<const data::TrainTest>(data::loadDataSpec(config.data));
  if (fitModel) {
    try {
      const auto widths = model::parseMlpSpec(config.model).widths;
      if (widths.front() != loaded->train.features || widths.back() != loaded->train.classes)
        config.model = modelFor(*loaded);
    } catch (const std::exception&) {
      // an invalid spec is the Session's to report
    }
  }
  return std::make_unique<train::Session>(config, std::move(loaded));
}

// The preset whose first run holds the run's defaults (model_registry.h; a
// GPT's is shakespeare-char; "" for RunConfig's): its model's family's, or,
// without --model, text data's model's; else what the --preset or the
// --config file names; else --policy or --sample ask for a text model.
std::string defaultsPreset(const ArgParser& p, const std::optional<ConfigFile>& file) {
  if (auto m = p.optionalValue("model"))
    return model::modelKind(*m).defaultsPreset;
  if (auto d = p.optionalValue("data"))
    return namesText(*d) ? model::textModelKind().defaultsPreset : "";
  if (auto name = p.optionalValue("preset")) {
    const train::Preset* preset = train::findPreset(lowerCase(*name));
    return preset ? model::modelKind(preset->runs.front().model).defaultsPreset : "";
  }
  if (file)
    return configDefaultsPreset(file->config, file->sets("model"), file->sets("data"));
  return p.has("policy") || p.has("sample") ? model::textModelKind().defaultsPreset : "";
}

// "is an MLP" / "is a CNN" / "is not a GPT", for messages about a model.
std::string kindOf(const std::string& spec) {
  const model::ModelKind& kind = model::modelKind(spec);
  return model::specMatches(kind, spec) ? std::string("is ") + kind.noun
                            : std::string("is not ") + model::textModelKind().noun;
}

// "; the model families: a multilayer perceptron on images: mlp:...; ...",
// from the registry (model_registry.h).
std::string modelFamilies() {
  std::string out = ". Model families: ";
  for (const model::ModelKind* kind : model::modelKinds())
    out += std::string(kind == model::modelKinds().front() ? "" : "; ") + kind->description;
  return out;
}

} // namespace

int runTrain(const Args& args) {
  ArgParser p("train", "Train a model on the CPU in a mixed-precision recipe; log every step.");
  p.option("config", "FILE", "Start from a run configuration: a JSON file, or a run log (.jsonl) "
                             "whose header holds one; flags override it (default: none)");
  p.option("preset", "NAME", "Start from a preset's first run: a phenomenon, or shakespeare-char "
                             "for a GPT (see --list-presets; "
                             "default: none)");
  p.flag("list-presets", "List the presets and exit");
  p.option("data", "NAME|PATH", "mnist, fashion, spirals, blobs, or an IDX/CSV path (default mnist)");
  p.option("model", "SPEC", "mlp:WIDTHS[:relu|gelu|tanh|sigmoid] (default mlp:784-256-256-10:relu "
                           "for mnist and fashion; sized to other data); for image data a CNN: "
                           "cnn:lenet, cnn:lenet-bn or cnn:LAYERS, LAYERS joined by '-' from "
                           "cNkK[b] (convolution to N channels, K = 3 or 5, b = BatchNorm, then "
                           "ReLU), p2 (2x2 max pooling after a convolution) and fN (fully "
                           "connected, N units, after the convolutions), e.g. "
                           "cnn:c32k5-p2-c64k5-p2-f128 (= cnn:lenet; the classifier is added); "
                           "or gpt:layers=4,heads=4,embd=128,ctx=64 for a GPT on text (data "
                           "shakespeare or a UTF-8 text file; its defaults are those of "
                           "--preset shakespeare-char)" + modelFamilies());
  p.option("recipe", "NAME", "fp32, bf16-mixed, fp16-mixed, fp16-mixed-noscale, bf16-pure, "
                             "bf16-pure-sr, bf16-pure-kahan, fp8-delayed, fp8-current, fp8-block, mxfp8, nvfp4 (default fp32)");
  p.option("policy", "SPEC|FILE", "A GPT's precision policy, NAME[,class=precision...] or a "
                             "file holding one ('#' comments; e.g. mantissa-cli sweep's "
                             "policy.txt): fp32, "
                             "autocast-cpu-bf16, autocast-cuda-fp16, llm.c, all-bf16, all-fp16 "
                             "or a recipe such as bf16-mixed (replaces the recipe's); any element "
                             "format: matmul-inputs=FORMAT (e.g. e3m4, unscaled), "
                             "element=FORMAT and grad-element=FORMAT for a recipe's operands "
                             "(e.g. matmul-inputs=fp8-current,element=fp8-e4m3fnuz), "
                             "block-scale=e8m0|ue4m3 for mxfp8 and nvfp4; per layer "
                             "hN.matmul-inputs, hN.fc.matmul-inputs (qkv, attproj, fc, fcproj), "
                             "hN.fc.element, hN.softmax");
  p.option("scaler", "NAME", "pytorch, keras, apex, deepspeed, megatron, static:S or none (default: "
                            "the recipe's, pytorch for fp16-mixed, none for the others)");
  p.option("batchnorm", "PREC", "Precision of a CNN's BatchNorm statistics: fp32, bf16 or fp16 "
                               "(default: the recipe's reductions, fp32)");
  p.option("optimizer", "NAME", "sgd or adamw (default sgd)");
  p.option("lr", "X", "Learning rate (default 0.05)");
  p.option("momentum", "X", "SGD momentum (default 0.9)");
  p.option("weight-decay", "X", "Weight decay (default 0)");
  p.option("schedule", "NAME", "constant or cosine (warm-up + cosine; default constant)");
  p.option("warmup-steps", "N", "Warm-up steps of the cosine schedule (default 0; a GPT's 100, "
                                "a tenth of --steps when fewer)");
  p.option("lr-floor", "X", "Learning rate at the end of the cosine schedule (default 0)");
  p.option("batch", "B", "Batch size (default 128)");
  p.option("steps", "N", "Optimizer steps to run (default: one epoch's worth, see --epochs)");
  p.option("epochs", "E", "Passes over the training set (default 1 when --steps is absent)");
  p.option("grad-accumulation", "N", "Micro-batches per optimizer step (default 1)");
  p.option("clip-norm", "X", "Clip gradients by global norm (default 0 = off)");
  p.option("seed", "S", "Seed of initialisation, batching and stochastic rounding (default 1)");
  p.option("eval-every", "N", "Evaluate on the test set every N steps (default: every epoch; a "
                              "GPT's train_loss and val_loss every 250 steps, 0 = only at the end)");
  p.option("eval-batches", "N", "A GPT's fixed batches per split for each evaluation (default 20)");
  p.option("telemetry-every", "K", "Telemetry frame (histograms, cast fractions) every K steps "
                                    "(default 0 = off)");
  p.option("telemetry-formats", "LIST", "Formats the cast fractions cover besides fp16, bf16, "
                                        "fp8-e4m3 and fp8-e5m2: names or specs, comma-separated "
                                        "(e.g. fp16,bf16,fp8-e4m3fnuz,e3m4; at most 4 others)");
  p.option("shadow", "fp32|fp64", "At each telemetry step, run the batch again through a copy "
                                  "of the model in FP32 or FP64 and record every tensor's error "
                                  "against it (needs --telemetry-every; default: off)");
  p.option("shadow-threshold", "X", "Name the first tensor whose error (||run - reference|| / "
                                    "||reference||) exceeds X (default 0.01)");
  p.option("log", "FILE.jsonl", "Write one JSON object per step (flushed per line; default: no log)");
  p.option("export", "DIR", "When the run ends, write every chart (SVG, PNG) and its data (CSV) to DIR "
                           "(default: none)");
  p.option("checkpoint", "FILE.safetensors",
           "When the run ends (or is interrupted), write it to FILE as safetensors: the FP32 "
           "weights under PyTorch's names (nanoGPT's for a GPT), the working copies, the "
           "optimizer, scaler, data and random states, and the configuration");
  p.option("save-every", "N", "Also write --checkpoint every N steps (the latest replaces the last)");
  p.option("resume", "FILE.safetensors",
           "Continue the run saved in FILE, bit for bit, up to its total steps or to --steps M "
           "(the run's new total); its configuration is the file's");
  p.option("init-from", "FILE.safetensors",
           "Start from the weights in FILE (a Mantissa checkpoint or a PyTorch state dict under "
           "the same names and shapes)");
  p.option("sample", "N", "After training a GPT, print N generated characters");
  p.option("temperature", "T", "Sampling temperature of --sample, > 0 (default 1.0)");
  p.flag("quiet", "No progress lines on stderr");
  addMatmulOption(p);
  if (auto rc = p.parse(args))
    return *rc;
  if (auto rc = applyMatmulOption(p, "train"))
    return *rc;

  if (p.has("list-presets")) {
    for (const auto& preset : train::presets())
      std::cout << preset.name << "  " << preset.title << "\n";
    return 0;
  }

  // --resume: the run's configuration is the checkpoint's. What would change
  // its arithmetic cannot be given; the total (--steps) and the outputs can.
  std::optional<train::CheckpointInfo> resume;
  if (auto path = p.optionalValue("resume")) {
    for (const char* key :
         {"config", "preset", "data", "model", "recipe", "policy", "scaler", "batchnorm",
          "optimizer", "lr", "momentum", "weight-decay", "schedule", "warmup-steps", "lr-floor",
          "batch", "epochs", "grad-accumulation", "clip-norm", "seed", "init-from"})
      if (p.has(key)) {
        std::cerr << "mantissa-cli train: --" << key << ": a resumed run keeps the configuration "
                  << "saved in '" << *path << "' (only --steps, --eval-every, --telemetry-every "
                  << "and the outputs may be given)\n";
        return 2;
      }
    try {
      resume = train::readCheckpointInfo(*path);
    } catch (const std::exception& e) { // io::SafetensorsError, train::CheckpointError
      std::cerr << "mantissa-cli train: --resume: " << e.what() << "\n";
      return 2;
    }
    if (!resume->resumable) {
      std::cerr << "mantissa-cli train: --resume: '" << *path << "' holds weights only (no "
                << train::kCheckpointStatePrefix << "* tensors); start a run from them with "
                << "--init-from\n";
      return 2;
    }
  }

  train::RunConfig config;
  std::optional<ConfigFile> configFile;
  if (auto path = p.optionalValue("config")) {
    configFile = readConfigFile(*path);
    if (!configFile)
      return 2;
  }
  const std::string defaults = resume ? std::string() : defaultsPreset(p, configFile);
  if (resume)
    config = resume->config;
  else if (!defaults.empty())
    config = train::findPreset(defaults)->runs.front();
  if (configFile) {
    // The fields the file sets, over the defaults of its model.
    nlohmann::json fields = train::toJson(config);
    fields.update(configFile->fields);
    config = !defaults.empty() ? train::runConfigFromJson(fields) : configFile->config;
  } else if (auto name = p.optionalValue("preset")) {
    const train::Preset* preset = train::findPreset(lowerCase(*name));
    if (!preset) {
      std::vector<std::string> names;
      for (const auto& pr : train::presets())
        names.push_back(pr.name);
      std::cerr << "mantissa-cli train: --preset: unknown '" << quoteInput(*name) << "'"
                << didYouMean(*name, names) << " (see mantissa-cli train --list-presets)\n";
      return 2;
    }
    config = preset->runs.front();
  }
  for (const char* key : {"data", "model", "recipe", "scaler", "optimizer", "schedule", "policy"})
    if (auto v = p.optionalValue(key)) {
      const std::string k = key;
      // Names match in any letter case; a data path and a model spec are kept as given.
      std::string value = k == "model" ? *v : lowerCase(*v);
      if (k == "data") {
        const auto builtin = data::builtinNames();
        if (std::find(builtin.begin(), builtin.end(), value) == builtin.end())
          value = *v;
      }
      if (k == "policy") {
        value = *v;
        // A policy file (mantissa-cli sweep's policy.txt): its spec.
        std::error_code ec;
        if (std::filesystem::is_regular_file(*v, ec)) {
          try {
            value = amp::policySpecFromFile(io::readRegularFile(*v, 1 << 20, "policy file"));
          } catch (const std::exception& e) {
            std::cerr << "mantissa-cli train: --policy: " << e.what() << "\n";
            return 2;
          }
          if (value.empty()) {
            std::cerr << "mantissa-cli train: --policy: '" << quoteInput(*v)
                      << "' holds no policy (only comments and blank lines)\n";
            return 2;
          }
        }
      }
      (k == "data"        ? config.data
       : k == "model"     ? config.model
       : k == "recipe"    ? config.recipe
       : k == "scaler"    ? config.scaler
       : k == "optimizer" ? config.optimizer
       : k == "policy"    ? config.policy
                          : config.schedule) = value;
    }
  // A preset's or file's scaler belongs to its recipe: naming a recipe
  // without loss scaling drops it (train --preset scaling --recipe fp32).
  if (p.has("recipe") && !p.has("scaler"))
    if (const amp::Recipe* r = amp::findRecipe(config.recipe); r && !r->lossScaling) {
      config.scaler.clear();
      config.scalerInitScale.reset();
      config.scalerGrowthInterval.reset();
    }
  if (auto v = p.optionalValue("batchnorm"))
    config.batchnorm = lowerCase(*v);
  if (auto rc = applyNumber(p, "lr", config.lr))
    return *rc;
  if (auto rc = applyNumber(p, "momentum", config.momentum))
    return *rc;
  if (auto rc = applyNumber(p, "weight-decay", config.weightDecay))
    return *rc;
  if (auto rc = applyNumber(p, "clip-norm", config.clipNorm))
    return *rc;
  if (auto rc = applyNumber(p, "lr-floor", config.lrFloor))
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
  if (auto v = p.optionalValue("telemetry-formats")) {
    std::string error;
    if (!telemetry::parseCastFormatList(*v, error)) {
      std::cerr << "mantissa-cli train: --telemetry-formats: " << error << "\n";
      return 2;
    }
    config.telemetryFormats = *v;
  }
  if (auto rc = applyInteger(p, "eval-batches", config.evalBatches, 1, 10000))
    return *rc;
  if (auto v = p.optionalValue("shadow")) {
    if (*v != "fp32" && *v != "fp64") {
      std::cerr << "mantissa-cli train: --shadow: must be fp32 or fp64, got '" << io::excerpt(*v)
                << "'\n";
      return 2;
    }
    config.shadow = *v;
  }
  if (auto rc = applyNumber(p, "shadow-threshold", config.shadowThreshold))
    return *rc;
  int sampleChars = 0;
  double temperature = 1.0;
  if (auto rc = applyInteger(p, "sample", sampleChars, 0, 1000000))
    return *rc;
  if (auto rc = applyNumber(p, "temperature", temperature))
    return *rc;
  if (!(temperature > 0 && temperature <= 100)) {
    std::cerr << "mantissa-cli train: --temperature: must be in (0, 100], got " << temperature << "\n";
    return 2;
  }
  // Fewer steps than the warm-up (a GPT's 100): a tenth of them warm up.
  const bool stepsGiven = p.has("steps") || (configFile && configFile->sets("steps"));
  const bool warmupGiven =
      p.has("warmup-steps") || (configFile && configFile->sets("warmup_steps"));
  if (!resume && config.schedule == "cosine" && stepsGiven && !warmupGiven && config.steps > 0 &&
      config.warmupSteps >= config.steps)
    config.warmupSteps = config.steps / 10;

  const model::ModelKind& text = model::textModelKind();
  if (namesText(config.data) && !model::readsTokens(config.model)) {
    std::cerr << "mantissa-cli train: model: '" << quoteInput(config.model) << "' "
              << kindOf(config.model) << "; text data (" << quoteInput(config.data) << ") trains "
              << text.noun << ": --model " << text.offered.front().spec << "\n";
    return 2;
  }
  if (!model::readsTokens(config.model))
    for (const char* option : {"sample", "temperature"})
      if (p.has(option)) {
        std::cerr << "mantissa-cli train: --" << option << ": model '" << quoteInput(config.model)
                  << "' " << kindOf(config.model)
                  << "; sampling text needs " << text.noun << " on text (--model " << text.name
                  << ":...)\n";
        return 2;
      }

  if (const auto problems = config.problems(); !problems.empty()) {
    for (const auto& problem : problems)
      std::cerr << "mantissa-cli train: " << problem << "\n";
    if (const std::string hint = nameHint(config); !hint.empty())
      std::cerr << "mantissa-cli train: did you mean '" << hint << "'?\n";
    return 2;
  }

  // Outputs before inputs are loaded: an unwritable log or export folder, or
  // an output that would overwrite an input, is refused before any work.
  const std::vector<std::string> inputs = inputFiles(p.optionalValue("config"), config.data);
  std::unique_ptr<JsonlLog> log;
  if (auto path = p.optionalValue("log")) {
    log = openRunLog(*path, inputs);
    if (!log)
      return 2;
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

  std::int64_t saveEvery = 0;
  if (auto rc = applyInteger(p, "save-every", saveEvery, 1, 1LL << 40))
    return *rc;
  if (saveEvery > 0 && !p.has("checkpoint")) {
    std::cerr << "mantissa-cli train: --save-every: needs --checkpoint FILE to write to\n";
    return 2;
  }
  if (auto path = p.optionalValue("checkpoint")) {
    if (const std::string in = inputAt(*path, inputs); !in.empty()) {
      std::cerr << "mantissa-cli train: --checkpoint: '" << *path << "' is the input '" << in << "'\n";
      return 2;
    }
    try {
      const std::filesystem::path target = io::writeTarget(*path);
      const std::filesystem::path dir = target.parent_path().empty() ? "." : target.parent_path();
      if (::access(dir.c_str(), W_OK | X_OK) != 0)
        throw io::AtomicFileError("cannot write to '" + dir.string() + "': " + std::strerror(errno));
    } catch (const io::AtomicFileError& e) {
      std::cerr << "mantissa-cli train: --checkpoint: " << e.what() << "\n";
      return 2;
    }
  }

  std::unique_ptr<train::Session> session;
  try {
    if (model::readsTokens(config.model))
      session = std::make_unique<train::Session>(config); // reads the text
    else
      session = imageSession(config, !p.has("model"));
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
  if (resume) {
    if (session->totalSteps() <= resume->step) {
      std::cerr << "mantissa-cli train: --steps: the run in '" << p.value("resume")
                << "' stopped at step " << resume->step << " of " << session->totalSteps()
                << "; give a total above " << resume->step << " (--steps M) to train on\n";
      return 2;
    }
    try {
      train::restoreCheckpoint(*session, p.value("resume"), train::RestoreScope::Everything);
    } catch (const std::exception& e) {
      std::cerr << "mantissa-cli train: --resume: " << e.what() << "\n";
      return 2;
    }
  } else if (auto from = p.optionalValue("init-from")) {
    try {
      train::restoreCheckpoint(*session, *from, train::RestoreScope::Weights);
    } catch (const std::exception& e) {
      std::cerr << "mantissa-cli train: --init-from: " << e.what() << "\n";
      return 2;
    }
  }

  const nlohmann::json header = train::runLogHeader(*session);
  if (log) {
    log->start();
    log->write(header);
  }
  // --export: the same objects the log holds, decimated to a bounded number.
  std::optional<train::RunLogDecimator> exported;
  if (p.has("export")) {
    exported.emplace();
    exported->add(header);
  }

  const bool quiet = p.has("quiet");
  const std::int64_t total = session->totalSteps();
  const bool textRun = session->isText();
  const std::string policy = textRun ? train::runPolicy(config).toSpec() : std::string();
  if (!quiet && textRun)
    std::cerr << "training " << session->model().specString() << " ("
              << session->model().parameterCount() << " parameters) on " << session->text().name
              << " (" << session->text().vocabularySize() << " characters), policy " << policy
              << ", " << total << " steps; matmul " << session->model().matmulImplementation()
              << "\n";
  else if (!quiet)
    std::cerr << "training " << config.model << " on " << session->data().train.name << ", recipe "
              << config.recipe << ", " << total << " steps; matmul "
              << session->model().matmulImplementation()
              << (session->model().convImplementation().empty()
                      ? std::string()
                      : "; convolution " + session->model().convImplementation())
              << "\n";
  auto lastPrint = std::chrono::steady_clock::now();
  std::int64_t stepsAtPrint = 0;
  train::TrainerCallbacks cb;
  bool checkpointFailed = false;
  cb.onStep = [&](const train::StepReport& r) {
    if (saveEvery > 0 && (r.step + 1) % saveEvery == 0 && !session->finished() &&
        !session->divergence()) {
      try {
        train::saveCheckpoint(*session, p.value("checkpoint"));
      } catch (const std::exception& e) {
        std::cerr << "mantissa-cli train: --checkpoint: at step " << r.step + 1 << ": " << e.what()
                  << "\n";
        checkpointFailed = true;
      }
    }
    if (log || exported) {
      const nlohmann::json row = train::runLogStep(*session, r);
      if (log)
        log->write(row);
      if (exported)
        exported->add(row);
    }
    if (r.shadow && !quiet)
      std::cerr << train::describeShadowFrame(*r.shadow) << "\n";
    const auto now = std::chrono::steady_clock::now();
    const double dt = std::chrono::duration<double>(now - lastPrint).count();
    if (!quiet && (dt >= 1.0 || r.step + 1 == total)) {
      const double rate = double(r.step + 1 - stepsAtPrint) / std::max(dt, 1e-9);
      std::ostringstream line;
      line << "step " << r.step + 1 << "/" << total << "  loss " << std::setprecision(4) << r.loss
           << "  " << std::fixed << std::setprecision(rate < 10 ? 1 : 0) << rate << " steps/s";
      if (r.lossScale != 1.0)
        line << "  scale " << amp::formatScale(r.lossScale);
      std::cerr << line.str() << "\n";
      lastPrint = now;
      stepsAtPrint = r.step + 1;
    }
  };
  cb.onEval = [&](const train::EvalReport& e) {
    const nlohmann::json row = train::runLogEval(*session, e);
    if (log)
      log->write(row);
    if (exported)
      exported->add(row);
    if (!quiet && e.trainLoss)
      std::cerr << "step " << e.step << ": train_loss " << *e.trainLoss << ", val_loss " << e.loss
                << "\n";
  };

  std::signal(SIGINT, onInterrupt);
  std::signal(SIGTERM, onInterrupt);
  train::RunSummary s = train::runToCompletion(*session, cb, &g_interrupted);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);

  std::string sample;
  if (sampleChars > 0 && !s.divergence)
    sample = session->sample(sampleChars, temperature, config.seed);
  nlohmann::json summary = train::runLogSummary(*session, s);
  if (textRun)
    summary["sample"] = sample;
  if (log)
    log->write(summary);
  if (exported) {
    exported->add(summary);
#ifdef MANTISSA_CLI_HAS_UI
    if (const int rc = exportTrainedRun(exported->take(), p.value("export")); rc != 0)
      return rc;
#endif
  }

  // The run as it stopped; a diverged run's is not worth keeping.
  if (auto path = p.optionalValue("checkpoint"); path && !s.divergence) {
    try {
      train::saveCheckpoint(*session, *path);
    } catch (const std::exception& e) { // io::SafetensorsError, io::AtomicFileError
      std::cerr << "mantissa-cli train: --checkpoint: " << e.what() << "\n";
      checkpointFailed = true;
    }
  }

  if (textRun) {
    std::cout << "policy " << policy << ": val_loss " << s.testLoss << ", train_loss "
              << s.evalTrainLoss.value_or(0.0) << ", " << s.steps << " steps (" << s.skippedSteps
              << " skipped) in " << s.wallSeconds << " s\n";
    if (sampleChars > 0)
      std::cout << sample << "\n";
  } else {
    std::cout << "recipe " << s.recipe << ": test accuracy " << std::fixed << std::setprecision(2)
              << s.testAccuracy * 100.0 << " %, test loss " << std::setprecision(4) << s.testLoss
              << ", " << s.steps << " steps (" << s.skippedSteps << " skipped) in "
              << std::setprecision(s.wallSeconds < 10 ? 2 : 1) << s.wallSeconds << " s\n";
  }
  if (log && !log->error().empty()) {
    std::cerr << "mantissa-cli train: --log: cannot write '" << *p.optionalValue("log")
              << "': " << log->error() << "\n";
    return 1;
  }
  if (checkpointFailed)
    return 1;
  if (s.divergence) {
    std::cerr << "mantissa-cli train: diverged: " << s.divergence->message
              << (p.has("checkpoint") ? "; no checkpoint written" : "") << "\n";
    return 3;
  }
  if (s.stoppedEarly) {
    // Conventional 128 + SIGINT, so `train && report` stops here.
    std::cerr << "mantissa-cli train: interrupted after " << s.steps << " steps"
              << (log ? "; the log holds them" : "") << "\n";
    return 130;
  }
  return 0;
}

} // namespace mantissa::cli
