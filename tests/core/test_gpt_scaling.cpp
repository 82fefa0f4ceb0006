// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The scaling benchmark's arithmetic and its file: FLOPs per step against a
// worked example and nanoGPT's estimate_mfu, parameter counts against the
// network the Session builds, one measured size, and the JSON the Speed
// page reads (round trip; every bad field named).
#include <mantissa/bench/gpt_scaling.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/session.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

using namespace mantissa;

namespace {

// nanoGPT's model.py estimate_mfu: flops_per_token = 6 N + 12 L H Q T, with
// N the parameters without the position table (the tied head counted once),
// times 3 for forward and backward already folded in; here N keeps only the
// matrices (the products), as Mantissa's count does.
double nanoGptFlopsPerStep(const bench::GptSize& s, double matrixParams) {
  const double L = s.layers, H = s.heads, Q = double(s.embd) / s.heads, T = s.ctx;
  const double perToken = 6.0 * matrixParams + 12.0 * L * H * Q * T;
  return perToken * T * s.batch;
}

bench::GptScaling sample() {
  bench::GptScaling s;
  s.cpuModel = "AMD EPYC";
  s.isa = "AVX512_BF16";
  s.threads = 2;
  s.peakGflops = 473;
  s.peakSource = "vdpbf16ps zmm, 2 thread(s) (ISA probe)";
  s.torchVersion = "1.13.0";
  bench::GptScalingRow r;
  r.size = {4, 4, 128, 64, 12};
  r.params = bench::gptParameterCount(r.size);
  r.flopsPerStep = bench::gptStepFlops(r.size);
  r.steps = 15;
  r.stepMs = 32.5;
  r.stepMinMs = 31;
  r.stepMaxMs = 35;
  r.matmulMs = 20;
  r.peakRssBytes = 120 << 20;
  r.torch = bench::TorchStep{35.0, 33.0, 40.0, 290 << 20};
  s.rows.push_back(r);
  r.size = {6, 6, 384, 256, 64};
  r.torch.reset();
  r.torchError = "python3 failed";
  s.rows.push_back(r);
  s.threadsScaling = {{1, 50.0}, {2, 32.5}};
  return s;
}

std::string errorOf(const nlohmann::json& j) {
  try {
    bench::gptScalingFromJson(j);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(GptScaling, FlopsOfShakespeareCharMatchAWorkedExample) {
  // B 12, T 64, C 128, L 4, V 65, by hand:
  //   per layer 24 C^2 + 4 T C = 393216 + 32768 = 425984; x 4 = 1703936
  //   head 2 C V = 16640; forward = 768 x 1720576 = 1321402368; x 3:
  EXPECT_EQ(bench::gptStepFlops({4, 4, 128, 64, 12}), 3964207104.0);
}

TEST(GptScaling, FlopsAgreeWithNanoGptsEstimate) {
  for (const bench::GptSize& s : bench::gptScalingSizes()) {
    const double C = s.embd;
    const double matrices = double(s.vocab) * C + 12.0 * s.layers * C * C;
    EXPECT_DOUBLE_EQ(bench::gptStepFlops(s), nanoGptFlopsPerStep(s, matrices)) << s.label();
  }
}

TEST(GptScaling, ParameterCountIsTheNetworksOwn) {
  // The smaller sizes and an odd one: the network allocates its activations,
  // so the largest sizes would only cost memory here.
  std::vector<bench::GptSize> sizes(bench::gptScalingSizes().begin(),
                                    bench::gptScalingSizes().begin() + 3);
  sizes.push_back({3, 2, 48, 24, 2});
  for (const bench::GptSize& s : sizes) {
    train::RunConfig c = train::findPreset("shakespeare-char")->runs.front();
    c.model = s.modelSpec();
    c.batch = s.batch;
    c.steps = 2;
    c.warmupSteps = 1;
    c.evalEvery = 0;
    train::Session session(c);
    EXPECT_EQ(bench::gptParameterCount(s), session.model().parameterCount()) << s.label();
  }
}

TEST(GptScaling, TheLadderEndsAtNanoGptsFullModel) {
  const auto& sizes = bench::gptScalingSizes();
  ASSERT_GE(sizes.size(), 3u);
  EXPECT_EQ(sizes.front(), (bench::GptSize{4, 4, 128, 64, 12}));
  EXPECT_EQ(sizes.back(), (bench::GptSize{6, 6, 384, 256, 64}));
  for (int embd : {128, 256, 384})
    EXPECT_TRUE(std::any_of(sizes.begin(), sizes.end(), [&](auto& s) { return s.embd == embd; }));
  for (int ctx : {64, 128, 256})
    EXPECT_TRUE(std::any_of(sizes.begin(), sizes.end(), [&](auto& s) { return s.ctx == ctx; }));
}

TEST(GptScaling, MeasuresOneSmallSize) {
  const bench::GptSize s{1, 2, 32, 16, 2};
  const bench::GptScalingRow r = bench::measureGptSize(s, "bf16-mixed", 1, 3);
  EXPECT_EQ(r.steps, 3);
  EXPECT_EQ(r.params, bench::gptParameterCount(s));
  EXPECT_GT(r.stepMs, 0.0);
  EXPECT_LE(r.stepMinMs, r.stepMs);
  EXPECT_GE(r.stepMaxMs, r.stepMs);
  EXPECT_GT(r.matmulMs, 0.0);
  EXPECT_LT(r.matmulMs, r.stepMaxMs);
  EXPECT_THROW(bench::measureGptSize(s, "bf16-mixed", 0, 0), std::invalid_argument);
}

TEST(GptScaling, MfuIsGflopsOverThePeak) {
  bench::GptScaling s = sample();
  const bench::GptScalingRow& r = s.rows.front();
  EXPECT_DOUBLE_EQ(r.stepGflops(), 3964207104.0 / 32.5e6);
  EXPECT_DOUBLE_EQ(r.torchGflops(), 3964207104.0 / 35.0e6);
  EXPECT_DOUBLE_EQ(s.mfu(236.5), 0.5);
  s.peakGflops = 0;
  EXPECT_EQ(s.mfu(100), 0.0);
}

TEST(GptScaling, JsonRoundTrips) {
  const nlohmann::json once = bench::gptScalingToJson(sample());
  const bench::GptScaling back = bench::gptScalingFromJson(once);
  ASSERT_EQ(back.rows.size(), 2u);
  EXPECT_EQ(back.rows[1].size, (bench::GptSize{6, 6, 384, 256, 64}));
  EXPECT_FALSE(back.rows[1].torch.has_value());
  EXPECT_EQ(back.rows[1].torchError, "python3 failed");
  ASSERT_TRUE(back.rows[0].torch.has_value());
  EXPECT_EQ(back.rows[0].torch->peakRssBytes, 290 << 20);
  ASSERT_EQ(back.threadsScaling.size(), 2u);
  EXPECT_EQ(back.threadsScaling[0].stepMs, 50.0);
  EXPECT_EQ(bench::gptScalingToJson(back), once);
}

TEST(GptScaling, BadFieldsAreNamed) {
  const nlohmann::json good = bench::gptScalingToJson(sample());
  nlohmann::json j = good;
  j["sizes"][1].erase("step_ms");
  EXPECT_EQ(errorOf(j), "GPT scaling result: sizes[1].step_ms: missing");
  j = good;
  j["sizes"][0]["step_ms"] = -1;
  EXPECT_NE(errorOf(j).find("sizes[0].step_ms: out of range"), std::string::npos);
  j = good;
  j["sizes"][0]["torch"]["peak_rss_bytes"] = "big";
  EXPECT_EQ(errorOf(j), "GPT scaling result: sizes[0].torch.peak_rss_bytes: must be a number");
  j = good;
  j["sizes"][0]["layers"] = 2.5;
  EXPECT_EQ(errorOf(j), "GPT scaling result: sizes[0].layers: must be a whole number");
  j = good;
  j["schema"] = 2;
  EXPECT_NE(errorOf(j).find("schema"), std::string::npos);
  j = good;
  j["threads_scaling"] = 3;
  EXPECT_NE(errorOf(j).find("threads_scaling"), std::string::npos);
  EXPECT_EQ(errorOf(nlohmann::json::array()), "GPT scaling result: top level: must be an object");
}
