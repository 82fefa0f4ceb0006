// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The collector's views (scaled / unscaled) against computing each view
// directly from the values, cadence, argument checks, and the JSON form.
#include <mantissa/telemetry/collector.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

namespace {

namespace tl = mantissa::telemetry;
using mantissa::DType;
using tl::TensorClass;

std::vector<float> gradientLike(std::size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> logMag(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v)
    x = (rng() % 10 == 0) ? 0.0f : std::exp2(logMag(rng)) * ((rng() & 1) ? 1.0f : -1.0f);
  return v;
}

// The sum of the values' bit patterns, the plain loop (TensorTelemetry::bits).
std::uint64_t bitSum(const std::vector<float>& v) {
  std::uint64_t sum = 0;
  for (const float x : v)
    sum += std::bit_cast<std::uint32_t>(x);
  return sum;
}

// The unscaled view, computed the obvious way: multiply, then histogram and count.
void expectUnscaledViewIsDirect(const std::vector<float>& scaledValues, float lossScale) {
  tl::TelemetryCollector c(1);
  c.observe(2, TensorClass::WeightGrads, scaledValues, lossScale);
  const auto frame = c.finish(0);
  ASSERT_EQ(frame->tensors.size(), 2u);
  const tl::TensorTelemetry* scaled = frame->find(2, TensorClass::WeightGrads, true);
  const tl::TensorTelemetry* unscaled = frame->find(2, TensorClass::WeightGrads, false);
  ASSERT_NE(scaled, nullptr);
  ASSERT_NE(unscaled, nullptr);
  EXPECT_EQ(scaled->lossScale, lossScale);

  std::vector<float> u(scaledValues.size());
  for (std::size_t i = 0; i < u.size(); ++i)
    u[i] = scaledValues[i] * (1.0f / lossScale);
  tl::ExponentHistogram direct, directScaled;
  tl::accumulate(u, direct);
  tl::accumulate(scaledValues, directScaled);
  EXPECT_EQ(unscaled->hist, direct) << "scale " << lossScale;
  EXPECT_EQ(scaled->hist, directScaled) << "scale " << lossScale;
  EXPECT_EQ(unscaled->fractions, tl::castFractions(u)) << "scale " << lossScale;
  EXPECT_EQ(scaled->fractions, tl::castFractions(scaledValues)) << "scale " << lossScale;
  EXPECT_EQ(unscaled->bits, bitSum(u)) << "scale " << lossScale;
  EXPECT_EQ(scaled->bits, bitSum(scaledValues)) << "scale " << lossScale;
}

TEST(TelemetryCollector, UnscaledViewOfPowerOfTwoScaleEqualsDirectComputation) {
  // Gradients around 2^-30 .. 2^0 scaled by 2^16: the one-pass shortcut.
  auto v = gradientLike(30000, -30.0f, 0.0f, 1);
  for (auto& x : v)
    x *= 65536.0f;
  v.push_back(std::numeric_limits<float>::infinity());
  v.push_back(std::numeric_limits<float>::quiet_NaN());
  expectUnscaledViewIsDirect(v, 65536.0f);
}

TEST(TelemetryCollector, UnscaledViewFallsBackWhenValuesUnderflowFp32) {
  // Values near 2^-120 divided by 2^16 land in FP32 subnormals (rounded).
  auto v = gradientLike(5000, -125.0f, -100.0f, 2);
  v.push_back(std::ldexp(3.0f, -130)); // subnormal even before unscaling
  expectUnscaledViewIsDirect(v, 65536.0f);
}

TEST(TelemetryCollector, UnscaledViewOfGeneralScaleEqualsDirectComputation) {
  expectUnscaledViewIsDirect(gradientLike(5000, -20.0f, 10.0f, 3), 1000.0f);
  expectUnscaledViewIsDirect(gradientLike(5000, -20.0f, 10.0f, 4), 0.5f);
}

TEST(TelemetryCollector, UnscaledOnlyWhenScaleIsOne) {
  tl::TelemetryCollector c(1);
  const auto v = gradientLike(100, -10.0f, 0.0f, 5);
  c.observe(0, TensorClass::Activations, v);
  const auto frame = c.finish(3);
  ASSERT_EQ(frame->tensors.size(), 1u);
  EXPECT_FALSE(frame->tensors[0].scaled);
  EXPECT_EQ(frame->step, 3);
  tl::ExponentHistogram h;
  tl::accumulate(v, h);
  EXPECT_EQ(frame->tensors[0].hist, h);
  EXPECT_EQ(frame->tensors[0].bits, bitSum(v));
  // One value one ULP further from zero: the sum moves by exactly one.
  auto w = v;
  for (auto& x : w)
    if (x != 0.0f) {
      x = std::nextafter(x, std::copysign(std::numeric_limits<float>::infinity(), x));
      break;
    }
  c.observe(0, TensorClass::Activations, w);
  EXPECT_EQ(*c.finish(4)->tensors[0].bits, bitSum(v) + 1);
}

// observeAll: every item's entry, in order, equal to the histogram and the
// cast fractions computed directly from its values; empty, tiny and large
// tensors, with zeros, subnormals, inf and NaN. The items are cut between
// the threads end to end: in one order the cut falls in the last tensor,
// in the other in the first.
TEST(TelemetryCollector, ObserveAllRecordsEachItemAsTheDirectComputation) {
  std::vector<std::vector<float>> tensors;
  for (std::size_t n : {0, 1, 7, 1000, 70000, 200001})
    tensors.push_back(gradientLike(n, -140.0f, 20.0f, unsigned(n) + 3));
  auto& big = tensors.back();
  big[5] = std::numeric_limits<float>::infinity();
  big[100000] = -std::numeric_limits<float>::infinity();
  big[150000] = std::numeric_limits<float>::quiet_NaN();
  big[199999] = std::numeric_limits<float>::denorm_min();
  tl::TelemetryCollector c(1);
  for (const bool reversed : {false, true}) {
    std::vector<std::size_t> order(tensors.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      order[i] = reversed ? order.size() - 1 - i : i;
    std::vector<tl::TelemetryCollector::Observed> items;
    for (const std::size_t i : order)
      items.push_back(
          {int(i) + 10, i % 2 ? TensorClass::Activations : TensorClass::Weights, tensors[i]});
    c.observeAll(items);
    const auto frame = c.finish(0);
    ASSERT_EQ(frame->tensors.size(), tensors.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
      const std::size_t i = order[k];
      const tl::TensorTelemetry& t = frame->tensors[k];
      EXPECT_EQ(t.layer, int(i) + 10);
      EXPECT_EQ(t.cls, items[k].cls);
      EXPECT_FALSE(t.scaled);
      tl::ExponentHistogram direct;
      tl::accumulate(tensors[i], direct);
      EXPECT_EQ(t.hist, direct) << "tensor " << i << (reversed ? ", reversed" : "");
      EXPECT_EQ(t.hist.total, tensors[i].size()) << "tensor " << i;
      EXPECT_EQ(t.fractions, tl::castFractions(tensors[i])) << "tensor " << i;
      EXPECT_EQ(t.bits, bitSum(tensors[i])) << "tensor " << i;
    }
  }
  EXPECT_THROW(
      c.observeAll(std::vector<tl::TelemetryCollector::Observed>{{-1, TensorClass::Weights, {}}}),
      std::invalid_argument);
}

TEST(TelemetryCollector, ObserveUpdateRecordsSwampingPerLayerAndTheUpdateHistogram) {
  tl::TelemetryCollector c(1);
  const std::vector<float> w = {1.0f, 1.0f, 1.0f, 1.0f};
  const std::vector<float> u = {1e-9f, 1e-9f, 1e-3f,
                                0.0f}; // 2 of 3 non-zero updates swamped in FP32
  c.observeUpdate(1, w, u, DType::F32);
  const auto frame = c.finish(10);
  ASSERT_EQ(frame->swamped.size(), 2u);
  EXPECT_TRUE(std::isnan(frame->swamped[0])); // layer 0 not observed
  EXPECT_DOUBLE_EQ(frame->swamped[1], 2.0 / 3.0);
  const auto* upd = frame->find(1, TensorClass::Updates);
  ASSERT_NE(upd, nullptr);
  EXPECT_EQ(upd->hist.total, 4u);
  EXPECT_EQ(upd->hist.zeros, 1u);
  EXPECT_GE(frame->telemetryMs, 0.0);
  // A caller that counted apart states the step's cost; the next frame starts afresh.
  c.observe(0, TensorClass::Weights, w);
  const auto stated = c.finish(11, 2.5);
  EXPECT_EQ(stated->telemetryMs, 2.5);
  EXPECT_EQ(stated->tensors.size(), 1u);
}

TEST(TelemetryCollector, CadenceSelectsSteps) {
  tl::TelemetryCollector off(0), every(1), k5(5);
  EXPECT_FALSE(off.wants(0));
  EXPECT_FALSE(off.wants(5));
  EXPECT_TRUE(every.wants(7));
  EXPECT_TRUE(k5.wants(0));
  EXPECT_TRUE(k5.wants(10));
  EXPECT_FALSE(k5.wants(11));
}

TEST(TelemetryCollector, RejectsBadArguments) {
  EXPECT_THROW(tl::TelemetryCollector(-1), std::invalid_argument);
  tl::TelemetryCollector c(1);
  const std::vector<float> v = {1.0f};
  EXPECT_THROW(c.observe(-1, TensorClass::Weights, v), std::invalid_argument);
  EXPECT_THROW(c.observe(0, TensorClass::Weights, v, 0.0f), std::invalid_argument);
  EXPECT_THROW(c.observe(0, TensorClass::Weights, v, -2.0f), std::invalid_argument);
  EXPECT_THROW(c.observe(0, TensorClass::Weights, v, std::numeric_limits<float>::infinity()),
               std::invalid_argument);
  EXPECT_THROW(c.observeUpdate(0, v, std::vector<float>{1.0f, 2.0f}, DType::F32),
               std::invalid_argument);
}

TEST(TelemetryCollector, FinishStartsAFreshFrame) {
  tl::TelemetryCollector c(1);
  const std::vector<float> v = {1.0f, 2.0f};
  c.observe(0, TensorClass::Weights, v);
  const auto first = c.finish(0);
  const auto second = c.finish(1);
  EXPECT_EQ(first->tensors.size(), 1u);
  EXPECT_TRUE(second->tensors.empty());
}

// ---- JSON ----

TEST(TelemetryJson, RoundTripsAFrame) {
  tl::TelemetryCollector c(1);
  auto v = gradientLike(3000, -40.0f, 17.0f, 9);
  v.push_back(-std::numeric_limits<float>::infinity());
  v.push_back(std::numeric_limits<float>::quiet_NaN());
  v.push_back(std::ldexp(1.0f, -149));
  c.observe(0, TensorClass::WeightGrads, v, 1024.0f);
  c.observe(1, TensorClass::Activations,
            std::vector<float>{0.0f, -0.0f}); // no finite non-zero value
  c.observeUpdate(2, v, v, DType::BF16);
  const auto frame = c.finish(1200);

  const nlohmann::json j = tl::toJson(*frame);
  const tl::TelemetryFrame back = tl::fromJson(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(back.step, 1200);
  EXPECT_EQ(back.tensors, frame->tensors);
  ASSERT_EQ(back.swamped.size(), 3u);
  EXPECT_TRUE(std::isnan(back.swamped[0]));
  EXPECT_EQ(back.swamped[2], frame->swamped[2]);
  EXPECT_EQ(back.telemetryMs, frame->telemetryMs);
}

TEST(TelemetryJson, IsCompactAndNamesItsFields) {
  tl::TelemetryFrame f;
  f.step = 4;
  tl::TensorTelemetry t;
  t.layer = 3;
  t.cls = TensorClass::ActivationGrads;
  const std::vector<float> v = {0.25f, 0.5f, 0.75f, 8.0f, 0.0f};
  tl::accumulate(v, t.hist);
  f.tensors.push_back(t);
  const nlohmann::json j = tl::toJson(f);
  const auto& jt = j.at("tensors").at(0);
  EXPECT_EQ(jt.at("class"), "activation_grads");
  EXPECT_EQ(jt.at("lo"), -2);
  EXPECT_EQ(jt.at("counts"), nlohmann::json::array({1, 2, 0, 0, 0, 1})); // 2^-2 .. 2^3
  EXPECT_EQ(jt.at("zeros"), 1);
  EXPECT_EQ(jt.at("total"), 5);
  EXPECT_TRUE(jt.at("cast").contains("fp8-e4m3"));
}

TEST(TelemetryJson, RejectsMalformedFramesWithAClearMessage) {
  tl::TelemetryFrame f;
  tl::TensorTelemetry t;
  const std::vector<float> v = {1.0f, 2.0f};
  tl::accumulate(v, t.hist);
  f.tensors.push_back(t);
  const nlohmann::json good = tl::toJson(f);

  auto expectError = [&](nlohmann::json j, const std::string& fragment) {
    try {
      tl::fromJson(j);
      ADD_FAILURE() << "accepted: " << j.dump();
    } catch (const tl::TelemetryJsonError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  auto j = good;
  j["tensors"][0]["total"] = 3;
  expectError(j, "tensors[0].total");
  j = good;
  j["tensors"][0]["class"] = "grads";
  expectError(j, "unknown tensor class");
  j = good;
  j["tensors"][0]["lo"] = 127;
  expectError(j, "tensors[0].counts");
  j = good;
  j["tensors"][0]["cast"].erase("bf16");
  expectError(j, "missing \"bf16\"");
  j = good;
  j.erase("step");
  expectError(j, "missing \"step\"");
  j = good;
  j["tensors"][0]["counts"][0] = -1;
  expectError(j, "non-negative");
  expectError(nlohmann::json::array(), "expected an object");
}

} // namespace
