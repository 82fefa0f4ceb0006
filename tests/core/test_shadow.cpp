// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The shadow pass: each tensor of a step against a reference copy of the
// model. The statistics against values worked out by hand; an fp32 run
// against its FP32 reference is exact for every model; a bf16-mixed MLP's
// products stay within the error bound this file derives from K and BF16's
// unit roundoff (with its own double-precision forward pass of the MLP); an
// FP16 softmax without max subtraction is the first tensor named.
#include <mantissa/data/dataset.h>
#include <mantissa/model/gpt.h>
#include <mantissa/model/gpt_network.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/run_log.h>
#include <mantissa/train/run_log_rows.h>
#include <mantissa/train/session.h>
#include <mantissa/train/shadow.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace mantissa;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::shared_ptr<const data::TrainTest> shadowMnist() {
  static const auto d = std::make_shared<const data::TrainTest>(data::loadBuiltin("mnist"));
  return d;
}

const train::ShadowError& named(const train::ShadowFrame& f, const std::string& name) {
  for (const auto& e : f.tensors)
    if (e.tensor == name)
      return e;
  ADD_FAILURE() << "no tensor " << name << " in the frame";
  static const train::ShadowError none;
  return none;
}

} // namespace

TEST(ShadowError, EqualValuesHaveNoErrorAndInfiniteSqnr) {
  const float a[] = {1.0f, -2.5f, 0.0f, 3e-30f};
  const double r[] = {1.0, -2.5, 0.0, double(3e-30f)};
  const auto e = train::measureShadowError("t", a, r, DType::BF16);
  EXPECT_EQ(e.count, 4);
  EXPECT_EQ(e.maxRelative, 0.0);
  EXPECT_EQ(e.medianRelative, 0.0);
  EXPECT_EQ(e.tensorRelative, 0.0);
  EXPECT_EQ(e.maxUlps, 0.0);
  EXPECT_EQ(e.sqnrDb, kInf);
  EXPECT_EQ(e.flips, 0);
}

TEST(ShadowError, StatisticsOfAWorkedExample) {
  // Four values against their reference:
  //   1          vs 1 + 2^-10  relative 2^-10 / (1 + 2^-10); BF16 ulp at 1 is 2^-7: 1/8 ULP
  //   -2         vs 2          relative 2; ulp at 2 is 2^-6: 4 / 2^-6 = 256 ULPs; sign flipped
  //   0          vs 2^-10      relative 1; ulp at 2^-10 is 2^-17: 128 ULPs; zero against non-zero
  //   3          vs 3          relative 0
  const float a[] = {1.0f, -2.0f, 0.0f, 3.0f};
  const double r[] = {1.0 + 0x1p-10, 2.0, 0x1p-10, 3.0};
  const auto e = train::measureShadowError("t", a, r, DType::BF16);
  EXPECT_DOUBLE_EQ(e.maxRelative, 2.0);
  // Median of {0, 2^-10/(1+2^-10), 1, 2}: the mean of the middle two.
  EXPECT_DOUBLE_EQ(e.medianRelative, 0.5 * (0x1p-10 / (1.0 + 0x1p-10) + 1.0));
  EXPECT_DOUBLE_EQ(e.maxUlps, 256.0);
  EXPECT_EQ(e.flips, 2);
  const double noise = 0x1p-20 + 16.0 + 0x1p-20;
  const double signal = (1.0 + 0x1p-10) * (1.0 + 0x1p-10) + 4.0 + 0x1p-20 + 9.0;
  EXPECT_DOUBLE_EQ(e.tensorRelative, std::sqrt(noise / signal));
  EXPECT_DOUBLE_EQ(e.sqnrDb, 10.0 * std::log10(signal / noise));
  // In FP32 the first value is 2^-10 / 2^-23 = 8192 ULPs off, the -2 is 4 / 2^-22.
  EXPECT_DOUBLE_EQ(train::measureShadowError("t", a, r, DType::F32).maxUlps, 4.0 * 0x1p22);
  // FP16: the 2^-10 reference is normal (ulp 2^-20), 2^-10 / 2^-20 = 1024 ULPs; -2: 4 / 2^-9.
  EXPECT_DOUBLE_EQ(train::measureShadowError("t", a, r, DType::F16).maxUlps, 2048.0);
}

TEST(ShadowError, LargeTensorsTakeTheMedianOverEveryKthValueAndTheMaxOverAll) {
  // 200,003 values whose relative errors rise evenly, i * 2^-20 for value i
  // (reference 1, run 1 + i * 2^-20, exact in FP32 up to i < 2^20): the
  // median is the middle one, 100,001 * 2^-20; every k-th value gives it to
  // within k steps of 2^-20. The largest is the last.
  const std::size_t n = 200003;
  std::vector<float> a(n);
  std::vector<double> r(n, 1.0);
  for (std::size_t i = 0; i < n; ++i)
    a[i] = static_cast<float>(1.0 + double(i) * 0x1p-20);
  const auto e = train::measureShadowError("big", a, r, DType::F32);
  EXPECT_EQ(e.maxRelative, double(n - 1) * 0x1p-20);
  const std::size_t k = (n + train::kMedianValues - 1) / train::kMedianValues;
  ASSERT_GT(k, 1u) << "the tensor must be over kMedianValues for the test to sample";
  EXPECT_NEAR(e.medianRelative, 100001 * 0x1p-20, double(k) * 0x1p-20);
}

namespace {

// The statistics by their definitions, value by value (std::ilogb for the
// binade, std::ldexp for the ULP), with none of the kernels' bit tricks.
struct Plain {
  double maxRelative = 0.0, maxUlps = 0.0, signal = 0.0, noise = 0.0;
  std::int64_t flips = 0;
  bool lost = false;
};

template <typename R>
Plain plainStatistics(const std::vector<float>& a, const std::vector<R>& r, double scale,
                      int precision, int minExponent) {
  Plain p;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double x = double(a[i]) / scale, y = double(r[i]);
    if (!std::isfinite(x) || !std::isfinite(y)) {
      const bool same = x == y || (std::isnan(x) && std::isnan(y));
      p.lost |= !same;
      p.flips += !same;
      continue;
    }
    const double d = std::abs(x - y);
    p.signal += y * y;
    p.noise += d * d;
    if (y != 0.0)
      p.maxRelative = std::max(p.maxRelative, d / std::abs(y));
    const int e = y == 0.0 ? minExponent : std::max(std::ilogb(y), minExponent);
    p.maxUlps = std::max(p.maxUlps, d / std::ldexp(1.0, e - (precision - 1)));
    if ((x == 0.0) != (y == 0.0))
      ++p.flips;
    else if (x != 0.0 && (std::signbit(x) != std::signbit(y) || std::ilogb(x) != std::ilogb(y)))
      ++p.flips;
  }
  return p;
}

// Random pairs of every kind: close, far, zero against non-zero, sign
// flipped, a binade apart, subnormal in FP32, with an odd count for the
// kernels' last partial vector.
template <typename R>
void randomPairs(std::vector<float>& a, std::vector<R>& r, std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-4.0, 4.0);
  std::uniform_int_distribution<int> kind(0, 9), exponent(-140, 20);
  a.resize(n);
  r.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double y = std::ldexp(u(rng), exponent(rng));
    r[i] = static_cast<R>(y);
    switch (kind(rng)) {
    case 0: a[i] = 0.0f; break;
    case 1: a[i] = static_cast<float>(-y); break;
    case 2: a[i] = static_cast<float>(2.0 * y); break;
    case 3: r[i] = 0; a[i] = static_cast<float>(y); break;
    default: a[i] = static_cast<float>(y * (1.0 + 0x1p-9 * u(rng)));
    }
  }
}

template <typename R>
void expectPlain(const char* kernel, double scale) {
  SCOPED_TRACE(kernel);
  std::vector<float> a;
  std::vector<R> r;
  randomPairs(a, r, 10007, 7);
  for (float& v : a)
    v = static_cast<float>(double(v) * scale);
  const Plain p = plainStatistics(a, r, scale, 8, -126);
  const auto e = train::measureShadowError("t", a, r, DType::BF16, scale);
  EXPECT_EQ(e.maxRelative, p.maxRelative);
  EXPECT_EQ(e.maxUlps, p.maxUlps);
  EXPECT_EQ(e.flips, p.flips);
  EXPECT_NEAR(e.tensorRelative, std::sqrt(p.noise / p.signal), 1e-12 * e.tensorRelative);
  // Non-finite values on one side only make the tensor lost, wherever they sit.
  for (const std::size_t at : {std::size_t{0}, std::size_t{5}, a.size() - 1}) {
    auto b = a;
    b[at] = std::numeric_limits<float>::infinity();
    auto q = r;
    q[at] = 1;
    const auto lost = train::measureShadowError("t", b, q, DType::BF16, scale);
    EXPECT_EQ(lost.tensorRelative, kInf) << "at " << at;
    EXPECT_EQ(lost.flips, plainStatistics(b, q, scale, 8, -126).flips) << "at " << at;
  }
}

} // namespace

TEST(ShadowError, EveryKernelGivesTheStatisticsOfTheirDefinitions) {
  train::setPortableShadowKernel(true);
  expectPlain<double>("plain loop, FP64 reference", 1.0);
  expectPlain<float>("plain loop, FP32 reference", 1024.0);
  train::setPortableShadowKernel(false);
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512vl") ||
      !__builtin_cpu_supports("avx512dq"))
    GTEST_SKIP() << "the AVX-512 kernel did not run: this CPU lacks AVX-512 F/VL/DQ";
  expectPlain<double>("AVX-512, FP64 reference", 1.0);
  expectPlain<float>("AVX-512, FP32 reference", 1024.0);
}

TEST(ShadowError, ScaledValuesAreDividedBeforeComparing) {
  const float a[] = {65536.0f, -32768.0f};
  const double r[] = {1.0, -0.5};
  const auto e = train::measureShadowError("g", a, r, DType::F32, 65536.0);
  EXPECT_EQ(e.tensorRelative, 0.0);
  EXPECT_EQ(e.flips, 0);
}

TEST(ShadowError, ANonFiniteValueMakesEveryErrorInfinite) {
  const float a[] = {1.0f, std::numeric_limits<float>::quiet_NaN()};
  const double r[] = {1.0, 0.25};
  const auto e = train::measureShadowError("p", a, r, DType::F16);
  EXPECT_EQ(e.tensorRelative, kInf);
  EXPECT_EQ(e.maxRelative, kInf);
  EXPECT_EQ(e.maxUlps, kInf);
  EXPECT_EQ(e.flips, 1);
  // The same infinity on both sides is no error.
  const float inf[] = {std::numeric_limits<float>::infinity()};
  const double rinf[] = {kInf};
  EXPECT_EQ(train::measureShadowError("p", inf, rinf, DType::F32).tensorRelative, 0.0);
}

TEST(ShadowError, MismatchedSizesAndBadScalesAreRefusedNamingTheTensor) {
  const float a[] = {1.0f, 2.0f};
  const double r[] = {1.0};
  try {
    train::measureShadowError("h0.qkv output", a, r, DType::F32);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("h0.qkv output"), std::string::npos) << e.what();
  }
  const double r2[] = {1.0, 2.0};
  EXPECT_THROW(train::measureShadowError("t", a, r2, DType::F32, 0.0), std::invalid_argument);
  EXPECT_THROW(train::measureShadowError("t", a, r2, DType::F32, kInf), std::invalid_argument);
}

TEST(ShadowFrameJson, ReadsBackWhatItWroteWithInfinities) {
  train::ShadowFrame f;
  f.step = 40;
  f.reference = train::ShadowPrecision::F64;
  f.threshold = 0.05;
  f.ms = 12.5;
  f.tensors.push_back({"layer0 output", false, DType::BF16, 10, 0.5, 0.01, 0.02, 3.0, 33.9, 1});
  f.tensors.push_back({"h0.attention probs", false, DType::F16, 8, kInf, kInf, kInf, kInf, -kInf, 8});
  f.tensors.push_back({"layer0.W gradient", true, DType::F32, 4, 0, 0, 0, 0, kInf, 0});
  f.firstOver = 1;
  const auto j = train::shadowFrameJson(f);
  EXPECT_EQ(j["tensors"][1]["tensor_rel"], "inf");
  EXPECT_EQ(j["tensors"][1]["sqnr_db"], "-inf");
  EXPECT_EQ(j["tensors"][2]["pass"], "backward");
  const auto back = train::shadowFrameFromJson(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(back.step, 40);
  EXPECT_EQ(back.reference, train::ShadowPrecision::F64);
  EXPECT_EQ(back.tensors, f.tensors);
  EXPECT_EQ(back.firstOver, std::optional<std::size_t>(1));
}

TEST(ShadowFrameJson, BadFieldsAreNamed) {
  const auto base = nlohmann::json::parse(
      R"({"step": 3, "reference": "fp32", "threshold": 0.01, "ms": 1, "first_over": null,
          "tensors": [{"tensor": "t", "pass": "forward", "format": "bf16", "count": 2,
                       "max_rel": 0, "median_rel": 0, "tensor_rel": 0, "max_ulps": 0,
                       "sqnr_db": "inf", "flips": 0}]})");
  EXPECT_NO_THROW(train::shadowFrameFromJson(base));
  const auto refused = [&](const char* path, const nlohmann::json& value, const char* field) {
    auto j = base;
    j[nlohmann::json::json_pointer(path)] = value;
    try {
      train::shadowFrameFromJson(j);
      ADD_FAILURE() << path << " = " << value.dump() << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  refused("/reference", "fp16", "reference");
  refused("/tensors/0/pass", "sideways", "pass");
  refused("/tensors/0/format", "e4m3", "format");
  refused("/tensors/0/max_rel", -1.0, "max_rel");
  refused("/tensors/0/tensor_rel", "-inf", "tensor_rel");
  refused("/tensors/0/flips", 3, "flips");
  refused("/first_over", 1, "first_over");
  refused("/step", -1, "step");
}

TEST(ShadowConfig, NeedsTelemetryStepsAndOneMicroBatchAndAKnownPrecision) {
  train::RunConfig c;
  c.data = "spirals";
  c.model = "mlp:2-16-2:relu";
  c.steps = 2;
  c.shadow = "fp32";
  const auto has = [](const train::RunConfig& config, const std::string& text) {
    for (const auto& p : config.problems())
      if (p.find(text) != std::string::npos)
        return true;
    return false;
  };
  EXPECT_TRUE(has(c, "telemetry_every"));
  c.telemetryEvery = 1;
  EXPECT_TRUE(c.problems().empty());
  c.gradAccumulation = 2;
  EXPECT_TRUE(has(c, "grad_accumulation 1"));
  c.gradAccumulation = 1;
  c.shadow = "fp16";
  EXPECT_TRUE(has(c, "shadow: must be fp32 or fp64"));
  c.shadow = "fp32";
  c.shadowThreshold = 0.0;
  EXPECT_TRUE(has(c, "shadow_threshold"));
  c.shadowThreshold = 0.05;
  const auto back = train::runConfigFromJson(train::toJson(c));
  EXPECT_EQ(back.shadow, "fp32");
  EXPECT_EQ(back.shadowThreshold, 0.05);
}

namespace {

struct ModelCase {
  const char* name;
  const char* model;
};

class ShadowExact : public testing::TestWithParam<ModelCase> {};

} // namespace

// fp32 against its FP32 reference: the same arithmetic on the same batch
// and weights, so every tensor of forward and backward is bit for bit equal.
TEST_P(ShadowExact, Fp32RunAgainstFp32ReferenceIsExactInEveryTensor) {
  train::RunConfig c;
  std::unique_ptr<train::Session> s;
  const std::string model = GetParam().model;
  if (model::isGptSpec(model)) {
    c = train::findPreset("shakespeare-char")->runs.front();
    c.model = model;
    c.batch = 4;
    c.evalBatches = 2;
    c.warmupSteps = 1;
  } else {
    c.model = model;
    c.batch = 8;
  }
  c.recipe = "fp32";
  c.steps = 3;
  c.telemetryEvery = 2;
  c.shadow = "fp32";
  s = model::isGptSpec(model) ? std::make_unique<train::Session>(c)
                              : std::make_unique<train::Session>(c, shadowMnist());
  std::vector<std::shared_ptr<const train::ShadowFrame>> frames;
  while (!s->finished())
    if (const auto& r = s->step(); r.shadow)
      frames.push_back(r.shadow);
  ASSERT_EQ(frames.size(), 2u) << "steps 0 and 2 are telemetry steps";
  std::vector<model::ShadowTensor> listed;
  s->model().shadowTensors(listed);
  for (const auto& f : frames) {
    EXPECT_EQ(f->reference, train::ShadowPrecision::F32);
    ASSERT_EQ(f->tensors.size(), listed.size());
    bool sawBackward = false;
    for (const auto& e : f->tensors) {
      sawBackward |= e.backward;
      EXPECT_GT(e.count, 0) << e.tensor;
      EXPECT_EQ(e.tensorRelative, 0.0) << e.tensor << " at step " << f->step;
      EXPECT_EQ(e.maxUlps, 0.0) << e.tensor;
      EXPECT_EQ(e.flips, 0) << e.tensor;
    }
    EXPECT_TRUE(sawBackward);
    EXPECT_FALSE(f->firstOver);
    EXPECT_NE(train::describeShadowFrame(*f).find("every tensor equals the reference's"),
              std::string::npos)
        << train::describeShadowFrame(*f);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryModel, ShadowExact,
                         testing::Values(ModelCase{"mlp", "mlp:784-32-16-10:relu"},
                                         ModelCase{"cnn", "cnn:c4k3b-p2-f8"},
                                         ModelCase{"gpt", "gpt:layers=2,heads=2,embd=16,ctx=16"},
                                         ModelCase{"resmlp", "resmlp:784-16x2-10"}),
                         [](const auto& param) { return std::string(param.param.name); });

namespace {

class ShadowFp64 : public testing::TestWithParam<ModelCase> {};

} // namespace

// fp32 against the FP64 reference: every tensor differs only by FP32's
// rounding, far below BF16's: a relative error under 2^-14 as a whole, and
// the products' outputs are not exact.
TEST_P(ShadowFp64, Fp32RunAgainstFp64ReferenceDiffersByFp32RoundingOnly) {
  train::RunConfig c;
  const std::string model = GetParam().model;
  if (model::isGptSpec(model)) {
    c = train::findPreset("shakespeare-char")->runs.front();
    c.evalBatches = 2;
    c.warmupSteps = 0;
  }
  c.model = model;
  c.batch = model::isGptSpec(model) ? 4 : 8;
  c.recipe = "fp32";
  c.steps = 1;
  c.telemetryEvery = 1;
  c.shadow = "fp64";
  auto s = model::isGptSpec(model) ? std::make_unique<train::Session>(c)
                                   : std::make_unique<train::Session>(c, shadowMnist());
  const auto& r = s->step();
  ASSERT_TRUE(r.shadow);
  EXPECT_EQ(r.shadow->reference, train::ShadowPrecision::F64);
  std::vector<model::ShadowTensor> listed;
  s->model().shadowTensors(listed);
  ASSERT_EQ(r.shadow->tensors.size(), listed.size());
  double largest = 0;
  for (const auto& e : r.shadow->tensors) {
    EXPECT_LT(e.tensorRelative, 0x1p-14) << e.tensor;
    largest = std::max(largest, e.tensorRelative);
  }
  EXPECT_GT(largest, 0.0) << "FP32 rounds somewhere";
  EXPECT_FALSE(r.shadow->firstOver);
}

INSTANTIATE_TEST_SUITE_P(EveryModel, ShadowFp64,
                         testing::Values(ModelCase{"mlp", "mlp:784-32-16-10:relu"},
                                         ModelCase{"cnn", "cnn:c4k3b-p2-f8"},
                                         ModelCase{"gpt", "gpt:layers=2,heads=2,embd=16,ctx=16"}),
                         [](const auto& param) { return std::string(param.param.name); });

// bf16-mixed MLP: each product's output against the bound derived here.
// Per output value of layer l (inputs x of K values, weights w, bias b; the
// run's input x^ is BF16 already, its weights w^ = bf16(w); u = 2^-8 BF16's
// unit roundoff, v = 2^-24 FP32's, g(n) = n v / (1 - n v)):
//   |y^ - y| <= sum |x^ - x||w| + u sum |x^||w| + g(K+1) (sum |x^||w^| + |b|)
//               + u / (1 - u) |y^|                     (the run against exact)
//   |r - y|  <= sum d_k |w| + g(K+1) (sum (|x| + d_k)|w| + |b|)
//                                                       (the FP32 reference, d = its
//                                                        input's bound, 0 for the data)
// where y is the exact (double) forward pass computed here from the data and
// the master weights. Then ||y^ - r|| <= ||B_run + B_ref|| and the frame's
// tensor error is at most that over ||y|| - ||B_ref||.
TEST(ShadowBound, Bf16MixedProductsStayWithinTheBoundFromKAndUnitRoundoff) {
  train::RunConfig c;
  c.model = "mlp:784-64-32-10:relu";
  c.recipe = "bf16-mixed";
  c.batch = 16;
  c.steps = 1;
  c.telemetryEvery = 1;
  c.shadow = "fp32";
  train::Session s(c, shadowMnist());
  auto& net = s.model();
  // The weights the step uses (the optimizer changes them after).
  std::vector<std::vector<float>> W, b;
  for (int l = 0; l < net.layers(); ++l) {
    const auto w = std::as_const(net.params()[l].w).f32();
    const auto bb = std::as_const(net.params()[l].b).f32();
    W.emplace_back(w.begin(), w.end());
    b.emplace_back(bb.begin(), bb.end());
  }
  const auto& r = s.step();
  ASSERT_TRUE(r.shadow);
  const int B = c.batch;
  const std::vector<int> widths = {784, 64, 32, 10};
  const double u = 0x1p-8, v = 0x1p-24;
  const auto g = [v](int n) { return n * v / (1.0 - n * v); };
  const auto data = net.inputs();
  std::vector<double> x(data.begin(), data.end()), d(x.size(), 0.0); // exact input, ref's bound
  for (int l = 0; l < net.layers(); ++l) {
    const int K = widths[l], O = widths[l + 1];
    const auto runOut = std::as_const(net.acts()[l].pre).f32();
    std::vector<float> runIn;
    if (l == 0) {
      // x^ of the first layer: the data rounded to BF16 (nearest even) by the product's cast.
      runIn.assign(data.begin(), data.end());
      for (float& xi : runIn) {
        std::uint32_t bits;
        std::memcpy(&bits, &xi, 4);
        bits += 0x7fffu + ((bits >> 16) & 1u);
        bits &= 0xffff0000u;
        std::memcpy(&xi, &bits, 4);
      }
    } else {
      const auto post = std::as_const(net.acts()[l - 1].post).f32();
      runIn.assign(post.begin(), post.end());
    }
    std::vector<double> y(std::size_t(B) * O), bRun(y.size()), bRef(y.size());
    for (int n = 0; n < B; ++n)
      for (int o = 0; o < O; ++o) {
        double exact = b[l][o], inErr = 0, wErr = 0, runAbs = 0, refAbs = 0, refIn = 0;
        for (int k = 0; k < K; ++k) {
          const double w = W[l][std::size_t(k) * O + o];
          const double xe = x[std::size_t(n) * K + k], xr = runIn[std::size_t(n) * K + k];
          exact += xe * w;
          inErr += std::abs(xr - xe) * std::abs(w);
          wErr += std::abs(xr) * std::abs(w);
          runAbs += std::abs(xr) * std::abs(w) * (1 + u); // |w^| <= (1 + u)|w|
          refIn += d[std::size_t(n) * K + k] * std::abs(w);
          refAbs += (std::abs(xe) + d[std::size_t(n) * K + k]) * std::abs(w);
        }
        const std::size_t i = std::size_t(n) * O + o;
        y[i] = exact;
        bRun[i] = inErr + u * wErr + g(K + 1) * (runAbs + std::abs(b[l][o])) +
                  u / (1 - u) * std::abs(double(runOut[i]));
        bRef[i] = refIn + g(K + 1) * (refAbs + std::abs(b[l][o]));
      }
    double yNorm = 0, refNorm = 0, total = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
      yNorm += y[i] * y[i];
      refNorm += bRef[i] * bRef[i];
      total += (bRun[i] + bRef[i]) * (bRun[i] + bRef[i]);
    }
    const double bound = std::sqrt(total) / (std::sqrt(yNorm) - std::sqrt(refNorm));
    const auto& e = named(*r.shadow, "layer" + std::to_string(l) + " output");
    EXPECT_GT(e.tensorRelative, 0.0) << "BF16 products lose something in layer " << l;
    EXPECT_LE(e.tensorRelative, bound) << "layer " << l << " (K = " << K << ")";
    // The next layer's exact input and the reference's bound on it: ReLU is
    // 1-Lipschitz and the reference keeps FP32 activations.
    if (l + 1 < net.layers()) {
      x.assign(y.size(), 0.0);
      for (std::size_t i = 0; i < y.size(); ++i)
        x[i] = std::max(0.0, y[i]);
      d = bRef;
    }
  }
}

// An FP16 softmax without max subtraction overflows on large attention
// scores; everything before it runs in FP32 as in the reference: the
// probabilities are the first tensor over the threshold.
class ShadowFirstOver : public testing::TestWithParam<const char*> {};

TEST_P(ShadowFirstOver, Fp16SoftmaxWithoutMaxSubtractionIsNamedFirst) {
  train::RunConfig c = train::findPreset("shakespeare-char")->runs.front();
  c.model = "gpt:layers=2,heads=2,embd=32,ctx=32";
  c.batch = 4;
  c.steps = 2;
  c.evalBatches = 2;
  c.warmupSteps = 1;
  c.telemetryEvery = 1;
  c.shadow = GetParam();
  c.policy = "fp32,softmax=fp16,softmax-max=off";
  train::Session run(c);
  model::Gpt& gpt = model::gptOf(run.model())->gpt();
  for (auto& p : gpt.params())
    if (p.name.ends_with("qkv.w"))
      for (float& v : p.value.f32())
        v *= 200.0f;
  gpt.refreshWorkingWeights();
  const auto& r = run.step();
  ASSERT_TRUE(run.divergence()) << "the loss is NaN";
  ASSERT_TRUE(r.shadow) << "the frame comes even when the step stops after forward";
  ASSERT_TRUE(r.shadow->firstOver);
  const auto& first = r.shadow->tensors[*r.shadow->firstOver];
  EXPECT_EQ(first.tensor, "h0.attention probs");
  EXPECT_EQ(first.tensorRelative, kInf);
  EXPECT_EQ(first.format, DType::F16);
  for (std::size_t i = 0; i < *r.shadow->firstOver; ++i) // FP32 in the run: as in an FP32 reference
    EXPECT_LT(r.shadow->tensors[i].tensorRelative, c.shadow == "fp32" ? 1e-300 : 0x1p-14)
        << r.shadow->tensors[i].tensor;
  EXPECT_NE(train::describeShadowFrame(*r.shadow).find("first tensor over 1% error: h0.attention probs"),
            std::string::npos)
      << train::describeShadowFrame(*r.shadow);
}

INSTANTIATE_TEST_SUITE_P(BothReferences, ShadowFirstOver, testing::Values("fp32", "fp64"));

TEST(ShadowRequest, OneStepOnDemandAndTheFrameInTheLog) {
  train::RunConfig c;
  c.model = "mlp:784-32-10:relu";
  c.recipe = "bf16-mixed";
  c.batch = 8;
  c.steps = 4;
  train::Session s(c, shadowMnist());
  EXPECT_FALSE(s.step().shadow);
  EXPECT_THROW(s.requestShadow(train::ShadowPrecision::Off), std::invalid_argument);
  s.requestShadow(train::ShadowPrecision::F32);
  const auto& r = s.step();
  ASSERT_TRUE(r.shadow);
  EXPECT_EQ(r.shadow->step, 1);
  EXPECT_GT(named(*r.shadow, "layer0 output").tensorRelative, 0.0);
  // The step row carries it; a log read back holds it.
  train::RunLogBuilder log;
  log.add(train::runLogStep(s, r));
  ASSERT_EQ(log.log().shadow.size(), 1u);
  EXPECT_EQ(log.log().shadow[0].tensors, r.shadow->tensors);
  EXPECT_FALSE(s.step().shadow) << "one step on demand, not every step after";
}

TEST(ShadowRequest, AccumulatingRunsAreRefusedWithTheReason) {
  train::RunConfig c;
  c.model = "mlp:784-32-10:relu";
  c.batch = 8;
  c.steps = 2;
  c.gradAccumulation = 2;
  train::Session s(c, shadowMnist());
  try {
    s.requestShadow(train::ShadowPrecision::F32);
    FAIL();
  } catch (const train::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("grad_accumulation 1"), std::string::npos) << e.what();
  }
}
