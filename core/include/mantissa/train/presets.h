// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The named starting points of a run: the four phenomena of mixed-precision
// training, each as a set of runs on the shipped MNIST that differ only in
// the recipe, and the GPT's reference run. The GUI's preset menu, the lessons,
// mantissa-cli train --preset and tests/core/test_phenomena.cpp use exactly
// these configs.
//
//   underflow         fp16-mixed-noscale vs fp16-mixed: gradients flushed to zero
//   scaling           fp16-mixed vs fp32: the dynamic scaler's back-offs and growth
//   bf16-no-scaler    bf16-mixed vs fp32: BF16's FP32 exponent range needs no scaler
//   swamping          bf16-pure vs bf16-pure-sr vs bf16-mixed: updates below half an ULP
//   shakespeare-char  one fp32 GPT run, nanoGPT's shakespeare_char CPU configuration
//   error-map         the same GPT in bf16-mixed, 300 steps, shadowed in FP32 every 10 steps

#include <mantissa/train/run_config.h>

#include <string>
#include <string_view>
#include <vector>

namespace mantissa::train {

struct Preset {
  std::string name;        // "underflow"
  std::string title;       // one line
  std::string explanation; // what to look at, and why the settings are what they are
  std::vector<RunConfig> runs; // the first run is the one the phenomenon is about
};

const std::vector<Preset>& presets();
const Preset* findPreset(std::string_view name);

// The reference run: MNIST, MLP 784-256-256-10, SGD momentum 0.9,
// lr 0.05, batch 128, 3 epochs, in `recipe`.
RunConfig referenceRun(std::string recipe);

} // namespace mantissa::train
