// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The GPT on the layer library: spec parsing, the FP32 path against the
// independent double-precision reference (gpt_reference.h) for loss and every
// gradient tensor, reduced-precision policies against FP32, and no oneDNN
// primitive or scratch buffer created in the steady-state step.
#include "gpt_reference.h"

#include <mantissa/amp/policy.h>
#include <mantissa/kernels/matmul.h>
#include <mantissa/model/gpt.h>
#include <mantissa/train/run_precision.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>

using namespace mantissa;

namespace {

std::string specError(std::string_view spec) {
  try {
    model::parseGptSpec(spec);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

// Tiny fixed configuration, parameters U(-0.5, 0.5) (LayerNorm weights
// 1 + U(-0.3, 0.3)) so that every path carries a gradient well above FP32
// noise, and a fixed batch.
struct Tiny {
  static constexpr int kLayers = 2, kHeads = 2, kEmbd = 8, kCtx = 5, kVocab = 7, kBatch = 2;
  model::GptSpec spec{kLayers, kHeads, kEmbd, kCtx};
  gptref::Config cfg{kLayers, kHeads, kEmbd, kCtx, kVocab, kBatch};

  void fill(model::Gpt& gpt) const {
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> u(-0.5f, 0.5f), ln(-0.3f, 0.3f);
    for (auto& p : gpt.params()) {
      const bool normWeight = p.name.ends_with("ln1.w") || p.name.ends_with("ln2.w") || p.name == "lnf.w";
      for (float& v : p.value.f32())
        v = normWeight ? 1.0f + ln(rng) : u(rng);
    }
    gpt.refreshWorkingWeights();
    std::uniform_int_distribution<int> tok(0, kVocab - 1);
    for (auto& t : gpt.tokens())
      t = tok(rng);
    for (auto& t : gpt.targets())
      t = tok(rng);
  }
};

} // namespace

TEST(GptSpec, ParsesKeysInAnyOrderWithDefaults) {
  const auto s = model::parseGptSpec("gpt:layers=4,heads=4,embd=128,ctx=64");
  EXPECT_EQ(s.layers, 4);
  EXPECT_EQ(s.heads, 4);
  EXPECT_EQ(s.embd, 128);
  EXPECT_EQ(s.ctx, 64);
  const auto t = model::parseGptSpec("gpt:ctx=32,layers=2");
  EXPECT_EQ(t.layers, 2);
  EXPECT_EQ(t.ctx, 32);
  EXPECT_EQ(t.embd, 128);
  EXPECT_EQ(model::parseGptSpec("gpt").toString(), "gpt:layers=4,heads=4,embd=128,ctx=64");
  EXPECT_EQ(model::parseGptSpec(t.toString()).toString(), t.toString());
}

TEST(GptSpec, RejectsBadSpecsWithTheProblem) {
  const std::string tail = " (expected e.g. gpt:layers=4,heads=4,embd=128,ctx=64)";
  EXPECT_EQ(specError("gpt:layers=4,heads=3,embd=128"),
            "model spec 'gpt:layers=4,heads=3,embd=128': embd 128 is not divisible by heads 3" + tail);
  EXPECT_EQ(specError("gpt:layrs=4"),
            "model spec 'gpt:layrs=4': unknown key 'layrs'; did you mean 'layers'? (keys: layers, "
            "heads, embd, ctx)" + tail);
  EXPECT_EQ(specError("gpt:layers=0"), "model spec 'gpt:layers=0': layers 0 is outside [1, 64]" + tail);
  EXPECT_EQ(specError("gpt:ctx=99999999999"),
            "model spec 'gpt:ctx=99999999999': ctx 99999999999 is outside [1, 4096]" + tail);
  EXPECT_EQ(specError("gpt:embd=12x"), "model spec 'gpt:embd=12x': embd '12x' is not a whole number" + tail);
  EXPECT_EQ(specError("gpt:embd="), "model spec 'gpt:embd=': embd '' is not a whole number" + tail);
  EXPECT_EQ(specError("gpt:ctx=8,ctx=9"), "model spec 'gpt:ctx=8,ctx=9': 'ctx' is given twice" + tail);
  EXPECT_EQ(specError("gpt:ctx=8,"), "model spec 'gpt:ctx=8,': trailing ','" + tail);
  EXPECT_EQ(specError("gpt:"), "model spec 'gpt:': nothing after 'gpt:'" + tail);
  EXPECT_EQ(specError("gpt:heads"), "model spec 'gpt:heads': 'heads' is not key=value" + tail);
  EXPECT_EQ(specError("gpx"), "model spec 'gpx': must be 'gpt' or start with 'gpt:'" + tail);
}

TEST(GptReference, Fp32LossAndEveryGradientMatchTheDoubleReference) {
  Tiny tiny;
  model::Gpt gpt(tiny.spec, Tiny::kVocab, Tiny::kBatch, amp::parsePolicy("fp32"));
  tiny.fill(gpt);
  const double loss = gpt.forward();
  gpt.backward(1.0f);

  gptref::Params ref;
  for (const auto& p : gpt.params())
    ref[p.name] = std::vector<double>(p.value.f32().begin(), p.value.f32().end());
  const std::vector<std::int32_t> tokens(gpt.tokens().begin(), gpt.tokens().end());
  const std::vector<std::int32_t> targets(gpt.targets().begin(), gpt.targets().end());
  const double refLoss = gptref::loss(tiny.cfg, ref, tokens, targets);
  EXPECT_NEAR(loss, refLoss, 1e-5 * std::abs(refLoss));

  const double h = 1e-5;
  for (const auto& p : gpt.params()) {
    auto& values = ref[p.name];
    std::vector<double> g(values.size());
    double scale = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const double keep = values[i];
      values[i] = keep + h;
      const double plus = gptref::loss(tiny.cfg, ref, tokens, targets);
      values[i] = keep - h;
      const double minus = gptref::loss(tiny.cfg, ref, tokens, targets);
      values[i] = keep;
      g[i] = (plus - minus) / (2 * h);
      scale = std::max(scale, std::abs(g[i]));
    }
    ASSERT_GT(scale, 1e-4) << p.name << ": the reference gradient vanishes";
    double worst = 0;
    for (std::size_t i = 0; i < g.size(); ++i)
      worst = std::max(worst, std::abs(double(p.grad.f32()[i]) - g[i]));
    EXPECT_LE(worst, 1e-5 * scale) << p.name << ": max |error| " << worst << ", max |grad| " << scale;
  }
}

TEST(GptPolicies, SixteenBitPoliciesChangeTheLossALittle) {
  Tiny tiny;
  model::Gpt ref(tiny.spec, Tiny::kVocab, Tiny::kBatch, amp::parsePolicy("fp32"));
  tiny.fill(ref);
  const double fp32 = ref.forward();
  for (const char* name : {"autocast-cpu-bf16", "autocast-cuda-fp16", "llm.c", "all-bf16", "all-fp16"}) {
    model::Gpt gpt(tiny.spec, Tiny::kVocab, Tiny::kBatch, amp::parsePolicy(name));
    tiny.fill(gpt);
    const double loss = gpt.forward();
    gpt.backward(1.0f);
    EXPECT_NE(loss, fp32) << name << ": 16-bit rounding must show";
    EXPECT_NEAR(loss, fp32, 0.05 * fp32) << name;
    for (const auto& p : gpt.params())
      for (float g : p.grad.f32())
        ASSERT_TRUE(std::isfinite(g)) << name << " " << p.name;
  }
}

// Telemetry counts the activations while backward runs: backward must leave
// every observed activation as forward wrote it.
TEST(GptPolicies, BackwardLeavesEveryObservedActivationUnchanged) {
  Tiny tiny;
  for (const amp::PolicyPreset& preset : amp::policyPresets()) {
    model::Gpt gpt(tiny.spec, Tiny::kVocab, Tiny::kBatch,
                   amp::parsePolicy(std::string(preset.name)));
    tiny.fill(gpt);
    (void)gpt.forward();
    std::vector<std::vector<float>> before;
    for (const auto& a : gpt.observedActivations())
      before.emplace_back(a.values.begin(), a.values.end());
    gpt.backward(preset.name == std::string("autocast-cuda-fp16") ? 1024.0f : 1.0f);
    const auto after = gpt.observedActivations();
    ASSERT_EQ(after.size(), before.size());
    for (std::size_t i = 0; i < after.size(); ++i) {
      ASSERT_EQ(after[i].values.size(), before[i].size());
      EXPECT_EQ(
          std::memcmp(after[i].values.data(), before[i].data(), before[i].size() * sizeof(float)),
          0)
          << preset.name << ": backward changed " << after[i].name;
    }
  }
}

// An observed activation that is a scaled product's X names that product's
// operand: the operand's amax this step is the activation's own max |v|. The
// others (LayerNorm inputs, attention probabilities, logits) name none.
TEST(GptPolicies, ActivationsThatEnterScaledProductsNameTheirOperand) {
  Tiny tiny;
  model::Gpt gpt(tiny.spec, Tiny::kVocab, Tiny::kBatch,
                 amp::parsePolicy("autocast-cpu-bf16,matmul-inputs=fp8-current"));
  tiny.fill(gpt);
  (void)gpt.forward();
  const auto stats = gpt.scalingStats();
  int operands = 0;
  for (const auto& a : gpt.observedActivations()) {
    const auto product = model::Gpt::productInputOf(a.name);
    ASSERT_TRUE(product.has_value()) << a.name;
    if (product->empty())
      continue;
    ++operands;
    const auto it = std::find_if(stats.begin(), stats.end(),
                                 [&](const auto& s) { return s.name == *product; });
    ASSERT_NE(it, stats.end()) << a.name << " -> " << *product;
    float amax = 0.0f;
    for (const float v : a.values)
      amax = std::max(amax, std::fabs(v));
    EXPECT_EQ(it->amax, double(amax)) << a.name << " -> " << *product;
  }
  EXPECT_EQ(operands, 2 * Tiny::kLayers); // each block's attention and GELU outputs
  for (const char* other : {"h0.qkv.w", "layer1", "hx.gelu output", "h.gelu output", "h0.gelu"})
    EXPECT_FALSE(model::Gpt::productInputOf(other).has_value()) << other;
}

// The format each telemetry tensor of an FP8 run meets: E4M3 times the
// product's scale for a product's X (an MLP's layer input, a GPT's attention
// or GELU output); BF16, unscaled, for a GPT activation that enters no FP8
// product ("the rest as bf16-mixed").
TEST(GptPolicies, EachActivationIsShadedInTheFormatItMeets) {
  using telemetry::TensorClass;
  const amp::Policy policy = train::runPolicy([] {
    train::RunConfig c;
    c.recipe = "fp8-delayed";
    return c;
  }());
  const auto gelu = train::layerFormat(policy, TensorClass::Activations, 9, "h1.gelu output");
  EXPECT_EQ(gelu.format.format, numeric::FormatId::Fp8E4M3);
  EXPECT_EQ(gelu.operand, "h1.fcproj.x");
  const auto attention = train::layerFormat(policy, TensorClass::Activations, 4, "h0.attention output");
  EXPECT_EQ(attention.operand, "h0.attproj.x");
  for (const char* name : {"h0.ln1 input", "h1.attention probs", "h1.ln2 input", "logits",
                           "embedding output", "lnf input"}) {
    const auto f = train::layerFormat(policy, TensorClass::Activations, 3, name);
    EXPECT_EQ(f.format.format, numeric::FormatId::Bf16) << name;
    EXPECT_FALSE(f.format.scaledOperand.has_value()) << name;
    EXPECT_EQ(f.operand, "") << name;
  }
  const auto mlp = train::layerFormat(policy, TensorClass::Activations, 1, "");
  EXPECT_EQ(mlp.format.format, numeric::FormatId::Fp8E4M3);
  EXPECT_EQ(mlp.operand, "layer1.x");
  const auto weight = train::layerFormat(policy, TensorClass::Weights, 0, "h0.qkv.w");
  EXPECT_EQ(weight.format.format, numeric::FormatId::Fp8E4M3);
  EXPECT_EQ(weight.operand, "h0.qkv.w");
}

TEST(GptPolicies, BackwardOfBf16PolicyTracksFp32Gradients) {
  Tiny tiny;
  model::Gpt a(tiny.spec, Tiny::kVocab, Tiny::kBatch, amp::parsePolicy("fp32"));
  model::Gpt b(tiny.spec, Tiny::kVocab, Tiny::kBatch, amp::parsePolicy("autocast-cpu-bf16"));
  tiny.fill(a);
  tiny.fill(b);
  a.forward();
  a.backward(1.0f);
  b.forward();
  b.backward(1.0f);
  for (std::size_t k = 0; k < a.params().size(); ++k) {
    const auto ga = a.params()[k].grad.f32(), gb = b.params()[k].grad.f32();
    double scale = 0, worst = 0;
    for (std::size_t i = 0; i < ga.size(); ++i) {
      scale = std::max(scale, double(std::abs(ga[i])));
      worst = std::max(worst, double(std::abs(ga[i] - gb[i])));
    }
    // 8 significant bits through a few ops: a few percent of the tensor's scale.
    EXPECT_LE(worst, 0.1 * scale) << a.params()[k].name;
  }
}

TEST(GptSteadyState, NoPrimitiveOrScratchCreatedAfterConstruction) {
  for (const char* policy : {"fp32", "autocast-cpu-bf16"}) {
    model::Gpt gpt(model::GptSpec{2, 2, 32, 16}, 11, 3, amp::parsePolicy(policy));
    gpt.initialize(1);
    const auto before = kernels::kernelCounters();
    for (int step = 0; step < 3; ++step) {
      gpt.forward();
      gpt.backward(1.0f);
      gpt.refreshWorkingWeights();
    }
    const auto after = kernels::kernelCounters();
    EXPECT_EQ(after.primitivesCreated, before.primitivesCreated) << policy;
    EXPECT_EQ(after.scratchAllocations, before.scratchAllocations) << policy;
  }
}
