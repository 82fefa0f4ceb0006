// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The precision sweep (train/sweep.h) on small GPTs: the ranking is stable
// across seeds (Spearman's rho, computed here with average ranks for ties),
// the chosen policy replayed from its file keeps within the budget (trained
// again here), an FP16 softmax without max subtraction ranks worst, a sweep
// cancelled and resumed writes the table an uninterrupted one writes, and no
// more runs are in flight than the hardware has threads.
#include <mantissa/amp/policy.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/session.h>
#include <mantissa/train/sweep.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace mantissa;

namespace {

train::RunConfig smallGpt(std::int64_t steps) {
  train::RunConfig c = train::findPreset("shakespeare-char")->runs.front();
  c.model = "gpt:layers=2,heads=2,embd=32,ctx=32";
  c.batch = 8;
  c.steps = steps;
  c.warmupSteps = steps / 10;
  c.lr = 3e-3;
  c.evalBatches = 8;
  c.evalEvery = 0;
  return c;
}

std::filesystem::path freshDir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("mantissa-sweep-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

std::string readAll(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Average ranks (1-based) of values, ties sharing the mean of their ranks.
std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> idx(v.size());
  for (std::size_t i = 0; i < idx.size(); ++i)
    idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < idx.size();) {
    std::size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]])
      ++j;
    for (std::size_t k = i; k <= j; ++k)
      r[idx[k]] = (double(i) + double(j)) / 2.0 + 1.0;
    i = j + 1;
  }
  return r;
}

// Spearman's rho: Pearson's correlation of the average ranks.
double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) {
    ma += ra[i];
    mb += rb[i];
  }
  ma /= double(ra.size());
  mb /= double(rb.size());
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  return sab / std::sqrt(saa * sbb);
}

double valLoss(train::RunConfig c, const std::string& policy, std::uint64_t seed) {
  c.policy = policy;
  c.seed = seed;
  train::Session s(c);
  while (!s.finished())
    s.step();
  return s.divergence() ? std::nan("") : s.evaluate().loss;
}

} // namespace

// Two seeds rank the probes alike, and the chosen policy, read back from
// its file and trained again, keeps within the budget. The ranking is by the
// size of Δ: in a 10-step run the sign of a small Δ is the seed's (each seed
// computes its own; Spearman's rho of the signed Δ is about 0.2 here), while
// its size, set by the op and the format, repeats (measured with mantissa-cli
// sweep on this model: rho 0.86 at 10 steps, 0.88 at 30; 0.81 at lr 3e-3).
TEST(Sweep, RankingIsStableAcrossSeedsAndTheChosenPolicyReplaysWithinBudget) {
  train::SweepOptions o;
  o.config = smallGpt(10);
  o.config.lr = 1e-3; // the preset's
  o.seeds = 2;
  o.budget = 0.02;
  const auto dir = freshDir("stable");
  const train::SweepResult r = train::runSweep(o, dir);
  ASSERT_TRUE(r.complete);
  // 8 linear layers x 4 formats, 2 softmaxes and 10 model-wide classes x bf16, fp16.
  ASSERT_EQ(r.rows.size(), 8u * 4u + 2u * 2u + 10u * 2u);
  std::vector<double> seed1, seed2;
  for (const auto& row : r.rows) {
    ASSERT_EQ(row.delta.size(), 2u);
    // Δ is the probe's val_loss less the base's at the same seed.
    EXPECT_DOUBLE_EQ(row.delta[0], row.valLoss[0] - r.baseValLoss[0]);
    EXPECT_DOUBLE_EQ(row.meanAbsDelta, (std::abs(row.delta[0]) + std::abs(row.delta[1])) / 2);
    seed1.push_back(std::abs(row.delta[0]));
    seed2.push_back(std::abs(row.delta[1]));
  }
  const double rho = spearman(seed1, seed2);
  std::cout << "Spearman rho of |delta| between seeds over " << seed1.size() << " probes: " << rho
            << "\n";
  EXPECT_GE(rho, 0.8);
  for (std::size_t i = 1; i < r.rows.size(); ++i)
    EXPECT_LE(r.rows[i - 1].meanAbsDelta, r.rows[i].meanAbsDelta);

  // The policy file, replayed at both seeds.
  const std::string spec = amp::policySpecFromFile(readAll(dir / "policy.txt"));
  ASSERT_EQ(spec, r.chosenPolicy);
  EXPECT_FALSE(r.chosenProbes.empty()) << "some op fits the budget";
  double delta = 0;
  for (std::size_t s = 0; s < r.seeds.size(); ++s) {
    const double base = valLoss(o.config, "fp32", r.seeds[s]);
    EXPECT_EQ(base, r.baseValLoss[s]);
    delta += valLoss(o.config, spec, r.seeds[s]) - base;
  }
  delta /= double(r.seeds.size());
  std::cout << "chosen policy (" << r.chosenProbes.size() << " ops): " << spec
            << "; replayed mean delta " << delta << "\n";
  EXPECT_LE(delta, o.budget);
  EXPECT_EQ(delta, r.chosenDelta);
  EXPECT_LE(r.peakConcurrentRuns, int(std::max(1u, std::thread::hardware_concurrency())));
  std::filesystem::remove_all(dir);
}

// From a base without max subtraction, the FP16 softmax overflows exp and
// ranks last. The learning rate (0.02) grows the attention scores within 60
// steps: FP32's exp holds them, FP16's (max 65504, e^11.1) does not.
TEST(Sweep, Fp16SoftmaxWithoutMaxSubtractionRanksWorst) {
  train::SweepOptions o;
  o.config = smallGpt(60);
  o.config.lr = 2e-2;
  o.base = "fp32,softmax-max=off";
  o.formats = {"bf16", "fp16"};
  o.ops = {"softmax", "norm-stats", "gelu", "loss", "residual", "activations"};
  const auto dir = freshDir("softmax");
  const train::SweepResult r = train::runSweep(o, dir);
  ASSERT_TRUE(r.complete);
  for (const auto& row : r.rows)
    std::cout << row.rank << " " << row.probe.name() << " " << row.meanAbsDelta << "\n";
  ASSERT_FALSE(r.rows.empty());
  // The worst row is an FP16 softmax: exp overflowed FP16 without the max
  // subtraction and the run diverged (Δ = +inf). Nothing else diverged.
  const auto& worst = r.rows.back();
  EXPECT_EQ(worst.probe.op, "softmax");
  EXPECT_EQ(worst.probe.format, "fp16");
  EXPECT_TRUE(std::isinf(worst.meanAbsDelta)) << worst.meanAbsDelta;
  EXPECT_GT(worst.divergedAt, 0);
  for (const auto& row : r.rows) {
    if (!(row.probe.op == "softmax" && row.probe.format == "fp16")) {
      EXPECT_TRUE(std::isfinite(row.meanAbsDelta)) << row.probe.name();
    }
  }
  std::filesystem::remove_all(dir);
}

// Cancelled after a few runs and resumed: the same files as in one go.
TEST(Sweep, ResumeAfterCancelWritesTheSameTable) {
  train::SweepOptions o;
  o.config = smallGpt(12);
  o.config.model = "gpt:layers=1,heads=2,embd=32,ctx=32";
  o.formats = {"bf16", "mxfp4"};
  o.ops = {"matmul-inputs", "softmax"};
  o.seeds = 2;
  const auto whole = freshDir("whole"), parts = freshDir("parts");
  const train::SweepResult a = train::runSweep(o, whole);
  ASSERT_TRUE(a.complete);

  std::atomic<bool> cancel{false};
  const train::SweepResult first = train::runSweep(
      o, parts, [&](const train::SweepProgress& p) { if (p.done >= 5) cancel = true; }, &cancel);
  EXPECT_FALSE(first.complete);
  EXPECT_FALSE(std::filesystem::exists(parts / "sweep.csv"));
  ASSERT_TRUE(std::filesystem::exists(parts / "runs.json"));
  // Without resume the folder is refused, naming the option.
  try {
    train::runSweep(o, parts);
    FAIL() << "a folder with runs was reused without resume";
  } catch (const train::SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("--resume"), std::string::npos) << e.what();
  }
  o.resume = true;
  const train::SweepResult second = train::runSweep(o, parts);
  ASSERT_TRUE(second.complete);
  EXPECT_EQ(first.runsTrained + second.runsTrained, a.runsTrained);
  EXPECT_GE(first.runsTrained, 5);
  for (const char* file : {"sweep.csv", "sweep.json", "policy.txt"})
    EXPECT_EQ(readAll(parts / file), readAll(whole / file)) << file;
  // Other options do not resume these runs.
  o.formats = {"bf16"};
  try {
    train::runSweep(o, parts);
    FAIL() << "another sweep's runs were resumed";
  } catch (const train::SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("differs in formats"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(whole);
  std::filesystem::remove_all(parts);
}

TEST(Sweep, RunsAtOnceAreBoundedByTheHardware) {
  const int hw = int(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(train::sweepJobs(0), hw);
  EXPECT_EQ(train::sweepJobs(1), 1);
  EXPECT_EQ(train::sweepJobs(hw + 100), hw);
  train::SweepOptions o;
  o.config = smallGpt(4);
  o.config.model = "gpt:layers=1,heads=2,embd=32,ctx=32";
  o.formats = {"bf16", "fp16"};
  o.ops = {"gelu", "loss", "residual", "norm-stats"};
  o.jobs = hw + 100;
  const auto dir = freshDir("jobs");
  const train::SweepResult r = train::runSweep(o, dir);
  ASSERT_TRUE(r.complete);
  EXPECT_GE(r.peakConcurrentRuns, 1);
  EXPECT_LE(r.peakConcurrentRuns, hw);
  std::filesystem::remove_all(dir);
}

TEST(Sweep, BadOptionsAreNamed) {
  const auto error = [](const train::SweepOptions& o) -> std::string {
    try {
      (void)train::sweepProbes(o);
    } catch (const train::SweepError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  train::SweepOptions o;
  o.config = smallGpt(4);
  o.formats = {"bf16", "fp7"};
  EXPECT_EQ(error(o).rfind("--formats: unknown format \"fp7\"", 0), 0u) << error(o);
  o.formats = {"bf16"};
  o.ops = {"softmaxx"};
  EXPECT_EQ(error(o).rfind("--ops: unknown op class \"softmaxx\"", 0), 0u) << error(o);
  o.ops = {};
  o.base = "fp33";
  EXPECT_EQ(error(o).rfind("--base: policy \"fp33\"", 0), 0u) << error(o);
  o.base = "fp32";
  o.seeds = 0;
  EXPECT_EQ(error(o).rfind("--seeds:", 0), 0u) << error(o);
  o.seeds = 1;
  o.config.model = "mlp:784-10";
  EXPECT_EQ(error(o).rfind("--model:", 0), 0u) << error(o);
  // Formats with no fewer bits than the base give no probe; 8-bit formats only feed products.
  o.config = smallGpt(4);
  o.base = "fp32,softmax=bf16";
  o.formats = {"fp16", "fp8-e4m3"};
  o.ops = {"softmax", "matmul-inputs"};
  const auto probes = train::sweepProbes(o);
  for (const auto& p : probes) {
    EXPECT_FALSE(p.op == "softmax") << p.name();
    EXPECT_EQ(p.op, "matmul-inputs");
  }
  EXPECT_EQ(probes.size(), 2u * 4u * 2u);
}
