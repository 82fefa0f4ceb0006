// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The FNUZ bar: shakespeare-char, 2000 steps (the shakespeare-char preset, as
// the GPT and FP8 bars), trained with fp8-current scaling whose X, W and dY
// are all in fp8-e4m3fnuz (AMD's E4M3: bias 8, max 240, one NaN, no -0), ends
// within 0.10 val_loss of bf16-mixed. Both val_losses are printed. Minutes of
// training: ctest labels `training` and `bar`.
#include <mantissa/train/presets.h>
#include <mantissa/train/session.h>

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>

using namespace mantissa;

namespace {

double valLoss(const std::string& recipe, const std::string& policy) {
  train::RunConfig c = train::findPreset("shakespeare-char")->runs.front();
  c.recipe = recipe;
  c.policy = policy;
  train::Session run(c);
  while (!run.finished())
    run.step();
  EXPECT_FALSE(run.divergence()) << policy << ": "
                                 << (run.divergence() ? run.divergence()->message : "");
  const double v = run.evaluate().loss;
  std::cout << "[ gpt ] " << (policy.empty() ? recipe : policy) << ": val_loss " << v << "\n";
  return v;
}

} // namespace

TEST(FnuzBar, ShakespeareCharFp8CurrentInE4m3FnuzWithinATenthOfBf16Mixed) {
  const double fnuz =
      valLoss("bf16-mixed", "bf16-mixed,matmul-inputs=fp8-current,element=fp8-e4m3fnuz");
  const double bf16 = valLoss("bf16-mixed", "");
  EXPECT_TRUE(std::isfinite(fnuz));
  EXPECT_LE(std::abs(fnuz - bf16), 0.10);
}
