// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Everything that defines a training run. Same RunConfig (and machine) ->
// bit-identical loss trace. Serialised as JSON with the field names below
// (snake_case); unknown keys are rejected so a typo never silently falls back
// to a default.
//
//   {"data": "mnist", "model": "mlp:784-256-256-10:relu", "recipe": "fp32",
//    "scaler": "", "optimizer": "sgd", "lr": 0.05, "momentum": 0.9, ...}

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace mantissa::train {

class ConfigError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Integer limits, the same as mantissa-cli train's flags.
inline constexpr std::int64_t kMaxSteps = std::int64_t{1} << 40;       // steps, warmup, eval_every
inline constexpr std::int64_t kMaxEpochs = 1'000'000;
inline constexpr int kMaxBatch = 65536;
inline constexpr int kMaxGradAccumulation = 1024;
inline constexpr int kMaxTelemetryEvery = 1 << 30;
inline constexpr std::uint64_t kMaxSeed = (std::uint64_t{1} << 63) - 1;

struct RunConfig {
  std::string data = "mnist";                   // builtin name or path (data::loadDataSpec)
  std::string model = "mlp:784-256-256-10:relu"; // parseMlpSpec, parseCnnSpec ("cnn:...") or parseGptSpec ("gpt:...")
  std::string recipe = "fp32";                  // amp::recipeByName
  // Precision of BatchNorm statistics ("fp32", "bf16", "fp16"; the policy's
  // "batchnorm" class); "" = the recipe's reductions (FP32 in every recipe).
  // Written to JSON only when set.
  std::string batchnorm;
  std::string scaler;     // "" = the recipe's default; only for recipes with loss scaling
  std::optional<double> scalerInitScale;     // override of the preset's initial scale
  std::optional<int> scalerGrowthInterval;   // override of the preset's growth interval
  std::string optimizer = "sgd";             // "sgd" | "adamw"
  double lr = 0.05;
  double momentum = 0.9;                     // SGD
  double weightDecay = 0.0;
  std::string schedule = "constant";         // "constant" | "cosine" (warm-up + cosine)
  std::int64_t warmupSteps = 0;
  double lrFloor = 0.0;                      // cosine end value
  int batch = 128;
  std::int64_t steps = 0;                    // optimizer steps; 0 = use epochs
  std::int64_t epochs = 0;                   // passes over the training set; 0 = use steps
  std::uint64_t seed = 1;
  int telemetryEvery = 0;                    // K: a telemetry frame every K steps; 0 = off
  // Formats the telemetry's cast fractions cover beyond fp16, bf16, fp8-e4m3
  // and fp8-e5m2 (telemetry::parseCastFormatList; "" = those four only).
  std::string telemetryFormats;
  std::int64_t evalEvery = 0;                // test evaluation every N steps; 0 = each epoch
  int gradAccumulation = 1;                  // micro-batches per optimizer step
  double clipNorm = 0.0;                     // clip by global norm; 0 = off
  double initGain = 1.0;                     // multiplies the default weight init
  double lossMultiplier = 1.0;               // the objective is lossMultiplier x mean CE
  // GPT models (written to JSON for them only): the precision policy ("" =
  // the recipe's; else amp::parsePolicy's spec, which then decides master
  // weights and loss scaling too), AdamW's betas, and the fixed batches of
  // each split that train_loss and val_loss are measured on.
  std::string policy;
  double beta1 = 0.9;
  double beta2 = 0.999;
  int evalBatches = 20;
  // The shadow pass at telemetry steps (train/shadow.h): "" (off), "fp32" or
  // "fp64", the reference's precision; and the tensor error above which a
  // tensor is named. Written to JSON only when set.
  std::string shadow;
  double shadowThreshold = 1e-2;

  // Every problem found, one message each ("lr: must be a positive finite
  // number, got -1"); empty when valid. Checks names against the recipe,
  // model, scaler, optimizer and schedule parsers, not the data (loading does).
  // Integers out of the ranges above are problems too (rangeProblems()).
  std::vector<std::string> problems() const;
  // Only the integer range checks: what a run log's header must pass.
  std::vector<std::string> rangeProblems() const;
  // Throws ConfigError with all problems joined, if any.
  void validate() const;
};

// The settings of `c` that change what a run computes but that neither its
// recipe nor the setup's fields show, where they differ from a default
// RunConfig: "loss × 2^-14", "scaler initial scale 2^32", "scaler growth
// every 50 steps", "momentum 0", "init gain 0.5". A run's title and every
// chart of it name them, so no setting that shapes a run is invisible.
std::vector<std::string> settingsBeyondSetup(const RunConfig& c);

nlohmann::json toJson(const RunConfig& config);
// Missing keys keep their defaults; unknown keys and wrong types throw
// ConfigError naming the key, and so does an integer that does not fit its
// field (never truncated). Does not validate() (the caller decides).
RunConfig runConfigFromJson(const nlohmann::json& json);

} // namespace mantissa::train
