// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The recipe table states what each recipe is defined to do, and the rows
// the UI displays are derived from the same fields.
#include <mantissa/amp/recipe.h>

#include <gtest/gtest.h>

#include <stdexcept>

using namespace mantissa;
using amp::recipeByName;

TEST(Recipes, AllNamedRecipesExistInOrder) {
  EXPECT_EQ(amp::recipeNames(),
            (std::vector<std::string>{"fp32", "bf16-mixed", "fp16-mixed", "fp16-mixed-noscale",
                                      "bf16-pure", "bf16-pure-sr", "bf16-pure-kahan",
                                      "fp8-delayed", "fp8-current", "fp8-block", "mxfp8",
                                      "nvfp4"}));
}

TEST(Recipes, Fp32IsAllFp32) {
  const auto& r = recipeByName("fp32");
  for (DType d : {r.matmulInputs, r.accumulation, r.activations, r.loss, r.reductions, r.weights,
                  r.gradients, r.optimizerState})
    EXPECT_EQ(d, DType::F32);
  EXPECT_FALSE(r.lossScaling);
}

TEST(Recipes, MixedRecipesMatchTheIssue) {
  const auto& bf = recipeByName("bf16-mixed");
  EXPECT_EQ(bf.matmulInputs, DType::BF16);
  EXPECT_EQ(bf.accumulation, DType::F32);
  EXPECT_EQ(bf.loss, DType::F32);
  EXPECT_EQ(bf.reductions, DType::F32);
  EXPECT_TRUE(bf.masterWeights);
  EXPECT_FALSE(bf.lossScaling);
  EXPECT_EQ(bf.optimizerState, DType::F32);

  const auto& fp = recipeByName("fp16-mixed");
  EXPECT_EQ(fp.matmulInputs, DType::F16);
  EXPECT_EQ(fp.gradients, DType::F16);
  EXPECT_TRUE(fp.masterWeights);
  EXPECT_TRUE(fp.lossScaling);
  EXPECT_EQ(fp.defaultScaler, "pytorch");

  const auto& noscale = recipeByName("fp16-mixed-noscale");
  EXPECT_EQ(noscale.matmulInputs, DType::F16);
  EXPECT_FALSE(noscale.lossScaling);
}

TEST(Recipes, PureRecipesHaveNoMasterCopy) {
  for (const char* name : {"bf16-pure", "bf16-pure-sr", "bf16-pure-kahan"}) {
    const auto& r = recipeByName(name);
    EXPECT_FALSE(r.masterWeights) << name;
    EXPECT_EQ(r.weights, DType::BF16) << name;
    EXPECT_EQ(r.gradients, DType::BF16) << name;
    EXPECT_EQ(r.optimizerState, DType::BF16) << name;
    EXPECT_FALSE(r.lossScaling) << name;
  }
  EXPECT_EQ(recipeByName("bf16-pure").updateRounding, amp::UpdateRounding::Nearest);
  EXPECT_EQ(recipeByName("bf16-pure-sr").updateRounding, amp::UpdateRounding::Stochastic);
  EXPECT_EQ(recipeByName("bf16-pure-kahan").updateRounding, amp::UpdateRounding::Kahan);
}

TEST(Recipes, TableRowsShowTheFieldsThatRun) {
  const auto rows = amp::recipeTable(recipeByName("fp16-mixed"));
  auto find = [&](std::string_view op) -> const amp::RecipeRow& {
    for (const auto& r : rows)
      if (r.op == op)
        return r;
    throw std::runtime_error("no row " + std::string(op));
  };
  EXPECT_EQ(find("matmul inputs").precision, "f16");
  EXPECT_EQ(find("matmul accumulation").precision, "f32");
  EXPECT_EQ(find("softmax / cross-entropy").precision, "f32");
  EXPECT_EQ(find("optimizer state").precision, "f32");
  EXPECT_EQ(find("master weights").precision, "f32");
  EXPECT_EQ(find("loss scaling").precision, "dynamic");
  // A forward overflow is skipped like a gradient overflow (test_forward_overflow runs it).
  EXPECT_NE(find("loss scaling").note.find("forward pass"), std::string::npos);
  EXPECT_EQ(find("update rounding").precision, "nearest-even");
  const auto pure = amp::recipeTable(recipeByName("bf16-pure-sr"));
  bool sawSr = false, sawNoMaster = false;
  for (const auto& r : pure) {
    sawSr |= r.op == "update rounding" && r.precision == "stochastic";
    sawNoMaster |= r.op == "master weights" && r.precision == "none";
    EXPECT_FALSE(r.note.empty()) << r.op;
  }
  EXPECT_TRUE(sawSr);
  EXPECT_TRUE(sawNoMaster);
}

TEST(Recipes, UnknownNameListsTheValidOnes) {
  EXPECT_EQ(amp::findRecipe("fp8"), nullptr);
  try {
    recipeByName("fp8");
    FAIL();
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'fp8'"), std::string::npos);
    EXPECT_NE(msg.find("bf16-pure-kahan"), std::string::npos);
  }
}
