// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Whole-training-step timing per recipe: median and coefficient of
// variation over repetitions after warm-up, the breakdown by op kind, and the
// bytes each recipe holds per tensor role. Shared by tests/bench/bench_step.cpp,
// `mantissa-cli bench` and the GUI's Speed panel.
//
// Method: one Session per recipe on the shipped MNIST; `warmup` steps are
// run and discarded, then `repetitions` steps are timed one by one (each a
// real optimizer step on the next batch). The breakdown is the mean over the
// timed steps of each op kind's time; its sum plus the untimed glue is the
// mean step time.

#include <mantissa/model/op_times.h>
#include <mantissa/nn/linear.h>
#include <mantissa/model/tensor_plan.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::train {

struct StepBenchOptions {
  std::string data = "mnist";
  std::string model = "mlp:784-1024-1024-10";
  int batch = 128;
  int warmup = 5;
  int repetitions = 30;
  std::vector<std::string> recipes; // empty: every recipe
  int telemetryEvery = 0;           // 0: off; 1: a full telemetry frame every step
  // Called before each recipe with the fraction done; return false to cancel.
  std::function<bool(double fraction, std::string_view what)> progress;
};

struct StepBenchResult {
  std::string recipe;
  int telemetryEvery = 0;
  double medianMs = 0.0;
  double meanMs = 0.0;
  double cv = 0.0;             // standard deviation / mean of the timed steps
  model::OpTimes breakdownMs;  // mean per op kind
  // Bytes really allocated per tensor class (Session::allocatedBytes): FP32
  // buffers holding rounded values count 4 bytes a value.
  std::map<std::string, std::size_t> bytes;
  // The same tensors counted at the recipe's nominal precision (role name ->
  // bytes), what a format-native implementation would hold.
  std::map<std::string, std::size_t> bytesAtRecipePrecision;
  std::string matmulImplementation;
  bool matmulEmulated = false;
  std::string convImplementation; // "" for a model without convolutions
  std::vector<nn::MatmulUse> matmuls; // every product: path, kernel, why
};

// Throws whatever Session throws for a bad model/data; returns the results
// measured so far when progress() cancels.
std::vector<StepBenchResult> measureSteps(const StepBenchOptions& options);

} // namespace mantissa::train
