// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The benchmark report's plumbing, on the tiny configuration: the
// JSON shape `mantissa-cli bench --json` promises, emulated labels against an
// independent oneDNN probe, the step breakdown adding up to the step time,
// progress that never goes back, cancel, and a JSON round trip. No timing
// thresholds: the figures themselves are never judged here.
#include <mantissa/bench/bench_report.h>
#include <mantissa/kernels/fp16_gemm.h>
#include <mantissa/train/step_benchmark.h>

#include <nlohmann/json.hpp>
#include <oneapi/dnnl/dnnl.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <set>

using namespace mantissa;
using nlohmann::json;

namespace {

// Independent of the kernels: can oneDNN build a bf16 matmul on this CPU?
bool onednnHasBf16Matmul() {
  using dnnl::memory;
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  const memory::desc src({8, 16}, memory::data_type::bf16, memory::format_tag::ab);
  const memory::desc weights({16, 8}, memory::data_type::bf16, memory::format_tag::ab);
  const memory::desc dst({8, 8}, memory::data_type::f32, memory::format_tag::ab);
  try {
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, weights, dst), engine);
    return true;
  } catch (const dnnl::error&) {
    return false;
  }
}

// One tiny run shared by the tests (a few seconds).
const bench::BenchReport& tinyReport() {
  static const bench::BenchReport report = bench::runBenchmarks(bench::BenchOptions::tiny());
  return report;
}

} // namespace

TEST(BenchReport, JsonHasTheDocumentedFields) {
  const json j = bench::toJson(tinyReport());
  EXPECT_TRUE(j.at("isa").is_string());
  EXPECT_GE(j.at("threads").get<int>(), 1);
  ASSERT_TRUE(j.at("matmul").is_array());
  ASSERT_FALSE(j.at("matmul").empty());
  for (const auto& m : j.at("matmul")) {
    for (const char* key : {"backend", "dtype", "implementation"})
      EXPECT_TRUE(m.at(key).is_string()) << key;
    for (const char* key : {"m", "n", "k"})
      EXPECT_GT(m.at(key).get<long>(), 0) << key;
    EXPECT_GT(m.at("gflops").get<double>(), 0.0);
    EXPECT_TRUE(m.at("emulated").is_boolean());
  }
  EXPECT_GT(j.at("peak_gflops").at("fp32").get<double>(), 0.0);
  EXPECT_GT(j.at("peak_gflops").at("bf16").get<double>(), 0.0);
  std::set<std::pair<std::string, std::string>> conversions;
  for (const auto& c : j.at("conversion")) {
    conversions.insert({c.at("from").get<std::string>(), c.at("to").get<std::string>()});
    EXPECT_GT(c.at("gbps").get<double>(), 0.0);
  }
  const std::set<std::pair<std::string, std::string>> expected{
      {"fp32", "bf16"}, {"bf16", "fp32"}, {"fp32", "fp16"}, {"fp16", "fp32"}};
  EXPECT_EQ(conversions, expected);
  EXPECT_GT(j.at("memcpy_gbps").get<double>(), 0.0);
  ASSERT_EQ(j.at("steps").size(), 2u);
  EXPECT_EQ(j.at("steps")[0].at("recipe"), "fp32");
  EXPECT_EQ(j.at("steps")[1].at("recipe"), "bf16-mixed");
  for (const auto& s : j.at("steps")) {
    EXPECT_GT(s.at("median_ms").get<double>(), 0.0);
    EXPECT_GE(s.at("cv").get<double>(), 0.0);
    for (const char* key : {"matmul", "conversion", "elementwise", "loss", "optimizer", "telemetry"})
      EXPECT_TRUE(s.at("breakdown_ms").at(key).is_number()) << key;
    for (const char* key : {"weights", "activations", "gradients", "optimizer_state"})
      EXPECT_TRUE(s.at("bytes").at(key).is_number_unsigned()) << key;
    // Every product of the step's model (tiny mode: mlp:784-32-10, so 2
    // forward, 1 dX, 2 dW), each with its path and kernel.
    ASSERT_EQ(s.at("matmuls").size(), 5u) << s.at("matmuls").dump(1);
    for (const auto& u : s.at("matmuls")) {
      EXPECT_TRUE(u.at("path") == "native" || u.at("path") == "fp32-compute") << u.dump();
      EXPECT_FALSE(u.at("kernel").get<std::string>().empty()) << u.dump();
    }
  }
  EXPECT_FALSE(j.contains("targets"));
  ASSERT_EQ(j.at("versus_fp32").size(), 2u);
  EXPECT_EQ(j.at("versus_fp32")[1].at("recipe"), "bf16-mixed");
  EXPECT_TRUE(j.at("probe").at("paths").is_array());
  EXPECT_FALSE(j.at("machine").at("omp_wait_policy").get<std::string>().empty());
  EXPECT_FALSE(j.at("cancelled").get<bool>());
}

TEST(BenchReport, EmulatedLabelsFollowTheCpu) {
  const bool nativeBf16 = onednnHasBf16Matmul();
  int bf16 = 0, f16 = 0, bf16Native = 0;
  for (const auto& m : tinyReport().matmul) {
    if (m.dtype == DType::F16) {
      ++f16;
      EXPECT_TRUE(m.emulated) << m.label; // oneDNN 2.6 has no CPU f16 matmul
    } else if (m.dtype == DType::BF16) {
      ++bf16;
      // Both paths where a native kernel exists, else FP32 compute only.
      if (!nativeBf16) {
        EXPECT_TRUE(m.emulated) << m.label;
      }
      bf16Native += !m.emulated;
    } else {
      EXPECT_FALSE(m.emulated) << m.label;
    }
  }
  EXPECT_GT(bf16, 0);
  EXPECT_EQ(bf16Native, nativeBf16 ? bf16 / 2 : 0);
  EXPECT_GT(f16, 0);
  EXPECT_EQ(tinyReport().peak.bf16Emulated, !nativeBf16);
  for (const auto& s : tinyReport().steps)
    EXPECT_EQ(s.matmulEmulated, s.recipe != "fp32" && !nativeBf16) << s.recipe;
}

namespace {

// The sum of a step row's eight timed op kinds, in ms.
double timedParts(const json& step) {
  const auto& b = step.at("breakdown_ms");
  return b.at("matmul_forward").get<double>() + b.at("matmul_backward").get<double>() +
         b.at("conversion").get<double>() + b.at("elementwise").get<double>() +
         b.at("loss").get<double>() + b.at("optimizer").get<double>() +
         b.at("telemetry").get<double>() + b.at("data").get<double>();
}

// Whether every step row's timed op kinds cover its mean step time within 15 %.
bool timedPartsCoverTheSteps(const json& report) {
  bool all = true;
  for (const auto& s : report.at("steps")) {
    const double mean = s.at("mean_ms").get<double>();
    all = all && std::abs(timedParts(s) - mean) <= 0.15 * mean;
  }
  return all;
}

} // namespace

TEST(BenchReport, BreakdownAddsUpToTheStepTime) {
  const json j = bench::toJson(tinyReport());
  for (const auto& s : j.at("steps")) {
    const auto& b = s.at("breakdown_ms");
    const double mean = s.at("mean_ms").get<double>();
    EXPECT_NEAR(b.at("matmul").get<double>(),
                b.at("matmul_forward").get<double>() + b.at("matmul_backward").get<double>(), 1e-9);
    EXPECT_NEAR(timedParts(s) + b.at("unattributed").get<double>(), mean, 1e-9 * mean);
  }
  // Timed op kinds cover the step up to untimed glue: within 15 %. A
  // wall-clock ratio: one preemption in the glue (a loaded machine) can sink
  // a measurement, an op kind left untimed sinks every one, so the steps are
  // measured again, up to three times in all.
  bool covered = timedPartsCoverTheSteps(j);
  for (int attempt = 1; attempt < 3 && !covered; ++attempt) {
    bench::BenchReport again = tinyReport();
    again.steps = train::measureSteps(bench::BenchOptions::tiny().steps);
    covered = timedPartsCoverTheSteps(bench::toJson(again));
  }
  EXPECT_TRUE(covered) << j.at("steps").dump();
}

TEST(BenchReport, SteadyStateCreatesNothing) {
  const auto& ss = tinyReport().steadyState;
  ASSERT_EQ(ss.size(), 2u);
  for (const auto& s : ss) {
    EXPECT_EQ(s.primitivesCreated, 0) << s.recipe;
    EXPECT_EQ(s.scratchAllocations, 0) << s.recipe;
  }
}

TEST(BenchReport, RecipesAreComparedWithFp32InWords) {
  bench::BenchReport r;
  train::StepBenchResult fp32, bf16;
  fp32.recipe = "fp32";
  fp32.medianMs = 10;
  fp32.meanMs = 10;
  bf16.recipe = "bf16-mixed";
  bf16.medianMs = 12;
  bf16.meanMs = 12;
  bf16.breakdownMs.conversion = 2;
  bf16.matmulEmulated = true;
  r.steps = {fp32, bf16};
  bench::ProbePath f{"fp32_fma_avx512", "FP32 FMA (AVX-512)", "vfmadd231ps zmm", 32, true, "", 160, 320};
  bench::ProbePath b{"bf16_dot_avx512", "BF16 dot", "vdpbf16ps zmm", 64, true, "", 80, 160};
  r.probe.paths = {f, b};
  const auto c = bench::compareWithFp32(r);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_DOUBLE_EQ(c[0].ratio, 1.0);
  EXPECT_DOUBLE_EQ(c[1].ratio, 1.2); // 12 / 10
  EXPECT_NE(c[1].reason.find("0.50x FP32's rate"), std::string::npos) << c[1].reason;
  EXPECT_NE(c[1].reason.find("FP32 compute for BF16 data"), std::string::npos) << c[1].reason;
  EXPECT_NE(c[1].reason.find("2.00 ms"), std::string::npos) << c[1].reason;
  // Slower than fp32: the part that grew most is named.
  EXPECT_NE(c[1].reason.find("slower mostly because conversions take 2.00 ms more"),
            std::string::npos)
      << c[1].reason;
  r.steps.erase(r.steps.begin());
  EXPECT_TRUE(bench::compareWithFp32(r).empty()); // nothing to compare with
}

// An FP8 or MX recipe is emulated whatever the CPU: quantize, dequantize,
// FP32 products. Its reason says so in one sentence, without FP16 words.
TEST(BenchReport, Fp8RecipesAreSaidToBeEmulated) {
  bench::BenchReport r;
  train::StepBenchResult fp32, fp8, mx;
  fp32.recipe = "fp32";
  fp32.medianMs = fp32.meanMs = 10;
  fp8.recipe = "fp8-delayed";
  fp8.medianMs = fp8.meanMs = 14;
  mx.recipe = "mxfp8";
  mx.medianMs = mx.meanMs = 15;
  r.steps = {fp32, fp8, mx};
  const auto c = bench::compareWithFp32(r);
  ASSERT_EQ(c.size(), 3u);
  for (std::size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(c[i].reason.rfind("emulated: each linear layer's X, W and dY are quantized to ", 0), 0u)
        << c[i].reason;
    EXPECT_NE(c[i].reason.find("dequantized, and the products run in FP32"), std::string::npos)
        << c[i].reason;
    EXPECT_EQ(c[i].reason.find("FP16"), std::string::npos) << c[i].reason;
    EXPECT_EQ(c[i].reason.find("native"), std::string::npos) << c[i].reason;
  }
  EXPECT_NE(c[1].reason.find("fp8-e4m3 (X, W), fp8-e5m2 (dY)"), std::string::npos) << c[1].reason;
}

TEST(BenchReport, ProgressNeverGoesBackAndReachesOne) {
  std::vector<double> seen;
  bench::runBenchmarks(bench::BenchOptions::tiny(), [&](double f, std::string_view) {
    seen.push_back(f);
    return true;
  });
  ASSERT_GT(seen.size(), 5u);
  for (std::size_t i = 1; i < seen.size(); ++i)
    EXPECT_GE(seen[i], seen[i - 1]) << "at call " << i;
  EXPECT_DOUBLE_EQ(seen.back(), 1.0);
}

TEST(BenchReport, CancelStopsTheRun) {
  int calls = 0;
  const auto r = bench::runBenchmarks(bench::BenchOptions::tiny(), [&](double, std::string_view) {
    return ++calls < 3;
  });
  EXPECT_TRUE(r.cancelled);
  EXPECT_TRUE(r.steps.empty());
  EXPECT_TRUE(r.steadyState.empty());
  EXPECT_EQ(calls, 3); // not called again after returning false
  EXPECT_TRUE(bench::toJson(r).at("cancelled").get<bool>());
}

TEST(BenchReport, JsonRoundTrips) {
  const json j = bench::toJson(tinyReport());
  const auto back = bench::fromJson(j);
  EXPECT_EQ(bench::toJson(back), j);
  EXPECT_EQ(back.machineKey(), tinyReport().machineKey());
}

// The CNN's steps: convolution timed apart from matmul, the kernel oneDNN
// chose named, and both kept through the JSON round trip.
TEST(BenchReport, CnnStepsTimeConvolutionApartAndRoundTrip) {
  bench::BenchReport r = tinyReport();
  auto o = bench::BenchOptions::defaultCnnSteps();
  EXPECT_EQ(o.model, "cnn:lenet");
  o.model = "cnn:c4k3-p2-f8"; // small: the plumbing, not the figures
  o.batch = 8;
  o.warmup = 1;
  o.repetitions = 2;
  o.recipes = {"fp32", "bf16-mixed"};
  r.cnnModel = o.model;
  r.cnnBatch = o.batch;
  r.cnnSteps = train::measureSteps(o);
  ASSERT_EQ(r.cnnSteps.size(), 2u);
  for (const auto& s : r.cnnSteps) {
    EXPECT_GT(s.breakdownMs.convForward, 0.0) << s.recipe;
    EXPECT_GT(s.breakdownMs.convBackward, 0.0) << s.recipe;
    EXPECT_GT(s.breakdownMs.matmulForward, 0.0) << s.recipe; // the fully connected layers
    EXPECT_FALSE(s.convImplementation.empty()) << s.recipe;
  }
  for (const auto& s : tinyReport().steps)
    EXPECT_EQ(s.breakdownMs.convForward + s.breakdownMs.convBackward, 0.0) << "MLP " << s.recipe;
  const json j = bench::toJson(r);
  ASSERT_TRUE(j.contains("cnn_steps"));
  EXPECT_EQ(j.at("cnn_steps").at("model"), "cnn:c4k3-p2-f8");
  EXPECT_GT(j.at("cnn_steps").at("steps").at(0).at("breakdown_ms").at("conv_forward").get<double>(), 0.0);
  const auto back = bench::fromJson(j);
  EXPECT_EQ(bench::toJson(back), j);
  EXPECT_EQ(back.cnnSteps.at(1).convImplementation, r.cnnSteps.at(1).convImplementation);
  // A report without the CNN (written before it was measured) still reads.
  json old = j;
  old.erase("cnn_steps");
  EXPECT_TRUE(bench::fromJson(old).cnnSteps.empty());
}

// The FP16 GEMM's part: its error table everywhere (portable kernel), its
// speed only where the CPU has AVX512_FP16, and the reason when it has not.
TEST(BenchReport, Fp16GemmTableAndWhetherTheKernelRan) {
  const json j = bench::toJson(tinyReport());
  const json& f = j.at("fp16_gemm");
  EXPECT_EQ(f.at("default_n_c").get<int>(), kernels::kDefaultFp16PromoteEvery);
  const json& t = f.at("error_table");
  EXPECT_EQ(t.at("k"), json::array({16, 256})); // BenchOptions::tiny()
  std::vector<std::string> names;
  for (const auto& c : t.at("columns")) {
    names.push_back(c.at("n_c").get<std::string>());
    ASSERT_EQ(c.at("max_rel_error").size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
      EXPECT_GT(c.at("max_rel_error")[i].get<double>(), 0.0);
      EXPECT_GE(c.at("max_rel_error")[i].get<double>(), c.at("median_rel_error")[i].get<double>());
    }
  }
  EXPECT_EQ(names, (std::vector<std::string>{"1", "16", "32", "64", "128", "256", "never", "fp32"}));
  if (kernels::fp16GemmHardwareAvailable()) {
    EXPECT_EQ(f.at("kernel"), "AVX512_FP16");
    EXPECT_GT(f.at("gemm").at("gflops").get<double>(), 0.0);
    EXPECT_GT(f.at("gemm").at("onednn_fp32_gflops").get<double>(), 0.0);
  } else {
    EXPECT_EQ(f.at("kernel"), "absent");
    EXPECT_TRUE(f.at("gemm").is_null());
    EXPECT_NE(f.at("absent_reason").get<std::string>().find("AVX512_FP16"), std::string::npos);
  }
  // A report from before the FP16 GEMM still reads.
  json old = j;
  old.erase("fp16_gemm");
  EXPECT_TRUE(bench::fromJson(old).fp16Gemm.table.rowsByK.empty());
}

TEST(BenchReport, FromJsonNamesTheBadField) {
  json j = bench::toJson(tinyReport());
  j["steps"][0].erase("median_ms");
  try {
    bench::fromJson(j);
    FAIL() << "accepted a step without median_ms";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("steps[0].median_ms"), std::string::npos) << e.what();
  }
  EXPECT_THROW(bench::fromJson(json::array()), std::invalid_argument);
  j = bench::toJson(tinyReport());
  j["matmul"][0]["dtype"] = "f64";
  EXPECT_THROW(bench::fromJson(j), std::invalid_argument);
}
