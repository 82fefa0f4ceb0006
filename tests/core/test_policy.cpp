// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Precision policies: each preset's table against its definition (written out
// here row by row from the presets' published descriptions), the spec parser
// with its errors and suggestions, the canonical spec round trip, and the
// emulated 16-bit accumulator against sums whose rounded values follow from
// the formats' spacing.
#include <mantissa/amp/policy.h>
#include <mantissa/amp/recipe.h>
#include <mantissa/amp/tensor_format.h>
#include <mantissa/kernels/accumulation.h>
#include <mantissa/train/run_precision.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace mantissa;
using amp::OpClass;

namespace {

std::string errorOf(std::string_view spec) {
  try {
    amp::parsePolicy(spec);
  } catch (const amp::PolicyError& e) {
    return e.what();
  }
  return "(accepted)";
}

constexpr DType F32 = DType::F32, BF16 = DType::BF16, F16 = DType::F16;

} // namespace

TEST(PolicyPresets, NamesInOrder) {
  EXPECT_EQ(amp::policyPresetNames(),
            (std::vector<std::string>{"fp32", "autocast-cpu-bf16", "autocast-cuda-fp16", "llm.c",
                                      "all-bf16", "all-fp16"}));
}

TEST(PolicyPresets, Fp32AndAllSixteenBit) {
  const auto fp32 = amp::parsePolicy("fp32");
  const auto bf16 = amp::parsePolicy("all-bf16");
  const auto fp16 = amp::parsePolicy("all-fp16");
  for (const OpClass c : amp::opClasses()) {
    EXPECT_EQ(fp32[c], F32) << amp::opClassKey(c);
    EXPECT_EQ(bf16[c], BF16) << amp::opClassKey(c);
    EXPECT_EQ(fp16[c], F16) << amp::opClassKey(c);
  }
  EXPECT_FALSE(fp32.lossScaling);
}

TEST(PolicyPresets, LlmcKeepsStatisticsSoftmaxLossMasterAndMomentsInFp32) {
  const auto p = amp::parsePolicy("llm.c");
  for (OpClass c : {OpClass::NormStatistics, OpClass::Softmax, OpClass::Loss,
                    OpClass::MasterWeights, OpClass::OptimizerState, OpClass::MatmulAccumulation})
    EXPECT_EQ(p[c], F32) << amp::opClassKey(c);
  for (OpClass c : {OpClass::MatmulInputs, OpClass::Activations, OpClass::Residual, OpClass::Gelu,
                    OpClass::Embedding, OpClass::Gradients})
    EXPECT_EQ(p[c], BF16) << amp::opClassKey(c);
}

TEST(PolicyPresets, AutocastListsAndGradScaler) {
  const auto cpu = amp::parsePolicy("autocast-cpu-bf16");
  const auto cuda = amp::parsePolicy("autocast-cuda-fp16");
  // Lower-precision list: the products. FP32 list (CUDA): softmax, layer_norm, losses.
  EXPECT_EQ(cpu[OpClass::MatmulInputs], BF16);
  EXPECT_EQ(cuda[OpClass::MatmulInputs], F16);
  for (OpClass c : {OpClass::Softmax, OpClass::NormStatistics, OpClass::Loss,
                    OpClass::MatmulAccumulation, OpClass::MasterWeights, OpClass::OptimizerState,
                    OpClass::Residual, OpClass::Embedding}) {
    EXPECT_EQ(cpu[c], F32) << amp::opClassKey(c);
    EXPECT_EQ(cuda[c], F32) << amp::opClassKey(c);
  }
  EXPECT_EQ(cuda[OpClass::Gelu], F16);
  EXPECT_FALSE(cpu.lossScaling);
  EXPECT_TRUE(cuda.lossScaling);
}

TEST(PolicyParser, OverridesRowsAndRoundTripsItsCanonicalSpec) {
  const auto p = amp::parsePolicy("autocast-cpu-bf16,softmax=fp16");
  EXPECT_EQ(p[OpClass::Softmax], F16);
  EXPECT_EQ(p[OpClass::MatmulInputs], BF16);
  EXPECT_EQ(p.toSpec(), "autocast-cpu-bf16,softmax=fp16");
  const auto q = amp::parsePolicy(
      "fp32,matmul-accumulation=fp16,promote-every=32,softmax-max=off,loss-scaling=on,gradients=bf16");
  EXPECT_EQ(q[OpClass::MatmulAccumulation], F16);
  EXPECT_EQ(q.promoteEvery, 32);
  EXPECT_FALSE(q.softmaxMax);
  EXPECT_TRUE(q.lossScaling);
  EXPECT_EQ(q.toSpec(),
            "fp32,matmul-accumulation=fp16,gradients=bf16,promote-every=32,softmax-max=off,loss-scaling=on");
  EXPECT_EQ(amp::parsePolicy(q.toSpec()), q);
  for (const auto& name : amp::policyPresetNames())
    EXPECT_EQ(amp::parsePolicy(name).toSpec(), name);
}

// BatchNorm statistics are a class like LayerNorm's: FP32 in every preset but
// the all-16-bit ones, overridable, and kept in the canonical spec.
TEST(PolicyParser, BatchNormStatisticsAreAnOpClass) {
  const auto p = amp::parsePolicy("autocast-cpu-bf16,batchnorm=bf16");
  EXPECT_EQ(p[OpClass::BatchNorm], BF16);
  EXPECT_EQ(p[OpClass::NormStatistics], F32);
  EXPECT_EQ(p.toSpec(), "autocast-cpu-bf16,batchnorm=bf16");
  EXPECT_EQ(amp::parsePolicy(p.toSpec()), p);
  EXPECT_EQ(amp::parsePolicy("fp32")[OpClass::BatchNorm], F32);
  EXPECT_EQ(amp::parsePolicy("llm.c")[OpClass::BatchNorm], F32);
  EXPECT_EQ(amp::parsePolicy("all-fp16")[OpClass::BatchNorm], F16);
  EXPECT_EQ(amp::opClassLabel(OpClass::BatchNorm), "BatchNorm statistics");
  EXPECT_NE(errorOf("fp32,batchnom=bf16").find("did you mean \"batchnorm\"?"), std::string::npos);
}

TEST(PolicyParser, ErrorsNameTheProblemAndSuggest) {
  EXPECT_EQ(errorOf("autocast-cpu-bf16,softmx=fp16"),
            "policy \"autocast-cpu-bf16,softmx=fp16\": unknown op class \"softmx\"; did you mean "
            "\"softmax\"? (classes: matmul-inputs, matmul-accumulation, activations, residual, "
            "softmax, norm-stats, gelu, embedding, loss, gradients, master-weights, "
            "optimizer-state, batchnorm, promote-every, softmax-max, loss-scaling, update, fp8-history, "
            "fp8-amax, fp8-margin, element, grad-element, block-scale)");
  EXPECT_NE(errorOf("autocast-cpu-bf1").find("unknown preset \"autocast-cpu-bf1\"; did you mean "
                                             "\"autocast-cpu-bf16\"?"),
            std::string::npos);
  EXPECT_NE(errorOf("fp32,softmax=fp8").find("unknown precision \"fp8\" for softmax; did you mean"),
            std::string::npos);
  EXPECT_NE(errorOf("fp32,softmax=bf61").find("did you mean \"bf16\"?"), std::string::npos);
  EXPECT_NE(errorOf("zzzzzz").find("unknown preset \"zzzzzz\" (presets:"), std::string::npos)
      << "no suggestion when nothing is close";
  EXPECT_EQ(errorOf(""), "policy \"\": empty; give a preset name: fp32, autocast-cpu-bf16, "
                         "autocast-cuda-fp16, llm.c, all-bf16, all-fp16");
  EXPECT_NE(errorOf("fp32,").find("nothing after the last comma"), std::string::npos);
  EXPECT_NE(errorOf("fp32,softmax=fp16,").find("nothing after the last comma"), std::string::npos);
  EXPECT_NE(errorOf("fp32,softmax").find("\"softmax\" is not class=precision"), std::string::npos);
  EXPECT_NE(errorOf("fp32,=fp16").find("is not class=precision"), std::string::npos);
  EXPECT_NE(errorOf("fp32,softmax=fp16,softmax=bf16").find("\"softmax\" is set twice"),
            std::string::npos);
  EXPECT_NE(errorOf("fp32,matmul-accumulation=fp16,promote-every=0").find("promote-every must be"),
            std::string::npos);
  EXPECT_NE(errorOf("fp32,matmul-accumulation=fp16,promote-every=12x").find("promote-every must be"),
            std::string::npos);
  EXPECT_NE(errorOf("fp32,promote-every=32").find("promote-every needs a 16-bit matmul-accumulation"),
            std::string::npos);
  EXPECT_NE(errorOf("fp32,softmax-max=no").find("softmax-max is on or off"), std::string::npos);
}

TEST(PolicyTable, ShowsEveryClassAndTheAccumulationMode) {
  const auto rows = amp::policyTable(amp::parsePolicy("all-fp16,promote-every=64"));
  ASSERT_EQ(rows.size(), amp::kOpClassCount + 1);
  EXPECT_EQ(rows[1].op, "matmul accumulation");
  EXPECT_EQ(rows[1].precision, "fp16, promoted to fp32 every 64 products");
  EXPECT_EQ(amp::policyTable(amp::parsePolicy("all-bf16"))[1].precision,
            "bf16, rounded after every addition");
}

TEST(EmulatedAccumulation, SixteenBitSumsStallWherePromotionDoesNot) {
  // 4096 products of 1 x 1. FP16 holds every integer up to 2048; 2048 + 1
  // is a tie between 2048 and 2050 and rounds to even 2048: the sum stalls.
  // BF16 (8 significant bits) stalls at 256 the same way.
  const int K = 4096;
  const std::vector<float> ones(K, 1.0f);
  std::vector<float> dst(1);
  const kernels::MatmulShape shape{1, 1, K};
  kernels::matmulEmulatedAccumulation(shape, ones, ones, dst, F16, 0);
  EXPECT_EQ(dst[0], 2048.0f);
  kernels::matmulEmulatedAccumulation(shape, ones, ones, dst, BF16, 0);
  EXPECT_EQ(dst[0], 256.0f);
  // Promoted every 256 products: each partial sum is exact, the FP32 total too.
  kernels::matmulEmulatedAccumulation(shape, ones, ones, dst, BF16, 256);
  EXPECT_EQ(dst[0], 4096.0f);
  kernels::matmulEmulatedAccumulation(shape, ones, ones, dst, F16, 1024);
  EXPECT_EQ(dst[0], 4096.0f);
  kernels::matmulEmulatedAccumulation(shape, ones, ones, dst, F32, 0);
  EXPECT_EQ(dst[0], 4096.0f);
}

TEST(EmulatedAccumulation, TransposedOperandsMatchAPlainProduct) {
  // 2x3 . 3x2 with small integers: every sum is exact in FP16.
  const std::vector<float> a{1, 2, 3, 4, 5, 6};     // [2,3]
  const std::vector<float> aT{1, 4, 2, 5, 3, 6};    // stored [3,2]
  const std::vector<float> b{1, 0, 0, 1, 1, 1};     // [3,2]
  const std::vector<float> bT{1, 0, 1, 0, 1, 1};    // stored [2,3]
  const std::vector<float> expected{4, 5, 10, 11};
  std::vector<float> dst(4);
  using kernels::Trans;
  for (auto [ts, tw] : {std::pair{Trans::No, Trans::No}, {Trans::Yes, Trans::No},
                        {Trans::No, Trans::Yes}, {Trans::Yes, Trans::Yes}}) {
    kernels::matmulEmulatedAccumulation({2, 2, 3, ts, tw}, ts == Trans::No ? a : aT,
                                        tw == Trans::No ? b : bT, dst, F16, 0);
    EXPECT_EQ(dst, expected);
  }
}

// The format each class of tensor is held in: bf16-mixed's gradients and
// weights as multiplied are BF16; fp8-delayed quantizes X and W to E4M3 and
// dY to E5M2 (each with its scale), while dW stays BF16; fp32 keeps FP32.
TEST(TensorFormat, FollowsThePolicyTable) {
  using numeric::FormatId;
  using telemetry::ScaledRole;
  using telemetry::TensorClass;
  const auto of = [](const char* recipe, TensorClass cls) {
    return amp::tensorFormat(amp::policyForRecipe(amp::recipeByName(recipe)), cls);
  };
  EXPECT_EQ(of("bf16-mixed", TensorClass::WeightGrads).format, FormatId::Bf16);
  EXPECT_EQ(of("bf16-mixed", TensorClass::Weights).format, FormatId::Bf16);
  EXPECT_EQ(of("bf16-mixed", TensorClass::Updates).format, FormatId::Fp32); // master weights
  EXPECT_EQ(of("bf16-pure", TensorClass::Updates).format, FormatId::Bf16);
  EXPECT_EQ(of("fp16-mixed", TensorClass::ActivationGrads).format, FormatId::Fp16);
  EXPECT_EQ(of("fp32", TensorClass::WeightGrads).format, FormatId::Fp32);
  const amp::TensorFormat dy = of("fp8-delayed", TensorClass::ActivationGrads);
  EXPECT_EQ(dy.format, FormatId::Fp8E5M2);
  EXPECT_EQ(dy.scaledOperand, ScaledRole::GradOutput);
  EXPECT_EQ(of("fp8-delayed", TensorClass::Weights).format, FormatId::Fp8E4M3);
  EXPECT_EQ(of("fp8-delayed", TensorClass::Activations).format, FormatId::Fp8E4M3);
  EXPECT_EQ(of("fp8-delayed", TensorClass::WeightGrads).format, FormatId::Bf16);
  EXPECT_FALSE(of("fp8-delayed", TensorClass::WeightGrads).scaledOperand.has_value());
  EXPECT_EQ(of("mxfp8", TensorClass::ActivationGrads).format, FormatId::Fp8E4M3);
}

// A custom element format (a spec) is the format the operands are held in:
// its spec travels with the tensor format, and floatFormat() rebuilds it
// (e5m2 with bias 13 and the fn rule: largest 1.5 x 2^18 = 393216).
TEST(TensorFormat, ACustomElementFormatIsKeptWithItsSpec) {
  using telemetry::TensorClass;
  const amp::Policy policy = amp::parsePolicy("bf16-mixed,matmul-inputs=e5m2:bias=13,special=fn");
  const amp::TensorFormat w = amp::tensorFormat(policy, TensorClass::Weights);
  EXPECT_EQ(w.format, numeric::FormatId::Custom);
  const numeric::FloatFormat f = amp::floatFormat(w);
  EXPECT_EQ(f.bias(), 13);
  EXPECT_EQ(f.maxFinite(), 393216.0);
  EXPECT_EQ(amp::floatFormat(amp::tensorFormat(policy, TensorClass::WeightGrads)).id,
            numeric::FormatId::Bf16);
}

// The scaler a run trains with, when its config names none: the recipe's
// default for a recipe that scales (a GPT's included), PyTorch's for a GPT
// policy that scales, none for one that does not.
TEST(RunPrecision, ScalerPresetIsTheOneTheRunUses) {
  train::RunConfig gpt;
  gpt.model = "gpt:layers=1,heads=1,embd=16,ctx=8";
  gpt.recipe = "fp16-mixed";
  EXPECT_EQ(train::runScalerPreset(gpt), "pytorch");
  gpt.recipe = "bf16-mixed";
  EXPECT_EQ(train::runScalerPreset(gpt), "");
  gpt.policy = "autocast-cuda-fp16";
  EXPECT_EQ(train::runScalerPreset(gpt), "pytorch");
  EXPECT_EQ(train::runPolicy(gpt)[OpClass::Gradients], DType::F16);
  train::RunConfig mlp;
  mlp.model = "mlp:2-8-2";
  mlp.recipe = "fp16-mixed";
  mlp.scaler = "deepspeed";
  EXPECT_EQ(train::runScalerPreset(mlp), "deepspeed");
}

// A recipe's table read as a policy (the precisions a GPT runs it with).
TEST(PolicyForRecipe, ReadsEachRecipesPrecisions) {
  using amp::OpClass;
  const auto fp32 = amp::policyForRecipe(amp::recipeByName("fp32"));
  EXPECT_EQ(fp32, amp::parsePolicy("fp32"));
  const auto bf16 = amp::policyForRecipe(amp::recipeByName("bf16-mixed"));
  EXPECT_EQ(bf16[OpClass::MatmulInputs], DType::BF16);
  EXPECT_EQ(bf16[OpClass::MasterWeights], DType::F32);
  EXPECT_EQ(bf16[OpClass::Loss], DType::F32);
  EXPECT_FALSE(bf16.lossScaling);
  const auto fp16 = amp::policyForRecipe(amp::recipeByName("fp16-mixed"));
  EXPECT_TRUE(fp16.lossScaling);
  const auto pure = amp::policyForRecipe(amp::recipeByName("bf16-pure"));
  EXPECT_EQ(pure[OpClass::MasterWeights], DType::BF16);
  EXPECT_EQ(pure[OpClass::OptimizerState], DType::BF16);
}

// The bf16-pure recipes' update rounding is part of their policy: printed in
// its spec, read back, and refused where there are no BF16 master weights.
TEST(PolicyForRecipe, CarriesTheUpdateRounding) {
  const auto sr = amp::policyForRecipe(amp::recipeByName("bf16-pure-sr"));
  EXPECT_EQ(sr.update, amp::UpdateRounding::Stochastic);
  EXPECT_NE(sr.toSpec().find(",update=stochastic"), std::string::npos) << sr.toSpec();
  EXPECT_EQ(amp::parsePolicy(sr.toSpec()), sr);
  const auto kahan = amp::policyForRecipe(amp::recipeByName("bf16-pure-kahan"));
  EXPECT_EQ(kahan.update, amp::UpdateRounding::Kahan);
  EXPECT_EQ(amp::parsePolicy(kahan.toSpec()), kahan);
  EXPECT_EQ(amp::policyForRecipe(amp::recipeByName("bf16-pure")).toSpec().find("update="),
            std::string::npos);
  // A recipe as the base: its update rounding comes with it.
  EXPECT_EQ(amp::parsePolicy("bf16-pure-sr").update, amp::UpdateRounding::Stochastic);
  EXPECT_EQ(amp::parsePolicy("bf16-pure-sr,update=nearest").update, amp::UpdateRounding::Nearest);
  EXPECT_EQ(amp::parsePolicy("fp32,master-weights=bf16,update=kahan").update,
            amp::UpdateRounding::Kahan);
  EXPECT_NE(errorOf("fp32,update=stochastic")
                .find("update=stochastic rounds BF16 master weights: it needs master-weights=bf16"),
            std::string::npos)
      << errorOf("fp32,update=stochastic");
  EXPECT_NE(errorOf("bf16-pure,update=stochastc").find("update is nearest, stochastic or kahan, "
                                                       "got \"stochastc\"; did you mean "
                                                       "\"stochastic\"?"),
            std::string::npos)
      << errorOf("bf16-pure,update=stochastc");
}

// Per-layer rows: a block's or one linear layer's matmul inputs, a block's softmax.
TEST(PolicyLayers, ParsePrintAndResolve) {
  const auto p = amp::parsePolicy(
      "fp32,h1.matmul-inputs=bf16,h1.fc.matmul-inputs=mxfp8,h1.fc.element=e2m1,h0.softmax=fp16,"
      "h0.qkv.matmul-inputs=e3m4");
  // Canonical order: by block, the block's row before its linear layers'.
  EXPECT_EQ(p.toSpec(), "fp32,h0.softmax=fp16,h0.qkv.matmul-inputs=fp8-e3m4,h1.matmul-inputs=bf16,"
                        "h1.fc.matmul-inputs=mxfp8,h1.fc.element=fp4-e2m1");
  EXPECT_EQ(amp::parsePolicy(p.toSpec()), p);
  // A linear layer's own row wins over its block's; the rest take the model-wide row.
  EXPECT_TRUE(p.linearInputs(1, "fc").own);
  EXPECT_EQ(p.linearInputs(1, "fc").scaling.scheme, amp::MatmulScaling::Mxfp8);
  EXPECT_EQ(p.linearInputs(1, "fc").scaling.element, "fp4-e2m1");
  EXPECT_EQ(p.linearInputs(1, "qkv").dtype, BF16);
  EXPECT_EQ(p.linearInputs(1, "qkv").scaling.scheme, amp::MatmulScaling::None);
  EXPECT_EQ(p.linearInputs(0, "qkv").scaling.scheme, amp::MatmulScaling::Unscaled);
  EXPECT_FALSE(p.linearInputs(0, "fc").own);
  EXPECT_EQ(p.linearInputs(0, "fc").dtype, F32);
  EXPECT_EQ(p.softmaxOf(0), F16);
  EXPECT_EQ(p.softmaxOf(1), F32);
  EXPECT_EQ(p.blocksNamed(), 2);
  EXPECT_EQ(p[OpClass::MatmulInputs], F32); // the model-wide row is untouched
}

TEST(PolicyLayers, ErrorsNameTheKey) {
  EXPECT_NE(errorOf("fp32,h0.gelu=bf16").find("unknown per-layer key \"h0.gelu\""),
            std::string::npos);
  EXPECT_NE(errorOf("fp32,h0.fcc.matmul-inputs=bf16")
                .find("unknown layer \"h0.fcc\"; did you mean \"fc\"?"),
            std::string::npos)
      << errorOf("fp32,h0.fcc.matmul-inputs=bf16");
  EXPECT_NE(errorOf("fp32,h0.fc.softmax=fp16").find("h0.fc.softmax: the softmax is set per block"),
            std::string::npos);
  EXPECT_NE(errorOf("fp32,h01.softmax=fp16").find("no leading zeros"), std::string::npos);
  EXPECT_NE(errorOf("fp32,h0.fc.element=e2m1").find("h0.fc.element needs h0.fc.matmul-inputs="),
            std::string::npos);
  EXPECT_NE(errorOf("fp32,h0.fc.matmul-inputs=nope").find("h0.fc.matmul-inputs"),
            std::string::npos);
  EXPECT_NE(errorOf("fp32,h0.fc.matmul-inputs=fp8-current,h0.fc.element=fp4-e2m1")
                .find("h0.fc.element"),
            std::string::npos)
      << errorOf("fp32,h0.fc.matmul-inputs=fp8-current,h0.fc.element=fp4-e2m1");
  EXPECT_NE(errorOf("fp32,matmul-accumulation=fp16,h0.fc.matmul-inputs=fp8-current")
                .find("cannot take a 16-bit matmul-accumulation"),
            std::string::npos);
  EXPECT_NE(errorOf("fp32,h0.softmax=fp16,h0.softmax=bf16").find("set twice"), std::string::npos);
}

TEST(PolicyLayers, PolicyFileIsItsLinesJoined) {
  EXPECT_EQ(amp::policySpecFromFile("# chosen\n  fp32 \n\n h0.softmax=fp16 # lowered\r\n"),
            "fp32,h0.softmax=fp16");
  EXPECT_EQ(amp::policySpecFromFile("# nothing\n\n"), "");
}
