// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Lesson 7's measurement: one GPT forward pass per precision policy. Lesson
// 9's error map: a bf16-mixed GPT's tensors against its FP32 shadow.
#include <mantissa/amp/policy.h>
#include <mantissa/data/text.h>
#include <mantissa/lessons/demos.h>
#include <mantissa/model/gpt.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/session.h>
#include <mantissa/train/sweep.h>

#include <cmath>
#include <limits>
#include <random>

namespace mantissa::lessons {
namespace {

struct Pass {
  double loss;
  std::string nonFinite;
};

Pass gptLoss(const data::TextCorpus& corpus, const std::string& policy) {
  model::Gpt gpt(model::GptSpec{2, 4, 64, 32}, corpus.vocabularySize(), 4,
                 amp::parsePolicy(policy));
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  for (auto& p : gpt.params()) {
    const bool normWeight =
        p.name.ends_with("ln1.w") || p.name.ends_with("ln2.w") || p.name == "lnf.w";
    for (float& v : p.value.f32())
      v = normWeight ? 1.0f : u(rng);
  }
  gpt.refreshWorkingWeights();
  data::TextBatcher batcher(corpus, data::TextSplit::Validation, 32, 9);
  batcher.next(4, gpt.tokens(), gpt.targets());
  const double loss = gpt.forward();
  const auto site = gpt.firstNonFinite();
  return {loss, site ? *site : std::string()};
}

} // namespace

IslandsDemo fp32IslandsDemo() {
  const data::TextCorpus corpus = data::loadTextSpec("shakespeare", 32);
  IslandsDemo d;
  d.fp32Loss = gptLoss(corpus, "fp32").loss;
  struct Change {
    const char* change;
    const char* label;
    const char* policy;
  };
  const Change changes[] = {
      {"softmax in FP16", "softmax FP16", "fp32,softmax=fp16"},
      {"softmax in BF16", "softmax BF16", "fp32,softmax=bf16"},
      {"softmax in FP16, no max subtraction", "no max", "fp32,softmax=fp16,softmax-max=off"},
      {"LayerNorm statistics in BF16", "LN BF16", "fp32,norm-stats=bf16"},
      {"LayerNorm statistics in FP16", "LN FP16", "fp32,norm-stats=fp16"},
      {"loss in BF16", "loss BF16", "fp32,loss=bf16"},
      {"matmul sums in BF16", "sums BF16", "fp32,matmul-accumulation=bf16"},
      {"matmul sums in BF16, promoted every 8", "sums /8", "fp32,matmul-accumulation=bf16,promote-every=8"},
      {"residual stream in BF16", "resid BF16", "fp32,residual=bf16"},
      {"residual stream in FP16", "resid FP16", "fp32,residual=fp16"},
  };
  for (const auto& c : changes) {
    const Pass p = gptLoss(corpus, c.policy);
    d.rows.push_back({c.change, c.label, c.policy, p.loss,
                      std::isfinite(p.loss) ? std::abs(p.loss - d.fp32Loss)
                                            : std::numeric_limits<double>::quiet_NaN(),
                      p.nonFinite});
  }
  return d;
}

ErrorMapDemo errorMapDemo(int steps) {
  if (steps < 1) throw std::invalid_argument("errorMapDemo: steps must be at least 1");
  ErrorMapDemo d;
  d.model = "gpt:layers=1,heads=2,embd=32,ctx=32";
  d.recipe = "bf16-mixed";
  d.steps = steps;
  train::RunConfig config = train::sweepRun(train::findPreset("shakespeare-char")->runs.front(), steps);
  config.model = d.model;
  config.recipe = d.recipe;
  config.batch = 4;
  config.evalEvery = 0;
  config.seed = 1;
  train::Session session(config);
  while (!session.finished()) {
    if (session.stepsDone() + 1 == session.totalSteps())
      session.requestShadow(train::ShadowPrecision::F32);
    const auto& r = session.step();
    d.loss.push_back(r.loss);
    if (r.shadow) d.frame = *r.shadow;
  }
  if (d.frame.tensors.empty()) throw std::runtime_error("errorMapDemo: the shadow pass reported no tensors");
  d.sentence = train::describeShadowFrame(d.frame);
  return d;
}

} // namespace mantissa::lessons
