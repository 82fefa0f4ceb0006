// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Run diff: hand-written logs whose first divergence is known by
// construction (a loss 3 ULPs away, built with nextafter; a histogram with
// one value moved by one or two binades, whose earth-mover distance is that
// count over the values), the order of the table, alignment by layer name,
// old logs without bit sums; and trained runs: one activation value moved by
// one ULP after forward of step 50 is named first, at step 50, for 20 seeds.
#include <mantissa/build_flags.h>
#include <mantissa/data/dataset.h>
#include <mantissa/train/run_diff.h>
#include <mantissa/train/run_log.h>
#include <mantissa/train/run_log_rows.h>
#include <mantissa/train/session.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <memory>

using namespace mantissa;
using nlohmann::json;

namespace {

json castZeros() {
  const json f = json::array({0.0, 0.0, 0.0, 0.0});
  return {{"fp16", f}, {"bf16", f}, {"fp8-e4m3", f}, {"fp8-e5m2", f}};
}

// One tensor entry of a frame: binades lo, lo + 1, ... holding `counts`.
json tensor(int layer, const char* cls, int lo, std::vector<std::uint64_t> counts,
            std::optional<std::uint64_t> bits = std::nullopt, std::uint64_t zeros = 0) {
  std::uint64_t total = zeros;
  for (auto c : counts)
    total += c;
  json j = {{"layer", layer},    {"class", cls},  {"scaled", false}, {"loss_scale", 1.0},
            {"lo", lo},          {"counts", counts}, {"zeros", zeros}, {"pos_inf", 0},
            {"neg_inf", 0},      {"nan", 0},      {"total", total},  {"cast", castZeros()}};
  if (bits)
    j["bits"] = *bits;
  return j;
}

json stepRow(std::int64_t step, double loss, json tensors = nullptr) {
  json j = {{"step", step}, {"loss", loss}};
  if (!tensors.is_null())
    j["telemetry"] = {{"step", step}, {"tensors", tensors}, {"swamped", json::array()}};
  return j;
}

train::RunLog build(const std::vector<json>& rows) {
  train::RunLogBuilder b;
  for (const auto& r : rows)
    b.add(r);
  return b.take();
}

double ulpsAbove(double x, int n) {
  for (int i = 0; i < n; ++i)
    x = std::nextafter(x, std::numeric_limits<double>::infinity());
  return x;
}

} // namespace

TEST(RunDiff, UlpDistanceCountsRepresentableDoublesBetween) {
  EXPECT_EQ(train::ulpDistance(1.0, ulpsAbove(1.0, 3)), 3u);
  EXPECT_EQ(train::ulpDistance(ulpsAbove(1.0, 3), 1.0), 3u);
  EXPECT_EQ(train::ulpDistance(0.0, -0.0), 0u);
  // Across zero: the smallest subnormals on each side are 2 ULPs apart.
  const double tiny = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(train::ulpDistance(-tiny, tiny), 2u);
  EXPECT_EQ(train::ulpDistance(std::nan(""), std::nan("")), 0u);
  EXPECT_EQ(train::ulpDistance(std::nan(""), 1.0), std::numeric_limits<std::uint64_t>::max());
}

TEST(RunDiff, LossThreeUlpsApartDiffersAtToleranceTwoNotThree) {
  const double base = 2.302585092994046;
  std::vector<json> a, b;
  for (int s = 0; s < 6; ++s) {
    a.push_back(stepRow(s, base - 0.1 * s));
    b.push_back(stepRow(s, s == 4 ? ulpsAbove(base - 0.1 * s, 3) : base - 0.1 * s));
  }
  const auto A = build(a), B = build(b);
  const auto two = train::diffRuns(A, B, {.toleranceUlps = 2});
  ASSERT_EQ(two.rows.size(), 1u);
  EXPECT_EQ(two.rows[0].step, 4);
  EXPECT_EQ(two.rows[0].tensor, "loss");
  EXPECT_EQ(two.rows[0].pass, train::DiffPass::Loss);
  EXPECT_EQ(two.rows[0].ulps, 3.0);
  EXPECT_EQ(two.stepsCompared, 6);
  EXPECT_FALSE(train::diffRuns(A, B, {.toleranceUlps = 3}).differ());
  EXPECT_TRUE(train::diffRuns(A, B).differ());
  EXPECT_FALSE(train::diffRuns(A, A).differ());
}

TEST(RunDiff, ExponentEmdIsTheMovedMassTimesTheDistance) {
  telemetry::ExponentHistogram a, b, empty;
  using H = telemetry::ExponentHistogram;
  a.bins[H::index(-3)] = 2, a.bins[H::index(-2)] = 6;
  b.bins[H::index(-3)] = 3, b.bins[H::index(-2)] = 5; // one of 8 values one binade down
  EXPECT_DOUBLE_EQ(train::exponentEmd(a, b), 1.0 / 8.0);
  b.bins[H::index(-3)] = 2, b.bins[H::index(-4)] = 1; // ... two binades down
  EXPECT_DOUBLE_EQ(train::exponentEmd(a, b), 2.0 / 8.0);
  EXPECT_EQ(train::exponentEmd(a, a), 0.0);
  // Different sizes, same shape: fractions, not counts, are compared.
  H twice = a;
  for (auto& c : twice.bins)
    c *= 2;
  EXPECT_EQ(train::exponentEmd(a, twice), 0.0);
  EXPECT_EQ(train::exponentEmd(empty, empty), 0.0);
  EXPECT_TRUE(std::isinf(train::exponentEmd(a, empty)));
}

TEST(RunDiff, HistogramMovedByOneBinIsNamedWithItsEmd) {
  // Layer 0's activations: 8 values in binades -3 and -2; at step 2 one of them
  // moves down one binade in B. Everything else is equal.
  const auto frame = [](bool moved) {
    return json::array({tensor(0, "weights", -5, {4, 4}),
                        tensor(0, "activations", -3, moved ? std::vector<std::uint64_t>{3, 5}
                                                           : std::vector<std::uint64_t>{2, 6}),
                        tensor(0, "weight_grads", -9, {1, 1})});
  };
  std::vector<json> a, b;
  for (int s = 0; s < 4; ++s) {
    a.push_back(stepRow(s, 1.0, frame(false)));
    b.push_back(stepRow(s, 1.0, frame(s >= 2)));
  }
  const auto d = train::diffRuns(build(a), build(b));
  ASSERT_EQ(d.rows.size(), 1u);
  const auto& r = d.rows[0];
  EXPECT_EQ(r.step, 2);
  EXPECT_EQ(r.tensor, "layer 0 activations");
  EXPECT_EQ(r.pass, train::DiffPass::Forward);
  EXPECT_EQ(r.measure, "histogram");
  EXPECT_DOUBLE_EQ(r.emd, 1.0 / 8.0);
  EXPECT_EQ(d.framesCompared, 4);
  EXPECT_EQ(d.tensorsCompared, 12);
  // Logs without bit sums (older ones, taps): said once, compared without them.
  ASSERT_FALSE(d.notes.empty());
  EXPECT_NE(d.notes.back().find("bit sums"), std::string::npos) << d.notes.back();
}

TEST(RunDiff, TableIsSortedByStepThenPassThenOpOrder) {
  // Step 1: layer 1's weight gradients (backward) and layer 1's activations
  // (forward) differ, by bit sum only; step 2: the loss; step 1 also layer 0's
  // weight gradients. Listed: step 1 forward layer 1 activations, step 1
  // backward layer 1 (the last layer first) then layer 0, step 2 loss.
  const auto frame = [](std::uint64_t act1, std::uint64_t g1, std::uint64_t g0) {
    return json::array({tensor(0, "activations", -2, {4}, 100), tensor(1, "activations", -2, {4}, act1),
                        tensor(0, "weight_grads", -9, {2}, g0), tensor(1, "weight_grads", -9, {2}, g1)});
  };
  std::vector<json> a = {stepRow(0, 1.0, frame(1, 2, 3)), stepRow(1, 1.0, frame(1, 2, 3)),
                         stepRow(2, 0.5, frame(1, 2, 3))};
  std::vector<json> b = {stepRow(0, 1.0, frame(1, 2, 3)), stepRow(1, 1.0, frame(9, 9, 9)),
                         stepRow(2, 0.25, frame(9, 9, 9))};
  const auto d = train::diffRuns(build(a), build(b));
  ASSERT_EQ(d.rows.size(), 4u);
  EXPECT_EQ(d.rows[0].tensor, "layer 1 activations");
  EXPECT_EQ(d.rows[0].measure, "bits");
  EXPECT_EQ(d.rows[0].step, 1);
  EXPECT_EQ(d.rows[1].tensor, "layer 1 weight_grads");
  EXPECT_EQ(d.rows[1].pass, train::DiffPass::Backward);
  EXPECT_EQ(d.rows[2].tensor, "layer 0 weight_grads");
  EXPECT_EQ(d.rows[3].tensor, "loss");
  EXPECT_EQ(d.rows[3].step, 2);
  EXPECT_TRUE(d.notes.empty()) << d.notes.front();
  // CSV: a header and one line per row.
  const std::string csv = train::runDiffCsv(d);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);
  EXPECT_EQ(csv.rfind("step,pass,tensor,", 0), 0u);
  EXPECT_EQ(train::runDiffJson(d)["first"]["tensor"], "layer 1 activations");
}

TEST(RunDiff, NamedLayersAlignByNameWhateverTheirIndex) {
  // B lists the same two layers in the other order: by name they are equal.
  const json headerA = {{"header", true}, {"name", "tap"}, {"layers", {"fc1", "fc2"}}};
  const json headerB = {{"header", true}, {"name", "tap"}, {"layers", {"fc2", "fc1"}}};
  const auto rows = [](int fc1, int fc2, std::uint64_t fc2Count) {
    return json::array({tensor(fc1, "activations", -2, {4}), tensor(fc2, "activations", -1, {fc2Count})});
  };
  const auto A = build({headerA, stepRow(0, 1.0, rows(0, 1, 4)), stepRow(1, 1.0, rows(0, 1, 4))});
  const auto B = build({headerB, stepRow(0, 1.0, rows(1, 0, 4)), stepRow(1, 1.0, rows(1, 0, 5))});
  const auto d = train::diffRuns(A, B);
  ASSERT_EQ(d.rows.size(), 1u);
  EXPECT_EQ(d.rows[0].tensor, "fc2 activations");
  EXPECT_EQ(d.rows[0].step, 1);
  EXPECT_EQ(d.rows[0].measure, "total");
}

TEST(RunDiff, ShorterRunAndMissingFramesAreNamedNotFatal) {
  const auto A = build({stepRow(0, 1.0), stepRow(1, 0.9), stepRow(2, 0.8)});
  const auto B = build({stepRow(0, 1.0), stepRow(1, 0.9)});
  const auto d = train::diffRuns(A, B);
  ASSERT_EQ(d.rows.size(), 1u);
  EXPECT_EQ(d.rows[0].step, 2);
  EXPECT_EQ(d.rows[0].measure, "run length");
  ASSERT_FALSE(d.notes.empty());
  EXPECT_NE(d.notes.back().find("telemetry frames"), std::string::npos) << d.notes.back();
}

namespace {

std::shared_ptr<const data::TrainTest> mnist() {
  static const auto data = std::make_shared<const data::TrainTest>(data::loadBuiltin("mnist"));
  return data;
}

// A run of mlp:784-16-10 in FP32 with telemetry every step, as its log reads
// back; nudged: one activation value of layer `layer` moved one ULP after
// forward of step 50.
train::RunLog trainedLog(std::uint64_t seed, std::optional<int> nudgedLayer) {
  train::RunConfig c;
  c.model = "mlp:784-16-10";
  c.recipe = "fp32";
  c.batch = 16;
  c.steps = 53;
  c.seed = seed;
  c.telemetryEvery = 1;
  train::Session s(c, mnist());
  if (nudgedLayer)
    s.setActivationNudge(train::Session::ActivationNudge{50, *nudgedLayer});
  train::RunLogBuilder b;
  b.add(train::runLogHeader(s));
  while (!s.finished())
    b.add(train::runLogStep(s, s.step()));
  return b.take();
}

} // namespace

TEST(RunDiff, OneUlpNudgeAtStep50IsNamedFirstForTwentySeeds) {
  // Under a sanitizer (instrumented training, about ten times slower) four
  // seeds: both layers, and the diff's memory safety on the same logs.
  const std::uint64_t seeds = mantissa::builtWithSanitizer() ? 4 : 20;
  int named = 0;
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    const int layer = static_cast<int>(seed % 2); // the hidden layer, or the logits
    const auto plain = trainedLog(seed, std::nullopt);
    const auto nudged = trainedLog(seed, layer);
    if (seed <= 3) { // without the nudge, the same seed gives the same log
      const auto same = train::diffRuns(plain, trainedLog(seed, std::nullopt));
      EXPECT_FALSE(same.differ()) << "seed " << seed << ": " << same.rows.front().detail;
      EXPECT_EQ(same.framesCompared, 53);
    }
    const auto d = train::diffRuns(plain, nudged);
    ASSERT_TRUE(d.differ()) << "seed " << seed;
    const auto& first = d.rows.front();
    const std::string expected = "layer " + std::to_string(layer) + " activations";
    EXPECT_EQ(first.step, 50) << "seed " << seed << ": " << first.tensor;
    EXPECT_EQ(first.tensor, expected) << "seed " << seed;
    EXPECT_EQ(first.pass, train::DiffPass::Forward);
    // One value's bit pattern moved by exactly one.
    ASSERT_EQ(first.measure, first.emd > 0 ? "histogram" : "bits") << first.detail;
    const auto* fa = plain.frameAt(50);
    const auto* fb = nudged.frameAt(50);
    ASSERT_TRUE(fa && fb);
    const auto* ta = fa->find(layer, telemetry::TensorClass::Activations);
    const auto* tb = fb->find(layer, telemetry::TensorClass::Activations);
    ASSERT_TRUE(ta && tb && ta->bits && tb->bits);
    EXPECT_EQ(std::max(*ta->bits, *tb->bits) - std::min(*ta->bits, *tb->bits), 1u);
    named += first.step == 50 && first.tensor == expected;
  }
  EXPECT_EQ(named, int(seeds));
}

TEST(RunDiff, NudgeOfAMissingLayerIsRefused) {
  train::RunConfig c;
  c.model = "mlp:784-16-10";
  c.recipe = "fp32";
  c.batch = 16;
  c.steps = 2;
  train::Session s(c, mnist());
  EXPECT_THROW(s.setActivationNudge(train::Session::ActivationNudge{1, 2}), std::invalid_argument);
}

// Bit sums above 2^53 differ in their last bit: the JSON and CSV tables give
// both exactly, as the unsigned integers the logs hold (a double cannot).
TEST(RunDiff, BitSumsAreReportedExactly) {
  const std::uint64_t big = (std::uint64_t(1) << 60) + 1;
  std::vector<json> a, b;
  for (int s = 0; s < 2; ++s) {
    a.push_back(stepRow(s, 1.0, json::array({tensor(0, "activations", -3, {2, 6}, big)})));
    b.push_back(stepRow(s, 1.0, json::array({tensor(0, "activations", -3, {2, 6}, big + (s == 1))})));
  }
  const auto d = train::diffRuns(build(a), build(b));
  ASSERT_EQ(d.rows.size(), 1u);
  EXPECT_EQ(d.rows[0].measure, "bits");
  const json j = train::runDiffJson(d);
  EXPECT_EQ(j["first"]["a"].get<std::uint64_t>(), big);
  EXPECT_EQ(j["first"]["b"].get<std::uint64_t>(), big + 1);
  const std::string csv = train::runDiffCsv(d);
  EXPECT_NE(csv.find(std::to_string(big) + "," + std::to_string(big + 1)), std::string::npos) << csv;
}
