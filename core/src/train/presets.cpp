// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/train/presets.h>

#include <cmath>

namespace mantissa::train {

RunConfig referenceRun(std::string recipe) {
  RunConfig c;
  c.data = "mnist";
  c.model = "mlp:784-256-256-10:relu";
  c.recipe = std::move(recipe);
  c.optimizer = "sgd";
  c.lr = 0.05;
  c.momentum = 0.9;
  c.batch = 128;
  c.epochs = 3;
  c.seed = 1;
  return c;
}

namespace {

// Gradients as small as those of a loss averaged over many more terms (a
// sequence model's per-token mean, a large effective batch): the objective is
// 2^-14 x the mean cross-entropy. Its gradients sit 14 binades lower, below
// FP16's normal range, which is where FP16 training without a scaler loses
// them. The optimizer sees d(mean CE)/dw (the factor is undone in FP32 after
// the backward pass, like an unscale), so lr keeps its meaning and FP32 or
// BF16 runs are unaffected up to rounding.
constexpr double kSmallLoss = 1.0 / 16384.0;

RunConfig smallLoss(std::string recipe) {
  RunConfig c = referenceRun(std::move(recipe));
  c.lossMultiplier = kSmallLoss;
  c.telemetryEvery = 20;
  return c;
}

// nanoGPT's shakespeare_char on the CPU: 4 layers, 4 heads, embd 128, ctx 64,
// batch 12, AdamW lr 1e-3 beta2 0.99 wd 0.1, warm-up 100 then cosine to 1e-4,
// clip 1.0, 2000 steps; train_loss and val_loss on 20 fixed batches every 250.
RunConfig shakespeareChar() {
  RunConfig c;
  c.data = "shakespeare";
  c.model = "gpt:layers=4,heads=4,embd=128,ctx=64";
  c.recipe = "fp32";
  c.optimizer = "adamw";
  c.lr = 1e-3;
  c.beta1 = 0.9;
  c.beta2 = 0.99;
  c.weightDecay = 0.1;
  c.schedule = "cosine";
  c.warmupSteps = 100;
  c.lrFloor = 1e-4;
  c.clipNorm = 1.0;
  c.batch = 12;
  c.steps = 2000;
  c.seed = 1;
  c.evalBatches = 20;
  c.evalEvery = 250;
  return c;
}

std::vector<Preset> build() {
  std::vector<Preset> list;

  list.push_back({"underflow", "FP16 without loss scaling: small gradients become zero",
                  "The loss is 2^-14 x the mean cross-entropy, so its gradients are as small as "
                  "those of a loss averaged over many terms. In FP16 (smallest subnormal 2^-24) "
                  "many weight-gradient values round to zero: compare the fraction lost per layer "
                  "and the test accuracy with fp16-mixed, which scales the loss first.",
                  {smallLoss("fp16-mixed-noscale"), smallLoss("fp16-mixed")}});

  // PyTorch's GradScaler rules, but starting at 2^32 and growing after 50
  // finite steps instead of 2000, so that a 3-epoch run reaches the scale at
  // which the scaled gradients overflow FP16 and shows both directions.
  RunConfig scaled = smallLoss("fp16-mixed");
  scaled.scaler = "pytorch";
  scaled.scalerInitScale = std::ldexp(1.0, 32);
  scaled.scalerGrowthInterval = 50;
  scaled.telemetryEvery = 20;
  list.push_back({"scaling", "Dynamic loss scaling: back-offs on overflow, growth when stable",
                  "The same small-gradient run in fp16-mixed with PyTorch GradScaler rules, "
                  "started at 2^32 and with a growth interval of 50 steps instead of 2000 so that "
                  "growth is visible within three epochs: the scale doubles until the scaled "
                  "gradients overflow FP16, that step is skipped and the scale halves, then it "
                  "grows again. It recovers the underflowed gradients and matches fp32.",
                  {scaled, smallLoss("fp32")}});

  list.push_back({"bf16-no-scaler", "BF16 needs no loss scaler",
                  "The same small-gradient run in bf16-mixed: BF16 has FP32's 8-bit exponent, so "
                  "nothing underflows; the scale stays 1, no step is skipped, and the run matches "
                  "fp32.",
                  {smallLoss("bf16-mixed"), smallLoss("fp32")}});

  // Plain SGD with a small learning rate (0.02): each update is lr x g, far below
  // half a BF16 ULP of most weights (2^-9 relative), so round-to-nearest
  // discards it. Momentum would enlarge updates tenfold and hide the effect.
  auto swamp = [](std::string recipe) {
    RunConfig c = referenceRun(std::move(recipe));
    c.lr = 0.02;
    c.momentum = 0.0;
    c.telemetryEvery = 20;
    return c;
  };
  list.push_back({"swamping", "Pure BF16 weights lose small updates",
                  "Plain SGD with lr 0.02: most updates are smaller than half a BF16 ULP of the "
                  "weight they change. bf16-pure rounds them away and learns slowly; bf16-pure-sr "
                  "keeps them on average by stochastic rounding; bf16-mixed keeps them in its FP32 "
                  "master copy.",
                  {swamp("bf16-pure"), swamp("bf16-pure-sr"), swamp("bf16-mixed")}});

  list.push_back({"shakespeare-char",
                  "Character-level GPT on Tiny Shakespeare (nanoGPT's CPU configuration)",
                  "A 4-layer GPT (4 heads, embedding 128, context 64) trained for 2000 steps with "
                  "AdamW, warm-up and cosine decay, as nanoGPT's shakespeare_char runs on a CPU. "
                  "Choose a recipe or a precision policy to compare; val_loss is measured on 20 "
                  "fixed batches of the held-out text every 250 steps.",
                  {shakespeareChar()}});

  // The shadow pass's error map as a GPT trains: every 10th step runs again in
  // FP32 from the same weights and batch, and each tensor's error is shown.
  RunConfig map = shakespeareChar();
  map.recipe = "bf16-mixed";
  map.steps = 300;
  map.warmupSteps = 30;
  map.evalEvery = 100;
  map.telemetryEvery = 10;
  map.shadow = "fp32";
  list.push_back({"error-map", "Where a bf16-mixed GPT loses accuracy, tensor by tensor",
                  "The shakespeare-char GPT in bf16-mixed for 300 steps. Every 10th step the "
                  "same batch runs again through an FP32 copy of the model from the same "
                  "weights, and every tensor of the forward and backward pass is compared with "
                  "its FP32 twin: the Error view shows each tensor's error and names the first "
                  "one over 1%.",
                  {map}});
  return list;
}

} // namespace

const std::vector<Preset>& presets() {
  static const std::vector<Preset> list = build();
  return list;
}

const Preset* findPreset(std::string_view name) {
  for (const auto& p : presets())
    if (p.name == name)
      return &p;
  return nullptr;
}

} // namespace mantissa::train
